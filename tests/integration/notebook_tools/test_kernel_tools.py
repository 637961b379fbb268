"""The workspace kernel under the real provider SDKs and the turn's abort.

- a matplotlib figure's PNG reaches the provider request as an image block (the fake LLM server
  records the Anthropic and OpenAI wire requests);
- aborting a turn during `time.sleep(60)` interrupts the kernel, which keeps its variables;
- python_inspect lists them; kernel_restart and `/kernel restart` clear them.
"""

from __future__ import annotations

import asyncio
import base64
import os
from pathlib import Path
from typing import Any

import pytest

from shard_core.engine.config import ProviderConfig, ShardConfig
from shard_core.protocol.events import Event, ToolResultEvent, TurnEndEvent
from shard_core.sdk import create_agent
from shard_kernel.notebook_tools import WorkspaceKernel, notebook_extension
from tests.fixtures.fake_llm import FakeLLMServer
from tests.fixtures.function_provider import FunctionProvider, scripted
from tests.integration.notebook_tools.conftest import RUN_RULES, AgentFactory

PLOT = (
    "import matplotlib\nimport matplotlib.pyplot as plt\n"
    "plt.figure(figsize=(2, 2))\nplt.plot([1, 3, 2])\nplt.show()"
)
SLOW = "import time\nx = 1\ntime.sleep(30)"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _images(provider: str, body: dict[str, Any]) -> list[bytes]:
    """The image bytes the request body carries, in the provider's own wire format."""
    found: list[bytes] = []
    for message in body["messages"]:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for part in content:
            if provider == "anthropic" and part.get("type") == "tool_result":
                found += [
                    base64.b64decode(c["source"]["data"])
                    for c in part.get("content", [])
                    if c["type"] == "image"
                ]
            if provider == "openai" and part.get("type") == "image_url":
                url = part["image_url"]["url"]
                assert url.startswith("data:image/png;base64,")
                found.append(base64.b64decode(url.split(",", 1)[1]))
    return found


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_a_plot_reaches_the_provider_as_an_image(provider: str, work: Path) -> None:
    script = [
        {"tool_calls": [{"id": "t1", "name": "python_exec", "input": {"code": PLOT}}]},
        {"text": "A line that goes up, then down."},
    ]
    with FakeLLMServer(script=script) as srv:
        base = srv.anthropic_base_url if provider == "anthropic" else srv.openai_base_url
        config = ShardConfig(providers={provider: ProviderConfig(api_key="test", base_url=base)})
        model = "anthropic/claude-sonnet-4-6" if provider == "anthropic" else "openai/gpt-5"
        agent = await create_agent(
            cwd=work,
            model=model,
            config=config,
            env={},
            allow=RUN_RULES,
            extensions=[notebook_extension()],
        )
        try:
            end = await agent.run("plot 1, 3, 2")
        finally:
            await agent.close()
        requests = srv.requests
    assert end.reason == "completed"
    assert len(requests) == 2
    assert _images(provider, requests[0].body) == []
    images = _images(provider, requests[1].body)
    assert len(images) == 1
    assert images[0].startswith(PNG_MAGIC)


async def _started(marker: Path) -> None:
    while not marker.exists():
        await asyncio.sleep(0.02)


async def test_abort_interrupts_a_sleep_and_the_kernel_lives_on(
    make_agent: AgentFactory, work: Path
) -> None:
    sleep = (
        "import time, pathlib\nt0 = time.monotonic()\n"
        "pathlib.Path('started').touch()\ntime.sleep(60)"
    )
    provider = FunctionProvider(
        scripted(
            {"tool_calls": [("python_exec", {"code": sleep})]},
            {"tool_calls": [("python_exec", {"code": "slept = time.monotonic() - t0\nslept"})]},
            {"tool_calls": [("python_inspect", {"names": ["slept", "nope"]})]},
            {"tool_calls": [("kernel_restart", {})]},
            {"tool_calls": [("python_inspect", {})]},
        )
    )
    agent = await make_agent(provider, allow=[*RUN_RULES, "KernelRestart"])
    try:
        turn = asyncio.ensure_future(agent.run("sleep"))
        await asyncio.wait_for(_started(work / "started"), 60)
        assert agent.abort()
        first = await turn
        events: list[Event] = []
        agent.events.subscribe(events.append)
        second = await agent.run("how long did it sleep?")
        results = [e.result for e in events if isinstance(e, ToolResultEvent)]
        kernel: WorkspaceKernel = agent.session.tools.get("python_exec").kernel  # type: ignore[union-attr]
        slept = float(results[0].text.split("[result")[1].split("]", 1)[1])
    finally:
        await agent.close()
    assert first.reason == "aborted"
    assert isinstance(second, TurnEndEvent)
    assert second.reason == "completed"
    assert not results[0].is_error  # the kernel survived the interrupt, with t0 defined
    assert slept < 60  # the sleep did not run to its end
    assert "slept: builtins.float = " in results[1].text
    assert "nope: not defined" in results[1].text
    assert results[2].text.startswith("restarted a python3 kernel in")
    assert "(running, in the sandbox)" in results[2].text  # the abort interrupted it there
    assert results[3].text == "no variables"
    assert kernel.client is None


async def test_kernel_command_and_timeout(make_agent: AgentFactory, work: Path) -> None:
    provider = FunctionProvider(
        scripted(
            {
                "tool_calls": [
                    ("python_exec", {"code": "import time\nx = 1\ntime.sleep(30)", "timeout": 0.5})
                ]
            },
            {"tool_calls": [("python_exec", {"code": "import os\nx, os.getcwd()"})]},
        )
    )
    agent = await make_agent(provider)
    try:
        command = agent.host.commands()
        handler = next(c for c in command if c.name == "kernel").handler
        before = await handler([])
        events: list[Event] = []
        agent.events.subscribe(events.append)
        await agent.run("go")
        status = await handler(["status"])
        restarted = await handler(["restart"])
        usage = await handler(["stop", "now"])
    finally:
        await agent.close()
    results = [e.result for e in events if isinstance(e, ToolResultEvent)]
    assert results[0].is_error
    assert "KeyboardInterrupt" in results[0].text
    assert "(interrupted after the 0.5 s timeout)" in results[0].text
    # IPython wraps a repr past 79 characters (pytest-xdist's temp paths are longer)
    assert f"(1, '{os.path.realpath(work)}')" in " ".join(results[1].text.split())
    assert before == (
        "workspace kernel: a python3 kernel, started in the agent's cwd on first use (not running)"
    )
    # the timeout's interrupt (an interrupt_request message) reached the sandboxed kernel
    assert status == f"workspace kernel: a python3 kernel in {work} (running, in the sandbox)"
    assert restarted.startswith("restarted a python3 kernel")
    assert usage == "usage: /kernel [status|restart|interrupt]"
