"""The gateway agent `%shard` made in this Python kernel, for the Lab's cell actions.

JupyterLab's "Fix with Shard" asks the notebook's kernel for it with a silent execute request
whose only code is a user expression calling `notebook_agent_id()`, and only when
`shard_kernel.cell_agent` is already imported (the `%shard` magics import it): a notebook that
never loaded Shard runs nothing of Shard's. An in-process agent (`--local`) has no gateway
presence, so it is not named; the Lab then uses the folder's agent.
"""

from __future__ import annotations

from typing import Any

MAGICS_NAME = "ShardMagics"


def notebook_agent_id() -> str | None:
    """The default `%shard` agent's gateway id, or None."""
    try:
        from IPython.core.getipython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency
        return None
    shell: Any = get_ipython()
    magics: Any = shell.magics_manager.registry.get(MAGICS_NAME) if shell is not None else None
    if magics is None or magics.current is None:
        return None
    host = magics.agents.get(magics.current)
    info = getattr(host, "info", None)  # RemoteAgent has its registry info; InProcessAgent none
    agent_id = getattr(info, "id", None)
    return agent_id if isinstance(agent_id, str) else None
