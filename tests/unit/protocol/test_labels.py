"""Client labels: optional, cleaned for people (no control characters), bounded."""

from __future__ import annotations

import pytest

from shard_core.protocol.commands import (
    LABEL_MAX,
    AttachCommand,
    PermissionResponseCommand,
    UiResponseCommand,
)


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("alice · Tab 2", "alice · Tab 2"),
        ("  alice\t·\nTab 2  ", "alice · Tab 2"),
        ("ali\x1bce\x00\u202e · \u200bTab\u0085 2", "alice · Tab 2"),
        ("\x07\x1b", None),
        ("", None),
        (None, None),
    ],
)
def test_a_label_keeps_only_what_people_read(given: str | None, kept: str | None) -> None:
    assert AttachCommand(client_id="c1", label=given).label == kept


def test_a_long_label_is_cut_with_an_ellipsis() -> None:
    label = AttachCommand(client_id="c1", label="x" * 200).label
    assert label == "x" * (LABEL_MAX - 1) + "…"


def test_every_answering_command_takes_a_label_and_none_requires_it() -> None:
    allow = {"type": "permission_response", "request_id": "r", "decision": "allow"}
    assert PermissionResponseCommand.model_validate({**allow, "client_id": "c"}).label is None
    answer = PermissionResponseCommand.model_validate({**allow, "client_id": "c", "label": "bo"})
    ui = UiResponseCommand(request_id="u", value=True, client_id="c", label="bo\x00b")
    assert (answer.label, ui.label) == ("bo", "bob")
    with pytest.raises(ValueError, match="label"):
        AttachCommand.model_validate({"client_id": "c", "label": 3})
