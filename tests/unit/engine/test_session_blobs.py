"""Images in the session log are blob references: the bytes once beside the log, the entry read
back whole; a blob that is gone or a reference that names another file is a text block."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from shard_core.engine.session_blobs import BLOB_PREFIX
from shard_core.engine.session_store import SessionStore
from shard_core.types import (
    ImageBlock,
    MessageDetails,
    MessageEntry,
    TextBlock,
    ToolResultBlock,
    UserMessage,
)

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"
    "nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg=="
)
DIGEST = hashlib.sha256(PNG.encode()).hexdigest()


def _message(*content: object) -> MessageDetails:
    return MessageDetails(message=UserMessage(content=list(content)))  # type: ignore[arg-type]


def _write(folder: Path, *details: MessageDetails) -> Path:
    with SessionStore.create(folder, folder) as store:
        for detail in details:
            store.append(MessageEntry, detail)
        return store.path


def _images(store: SessionStore) -> list[object]:
    return [
        block
        for e in store.entries
        if isinstance(e, MessageEntry)
        for block in e.details.message.content
        if not isinstance(block, TextBlock)
    ]


def test_an_image_is_a_reference_in_the_line_and_whole_when_read(tmp_path: Path) -> None:
    image = ImageBlock(media_type="image/png", data=PNG)
    path = _write(tmp_path, _message(TextBlock(text="see"), image), _message(image))

    lines = path.read_text().splitlines()
    assert PNG not in path.read_text()
    first = json.loads(lines[1])["details"]["message"]["content"]
    assert first == [
        {"type": "text", "text": "see"},
        {"type": "image", "media_type": "image/png", "data": BLOB_PREFIX + DIGEST},
    ]
    assert [p.name for p in (tmp_path / "blobs").iterdir()] == [DIGEST]  # sent twice, kept once
    assert (tmp_path / "blobs" / DIGEST).read_text() == PNG
    with SessionStore.open(path) as store:
        assert store.report.clean
        assert _images(store) == [image, image]


def test_a_tool_results_image_is_kept_the_same_way(tmp_path: Path) -> None:
    result = ToolResultBlock(
        tool_call_id="c1", content=[ImageBlock(media_type="image/png", data=PNG)]
    )
    path = _write(tmp_path, _message(result))

    assert PNG not in path.read_text()
    store = SessionStore.read(path)
    [block] = _images(store)
    assert block == result


def test_a_missing_blob_or_a_foreign_reference_is_a_text_block(tmp_path: Path) -> None:
    path = _write(tmp_path, _message(ImageBlock(media_type="image/png", data=PNG)))
    (tmp_path / "blobs" / DIGEST).unlink()
    text = path.read_text()
    evil = text.replace(BLOB_PREFIX + DIGEST, BLOB_PREFIX + "../../etc/passwd")
    path.write_text(text + evil.splitlines()[1] + "\n")

    store = SessionStore.read(path)
    assert store.report.clean
    said = [
        b.text
        for e in store.entries
        if isinstance(e, MessageEntry)
        for b in e.details.message.content
        if isinstance(b, TextBlock)
    ]
    assert said == [
        f"[image/png {DIGEST[:12]}: not in {tmp_path / 'blobs'}]",
        f"[image/png ../../etc/pa: not in {tmp_path / 'blobs' / '..' / '..' / 'etc'}]",
    ]
