"""Adoption: every `shard` kernel the server starts for a notebook (or console) becomes an agent.

JupyterLab starts a document's kernel through the server's SessionManager (`POST /api/sessions`:
the Launcher, opening a notebook, changing its kernel), which calls
`kernel_manager.start_kernel(path=<the document's folder>, kernel_name=…, env={…,
JPY_SESSION_NAME: <the document>})`. The local `MappingKernelManager` and the
`GatewayMappingKernelManager` of `--gateway-url` share that signature, so wrapping this one method
on the server's kernel manager is the whole hook: a `shard` kernel asked for without
`KERNEL_SHARD_AGENT_ID` is started by the registry as an agent (a new one named after the
document, or the notebook's stopped one). A kernel restart reuses the env it was started with,
so the same agent resumes; a start that names its agent (the registry's own attach) passes through.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path, PurePath
from typing import Any

from jupyter_server.utils import ensure_async

from shard_core.protocol.orchestrator import PermissionConfig
from shard_core.types.errors import ConfigError
from shard_kernel.agent_defaults import default_model
from shard_kernel.agent_env import PERMISSIONS_VARIABLE, read_agent_env
from shard_kernel.gateway.registry import AgentRegistry
from shard_kernel.kernelspec import KERNEL_NAME
from shard_kernel.notebook_settings import notebook_settings

AGENT_ID = "KERNEL_SHARD_AGENT_ID"
SESSION_NAME = "JPY_SESSION_NAME"
NOTEBOOK_SUFFIX = ".ipynb"


def install_adoption(kernel_manager: Any, registry: AgentRegistry) -> None:
    """Route the server's `shard` kernel starts that name no agent through `registry.adopt`."""
    start_kernel = kernel_manager.start_kernel

    async def adopting_start_kernel(*args: Any, **kwargs: Any) -> str:
        if not wants_agent(kernel_manager, kwargs):
            return await ensure_async(start_kernel(*args, **kwargs))
        env: Mapping[str, str] | None = kwargs.get("env")
        document = session_document(env, kernel_manager.root_dir)
        notebook = document if document and document.endswith(NOTEBOOK_SUFFIX) else None
        path = kwargs.get("path")
        cwd = kernel_manager.cwd_for_path(path) if path is not None else kernel_manager.root_dir

        async def launch(agent_env: dict[str, str]) -> str:
            return await ensure_async(start_kernel(*args, **{**kwargs, "env": agent_env}))

        name = PurePath(document).stem if document else None
        defaults = server_defaults(env, registry.log)
        if notebook is not None:  # the notebook's own metadata.shard is more specific
            path = Path(kernel_manager.root_dir, notebook)
            found = notebook_settings(path, env or {}, registry.log)
            if "permissions" in found:
                found["rules_from"] = f"notebook metadata of {notebook}"
            defaults.update(found)
        cwd = defaults.pop("cwd", None) or cwd
        return await registry.adopt(notebook, str(cwd), env, launch, name=name, defaults=defaults)

    kernel_manager.start_kernel = adopting_start_kernel


def wants_agent(kernel_manager: Any, kwargs: Mapping[str, Any]) -> bool:
    """A new `shard` kernel whose start names no agent."""
    name = kwargs.get("kernel_name") or getattr(kernel_manager, "default_kernel_name", None)
    if name != KERNEL_NAME:
        return False
    kernel_id = kwargs.get("kernel_id")
    if kernel_id is not None and kernel_id in kernel_manager:
        return False  # the manager hands back the running kernel: nothing starts
    env: Mapping[str, str] = kwargs.get("env") or {}
    named = env.get(AGENT_ID, "").strip()
    # SessionManager copies the server's own environment into `env`: an agent id inherited from
    # it (a server started by an agent's bash tool) names the parent agent, not this kernel
    return not named or named == os.environ.get(AGENT_ID, "").strip()


def server_defaults(env: Mapping[str, str] | None, log: Any) -> dict[str, Any]:
    """What the server's own `KERNEL_SHARD_*` variables say, as a new adopted agent's settings.

    Before adoption a Launcher kernel read them itself (`jupyter lab` started with
    `KERNEL_SHARD_MODEL=…` configures every Shard notebook); they stay the defaults, the
    notebook's folder only the fallback cwd. The agent id never carries over (see wants_agent).
    """
    given = {k: v for k, v in (env or {}).items() if k.startswith("KERNEL_SHARD_") and v.strip()}
    given.pop(AGENT_ID, None)
    given.pop(PERMISSIONS_VARIABLE, None)  # names the manifest of the agent that set it, if any
    if not given:
        return {}
    try:
        found = read_agent_env({**given, AGENT_ID: "agent-defaults"})
    except ConfigError as exc:
        log.warning("shard: ignoring the server's KERNEL_SHARD_* settings for notebooks: %s", exc)
        return {}
    defaults: dict[str, Any] = {"mode": found.mode or "build"}
    if "KERNEL_SHARD_CWD" in given:
        defaults["cwd"] = str(found.cwd.resolve())
    chosen = default_model(given)  # config.json's model first, as for every new agent
    if chosen.source in ("config", "server"):
        defaults["model"] = chosen.model
    if found.headless_policy is not None:
        defaults["headless_policy"] = found.headless_policy
    if found.permission_timeout is not None:
        defaults["permission_timeout"] = found.permission_timeout
    if found.allow or found.deny:
        defaults["permissions"] = PermissionConfig(allow=list(found.allow), deny=list(found.deny))
        defaults["rules_from"] = "the server's KERNEL_SHARD_ALLOW/KERNEL_SHARD_DENY"
    return defaults


def session_document(env: Mapping[str, str] | None, root_dir: str) -> str | None:
    """The document a session kernel is for, as a '/' path under `root_dir` when it is inside.

    SessionManager sets JPY_SESSION_NAME to the session's API path, or, when the session has a
    name (JupyterLab always sends one), to `<the folder on disk>/<name>`.
    """
    raw = (env or {}).get(SESSION_NAME, "").strip()
    if not raw:
        return None
    path = PurePath(raw)
    if path.is_absolute():
        try:
            path = path.relative_to(root_dir)
        except ValueError:
            return path.as_posix()
    return path.as_posix().lstrip("/") or None
