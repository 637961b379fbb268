"""A bundled provider is one file: a module of `shard_core.providers` that ends with its `SPEC`
is found with no other edit, and a broken one is an error that names it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import shard_core.providers as providers_package
from shard_core.engine.config import ShardConfig
from shard_core.providers.bundled import BUNDLED, discover
from shard_core.providers.models import ModelSpec, create_provider, parse_model
from shard_core.types.errors import ConfigError

PACKAGE = "shard_core.providers"

ECHO = """
from shard_core.contracts.provider import ModelFamily, ProviderSetup, ProviderSpec


class EchoProvider:
    name = "echo"

    def __init__(self, setup: ProviderSetup) -> None:
        self.model = setup.model
        self.context_window = setup.context_window

    async def stream(self, request):
        raise NotImplementedError
        yield


def build(setup: ProviderSetup) -> EchoProvider:
    return EchoProvider(setup)


SPEC = ProviderSpec(
    prefix="echo",
    build=build,
    families=(ModelFamily("", context_window=4096),),
    forms=("echo/<model>",),
)
"""


@pytest.fixture
def dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder that is part of the package, as if its files were in `shard_core/providers/`."""
    monkeypatch.setattr(providers_package, "__path__", [*providers_package.__path__, str(tmp_path)])
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name.startswith(f"{PACKAGE}.zz_"):
            del sys.modules[name]


def test_the_bundled_providers_are_the_modules_that_end_with_a_spec() -> None:
    assert [spec.prefix for spec in BUNDLED] == ["anthropic", "openai", "scripted", "none"]
    assert discover() == BUNDLED


def test_a_provider_module_dropped_into_the_package_is_found(dropped: Path) -> None:
    (dropped / "zz_echo.py").write_text(ECHO)
    specs = discover()
    assert [spec.prefix for spec in specs] == ["anthropic", "openai", "scripted", "none", "echo"]
    assert parse_model("echo/small", specs) == ModelSpec("echo", "small")
    provider = create_provider("echo/small", ShardConfig(), {}, specs)
    assert (provider.name, provider.model, provider.context_window) == ("echo", "small", 4096)


def test_a_module_without_a_spec_is_not_imported(dropped: Path) -> None:
    (dropped / "zz_helper.py").write_text('raise RuntimeError("a helper is never imported")\n')
    assert [spec.prefix for spec in discover()] == ["anthropic", "openai", "scripted", "none"]
    assert f"{PACKAGE}.zz_helper" not in sys.modules


def test_a_provider_module_that_fails_to_import_is_named(dropped: Path) -> None:
    (dropped / "zz_broken.py").write_text('raise RuntimeError("no SDK here")\nSPEC = None\n')
    with pytest.raises(
        ConfigError,
        match=r"shard_core\.providers\.zz_broken failed to import: "
        r"RuntimeError: no SDK here",
    ):
        discover()


def test_a_spec_that_is_not_a_provider_spec_is_named(dropped: Path) -> None:
    (dropped / "zz_wrong.py").write_text('SPEC = {"prefix": "wrong"}\n')
    with pytest.raises(
        ConfigError,
        match=r"shard_core\.providers\.zz_wrong: SPEC must be a "
        r"ProviderSpec, got dict",
    ):
        discover()


def test_a_second_module_with_a_taken_prefix_is_named(dropped: Path) -> None:
    (dropped / "zz_again.py").write_text(ECHO.replace('prefix="echo"', 'prefix="openai"'))
    with pytest.raises(ConfigError, match=r"shard_core\.providers\.zz_again: prefix 'openai'"):
        discover()
