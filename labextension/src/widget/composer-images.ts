// Images pasted or dropped into a composer (the Lab chat's and the widget's): read as base64,
// shown as thumbnails with a remove button, and taken by the next prompt or steer as image blocks
// (the `prompt` and `steer` commands' `images`). Only PNG, JPEG, GIF and WebP, at most 8, each at
// most 3.75 MB (under every provider's limit); anything else is refused with the reason, the
// agent's own (shard_core/protocol/commands.py).
import { button, h } from "../render/dom";
import type { ImageBlock } from "../wire";

/** Decoded bytes an image may have: under every provider's limit (Anthropic's is 5 MB). */
export const MAX_IMAGE_BYTES = 3_750_000;
export const MAX_IMAGES = 8;

const TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
type ImageType = (typeof TYPES)[number];

function isImageType(value: string): value is ImageType {
  return (TYPES as readonly string[]).includes(value);
}

function base64(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = typeof reader.result === "string" ? reader.result : "";
      resolve(url.slice(url.indexOf(",") + 1));
    };
    reader.onerror = () => reject(reader.error ?? new Error("the image could not be read"));
    reader.readAsDataURL(file);
  });
}

/** Why `file` cannot go with a prompt, or null. */
export function refusal(type: string, size: number, held: number): string | null {
  if (!isImageType(type))
    return `${type || "that file"} is not an image a model reads (PNG, JPEG, GIF, WebP)`;
  if (size > MAX_IMAGE_BYTES)
    return `the image is ${(size / 1e6).toFixed(1)} MB: at most ${(MAX_IMAGE_BYTES / 1e6).toFixed(2)} MB goes with a prompt`;
  if (held >= MAX_IMAGES) return `at most ${MAX_IMAGES} images go with one prompt`;
  return null;
}

export class ComposerImages {
  readonly el: HTMLElement;
  private images: ImageBlock[] = [];

  constructor(
    input: HTMLElement,
    private readonly say: (text: string) => void,
  ) {
    this.el = h("div", {
      class: "shard-composer-images",
      attrs: { role: "group", "aria-label": "Attached images" },
    });
    this.el.hidden = true;
    input.addEventListener("paste", (event) => this.fromTransfer(event, event.clipboardData));
    input.addEventListener("dragover", (event) => {
      if (event.dataTransfer?.types.includes("Files")) event.preventDefault();
    });
    input.addEventListener("drop", (event) => this.fromTransfer(event, event.dataTransfer));
  }

  /** The attached images, for the prompt being sent; the strip empties. */
  take(): ImageBlock[] {
    const taken = this.images;
    this.images = [];
    this.draw();
    return taken;
  }

  /** Put images back (the prompt was not sent). */
  restore(images: readonly ImageBlock[]): void {
    this.images = [...images, ...this.images].slice(0, MAX_IMAGES);
    this.draw();
  }

  private fromTransfer(event: Event, data: DataTransfer | null): void {
    const files = [...(data?.files ?? [])];
    if (files.length === 0) return; // text: the textarea takes it
    event.preventDefault();
    void this.add(files);
  }

  async add(files: readonly File[]): Promise<void> {
    for (const file of files) {
      const why = refusal(file.type, file.size, this.images.length);
      if (why !== null) {
        this.say(`Image not attached: ${why}.`);
        continue;
      }
      try {
        this.images.push({
          type: "image",
          media_type: file.type as ImageType,
          data: await base64(file),
        });
      } catch (error) {
        this.say(`Image not attached: ${error instanceof Error ? error.message : String(error)}.`);
      }
    }
    this.draw();
  }

  private draw(): void {
    this.el.replaceChildren(
      ...this.images.map((image, index) => {
        const img = h("img", {
          class: "shard-composer-image",
          attrs: { alt: `attached image ${index + 1}` },
        });
        img.src = `data:${image.media_type};base64,${image.data}`;
        const remove = button(
          "×",
          () => {
            this.images.splice(index, 1);
            this.draw();
          },
          "shard-button-small shard-composer-image-remove",
        );
        remove.title = "Remove this image";
        return h("span", { class: "shard-composer-image-item" }, img, remove);
      }),
    );
    this.el.hidden = this.images.length === 0;
  }
}
