"""Cell outputs summarised for a model: text and errors in full up to a budget, images attached.

Outputs are nbformat output dicts (what a notebook stores and what `nbformat.v4.output_from_msg`
makes of a kernel message), so a notebook's saved outputs and a fresh `python_exec` read the same.
PNG/JPEG/GIF/WebP images become `ImageBlock`s the provider sends as image content; HTML, SVG and
widgets become a line that says what they are.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from shard_core.types import ImageBlock

Json = dict[str, Any]
ImageType = Literal["image/png", "image/jpeg", "image/gif", "image/webp"]

IMAGE_TYPES: tuple[ImageType, ...] = ("image/png", "image/jpeg", "image/gif", "image/webp")
MAX_IMAGE_BYTES = 3_750_000
"""decoded size of one image; its base64 (what a provider accepts, ≤ 5 MB) stays under 5 MB"""
MAX_IMAGES = 4
MAX_OUTPUT_CHARS = 6_000
"""one stream, result or traceback; longer ones keep their head and tail"""

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_TAG = re.compile(r"<[^>]+>")
_WIDGET = "application/vnd.jupyter.widget-view+json"


@dataclass
class Budget:
    """What one tool result may still hold."""

    chars: int = 40_000
    images: int = MAX_IMAGES
    attached: list[ImageBlock] = field(default_factory=list[ImageBlock])

    def take_text(self, text: str, limit: int = MAX_OUTPUT_CHARS) -> str:
        text = clip(text, limit)
        if len(text) > self.chars:
            text = text[: max(self.chars, 0)] + "\n… (output budget reached)"
        self.chars -= len(text)
        return text


def summarise(outputs: list[Json], budget: Budget) -> list[str]:
    """One entry per output, in order; images are appended to `budget.attached`."""
    return [_one(output, budget) for output in outputs]


def _one(output: Json, budget: Budget) -> str:
    kind = output.get("output_type")
    if kind == "stream":
        name = output.get("name", "stdout")
        return f"[{name}]\n" + budget.take_text(_text(output.get("text", "")))
    if kind == "error":
        lines = [_ANSI.sub("", str(line)) for line in output.get("traceback", [])]
        head = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
        return "[error] " + budget.take_text("\n".join(lines) if lines else head)
    if kind in ("execute_result", "display_data"):
        count = output.get("execution_count")
        label = f"[result {count}]" if kind == "execute_result" and count else f"[{kind}]"
        return label + " " + _bundle(cast(Json, output.get("data", {})), budget)
    return f"[{kind} output]"


def _bundle(data: Json, budget: Budget) -> str:
    """The most useful representation in a mime bundle, for a model."""
    parts: list[str] = []
    image: ImageType | None = next((m for m in IMAGE_TYPES if m in data), None)
    if image is not None:
        parts.append(_image(image, data[image], budget))
    if _WIDGET in data:
        model = cast(Json, data[_WIDGET]).get("model_id", "?")
        parts.append(f"(an interactive widget, model {model}; shown in the notebook only)")
    if "text/markdown" in data:
        parts.append(budget.take_text(_text(data["text/markdown"])))
    elif "text/plain" in data and not (image and _is_figure_repr(_text(data["text/plain"]))):
        parts.append(budget.take_text(_text(data["text/plain"])))
    elif "text/html" in data:
        stripped = " ".join(_TAG.sub(" ", _text(data["text/html"])).split())
        parts.append("(HTML, as text) " + budget.take_text(stripped))
    elif "application/json" in data:
        parts.append("(JSON) " + budget.take_text(str(data["application/json"])))
    others = [m for m in data if m not in (image, _WIDGET, "text/plain", "text/markdown")]
    if others and not parts:
        parts.append("(" + ", ".join(others) + "; not shown)")
    return "\n".join(parts) if parts else "(empty)"


def _image(media_type: ImageType, payload: object, budget: Budget) -> str:
    raw = "".join(payload) if isinstance(payload, list) else str(payload)  # pyright: ignore[reportUnknownArgumentType]
    try:
        size = len(base64.b64decode(raw, validate=False))
    except (binascii.Error, ValueError):
        return f"({media_type} that is not valid base64; not attached)"
    if size > MAX_IMAGE_BYTES:
        return (
            f"({media_type}, {size:,} bytes: over the {MAX_IMAGE_BYTES:,}-byte cap; not attached)"
        )
    if budget.images <= 0:
        return f"({media_type}, {size:,} bytes; not attached: {MAX_IMAGES} images per result)"
    budget.images -= 1
    clean = "".join(raw.split())
    budget.attached.append(ImageBlock(media_type=media_type, data=clean))
    return f"({media_type}, {size:,} bytes: attached as image {len(budget.attached)})"


def _is_figure_repr(text: str) -> bool:
    return text.startswith("<Figure size") or text.startswith("<IPython.core.display.Image")


def _text(value: object) -> str:
    if isinstance(value, list):
        return "".join(str(v) for v in value)  # pyright: ignore[reportUnknownVariableType]
    return str(value)


def clip(text: str, limit: int) -> str:
    """Head and tail of a long text, with how much was left out between them."""
    if len(text) <= limit:
        return text
    half = limit // 2
    cut = len(text) - 2 * half
    return f"{text[:half]}\n… ({cut:,} characters left out) …\n{text[-half:]}"
