"""The sandbox's workspace protection: which paths are pinned, protected, created and watched,
and where they go on bwrap's command line."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from shard_core.tools.bwrap import Layout, bwrap_argv
from shard_core.tools.protected import Protection, protection, quarantine
from shard_core.tools.repositories import nested_repositories, runs_a_program


def _git_init(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True, timeout=30)


def test_a_repository_root_gets_its_git_and_project_paths_protected(workspace: Path) -> None:
    _git_init(workspace)
    (workspace / "AGENTS.md").write_text("notes\n")
    found = protection([workspace], workspace)
    git = workspace / ".git"
    assert found.pinned == [git]
    assert found.protected == [
        workspace / ".shard",
        workspace / ".agents",
        workspace / "AGENTS.md",
        git / "hooks",
        git / "info",
        git / "config",
    ]
    assert found.created == [workspace / ".shard", workspace / ".agents"]
    assert found.watched == [workspace / ".mcp.json", workspace / "SHARD.md"]
    assert (workspace / ".shard").is_dir()
    assert not any((workspace / ".shard").iterdir())


def test_missing_git_folders_are_created_only_in_a_real_git_dir(workspace: Path) -> None:
    _git_init(workspace)
    for name in ("hooks", "info"):
        subprocess.run(["rm", "-rf", str(workspace / ".git" / name)], check=True)
    found = protection([workspace], workspace)
    assert workspace / ".git" / "hooks" in found.created
    assert (workspace / ".git" / "info").is_dir()


def test_cwd_below_the_root_protects_each_folder_up_to_its_repository(workspace: Path) -> None:
    sub = workspace / "pkg" / "repo"
    _git_init(sub)
    (sub / "deep").mkdir()
    found = protection([workspace], sub / "deep")
    assert found.pinned == [workspace / "pkg", sub, sub / "deep", sub / ".git"]
    assert sub / "deep" / ".shard" in found.protected
    assert sub / ".git" / "hooks" in found.protected
    assert workspace / ".shard" in found.protected
    # a repository planted in `deep` would take over the one around it: watched
    assert sub / "deep" / ".git" in found.watched
    assert workspace / ".git" not in found.watched  # no repository around the root


def test_paths_outside_the_roots_are_left_alone(tmp_path: Path, workspace: Path) -> None:
    outer = tmp_path / "outer"
    _git_init(outer)
    (outer / "wt").mkdir()
    (outer / "wt" / ".git").write_text(f"gitdir: {outer / '.git'}\n")
    found = protection([outer / "wt"], outer / "wt")
    assert found.protected[-1] == outer / "wt" / ".git"  # the gitfile itself
    assert not any(p.is_relative_to(outer / ".git") for p in found.protected)


def test_quarantine_renames_what_appeared_and_says_so(workspace: Path) -> None:
    found = Protection(watched=[workspace / "SHARD.md", workspace / ".mcp.json"])
    (workspace / "SHARD.md").write_text("planted\n")
    notes = quarantine(found)
    assert not (workspace / "SHARD.md").exists()
    (moved,) = workspace.glob("SHARD.md.quarantined-*")
    assert moved.read_text() == "planted\n"
    assert notes == [
        f"the command created {workspace / 'SHARD.md'}, which Shard or git would trust later; "
        f"it was renamed to {moved.name} (make it with the write tool, which asks)"
    ]
    assert quarantine(found) == []


def test_argv_binds_pins_then_protects_then_hides_inside_then_sockets(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    cargo = home / ".cargo"
    for folder in (ws / ".git" / "hooks", cargo):
        folder.mkdir(parents=True)
    (cargo / "credentials.toml").write_text("token = 'x'\n")
    layout = Layout(
        cwd=ws,
        writable=[ws],
        readable=[cargo],
        hidden=[home, home / ".ssh", cargo / "credentials.toml"],
        pinned=[ws / ".git"],
        protected=[ws / ".git" / "hooks"],
        sockets=[Path("/run/allowed.sock")],
    )
    argv = bwrap_argv("bwrap", ["true"], layout)
    start = argv.index("/tmp") + 1
    assert argv[start : argv.index("--chdir")] == [
        *["--tmpfs", str(home)],  # home/.ssh is inside it: no mount of its own
        *["--ro-bind-try", str(cargo), str(cargo)],
        *["--bind-try", str(ws), str(ws)],
        *["--bind-try", str(ws / ".git"), str(ws / ".git")],
        *["--ro-bind-try", str(ws / ".git" / "hooks"), str(ws / ".git" / "hooks")],
        *["--ro-bind", "/dev/null", str(cargo / "credentials.toml")],
        *["--ro-bind-try", "/run/allowed.sock", "/run/allowed.sock"],
    ]


def test_a_submodules_git_folder_is_protected_too(workspace: Path) -> None:
    _git_init(workspace)
    module = workspace / ".git" / "modules" / "lib"
    (module / "hooks").mkdir(parents=True)
    (module / "HEAD").write_text("ref: refs/heads/main\n")
    (module / "config").write_text("[core]\n")
    found = protection([workspace], workspace)
    assert module / "hooks" in found.protected
    assert module / "config" in found.protected
    assert module in found.pinned


def test_folders_are_made_only_in_the_root_the_agent_works_in(tmp_path: Path) -> None:
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    data.mkdir()
    found = protection([ws, data], ws)
    assert found.created == [ws / ".shard", ws / ".agents"]
    assert sorted(data.iterdir()) == []
    assert data / ".shard" in found.watched
    assert data / ".agents" in found.watched


def test_a_config_that_runs_a_program_is_recognised() -> None:
    fresh = [("core.repositoryformatversion", "0"), ("core.bare", "false"), ("user.name", "x")]
    assert not runs_a_program(fresh)
    for entry in [
        ("core.fsmonitor", "x"),
        ("core.hookspath", "h"),
        ("core.sshcommand", "x"),
        ("filter.lfs.smudge", "x"),
        ("diff.evil.textconv", "x"),
        ("include.path", "../x"),
        ("includeif.gitdir:/x.path", "y"),
        ("alias.st", "!sh -c evil"),
        ("remote.origin.uploadpack", "evil"),
    ]:
        assert runs_a_program([*fresh, entry]), entry
    assert not runs_a_program([("alias.st", "status")])


def test_nested_repositories_are_found_within_bounds(workspace: Path) -> None:
    for sub in ("a", "b/c", "b/d/e", "node_modules/x", "f/g/h/i"):
        _git_init(workspace / sub)
    assert sorted(nested_repositories(workspace)) == [
        workspace / "a",
        workspace / "b" / "c",
        workspace / "b" / "d" / "e",
    ]


def test_a_protected_symlink_is_put_back_when_replaced(workspace: Path) -> None:
    (workspace / "docs").mkdir()
    (workspace / "docs" / "agents.md").write_text("the person's notes\n")
    (workspace / "AGENTS.md").symlink_to("docs/agents.md")
    found = protection([workspace], workspace)
    assert workspace / "docs" / "agents.md" in found.protected  # the mount protects the target
    assert quarantine(found) == []
    (workspace / "AGENTS.md").unlink()
    (workspace / "AGENTS.md").write_text("planted\n")
    notes = quarantine(found)
    assert os.readlink(workspace / "AGENTS.md") == "docs/agents.md"
    [moved] = workspace.glob("AGENTS.md.quarantined-*")
    assert moved.read_text() == "planted\n"
    assert notes[-1] == (
        f"the command replaced the link {workspace / 'AGENTS.md'}; "
        "it points to docs/agents.md again"
    )
