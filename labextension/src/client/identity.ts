// Who this browser tab is, for people: the server's user name plus a short tab label that
// survives a reload of the same tab (sessionStorage), never a raw client id.
const TAB_KEY = "shard:tab-label";
const CLIENT_KEY = "shard:client-id";
const LABEL_KEY = "shard:client-label";

function randomHex(bytes: number): string {
  const buffer = new Uint8Array(bytes);
  globalThis.crypto.getRandomValues(buffer);
  return Array.from(buffer, (b) => b.toString(16).padStart(2, "0")).join("");
}

function remembered(key: string, make: () => string): string {
  try {
    const found = globalThis.sessionStorage?.getItem(key);
    if (found) return found;
    const value = make();
    globalThis.sessionStorage?.setItem(key, value);
    return value;
  } catch {
    return make(); // storage refused (private mode, sandboxed frame)
  }
}

/** "Tab 3f2a": four hex digits, the same for this tab across reloads. */
export function tabLabel(): string {
  return remembered(TAB_KEY, () => `Tab ${randomHex(2)}`);
}

export function tabClientId(): string {
  return remembered(CLIENT_KEY, () => `lab-${randomHex(6)}`);
}

/** "alice · Tab 3f2a" (just the tab when the server names no user). Remembered for this tab, so
 * Shard's notebook widgets in the page, which know no user name, answer with the same label. */
export function clientLabel(userName: string | null | undefined): string {
  const name = (userName ?? "")
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, 40);
  const label = name ? `${name} · ${tabLabel()}` : tabLabel();
  try {
    globalThis.sessionStorage?.setItem(LABEL_KEY, label);
  } catch {
    // storage refused: the widgets fall back to the tab label
  }
  return label;
}

/** The label this tab's Lab extension gave itself, else the tab's own ("Tab 3f2a"). */
export function pageLabel(): string {
  try {
    const found = globalThis.sessionStorage?.getItem(LABEL_KEY);
    if (found) return found;
  } catch {
    // storage refused
  }
  return tabLabel();
}
