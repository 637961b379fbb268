"""The bubblewrap command line: what a sandboxed command sees of files, network and processes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# --unshare-pid: the command sees only its own processes, so `/proc/<pid>/root`, `environ` and
# `cmdline` of the kernel or the Jupyter server (its token, provider keys) are out of reach, and
# when the command ends its namespace ends with it. --cap-drop ALL: run as root, bwrap would
# otherwise keep every capability and `mount -o remount,rw /` would undo the read-only root.
# No --new-session: the tool already starts bwrap with setsid (no controlling terminal to
# inject into), and keeping one process group is what lets abort kill the whole tree at once.
ISOLATION = (
    "--die-with-parent",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--cap-drop",
    "ALL",
)
# Everything read-only, a fresh /dev and /proc, and a /tmp private to the command.
BASE = ("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp")


@dataclass(frozen=True)
class Layout:
    """What one sandboxed command may touch (paths already resolved)."""

    cwd: Path
    writable: Sequence[Path]
    readable: Sequence[Path] = ()
    hidden: Sequence[Path] = ()
    network: bool = False


def bwrap_argv(bwrap: str, command: Sequence[str], layout: Layout) -> list[str]:
    """`command` wrapped in bwrap. Later mounts cover earlier ones, so the order is:
    read-only root → hidden paths → readable extras → writable roots → hidden paths that lie
    inside a writable root (SHARD_HOME inside the workspace stays hidden, a workspace inside a
    hidden folder stays usable)."""
    inner = [h for h in layout.hidden if any(_strictly_under(h, w) for w in layout.writable)]
    outer = [h for h in layout.hidden if h not in inner]
    argv = [bwrap, *ISOLATION]
    if not layout.network:
        argv.append("--unshare-net")
    argv += BASE
    for path in outer:
        argv += _hide(path)
    for path in layout.readable:
        argv += ["--ro-bind-try", str(path), str(path)]
    for path in layout.writable:
        argv += ["--bind-try", str(path), str(path)]
    for path in inner:
        argv += _hide(path)
    return [*argv, "--chdir", str(layout.cwd), "--", *command]


def _hide(path: Path) -> list[str]:
    # An empty tmpfs over a folder; /dev/null over a file (a socket or a credentials file).
    if path.is_dir():
        return ["--tmpfs", str(path)]
    return ["--ro-bind", "/dev/null", str(path)]


def _strictly_under(path: Path, root: Path) -> bool:
    return path != root and path.is_relative_to(root)
