// The built files in shard_widgets/static are what users get: load them as anywidget would.
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { FakeModel } from "./helpers";

const STATIC = resolve(process.cwd(), "..", "shard_widgets", "static"); // vitest runs in labextension/

interface WidgetModule {
  default: {
    initialize?: (p: { model: FakeModel }) => unknown;
    render: (p: { model: FakeModel; el: HTMLElement }) => unknown;
  };
}

describe.each(["agent-widget", "permission-dialog", "agent-dashboard"])(
  "%s.js",
  (name) => {
    it("exports a default { render } that renders and cleans up", async () => {
      const mod = (await import(
        /* @vite-ignore */ resolve(STATIC, `${name}.js`)
      )) as WidgetModule;
      expect(typeof mod.default.render).toBe("function");
      const model = new FakeModel({
        events: [],
        pending: [],
        pending_ui: [],
        agents: [],
        request: {},
        resolved: null,
        modes: ["build"],
      });
      mod.default.initialize?.({ model });
      const el = document.createElement("div");
      const cleanup = mod.default.render({ model, el });
      expect(el.querySelector(".shard-widget")).not.toBeNull();
      expect(typeof cleanup).toBe("function");
      (cleanup as () => void)();
      expect(el.childNodes).toHaveLength(0);
    });
  },
);

describe("agent-widget.js", () => {
  it("has a model-level initialize that applies transcript messages", async () => {
    const mod = (await import(
      /* @vite-ignore */ resolve(STATIC, "agent-widget.js")
    )) as WidgetModule;
    const model = new FakeModel({ events: [] });
    mod.default.initialize?.({ model });
    model.emitCustom({
      type: "append",
      events: [
        {
          type: "turn_start",
          agent_id: "a",
          seq: 0,
          ts: 0,
          turn_id: "t",
          prompt: "p",
          entry_id: null,
        },
      ],
      max_events: 10,
    });
    expect(model.get("events")).toHaveLength(1);
  });
});

describe("stylesheet", () => {
  it("exists and styles the widgets", () => {
    const css = resolve(STATIC, "shard-widgets.css");
    expect(existsSync(css)).toBe(true);
    expect(readFileSync(css, "utf8")).toContain(".shard-widget");
  });
});
