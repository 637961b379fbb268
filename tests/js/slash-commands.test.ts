import { describe, expect, it } from "vitest";
import { renderAgentView } from "../../labextension/src/widget/agent-view";
import { renderPlainItem } from "../../labextension/src/widget/item-views";
import {
  deriveItems,
  type CommandItem,
} from "../../labextension/src/widget/transcript-items";
import { assertInert, ev, FakeModel, HOSTILE, resetSeq } from "./helpers";

const noPending = { permissions: [], ui: [] };

function output(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return ev("command_output", {
    command: "/status",
    text: "/status",
    ok: true,
    markdown: "| | |\n|---|---|\n| agent | agent-test |",
    client_id: "tab-1",
    label: "alice · Tab 1",
    ...fields,
  });
}

describe("command_output in the transcript", () => {
  it("is one item per run, its markdown rendered, with who ran it", () => {
    resetSeq();
    const items = deriveItems(
      [output(), output({ text: "/status again" })],
      noPending,
    );
    expect(items.map((i) => i.kind)).toEqual(["command", "command"]);
    const el = renderPlainItem(items[0] as CommandItem, null);
    expect(el.querySelector(".shard-command-text")?.textContent).toBe(
      "/status",
    );
    expect(el.textContent).toContain("alice · Tab 1");
    expect(el.querySelector("table td:last-child")?.textContent).toBe(
      "agent-test",
    );
  });

  it("shows a failure as an error, as text", () => {
    resetSeq();
    const [item] = deriveItems(
      [
        output({
          ok: false,
          markdown: "unknown command /nope; try /help",
          client_id: null,
          label: null,
        }),
      ],
      noPending,
    );
    const el = renderPlainItem(item as CommandItem, null);
    expect(el.classList.contains("shard-command-failed")).toBe(true);
    expect(el.querySelector("[role=alert]")?.textContent).toBe(
      "unknown command /nope; try /help",
    );
  });

  it("keeps an extension's hostile output inert", () => {
    resetSeq();
    for (const text of HOSTILE) {
      const [item] = deriveItems([output({ markdown: text })], noPending);
      assertInert(renderPlainItem(item as CommandItem, null));
    }
  });
});

describe("the widget's composer takes / commands", () => {
  it("sends a slash command, asks for the agent's commands and offers them", () => {
    resetSeq();
    const model = new FakeModel({
      events: [],
      status: "streaming",
      client_id: "w-1",
    });
    const el = document.createElement("div");
    const cleanup = renderAgentView({ model, el });
    const input = el.querySelector<HTMLTextAreaElement>(
      ".shard-composer-input",
    )!;
    input.value = "/";
    input.dispatchEvent(new Event("input"));
    const ask = model.sent.at(-1)!;
    expect(ask["type"]).toBe("list_commands");
    model.emitCustom({
      type: "reply",
      command_id: ask["id"],
      command: "list_commands",
      ok: true,
      message: "",
      data: {
        commands: [
          {
            name: "/greet",
            description: "greets",
            hint: "NAME",
            extension: "extensions/greeter_command.py",
          },
          {
            name: "/status",
            description: "status",
            extension: "shard.kernel",
            hint: "",
          },
        ],
      },
    });
    const options = [...el.querySelectorAll(".shard-slash-menu li code")].map(
      (o) => o.textContent,
    );
    expect(options).toEqual(["/greet NAME", "/status"]);

    input.value = "/greet Ada";
    input.dispatchEvent(new Event("input"));
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    expect(model.sent.at(-1)).toMatchObject({
      type: "slash",
      text: "/greet Ada",
      client_id: "w-1",
    });
    input.value = "use the other file";
    input.dispatchEvent(new Event("input"));
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    expect(model.sent.at(-1)).toMatchObject({
      type: "steer",
      text: "use the other file",
    });

    model.set("events", [
      output({ text: "/greet Ada", markdown: "Hello, Ada" }),
    ]);
    expect(el.querySelector(".shard-command-item")?.textContent).toContain(
      "Hello, Ada",
    );
    cleanup();
  });
});
