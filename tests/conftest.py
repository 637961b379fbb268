"""The suite's markers, applied by where a test lives, here, once (a `pytestmark` in a conftest
marks nothing, so the path decides):

- every test under `tests/integration/` is `integration`, every test under `tests/e2e/` is `e2e`
  (`scripts/test.sh` runs `-m "not e2e"`, then `-m e2e`);
- under pytest-xdist, scripts/test.sh runs `--dist loadscope`: a module (or a test class) is
  run whole by one worker, so its module-scoped fixtures (servers, venvs, built notebooks) are
  made once. (`--dist loadgroup` with `xdist_group` marks does nothing with pytest 9: xdist 3.8
  renames `item._nodeid`, which `item.nodeid` no longer reads, so every test was scheduled on
  its own and test_binder's venv was built once per worker.) Each worker lists the modules
  longest first, by each test's time in the last run (the pytest cache; else MODULE_SECONDS;
  else a guess), so with `--no-loadscope-reorder` the longest module does not start last.

Every test ends with the process-wide table of tool shapes (shard_core/engine/access.py) as it
began: a test that declares a shape, or keeps an ExtensionHost it never shut down, leaks nothing
into the next test of its process.

`--shard-order=reverse` or `--shard-order=shuffle[:SEED]` runs the modules, and the tests in each
module, in another order than the files': a test that passes only after another (a process-wide
registry it leaked into) then fails in the run that shows it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from shard_core.engine import access

TESTS = Path(__file__).resolve().parent
BY_FOLDER = {"integration": pytest.mark.integration, "e2e": pytest.mark.e2e}


@pytest.fixture(autouse=True)
def _tool_shapes_reset() -> Iterator[None]:
    access.declared()  # seeded with the built-ins first, so the copy below holds them
    table = access._declared  # pyright: ignore[reportPrivateUsage]
    before = {key: list(entries) for key, entries in table.items()}
    yield
    table.clear()
    table.update(before)


@pytest.fixture(autouse=True)
def _no_incidental_language_server(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unit tests run without a language server unless they name one: an agent in a workspace
    with a top-level `.py` starts pyright (SHARD_LSP=auto) beside its first turn, a node process
    each unit test that only reads calc.py paid for and closed again (6 s of a 0.4 s test). The
    tests of the language server pass its command; integration and e2e keep the default."""
    parts = _where(request.node)
    if parts is not None and parts[0] == "unit":
        monkeypatch.setenv("SHARD_LSP", "off")  # code_index.extension.LSP_SETTING


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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        parts = _where(item)
        if parts is None:
            continue
        marker = BY_FOLDER.get(parts[0])
        if marker is not None:
            item.add_marker(marker)
    order = str(config.getoption("--shard-order"))
    items[:] = _ordered(items, order)
    if order == "files" and hasattr(config, "workerinput"):  # an xdist worker
        items[:] = _longest_first(items, _seconds(config))


SECONDS_KEY = "shard/test-seconds"
"""the pytest cache's record of each test's last run time (setup, call and teardown)"""
UNKNOWN_SECONDS = {"unit": 0.2, "integration": 2.0, "e2e": 10.0}
"""what a test not timed yet is guessed to take by its folder, in a module not in MODULE_SECONDS"""
MODULE_SECONDS = TESTS / "module_seconds.json"
"""the modules of 10 s or more, timed once (xdist, 2 workers, a 2-core machine at load 3-8,
2026-12-02): a fresh checkout has no pytest cache, and by test count `test_binder` (minutes, 8
tests) started late"""


def _seconds(config: pytest.Config) -> dict[str, float]:
    cache = getattr(config, "cache", None)  # None under -p no:cacheprovider
    found = cache.get(SECONDS_KEY, {}) if cache is not None else {}
    return found if isinstance(found, dict) else {}


def _test_id(nodeid: str) -> str:
    return nodeid.split("@", 1)[0]  # without a group suffix (xdist's loadgroup, pytest < 9)


def _scope(nodeid: str) -> str:
    """The unit `--dist loadscope` hands a worker: the module, or the class, of a test."""
    return nodeid.rsplit("::", 1)[0]


def _longest_first(items: list[pytest.Item], seconds: dict[str, float]) -> list[pytest.Item]:
    """The scopes (modules, classes) by their expected time, longest first: with `--dist
    loadscope --no-loadscope-reorder` a worker that finishes takes the next scope of this list,
    so the longest does not start last and the short ones fill the end (each test's last time,
    from the pytest cache; else its module's share of MODULE_SECONDS; else a guess)."""
    scopes: dict[str, list[pytest.Item]] = {}
    for item in items:
        scopes.setdefault(_scope(item.nodeid), []).append(item)
    per_test = _module_guesses(items)

    def expected(scope: list[pytest.Item]) -> float:
        total = 0.0
        for item in scope:
            found = seconds.get(_test_id(item.nodeid))
            folder = item.nodeid.split("/")[1] if item.nodeid.count("/") > 1 else ""
            guess = per_test.get(item.nodeid.split("::")[0], UNKNOWN_SECONDS.get(folder, 2.0))
            total += float(found) if isinstance(found, (int, float)) else guess
        return total

    ranked = sorted(scopes.values(), key=expected, reverse=True)
    return [item for scope in ranked for item in scope]


def _module_guesses(items: list[pytest.Item]) -> dict[str, float]:
    """A module's recorded seconds spread over its tests, for the modules MODULE_SECONDS has."""
    try:
        recorded = json.loads(MODULE_SECONDS.read_text())
    except (OSError, ValueError):
        return {}
    counts: dict[str, int] = {}
    for item in items:
        module = item.nodeid.split("::")[0]
        counts[module] = counts.get(module, 0) + 1
    return {
        module: float(recorded[module]) / count
        for module, count in counts.items()
        if isinstance(recorded.get(module), (int, float))
    }


class _Timer:
    """On the controller (or the one serial process): each test's time, into the cache."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        test = _test_id(report.nodeid)
        self.seconds[test] = self.seconds.get(test, 0.0) + report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        cache = getattr(session.config, "cache", None)
        if cache is None or not self.seconds:
            return
        merged = {**_seconds(session.config), **self.seconds}
        cache.set(SECONDS_KEY, {k: round(v, 3) for k, v in sorted(merged.items())})


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Timer(), "shard-test-seconds")


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
