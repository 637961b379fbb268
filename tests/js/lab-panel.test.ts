import { describe, expect, it, vi } from "vitest";

// @lumino/widgets (imported by agents-panel.ts) pulls in @lumino/dragdrop, which reads DragEvent
// at load time; jsdom has none.
vi.hoisted(() => {
  if (!("DragEvent" in globalThis))
    (globalThis as Record<string, unknown>)["DragEvent"] =
      class DragEvent extends MouseEvent {};
});

import { badgeOf, shortPath } from "../../labextension/src/lab/agents-panel";
import { shortModel } from "../../labextension/src/render/format";
import { folderUnderRoot } from "../../labextension/src/lab/new-agent-form";
import { Composer } from "../../labextension/src/widget/composer";
import {
  currentActivity,
  formatElapsed,
  isBusy,
  renderHeader,
  type HeaderState,
} from "../../labextension/src/widget/agent-header";
import type { AgentInfo } from "../../labextension/src/wire";

type Rec = Record<string, unknown>;

function agentInfo(runtime_state: string, status: string): AgentInfo {
  const usage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: 0,
  };
  return {
    id: "a1",
    name: "proj",
    cwd: "/home/u/proj",
    model: "claude-x",
    mode: "build",
    clients: 1,
    clients_by_role: { interactive: 1, observer: 0 },
    created: 1_700_000_000,
    error: null,
    headless_policy: "deny",
    kernel_id: "k1",
    notebook: null,
    runtime_state,
    status,
    usage,
  } as unknown as AgentInfo;
}

describe("badgeOf", () => {
  const STATUSES = [
    "idle",
    "streaming",
    "running_tool",
    "waiting_for_permission",
    "error",
  ];

  it("says why an agent that is not running is not running, whatever its last status", () => {
    for (const status of STATUSES) {
      expect(badgeOf(agentInfo("stopped", status))).toEqual({
        text: "stopped",
        tone: "stopped",
      });
      expect(badgeOf(agentInfo("failed", status))).toEqual({
        text: "error",
        tone: "error",
      });
      expect(badgeOf(agentInfo("starting", status))).toEqual({
        text: "starting",
        tone: "busy",
      });
    }
  });

  it("says what a running agent is doing", () => {
    expect(
      STATUSES.map((status) => badgeOf(agentInfo("running", status))),
    ).toEqual([
      { text: "idle", tone: "idle" },
      { text: "streaming", tone: "busy" },
      { text: "running a tool", tone: "busy" },
      { text: "waiting for permission", tone: "warn" },
      { text: "error", tone: "error" },
    ]);
  });

  it("words a status it does not know without underscores", () => {
    expect(badgeOf(agentInfo("running", "compacting_context"))).toEqual({
      text: "compacting context",
      tone: "busy",
    });
  });
});

describe("folderUnderRoot", () => {
  it("joins a relative folder to the root", () => {
    expect(folderUnderRoot("/home/u", "proj/sub")).toBe("/home/u/proj/sub");
    expect(folderUnderRoot("/home/u/", "proj")).toBe("/home/u/proj");
    expect(folderUnderRoot("/home/u", "./proj//sub/")).toBe("/home/u/proj/sub");
    expect(folderUnderRoot("/home/u", "/proj")).toBe("/home/u/proj");
    expect(folderUnderRoot("/", "proj")).toBe("/proj");
  });

  it("takes an empty folder as the root itself", () => {
    expect(folderUnderRoot("/home/u", "")).toBe("/home/u");
    expect(folderUnderRoot("/home/u/", ".")).toBe("/home/u");
    expect(folderUnderRoot("/", "")).toBe("/");
  });

  it("refuses .. with an error that says what to fix", () => {
    for (const folder of ["..", "../etc", "proj/../../etc", "proj/.."]) {
      const result = folderUnderRoot("/home/u", folder);
      expect(result).toBeInstanceOf(Error);
      expect((result as Error).message).toBe(
        "the folder must be inside the server's root",
      );
    }
  });
});

/** What an agent's `list_commands` reply names: bundled, the kernel's and an extension's. */
const AGENT_COMMANDS = [
  {
    name: "/compact",
    description: "compact the conversation now",
    extension: "shard.commands",
  },
  {
    name: "/greet",
    description: "greets",
    hint: "NAME",
    extension: "extensions/greeter_command.py",
  },
  { name: "/help", description: "this table", extension: "shard.commands" },
  {
    name: "/mode",
    description: "show or switch the mode",
    extension: "shard.commands",
  },
  {
    name: "/recall",
    description: "search everything",
    hint: "QUERY",
    extension: "shard.commands",
  },
  {
    name: "/status",
    description: "status, mode, clients",
    extension: "shard.kernel",
  },
].map((c) => ({ hint: "", ...c }));

function composer(): {
  c: Composer;
  prompts: string[];
  steers: string[];
  type: (text: string) => void;
  key: (key: string, init?: KeyboardEventInit) => KeyboardEvent;
  menu: () => string[];
  menuEl: () => HTMLElement;
  stateText: () => string;
  asked: number[];
} {
  const prompts: string[] = [];
  const steers: string[] = [];
  const asked: number[] = [];
  const c = new Composer({
    prompt: (text) => prompts.push(text),
    steer: (text) => steers.push(text),
    wantCommands: () => asked.push(asked.length),
  });
  c.setCommands(AGENT_COMMANDS);
  document.body.replaceChildren(c.el);
  const type = (text: string): void => {
    c.input.value = text;
    c.input.dispatchEvent(new Event("input"));
  };
  const key = (k: string, init: KeyboardEventInit = {}): KeyboardEvent => {
    const event = new KeyboardEvent("keydown", {
      key: k,
      cancelable: true,
      ...init,
    });
    c.input.dispatchEvent(event);
    return event;
  };
  const menuEl = (): HTMLElement =>
    c.el.querySelector<HTMLElement>(".shard-slash-menu")!;
  const menu = (): string[] =>
    menuEl().hidden
      ? []
      : [...menuEl().querySelectorAll<HTMLElement>("li")].map(
          (li) => li.dataset["command"] ?? "",
        );
  const stateText = (): string =>
    c.el.querySelector(".shard-steer-state")?.textContent ?? "";
  return { c, prompts, steers, asked, type, key, menu, menuEl, stateText };
}

describe("Composer", () => {
  it("sends a prompt on Enter when idle, trimmed, and empties the box", () => {
    const { c, prompts, steers, type, key } = composer();
    type("  build the thing  ");
    const event = key("Enter");
    expect(prompts).toEqual(["build the thing"]);
    expect(steers).toEqual([]);
    expect(c.input.value).toBe("");
    expect(event.defaultPrevented).toBe(true);
  });

  it("sends nothing for an empty box", () => {
    const { prompts, steers, type, key } = composer();
    type("   ");
    key("Enter");
    expect(prompts).toEqual([]);
    expect(steers).toEqual([]);
  });

  it("steers on Enter while busy, and says so", () => {
    const { c, prompts, steers, type, key, stateText } = composer();
    c.setBusy(true);
    expect(c.el.querySelector(".shard-send")?.textContent).toBe("Steer");
    type("use the other file");
    key("Enter");
    expect(steers).toEqual(["use the other file"]);
    expect(prompts).toEqual([]);
    expect(stateText()).toBe(
      "Steer sent: “use the other file” — waiting for the agent…",
    );
    c.setBusy(false);
    expect(c.el.querySelector(".shard-send")?.textContent).toBe("Send");
    type("next");
    key("Enter");
    expect(prompts).toEqual(["next"]);
    expect(steers).toEqual(["use the other file"]);
  });

  it("still sends / commands as prompts while busy", () => {
    const { c, prompts, steers, type, key } = composer();
    c.setBusy(true);
    type("/status");
    key("Enter");
    expect(prompts).toEqual(["/status"]);
    expect(steers).toEqual([]);
  });

  it("does not send on Shift+Enter", () => {
    const { prompts, steers, type, key, c } = composer();
    type("line one");
    const event = key("Enter", { shiftKey: true });
    expect(prompts).toEqual([]);
    expect(steers).toEqual([]);
    expect(c.input.value).toBe("line one");
    expect(event.defaultPrevented).toBe(false);
  });

  it("sends with the Send button too", () => {
    const { c, prompts, type } = composer();
    type("hello");
    c.el.querySelector<HTMLButtonElement>(".shard-send")!.click();
    expect(prompts).toEqual(["hello"]);
  });

  it("shows the agent's commands in the / menu, filtered by what was typed", () => {
    const { c, type, menu, menuEl, asked } = composer();
    type("/");
    expect(asked).toHaveLength(1); // a fresh `/` asks the agent again (extensions may add some)
    expect(menu()).toEqual(AGENT_COMMANDS.map(({ name }) => name));
    expect(menuEl().textContent).toContain("/greet NAME — greets");
    type("/mo");
    expect(menu()).toEqual(["/mode"]);
    type("/zzz");
    expect(menu()).toEqual([]);
    type("not a command /mode");
    expect(menu()).toEqual([]);
    type("/mode\nplan");
    expect(menu()).toEqual([]);
    c.setCommands([]);
    type("/");
    expect(menu()).toEqual([]);
    expect(asked).toHaveLength(2);
  });

  it("completes the first match on Tab, and closes the menu", () => {
    const { c, prompts, type, key, menu } = composer();
    type("/gr");
    const event = key("Tab");
    expect(event.defaultPrevented).toBe(true);
    expect(c.input.value).toBe("/greet");
    expect(menu()).toEqual([]);
    expect(prompts).toEqual([]);
    type("/rec");
    key("Tab");
    expect(c.input.value).toBe("/recall");
  });

  it("leaves Tab alone when no menu is shown", () => {
    const { c, type, key } = composer();
    type("hello");
    const event = key("Tab");
    expect(event.defaultPrevented).toBe(false);
    expect(c.input.value).toBe("hello");
  });

  it("completes a command clicked in the menu, and Escape closes the menu", () => {
    const { c, type, menu, menuEl, key } = composer();
    type("/co");
    const item = menuEl().querySelector<HTMLElement>("li")!;
    item.dispatchEvent(new MouseEvent("mousedown", { cancelable: true }));
    expect(c.input.value).toBe("/compact");
    type("/");
    key("Escape");
    expect(menu()).toEqual([]);
  });

  it("sends nothing while disabled, and says why", () => {
    const { c, prompts, steers, type, key, stateText } = composer();
    c.setEnabled(false, "The agent is stopped.");
    expect(c.input.disabled).toBe(true);
    expect(c.el.querySelector<HTMLButtonElement>(".shard-send")!.disabled).toBe(
      true,
    );
    expect(stateText()).toBe("The agent is stopped.");
    type("hello");
    key("Enter");
    c.el.querySelector<HTMLButtonElement>(".shard-send")!.click();
    c.setBusy(true);
    key("Enter");
    expect(prompts).toEqual([]);
    expect(steers).toEqual([]);
    c.setEnabled(true);
    key("Enter");
    expect(steers).toEqual(["hello"]);
  });
});

const T0 = 1_700_000_000;

function event(type: string, ts: number, fields: Rec = {}): Rec {
  return { type, agent_id: "agent-test", seq: ts - T0, ts, ...fields };
}

const turnStart = (ts: number): Rec =>
  event("turn_start", ts, { turn_id: "t", prompt: "go" });
const toolCall = (ts: number, id: string, name = "bash"): Rec =>
  event("tool_call", ts, {
    turn_id: "t",
    call: { type: "tool_call", id, name, input: {} },
    read_only: false,
  });
const toolResult = (ts: number, id: string, name = "bash"): Rec =>
  event("tool_result", ts, {
    turn_id: "t",
    tool_call_id: id,
    name,
    entry_id: `e-${id}`,
    result: {},
  });
const complete = (ts: number): Rec =>
  event("message_complete", ts, { turn_id: "t", entry_id: "m", message: {} });
const turnEnd = (ts: number): Rec =>
  event("turn_end", ts, { turn_id: "t", reason: "completed", usage: {} });

describe("currentActivity", () => {
  it("is thinking from the turn's start", () => {
    expect(currentActivity([turnStart(T0)])).toEqual({
      label: "thinking",
      since: T0,
    });
  });

  it("names the tool that runs while its call has no result", () => {
    const events = [turnStart(T0), complete(T0 + 3), toolCall(T0 + 4, "c1")];
    expect(currentActivity(events)).toEqual({
      label: "running bash",
      since: T0 + 4,
    });
    // a status or usage event after the call changes nothing
    expect(
      currentActivity([
        ...events,
        event("usage", T0 + 5),
        event("status", T0 + 6),
      ]),
    ).toEqual({
      label: "running bash",
      since: T0 + 4,
    });
  });

  it("is thinking again after the tool's result, from the result's time", () => {
    const events = [
      turnStart(T0),
      complete(T0 + 3),
      toolCall(T0 + 4, "c1"),
      toolResult(T0 + 9, "c1"),
    ];
    expect(currentActivity(events)).toEqual({
      label: "thinking",
      since: T0 + 9,
    });
  });

  it("names the next tool once the first has its result", () => {
    const events = [
      turnStart(T0),
      toolCall(T0 + 1, "c1", "read"),
      toolResult(T0 + 2, "c1", "read"),
      toolCall(T0 + 3, "c2", "edit"),
    ];
    expect(currentActivity(events)).toEqual({
      label: "running edit",
      since: T0 + 3,
    });
  });

  it("is nothing after turn_end, or before any turn", () => {
    expect(
      currentActivity([
        turnStart(T0),
        toolCall(T0 + 1, "c1"),
        toolResult(T0 + 2, "c1"),
        turnEnd(T0 + 3),
      ]),
    ).toBeNull();
    expect(currentActivity([])).toBeNull();
    expect(currentActivity([event("status", T0)])).toBeNull();
  });

  it("follows the newest turn after an earlier one ended", () => {
    const events = [
      turnStart(T0),
      toolCall(T0 + 1, "c1"),
      turnEnd(T0 + 2),
      turnStart(T0 + 30),
    ];
    expect(currentActivity(events)).toEqual({
      label: "thinking",
      since: T0 + 30,
    });
  });

  it("says a tool without a name is a tool", () => {
    const call = event("tool_call", T0 + 1, {
      turn_id: "t",
      call: { id: "c1" },
      read_only: false,
    });
    expect(currentActivity([turnStart(T0), call])).toEqual({
      label: "running a tool",
      since: T0 + 1,
    });
  });
});

describe("formatElapsed", () => {
  it("writes minutes and two-digit seconds", () => {
    expect([0, 5, 12, 59, 60, 61, 125.9, 3600, -4].map(formatElapsed)).toEqual([
      "0:00",
      "0:05",
      "0:12",
      "0:59",
      "1:00",
      "1:01",
      "2:05",
      "60:00",
      "0:00",
    ]);
  });
});

describe("renderHeader", () => {
  const base: HeaderState = {
    status: "idle",
    activity: null,
    model: "claude-x",
    demo: false,
    mode: "build",
    modes: ["build", "plan"],
  };

  function render(
    state: Partial<HeaderState>,
    now = T0 + 12,
  ): {
    el: HTMLElement;
    aborts: number[];
    modes: string[];
  } {
    const aborts: number[] = [];
    const modes: string[] = [];
    const el = renderHeader(
      { ...base, ...state },
      { abort: () => aborts.push(1), setMode: (mode) => modes.push(mode) },
      now,
    );
    return { el, aborts, modes };
  }

  const statusText = (el: HTMLElement): string =>
    el.querySelector(".shard-status-text")?.textContent ?? "";

  it("says running bash · 0:12 while a tool runs, with Stop", () => {
    const activity = currentActivity([turnStart(T0 - 5), toolCall(T0, "c1")]);
    const { el, aborts } = render({ status: "streaming", activity });
    expect(statusText(el)).toBe("running bash · 0:12");
    const stop = el.querySelector<HTMLButtonElement>(".shard-abort");
    expect(stop?.textContent).toBe("Stop");
    stop!.click();
    expect(aborts).toEqual([1]);
  });

  it("says thinking · m:ss after a result", () => {
    const activity = currentActivity([
      turnStart(T0 - 80),
      toolCall(T0 - 70, "c1"),
      toolResult(T0 - 63, "c1"),
    ]);
    const { el } = render({ status: "streaming", activity });
    expect(statusText(el)).toBe("thinking · 1:15");
  });

  it("says waiting for permission, with Stop", () => {
    const activity = currentActivity([turnStart(T0), toolCall(T0 + 1, "c1")]);
    const { el } = render({ status: "waiting_for_permission", activity });
    expect(statusText(el)).toBe("waiting for permission");
    expect(el.querySelector(".shard-abort")).not.toBeNull();
  });

  it("shows no Stop and no timer when not busy", () => {
    for (const status of ["idle", "error", "stopped", ""]) {
      const activity = { label: "running bash", since: T0 };
      const { el } = render({ status, activity });
      expect(el.querySelector(".shard-abort")).toBeNull();
      expect(statusText(el)).toBe(status || "idle");
    }
    expect(isBusy("streaming")).toBe(true);
    expect(isBusy("running_tool")).toBe(true);
    expect(isBusy("idle")).toBe(false);
  });

  it("says the bare status while busy with no activity known", () => {
    const { el } = render({ status: "streaming", activity: null });
    expect(statusText(el)).toBe("streaming");
    expect(el.querySelector(".shard-abort")).not.toBeNull();
  });

  it("offers the other modes, the current one pressed and disabled", () => {
    const { el, modes } = render({ mode: "plan" });
    const buttons = [...el.querySelectorAll<HTMLButtonElement>(".shard-mode")];
    expect(
      buttons.map((b) => [
        b.textContent,
        b.getAttribute("aria-pressed"),
        b.disabled,
      ]),
    ).toEqual([
      ["build", "false", false],
      ["plan", "true", true],
    ]);
    buttons[0]!.click();
    expect(modes).toEqual(["build"]);
    const custom = render({ mode: "review" }).el;
    expect(
      [...custom.querySelectorAll(".shard-mode")].map((b) => b.textContent),
    ).toEqual(["build", "plan", "review"]);
  });

  it("shows the model and a demo badge only in demo", () => {
    const plain = render({}).el;
    expect(plain.querySelector(".shard-model")?.textContent).toBe("claude-x");
    expect(plain.querySelector(".shard-demo")).toBeNull();
    expect(
      render({ demo: true }).el.querySelector(".shard-demo")?.textContent,
    ).toBe("demo");
  });
});

describe("agent list wording", () => {
  it("shows a folder under the server root as the file browser does", () => {
    expect(shortPath("/srv/root/proj/a", "/srv/root")).toBe("/proj/a");
    expect(shortPath("/srv/root", "/srv/root/")).toBe("/");
    expect(shortPath("/srv/rootless", "/srv/root")).toBe("/srv/rootless");
    expect(shortPath("/elsewhere", "")).toBe("/elsewhere");
  });

  it("names a scripted model by its script file", () => {
    expect(shortModel("scripted//tmp/x/fix-script.json")).toBe(
      "scripted: fix-script.json",
    );
    expect(shortModel("scripted/demo")).toBe("scripted: demo");
    expect(shortModel("anthropic/claude-sonnet-4-5")).toBe(
      "anthropic/claude-sonnet-4-5",
    );
  });
});
