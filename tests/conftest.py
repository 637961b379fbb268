"""The suite's markers, applied by where a test lives, here, once (a `pytestmark` in a conftest
marks nothing, so the path decides):

- every test under `tests/integration/` is `integration`, every test under `tests/e2e/` is `e2e`
  (`scripts/test.sh` runs `-m "not e2e"`, then `-m e2e`);
- under pytest-xdist (`--dist loadgroup`, scripts/test.sh's default) every module of those two
  folders is one `xdist_group`, run whole by one worker, so its module-scoped fixtures (servers,
  venvs, built notebooks) are made once; a unit test is scheduled on its own. A module's own
  `xdist_group` mark wins (several modules may share one).

Every test ends with the process-wide table of tool shapes (shard_core/engine/access.py) as it
began: a test that declares a shape, or keeps an ExtensionHost it never shut down, leaks nothing
into the next test of its process.

`--shard-order=reverse` or `--shard-order=shuffle[:SEED]` runs the modules, and the tests in each
module, in another order than the files': a test that passes only after another (a process-wide
registry it leaked into) then fails in the run that shows it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from shard_core.engine import access

TESTS = Path(__file__).resolve().parent
BY_FOLDER = {"integration": pytest.mark.integration, "e2e": pytest.mark.e2e}
GROUPED = {"integration", "e2e"}
"""folders whose modules are one xdist_group each (real processes; module fixtures)"""


@pytest.fixture(autouse=True)
def _tool_shapes_reset() -> Iterator[None]:
    access.declared()  # seeded with the built-ins first, so the copy below holds them
    table = access._declared  # pyright: ignore[reportPrivateUsage]
    before = {key: list(entries) for key, entries in table.items()}
    yield
    table.clear()
    table.update(before)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--shard-order",
        default="files",
        help="files (default), reverse, or shuffle[:SEED]: the order modules and their tests run "
        "in, to show a test that depends on another's leftovers",
    )


def _where(item: pytest.Item) -> tuple[str, ...] | None:
    try:
        return item.path.resolve().relative_to(TESTS).parts
    except ValueError:  # a test collected from outside tests/
        return None


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        parts = _where(item)
        if parts is None:
            continue
        marker = BY_FOLDER.get(parts[0])
        if marker is not None:
            item.add_marker(marker)
        if parts[0] in GROUPED and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group("/".join(parts)))
    items[:] = _ordered(items, str(config.getoption("--shard-order")))


def _ordered(items: list[pytest.Item], order: str) -> list[pytest.Item]:
    """The items in the order asked for; a module's tests stay together (its module fixtures
    are made once either way). Every xdist worker computes the same order from the same seed."""
    if order == "files":
        return items
    modules: dict[Path, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.path, []).append(item)
    groups = list(modules.values())
    if order == "reverse":
        return [item for group in reversed(groups) for item in reversed(group)]
    kind, _, seed = order.partition(":")
    if kind != "shuffle" or (seed and not seed.isdigit()):
        raise pytest.UsageError(f"--shard-order={order}: expected files, reverse or shuffle[:SEED]")
    chosen = random.Random(int(seed or 0))
    chosen.shuffle(groups)
    for group in groups:
        chosen.shuffle(group)
    return [item for group in groups for item in group]
