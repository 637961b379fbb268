"""No key, no configured model: a `shard` kernel (a Lab agent, a Shard notebook) starts, and a
prompt's turn ends with the first-contact message as its output — never the demo script."""

from __future__ import annotations

from pathlib import Path

import pytest

from shard_core.providers.models import FIRST_CONTACT
from tests.integration.kernel.agent_client import AgentClient
from tests.integration.kernel.conftest import StartKernel


def _reply(kc: object, msg_id: str, timeout: float = 60) -> dict[str, object]:
    reply = kc.get_shell_msg(timeout=timeout)  # type: ignore[attr-defined]
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kc.get_shell_msg(timeout=timeout)  # type: ignore[attr-defined]
    return reply["content"]


def test_a_prompt_with_no_model_answers_with_what_to_set(
    start_kernel: StartKernel, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    (workspace / "README.md").write_text("# not the demo project\n")
    _, kc = start_kernel()  # no KERNEL_SHARD_MODEL, no key, no config.json
    client = AgentClient(kc, "lab")
    client.attach()
    content = _reply(kc, kc.execute("explain this repo"))
    assert content["status"] == "error"
    assert content["evalue"] == FIRST_CONTACT
    client.pump(0.5)
    errors = [m["content"] for m in client.outputs if m["header"]["msg_type"] == "error"]
    assert [e["evalue"] for e in errors] == [FIRST_CONTACT]  # the cell's one output says it
    shown = [e for e in client.events if e["type"] == "error"]
    assert [(e["code"], e["message"]) for e in shown] == [("NoModelError", FIRST_CONTACT)]
    assert "[scripted demo]" not in str(client.outputs)
    status = _reply(kc, kc.execute("/status"))  # the agent itself works: commands answer
    assert status["status"] == "ok"
