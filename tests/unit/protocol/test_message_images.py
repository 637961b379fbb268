"""A steer's images are checked as a prompt's are: the same limits, refused with the same
reasons (too many, too large, not base64, not an image type a model reads)."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from shard_core.protocol import Command, PromptCommand, SteerCommand

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"
    "nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg=="
)
IMAGE = {"type": "image", "media_type": "image/png", "data": PNG}
COMMANDS: TypeAdapter[Command] = TypeAdapter(Command)


def _refusal(kind: str, images: list[dict[str, str]]) -> str:
    with pytest.raises(ValidationError) as caught:
        COMMANDS.validate_python({"type": kind, "text": "look", "images": images})
    [error] = caught.value.errors(include_url=False)
    return error["msg"]


@pytest.mark.parametrize(
    ("images", "why"),
    [
        ([IMAGE] * 9, "Value error, 9 images: at most 8 go with a prompt"),
        (
            [{**IMAGE, "data": "A" * 6_000_000}],
            "Value error, image 1: 4.5 MB: at most 3.75 MB goes with a prompt (the providers'"
            " limit)",
        ),
        ([IMAGE, {**IMAGE, "data": "not base64!"}], "Value error, image 2: the data is not base64"),
    ],
)
def test_a_steer_refuses_what_a_prompt_refuses_with_the_same_reason(
    images: list[dict[str, str]], why: str
) -> None:
    assert _refusal("steer", images) == why
    assert _refusal("prompt", images) == why


def test_an_image_type_a_model_does_not_read_is_refused_for_a_steer() -> None:
    pdf = {**IMAGE, "media_type": "application/pdf"}
    assert "image/png" in _refusal("steer", [pdf])


def test_a_steer_carries_its_images_and_none_by_default() -> None:
    steer = COMMANDS.validate_python({"type": "steer", "text": "look", "images": [IMAGE] * 8})
    assert isinstance(steer, SteerCommand)
    assert [i.data for i in steer.images] == [PNG] * 8
    assert SteerCommand(text="look").images == []
    assert PromptCommand(text="look").images == []
