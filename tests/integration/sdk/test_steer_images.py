"""An image that goes with a steer (pasted into the widget's composer while a turn runs) reaches
the turn's next provider request as an image part in the provider's own wire format (Anthropic
and OpenAI, real SDKs against the fake server), is kept in the log as a blob reference, rides
on the steer's receipt, and `shard session request` rebuilds every request byte-equal."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from shard_core.engine.config import ProviderConfig, ShardConfig
from shard_core.protocol.events import Event, SteerReceiptEvent, ToolCallEvent
from shard_core.providers.wire import canonical_json
from shard_core.sdk import create_agent
from shard_core.types import ImageBlock
from tests.fixtures.fake_llm import FakeLLMServer

MODELS = {"anthropic": "anthropic/claude-sonnet-4-6", "openai": "openai/gpt-5"}
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"
    "nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg=="
)
SCRIPT = [
    {"text": "Listing.", "tool_calls": [{"id": "call_ls", "name": "ls", "input": {"path": "."}}]},
    {"text": "The plot shows one pixel."},
]


def _user_parts(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [  # the cache breakpoint Anthropic's last block carries aside
        {k: v for k, v in part.items() if k != "cache_control"}
        for message in body["messages"]
        if message["role"] == "user" and isinstance(message["content"], list)
        for part in message["content"]
    ]


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_a_steers_image_is_an_image_part_of_the_next_request(
    provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("SHARD_HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    repo = tmp_path / "repo"
    repo.mkdir()
    receipts: list[SteerReceiptEvent] = []
    with FakeLLMServer(script=SCRIPT) as srv:
        base = srv.anthropic_base_url if provider == "anthropic" else srv.openai_base_url
        config = ShardConfig(providers={provider: ProviderConfig(api_key="test", base_url=base)})
        agent = await create_agent(cwd=repo, model=MODELS[provider], config=config)
        image = ImageBlock(media_type="image/png", data=PNG)

        def on_event(event: Event) -> None:
            if isinstance(event, ToolCallEvent):  # the turn runs: its next request takes it
                agent.steer("and look at this plot", [image], steer_id="steer-plot")
            elif isinstance(event, SteerReceiptEvent):
                receipts.append(event)

        agent.events.subscribe(on_event)
        try:
            end = await agent.run("list the files")
            log = agent.session.store.path
        finally:
            await agent.close()
        srv.wait_idle()
        bodies = [r.body for r in srv.requests]
    assert end.reason == "completed"
    assert len(bodies) == 2
    if provider == "anthropic":
        part = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                "data": PNG}}  # fmt: skip
    else:
        part = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}
    assert part not in _user_parts(bodies[0])
    steer_text = {"type": "text", "text": "and look at this plot"}
    parts = _user_parts(bodies[1])
    assert parts[parts.index(steer_text) + 1] == part  # the image right after the steer's text

    [receipt] = receipts
    assert (receipt.status, receipt.steer_id) == ("admitted", "steer-plot")
    assert [b.model_dump() for b in receipt.images] == [image.model_dump()]

    digest = hashlib.sha256(PNG.encode()).hexdigest()
    steered = [
        json.loads(line)["details"]
        for line in log.read_text().splitlines()
        if '"steer_id":"steer-plot"' in line.replace(" ", "")
    ]
    assert [d["message"]["content"] for d in steered] == [
        [
            steer_text,
            {"type": "image", "media_type": "image/png", "data": f"blob:sha256:{digest}"},
        ]
    ]
    assert (log.parent / "blobs" / digest).read_text() == PNG

    out = subprocess.run(
        [sys.executable, "-m", "shard_kernel.cli", "session", "request", str(log), "--all"],
        capture_output=True,
        text=True,
        check=False,
        env={"SHARD_HOME": str(home), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [canonical_json(b) for b in bodies]
