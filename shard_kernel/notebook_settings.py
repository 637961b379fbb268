"""NotebookSettings: the `metadata.shard` a notebook carries, as its agent's settings.

A notebook can say how its agent should work — `{"shard": {"model": "scripted/scripts/x.json",
"allow": [...], "deny": [...], "mode": "plan", "headless_policy": "deny"}}`. The one reader of
it, for the gateway's adoption of a notebook's kernel (adoption.py) and for a kernel that finds
its notebook itself (own_notebook.py: nbclient, papermill, `jupyter execute`, a server without
Shard's extension); its agent works in the notebook's folder. A scripted model there is the
notebook's *offline* answer: it applies only when no model is configured (a provider key or a
config `model`: the same notebook then runs on that model), and a relative script path is the
notebook's folder's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from shard_core.engine.config import load_config
from shard_core.protocol.orchestrator import PermissionConfig
from shard_core.providers.models import NO_MODEL, resolve_default_model
from shard_core.types.errors import ConfigError

MODES = ("build", "plan")
POLICIES = ("deny", "allow_if_rule_matches", "queue")
SCRIPTED = "scripted/"
MAX_BYTES = 20 * 1024 * 1024  # past this a notebook is not worth reading for a few settings


def notebook_settings(path: Path, env: Mapping[str, str], log: Any) -> dict[str, Any]:
    """Manifest fields from the notebook at `path` (nothing when it has none or is unreadable)."""
    meta = _shard_metadata(path)
    if not meta:
        return {}
    # a notebook that describes its agent is self-contained: it works where the notebook is,
    # which is also what its relative paths (a script, the prompts' files) are relative to
    settings: dict[str, Any] = {"cwd": str(path.parent.resolve())}
    model = _model(meta.get("model"), path.parent, env, log)
    if model is not None:
        settings["model"] = model
    if meta.get("mode") in MODES:
        settings["mode"] = meta["mode"]
    if meta.get("headless_policy") in POLICIES:
        settings["headless_policy"] = meta["headless_policy"]
    allow, deny = _rules(meta.get("allow")), _rules(meta.get("deny"))
    if allow or deny:
        settings["permissions"] = PermissionConfig(allow=allow, deny=deny)
    return settings


def read_notebook(path: Path) -> dict[str, Any]:
    """The notebook document at `path` as JSON ({} when it is missing, too big or not JSON)."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_BYTES:
            return {}
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # a notebook being written, or not JSON: it simply says nothing
    return document if isinstance(document, dict) else {}


def shard_metadata(document: Mapping[str, Any]) -> dict[str, Any]:
    metadata = document.get("metadata")
    shard = metadata.get("shard") if isinstance(metadata, dict) else None
    return shard if isinstance(shard, dict) else {}


def _shard_metadata(path: Path) -> dict[str, Any]:
    return shard_metadata(read_notebook(path))


def _model(value: object, folder: Path, env: Mapping[str, str], log: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    model = value.strip()
    if not model.startswith(SCRIPTED):
        return model
    if _has_key(env, log):
        return None  # the notebook's scripted replies stand in for a model only offline
    script = model[len(SCRIPTED) :]
    local = folder / script
    if not Path(script).is_absolute() and local.is_file():
        return f"{SCRIPTED}{local.resolve()}"
    return model  # a bundled script ("scripted/demo") or an absolute path


def _has_key(env: Mapping[str, str], log: Any) -> bool:
    """A model is configured: a provider key or config `model` (a `KERNEL_SHARD_MODEL` of the
    server or the runner is a default for every notebook: the notebook's own model is more
    specific)."""
    from shard_kernel.registrations import provider_specs  # runs extensions: when asked

    try:
        config = load_config()
    except ConfigError as exc:
        log.warning("shard: %s", exc)
        return False
    model, demo = resolve_default_model(config, {**os.environ, **env}, provider_specs())
    return model != NO_MODEL and not demo


def _rules(value: object) -> list[str]:
    if not isinstance(value, list):
        return []
    return [rule.strip() for rule in value if isinstance(rule, str) and rule.strip()]
