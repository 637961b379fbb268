"""`shard rules check`: explains the deciding rule, in words or JSON; bad input exits 2."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from shard_kernel.cli import main


@pytest.fixture(autouse=True)
def cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr("shard_kernel.commands.SUBCOMMANDS", ("rules",))
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return Path(os.path.realpath(root))


def check(ws: Path, *args: str) -> int:
    return main(["rules", "check", *args, "--cwd", str(ws)])


COMPOUND = '{"command": "git add x && git push; rm -rf y"}'


def test_human_output_names_the_deciding_part(ws: Path, capsys) -> None:
    code = check(ws, "bash", COMPOUND, "--allow", "Bash(git add:*)", "--deny", "Bash(rm:*)")

    out = capsys.readouterr().out
    assert code == 11
    assert out.splitlines() == [
        "decision: deny",
        "rule:     Bash(rm:*)",
        "reason:   `rm -rf y` is denied by Bash(rm:*) (--deny flag)",
        "parts:",
        "  allow  git add x  Bash(git add:*)",
        "  ask    git push   -",
        "  deny   rm -rf y   Bash(rm:*)  <- decided",
    ]


def test_json_output(ws: Path, capsys) -> None:
    code = check(
        ws, "Bash", '{"command": "git add x && git push"}', "--allow", "Bash(git add:*)", "--json"
    )

    assert code == 10
    assert json.loads(capsys.readouterr().out) == {
        "decision": "ask",
        "rule": None,
        "reason": "no rule allows `git push`",
        "parts": [
            {
                "text": "git add x",
                "argv": ["git", "add", "x"],
                "decision": "allow",
                "rule": "Bash(git add:*)",
                "reason": "`git add x` is allowed by Bash(git add:*) (--allow flag)",
            },
            {
                "text": "git push",
                "argv": ["git", "push"],
                "decision": "ask",
                "rule": None,
                "reason": "no rule allows `git push`",
            },
        ],
    }


def test_path_tools_and_the_suggestion(ws: Path, capsys) -> None:
    assert check(ws, "edit", '{"path": ".git/config"}', "--allow", "Edit(**)") == 10

    out = capsys.readouterr().out
    assert "decision: ask" in out
    assert "writes inside .git/, which is protected" in out
    assert "suggest:  Edit(.git/config)" in out


def test_web_fetch_is_judged_by_its_host(ws: Path, capsys) -> None:
    url = '{"url": "https://docs.python.org/3/"}'
    assert check(ws, "web_fetch", url, "--allow", "WebFetch(domain:*.python.org)") == 0
    allowed = capsys.readouterr().out
    assert check(ws, "web_fetch", '{"url": "https://evil.test/"}') == 10
    asked = capsys.readouterr().out

    assert "allowed by WebFetch(domain:*.python.org) (--allow flag)" in allowed
    assert "no rule allows web_fetch evil.test" in asked
    assert "suggest:  WebFetch(domain:evil.test)" in asked


def test_json_for_an_allowed_read(ws: Path, capsys) -> None:
    assert check(ws, "read", '{"path": "README.md"}', "--json") == 0

    assert json.loads(capsys.readouterr().out) == {
        "decision": "allow",
        "rule": None,
        "reason": "read README.md is read-only inside the workspace",
        "parts": [],
    }


def test_config_rules_and_mode_apply(ws: Path, tmp_path: Path, capsys) -> None:
    config = tmp_path / "xdg" / "shard" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"permissions": {"allow": ["Edit(src/**)"]}}))

    assert check(ws, "edit", '{"path": "src/a.py"}', "--json") == 0
    assert json.loads(capsys.readouterr().out)["rule"] == "Edit(src/**)"
    assert check(ws, "edit", '{"path": "src/a.py"}', "--mode", "plan", "--json") == 11
    assert json.loads(capsys.readouterr().out)["decision"] == "deny"


def test_project_allow_rules_are_skipped_with_a_note(ws: Path, capsys) -> None:
    rules_dir = ws / ".shard" / "rules"
    rules_dir.mkdir(parents=True)
    (rules_dir / "team.json").write_text('{"allow": ["Bash(make:*)"]}')

    assert check(ws, "bash", '{"command": "make"}') == 10
    captured = capsys.readouterr()
    assert "decision: ask" in captured.out
    assert "note: " in captured.err
    assert "skipped 1 allow rule (Bash(make:*))" in captured.err

    assert check(ws, "bash", '{"command": "make"}', "--trust-project") == 0
    assert "decision: allow" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("bash", '{"command": "ls"}', "--allow", "Bash("),
            "invalid permission rule 'Bash(': missing ')' at the end (from --allow flag)",
        ),
        (("bash", '{"command": "ls"}', "--deny", "Nope(x)"), "invalid permission rule 'Nope(x)'"),
        (("bash", '{"command": '), "the tool input is not valid JSON"),
        (("bash", '["ls"]'), "the tool input must be a JSON object"),
    ],
)
def test_bad_input_exits_2_without_a_traceback(ws: Path, capsys, args, message) -> None:
    code = check(ws, *args)

    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert captured.err.startswith("shard rules check: error: ")
    assert message in captured.err
    assert "Traceback" not in captured.err


def test_a_bad_config_file_exits_2(ws: Path, tmp_path: Path, capsys) -> None:
    config = tmp_path / "xdg" / "shard" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text('{"permissions": {"deny": ["Bash(rm"]}}')

    assert check(ws, "bash", '{"command": "rm x"}') == 2
    assert "invalid permission rule 'Bash(rm'" in capsys.readouterr().err


def test_unknown_mode_is_an_argparse_error(ws: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        check(ws, "bash", "{}", "--mode", "yolo")

    assert exited.value.code == 2
    assert "invalid choice: 'yolo'" in capsys.readouterr().err


def test_agent_grants_are_included(ws: Path, capsys) -> None:
    from shard_core.engine.permissions import GrantStore

    GrantStore("agent-9").add("Bash(git push:*)", "client")

    assert check(ws, "bash", '{"command": "git push"}', "--agent", "agent-9", "--json") == 0
    assert json.loads(capsys.readouterr().out)["rule"] == "Bash(git push:*)"


@pytest.mark.parametrize(
    ("tool", "payload", "options", "status"),
    [
        ("read", '{"path": "README.md"}', (), 0),
        ("bash", '{"command": "git push"}', (), 10),
        ("bash", '{"command": "rm x"}', ("--deny", "Bash(rm:*)"), 11),
        ("bash", "{", (), 2),
    ],
)
def test_the_exit_status_is_the_decision(ws: Path, capsys, tool, payload, options, status) -> None:
    from shard_kernel.exit_codes import ExitCode

    assert check(ws, tool, payload, *options) == status
    decision = {0: "allow", 10: "ask", 11: "deny"}.get(status)
    if decision is not None:
        assert f"decision: {decision}" in capsys.readouterr().out
    assert status in {ExitCode.OK, ExitCode.ASK, ExitCode.DENY, ExitCode.BAD_INPUT}


PEEK = Path(__file__).resolve().parents[2] / "fixtures" / "extensions" / "peek_tool.py"


def test_a_tool_of_an_extension_in_shard_home_has_its_rules(
    ws: Path, tmp_path: Path, capsys
) -> None:
    """`peek` comes from SHARD_HOME/extensions: its own rules parse, `Read(…)` rules cover it,
    and its path is judged as `read`'s (outside the workspace: not allowed by a workspace rule)."""
    folder = tmp_path / "home" / "extensions"
    folder.mkdir(parents=True)
    (folder / "peek_tool.py").write_text(PEEK.read_text(encoding="utf-8"), encoding="utf-8")
    (ws / "src").mkdir()
    (ws / "src" / "a.py").write_text("hi\n")

    assert check(ws, "peek", '{"file": "src/a.py"}', "--allow", "Peek(src/**)") == 0
    assert "allowed by Peek(src/**)" in capsys.readouterr().out
    assert check(ws, "peek", '{"file": "src/a.py"}', "--deny", "Read(src/**)") == 11
    assert "denied by Read(src/**)" in capsys.readouterr().out
    assert check(ws, "peek", '{"file": "../../etc/passwd"}', "--allow", "Peek(**)") == 10
    assert "outside the workspace" in capsys.readouterr().out
    assert check(ws, "notebook_edit", '{"path": "a.ipynb"}', "--allow", "NotebookEdit(*)") == 0


def test_a_tool_gone_from_shard_home_takes_its_rules_with_it(
    ws: Path, tmp_path: Path, capsys
) -> None:
    folder = tmp_path / "home" / "extensions"
    folder.mkdir(parents=True)
    (folder / "peek_tool.py").write_text(PEEK.read_text(encoding="utf-8"), encoding="utf-8")
    assert check(ws, "peek", '{"file": "a"}', "--allow", "Peek(*)") == 0
    (folder / "peek_tool.py").unlink()

    assert check(ws, "peek", '{"file": "a"}', "--allow", "Peek(*)") == 2
    assert "Peek(…) takes no specifier" in capsys.readouterr().err
