"""The IRI grammar jsonschema loads, built at its first use instead of at import.

jsonschema's format checker imports `rfc3987_syntax` when the GPL `rfc3987` is absent (the
case with `jsonschema[format-nongpl]`, which jupyter_events and nbformat ask for), and that
import builds about 35 Earley parsers: 2.4 CPU-s on this project's machines, paid by every
jupyter_server start and every `import nbformat`, though no Jupyter schema uses the `iri`
formats (upstream: python-jsonschema/jsonschema#1428). `defer()`, called by Shard's own entry
points before anything imports jsonschema, puts a stand-in module in its place whose
`is_valid_syntax` (and any other name) imports the real module at first use, so an `iri` is
validated exactly as before. `jupyter lab` imports jsonschema before any extension of its own
runs, so it keeps the eager import.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types
from typing import Any

NAME = "rfc3987_syntax"
_lock = threading.Lock()


class _Deferred(types.ModuleType):
    """Stands in for `rfc3987_syntax` until one of its names is used."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(load(), name)


def _is_valid_syntax(term: str, value: str) -> bool:
    real: Any = load()
    return bool(real.is_valid_syntax(term, value))


def defer() -> None:
    """Put the stand-in in place, unless the module is loaded already or not installed."""
    if NAME in sys.modules or "jsonschema._format" in sys.modules:
        return
    if importlib.util.find_spec(NAME) is None:
        return
    stand_in = _Deferred(NAME, __doc__)
    stand_in.is_valid_syntax = _is_valid_syntax  # type: ignore[attr-defined]
    sys.modules[NAME] = stand_in


def load() -> types.ModuleType:
    """The real `rfc3987_syntax`, imported now if the stand-in is still in its place."""
    with _lock:
        current = sys.modules.get(NAME)
        if current is not None and not isinstance(current, _Deferred):
            return current
        sys.modules.pop(NAME, None)
        return importlib.import_module(NAME)
