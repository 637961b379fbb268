import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  PromptFocus,
  TranscriptFollower,
  isTyping,
  promptFocus,
} from "../../labextension/src/widget/follow";
import { PermissionDialogView } from "../../labextension/src/render/dialogs/permission-dialog";
import { renderAgentView } from "../../labextension/src/widget/agent-view";
import { syncTranscript } from "../../labextension/src/widget/transcript-sync";
import type { PermissionRequestEvent } from "../../labextension/src/wire";
import { FakeModel, ev, resetSeq } from "./helpers";

/** jsdom lays nothing out: a scroller whose sizes the test sets. */
function scroller(
  height = 100,
  content = 1000,
): HTMLElement & { content: number } {
  const el = document.createElement("div") as unknown as HTMLElement & {
    content: number;
  };
  el.content = content;
  Object.defineProperty(el, "clientHeight", { get: () => height });
  Object.defineProperty(el, "scrollHeight", { get: () => el.content });
  let top = 0;
  Object.defineProperty(el, "scrollTop", {
    get: () => top,
    set: (v: number) => {
      top = Math.max(0, Math.min(v, el.content - height));
    },
  });
  document.body.append(el);
  return el;
}

function userScrolls(el: HTMLElement, to: number): void {
  el.scrollTop = to;
  el.dispatchEvent(new Event("scroll"));
}

const request = (id: string, rule: string | null = "Bash(make:*)") =>
  ev("permission_request", {
    request_id: id,
    tool: "bash",
    input: { command: "make" },
    prompt: "Run make?",
    suggested_rule: rule,
    read_only: false,
    tool_call_id: null,
    turn_id: "t",
  }) as unknown as PermissionRequestEvent;

beforeEach(() => {
  resetSeq();
  document.body.replaceChildren();
});
afterEach(() => document.body.replaceChildren());

describe("TranscriptFollower", () => {
  it("stays at the bottom while content arrives", () => {
    const el = scroller();
    const follower = new TranscriptFollower(el);
    follower.contentChanged();
    expect(el.scrollTop).toBe(900);
    el.content = 1500;
    follower.contentChanged();
    expect(el.scrollTop).toBe(1400);
    expect(follower.pill.hidden).toBe(true);
  });

  it("scrolled up, the view stays and the pill says there is more; the pill goes back", () => {
    const el = scroller();
    const follower = new TranscriptFollower(el);
    follower.contentChanged();
    userScrolls(el, 200);
    expect(follower.isPinned).toBe(false);
    el.content = 1500;
    follower.contentChanged();
    expect(el.scrollTop).toBe(200);
    expect(follower.pill.hidden).toBe(false);
    follower.pill.click();
    expect(el.scrollTop).toBe(1400);
    expect(follower.pill.hidden).toBe(true);
    expect(follower.isPinned).toBe(true);
  });

  it("scrolling back down by hand pins it again and hides the pill", () => {
    const el = scroller();
    const follower = new TranscriptFollower(el);
    userScrolls(el, 0);
    el.content = 1200;
    follower.contentChanged();
    expect(follower.pill.hidden).toBe(false);
    userScrolls(el, 1090); // within the slack of the end
    expect(follower.isPinned).toBe(true);
    expect(follower.pill.hidden).toBe(true);
  });
});

describe("PromptFocus", () => {
  const prompt = (id: string) => {
    const view = new PermissionDialogView(request(id), () => undefined);
    document.body.append(view.el);
    return view;
  };

  it("a new prompt takes the focus and gives it back when answered", () => {
    const focus = new PromptFocus(document);
    const composer = document.createElement("textarea");
    document.body.append(composer);
    composer.focus(); // empty: nobody is typing
    const view = prompt("r1");
    expect(focus.offer(view)).toBe(true);
    expect(document.activeElement?.getAttribute("aria-label")).toBe(
      "Allow once",
    );
    view.setResolved(null, false); // answered elsewhere: folded
    focus.close(view, true);
    expect(document.activeElement).toBe(composer);
  });

  it("never takes it from someone typing", () => {
    const focus = new PromptFocus(document);
    const box = document.createElement("textarea");
    document.body.append(box);
    box.value = "half a sentence";
    box.focus();
    expect(focus.offer(prompt("r1"))).toBe(false);
    expect(document.activeElement).toBe(box);
  });

  it("the focus moves on to the next open prompt", () => {
    const focus = new PromptFocus(document);
    const first = prompt("r1");
    const second = prompt("r2");
    expect(focus.offer(first)).toBe(true);
    expect(focus.offer(second)).toBe(false); // the first holds it: the second is next
    first.setResolved(null, false);
    focus.close(first, true);
    expect(second.el.contains(document.activeElement)).toBe(true);
  });

  it("counts an empty field as not typing, a filled one as typing", () => {
    const input = document.createElement("input");
    expect(isTyping(input)).toBe(false);
    input.value = "x";
    expect(isTyping(input)).toBe(true);
    expect(isTyping(document.createElement("button"))).toBe(false);
    expect(isTyping(null)).toBe(false);
  });
});

describe("permission dialog keyboard", () => {
  const keyed = (
    view: PermissionDialogView,
    key: string,
    target: Element = view.el,
  ) => {
    const event = new KeyboardEvent("keydown", {
      key,
      bubbles: true,
      cancelable: true,
    });
    target.dispatchEvent(event);
    return event;
  };

  it("Y, A, W and N answer; the buttons say so", () => {
    for (const [key, decision] of [
      ["y", "allow agent"],
      ["A", "allow_always agent"],
      ["w", "allow_always workspace"],
      ["n", "deny agent"],
    ] as const) {
      const answers: unknown[] = [];
      const view = new PermissionDialogView(request("r1"), (a) =>
        answers.push(`${a.decision} ${a.scope}`),
      );
      expect(keyed(view, key).defaultPrevented).toBe(true);
      expect(answers).toEqual([decision]);
    }
    const view = new PermissionDialogView(request("r1"), () => undefined);
    const shortcuts = [...view.el.querySelectorAll("button")].map((b) => [
      b.getAttribute("aria-label"),
      b.getAttribute("aria-keyshortcuts"),
      b.dataset["shortcut"],
    ]);
    expect(shortcuts).toEqual([
      ["Allow once", "Y", "Y"],
      ["Always allow", "A", "A"],
      ["Always allow in this workspace", "W", "W"],
      ["Deny", "N", "N"],
    ]);
  });

  it("keys typed into its fields are text, and never reach the notebook's shortcuts", () => {
    const answers: unknown[] = [];
    const view = new PermissionDialogView(request("r1"), (a) =>
      answers.push(a),
    );
    document.body.append(view.el);
    let reachedPage = false;
    document.body.addEventListener("keydown", () => (reachedPage = true));
    const rule = view.el.querySelector(".shard-rule-input")!;
    expect(keyed(view, "y", rule).defaultPrevented).toBe(false);
    expect(answers).toEqual([]);
    keyed(view, "x");
    expect(reachedPage).toBe(false);
  });

  it("A without a rule to save does nothing", () => {
    const answers: unknown[] = [];
    const view = new PermissionDialogView(request("r1", null), (a) =>
      answers.push(a),
    );
    keyed(view, "a");
    expect(answers).toEqual([]);
  });
});

describe("agent view focus", () => {
  it("a pending prompt is focused when it appears, and the next one after the answer", () => {
    const first = request("r1");
    const model = new FakeModel({
      events: [],
      pending: [],
      pending_ui: [],
      status: "idle",
      mode: "build",
      modes: ["build"],
      model: "m",
      demo: false,
      usage: {},
      client_id: "me",
    });
    syncTranscript(model);
    const el = document.createElement("div");
    document.body.append(el);
    const cleanup = renderAgentView({ model, el });
    model.set("pending", [first]); // the store sets the pending list before the events
    model.set("events", [first]);
    expect(document.activeElement?.getAttribute("aria-label")).toBe(
      "Allow once",
    );
    expect(
      el.querySelector(".shard-permission")?.contains(document.activeElement),
    ).toBe(true);
    const second = request("r2");
    const resolved = ev("permission_resolved", {
      request_id: "r1",
      decision: "allow",
      decided_by: "me",
      source: "client",
      reason: null,
      rule: null,
      client_id: "me",
    });
    model.set("pending", [second]);
    model.set("events", [first, resolved, second]);
    const dialogs = el.querySelectorAll(".shard-permission");
    expect(dialogs[1]?.contains(document.activeElement)).toBe(true);
    cleanup();
    promptFocus.prune();
  });
});
