"""SDK imports happen in a worker thread, once."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from shard_core.providers.sdk import import_off_loop

PROBE = "shard_probe_sdk_module"


async def test_imports_off_the_event_loop_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / f"{PROBE}.py").write_text(
        "import threading\nTHREAD = threading.get_ident()\nLOADS = [1]\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, PROBE, raising=False)
    await import_off_loop(PROBE)
    module = sys.modules[PROBE]
    monkeypatch.setitem(sys.modules, PROBE, module)  # removed again after the test
    assert threading.get_ident() != module.THREAD
    module.LOADS.append(2)
    await import_off_loop(PROBE, "json")
    assert sys.modules[PROBE].LOADS == [1, 2]  # not imported a second time
