import { describe, expect, it } from "vitest";
import {
  PermissionDialogView,
  UiDialogView,
  describeResolution,
  type PermissionAnswer,
  type UiAnswer,
} from "../../labextension/src/render/index";
import type {
  PermissionRequestEvent,
  PermissionResolvedEvent,
  UiRequestEvent,
} from "../../labextension/src/wire";
import { ev } from "./helpers";

const request = (
  fields: Partial<PermissionRequestEvent> = {},
): PermissionRequestEvent =>
  ({
    ...ev("permission_request"),
    request_id: "req-1",
    tool: "bash",
    input: { command: "rm -rf build", timeout: 30 },
    prompt: "Run a shell command?",
    suggested_rule: "bash(rm -rf build)",
    read_only: false,
    tool_call_id: "call-1",
    turn_id: "t1",
    ...fields,
  }) as PermissionRequestEvent;

const resolved = (
  fields: Partial<PermissionResolvedEvent>,
): PermissionResolvedEvent =>
  ({
    ...ev("permission_resolved"),
    request_id: "req-1",
    decision: "allow",
    decided_by: "widget-a",
    source: "client",
    reason: null,
    rule: null,
    ...fields,
  }) as PermissionResolvedEvent;

const buttons = (root: Element): Map<string, HTMLButtonElement> =>
  new Map(
    [...root.querySelectorAll("button")].map((b) => [b.textContent ?? "", b]),
  );

describe("permission dialog", () => {
  it("shows the tool, the prompt and the whole input as text", () => {
    const view = new PermissionDialogView(request(), () => undefined);
    expect(view.el.querySelector(".shard-tool-name")?.textContent).toBe("bash");
    expect(view.el.querySelector(".shard-permission-prompt")?.textContent).toBe(
      "Run a shell command?",
    );
    expect(
      JSON.parse(
        view.el.querySelector(".shard-permission-input")?.textContent ?? "",
      ),
    ).toEqual({ command: "rm -rf build", timeout: 30 });
    expect([...buttons(view.el).keys()]).toEqual([
      "Allow once",
      "Always allow",
      "Always allow in this workspace",
      "Deny",
    ]);
    expect(
      view.el.querySelector<HTMLInputElement>(".shard-rule-input")?.value,
    ).toBe("bash(rm -rf build)");
  });

  it.each([
    [
      "Allow once",
      { decision: "allow", rule: null, reason: null, scope: "agent" },
    ],
    [
      "Always allow",
      {
        decision: "allow_always",
        rule: "bash(rm -rf build)",
        reason: null,
        scope: "agent",
      },
    ],
    [
      "Always allow in this workspace",
      {
        decision: "allow_always",
        rule: "bash(rm -rf build)",
        reason: null,
        scope: "workspace",
      },
    ],
    ["Deny", { decision: "deny", rule: null, reason: null, scope: "agent" }],
  ])("%s answers once and waits", (label, expected) => {
    const answers: PermissionAnswer[] = [];
    const view = new PermissionDialogView(request(), (a) => answers.push(a));
    buttons(view.el).get(label)?.click();
    buttons(view.el).get(label)?.click();
    expect(answers).toEqual([{ requestId: "req-1", ...expected }]);
    expect([...buttons(view.el).values()].every((b) => b.disabled)).toBe(true);
    expect(view.el.querySelector(".shard-dialog-footer")?.textContent).toBe(
      "Sending…",
    );
  });

  it("Deny sends the reason typed (Enter works too)", () => {
    const answers: PermissionAnswer[] = [];
    const view = new PermissionDialogView(request(), (a) => answers.push(a));
    const input = view.el.querySelector<HTMLInputElement>(
      ".shard-permission-reason",
    );
    if (!input) throw new Error("no reason input");
    input.value = "  not in this repo ";
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    expect(answers).toEqual([
      {
        requestId: "req-1",
        decision: "deny",
        rule: null,
        reason: "not in this repo",
        scope: "agent",
      },
    ]);
  });

  it("without a suggested rule there is no Always allow", () => {
    const view = new PermissionDialogView(
      request({ suggested_rule: null }),
      () => undefined,
    );
    expect([...buttons(view.el).keys()]).toEqual(["Allow once", "Deny"]);
  });

  it("an error re-enables the buttons", () => {
    const view = new PermissionDialogView(request(), () => undefined);
    buttons(view.el).get("Allow once")?.click();
    view.setError("already decided by widget-b");
    expect([...buttons(view.el).values()].some((b) => b.disabled)).toBe(false);
    expect(view.el.querySelector(".shard-dialog-footer")?.textContent).toBe(
      "already decided by widget-b",
    );
  });

  it("closes saying who decided", () => {
    const view = new PermissionDialogView(request(), () => undefined);
    view.setResolved(
      resolved({ decision: "allow_always", rule: "bash(rm -rf build)" }),
    );
    expect(view.el.querySelector("button")).toBeNull();
    expect(view.el.classList.contains("shard-dialog-closed")).toBe(true);
    expect(view.el.querySelector(".shard-dialog-footer")?.textContent).toBe(
      "✓ always allowed — by widget-a · saved for this agent: bash(rm -rf build)",
    );
  });

  it("says where the gate saved a workspace grant, once", () => {
    const saved =
      "saved for this workspace: Edit(note.txt) (every agent in /srv/w)";
    const text = describeResolution(
      resolved({
        decision: "allow_always",
        rule: "Edit(note.txt)",
        scope: "workspace",
        reason: saved,
      }),
    );
    expect(text).toBe(`✓ always allowed — by widget-a · ${saved}`);
  });

  it.each([
    [
      {
        decision: "deny",
        decided_by: "agent",
        source: "timeout",
        reason: "no answer in 60 s",
      },
      "✗ denied — by the headless policy (no answer in time) · reason: no answer in 60 s",
    ],
    [
      {
        decision: "allow",
        decided_by: "agent",
        source: "rule",
        rule: "read(*)",
      },
      "✓ allowed — by rule read(*)",
    ],
    [
      {
        decision: "allow",
        decided_by: "Edit(a.txt)",
        source: "grant",
        rule: "Edit(a.txt)",
        reason: "edit a.txt is allowed by Edit(a.txt) (workspace grant)",
      },
      "✓ allowed — by this workspace's saved grant Edit(a.txt) · reason: edit a.txt is allowed by Edit(a.txt) (workspace grant)",
    ],
    [
      {
        decision: "allow",
        decided_by: "Edit(a.txt)",
        source: "grant",
        rule: "Edit(a.txt)",
        reason: "edit a.txt is allowed by Edit(a.txt) (allow-always grant)",
      },
      "✓ allowed — by this agent's saved grant Edit(a.txt) · reason: edit a.txt is allowed by Edit(a.txt) (allow-always grant)",
    ],
    [
      { decision: "deny", decided_by: "agent", source: "headless" },
      "✗ denied — by the headless policy",
    ],
  ] as const)("describes %o", (fields, text) => {
    expect(describeResolution(resolved(fields))).toBe(text);
  });

  it("open and still pending stays open; closed without a resolution says so", () => {
    const view = new PermissionDialogView(request(), () => undefined);
    view.setResolved(null, true);
    expect(view.el.querySelectorAll("button")).toHaveLength(4);
    view.setResolved(null, false);
    expect(view.el.querySelector(".shard-dialog-footer")?.textContent).toBe(
      "No longer pending.",
    );
  });
});

const ui = (fields: Partial<UiRequestEvent>): UiRequestEvent =>
  ({
    ...ev("ui_request"),
    request_id: "u1",
    ui: "select",
    title: "Pick",
    message: "Which one?",
    options: [],
    default: null,
    ...fields,
  }) as UiRequestEvent;

describe("ui dialogs", () => {
  it("select with few options: a button each, the default highlighted", () => {
    const answers: UiAnswer[] = [];
    const view = new UiDialogView(
      ui({ options: ["a", "b"], default: "b" }),
      (a) => answers.push(a),
    );
    const b = buttons(view.el);
    expect([...b.keys()]).toEqual(["a", "b"]);
    expect(b.get("b")?.classList.contains("shard-button-primary")).toBe(true);
    b.get("a")?.click();
    expect(answers).toEqual([{ requestId: "u1", value: "a" }]);
  });

  it("select with many options: a select box", () => {
    const answers: UiAnswer[] = [];
    const options = ["1", "2", "3", "4", "5", "6", "7"];
    const view = new UiDialogView(ui({ options, default: "3" }), (a) =>
      answers.push(a),
    );
    const select = view.el.querySelector("select");
    expect(select?.value).toBe("3");
    if (select) select.value = "6";
    buttons(view.el).get("OK")?.click();
    expect(answers).toEqual([{ requestId: "u1", value: "6" }]);
  });

  it("confirm answers true or false", () => {
    const answers: UiAnswer[] = [];
    const view = new UiDialogView(ui({ ui: "confirm" }), (a) =>
      answers.push(a),
    );
    buttons(view.el).get("No")?.click();
    expect(answers).toEqual([{ requestId: "u1", value: false }]);
  });

  it("input starts from the default and submits the text", () => {
    const answers: UiAnswer[] = [];
    const view = new UiDialogView(ui({ ui: "input", default: "main" }), (a) =>
      answers.push(a),
    );
    const input = view.el.querySelector<HTMLInputElement>("input");
    expect(input?.value).toBe("main");
    if (input) input.value = "dev";
    buttons(view.el).get("Submit")?.click();
    expect(answers).toEqual([{ requestId: "u1", value: "dev" }]);
  });

  it("notify only informs", () => {
    const view = new UiDialogView(
      ui({ ui: "notify", title: "Heads up", message: "Index rebuilt" }),
      () => undefined,
    );
    expect(view.el.querySelector("button, input, select")).toBeNull();
    expect(view.el.textContent).toBe("Heads upIndex rebuilt");
  });

  it("closes with the answer and who gave it", () => {
    const view = new UiDialogView(ui({ ui: "confirm" }), () => undefined);
    view.setResolved({
      ...ev("ui_resolved"),
      request_id: "u1",
      value: true,
      decided_by: "widget-a",
    } as never);
    expect(view.el.querySelector("button")).toBeNull();
    expect(view.el.querySelector(".shard-dialog-footer")?.textContent).toBe(
      "Answered: yes — by widget-a",
    );
  });
});
