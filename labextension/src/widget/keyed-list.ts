// Keeps a container's children in step with a keyed item list, re-rendering only items whose
// `sig` changed and leaving untouched nodes (and what a person is typing in them) in place.

export interface Keyed {
  readonly key: string;
  readonly sig: string;
}

interface Entry {
  sig: string;
  node: HTMLElement;
}

export class KeyedList<T extends Keyed> {
  private entries = new Map<string, Entry>();

  constructor(
    readonly container: HTMLElement,
    private readonly render: (item: T, previous: HTMLElement | undefined) => HTMLElement,
  ) {}

  update(items: readonly T[]): void {
    const next = new Map<string, Entry>();
    for (const item of items) {
      const entry = this.entries.get(item.key);
      if (entry && entry.sig === item.sig) {
        next.set(item.key, entry);
      } else {
        next.set(item.key, { sig: item.sig, node: this.render(item, entry?.node) });
      }
    }
    for (const [key, entry] of this.entries) {
      if (next.get(key)?.node !== entry.node) entry.node.remove();
    }
    let cursor = this.container.firstElementChild;
    for (const { node } of next.values()) {
      if (cursor === node) {
        cursor = cursor.nextElementSibling;
      } else {
        this.container.insertBefore(node, cursor);
      }
    }
    this.entries = next;
  }
}
