"""The comm target names and heartbeat constants have one home, `shard_core/protocol/link.py`
(TypeScript reads them through `schema/link-constants.json`): no other module defines them."""

from __future__ import annotations

import ast
from pathlib import Path

from shard_core.protocol.link import LinkConstants

ROOT = Path(__file__).resolve().parents[3]
HOME = ROOT / "shard_core" / "protocol" / "link.py"
NAMES = {name.upper() for name in LinkConstants.model_fields}


def defined_elsewhere(root: Path) -> list[str]:
    """`path: NAME` for each module-level assignment of a link constant outside its home."""
    found: list[str] = []
    for package in ("shard_core", "shard_kernel", "shard_widgets"):
        for path in sorted((root / package).rglob("*.py")):
            if path == HOME:
                continue
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                targets = node.targets if isinstance(node, ast.Assign) else []
                if isinstance(node, ast.AnnAssign):
                    targets = [node.target]
                names = {t.id for t in targets if isinstance(t, ast.Name)} & NAMES
                found += [f"{path.relative_to(root)}: {n}" for n in sorted(names)]
    return found


def test_only_the_protocol_defines_the_link_constants() -> None:
    assert {"COMM_TARGET", "EVENTS_COMM_ID", "HEARTBEAT_INTERVAL_S", "HEARTBEAT_TTL_S"} <= NAMES
    assert defined_elsewhere(ROOT) == []


def test_a_module_that_names_its_own_target_is_found(tmp_path: Path) -> None:
    kernel = tmp_path / "shard_kernel" / "kernel.py"
    kernel.parent.mkdir(parents=True)
    kernel.write_text('EVENTS_COMM_ID = "shard-events"\nCOMM_TARGET: str = "shard"\n')
    assert defined_elsewhere(tmp_path) == [
        "shard_kernel/kernel.py: EVENTS_COMM_ID",
        "shard_kernel/kernel.py: COMM_TARGET",
    ]
