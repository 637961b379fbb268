"""Escapes the permission gate let through, stopped by the OS sandbox (bubblewrap).

Each attempt runs with the default sandbox and fails; the same command with the sandbox off (or
the network setting on) succeeds, so each test could fail. Work inside the workspace still works.
The fake HOME, Jupyter runtime dir and SHARD_HOME live under /var/tmp, not /tmp: /tmp is private
in the sandbox, and they must be hidden for their own sake, not because /tmp is.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import jupyter_core.paths
import pytest

from shard_core.contracts import ToolContext
from shard_core.engine.config import ShardConfig
from shard_core.protocol.events import TurnEndEvent
from shard_core.sdk import create_agent
from shard_core.tools import BashTool
from shard_core.tools.sandbox import Sandbox, SandboxPolicy, probe_bwrap
from shard_core.tools.tasks import BackgroundTasks
from shard_core.types import JsonObject, ToolResult

pytestmark = pytest.mark.skipif(
    probe_bwrap().bwrap is None, reason=f"bubblewrap cannot run here: {probe_bwrap().problem}"
)
KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nfake-key-for-the-sandbox-test\n"
TOKEN = "jupyter-token-for-the-sandbox-test"
OFF = Sandbox(SandboxPolicy(mode="off"))


@dataclass
class Box:
    outside: Path
    home: Path
    runtime: Path
    workspace: Path
    ctx: ToolContext


@pytest.fixture
def box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Box]:
    outside = Path(tempfile.mkdtemp(prefix="shard-sandbox-", dir="/var/tmp"))
    try:
        home = outside / "home"
        (home / ".ssh").mkdir(parents=True)
        (home / ".ssh" / "id_rsa").write_text(KEY)
        runtime = outside / "runtime"
        runtime.mkdir()
        (runtime / "jpserver-1.json").write_text(json.dumps({"token": TOKEN}))
        for name, value in {
            "HOME": home,
            "JUPYTER_RUNTIME_DIR": runtime,
            "SHARD_HOME": outside / "shard-home",
            "XDG_CONFIG_HOME": outside / "xdg",
        }.items():
            monkeypatch.setenv(name, str(value))
        workspace = tmp_path / "ws"
        workspace.mkdir()
        ctx = ToolContext(
            cwd=workspace, roots=[workspace], agent_id="agent-me", session_id="s", call_id="c"
        )
        yield Box(outside, home, runtime, workspace, ctx)
    finally:
        shutil.rmtree(outside)


async def bash(box: Box, command: str, sandbox: Sandbox | None = None) -> ToolResult:
    payload: JsonObject = {"command": command, "timeout": 60}
    return await BashTool(sandbox=sandbox).execute(payload, box.ctx)


def exit_code(result: ToolResult) -> object:
    return result.details["exit_code"]


async def test_reading_the_ssh_key_fails(box: Box) -> None:
    result = await bash(box, "cat ~/.ssh/id_rsa")
    assert result.details["sandbox"] == "bwrap"
    assert exit_code(result) == 1
    assert "No such file or directory" in result.text
    assert "fake-key" not in result.text
    assert "fake-key" in (await bash(box, "cat ~/.ssh/id_rsa", OFF)).text


async def test_writing_outside_the_workspace_fails(box: Box, tmp_path: Path) -> None:
    result = await bash(box, f"echo x > {box.outside}/escaped")
    assert exit_code(result) == 1
    assert "Read-only file system" in result.text
    assert not (box.outside / "escaped").exists()
    # HOME is an empty tmpfs of the command's own: a write there never reaches the host's.
    result = await bash(box, f"echo x > {box.home}/escaped && cat {box.home}/escaped")
    assert exit_code(result) == 0
    assert not (box.home / "escaped").exists()
    # /tmp is the command's own: writing there works but never reaches the host's /tmp.
    result = await bash(box, f"echo x > {tmp_path}/escaped && cat {tmp_path}/escaped")
    assert exit_code(result) == 0
    assert not (tmp_path / "escaped").exists()
    result = await bash(box, "mount -o remount,rw / ; touch /etc/shard-escaped")
    assert "Read-only file system" in result.text
    assert not Path("/etc/shard-escaped").exists()
    assert exit_code(await bash(box, f"echo x > {box.outside}/escaped", OFF)) == 0


async def test_opening_a_socket_fails(box: Box) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        port = server.getsockname()[1]
        connect = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)"
        command = f'{sys.executable} -c "{connect}" && echo connected'
        result = await bash(box, command)
        assert exit_code(result) == 1
        assert "ConnectionRefusedError" in result.text
        allowed = Sandbox(SandboxPolicy(network=True))
        result = await bash(box, command, allowed)
        assert (result.details["sandbox"], result.text) == ("bwrap", "connected\n\nexit code 0")


async def test_reading_the_jupyter_runtime_dir_fails(box: Box) -> None:
    assert Path(jupyter_core.paths.jupyter_runtime_dir()) == box.runtime
    result = await bash(box, f"ls -A {box.runtime}; cat {box.runtime}/jpserver-1.json")
    assert exit_code(result) == 1
    assert TOKEN not in result.text
    assert result.text.startswith("cat: ")
    assert TOKEN in (await bash(box, f"cat {box.runtime}/jpserver-1.json", OFF)).text


async def test_shard_state_config_and_other_agents_are_hidden(box: Box) -> None:
    other = box.outside / "other-ws"
    other.mkdir()
    (other / "theirs.txt").write_text("another agent's file\n")
    manifest = box.outside / "shard-home" / "agents" / "agent-other" / "manifest.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"id": "agent-other", "cwd": str(other)}))
    config = box.outside / "xdg" / "shard" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text('{"providers": {"anthropic": {"api_key": "sk-config-key"}}}')
    command = f"cat {other}/theirs.txt; cat {config}; ls -A {manifest.parent.parent}"
    result = await bash(box, command)
    assert "another agent's file" not in result.text
    assert "sk-config-key" not in result.text
    assert "agent-other" not in result.text
    seen = (await bash(box, command, OFF)).text
    assert "another agent's file" in seen
    assert "sk-config-key" in seen


async def test_host_processes_are_out_of_sight(box: Box, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHARD_TEST_PROCESS_SECRET", "visible-to-the-host-only")
    pid = os.getpid()
    command = f"cat /proc/{pid}/environ; ls /proc/{pid}/root/ >/dev/null && echo escaped-root"
    result = await bash(box, command)
    assert "visible-to-the-host-only" not in result.text
    assert "escaped-root" not in result.text


async def test_work_in_the_workspace_still_works(box: Box) -> None:
    (box.workspace / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (box.workspace / "test_calc.py").write_text(
        "import tempfile\nfrom calc import add\n\n\ndef test_add(tmp_path):\n"
        "    (tmp_path / 'x').write_text('ok')\n    assert add(2, 3) == 5\n"
    )
    command = (
        "git init -q && git add calc.py && git status --short && "
        f"{sys.executable} -m pytest -q && echo made > out.txt"
    )
    result = await bash(box, command)
    assert result.details["sandbox"] == "bwrap"
    assert exit_code(result) == 0, result.text
    assert "A  calc.py\n?? test_calc.py" in result.text
    assert "1 passed" in result.text
    assert (box.workspace / "out.txt").read_text() == "made\n"
    assert (box.workspace / ".pytest_cache").is_dir()
    status = subprocess.run(
        ["git", "status", "--short"], cwd=box.workspace, capture_output=True, text=True, check=True
    )
    assert "A  calc.py" in status.stdout


async def test_an_agent_allowed_everything_still_cannot_escape(box: Box, tmp_path: Path) -> None:
    steal = f"{sys.executable} -c \"print(open('{box.home}/.ssh/id_rsa').read())\""
    plant = f"{sys.executable} -c \"open('{box.outside}/planted', 'w').write('x')\""
    script = tmp_path / "escape.json"
    steps: list[JsonObject] = [
        {"tool_calls": [{"name": "bash", "input": {"command": steal}}]},
        {"tool_calls": [{"name": "bash", "input": {"command": plant}}]},
        {"text": "done"},
    ]
    script.write_text(json.dumps({"name": "escape", "steps": steps}))
    agent = await create_agent(
        cwd=box.workspace, model=f"scripted/{script}", config=ShardConfig(), allow=["Bash(*)"]
    )
    try:
        events = [e async for e in agent.prompt("try to escape")]
        results = [
            e.details.result
            for e in agent.session.store.branch()
            if e.type == "tool_result"  # pyright: ignore[reportAttributeAccessIssue]
        ]
    finally:
        await agent.close()
    assert isinstance(events[-1], TurnEndEvent)
    assert [r.details.get("sandbox") for r in results] == ["bwrap", "bwrap"]
    assert "FileNotFoundError" in results[0].text
    assert "fake-key" not in results[0].text
    assert "Read-only file system" in results[1].text
    assert not (box.outside / "planted").exists()


async def test_a_toolchain_under_tmp_stays_reachable(box: Box, tmp_path: Path) -> None:
    """A checkout or venv in a temp folder (a CI clone under /tmp) stays runnable: the private
    /tmp hides everything else there, so the command's PATH folders under /tmp are bound back,
    read-only."""
    tools = tmp_path / "venv" / "bin"
    tools.mkdir(parents=True)
    (tools / "hello-tool").write_text("#!/bin/sh\necho tool ran\n")
    (tools / "hello-tool").chmod(0o755)
    command = f"PATH={tools}:$PATH; hello-tool && touch {tools}/planted"
    env = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"}
    ctx = dataclasses.replace(box.ctx, env=env)  # the command's environment names the folder
    result = await BashTool().execute({"command": command, "timeout": 60}, ctx)
    assert result.details["sandbox"] == "bwrap"
    assert "tool ran" in result.text
    assert not (tools / "planted").exists()  # readable, not writable


# ---------------------------------------------------------------- planting through the workspace

HOOK = "#!/bin/sh\ntouch {mark}\n"


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run(
        ["git", *args], cwd=repo, env=clean, capture_output=True, text=True, timeout=30
    )


def _repo(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for args in (("init", "-q"), ("config", "user.email", "t@e.x"), ("config", "user.name", "t")):
        _git(folder, *args)
    (folder / "a.txt").write_text("one\n")
    _git(folder, "add", "a.txt")
    _git(folder, "commit", "-qm", "init")
    return folder


def _in(box: Box, folder: Path, roots: list[Path] | None = None) -> Box:
    ctx = dataclasses.replace(box.ctx, cwd=folder, roots=roots or [folder])
    return dataclasses.replace(box, workspace=folder, ctx=ctx)


async def test_an_allowed_command_cannot_plant_a_git_hook(box: Box) -> None:
    """`Bash(python3:*)` writes an executable pre-commit hook: the person's next `git commit` on
    the host would run it. Also through `core.hooksPath` in `.git/config`, `.git/info`, and by
    swapping the whole `.git` for a planted one."""
    repo = _repo(box.outside / "repo")
    mark = box.outside / "hook-ran"
    plant = (
        f"import os; p='.git/hooks/pre-commit'; open(p, 'w').write({HOOK.format(mark=mark)!r}); "
        "os.chmod(p, 0o755)"
    )
    config = (repo / ".git" / "config").read_text()
    attempts = [
        f'{sys.executable} -c "{plant}"',
        "printf '[core]\\n\\thooksPath = planted\\n' >> .git/config",
        "echo '* filter=evil' > .git/info/attributes",
        "mv .git .git-old",
        "mv .git/hooks .git/hooks-old",
    ]
    for command in attempts:
        result = await bash(_in(box, repo), command)
        assert exit_code(result) == 1, (command, result.text)
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    assert (repo / ".git" / "config").read_text() == config
    assert not (repo / ".git" / "info" / "attributes").exists()
    assert sorted(p.name for p in repo.iterdir()) == [".agents", ".git", ".shard", "a.txt"]
    (repo / "a.txt").write_text("two\n")
    assert _git(repo, "commit", "-qam", "by the person").returncode == 0
    assert not mark.exists()
    # The same command without the sandbox does plant the hook (so the test can fail).
    assert exit_code(await bash(_in(box, repo), attempts[0], OFF)) == 0
    (repo / "a.txt").write_text("three\n")
    _git(repo, "commit", "-qam", "again")
    assert mark.exists()


async def test_project_rules_skills_and_context_cannot_be_planted(box: Box) -> None:
    """`.shard/rules` (existing or not), `.agents`, `SHARD.md`, `AGENTS.md`, `.mcp.json`:
    existing ones stay as they are; a missing folder is created empty on the host and stays
    empty; a missing file the command creates is renamed away when the command ends."""
    repo = _repo(box.outside / "repo")
    (repo / ".shard" / "rules").mkdir(parents=True)
    (repo / "AGENTS.md").write_text("the person's notes\n")
    rule = '{"allow": ["Bash(*)"]}'
    command = (
        f"echo '{rule}' > .shard/rules/planted.json; mkdir -p .agents/skills/x; "
        "echo planted >> AGENTS.md; echo planted > SHARD.md; "
        "echo '{\"mcpServers\": {}}' > .mcp.json; ls -A"
    )
    result = await bash(_in(box, repo), command)
    assert "Read-only file system" in result.text
    assert list((repo / ".shard" / "rules").iterdir()) == []
    assert list((repo / ".agents").iterdir()) == []
    assert (repo / "AGENTS.md").read_text() == "the person's notes\n"
    assert not (repo / "SHARD.md").exists()
    assert not (repo / ".mcp.json").exists()
    moved = sorted(p.name for p in repo.glob("*.quarantined-*"))
    assert [name.split(".quarantined-")[0] for name in moved] == [".mcp.json", "SHARD.md"]
    assert result.details["quarantined"] == [
        line.removeprefix("shard: ")
        for line in result.text.splitlines()
        if line.startswith("shard: ")
    ]
    assert "SHARD.md" in result.text
    assert "write tool" in result.text
    off = await bash(_in(box, repo), f"echo '{rule}' > .shard/rules/planted.json", OFF)
    assert exit_code(off) == 0
    assert (repo / ".shard" / "rules" / "planted.json").exists()


async def test_a_linked_worktree_protects_the_repository_it_names(box: Box) -> None:
    """A `.git` file (a worktree, a submodule) points at a git folder elsewhere in the workspace:
    that folder's hooks and config (and the common dir's) are protected, and so is the gitfile."""
    root = box.outside / "projects"
    main = _repo(root / "main")
    _git(main, "worktree", "add", "-q", str(root / "wt"))
    wt = root / "wt"
    gitfile = (wt / ".git").read_text()
    attempts = [
        f"touch {main}/.git/hooks/pre-commit",
        f"echo x >> {main}/.git/config",
        "echo 'gitdir: /elsewhere' > .git",
        f"mv {main}/.git {main}/.git-old",
        "mv ../main ../main-old",
    ]
    for command in attempts:
        result = await bash(_in(box, wt, [root]), command)
        assert exit_code(result) == 1, (command, result.text)
    assert not (main / ".git" / "hooks" / "pre-commit").exists()
    assert (wt / ".git").read_text() == gitfile
    assert exit_code(await bash(_in(box, wt, [root]), attempts[0], OFF)) == 0


async def test_git_commit_in_the_workspace_still_works(box: Box) -> None:
    repo = _repo(box.outside / "repo")
    (repo / "a.txt").write_text("changed\n")
    result = await bash(_in(box, repo), "git commit -qam 'from the sandbox' && git log --oneline")
    assert exit_code(result) == 0, result.text
    assert "from the sandbox" in _git(repo, "log", "--oneline").stdout
    # A repository the command makes itself: it works, and a hook planted in it is moved away.
    fresh = box.outside / "fresh"
    fresh.mkdir()
    command = (
        "git init -q && git -c user.name=t -c user.email=t@e.x commit -q --allow-empty -m one && "
        "printf '#!/bin/sh\\ntrue\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"
    )
    result = await bash(_in(box, fresh), command)
    assert exit_code(result) == 0, result.text
    assert "one" in _git(fresh, "log", "--oneline").stdout
    assert not (fresh / ".git" / "hooks" / "pre-commit").exists()
    assert [p.name for p in (fresh / ".git" / "hooks").glob("pre-commit.quarantined-*")]


# ---------------------------------------------------------------- HOME, credential files, sockets

CREDENTIAL_FILES = {
    ".pgpass": "db:5432:*:app:pgpass-canary",
    ".vault-token": "vault-canary",
    ".cache/huggingface/token": "hf-canary",
    ".cargo/credentials.toml": "token = 'cargo-canary'",
    ".config/containers/auth.json": '{"auths": {"x": {"auth": "containers-canary"}}}',
    ".local/share/keyrings/login.keyring": "keyring-canary",
    ".terraform.d/credentials.tfrc.json": '{"token": "terraform-canary"}',
    ".config/anthropic/api_key": "anthropic-canary",
    ".some-tool-nobody-listed/token": "unlisted-canary",
}


async def test_home_is_hidden_but_for_toolchains(box: Box) -> None:
    """Every credential store of a HOME (listed or not) is out of reach; the toolchains under it
    (a cargo bin, ~/.local/bin, a venv) still run, and `git` still finds `user.name`."""
    for name, text in CREDENTIAL_FILES.items():
        (box.home / name).parent.mkdir(parents=True, exist_ok=True)
        (box.home / name).write_text(text + "\n")
    for tool in (".cargo/bin/cargo-hello", ".local/bin/local-hello"):
        (box.home / tool).parent.mkdir(parents=True, exist_ok=True)
        (box.home / tool).write_text("#!/bin/sh\necho $(basename $0) ran\n")
        (box.home / tool).chmod(0o755)
    (box.home / ".gitconfig").write_text(
        "[user]\n\tname = Person\n\temail = p@e.x\n"
        '[url "https://gitconfig-canary@git.example/"]\n\tinsteadOf = https://git.example/\n'
    )
    path = f"{box.home}/.cargo/bin:{box.home}/.local/bin:{os.environ['PATH']}"
    names = " ".join(CREDENTIAL_FILES)
    command = f"cd ~ && cat {names} .gitconfig; cargo-hello; local-hello; git config user.name"
    ctx = dataclasses.replace(box.ctx, env={**os.environ, "PATH": path})
    result = await BashTool().execute({"command": command, "timeout": 60}, ctx)
    assert result.details["sandbox"] == "bwrap"
    leaked = [n for n, text in CREDENTIAL_FILES.items() if text.split()[-1] in result.text]
    assert leaked == []
    assert "cargo-hello ran\nlocal-hello ran\nPerson\n" in result.text
    assert "gitconfig-canary" not in result.text  # only who commits: `git_identity.py`
    seen = (await bash(box, command, OFF)).text
    assert "unlisted-canary" in seen
    assert "cargo-canary" in seen
    assert "gitconfig-canary" in seen


async def test_credential_files_the_config_names_are_hidden(box: Box, tmp_path: Path) -> None:
    """`credentials.<name>.file` may point anywhere (here outside HOME): hidden all the same."""
    key = box.outside / "keys" / "openai.key"
    key.parent.mkdir()
    key.write_text("sk-credential-file-canary-0123456789\n")
    script = tmp_path / "steal.json"
    steps: list[JsonObject] = [
        {"tool_calls": [{"name": "bash", "input": {"command": f"base64 {key}; cat {key}"}}]},
        {"text": "done"},
    ]
    script.write_text(json.dumps({"name": "steal", "steps": steps}))
    config = ShardConfig.model_validate({"credentials": {"work": {"file": str(key)}}})
    agent = await create_agent(
        cwd=box.workspace, model=f"scripted/{script}", config=config, allow=["Bash(*)"]
    )
    try:
        [e async for e in agent.prompt("read the key")]
        results = [
            e.details.result
            for e in agent.session.store.branch()
            if e.type == "tool_result"  # pyright: ignore[reportAttributeAccessIssue]
        ]
    finally:
        await agent.close()
    assert "Permission denied" in results[0].text  # /dev/null on a nodev mount: not openable
    assert "credential-file-canary" not in results[0].text
    assert "c2stY3JlZGVudGlhbC" not in results[0].text  # its base64
    assert "credential-file-canary" in (await bash(box, f"cat {key}", OFF)).text


def _unix_server(path: Path) -> socket.socket:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(8)
    return server


CONNECT = (
    "import socket, sys; s = socket.socket(socket.AF_UNIX); "
    "s.connect(sys.argv[1]); print('connected')"
)


async def test_a_unix_socket_outside_the_workspace_cannot_be_reached(box: Box) -> None:
    """A server listening on a path outside every hidden folder (/var/tmp): covered one by one
    from /proc/net/unix; `sandbox.allow_unix_sockets` binds it back; one in the workspace works."""
    outside, inside = box.outside / "db.sock", box.workspace / "app.sock"
    with _unix_server(outside), _unix_server(inside):
        for path, sandbox, expected in [
            (outside, None, False),
            (outside, OFF, True),
            (outside, Sandbox(SandboxPolicy(allow_unix_sockets=(str(outside),))), True),
            (inside, None, True),
        ]:
            result = await bash(box, f'{sys.executable} -c "{CONNECT}" {path}', sandbox)
            assert ("connected" in result.text) is expected, (path, sandbox, result.text)


async def test_the_ssh_agent_is_out_of_reach(box: Box, monkeypatch: pytest.MonkeyPatch) -> None:
    """`SSH_AUTH_SOCK` is not passed, and its folder is hidden even when it is named anyway."""
    agent_dir = box.outside / "ssh-agent"
    agent_dir.mkdir()
    sock = agent_dir / "agent.1"
    monkeypatch.setenv("SSH_AUTH_SOCK", str(sock))
    monkeypatch.setenv("GPG_AGENT_INFO", f"{agent_dir}/S.gpg-agent:0:1")
    with _unix_server(sock):
        command = (
            f'echo "[$SSH_AUTH_SOCK][$GPG_AGENT_INFO]"; {sys.executable} -c "{CONNECT}" {sock}'
        )
        result = await bash(box, command)
        assert result.text.startswith("[][]\n")
        assert "connected" not in result.text
        assert "connected" in (await bash(box, command, OFF)).text


async def test_ordinary_work_runs_with_the_real_home_hidden(
    box: Box, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the account's own HOME (where pyenv, cargo or nvm usually live) hidden: the venv's
    pytest runs, `git commit` works, node and npm resolve, and what is left of HOME is only
    toolchains."""
    home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    monkeypatch.setenv("HOME", str(home))
    repo = _repo(box.outside / "repo")
    (repo / "test_it.py").write_text("def test_it():\n    assert 1 + 1 == 2\n")
    command = (
        f"{sys.executable} -m pytest -q -p no:cacheprovider test_it.py && "
        "git add test_it.py && git commit -qm 'a test' && git log --oneline | head -1"
    )
    for tool in ("node", "npm"):
        if shutil.which(tool):
            command += f" && {tool} --version >/dev/null && echo {tool} ran"
    result = await bash(_in(box, repo), command + "; echo ---; ls -A ~")
    assert exit_code(result) == 0, result.text
    assert "1 passed" in result.text
    assert "a test" in _git(repo, "log", "--oneline").stdout
    for tool in ("node", "npm"):
        assert (f"{tool} ran" in result.text) is (shutil.which(tool) is not None)
    shown = set(result.text.split("---\n")[1].split("\n\nexit code")[0].split())
    assert not shown & {".ssh", ".bashrc", ".profile", ".npmrc", ".netrc", ".aws"}
    readable = Sandbox().layout(box.ctx, {"HOME": str(home), "PATH": os.environ["PATH"]}).readable
    tops = {p.relative_to(home).parts[0] for p in readable if p.is_relative_to(home)}
    assert shown <= tops | {".gitconfig"}  # toolchain folders (and git's identity) only


async def test_a_background_task_that_plants_a_context_file_has_it_moved_away(box: Box) -> None:
    repo = _repo(box.outside / "repo")
    tasks = BackgroundTasks(box.outside / "tasks", kill_grace=0.5)
    notes: list[str] = []
    tasks.notify = notes.append
    try:
        payload: JsonObject = {"command": "echo planted > AGENTS.md", "background": True}
        started = await BashTool(tasks=tasks).execute(payload, _in(box, repo).ctx)
        task = tasks.get(str(started.details["task_id"]))
        assert task is not None
        while task.running:
            await asyncio.sleep(0.02)
    finally:
        await tasks.close()
    assert not (repo / "AGENTS.md").exists()
    [moved] = repo.glob("AGENTS.md.quarantined-*")
    assert moved.read_text() == "planted\n"
    [note] = notes
    assert f"shard: the command created {repo / 'AGENTS.md'}" in note


async def test_nested_repositories_are_protected_and_new_ones_checked(box: Box) -> None:
    """A repository inside the workspace (`vendor/lib`) keeps its hooks; a repository the command
    makes below the cwd loses a planted hook, and all of its `.git` when its config names a
    program (the person's `git status` there would run `core.fsmonitor`)."""
    ws = _repo(box.outside / "ws")
    lib = _repo(ws / "vendor" / "lib")
    result = await bash(_in(box, ws), "touch vendor/lib/.git/hooks/pre-commit")
    assert "Read-only file system" in result.text
    assert not (lib / ".git" / "hooks" / "pre-commit").exists()
    command = (
        "mkdir -p a/hooked a/monitored && git -C a/hooked init -q && "
        "touch a/hooked/.git/hooks/post-checkout && git -C a/monitored init -q && "
        "git -C a/monitored config core.fsmonitor 'touch /var/tmp/x' && echo made"
    )
    result = await bash(_in(box, ws), command)
    assert "made" in result.text
    hooked, monitored = ws / "a" / "hooked", ws / "a" / "monitored"
    assert not (hooked / ".git" / "hooks" / "post-checkout").exists()
    assert (hooked / ".git" / "HEAD").exists()  # the repository itself stays
    assert not (monitored / ".git").exists()
    assert [p.name.split("-")[0] for p in monitored.glob(".git.quarantined-*")] == [
        ".git.quarantined"
    ]
    assert "monitored/.git" in result.text
