// DOM building without HTML parsing: every string becomes a Text node, so model and tool text
// can never turn into markup. Nothing in src/ parses an HTML string (tests/js/security.test.ts
// lists the APIs it refuses).

export type Child = Node | string | number | null | undefined | false;

export interface ElementOptions {
  /** space-separated class names */
  readonly class?: string;
  /** static attributes chosen by our code; event-handler attributes are refused */
  readonly attrs?: Readonly<Record<string, string>>;
  readonly title?: string;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: ElementOptions | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (options?.class) element.className = options.class;
  if (options?.title !== undefined) element.title = options.title;
  for (const [name, value] of Object.entries(options?.attrs ?? {})) {
    if (/^on/i.test(name) || name === "href" || name === "src") {
      throw new Error(`h(): attribute ${name} must not be set this way`);
    }
    element.setAttribute(name, value);
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** A button whose label is text; `onClick` runs on click (never via an attribute). */
export function button(label: string, onClick: () => void, className = ""): HTMLButtonElement {
  const element = h(
    "button",
    { class: `shard-button ${className}`.trim(), attrs: { type: "button" } },
    label,
  );
  element.addEventListener("click", onClick);
  return element;
}

export function clear(element: Element): void {
  element.replaceChildren();
}
