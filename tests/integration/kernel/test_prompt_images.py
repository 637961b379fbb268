"""A prompt over the comm with images (a cell action's plots): the user message carries them as
image blocks next to the text, logged as blob references; its turn_start carries them (a blob
reference in the event log, whole again when a later client attaches); too many, or one over the
providers' size limit, is a clear refusal and starts no turn."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from tests.integration.kernel.agent_client import AgentClient
from tests.integration.kernel.conftest import StartKernel

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"
    "nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg=="
)


def test_a_prompt_with_images_reaches_the_log_as_image_blocks(
    start_kernel: StartKernel, workspace: Path
) -> None:
    _, kc = start_kernel([{"text": "a single pixel"}])
    client = AgentClient(kc, "client-a")
    client.attach(label="alice")
    image = {"type": "image", "media_type": "image/png", "data": PNG}

    refused = client.command({"type": "prompt", "id": "p0", "text": "x", "images": [image] * 9})
    assert refused["ok"] is False
    assert "at most 8 go with a prompt" in refused["message"]
    huge = {**image, "data": "A" * 6_000_000}
    refused = client.command({"type": "prompt", "id": "p0", "text": "x", "images": [huge]})
    assert refused["ok"] is False
    assert "image 1: 4.5 MB: at most 3.75 MB goes with a prompt" in refused["message"]

    reply = client.command(
        {"type": "prompt", "id": "p1", "text": "what is this?", "images": [image]}
    )
    assert (reply["ok"], reply["message"]) == (True, "started")
    client.wait_event("turn_end")
    home = Path(os.environ["SHARD_HOME"]) / "agents" / "agent-test" / "sessions"
    [log] = list(home.glob("*.jsonl"))
    users = [
        json.loads(line)["details"]["message"]["content"]
        for line in log.read_text().splitlines()
        if '"role":"user"' in line.replace(" ", "")
    ]
    digest = hashlib.sha256(PNG.encode()).hexdigest()
    assert users == [  # the log keeps a blob reference; the bytes are beside it, once
        [{"type": "text", "text": "what is this?"}, {**image, "data": f"blob:sha256:{digest}"}]
    ]
    assert (log.parent / "blobs" / digest).read_text() == PNG

    # the transcript shows it: the live turn_start carries the image, the event log a reference
    # to its blob, and a client that attaches later is replayed the image whole
    started = client.wait_event("turn_start")
    assert started["images"] == [image]
    agent_folder = home.parent
    logged = [
        json.loads(line)
        for line in (agent_folder / "events.jsonl").read_text().splitlines()
        if '"turn_start"' in line
    ]
    assert [e["images"] for e in logged] == [[{**image, "data": f"blob:sha256:{digest}"}]]
    assert (agent_folder / "blobs" / digest).read_text() == PNG
    later = AgentClient(client.kc, "client-b")
    snapshot = later.attach(label="bob")
    [replayed] = [e for e in snapshot["events"] if e["type"] == "turn_start"]
    assert replayed["images"] == [image]


def test_a_steer_with_images_over_the_comm_reaches_the_log_and_every_client(
    start_kernel: StartKernel, workspace: Path
) -> None:
    """A steer's images (the widget's composer while a turn runs): refused with the prompt's
    reasons; queued, its receipt carries them (a blob reference in the event log, whole again for
    a client that attaches later) and the next turn's request carries them after its text."""
    _, kc = start_kernel([{"text": "one pixel, seen"}])
    client = AgentClient(kc, "client-a")
    client.attach(label="alice")
    image = {"type": "image", "media_type": "image/png", "data": PNG}

    refused = client.command({"type": "steer", "id": "s0", "text": "x", "images": [image] * 9})
    assert refused["ok"] is False
    assert "at most 8 go with a prompt" in refused["message"]

    steer = {"type": "steer", "id": "s1", "text": "look at this", "images": [image]}
    reply = client.command({**steer, "steer_id": "steer-pixel", "queue": True})
    assert (reply["ok"], reply["data"]["steer_id"]) == (True, "steer-pixel")
    queued = client.wait_event("steer_receipt")
    assert (queued["status"], queued["images"]) == ("queued", [image])
    assert client.command({"type": "prompt", "id": "p1", "text": "go"})["ok"] is True
    client.wait_event("turn_end")

    home = Path(os.environ["SHARD_HOME"]) / "agents" / "agent-test" / "sessions"
    [log] = list(home.glob("*.jsonl"))
    digest = hashlib.sha256(PNG.encode()).hexdigest()
    steered = [
        json.loads(line)["details"]["message"]["content"]
        for line in log.read_text().splitlines()
        if '"steer_id":"steer-pixel"' in line.replace(" ", "")
    ]
    assert steered == [
        [{"type": "text", "text": "look at this"}, {**image, "data": f"blob:sha256:{digest}"}]
    ]
    receipts = [
        json.loads(line)
        for line in (home.parent / "events.jsonl").read_text().splitlines()
        if '"steer_receipt"' in line
    ]
    assert [(e["status"], e["images"]) for e in receipts] == [
        ("queued", [{**image, "data": f"blob:sha256:{digest}"}]),
        ("admitted", [{**image, "data": f"blob:sha256:{digest}"}]),
    ]
    later = AgentClient(client.kc, "client-b")
    snapshot = later.attach(label="bob")
    replayed = [e for e in snapshot["events"] if e["type"] == "steer_receipt"]
    assert [e["images"] for e in replayed] == [[image], [image]]
