"""`WebFetch(domain:…)` rules: a URL tool (`DomainAccess`) is judged by its URL's host — exact
hosts, `*.host` for subdomains, deny over allow, asked by default with the domain rule as the
"always allow" suggestion — and a third party's tool that declares the same shape gets the
same rules as web_fetch."""

from __future__ import annotations

from typing import Any

import pytest

from shard_core.capabilities.web import declare_web_tools
from shard_core.contracts import DomainAccess, ExtensionApi, ToolContext
from shard_core.engine.extension_host import ExtensionHost
from shard_core.engine.permissions import GrantStore, RuleGate, RuleSet, parse_rule
from shard_core.types import ToolResult
from shard_core.types.errors import ConfigError
from tests.unit.engine.permissions._support import Log, rules

declare_web_tools()


class BrowseTool:
    """A third party's URL tool: the host of `address` is what the gate judges."""

    name = "browse"
    description = "Open a page in a headless browser."
    input_schema: dict[str, Any] = {"type": "object", "properties": {"address": {}}}
    read_only = True
    access = DomainAccess(arg="address")

    async def execute(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult.ok("opened")


def _register(api: ExtensionApi) -> None:
    api.register_tool(BrowseTool())


@pytest.fixture
async def host() -> ExtensionHost:
    host = ExtensionHost()
    await host.install("third.party.browse", _register)
    return host


def _gate(ruleset: RuleSet, host: ExtensionHost | None = None) -> RuleGate:
    tools = host.snapshot.tools.get if host else None
    return RuleGate(rules=ruleset, grants=GrantStore("agent-1"), record=Log().record, tools=tools)


@pytest.mark.parametrize(
    ("ruleset", "url", "decision"),
    [
        ((), "https://docs.python.org/3/", "ask"),
        ((("allow", "WebFetch(domain:docs.python.org)"),), "https://docs.python.org/3/", "allow"),
        ((("allow", "WebFetch(domain:docs.python.org)"),), "https://DOCS.python.org./x", "allow"),
        ((("allow", "WebFetch(domain:docs.python.org)"),), "http://docs.python.org:8080/", "allow"),
        ((("allow", "WebFetch(domain:docs.python.org)"),), "https://python.org/", "ask"),
        ((("allow", "WebFetch(domain:docs.python.org)"),), "https://a.docs.python.org/", "ask"),
        ((("allow", "WebFetch(domain:python.org)"),), "https://docs.python.org/", "ask"),
        ((("allow", "WebFetch(domain:*.python.org)"),), "https://docs.python.org/", "allow"),
        ((("allow", "WebFetch(domain:*.python.org)"),), "https://a.b.python.org/", "allow"),
        ((("allow", "WebFetch(domain:*.python.org)"),), "https://python.org/", "ask"),
        ((("allow", "WebFetch(domain:*.python.org)"),), "https://evilpython.org/", "ask"),
        ((("allow", "WebFetch(domain:[::1])"),), "http://[::1]:8888/api", "allow"),
        ((("allow", "WebFetch"),), "https://anything.example/", "allow"),
        (
            (
                ("allow", "WebFetch(domain:*.python.org)"),
                ("deny", "WebFetch(domain:bugs.python.org)"),
            ),
            "https://bugs.python.org/issue1",
            "deny",
        ),
        (
            (("allow", "WebFetch"), ("deny", "WebFetch(domain:*.evil.test)")),
            "http://a.evil.test/",
            "deny",
        ),
        ((("allow", "WebFetch"), ("ask", "WebFetch(domain:x.test)")), "http://x.test/", "ask"),
        ((("allow", "WebFetch(domain:docs.python.org)"),), "not a url", "ask"),
    ],
)
def test_domain_rules_match_the_urls_host(query, ruleset, url, decision) -> None:
    texts = {kind: [t for k, t in ruleset if k == kind] for kind in ("allow", "ask", "deny")}
    gate = _gate(RuleSet.parse("test", **texts))

    assert gate.explain(query("web_fetch", read_only=False, url=url)).decision == decision


def test_an_ask_suggests_the_domain_rule_and_it_allows_the_call_next_time(query) -> None:
    call = query("web_fetch", read_only=False, url="https://Docs.Python.org/3/library/")

    found = _gate(rules()).explain(call)
    again = _gate(rules(allow=(str(found.suggested_rule),))).explain(call)

    assert (found.decision, found.ask) == ("ask", "unruled")
    assert found.suggested_rule == "WebFetch(domain:docs.python.org)"
    assert "web_fetch docs.python.org" in found.reason
    assert (again.decision, again.rule) == ("allow", "WebFetch(domain:docs.python.org)")


def test_a_url_without_a_host_is_asked_with_no_suggestion(query) -> None:
    found = _gate(rules(allow=("WebFetch(domain:x.test)",))).explain(
        query("web_fetch", read_only=False, url="file:///etc/passwd")
    )

    assert (found.decision, found.ask, found.suggested_rule) == ("ask", "unclear", None)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("WebFetch(docs.python.org)", "expected domain:<host>"),
        ("WebFetch(domain:)", "empty host"),
        ("WebFetch(domain:https://docs.python.org/)", "is not a host name"),
        ("WebFetch(domain:docs.python.org:443)", "is not a host name"),
        ("WebFetch(domain:docs.*.org)", r"write \*\.host for the subdomains"),
    ],
)
def test_bad_domain_rules_say_what_is_wrong(text, problem) -> None:
    with pytest.raises(ConfigError, match=problem):
        parse_rule(text)


def test_web_search_takes_a_bare_rule(query) -> None:
    gate = _gate(rules(allow=("WebSearch",)))

    assert gate.explain(query("web_search", read_only=False, query="pyte")).decision == "allow"
    assert _gate(rules()).explain(query("web_search", read_only=False, query="x")).decision == "ask"


@pytest.mark.parametrize(
    ("allow", "deny", "url", "decision"),
    [
        ((), (), "https://docs.python.org/", "ask"),  # read-only, yet asked: it reaches the net
        (("WebFetch(domain:docs.python.org)",), (), "https://docs.python.org/", "allow"),
        (("Browse(domain:*.python.org)",), (), "https://docs.python.org/", "allow"),
        (("WebFetch",), ("WebFetch(domain:docs.python.org)",), "https://docs.python.org/", "deny"),
        (("Read(**)", "Bash"), (), "https://docs.python.org/", "ask"),  # other families do not
    ],
)
def test_a_third_party_url_tool_gets_the_same_rules(
    host, query, allow, deny, url, decision
) -> None:
    gate = _gate(rules(allow=allow, deny=deny), host)

    found = gate.explain(query("browse", read_only=True, address=url))

    assert found.decision == decision
    if decision == "ask":
        assert found.suggested_rule == "Browse(domain:docs.python.org)"


def test_own_rules_of_a_url_tool_cover_only_it(host, query) -> None:
    gate = _gate(rules(allow=("Browse(domain:docs.python.org)",)), host)

    url = "https://docs.python.org/"
    assert gate.explain(query("browse", read_only=True, address=url)).decision == "allow"
    assert gate.explain(query("web_fetch", read_only=False, url=url)).decision == "ask"
