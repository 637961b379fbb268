"""Provider SDKs are imported on first use, off the event loop: `anthropic` takes seconds."""

from __future__ import annotations

import asyncio
import importlib
import sys


async def import_off_loop(*names: str) -> None:
    """Import the named modules in a worker thread unless they are loaded already.

    Afterwards a plain `import` of them is a dictionary lookup, so adapters keep their typed
    imports while the event loop (and every other agent's stream) keeps running.
    """
    missing = [name for name in names if name not in sys.modules]
    if missing:
        await asyncio.to_thread(lambda: [importlib.import_module(name) for name in missing])
