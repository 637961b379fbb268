"""What of a hidden HOME the sandbox shows again (toolchains), and which sockets it hides."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest

from shard_core.contracts import ToolContext
from shard_core.tools import hidden
from shard_core.tools.hidden import hidden_paths, listening_sockets, socket_folders
from shard_core.tools.sandbox import Sandbox, SandboxPolicy
from shard_core.tools.toolchains import toolchain_dirs


def _exe(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)


def test_toolchains_under_home_are_their_prefixes_never_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    node = home / ".nvm" / "versions" / "node" / "v22"
    own = home / "opt" / "node"  # a prefix no list knows: found from PATH
    _exe(own / "bin" / "node")
    _exe(node / "bin" / "node")
    _exe(home / ".cargo" / "bin" / "cargo")
    _exe(home / "bin" / "mine")
    pipx = home / ".local" / "share" / "pipx" / "venvs" / "black"
    _exe(pipx / "bin" / "black")
    (home / ".local" / "bin").mkdir(parents=True)
    (home / ".local" / "bin" / "black").symlink_to(pipx / "bin" / "black")
    (home / ".ssh").mkdir()
    path = os.pathsep.join(
        str(p)
        for p in (own / "bin", node / "bin", home / ".cargo/bin", home / "bin", home / ".local/bin")
    )
    env = {"HOME": str(home), "PATH": path + os.pathsep + "/usr/bin"}
    found = [p for p in toolchain_dirs([env], [home]) if p.is_relative_to(tmp_path)]
    # ~/.nvm is a known place (bound whole); ~/bin stays a bin folder, not HOME
    assert sorted(found) == sorted(
        [own, home / ".nvm", home / ".cargo", home / "bin", home / ".local" / "bin", pipx]
    )
    assert home not in found


def test_a_venv_under_home_brings_its_base_interpreter(tmp_path: Path) -> None:
    home = tmp_path / "home"
    base = home / ".pyenv" / "versions" / "3.11.7"
    _exe(base / "bin" / "python3.11")
    venv = home / "work" / ".venv"
    _exe(venv / "bin" / "python")
    (venv / "pyvenv.cfg").write_text(f"home = {base / 'bin'}\nversion = 3.11.7\n")
    env = {"HOME": str(home), "VIRTUAL_ENV": str(venv), "PATH": "/usr/bin"}
    found = [p for p in toolchain_dirs([env], [home]) if p.is_relative_to(tmp_path)]
    assert sorted(found) == sorted([home / ".pyenv", venv])  # .pyenv holds the base


def test_shards_own_interpreter_is_shown_when_it_lives_in_a_hidden_folder() -> None:
    prefix = Path(os.path.realpath(sys.prefix))
    assert prefix in toolchain_dirs([{}], [prefix.parent])


def test_agent_socket_folders_come_from_their_variables() -> None:
    env = {
        "SSH_AUTH_SOCK": "/var/tmp/ssh-x/agent.1",
        "GPG_AGENT_INFO": "/srv/gpg/S.gpg-agent:0:1",
        "DBUS_SESSION_BUS_ADDRESS": "unix:path=/srv/bus/session,guid=1",
        "MY_DAEMON_SOCK": "/opt/daemon/d.sock",
        "XDG_RUNTIME_DIR": "/run/user/1000",
        "NOT_A_SOCKET": "/srv/x/y",
    }
    assert socket_folders(env) == [
        Path("/run/user/1000"),
        Path("/var/tmp/ssh-x"),
        Path("/srv/gpg"),
        Path("/srv/bus"),
        Path("/opt/daemon"),
    ]


def test_listening_sockets_are_read_from_proc_net_unix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "db.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(real))
        server.listen(1)
        table = tmp_path / "unix"
        table.write_text(
            "Num       RefCount Protocol Flags    Type St Inode Path\n"
            "0000000000000000: 00000002 00000000 00010000 0001 01 11 @/tmp/.X11-unix/X0\n"
            "0000000000000000: 00000002 00000000 00010000 0001 01 12\n"
            f"0000000000000000: 00000002 00000000 00010000 0001 01 13 {real}\n"
            f"0000000000000000: 00000002 00000000 00010000 0001 01 14 {tmp_path}/gone.sock\n"
        )
        monkeypatch.setattr(hidden, "NET_UNIX", table)
        assert listening_sockets() == [real]
        ws = tmp_path / "ws"
        ws.mkdir()
        env = {"HOME": str(tmp_path / "nohome")}
        assert real in hidden_paths([env], "a", [ws])
        assert real not in hidden_paths([env], "a", [tmp_path])  # inside the workspace
        assert real not in hidden_paths([env], "a", [ws], sockets=[real])  # allowed


def test_the_real_table_lists_a_socket_this_process_listens_on(tmp_path: Path) -> None:
    path = Path(os.path.realpath(tmp_path)) / "live.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        server.listen(1)
        assert path in listening_sockets()


def test_credential_files_and_home_are_hidden(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    key = tmp_path / "keys" / "work.key"
    key.parent.mkdir()
    key.write_text("k\n")
    found = hidden_paths([{"HOME": str(home)}], "a", [tmp_path / "ws"], files=[str(key)])
    assert home in found
    assert key in found
    assert Path("/") not in hidden_paths([{"HOME": "/"}], "a", [tmp_path])


def test_a_path_entry_inside_shard_home_is_not_shown(tmp_path: Path, ctx: ToolContext) -> None:
    home = tmp_path / "home"
    _exe(home / ".shard" / "bin" / "tool")
    _exe(home / ".cargo" / "bin" / "cargo")
    path = f"{home / '.shard' / 'bin'}{os.pathsep}{home / '.cargo' / 'bin'}"
    env = {"HOME": str(home), "PATH": path}
    layout = Sandbox().layout(ctx, env)
    assert home / ".cargo" in layout.readable
    assert not [p for p in layout.readable if p.is_relative_to(home / ".shard")]
    shown = Sandbox(SandboxPolicy(extra_ro=(str(home / ".shard" / "bin"),))).layout(ctx, env)
    assert home / ".shard" / "bin" in shown.readable  # asked for by name: shown


def test_git_sees_only_who_commits(tmp_path: Path, ctx: ToolContext) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        '[user]\n\tname = "A \\"Q\\" Person"\n\temail = a@e.x\n'
        "[init]\n\tdefaultBranch = trunk\n"
        "[http]\n\textraHeader = Authorization: Bearer canary\n"
        "[core]\n\tpager = evil\n"
    )
    layout = Sandbox().layout(ctx, {"HOME": str(home), "PATH": os.environ["PATH"]})
    [(made, target)] = layout.files
    assert target == home / ".gitconfig"
    assert made.read_text() == (
        '[user]\n\tname = "A \\"Q\\" Person"\n\temail = "a@e.x"\n'
        '[init]\n\tdefaultbranch = "trunk"\n'
    )
    assert oct(made.stat().st_mode & 0o777) == "0o600"
