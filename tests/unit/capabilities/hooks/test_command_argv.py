"""A hook command with no shell syntax is run directly; anything the shell would change goes
through `/bin/sh -c` (what Claude Code does for every hook)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from shard_core.capabilities.hooks.runner import command_argv

ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin"}


def test_plain_words_are_run_directly() -> None:
    true, env = shutil.which("true", path=ENV["PATH"]), shutil.which("env", path=ENV["PATH"])
    assert command_argv("true", ENV) == [true]
    assert command_argv("  env -i FOO=1 --x=a,b:c@d%e+f  ", ENV) == [
        env, "-i", "FOO=1", "--x=a,b:c@d%e+f",
    ]  # fmt: skip
    assert command_argv("/bin/echo hi", ENV) == ["/bin/echo", "hi"]


@pytest.mark.parametrize(
    "command",
    [
        "exit 2",
        "cd /x",
        "FOO=1 true",
        'echo "$CLAUDE_PROJECT_DIR"/hook.sh',
        "$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh",
        "echo 'quoted'",
        "echo a | cat",
        "true; false",
        "true && false",
        "ls *.py",
        "ls ~",
        "echo > out",
        "echo a\\ b",
        "echo `id`",
        "true # comment",
        "echo a\nfalse",
        ".hooks/check.py",
        "no-such-program-here",
        "",
    ],
)
def test_anything_the_shell_would_change_goes_through_it(command: str) -> None:
    assert command_argv(command, ENV) == ["/bin/sh", "-c", command]


def test_a_program_not_on_path_or_not_executable_goes_through_the_shell(tmp_path: Path) -> None:
    script = tmp_path / "hook.sh"
    script.write_text("exit 0\n")
    assert command_argv(f"{script} x", ENV) == ["/bin/sh", "-c", f"{script} x"]
    assert command_argv("true", {"PATH": ""}) == ["/bin/sh", "-c", "true"]
    assert command_argv("true", {"PATH": "relative/bin"}) == ["/bin/sh", "-c", "true"]
