"""The `shard` kernelspec: where it ships in the wheel and how to install it by hand."""

from __future__ import annotations

import shutil
import sys
import tempfile
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
    """Install the spec (for editable installs or a custom prefix); returns where it went.

    Installed from a copy: after `pip install shard` the source already is the destination
    (`<prefix>/share/jupyter/kernels/shard`), and jupyter_client empties the destination before
    copying into it — installing from the spec itself would delete it."""
    source = spec_source()
    if not (source / "kernel.json").exists():
        raise FileNotFoundError(f"no kernelspec at {source}")
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / KERNEL_NAME
        shutil.copytree(source, copy)
        return KernelSpecManager().install_kernel_spec(
            str(copy), KERNEL_NAME, user=user, prefix=prefix
        )
