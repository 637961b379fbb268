// ask_user's dialog (ui "question"): one button per choice for a plain question; boxes, the
// person's own words and Answer otherwise; the folded dialog says who answered what.
import { describe, expect, it } from "vitest";
import {
  UiDialogView,
  type UiAnswer,
} from "../../labextension/src/render/index";
import type {
  UiRequestEvent,
  UiResolvedEvent,
} from "../../labextension/src/wire";
import { HOSTILE, assertInert, ev } from "./helpers";

const question = (fields: Partial<UiRequestEvent>): UiRequestEvent =>
  ({
    ...ev("ui_request"),
    request_id: "q1",
    ui: "question",
    title: "Which database?",
    message: "",
    options: ["sqlite", "postgres"],
    default: null,
    multi: false,
    allow_other: false,
    ...fields,
  }) as UiRequestEvent;

describe("ask_user's question dialog", () => {
  it("a plain question: one button a choice, answered as a list", () => {
    const answers: UiAnswer[] = [];
    const view = new UiDialogView(question({}), (a) => answers.push(a));
    const labels = [...view.el.querySelectorAll("button")].map(
      (b) => b.textContent,
    );
    expect(labels).toEqual(["sqlite", "postgres"]);
    view.el.querySelectorAll("button")[1]!.click();
    expect(answers).toEqual([{ requestId: "q1", value: ["postgres"] }]);
  });

  it("several choices and the person's own words", () => {
    const answers: UiAnswer[] = [];
    const view = new UiDialogView(
      question({
        options: ["lint", "tests", "docs"],
        multi: true,
        allow_other: true,
      }),
      (a) => answers.push(a),
    );
    const boxes = [
      ...view.el.querySelectorAll<HTMLInputElement>(".shard-question-box"),
    ];
    expect(boxes.map((b) => [b.type, b.value])).toEqual([
      ["checkbox", "lint"],
      ["checkbox", "tests"],
      ["checkbox", "docs"],
    ]);
    boxes[0]!.checked = true;
    boxes[2]!.checked = true;
    view.el.querySelector<HTMLInputElement>(".shard-question-other")!.value =
      "  benchmarks ";
    view.el.querySelector<HTMLButtonElement>(".shard-question-answer")!.click();
    expect(answers).toEqual([
      { requestId: "q1", value: ["lint", "docs", "benchmarks"] },
    ]);
  });

  it("a refused answer re-opens it; the resolution says who answered", () => {
    const view = new UiDialogView(
      question({ allow_other: true }),
      () => undefined,
    );
    expect(
      view.el.querySelector<HTMLInputElement>(".shard-question-box")?.type,
    ).toBe("radio");
    view.el.querySelector<HTMLButtonElement>(".shard-question-answer")!.click();
    view.setError(
      "an answer needs at least one choice; the question is still open",
    );
    expect(
      view.el.querySelector(".shard-dialog-footer")?.textContent,
    ).toContain("still open");
    expect(
      view.el.querySelector<HTMLButtonElement>(".shard-question-answer")!
        .disabled,
    ).toBe(false);
    const resolved = {
      ...ev("ui_resolved"),
      request_id: "q1",
      value: ["postgres"],
      decided_by: "Bea",
      client_id: "c2",
    } as UiResolvedEvent;
    view.setResolved(resolved);
    expect(view.el.querySelector(".shard-dialog-footer")?.textContent).toBe(
      "Answered: postgres — by Bea",
    );
  });

  it("hostile choices render as text", () => {
    const view = new UiDialogView(
      question({ options: [...HOSTILE], multi: true }),
      () => {},
    );
    assertInert(view.el);
  });
});
