"""A prompt's images in the event log: the line holds a blob reference beside the log, and both
readers (the kernel's EventLog for attach and sync, the gateway's EventHistory for its REST
pages) give the image back whole; a blob that is gone reads as a text block saying so."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from shard_core.engine.event_log import EventLog
from shard_core.engine.session_blobs import BLOB_PREFIX
from shard_core.protocol.events import TurnStartEvent
from shard_core.types import ImageBlock, TextBlock
from shard_kernel.gateway.history import EventHistory

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"
    "nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg=="
)
DIGEST = hashlib.sha256(PNG.encode()).hexdigest()


def _started(seq: int, *images: ImageBlock) -> TurnStartEvent:
    return TurnStartEvent(
        agent_id="a1", seq=seq, ts=time.time(), turn_id=f"t{seq}", prompt="see", images=[*images]
    )


def test_a_prompts_image_is_a_blob_reference_and_read_back_whole(tmp_path: Path) -> None:
    image = ImageBlock(media_type="image/png", data=PNG)
    log = EventLog(tmp_path / "events.jsonl")
    log.append(_started(0, image))
    log.append(_started(1, image))
    log.append(_started(2))
    log.close()

    text = (tmp_path / "events.jsonl").read_text()
    assert PNG not in text
    first = json.loads(text.splitlines()[0])
    assert first["seq"] == 0
    assert text.startswith('{"agent_id":"a1","seq":0,')  # the prefix EventHistory reads seq from
    assert first["images"] == [
        {"type": "image", "media_type": "image/png", "data": BLOB_PREFIX + DIGEST}
    ]
    assert [p.name for p in (tmp_path / "blobs").iterdir()] == [DIGEST]  # twice, kept once

    again = EventLog(tmp_path / "events.jsonl")
    events, more = again.read(-1)
    again.close()
    assert not more
    assert [e.images for e in events if isinstance(e, TurnStartEvent)] == [[image], [image], []]
    pages, _ = EventHistory(tmp_path / "events.jsonl").page(-1, 10)
    assert [p["images"] for p in pages] == [[image.model_dump()], [image.model_dump()], []]


def test_an_image_whose_blob_is_gone_reads_as_a_note(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.jsonl")
    log.append(_started(0, ImageBlock(media_type="image/png", data=PNG)))
    log.close()
    (tmp_path / "blobs" / DIGEST).unlink()

    again = EventLog(tmp_path / "events.jsonl")
    [event], _ = again.read(-1)
    again.close()
    assert isinstance(event, TurnStartEvent)
    [note] = event.images
    assert isinstance(note, TextBlock)
    assert note.text.startswith(f"[image/png {DIGEST[:12]}: not in ")
