"""The bundled providers' specs, found rather than listed: every module of this package that
binds `SPEC` at its top level (each adapter module ends with its own) is a bundled provider, in
module-name order. Adding one is adding its file; `priority` on the spec decides the default.

A module is read before it is imported, so the helpers that import this one (`models`,
`pricing`, `wire`) are never imported from here; a provider module imports none of them.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
from collections.abc import Iterable

from shard_core.contracts.provider import ProviderSpec
from shard_core.types.errors import ConfigError

_BINDS_SPEC = re.compile(r"^SPEC\s*(?::[^=\n]+)?=", re.MULTILINE)


def _source(name: str) -> str:
    found = importlib.util.find_spec(name)
    loader = found.loader if found is not None else None
    get_source = getattr(loader, "get_source", None)
    return (get_source(name) or "") if get_source is not None else ""


def discover(package: str = __package__ or "shard_core.providers") -> tuple[ProviderSpec, ...]:
    """The `SPEC` of each module of `package` that binds one at its top level, by module name;
    a module that fails to import or whose SPEC is not a ProviderSpec is a ConfigError naming it."""
    path: Iterable[str] = importlib.import_module(package).__path__
    names = sorted(
        {m.name for m in pkgutil.iter_modules(path) if not m.ispkg and not m.name.startswith("_")}
    )
    specs: list[ProviderSpec] = []
    for short in names:
        name = f"{package}.{short}"
        if not _BINDS_SPEC.search(_source(name)):
            continue
        try:
            module = importlib.import_module(name)
        except Exception as exc:
            raise ConfigError(
                f"bundled provider module {name} failed to import: {type(exc).__name__}: {exc}"
            ) from exc
        spec = getattr(module, "SPEC", None)
        if not isinstance(spec, ProviderSpec):
            raise ConfigError(
                f"bundled provider module {name}: SPEC must be a ProviderSpec, "
                f"got {type(spec).__name__}"
            )
        if any(s.prefix == spec.prefix for s in specs):
            raise ConfigError(f"bundled provider module {name}: prefix {spec.prefix!r} is taken")
        specs.append(spec)
    return tuple(specs)


BUNDLED: tuple[ProviderSpec, ...] = discover()
