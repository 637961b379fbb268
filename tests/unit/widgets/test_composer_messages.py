"""The widget composer's messages: a prompt (idle) or a steer (busy) with its images reaches the
controller whole, its `@` mentions made context first (all or none); a refused mention answers
with the reason and sends nothing; the `@` completion is answered with the controller's options."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shard_core.protocol import CommandReply
from shard_core.types import ImageBlock
from shard_widgets import (
    AgentWidget,
    MentionContext,
    MentionRefusedError,
    Mentions,
    ShownNotebook,
)
from tests.unit.widgets._support import comm_of
from tests.unit.widgets.test_agent_commands import RecordingController, ok, refused

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"
    "nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg=="
)
IMAGE = {"type": "image", "media_type": "image/png", "data": PNG}
PLOT = ImageBlock(media_type="image/png", data=PNG[:-4] + "AAA=")


class ComposerRecorder(RecordingController):
    """A controller with the composer's methods: `@var:df` resolves, `@var:gone` does not."""

    def steer(self, text: str, images: Sequence[ImageBlock] = (), **_: object) -> Any:
        self.calls.append(("steer", text, [i.data for i in images]))

    def send_prompt(self, text: str, images: Sequence[ImageBlock]) -> CommandReply:
        self.calls.append(("prompt", text, [i.data for i in images]))
        return CommandReply(command="prompt", ok=True, message="started")

    def inject(self, text: str, kind: str, label: str | None) -> CommandReply:
        self.calls.append(("inject", text, kind, label))
        return CommandReply(command="inject", ok=True)

    def mention_contexts(self, text: str, shown: ShownNotebook | None = None) -> Mentions:
        self.calls.append(("shown", shown))
        if "@var:gone" in text:
            raise MentionRefusedError("there is no variable gone in frame.ipynb's kernel")
        found = [MentionContext("type: DataFrame", "variable", "@var:df from frame.ipynb")]
        return Mentions(found if "@var:df" in text else [], [PLOT] if "@cell:" in text else [])

    def mention_options(
        self, word: str, shown: ShownNotebook | None = None
    ) -> list[dict[str, str]]:
        if shown is not None:
            return [{"insert": f"@cell:{n}", "detail": shown[0]} for n in (1, 2)]
        return [{"insert": "@var:df", "detail": "DataFrame"}] if word == "@var:d" else []


def test_an_idle_composers_prompt_carries_its_images_after_its_mentions_context() -> None:
    controller = ComposerRecorder()
    widget = AgentWidget(controller)
    message = {"type": "prompt", "id": "p1", "text": "plot @var:df", "images": [IMAGE]}
    widget._handle_custom_msg(message, [])
    assert controller.calls == [
        ("shown", None),
        ("inject", "type: DataFrame", "variable", "@var:df from frame.ipynb"),
        ("prompt", "plot @var:df", [PNG]),
    ]
    [reply] = comm_of(widget).custom()
    assert (reply["command_id"], reply["ok"], reply["message"]) == ("p1", True, "started")


def test_a_steer_carries_its_images_and_a_mentioned_cells_plot() -> None:
    controller = ComposerRecorder()
    widget = AgentWidget(controller)
    steer = {"type": "steer", "id": "s1", "text": "see @cell:2", "images": [IMAGE]}
    widget._handle_custom_msg(steer, [])
    assert controller.calls == [("shown", None), ("steer", "see @cell:2", [PNG, PLOT.data])]
    assert comm_of(widget).custom() == [ok("steer", "s1")]


def test_a_refused_mention_sends_nothing_and_says_why() -> None:
    controller = ComposerRecorder()
    widget = AgentWidget(controller)
    message = {"type": "prompt", "id": "p2", "text": "@var:df and @var:gone", "images": [IMAGE]}
    widget._handle_custom_msg(message, [])
    assert controller.calls == [("shown", None)]  # asked, refused: nothing sent
    assert comm_of(widget).custom() == [
        refused("prompt", "p2", "there is no variable gone in frame.ipynb's kernel")
    ]


def test_a_bad_image_is_refused_with_the_prompts_reason() -> None:
    controller = ComposerRecorder()
    widget = AgentWidget(controller)
    huge = {**IMAGE, "data": "A" * 6_000_000}
    widget._handle_custom_msg({"type": "steer", "id": "s2", "text": "x", "images": [huge]}, [])
    assert controller.calls == []
    [reply] = comm_of(widget).custom()
    assert reply["ok"] is False
    assert "image 1: 4.5 MB: at most 3.75 MB goes with a prompt" in reply["message"]


def test_the_at_completion_is_answered_with_the_controllers_options() -> None:
    widget = AgentWidget(ComposerRecorder())
    widget._handle_custom_msg({"type": "mention_options", "id": "m1", "word": "@var:d"}, [])
    [reply] = comm_of(widget).custom()
    assert reply == {
        **ok("mention_options", "m1"),
        "data": {"options": [{"insert": "@var:df", "detail": "DataFrame"}]},
    }


def test_a_controller_without_the_composers_methods_steers_text_and_takes_no_prompt() -> None:
    controller = RecordingController()
    widget = AgentWidget(controller)
    widget._handle_custom_msg({"type": "steer", "id": "s3", "text": "go on"}, [])
    widget._handle_custom_msg({"type": "mention_options", "id": "m2", "word": "@"}, [])
    assert controller.calls == [("steer", "go on")]
    assert comm_of(widget).custom()[1]["data"] == {"options": []}


def test_the_cells_the_page_shows_go_with_the_next_message_only() -> None:
    controller = ComposerRecorder()
    widget = AgentWidget(controller)
    cells = [{"cell_type": "code", "id": "a", "source": "x = 1 # unsaved", "outputs": []}]
    notebook = {"path": "sub/frame.ipynb", "cells": cells}
    widget._handle_custom_msg({"type": "notebook_cells", "id": "n1", "notebook": notebook}, [])
    widget._handle_custom_msg({"type": "prompt", "id": "p3", "text": "see @cell:1"}, [])
    widget._handle_custom_msg({"type": "prompt", "id": "p4", "text": "and again"}, [])
    assert controller.calls[0] == ("shown", ("frame.ipynb", cells))
    assert controller.calls[2] == ("shown", None)  # one message's: a later one reads as saved
    asked = {"type": "mention_options", "id": "m3", "word": "@cell:", "notebook": notebook}
    widget._handle_custom_msg(asked, [])
    assert comm_of(widget).custom()[-1]["data"] == {
        "options": [
            {"insert": "@cell:1", "detail": "frame.ipynb"},
            {"insert": "@cell:2", "detail": "frame.ipynb"},
        ]
    }
