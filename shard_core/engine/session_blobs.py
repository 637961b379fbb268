"""Images in the session log as blob references: their bytes kept once, beside the log.

An image block's base64 `data` is written to `<log folder>/blobs/<sha256>` (content-addressed:
the same image is one file however often it is sent) and the JSONL line holds
`"data": "blob:sha256:<hex>"` in its place. Reading a line puts the bytes back, so every reader
of a SessionStore — the projection, provenance (`shard session request`), recall, resume — sees
the image as it was sent. A blob that is gone becomes a text block saying so, never a broken
image sent to a provider.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, cast

from shard_core.tools.atomic import write_atomic

BLOB_PREFIX = "blob:sha256:"
BLOB_DIR = "blobs"
_IMAGE = b'"type":"image"'
_REF = BLOB_PREFIX.encode()
_DIGEST = re.compile(r"[0-9a-f]{64}")


def _images(value: object) -> list[dict[str, Any]]:
    """Every image block in a parsed line (content lists nest in messages and tool results)."""
    found: list[dict[str, Any]] = []
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            block = cast(dict[str, Any], item)
            if block.get("type") == "image" and isinstance(block.get("data"), str):
                found.append(block)
            else:
                stack.extend(block.values())
        elif isinstance(item, list):
            stack.extend(cast(list[object], item))
    return found


def _dump(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def externalise(line: bytes, folder: Path) -> bytes:
    """`line` with each image's bytes moved to a blob file (unchanged when it has none)."""
    if _IMAGE not in line:
        return line
    value = json.loads(line)
    images = [i for i in _images(value) if not i["data"].startswith(BLOB_PREFIX)]
    if not images:
        return line
    blobs = folder / BLOB_DIR
    blobs.mkdir(parents=True, exist_ok=True)
    for image in images:
        data = image["data"].encode()
        digest = hashlib.sha256(data).hexdigest()
        target = blobs / digest
        if not target.exists():
            write_atomic(target, data)
        image["data"] = BLOB_PREFIX + digest
    return _dump(value)


def internalise(line: bytes, folder: Path) -> bytes:
    """`line` with each blob reference replaced by the image's bytes again."""
    if _REF not in line:
        return line
    try:
        value = json.loads(line)
    except ValueError:  # a damaged line: the entry parser reports it
        return line
    for image in _images(value):
        ref: str = image["data"]
        if not ref.startswith(BLOB_PREFIX):
            continue
        digest = ref.removeprefix(BLOB_PREFIX)
        path = folder / BLOB_DIR / digest
        try:
            if not _DIGEST.fullmatch(digest):  # a hand-edited line never names another file
                raise OSError("not a sha256")
            image["data"] = path.read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError):
            shown = image.get("media_type", "image")
            image.clear()
            image.update(type="text", text=f"[{shown} {digest[:12]}: not in {path.parent}]")
    return _dump(value)
