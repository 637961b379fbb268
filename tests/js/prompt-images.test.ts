// A prompt's images drawn in the transcript (Lab chat and widget share it): thumbnails of raster
// base64 images, a note for one whose blob is gone, nothing for a script-bearing type.
import { describe, expect, it } from "vitest";
import { renderPlainItem } from "../../labextension/src/widget/item-views";
import { deriveItems } from "../../labextension/src/widget/transcript-items";
import { ev } from "./helpers";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg==";

function drawn(images: unknown): HTMLElement {
  const fields: Record<string, unknown> = {
    turn_id: "t",
    prompt: "what is this?",
  };
  if (images !== undefined) fields["images"] = images;
  const [user] = deriveItems([ev("turn_start", fields)], {
    permissions: [],
    ui: [],
  });
  if (user?.kind !== "user") throw new Error("no prompt item");
  return renderPlainItem(user, null);
}

describe("a prompt's images in the transcript", () => {
  it("are thumbnails under the prompt's text, a gone one its note", () => {
    const el = drawn([
      { type: "image", media_type: "image/png", data: PNG },
      { type: "text", text: "[image/png 0123abcd: not in /x/blobs]" },
    ]);
    expect(el.querySelector(".shard-msg-text")?.textContent).toBe(
      "what is this?",
    );
    const imgs = [
      ...el.querySelectorAll<HTMLImageElement>(".shard-msg-images img"),
    ];
    expect(imgs.map((i) => i.getAttribute("src"))).toEqual([
      `data:image/png;base64,${PNG}`,
    ]);
    expect(imgs[0]?.alt).toBe("image 1 sent with the prompt");
    expect(el.querySelector(".shard-msg-image-gone")?.textContent).toBe(
      "[image/png 0123abcd: not in /x/blobs]",
    );
  });

  it("draw no strip for a prompt without images, or logged before prompts carried them", () => {
    expect(drawn([]).querySelector(".shard-msg-images")).toBeNull();
    expect(drawn(undefined).querySelector(".shard-msg-images")).toBeNull();
  });

  it("never draw an SVG or a data string that is not base64", () => {
    const el = drawn([
      { type: "image", media_type: "image/svg+xml", data: PNG },
      { type: "image", media_type: "image/png", data: 'x" onerror="alert(1)' },
    ]);
    expect(el.querySelectorAll("img")).toHaveLength(0);
  });
});
