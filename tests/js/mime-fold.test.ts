import { describe, expect, it, vi } from "vitest";

// @lumino/widgets pulls in @lumino/dragdrop, which reads DragEvent at load time; jsdom has none.
vi.hoisted(() => {
  if (!("DragEvent" in globalThis))
    (globalThis as Record<string, unknown>)["DragEvent"] =
      class DragEvent extends MouseEvent {};
  // jsdom has no CSS.escape; the ids here need none of its escaping
  const css = (globalThis as { CSS?: { escape?: unknown } }).CSS;
  if (typeof css?.escape !== "function")
    Object.defineProperty(globalThis, "CSS", {
      value: { ...css, escape: (text: string) => text },
      configurable: true,
    });
});

import extensions, {
  PERMISSION_MIME,
  RENDER_MIME,
} from "../../labextension/src/lab/mime";
import { ev } from "./helpers";

interface Renderer {
  readonly node: HTMLElement;
  renderModel(model: unknown): Promise<void>;
}

/** Lumino's Widget.attach, reached through the renderer's class (a Widget subclass). */
function attach(widget: Renderer, host: HTMLElement): void {
  const cls = widget.constructor as unknown as {
    attach(w: Renderer, host: HTMLElement): void;
  };
  cls.attach(widget, host);
}

function renderer(mime: string): Renderer {
  const found = extensions.find((e) =>
    e.rendererFactory.mimeTypes.includes(mime),
  );
  return found!.rendererFactory.createRenderer(
    {} as never,
  ) as unknown as Renderer;
}

const model = (mime: string, data: unknown) => ({
  data: { [mime]: data },
  metadata: {},
});

/** A notebook cell's output area with one child per output, as Lab builds it. */
function outputArea(): { area: HTMLElement; child: () => HTMLElement } {
  const area = document.createElement("div");
  area.className = "jp-OutputArea";
  document.body.append(area);
  return {
    area,
    child: () => {
      const child = document.createElement("div");
      child.className = "jp-OutputArea-child";
      area.append(child);
      return child;
    },
  };
}

const request = ev("permission_request", {
  request_id: "perm-1",
  tool: "write",
  input: { path: "a.txt" },
  prompt: "Allow write: a.txt",
  suggested_rule: "Write(a.txt)",
});
const resolved = ev("permission_resolved", {
  request_id: "perm-1",
  decision: "allow_always",
  decided_by: "alice · Tab 3f2a",
  source: "client",
  rule: "Write(a.txt)",
  scope: "agent",
});
const echo = {
  version: 1,
  descriptors: [{ kind: "status", label: "allowed", tone: "success" }],
};

describe("a decision shown once in a notebook", () => {
  it("folds the decision line when the prompt closes after the line was drawn", async () => {
    const { child } = outputArea();
    const prompt = renderer(PERMISSION_MIME);
    await prompt.renderModel(model(PERMISSION_MIME, request));
    attach(prompt, child());
    const line = renderer(RENDER_MIME);
    await line.renderModel(model(RENDER_MIME, { ...echo, event: resolved }));
    const lineChild = child();
    attach(line, lineChild);
    expect(lineChild.classList.contains("shard-folded-away")).toBe(false); // still open
    // the kernel's update: the prompt's output now carries its answer
    await prompt.renderModel(
      model(PERMISSION_MIME, { ...request, resolution: resolved }),
    );
    expect(prompt.node.querySelector(".shard-dialog-closed")).not.toBeNull();
    expect(lineChild.classList.contains("shard-folded-away")).toBe(true);
  });

  it("folds it when the prompt had closed first, and never a line about another prompt", async () => {
    const { child } = outputArea();
    const prompt = renderer(PERMISSION_MIME);
    await prompt.renderModel(
      model(PERMISSION_MIME, { ...request, resolution: resolved }),
    );
    attach(prompt, child());
    const line = renderer(RENDER_MIME);
    await line.renderModel(model(RENDER_MIME, { ...echo, event: resolved }));
    const lineChild = child();
    attach(line, lineChild);
    expect(lineChild.classList.contains("shard-folded-away")).toBe(true);
    const other = renderer(RENDER_MIME);
    const otherEvent = { ...resolved, request_id: "perm-2" };
    await other.renderModel(model(RENDER_MIME, { ...echo, event: otherEvent }));
    const otherChild = child();
    attach(other, otherChild);
    expect(otherChild.classList.contains("shard-folded-away")).toBe(false);
  });
});
