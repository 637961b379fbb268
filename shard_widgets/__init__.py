"""anywidget components that render Shard's wire types inside notebooks."""

from shard_core import __version__

__all__ = ["__version__"]
