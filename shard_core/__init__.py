"""Shard's Jupyter-free core: wire types, contracts, protocol and the agent engine."""

__version__ = "0.1.0"

__all__ = ["__version__"]
