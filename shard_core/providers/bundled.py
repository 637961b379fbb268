"""The bundled providers' specs, in the order `shard` registers them (each adapter module ends
with its own; this module only lists them)."""

from __future__ import annotations

from shard_core.contracts.provider import ProviderSpec
from shard_core.providers.anthropic import SPEC as ANTHROPIC
from shard_core.providers.openai import SPEC as OPENAI
from shard_core.providers.scripted import SPEC as SCRIPTED
from shard_core.providers.unconfigured import SPEC as UNCONFIGURED

BUNDLED: tuple[ProviderSpec, ...] = (ANTHROPIC, OPENAI, SCRIPTED, UNCONFIGURED)
