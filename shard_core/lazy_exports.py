"""A package's public names imported from their modules at first use (PEP 562).

A package lists each exported name with the module under it that defines it and sets
`__getattr__ = lazy_getattr(__name__, _WHERE, globals())`; its `TYPE_CHECKING` imports give
the checkers the same names. A reader of one name loads that name's module only.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_getattr(
    package: str, where: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """The module `__getattr__` of `package`: `where` maps an exported name to its module
    (relative to the package); the value is kept in `namespace`, the package's globals, so a
    name is looked up once."""

    def lookup(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    return lookup
