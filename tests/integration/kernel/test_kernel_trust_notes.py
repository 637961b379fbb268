"""Issue 21 items 6-8 in a real `shard` kernel: every project resource it leaves out without trust
is one line in its first status event and in `/status`; with trust and
KERNEL_SHARD_AGENT_DEFINITION the definition shapes the agent; `/skills NAME` shows a skill."""

from __future__ import annotations

import json
import os
from pathlib import Path

from jupyter_client.blocking.client import BlockingKernelClient

from tests.integration.kernel.conftest import StartKernel
from tests.integration.kernel.test_kernel_turns import _reply

SKILL = "---\nname: greeting-file\ndescription: Greets.\n---\n\nWrite GREETING.txt.\n"
DEFINITION = (
    "---\nname: reviewer\ndescription: Reviews.\nmode: plan\nskills: [greeting-file]\n---\n"
    "Be brief.\n"
)


def _project(ws: Path) -> None:
    (ws / ".git").mkdir()
    skill = ws / ".agents" / "skills" / "greeting-file"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL)
    (ws / "AGENTS.md").write_text("Use tabs.\n")
    (ws / ".shard" / "agents").mkdir(parents=True)
    (ws / ".shard" / "agents" / "reviewer.md").write_text(DEFINITION)
    (ws / ".shard" / "rules").mkdir()
    (ws / ".shard" / "rules" / "team.json").write_text('{"allow": ["Bash(make:*)"]}')
    (ws / ".shard" / "extensions").mkdir()
    (ws / ".shard" / "extensions" / "hello.py").write_text("def extension(api):\n    pass\n")


def _markdown(kc: BlockingKernelClient, code: str) -> str:
    msg_id = kc.execute(code)
    assert _reply(kc, msg_id)["status"] == "ok"
    texts: list[str] = []
    while True:
        msg = kc.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return "\n".join(texts)
        if msg["msg_type"] == "stream":
            texts.append(msg["content"]["text"])
        data = msg["content"].get("data", {})
        texts.append(data.get("text/markdown") or data.get("text/plain") or "")


def _first_status(agent_id: str) -> dict[str, object]:
    log = Path(os.environ["SHARD_HOME"]) / "agents" / agent_id / "events.jsonl"
    events = [json.loads(line) for line in log.read_text().splitlines()]
    return next(e for e in events if e["type"] == "status")


def test_untrusted_kernel_names_every_skipped_resource(
    start_kernel: StartKernel, workspace: Path
) -> None:
    _project(workspace)
    _, kc = start_kernel([{"text": "hi"}, {"text": "again"}])
    status = _markdown(kc, "/status")  # the agent has started once this answers
    notes = _first_status("agent-test")["diagnostics"]
    assert isinstance(notes, list)
    ws = workspace.resolve()
    hint = "--trust-project (in a kernel: KERNEL_SHARD_TRUST_PROJECT=1)"
    expected = [
        f"skipped {ws / '.shard' / 'agents'} (1 file): project agent definitions need {hint}",
        f"skills: skipped {ws / '.agents' / 'skills'}: project skills need {hint}",
        f"skipped {ws / 'AGENTS.md'}: project context needs {hint}",
        "extensions/hello.py: skipped: project extensions need " + hint,
    ]
    for line in expected:
        assert line in notes, notes
    rules = [n for n in notes if "team.json" in str(n)]
    assert len(rules) == 1
    assert hint in str(rules[0])
    assert "At start:" in status
    assert "KERNEL\\_SHARD\\_TRUST\\_PROJECT\\=1" in status
    skills = _markdown(kc, "/skills")
    assert skills.strip().startswith("No skills")
    assert "project skills need" in skills
    # a notebook without the widget: the first prompt cell says it too, once
    first = _markdown(kc, "hello")
    assert f"note: skipped {ws / 'AGENTS.md'}: project context needs {hint}" in first
    assert "note:" not in _markdown(kc, "and again")


def test_trusted_kernel_builds_the_agent_from_its_definition(
    start_kernel: StartKernel, workspace: Path
) -> None:
    _project(workspace)
    _, kc = start_kernel(
        [{"text": "hi"}], trust_project="1", agent_definition="reviewer", agent_id="agent-rev"
    )
    status = _markdown(kc, "/status")
    assert "| mode | plan |" in status
    assert "At start:" not in status
    assert _first_status("agent-rev")["diagnostics"] == []
    shown = _markdown(kc, "/skills greeting-file")
    assert "**greeting\\-file**" in shown
    assert "Write GREETING.txt." in shown
