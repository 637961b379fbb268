"""Rule strings: the forms users know parse, bad ones fail with a message naming the rule."""

from __future__ import annotations

import os

import pytest

from shard_core.engine.permissions import parse_rule
from shard_core.types.errors import ConfigError


@pytest.mark.parametrize(
    ("text", "tool", "words", "prefix"),
    [
        ("Bash", "bash", None, False),
        ("bash(*)", "bash", None, False),
        ("Bash(git status)", "bash", ("git", "status"), False),
        ("Bash(npm run test:*)", "bash", ("npm", "run", "test"), True),
        ("Bash(npm run test *)", "bash", ("npm", "run", "test"), True),
        ("BASH(/usr/bin/git log:*)", "bash", ("git", "log"), True),
        ("Bash(git commit -m 'a b')", "bash", ("git", "commit", "-m", "a b"), False),
    ],
)
def test_bash_rules(text, tool, words, prefix) -> None:
    rule = parse_rule(text)

    assert (rule.text, rule.tool, rule.words, rule.prefix) == (text, tool, words, prefix)


@pytest.mark.parametrize(
    ("text", "tool", "pattern", "absolute"),
    [
        ("Read(src/**)", "read", "src/**", False),
        ("Edit(**/*.py)", "edit", "**/*.py", False),
        ("write(./docs/**)", "write", "docs/**", False),
        ("Grep(src)", "grep", "src", False),
        ("Find(.)", "find", ".", False),
        ("Ls(//etc)", "ls", "/etc", True),
        ("Read(/etc/passwd)", "read", "/etc/passwd", True),
    ],
)
def test_path_rules(text, tool, pattern, absolute) -> None:
    rule = parse_rule(text)

    assert rule.tool == tool
    assert rule.path is not None
    assert (rule.path.text, rule.path.absolute) == (pattern, absolute)


def test_home_patterns_expand(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))

    rule = parse_rule("Read(~/.ssh/**)")

    assert rule.path is not None
    assert rule.path.text == os.path.realpath(tmp_path) + "/.ssh/**"
    assert rule.path.absolute


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "empty rule"),
        ("Bash(", "missing ')' at the end"),
        ("Bash()", "empty command"),
        ("Bash(:*)", "no command words before ':*'"),
        ("Bash(ls *.py)", "use ':*' at the end for a prefix"),
        ('Bash("open)', "cannot split the command words"),
        ("Read()", "empty path pattern"),
        ("Read(!secret)", "negated patterns ('!') are not supported"),
        ("Read(../x)", "'..' in a relative pattern"),
        ("WebSearch(x)", "WebSearch(…) takes no specifier"),
        ("Read*", "'*' is only allowed in mcp__server__* rules"),
        ("mcp__srv__tool(x)", "MCP rules take no specifier"),
        ("Bash git", "expected Tool, Tool(specifier) or mcp__server__tool"),
    ],
)
def test_bad_rules_name_the_rule(text, problem) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_rule(text)

    assert str(caught.value).startswith(f"invalid permission rule {text!r}: ")
    assert problem in str(caught.value)


def test_tool_names_are_case_insensitive_and_edit_covers_write() -> None:
    edit, read, write = parse_rule("edit"), parse_rule("READ"), parse_rule("Write")

    assert edit.covers_tool("edit")
    assert edit.covers_tool("write")
    assert edit.covers_tool("Write")
    assert not edit.covers_tool("read")
    assert all(read.covers_tool(t) for t in ("read", "grep", "find", "ls"))
    assert write.covers_tool("write")
    assert not write.covers_tool("edit")


def test_mcp_rules() -> None:
    one, server, server_bare = (
        parse_rule("mcp__github__create_issue"),
        parse_rule("mcp__github__*"),
        parse_rule("mcp__github"),
    )

    assert one.covers_tool("mcp__github__create_issue")
    assert not one.covers_tool("mcp__github__delete_repo")
    assert server.covers_tool("mcp__github__delete_repo")
    assert server_bare.covers_tool("mcp__github__delete_repo")
    assert not server.covers_tool("mcp__gitlab__x")
    assert not server.covers_tool("bash")


def test_extension_tools_are_bare_rules() -> None:
    rule = parse_rule("Recall")

    assert rule.bare
    assert rule.covers_tool("recall")


@pytest.mark.parametrize(
    ("a", "b", "overlap"),
    [
        ("Bash(git push:*)", "Bash(git push --force:*)", True),
        ("Bash(git push origin main)", "Bash(git push --force:*)", False),
        ("Bash(git:*)", "Bash(git push)", True),
        ("Bash(git push)", "Bash(git push)", True),
        ("Bash(git push)", "Bash(git pull)", False),
        ("Bash", "Bash(rm:*)", True),
    ],
)
def test_overlap_is_symmetric(a, b, overlap) -> None:
    assert parse_rule(a).overlaps(parse_rule(b)) is overlap
    assert parse_rule(b).overlaps(parse_rule(a)) is overlap
