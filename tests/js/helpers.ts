// Test doubles and fixtures shared by the JS tests.
import type {
  Listener,
  WidgetModel,
} from "../../labextension/src/widget/model";

/** An in-memory anywidget model: `set` fires change events, `emitCustom` plays a kernel message. */
export class FakeModel implements WidgetModel {
  readonly sent: Record<string, unknown>[] = [];
  private readonly state = new Map<string, unknown>();
  private readonly listeners = new Map<string, Set<Listener>>();

  constructor(initial: Record<string, unknown> = {}) {
    for (const [key, value] of Object.entries(initial))
      this.state.set(key, value);
  }

  get(key: string): unknown {
    return this.state.get(key);
  }

  set(key: string, value: unknown): void {
    this.state.set(key, value);
    this.emit(`change:${key}`);
  }

  on(event: string, callback: Listener): void {
    const set = this.listeners.get(event) ?? new Set<Listener>();
    set.add(callback);
    this.listeners.set(event, set);
  }

  off(event?: string | null, callback?: Listener | null): void {
    if (!event) return this.listeners.clear();
    if (!callback) return void this.listeners.delete(event);
    this.listeners.get(event)?.delete(callback);
  }

  send(content: object): void {
    this.sent.push(content as Record<string, unknown>);
  }

  emitCustom(message: unknown): void {
    this.emit("msg:custom", message);
  }

  listenerCount(): number {
    return [...this.listeners.values()].reduce((n, s) => n + s.size, 0);
  }

  private emit(event: string, ...args: unknown[]): void {
    for (const callback of [...(this.listeners.get(event) ?? [])])
      callback(...args);
  }
}

let seq = 0;

export function resetSeq(): void {
  seq = 0;
}

/** An event with the common fields filled in and the next seq. */
export function ev(
  type: string,
  fields: Record<string, unknown> = {},
): Record<string, unknown> {
  const event = {
    type,
    agent_id: "agent-test",
    seq,
    ts: 1_700_000_000 + seq,
    ...fields,
  };
  seq += 1;
  return event;
}

/** The hostile strings every renderer must show as inert text. */
export const HOSTILE = [
  "<img src=x onerror=alert(1)>",
  "<script>alert(1)</script>",
  '<a href="javascript:alert(1)">click</a>',
  "[click](javascript:alert(1))",
  '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(1)</script></svg>',
  '<iframe src="https://evil.example"></iframe>',
  "![x](javascript:alert(1))",
  '"><img src=x onerror=alert(1)>',
] as const;

/** No element created from hostile text: nothing active, no handler attributes, no bad links. */
export function assertInert(root: Element): void {
  const active = root.querySelectorAll(
    "script, img, svg, iframe, object, embed, style, link, form",
  );
  if (active.length > 0)
    throw new Error(`active element rendered: ${active[0]?.outerHTML}`);
  for (const element of root.querySelectorAll("*")) {
    for (const attribute of element.getAttributeNames()) {
      if (attribute.toLowerCase().startsWith("on")) {
        throw new Error(
          `handler attribute ${attribute} on <${element.tagName}>`,
        );
      }
    }
  }
  for (const anchor of root.querySelectorAll("a")) {
    const href = anchor.getAttribute("href") ?? "";
    if (!/^https?:\/\//.test(href)) throw new Error(`link to ${href}`);
    if (!(anchor.getAttribute("rel") ?? "").includes("noopener"))
      throw new Error("link without noopener");
  }
}
