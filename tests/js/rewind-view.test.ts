// "Rewind to here", the three-version conflict choice, "Changes" with per-file, per-hunk and
// per-cell Accept/Revert: what the shared agent view sends and how it shows each reply.
import { beforeEach, describe, expect, it } from "vitest";
import { renderAgentView } from "../../labextension/src/widget/agent-view";
import { syncTranscript } from "../../labextension/src/widget/transcript-sync";
import { FakeModel, assertInert, ev, resetSeq, HOSTILE } from "./helpers";

function mount(): { model: FakeModel; el: HTMLElement } {
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
  renderAgentView({ model, el });
  const turn = ev("turn_start", {
    turn_id: "t1",
    prompt: "edit a",
    entry_id: "e-turn-1",
  });
  model.emitCustom({ type: "append", events: [turn], max_events: 100 });
  return { model, el };
}

function click(el: Element, selector: string, index = 0): void {
  const found = el.querySelectorAll<HTMLButtonElement>(selector)[index];
  if (!found) throw new Error(`no ${selector} in ${el.innerHTML}`);
  found.click();
}

function reply(
  model: FakeModel,
  ok: boolean,
  message: string,
  data: Record<string, unknown>,
) {
  const sent = model.sent[model.sent.length - 1];
  model.emitCustom({
    type: "reply",
    command: "rewind",
    command_id: sent?.["id"],
    ok,
    message,
    data,
  });
}

const REVIEW = {
  type: "changes_review",
  title: "**Changes in turn 1**",
  turn: 1,
  target: "e-turn-1",
  files: [
    {
      path: "a.py",
      status: "modified",
      added: 2,
      removed: 2,
      note: "",
      cells: null,
      hunks: [
        {
          old_start: 1,
          old_lines: 1,
          new_start: 1,
          new_lines: 1,
          lines: ["-a = 1", "+a = 2"],
        },
        {
          old_start: 9,
          old_lines: 1,
          new_start: 9,
          new_lines: 1,
          lines: ["-z = 1", "+z = 2"],
        },
      ],
    },
    {
      path: "nb.ipynb",
      status: "modified",
      added: 0,
      removed: 0,
      note: "",
      hunks: [],
      cells: [
        {
          cell_id: "cell-1",
          cell_type: "code",
          status: "modified",
          hunks: [
            {
              old_start: 1,
              old_lines: 1,
              new_start: 1,
              new_lines: 1,
              lines: ["-x", "+y"],
            },
          ],
          outputs: "outputs: no outputs -> 1 output: stream",
        },
      ],
    },
  ],
};

beforeEach(() => {
  resetSeq();
  document.body.replaceChildren();
});

describe("rewind to here", () => {
  it("asks code, conversation or both, and sends the rewind for the turn's entry", () => {
    const { model, el } = mount();
    click(el, ".shard-msg-user .shard-rewind-here");
    expect(
      el.querySelector(".shard-rewind-choose")?.getAttribute("data-target"),
    ).toBe("e-turn-1");
    expect(model.sent).toHaveLength(0); // nothing until a scope is chosen
    expect(
      document.activeElement?.classList.contains("shard-rewind-code"),
    ).toBe(true);
    click(el, ".shard-rewind-code");
    expect(model.sent.at(-1)).toMatchObject({
      type: "rewind",
      action: "rewind",
      target: "e-turn-1",
      scope: "code",
      choice: "refuse",
    });
    reply(model, true, "**Rewound files** to before entry `e-turn-1`.", {
      applied: true,
      restored: ["a.py"],
      conflicts: [],
    });
    expect(el.querySelector(".shard-rewind-result")?.textContent).toContain(
      "Rewound files",
    );
  });

  it("shows a person's edit in three versions and changes nothing until a choice", () => {
    const { model, el } = mount();
    click(el, ".shard-rewind-here");
    click(el, ".shard-rewind-both");
    reply(
      model,
      false,
      "**Rewind refused: nothing was changed.** Three versions: before, agent, now",
      {
        applied: false,
        conflicts: ["a.py"],
        restored: [],
      },
    );
    const conflict = el.querySelector(".shard-rewind-conflict");
    expect(conflict?.textContent).toContain("Three versions");
    const sentBefore = model.sent.length;
    click(el, ".shard-rewind-cancel");
    expect(model.sent).toHaveLength(sentBefore); // cancel sends nothing
    expect(el.querySelector<HTMLElement>(".shard-rewind-panel")?.hidden).toBe(
      true,
    );

    click(el, ".shard-rewind-here");
    click(el, ".shard-rewind-both");
    reply(model, false, "refused", { applied: false, conflicts: ["a.py"] });
    click(el, ".shard-rewind-keep");
    expect(model.sent.at(-1)).toMatchObject({
      action: "rewind",
      scope: "both",
      choice: "keep",
    });
    reply(model, false, "**Rewound in part**", {
      applied: true,
      failed: ["b.py: gone"],
    });
    expect(
      el.querySelector(".shard-rewind-result.shard-tone-warn"),
    ).not.toBeNull();
  });

  it("marks a rewind in the transcript for every client, and offers its undo", () => {
    const { model, el } = mount();
    expect(el.querySelector<HTMLElement>(".shard-rewind-undo")?.hidden).toBe(
      true,
    );
    const event = ev("rewind", {
      entry_id: "e-rw",
      to_entry_id: "e-turn-1",
      scope: "both",
      restored: ["a.py"],
      kept: [],
      failed: [],
      leaf_id: "e-rw",
      message: "**Rewound files and conversation** to before entry `e-turn-1`.",
    });
    model.emitCustom({ type: "append", events: [event], max_events: 100 });
    const item = el.querySelector(".shard-command-item");
    expect(item?.textContent).toContain("rewind (files and conversation)");
    expect(item?.textContent).toContain("Rewound files and conversation");
    click(el, ".shard-rewind-undo");
    expect(model.sent.at(-1)).toMatchObject({
      action: "undo",
      choice: "refuse",
    });
  });

  it("dims the turns a conversation rewind left, until it is undone", () => {
    const { model, el } = mount();
    const rewindEvent = (entry: string, to: string, scope: string) =>
      ev("rewind", {
        entry_id: entry,
        to_entry_id: to,
        scope,
        restored: [],
        kept: [],
        failed: [],
        leaf_id: entry,
        message: "rewound",
      });
    const second = ev("turn_start", {
      turn_id: "t2",
      prompt: "again",
      entry_id: "e-turn-2",
    });
    model.emitCustom({ type: "append", events: [second], max_events: 100 });
    const dimmed = () =>
      [...el.querySelectorAll(".shard-msg-user.shard-rewound pre")].map(
        (p) => p.textContent,
      );
    model.emitCustom({
      type: "append",
      events: [rewindEvent("e-rw-code", "e-turn-1", "code")],
      max_events: 100,
    });
    expect(dimmed()).toEqual([]); // files only: the conversation goes on
    model.emitCustom({
      type: "append",
      events: [rewindEvent("e-rw-1", "e-turn-2", "both")],
      max_events: 100,
    });
    expect(dimmed()).toEqual(["again"]);
    model.emitCustom({
      type: "append",
      events: [rewindEvent("e-undo", "e-rw-1", "both")],
      max_events: 100,
    });
    expect(dimmed()).toEqual([]);
  });

  it("ignores replies to another view's commands", () => {
    const { model, el } = mount();
    click(el, ".shard-rewind-here");
    click(el, ".shard-rewind-code");
    model.emitCustom({
      type: "reply",
      command: "rewind",
      command_id: "someone-else-1",
      ok: true,
      message: "not mine",
      data: {},
    });
    expect(el.querySelector(".shard-rewind-working")).not.toBeNull();
  });
});

describe("changes", () => {
  it("reviews a turn file by file and a notebook cell by cell", () => {
    const { model, el } = mount();
    click(el, ".shard-turn-changes");
    expect(model.sent.at(-1)).toMatchObject({
      action: "diff",
      target: "e-turn-1",
    });
    reply(model, true, "", { review: REVIEW });
    const files = el.querySelectorAll(".shard-review-file");
    expect([...files].map((f) => f.getAttribute("data-path"))).toEqual([
      "a.py",
      "nb.ipynb",
    ]);
    expect(
      el.querySelectorAll(
        '.shard-review-file[data-path="a.py"] .shard-review-hunk',
      ),
    ).toHaveLength(2);
    const cell = el.querySelector('.shard-review-cell[data-cell-id="cell-1"]');
    expect(cell?.textContent).toContain("cell cell-1 (code, modified)");
    expect(cell?.querySelector(".shard-review-outputs")?.textContent).toBe(
      "outputs: no outputs -> 1 output: stream",
    );
    expect(el.textContent).not.toContain('"cells"'); // never the notebook's JSON
  });

  it("reverts one hunk, one cell or a file, and accepts without sending anything", () => {
    const { model, el } = mount();
    click(el, ".shard-turn-changes");
    reply(model, true, "", { review: REVIEW });
    const hunk2 = '.shard-review-hunk[data-hunk="2"]';
    click(el, `${hunk2} .shard-review-revert`);
    expect(model.sent.at(-1)).toMatchObject({
      action: "revert",
      target: "e-turn-1",
      path: "a.py",
      hunk: 2,
      cell: null,
      choice: "refuse",
    });
    expect(el.querySelector(`${hunk2} .shard-review-state`)?.textContent).toBe(
      "Reverting…",
    );
    reply(model, true, "**Rewound files**", {
      applied: true,
      restored: ["a.py"],
    });
    expect(el.querySelector(`${hunk2}.shard-review-reverted`)).not.toBeNull();

    const sent = model.sent.length;
    click(el, '.shard-review-hunk[data-hunk="1"] .shard-review-accept');
    expect(model.sent).toHaveLength(sent);
    expect(
      el.querySelector('.shard-review-hunk[data-hunk="1"]')?.textContent,
    ).toContain("Accepted");

    click(el, '.shard-review-cell[data-cell-id="cell-1"] .shard-review-revert');
    expect(model.sent.at(-1)).toMatchObject({
      path: "nb.ipynb",
      cell: "cell-1",
      hunk: null,
    });
    reply(
      model,
      false,
      "cell cell-1 of nb.ipynb changed since the agent's edit; use --force",
      {},
    );
    const cellEl = el.querySelector(
      '.shard-review-cell[data-cell-id="cell-1"]',
    );
    expect(cellEl?.querySelector(".shard-review-error")?.textContent).toContain(
      "changed since",
    );
    click(cellEl as Element, ".shard-review-force");
    expect(model.sent.at(-1)).toMatchObject({
      cell: "cell-1",
      choice: "force",
    });
  });

  it("reloads the session's review after a revert (its hunks renumber)", () => {
    const { model, el } = mount();
    click(el, ".shard-session-changes");
    expect(model.sent.at(-1)).toMatchObject({ action: "diff", target: null });
    reply(model, true, "", { review: { ...REVIEW, turn: null, target: null } });
    click(
      el,
      '.shard-review-file[data-path="a.py"] .shard-review-file-head .shard-review-revert',
    );
    expect(model.sent.at(-1)).toMatchObject({
      action: "revert",
      target: null,
      path: "a.py",
      hunk: null,
    });
    reply(model, true, "done", { applied: true });
    expect(model.sent.at(-1)).toMatchObject({ action: "diff", target: null });
    reply(model, true, "", {
      review: { ...REVIEW, turn: null, target: null, files: [] },
    });
    expect(el.querySelector(".shard-review-notice")?.textContent).toBe(
      "Reverted a.py.",
    );
    expect(el.querySelector(".shard-review-empty")?.textContent).toBe(
      "No file changes.",
    );
  });

  it("shows hostile paths and lines as inert text", () => {
    const { model, el } = mount();
    click(el, ".shard-turn-changes");
    const hostile = HOSTILE.map((text) => ({
      ...REVIEW.files[0],
      path: text,
      hunks: [
        {
          old_start: 1,
          old_lines: 1,
          new_start: 1,
          new_lines: 1,
          lines: [`+${text}`],
        },
      ],
    }));
    reply(model, true, "", {
      review: { ...REVIEW, title: HOSTILE[0], files: hostile },
    });
    assertInert(el);
    expect(el.querySelectorAll(".shard-review-file")).toHaveLength(
      HOSTILE.length,
    );
  });
});
