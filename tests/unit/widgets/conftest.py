"""Widgets without a kernel: a recording comm stands in for the kernel's (as in ipywidgets' tests).

`comm.create_comm` is the documented replacement point (the `comm` package's default returns a
comm that drops everything); each widget made in a test is closed afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import comm
import pytest
from ipywidgets.widgets.widget import _instances  # pyright: ignore[reportPrivateUsage]

from tests.unit.widgets._support import RecordingComm


@pytest.fixture(autouse=True)
def recording_comms(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[RecordingComm]]:
    made: list[RecordingComm] = []

    def create_comm(**kwargs: Any) -> RecordingComm:
        made.append(RecordingComm(**kwargs))
        return made[-1]

    monkeypatch.setattr(comm, "create_comm", create_comm)
    yield made
    for widget in list(_instances.values()):
        if widget.comm in made:
            widget.close()
