"""An image that goes with a prompt (a pasted screenshot, a cell's plot) reaches the provider as
an image part in its own wire format (Anthropic and OpenAI, real SDKs against the fake server),
and `shard session request` rebuilds that request byte-equal from the log alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from shard_core.engine.config import ProviderConfig, ShardConfig
from shard_core.providers.wire import canonical_json
from shard_core.sdk import create_agent
from shard_core.types import ImageBlock
from tests.fixtures.fake_llm import FakeLLMServer

MODELS = {"anthropic": "anthropic/claude-sonnet-4-6", "openai": "openai/gpt-5"}
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"
    "nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg=="
)


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_a_prompts_image_is_an_image_part_and_is_rebuilt_byte_for_byte(
    provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("SHARD_HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    repo = tmp_path / "repo"
    repo.mkdir()
    with FakeLLMServer(script=[{"text": "A single pixel."}, {"text": "Still one."}]) as srv:
        base = srv.anthropic_base_url if provider == "anthropic" else srv.openai_base_url
        config = ShardConfig(providers={provider: ProviderConfig(api_key="test", base_url=base)})
        agent = await create_agent(cwd=repo, model=MODELS[provider], config=config)
        try:
            image = ImageBlock(media_type="image/png", data=PNG)
            await agent.run("what is in this screenshot?", [image])
            await agent.run("and now?")  # a later request carries the image again
            log = agent.session.store.path
        finally:
            await agent.close()
        srv.wait_idle()
        bodies = [r.body for r in srv.requests]
    parts = [  # the cache breakpoint Anthropic's last block carries aside
        {k: v for k, v in part.items() if k != "cache_control"}
        for message in bodies[0]["messages"]
        if message["role"] == "user" and isinstance(message["content"], list)
        for part in message["content"]
    ]
    if provider == "anthropic":
        assert {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                "data": PNG}} in parts  # fmt: skip
    else:
        assert {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}} in parts
    out = subprocess.run(
        [sys.executable, "-m", "shard_kernel.cli", "session", "request", str(log), "--all"],
        capture_output=True,
        text=True,
        check=False,
        env={"SHARD_HOME": str(home), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [canonical_json(b) for b in bodies]
    assert PNG in json.dumps(bodies[1])
