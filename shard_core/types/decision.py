"""Decision: what the permission gate says about one tool call, as plain data."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from shard_core.types.base import WireModel


class Allow(WireModel):
    kind: Literal["allow"] = "allow"
    rule: str | None = Field(default=None, description="the rule or grant that allowed it")


class AllowAlways(WireModel):
    """Allow, and persist `rule` as a per-agent grant."""

    kind: Literal["allow_always"] = "allow_always"
    rule: str = Field(min_length=1)


class Deny(WireModel):
    kind: Literal["deny"] = "deny"
    reason: str
    rule: str | None = None


class Ask(WireModel):
    """Nobody has decided yet: emit a permission_request with this id and wait."""

    kind: Literal["ask"] = "ask"
    prompt: str
    id: str = Field(min_length=1)
    suggested_rule: str | None = Field(
        default=None, description="the rule 'always allow' would save"
    )


Decision = Annotated[Allow | AllowAlways | Deny | Ask, Field(discriminator="kind")]
