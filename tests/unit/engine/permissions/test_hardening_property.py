"""Issue 20: whatever the gate allows, bash really running it leaks nothing and writes nothing out.

Commands are generated from read-only commands, input and output redirects, expansions (globs,
tilde forms, `$VAR`, braces, `$(…)`) and words naming symlinks into and out of a temp workspace.
Whenever the gate says `allow`, the command runs for real (`bash -c`, cwd = the workspace, HOME a
temp directory holding a canary, a minimal environment, a timeout): its output must never hold
a canary's content and nothing outside the workspace may change.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shard_core.contracts import PermissionQuery
from shard_core.engine.permissions import RuleSet, explain
from tests.unit.engine.permissions._support import rules

# one worker runs this module: its module-scoped fixture is built once (pytest-xdist)
pytestmark = pytest.mark.xdist_group("hardening_property")

TOKEN = "canary-9QX7-contents"  # never appears in a generated command
BASH = "/bin/bash"


class Sandbox:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.ws = root / "ws"
        self.home = root / "home"
        self.outside = root / "outside"

    def build(self) -> None:
        for directory in (self.ws / "sub", self.home / ".ssh", self.outside / "dir"):
            directory.mkdir(parents=True)
        for secret in (self.home / "secret", self.home / ".ssh" / "id_rsa"):
            secret.write_text(TOKEN + "\n")
        (self.outside / "secret").write_text(TOKEN + "\n")
        (self.outside / "dir" / "deep").write_text(TOKEN + "\n")
        (self.ws / "a.txt").write_text("local a\n")
        (self.ws / "sub" / "b.txt").write_text("local b\n")
        (self.ws / "link").symlink_to(self.home / "secret")
        (self.ws / ".hid").symlink_to(self.outside / "secret")
        (self.ws / "inner").symlink_to(self.ws / "a.txt")
        (self.ws / "sub" / "dirlink").symlink_to(self.outside)
        (self.ws / "sub" / "up").symlink_to(self.ws)

    def outside_state(self) -> dict[str, str]:
        """Every path outside the workspace with a digest of its content (the marker check)."""
        state: dict[str, str] = {}
        for directory, dirs, files in os.walk(self.root):
            if Path(directory) == self.root:
                dirs.remove("ws")
            for name in [*dirs, *files]:
                path = Path(directory) / name
                data = b"" if path.is_dir() else path.read_bytes()
                state[str(path)] = hashlib.sha256(data).hexdigest()
        return state

    def run(self, command: str) -> str:
        env = {
            "HOME": str(self.home),
            "OLDPWD": str(self.home),
            "PATH": "/usr/bin:/bin",
            "LC_ALL": "C",
        }
        process = subprocess.Popen(
            [BASH, "-c", command],
            cwd=self.ws,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            out, _ = process.communicate(timeout=10)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        return out.decode("utf-8", "replace")


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    box = Sandbox(Path(os.path.realpath(tmp_path_factory.mktemp("gate-property"))))
    box.build()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(box.home))  # the gate models `~` with the same home bash sees
        yield box


LOCAL_WORDS = [
    *("a.txt", "sub/b.txt", "inner", "missing", ".", "sub/up/a.txt", "sub", "*.txt"),
    *("sub/*.txt", "?nner", "'*'", "\\*", "sub/b.*", "-n"),
]
ESCAPING_WORDS = [
    *("link", ".hid", "sub/dirlink/secret", "sub/up/link", "..", "../home/secret"),
    *("sub/dirlink", "sub/up", "*", "l?nk", "l*", "sub/*", "sub/*/*", "*/*", ".*", "[l]ink"),
    *("LIN?", "sub/dirl*/*", "sub/up/*", "~", "~/secret", "~/.ssh/id_rsa", "~+/../home/secret"),
    *("~+/link", "~-/secret", "~+", "$HOME/secret", '"$HOME"/secret', "${HOME}/secret"),
    *("{a.txt,link}", "{.,..}/secret", "$(echo link)", "`echo link`", "/etc/passwd"),
]
# Local words three times as often, so that many generated commands are allowed and run.
words = st.one_of(*[st.sampled_from(LOCAL_WORDS)] * 3, st.sampled_from(ESCAPING_WORDS))
READERS = [
    *("cat", "head -n 2", "tail -n 2", "wc -c", "grep -h local", "grep -r QX7"),
    *("grep -R QX7", "grep -rl QX7", "ls", "ls -R", "ls -RL", "find", "find -L"),
    *("echo", "cat --", "head -c 40"),
]


@st.composite
def simple_commands(draw: st.DrawFn) -> str:
    parts = [draw(st.sampled_from(READERS)), *draw(st.lists(words, max_size=3))]
    if draw(st.booleans()):
        parts.append(f"< {draw(words)}")
    if draw(st.integers(0, 4)) == 0:
        parts.append(f"{draw(st.sampled_from(['>', '>>', '2>']))} {draw(words)}")
    return " ".join(parts)


read_commands = st.one_of(
    simple_commands(),
    simple_commands().map(lambda c: f"echo $({c})"),
    st.builds(lambda a, b: f"{a} | {b}", simple_commands(), simple_commands()),
    st.builds(lambda a, b: f"{a}; {b}", simple_commands(), simple_commands()),
    st.builds(lambda a, b: f"{a} && {b}", simple_commands(), simple_commands()),
    words.map(lambda w: f"echo $(< {w})"),
    words.map(lambda w: f"cat <<< x; cat {w}"),
)
write_commands = st.one_of(
    st.builds(lambda w, t: f"echo {w} > {t}", words, words),
    st.builds(lambda w, t: f"echo {w} >> {t}", words, words),
    st.builds(lambda w, t: f"echo {w} | tee {t}", words, words),
    st.builds(lambda t, w: f"echo x > {t}; cat {w}", words, words),
    st.builds(lambda d, c: f"cd {d} && {c}", words, simple_commands()),
    st.builds(lambda d, t: f"cd {d}; echo x > {t}", words, words),
)
# No rules (the default policy alone), and writes inside the workspace (and cd) allowed by rule.
BOOKS = {
    "default": rules(),
    "writes": rules(allow=("Edit(**)", "Bash(echo:*)", "Bash(tee:*)", "Bash(cd:*)")),
}


def check(sandbox: Sandbox, book: RuleSet, command: str) -> None:
    query = PermissionQuery(
        tool="bash",
        input={"command": command},
        read_only=False,
        cwd=sandbox.ws,
        call_id="c",
        turn_id="t",
        agent_id="a",
    )
    if explain(query, book).decision != "allow":
        return
    before = sandbox.outside_state()
    output = sandbox.run(command)
    assert TOKEN not in output, f"allowed {command!r} printed a canary:\n{output}"
    assert sandbox.outside_state() == before, f"allowed {command!r} wrote outside the workspace"


PROPERTY = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@PROPERTY
@given(command=read_commands)
def test_allowed_reads_never_print_a_canary(sandbox: Sandbox, command: str) -> None:
    check(sandbox, BOOKS["default"], command)


@PROPERTY
@given(command=st.one_of(write_commands, read_commands))
def test_allowed_writes_never_leave_the_workspace(sandbox: Sandbox, command: str) -> None:
    check(sandbox, BOOKS["writes"], command)


def test_the_sandbox_would_notice_a_leak_and_a_write(sandbox: Sandbox) -> None:
    """The property's two checks can fail: an unguarded run of each escape trips them."""
    assert TOKEN in sandbox.run("cat link")
    assert TOKEN in sandbox.run("grep -R QX7 .")
    before = sandbox.outside_state()
    sandbox.run("echo changed > sub/dirlink/secret")
    assert sandbox.outside_state() != before
    (sandbox.outside / "secret").write_text(TOKEN + "\n")
