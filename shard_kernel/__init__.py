"""Shard's Jupyter surfaces: the agent kernel, the gateway server extension, magics, the CLI."""

from shard_core import __version__

__all__ = ["__version__"]
