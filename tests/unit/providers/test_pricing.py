"""Prices by model family, config overrides, and the cost of a Usage."""

from __future__ import annotations

import pytest

from shard_core.engine.config import Price
from shard_core.providers import cost, price_for
from shard_core.providers.pricing import with_cost
from shard_core.types import Usage

MILLION = Usage(
    input_tokens=1_000_000,
    output_tokens=1_000_000,
    cache_read_tokens=1_000_000,
    cache_write_tokens=1_000_000,
)


@pytest.mark.parametrize(
    ("model", "total"),
    [
        ("claude-sonnet-4-6", 3 + 15 + 0.3 + 3.75),
        ("anthropic/claude-3-5-sonnet-20241022", 3 + 15 + 0.3 + 3.75),
        ("claude-opus-4-1", 15 + 75 + 1.5 + 18.75),
        ("claude-opus-4-5-20251101", 5 + 25 + 0.5 + 6.25),
        ("claude-3-5-haiku-latest", 0.8 + 4 + 0.08 + 1),
        ("claude-haiku-4-5", 1 + 5 + 0.1 + 1.25),
        ("gpt-5", 1.25 + 10 + 0.125),
        ("openai/gpt-5-mini@http://proxy/v1", 0.25 + 2 + 0.025),
        ("gpt-4o-2024-08-06", 2.5 + 10 + 1.25),
        ("gpt-4o-mini", 0.15 + 0.6 + 0.075),
    ],
)
def test_cost_by_family(model: str, total: float) -> None:
    assert cost(model, MILLION) == pytest.approx(total)


def test_a_model_without_a_price_has_an_unknown_cost_not_zero() -> None:
    assert cost("qwen2.5-coder:7b", MILLION) is None
    assert with_cost("qwen2.5-coder:7b", MILLION) == MILLION.model_copy(update={"cost_usd": None})


def test_an_unknown_cost_stays_unknown_when_added() -> None:
    known = Usage(input_tokens=1, cost_usd=0.25)
    unknown = Usage(output_tokens=2, cost_usd=None)
    assert known + unknown == Usage(input_tokens=1, output_tokens=2, cost_usd=None)
    assert unknown + known == Usage(input_tokens=1, output_tokens=2, cost_usd=None)
    assert known + known == Usage(input_tokens=2, cost_usd=0.5)
    assert Usage() + known == known


def test_old_logs_with_a_zero_cost_still_load() -> None:
    old = {"input_tokens": 3, "output_tokens": 4, "cache_read_tokens": 0,
           "cache_write_tokens": 0, "cost_usd": 0.0}  # fmt: skip
    assert Usage.model_validate(old) == Usage(input_tokens=3, output_tokens=4, cost_usd=0.0)
    assert Usage.model_validate({"input_tokens": 3}).cost_usd == 0.0
    assert Usage.model_validate_json('{"cost_usd": null}').cost_usd is None


def test_cost_of_a_small_request() -> None:
    usage = Usage(input_tokens=1200, output_tokens=300, cache_read_tokens=5000)
    assert cost("claude-sonnet-4-6", usage) == pytest.approx(
        (1200 * 3 + 300 * 15 + 5000 * 0.3) / 1_000_000
    )
    assert cost("claude-sonnet-4-6", Usage()) == 0.0


def test_config_prices_override_and_extend_the_table() -> None:
    overrides = {"sonnet": Price(input=1, output=2), "qwen": Price(input=0.1, output=0.2)}
    assert cost("claude-sonnet-4-6", MILLION, overrides) == pytest.approx(3)
    assert cost("qwen2.5-coder:7b", MILLION, overrides) == pytest.approx(0.3)
    assert price_for("gpt-4o", overrides) == Price(input=2.5, output=10, cache_read=1.25)
    assert price_for("mystery-model", overrides) is None
