// The agent widget's composer: a pasted image is a removable thumbnail and goes with the next
// prompt (idle) or steer (busy); a refusal puts the text and the image back with the reason;
// `@` opens the completion list the widget's Python side answers, navigable with the keyboard;
// a steer's images show in the transcript.
import { describe, expect, it, vi } from "vitest";
import { renderAgentView } from "../../labextension/src/widget/agent-view";
import { offerNotebookCells } from "../../labextension/src/widget/host-cells";
import { ev, FakeModel, resetSeq } from "./helpers";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg==";
const IMAGE = { type: "image", media_type: "image/png", data: PNG };

function mount(status: string): {
  model: FakeModel;
  el: HTMLElement;
  input: HTMLTextAreaElement;
  cleanup: () => void;
} {
  resetSeq();
  const model = new FakeModel({
    events: [],
    pending: [],
    pending_ui: [],
    status,
  });
  const el = document.createElement("div");
  document.body.append(el);
  const cleanup = renderAgentView({ model, el });
  const input = el.querySelector<HTMLTextAreaElement>(".shard-composer-input")!;
  return { model, el, input, cleanup };
}

function paste(target: HTMLElement, file: File): Event {
  const event = new Event("paste", { bubbles: true, cancelable: true });
  Object.defineProperty(event, "clipboardData", { value: { files: [file] } });
  target.dispatchEvent(event);
  return event;
}

function png(): File {
  const bytes = Uint8Array.from(atob(PNG), (c) => c.charCodeAt(0));
  return new File([bytes], "plot.png", { type: "image/png" });
}

function type(input: HTMLTextAreaElement, text: string): void {
  input.value = text;
  input.setSelectionRange(text.length, text.length);
  input.dispatchEvent(new Event("input"));
}

const key = (input: HTMLElement, name: string): boolean =>
  input.dispatchEvent(
    new KeyboardEvent("keydown", { key: name, cancelable: true }),
  );

describe("the widget composer's images", () => {
  it("a pasted PNG is a thumbnail, removable, and goes with the prompt", async () => {
    const { model, el, input, cleanup } = mount("idle");
    expect(paste(input, png()).defaultPrevented).toBe(true);
    await vi.waitFor(() =>
      expect(el.querySelectorAll(".shard-composer-image")).toHaveLength(1),
    );
    const thumb = el.querySelector<HTMLImageElement>(".shard-composer-image")!;
    expect(thumb.src).toBe(`data:image/png;base64,${PNG}`);

    paste(input, png());
    await vi.waitFor(() =>
      expect(el.querySelectorAll(".shard-composer-image")).toHaveLength(2),
    );
    el.querySelector<HTMLButtonElement>(
      ".shard-composer-image-remove",
    )!.click();
    expect(el.querySelectorAll(".shard-composer-image")).toHaveLength(1);

    type(input, "what does this plot show?");
    key(input, "Enter");
    expect(model.sent).toEqual([
      {
        type: "prompt",
        id: expect.any(String),
        text: "what does this plot show?",
        images: [IMAGE],
      },
    ]);
    expect(el.querySelectorAll(".shard-composer-image")).toHaveLength(0);
    expect(input.value).toBe("");
    cleanup();
  });

  it("while a turn runs the image goes with the steer; a refusal puts both back", async () => {
    const { model, el, input, cleanup } = mount("streaming");
    paste(input, png());
    await vi.waitFor(() =>
      expect(el.querySelectorAll(".shard-composer-image")).toHaveLength(1),
    );
    type(input, "and this one @var:gone");
    key(input, "Enter");
    const steer = model.sent.at(-1)!;
    expect(steer).toMatchObject({
      type: "steer",
      text: "and this one @var:gone",
      images: [IMAGE],
    });
    model.emitCustom({
      type: "reply",
      command_id: steer["id"],
      command: "steer",
      ok: false,
      message: "there is no variable gone in frame.ipynb's kernel",
      data: {},
    });
    expect(input.value).toBe("and this one @var:gone");
    expect(el.querySelectorAll(".shard-composer-image")).toHaveLength(1);
    expect(el.querySelector(".shard-steer-state")?.textContent).toBe(
      "Steer not sent: there is no variable gone in frame.ipynb's kernel",
    );
    expect(el.querySelector(".shard-command-notice")?.textContent).toBe(""); // shown once
    cleanup();
  });

  it("a file that is not an image is refused with the reason", async () => {
    const { el, input, cleanup } = mount("idle");
    paste(input, new File(["%PDF"], "a.pdf", { type: "application/pdf" }));
    await vi.waitFor(() =>
      expect(el.querySelector(".shard-steer-state")?.textContent).toBe(
        "Image not attached: application/pdf is not an image a model reads (PNG, JPEG, GIF, WebP).",
      ),
    );
    expect(el.querySelectorAll(".shard-composer-image")).toHaveLength(0);
    cleanup();
  });

  it("a steer's images show in the transcript", () => {
    const { model, el, cleanup } = mount("streaming");
    model.set("events", [
      ev("steer_receipt", {
        steer_id: "s-1",
        status: "admitted",
        text: "look",
        images: [IMAGE],
        reason: null,
        entry_id: "e-1",
        turn_id: "t-1",
      }),
    ]);
    const shown = el.querySelector<HTMLImageElement>(".shard-steer-item img");
    expect(shown?.getAttribute("alt")).toBe("image 1 sent with the steer");
    cleanup();
  });
});

describe("the widget composer's @ completion", () => {
  it("asks the Python side, lists the kinds then the names, and is keyboard navigable", async () => {
    const { model, el, input, cleanup } = mount("idle");
    const answer = (options: { insert: string; detail: string }[]): void => {
      const ask = model.sent.at(-1)!;
      model.emitCustom({
        type: "reply",
        command_id: ask["id"],
        command: "mention_options",
        ok: true,
        message: "",
        data: { options },
      });
    };
    const listed = (): (string | null)[] =>
      [...el.querySelectorAll(".shard-slash-menu li code")].map(
        (c) => c.textContent,
      );
    const selected = (): string | null | undefined =>
      el.querySelector(".shard-slash-menu li[aria-selected=true] code")
        ?.textContent;

    type(input, "summarise @");
    expect(model.sent.at(-1)).toMatchObject({
      type: "mention_options",
      word: "@",
    });
    answer(
      ["@file:", "@cell:", "@var:"].map((insert) => ({
        insert,
        detail: "a kind",
      })),
    );
    await vi.waitFor(() =>
      expect(listed()).toEqual(["@file:", "@cell:", "@var:"]),
    );
    expect(selected()).toBe("@file:");
    key(input, "ArrowDown");
    key(input, "ArrowDown");
    expect(selected()).toBe("@var:");
    key(input, "ArrowDown"); // wraps
    key(input, "ArrowUp");
    expect(selected()).toBe("@var:");
    expect(key(input, "Enter")).toBe(false); // taken by the menu, not sent
    expect(input.value).toBe("summarise @var:");
    expect(model.sent.at(-1)).toMatchObject({
      type: "mention_options",
      word: "@var:",
    });
    answer(
      ["@var:df", "@var:dx"].map((insert) => ({ insert, detail: "a name" })),
    );
    await vi.waitFor(() => expect(listed()).toEqual(["@var:df", "@var:dx"]));
    key(input, "Tab");
    expect(input.value).toBe("summarise @var:df ");
    type(input, "summarise @var:df please");
    key(input, "Enter");
    expect(model.sent.at(-1)).toMatchObject({
      type: "prompt",
      text: "summarise @var:df please",
    });
    cleanup();
  });
});

describe("the widget composer's cells as the page shows them", () => {
  it("sends the host's cells before a message that mentions one, outlined for completion", () => {
    const { model, el, input, cleanup } = mount("idle");
    const plot = {
      output_type: "display_data",
      data: { "image/png": PNG },
      metadata: {},
    };
    const cells = [
      {
        id: "a",
        cell_type: "code",
        source: "df.plot()  # unsaved",
        outputs: [plot],
        execution_count: 3,
      },
    ];
    offerNotebookCells((at) =>
      el.contains(at) ? { path: "sub/frame.ipynb", cells } : null,
    );
    try {
      type(input, "see @cell:");
      expect(model.sent.at(-1)).toMatchObject({
        type: "mention_options",
        word: "@cell:",
        notebook: {
          path: "sub/frame.ipynb",
          cells: [
            {
              id: "a",
              source: "df.plot()  # unsaved",
              outputs: [{ output_type: "display_data" }],
            },
          ],
        },
      });
      type(input, "see @cell:1 please");
      key(input, "Enter");
      const [cellsSent, prompt] = model.sent.slice(-2);
      expect(cellsSent).toMatchObject({
        type: "notebook_cells",
        notebook: { path: "sub/frame.ipynb", cells },
      });
      expect(prompt).toMatchObject({
        type: "prompt",
        text: "see @cell:1 please",
      });
      type(input, "no mention");
      key(input, "Enter");
      expect(model.sent.at(-2)?.["type"]).toBe("prompt"); // no cells sent without a mention
    } finally {
      offerNotebookCells(() => null);
      cleanup();
    }
  });
});

describe("the widget composer's steer state", () => {
  it("follows the receipt of the steer it sent", () => {
    const { model, el, input, cleanup } = mount("streaming");
    type(input, "use the other file");
    key(input, "Enter");
    const steerId = model.sent.at(-1)!["steer_id"];
    const state = (): string | null | undefined =>
      el.querySelector(".shard-steer-state")?.textContent;
    expect(state()).toContain("Steer sent");
    const receipt = (status: string, reason: string | null) =>
      ev("steer_receipt", {
        steer_id: steerId,
        status,
        text: "use the other file",
        images: [],
        reason,
        entry_id: null,
        turn_id: "t",
      });
    model.set("events", [
      receipt(
        "rejected",
        "the turn ended (completed) before another provider request",
      ),
    ]);
    expect(state()).toBe(
      "Steer rejected — the turn ended (completed) before another provider request",
    );
    cleanup();
  });
});
