"""Start `shard` kernels from this installation, whatever Jupyter's data path says.

An editable install may not put the kernelspec on Jupyter's path; this spec manager falls back
to the spec that ships with the package, run by the current interpreter.
"""

from __future__ import annotations

import sys
from typing import Any

from jupyter_client.kernelspec import KernelSpec, KernelSpecManager, NoSuchKernel
from jupyter_client.manager import KernelManager

from shard_kernel.kernelspec import KERNEL_NAME, spec_source


class ShardSpecManager(KernelSpecManager):
    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        try:
            return super().get_kernel_spec(kernel_name)
        except NoSuchKernel:
            if kernel_name != KERNEL_NAME:
                raise
            return self._packaged()

    def _packaged(self) -> KernelSpec:
        spec = KernelSpec.from_resource_dir(str(spec_source()))
        spec.argv = [sys.executable, *spec.argv[1:]]
        return spec


def shard_kernel_manager(**kwargs: Any) -> KernelManager:
    return KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=ShardSpecManager(), **kwargs)
