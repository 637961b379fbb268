"""Shard's Jupyter surfaces: the agent kernel, the gateway server extension, magics, the CLI."""

from typing import Any

from shard_core import __version__

__all__ = ["__version__", "load_ipython_extension", "unload_ipython_extension"]


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext shard_kernel` registers the `%shard` / `%%shard` magics."""
    from shard_kernel.magics import ShardMagics

    ipython.register_magics(ShardMagics(ipython))


def unload_ipython_extension(ipython: Any) -> None:
    magics = ipython.magics_manager.registry.get("ShardMagics")
    if magics is not None:
        magics.close()
