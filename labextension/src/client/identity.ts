// Who this browser tab is, for people: the server's user name plus a short tab label that
// survives a reload of the same tab (sessionStorage), never a raw client id.
const TAB_KEY = "shard:tab-label";
const CLIENT_KEY = "shard:client-id";

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

/** "alice · Tab 3f2a" (just the tab when the server names no user). */
export function clientLabel(userName: string | null | undefined): string {
  const name = (userName ?? "")
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, 40);
  return name ? `${name} · ${tabLabel()}` : tabLabel();
}
