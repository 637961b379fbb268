"""One table of exit codes: the enum, docs/EXIT-CODES.md and every command agree."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from shard_core.types.errors import (
    ConfigError,
    ExtensionError,
    ProviderAuthError,
    ProviderRetryableError,
    SessionLockedError,
    SessionNotFoundError,
)
from shard_kernel.exit_codes import ExitCode, for_error, for_turn

ROOT = Path(__file__).resolve().parents[3]
ROW = re.compile(r"^\| (\d+) \| `([A-Z_]+)` \|")


def test_the_documented_table_is_the_enum() -> None:
    text = (ROOT / "docs" / "EXIT-CODES.md").read_text()
    rows = [(int(m[1]), m[2]) for m in map(ROW.match, text.splitlines()) if m]
    assert rows == [(code.value, code.name) for code in ExitCode]


def test_codes_are_distinct() -> None:
    assert len({code.value for code in ExitCode}) == len(ExitCode)


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (ConfigError("bad"), ExitCode.BAD_INPUT),
        (SessionNotFoundError("no session"), ExitCode.BAD_INPUT),
        (SessionLockedError("x.jsonl", "pid 1"), ExitCode.FAILED),
        (ProviderAuthError("401", status=401), ExitCode.MODEL_ERROR),
        (ProviderRetryableError("503", status=503), ExitCode.MODEL_ERROR),
        (ExtensionError("broken"), ExitCode.FAILED),
    ],
)
def test_each_error_has_its_code(error: Exception, code: ExitCode) -> None:
    assert for_error(error) == code  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("reason", "blocked", "code"),
    [
        ("completed", False, ExitCode.OK),
        ("completed", True, ExitCode.BLOCKED),
        ("error", False, ExitCode.MODEL_ERROR),
        ("max_steps", True, ExitCode.FAILED),
        ("aborted", False, ExitCode.INTERRUPTED),
    ],
)
def test_a_turn_maps_to_one_code(reason: str, blocked: bool, code: ExitCode) -> None:
    assert for_turn(reason, blocked=blocked) == code


COMMAND_FILES = [
    *sorted((ROOT / "shard_kernel" / "commands").glob("*.py")),
    *(
        ROOT / "shard_kernel" / p
        for p in ("cli.py", "batch.py", "demo/runner.py", "remote/terminal.py")
    ),
]


@pytest.mark.parametrize("path", COMMAND_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_commands_return_named_codes_not_numbers(path: Path) -> None:
    numbers = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Return) and node.value is not None:
            values = (
                [node.value.body, node.value.orelse]
                if isinstance(node.value, ast.IfExp)
                else [node.value]
            )
            numbers += [
                node.lineno for v in values if isinstance(v, ast.Constant) and type(v.value) is int
            ]
    assert numbers == [], f"{path.name}: return ExitCode.<NAME>, not a number (lines {numbers})"
