"""Widgets without a kernel: a recording comm stands in for the kernel's (as in ipywidgets' tests).

`comm.create_comm` is the documented replacement point (the `comm` package's default returns a
comm that drops everything); each widget made in a test is closed afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.unit.widgets import _support
from tests.unit.widgets._support import RecordingComm


@pytest.fixture(autouse=True)
def recording_comms(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[RecordingComm]]:
    yield from _support.recording_comms(monkeypatch)
