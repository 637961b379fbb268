"""Bounds on a create request, through a real gateway: too many rules, a rule too long, too many
bytes of rules, or a skill no one has is a 400 naming the field, and nothing is created (20,000
rules used to answer 500 and leave an agent in `error`: "Argument list too long"). Rules reach
the kernel through its manifest, not its environment: a list longer than one environment
variable may hold (128 KiB) starts, and its last rule decides.
"""

from __future__ import annotations

from pathlib import Path

from tests.integration.gateway.conftest import Server, Servers, api, body, write_script
from tests.integration.gateway.test_registry import prompt


async def _refused(server: Server, request: dict[str, object]) -> str:
    response = await api(server, "POST", "/shard/api/agents", request)
    assert response.code == 400, response.body[:500]
    return str(body(response)["message"])


async def _nothing_created(server: Server) -> None:
    listed = await api(server, "GET", "/shard/api/agents")
    assert body(listed)["agents"] == []
    assert not list((Path(server.env["SHARD_HOME"]) / "agents").glob("*"))


async def test_too_many_or_too_long_rules_are_a_400_and_create_nothing(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    many = [f"Bash(tool{i}:*)" for i in range(20_000)]
    long = ["Bash(echo " + "x" * 5_000 + ")"]
    heavy = [f"Bash(echo {i:04d}{'y' * 300}:*)" for i in range(1_000)]

    assert await _refused(server, {"cwd": str(workspace), "permissions": {"allow": many}}) == (
        "permissions.allow: 20,000 rules; at most 1,000 a list"
    )
    assert await _refused(server, {"cwd": str(workspace), "permissions": {"deny": long}}) == (
        "permissions.deny[0]: a rule of 5,011 characters; at most 4,096"
    )
    assert await _refused(server, {"cwd": str(workspace), "permissions": {"allow": heavy}}) == (
        "permissions: the rules take 317,000 bytes together; at most 262,144"
    )
    await _nothing_created(server)


async def test_an_unknown_skill_is_a_400_naming_it(servers: Servers, workspace: Path) -> None:
    home = Path(servers.env["SHARD_HOME"])
    (home / "skills" / "pdf").mkdir(parents=True)
    (home / "skills" / "pdf" / "SKILL.md").write_text("---\nname: pdf\ndescription: PDFs.\n---\n")
    server = servers.start()

    message = await _refused(server, {"cwd": str(workspace), "skills": ["pdf", "x"]})

    assert message.startswith("skills: no skill named 'x' for this cwd")
    await _nothing_created(server)
    created = await api(server, "POST", "/shard/api/agents", {"cwd": str(workspace),
                                                              "skills": ["pdf"]})  # fmt: skip
    assert created.code == 201, created.body


async def test_rules_reach_the_kernel_through_the_manifest(
    servers: Servers, workspace: Path
) -> None:
    # 900 rules of ~160 bytes: more than one environment variable may hold on Linux
    rules = [f"Bash(echo rule-{i:03d}-{'z' * 140}:*)" for i in range(899)]
    rules.append("Bash(touch made-by-the-last-rule:*)")
    assert len("\n".join(rules).encode()) > 128 * 1024
    model = write_script(workspace.parent, [
        {"tool_calls": [{"name": "bash", "input": {"command": "touch made-by-the-last-rule"}}]},
        {"text": "done"},
    ])  # fmt: skip
    server = servers.start()
    request = {"cwd": str(workspace), "model": model, "permissions": {"allow": rules}}

    created = await api(server, "POST", "/shard/api/agents", request)
    assert created.code == 201, created.body[:500]
    agent = body(created)
    await prompt(server, agent["kernel_id"], "make the file")

    assert (workspace / "made-by-the-last-rule").exists()  # allowed headless: by the rule
    kernels = [p for p in server.kernels() if b"shard_kernel" in _read(f"/proc/{p}/cmdline")]
    environ = _read(f"/proc/{kernels[0]}/environ").split(b"\0")
    assert b"KERNEL_SHARD_PERMISSIONS=manifest" in environ
    assert not [v for v in environ if v.startswith((b"KERNEL_SHARD_ALLOW", b"KERNEL_SHARD_DENY"))]


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()
