"""The bubblewrap command line: what a sandboxed command sees of files, network and processes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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
    """What one sandboxed command may touch (paths already resolved).

    writable: the workspace roots (and `sandbox.extra_rw`). readable: folders shown read-only
    inside hidden ones (the toolchains under a hidden HOME, `sandbox.extra_ro`). hidden: covered
    by an empty tmpfs (a folder) or `/dev/null` (a file or socket). pinned: folders inside a
    writable root bound onto themselves, so that they cannot be renamed away with what is
    protected inside them (`mv .git x` fails with EBUSY). protected: read-only again inside a
    writable root (git hooks and config, Shard's project files). sockets: Unix sockets bound
    back in although their folder is hidden (`sandbox.allow_unix_sockets`). files: a file made
    for the sandbox, bound read-only at a path (source, destination): `~/.gitconfig`. shown:
    files bound read-only last, over anything that hides them, and nothing else of their
    folders (a hook's own transcript inside SHARD_HOME)."""

    cwd: Path
    writable: Sequence[Path]
    readable: Sequence[Path] = ()
    hidden: Sequence[Path] = ()
    network: bool = False
    pinned: Sequence[Path] = ()
    protected: Sequence[Path] = ()
    sockets: Sequence[Path] = ()
    files: Sequence[tuple[Path, Path]] = ()
    shown: Sequence[Path] = ()


def bwrap_argv(bwrap: str, command: Sequence[str], layout: Layout) -> list[str]:
    """`command` wrapped in bwrap. Later mounts cover earlier ones, so the order is: read-only
    root → hidden paths → readable extras → made files → writable roots → pinned folders →
    protected paths → hidden paths that lie inside a shown folder (SHARD_HOME inside the
    workspace, a credentials file inside a toolchain folder of a hidden HOME) → readable extras
    inside those → allowed sockets → shown files. A workspace inside a hidden folder (HOME)
    stays usable."""
    shown = [*layout.writable, *layout.readable]
    inner = [h for h in layout.hidden if any(_strictly_under(h, s) for s in shown)]
    outer = [h for h in layout.hidden if h not in inner]
    outer = [h for h in outer if not any(_strictly_under(h, o) and o.is_dir() for o in outer)]
    again = [r for r in layout.readable if any(_strictly_under(r, h) for h in inner)]
    argv = [bwrap, *ISOLATION]
    if not layout.network:
        argv.append("--unshare-net")
    argv += BASE
    argv += _hidden(outer)
    argv += _binds("--ro-bind-try", layout.readable)
    for source, target in layout.files:
        argv += ["--ro-bind-try", str(source), str(target)]
    argv += _binds("--bind-try", layout.writable)
    argv += _binds("--bind-try", layout.pinned)
    argv += _binds("--ro-bind-try", layout.protected)
    argv += _hidden(inner)
    argv += _binds("--ro-bind-try", again)
    argv += _binds("--ro-bind-try", layout.sockets)
    argv += _binds("--ro-bind-try", layout.shown)
    return [*argv, "--chdir", str(layout.cwd), "--", *command]


def _binds(option: str, paths: Iterable[Path]) -> list[str]:
    out: list[str] = []
    for path in paths:
        out += [option, str(path), str(path)]
    return out


def _hidden(paths: Iterable[Path]) -> list[str]:
    out: list[str] = []
    for path in paths:
        out += _hide(path)
    return out


def _hide(path: Path) -> list[str]:
    # An empty tmpfs over a folder; /dev/null over a file (a socket or a credentials file).
    if path.is_dir():
        return ["--tmpfs", str(path)]
    return ["--ro-bind", "/dev/null", str(path)]


def _strictly_under(path: Path, root: Path) -> bool:
    return path != root and path.is_relative_to(root)
