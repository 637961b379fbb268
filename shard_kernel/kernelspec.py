"""The `shard` kernelspec: where it ships in the wheel and how to install it by hand."""

from __future__ import annotations

import sys
from pathlib import Path

from jupyter_client.kernelspec import KernelSpecManager

KERNEL_NAME = "shard"


def spec_source() -> Path:
    """The spec folder: next to the package in a checkout, or in the installed data files."""
    checkout = Path(__file__).resolve().parent.parent / "share/jupyter/kernels" / KERNEL_NAME
    if checkout.is_dir():
        return checkout
    return Path(sys.prefix) / "share/jupyter/kernels" / KERNEL_NAME


def install_kernelspec(*, user: bool = False, prefix: str | None = None) -> str:
    """Install the spec (for editable installs or a custom prefix); returns where it went."""
    source = spec_source()
    if not (source / "kernel.json").exists():
        raise FileNotFoundError(f"no kernelspec at {source}")
    return KernelSpecManager().install_kernel_spec(
        str(source), KERNEL_NAME, user=user, prefix=prefix
    )
