"""The sandbox's decisions: the bwrap argv, what is hidden, the fallback and the refusal."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import jupyter_core.paths
import pytest

from shard_core.contracts import ToolContext
from shard_core.engine import state
from shard_core.engine.config import SandboxConfig, ShardConfig
from shard_core.tools import BashTool
from shard_core.tools.bwrap import Layout, bwrap_argv
from shard_core.tools.hidden import hidden_paths, jupyter_runtime_dirs, shard_config_dir, shard_home
from shard_core.tools.sandbox import Launch, Probe, Sandbox, SandboxPolicy
from tests.unit.tools.conftest import run

ISOLATION = [
    "--die-with-parent",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--cap-drop",
    "ALL",
]
BASE = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]


def test_argv_order_hides_then_binds_then_hides_inside_the_workspace(tmp_path: Path) -> None:
    ws, ssh, state_in_ws = tmp_path / "ws", tmp_path / ".ssh", tmp_path / "ws" / ".shard"
    for folder in (ws, ssh, state_in_ws):
        folder.mkdir(parents=True)
    token = tmp_path / ".netrc"
    token.write_text("machine x password y\n")
    layout = Layout(
        cwd=ws,
        writable=[ws],
        readable=[Path("/opt/ro")],
        hidden=[ssh, token, state_in_ws],
    )
    assert bwrap_argv("/usr/bin/bwrap", ["/bin/bash", "-c", "true"], layout) == [
        "/usr/bin/bwrap",
        *ISOLATION,
        "--unshare-net",
        *BASE,
        *["--tmpfs", str(ssh)],
        *["--ro-bind", "/dev/null", str(token)],
        *["--ro-bind-try", "/opt/ro", "/opt/ro"],
        *["--bind-try", str(ws), str(ws)],
        *["--tmpfs", str(state_in_ws)],
        *["--chdir", str(ws), "--", "/bin/bash", "-c", "true"],
    ]


def test_a_shown_file_is_bound_read_only_last_over_what_hides_it(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "ws" / ".shard-home"
    transcript = home / "sessions" / "s-1.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text("{}\n")
    layout = Layout(cwd=ws, writable=[ws], hidden=[home], shown=[transcript])
    assert bwrap_argv("bwrap", ["true"], layout)[-12:] == [
        *["--bind-try", str(ws), str(ws)],
        *["--tmpfs", str(home)],
        *["--ro-bind-try", str(transcript), str(transcript)],
        *["--chdir", str(ws), "--", "true"],
    ]


def test_plan_shows_only_existing_files_resolved(tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    real.write_text("{}\n")
    (tmp_path / "link.jsonl").symlink_to(real)
    ctx = ToolContext(cwd=tmp_path, roots=[tmp_path], agent_id="a", session_id="", call_id="")
    shown = [tmp_path / "link.jsonl", tmp_path / "missing.jsonl", tmp_path]
    layout, _ = Sandbox().plan(ctx, {"HOME": str(tmp_path / "h")}, shown)
    assert layout.shown == [real]


def test_network_setting_keeps_the_network(tmp_path: Path) -> None:
    argv = bwrap_argv("bwrap", ["true"], Layout(cwd=tmp_path, writable=[tmp_path], network=True))
    assert "--unshare-net" not in argv
    assert argv[: len(ISOLATION) + 1] == ["bwrap", *ISOLATION]


def _env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    for name in (".ssh", ".aws", ".shard/agents", ".config/shard", ".local/share/jupyter/runtime"):
        (home / name).mkdir(parents=True)
    (home / ".git-credentials").write_text("https://u:p@example.com\n")
    return {"HOME": str(home)}


def test_hidden_paths_cover_credentials_state_config_and_jupyter(tmp_path: Path) -> None:
    env = _env(tmp_path)
    home = Path(env["HOME"])
    found = hidden_paths([env], "agent-me", [tmp_path / "ws"])
    mine = [p for p in found if p.is_relative_to(tmp_path)]
    assert mine == [
        home,
        home / ".ssh",
        home / ".aws",
        home / ".git-credentials",
        home / ".shard",
        home / ".config" / "shard",
        home / ".local" / "share" / "jupyter" / "runtime",
    ]


def test_other_agents_workspaces_are_hidden_but_not_ours(tmp_path: Path) -> None:
    env = _env(tmp_path)
    agents = Path(env["HOME"]) / ".shard" / "agents"
    ws, other, inner = tmp_path / "ws", tmp_path / "other", tmp_path / "ws" / "sub"
    for agent, cwd in [("agent-me", ws), ("agent-b", other), ("agent-c", inner), ("agent-d", ws)]:
        cwd.mkdir(exist_ok=True)
        (agents / agent).mkdir()
        (agents / agent / "manifest.json").write_text(json.dumps({"cwd": str(cwd)}))
    (agents / "agent-bad").mkdir()
    (agents / "agent-bad" / "manifest.json").write_text("{not json")
    found = hidden_paths([env], "agent-me", [ws])
    assert other in found
    assert ws not in found
    assert inner not in found


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"XDG_DATA_HOME": "data"},
        {"JUPYTER_DATA_DIR": "jd"},
        {"JUPYTER_RUNTIME_DIR": "rt"},
    ],
)
def test_jupyter_runtime_dir_matches_jupyter_core(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: dict[str, str]
) -> None:
    for name in (
        "JUPYTER_RUNTIME_DIR",
        "JUPYTER_DATA_DIR",
        "XDG_DATA_HOME",
        "JUPYTER_PLATFORM_DIRS",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    for name, value in extra.items():
        monkeypatch.setenv(name, str(tmp_path / value))
    expected = Path(jupyter_core.paths.jupyter_runtime_dir())
    assert jupyter_runtime_dirs(dict(os.environ), tmp_path)[0] == expected


def test_state_locations_match_the_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    for env in ({}, {"SHARD_HOME": "sh", "XDG_CONFIG_HOME": "xdg"}):
        monkeypatch.delenv("SHARD_HOME", raising=False)
        monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
        values = {k: str(tmp_path / v) for k, v in env.items()}
        for name, value in values.items():
            monkeypatch.setenv(name, value)
        assert shard_home(values, tmp_path) == state.shard_home()
        assert shard_config_dir(values, tmp_path) == state.config_dir()


def _missing() -> Probe:
    return Probe(None, "bubblewrap (bwrap) is not installed")


async def test_off_runs_the_command_as_is(ctx: ToolContext) -> None:
    launched = await Sandbox(SandboxPolicy(mode="off")).launch(["true"], ctx, {})
    assert launched == Launch(["true"], "off")


async def test_missing_bwrap_falls_back_and_says_so_once(
    ctx: ToolContext, caplog: pytest.LogCaptureFixture
) -> None:
    tool = BashTool(sandbox=Sandbox(probe=_missing))
    with caplog.at_level(logging.WARNING, logger="shard.sandbox"):
        first = await run(tool, ctx, command="echo ran")
        second = await run(tool, ctx, command="echo ran")
    assert [(r.text, r.details["sandbox"]) for r in (first, second)] == [
        ("ran\n\nexit code 0", "unavailable"),
    ] * 2
    assert [r.getMessage() for r in caplog.records] == [
        "shard: commands run WITHOUT an OS sandbox, under the permission rules alone: "
        "bubblewrap (bwrap) is not installed. Install bubblewrap, or set sandbox.mode to "
        "'required' to refuse instead."
    ]


async def test_required_without_bwrap_refuses_every_spawn(
    workspace: Path, ctx: ToolContext
) -> None:
    tool = BashTool(sandbox=Sandbox(SandboxPolicy(mode="required"), probe=_missing))
    result = await run(tool, ctx, command="touch ran")
    assert (result.is_error, result.text) == (
        True,
        "sandbox.mode is 'required' but no sandbox is available: bubblewrap (bwrap) is not "
        "installed; the command was not run",
    )
    assert not (workspace / "ran").exists()


async def test_the_probe_runs_once_per_sandbox(ctx: ToolContext) -> None:
    calls: list[int] = []

    def probe() -> Probe:
        calls.append(1)
        return _missing()

    box = Sandbox(probe=probe)
    for _ in range(3):
        await box.launch(["true"], ctx, {})
    assert calls == [1]


async def test_launch_wraps_with_the_workspace_and_the_policy(
    tmp_path: Path, ctx: ToolContext
) -> None:
    extra = tmp_path / "cache"
    extra.mkdir()
    policy = SandboxPolicy(network=True, extra_rw=(str(extra),), extra_ro=("/opt/x",))
    box = Sandbox(policy, probe=lambda: Probe("/usr/bin/bwrap"))
    launched = await box.launch(["/bin/bash", "-c", "ls"], ctx, {"HOME": str(tmp_path / "h")})
    assert isinstance(launched, Launch)
    argv = launched.argv
    assert launched.sandbox == "bwrap"
    assert "--unshare-net" not in argv
    root = str(ctx.roots[0])
    assert ["--bind-try", root, root, "--bind-try", str(extra), str(extra)] == argv[
        argv.index("--bind-try") : argv.index("--bind-try") + 6
    ]
    assert argv[-6:] == ["--chdir", str(ctx.cwd), "--", "/bin/bash", "-c", "ls"]


def test_config_section_defaults_and_validation() -> None:
    assert ShardConfig().sandbox == SandboxConfig(
        mode="bwrap", network=False, extra_ro=[], extra_rw=[], allow_unix_sockets=[]
    )
    parsed = ShardConfig.model_validate({"sandbox": {"mode": "required", "network": True}})
    assert (parsed.sandbox.mode, parsed.sandbox.network) == ("required", True)
    with pytest.raises(ValueError, match="mode"):
        ShardConfig.model_validate({"sandbox": {"mode": "docker"}})
