"""SessionConfig: what an agent's session is set up with, fixed for its life (the session and
each step of its turns read it)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from shard_core.contracts.codeintel import CodeIntelligenceProvider
from shard_core.contracts.tool import HostFiles
from shard_core.engine.retry import RetryPolicy
from shard_core.types.secrets import KnownSecrets
from shard_core.types.usage import Price


@dataclass
class SessionConfig:
    agent_id: str
    cwd: Path
    roots: Sequence[Path]
    mode: str = "build"
    max_steps: int = 200
    compact_threshold: float = 0.8
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    demo: bool = False
    secrets: KnownSecrets = field(default_factory=lambda: KnownSecrets.from_environment(os.environ))
    """values replaced by `[secret]` in tool results before they are logged or broadcast"""
    code_index: CodeIntelligenceProvider | None = None
    """the code intelligence an extension registered, handed to tools as `ctx.code_index`"""
    files: HostFiles | None = None
    """the editor's view of text files (an ACP host's), handed to tools as `ctx.files`"""
    max_tokens: int = 8192
    temperature: float | None = None
    usage_log: Path | None = None
    """SHARD_HOME/usage.jsonl: one record per provider request (None: not recorded)"""
    model_titles: bool = False
    """config `titles.model`: after the first turn, the provider writes the title"""
    price: Price | None = None
    """the model's price (its provider spec's family, config first): each reply is costed at
    it, whether or not the provider priced it (the same sum when it did)"""
    max_stop_continuations: int = 5
    """how often a Stop hook may keep one turn going before the turn ends anyway"""
    parent_agent_id: str | None = None
    """the agent that launched this one (a subagent's Stop hooks are SubagentStop)"""
