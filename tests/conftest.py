"""The suite's markers, applied by where a test lives: every test under `tests/integration/` is
`integration`, every test under `tests/e2e/` is `e2e` (`scripts/test.sh` runs `-m "not e2e"`,
then `-m e2e`). A `pytestmark` in a conftest marks nothing, so the path decides, here, once."""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
BY_FOLDER = {"integration": pytest.mark.integration, "e2e": pytest.mark.e2e}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        try:
            folder = item.path.resolve().relative_to(TESTS).parts[0]
        except ValueError:  # a test collected from outside tests/
            continue
        marker = BY_FOLDER.get(folder)
        if marker is not None:
            item.add_marker(marker)
