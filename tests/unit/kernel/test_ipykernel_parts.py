"""The private ipykernel names the agent kernel relies on (`shard_kernel.iopub_hold.RELIED_ON`)
exist in the installed ipykernel with the signatures expected, and nothing outside that module
overrides or calls an underscored ipykernel name."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from shard_kernel.iopub_hold import RELIED_ON, KernelOverrides, kernel_app_class
from shard_kernel.kernel import ShardKernel

PACKAGE = Path(__file__).resolve().parents[3] / "shard_kernel"


def _resolve(dotted: str) -> tuple[object, str]:
    module_name, _, rest = dotted.partition(".")
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            owner: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:-1]:
            owner = getattr(owner, name)
        return owner, parts[-1]
    raise AssertionError(f"{module_name}.{rest}: no such module")


@pytest.mark.parametrize("dotted", sorted(RELIED_ON))
def test_each_relied_on_name_is_there_with_its_signature(dotted: str) -> None:
    owner, name = _resolve(dotted)
    traits = owner.class_traits() if hasattr(owner, "class_traits") else {}  # type: ignore[union-attr]
    found = inspect.getattr_static(owner, name, None)
    assert found is not None or name in traits, dotted
    expected = RELIED_ON[dotted]
    if expected is not None:
        assert str(inspect.signature(getattr(owner, name))) == expected


def test_the_kernel_overrides_only_what_the_fence_declares() -> None:
    """Every underscored ipykernel name ShardKernel, its base or its app defines is declared."""
    declared = {dotted.rsplit(".", 1)[1] for dotted in RELIED_ON}
    from ipykernel.kernelapp import IPKernelApp
    from ipykernel.kernelbase import Kernel

    pairs = [(ShardKernel, Kernel), (KernelOverrides, Kernel), (kernel_app_class(), IPKernelApp)]
    for cls, base in pairs:
        overridden = {
            name
            for name, value in vars(cls).items()
            if name.startswith("_") and not name.startswith("__") and hasattr(base, name)
            if callable(value) or isinstance(value, property) or name in base.class_traits()
        }
        assert overridden <= declared, (cls.__name__, overridden - declared)


def test_no_module_but_the_fence_calls_ipykernel_private_names() -> None:
    declared = {
        name
        for name in (dotted.rsplit(".", 1)[1] for dotted in RELIED_ON)
        if name.startswith("_") and not name.startswith("__")
    }
    users: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "iopub_hold.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in declared:
                users.setdefault(str(path.relative_to(PACKAGE)), set()).add(node.attr)
    assert users == {}
