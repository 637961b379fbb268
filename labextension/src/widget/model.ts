// The slice of anywidget's model this bundle uses, typed with `unknown` (what arrives is data
// from the kernel, checked before use). anywidget's own model satisfies it structurally.

export type Listener = (...args: unknown[]) => void;

export interface WidgetModel {
  get(key: string): unknown;
  /** local only: this bundle never calls save_changes, state flows kernel → browser */
  set(key: string, value: unknown): void;
  on(event: string, callback: Listener): void;
  off(event?: string | null, callback?: Listener | null): void;
  send(content: object): void;
}

export interface RenderProps {
  readonly model: WidgetModel;
  readonly el: HTMLElement;
}

export interface InitializeProps {
  readonly model: WidgetModel;
}

export type Cleanup = () => void;

/** Subscribes to model events and returns the matching unsubscribe. */
export function listen(model: WidgetModel, event: string, callback: Listener): Cleanup {
  model.on(event, callback);
  return () => model.off(event, callback);
}

export function getString(model: WidgetModel, key: string, fallback = ""): string {
  const value = model.get(key);
  return typeof value === "string" ? value : fallback;
}

export function getList(model: WidgetModel, key: string): unknown[] {
  const value = model.get(key);
  return Array.isArray(value) ? value : [];
}
