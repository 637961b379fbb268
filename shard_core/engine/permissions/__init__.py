"""Permission gate: rules, rule sources, grants, pending asks, the headless policy and the gate.

parse_rule / Rule        rules.py        one rule string, parsed and matched
RuleSet / load_rules     sources.py      rules from config, rule files and flags
GrantStore               grants.py       per-agent "allow always" rules on disk
explain / Explanation    explain.py      the layered decision for one call, as data
PendingRequests          pending.py      open asks; first valid answer wins
headless_answer          headless.py     who answers when no one can
RuleGate                 gate.py         the PermissionGate implementation
analyze                  shell.py        a bash command as the simple commands it runs
judge_bash               shell_policy.py a bash call judged part by part (commands, reads, writes)
rule_forms               command_forms.py  argv forms rules see (global options, find -delete)
is_read_only_command     readonly.py     the read-only allowlist, on what bash will pass
expand_word              reach.py        globs expanded against the workspace, followed trees
"""

from shard_core.engine.permissions.explain import Explanation, Part, explain
from shard_core.engine.permissions.gate import Recorder, RuleGate
from shard_core.engine.permissions.grants import Grant, GrantStore
from shard_core.engine.permissions.headless import HEADLESS_POLICIES, HeadlessPolicy
from shard_core.engine.permissions.pending import PendingRequests, RespondResult
from shard_core.engine.permissions.rules import Rule, parse_rule
from shard_core.engine.permissions.sources import RuleSet, SourcedRule, load_rules

__all__ = [
    "HEADLESS_POLICIES",
    "Explanation",
    "Grant",
    "GrantStore",
    "HeadlessPolicy",
    "Part",
    "PendingRequests",
    "Recorder",
    "RespondResult",
    "Rule",
    "RuleGate",
    "RuleSet",
    "SourcedRule",
    "explain",
    "load_rules",
    "parse_rule",
]
