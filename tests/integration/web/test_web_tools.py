"""web_fetch and web_search against real local HTTP servers: Markdown out of HTML, PDFs,
redirects re-checked, caps on size and time, the address guard (no private address unless
named), the domain policy, the per-session cache, the offline provider and a fake search API
in Brave's wire format — every failure a clear tool error."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from shard_core.capabilities.web.tools import WebFetchTool
from shard_core.contracts import ExtensionApi, Tool, ToolContext
from shard_core.contracts.web import FetchedPage, FetchLimits, SearchHit, SearchRequest
from shard_core.engine.config import ShardConfig
from shard_core.sdk import Agent, create_agent
from shard_core.types import ToolResult
from tests.integration.web.servers import (
    PAGE,
    Server,
    big,
    brave_api,
    minimal_pdf,
    redirect,
    searxng_api,
    send,
    serve,
    slow,
    tavily_api,
)

PDF = "application/pdf"
FILLER = "Nothing about it here, only filler words about weather and trains."
LONG = "\n\n".join(
    [FILLER] * 600 + ["The warranty covers the hinge for two years."] + [FILLER] * 600
).encode()
"""a page of ~80,000 characters in paragraphs, one of them about the warranty"""
ONE_BLOCK = "\n".join(
    [FILLER] * 600 + ["The warranty covers the hinge for two years."] + [FILLER] * 600
).encode()
"""the same text with no blank line: one paragraph far longer than the page's budget"""


def _fails(result: ToolResult, phrase: str) -> None:
    assert result.is_error, result.text
    assert phrase in result.text


def _config(**web: object) -> ShardConfig:
    return ShardConfig.model_validate({"web": web})


async def _agent(tmp_path: Path, config: ShardConfig, env: dict[str, str] | None = None) -> Agent:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return await create_agent(cwd=workspace, model="scripted/demo", home=tmp_path / "home",
                              env=env or {}, config=config)  # fmt: skip


async def _call(agent: Agent, name: str, **input: object) -> ToolResult:
    tool = agent.session.tools.get(name)
    assert isinstance(tool, Tool), f"no tool {name}"
    cwd = Path(agent.session.config.cwd)
    ctx = ToolContext(cwd=cwd, roots=[cwd], agent_id="a", session_id="s", call_id="c")
    return await tool.execute(dict(input), ctx)


@pytest.fixture
def site() -> Iterator[tuple[Server, Server]]:
    """Two servers: the page server (allowed by host:port) and another port (never allowed)."""
    with serve({"/page": lambda h: send(h, 200, b"other", "text/plain")}) as other:
        routes = {
            "/page": lambda h: send(h, 200, PAGE, "text/html; charset=utf-8"),
            "/moved": redirect("/page"),
            "/loop-a": redirect("/loop-b"),
            "/loop-b": redirect("/loop-a"),
            "/to-other-port": redirect(f"{other.url}/page"),
            "/to-localhost": redirect(f"http://localhost:{other.port}/page"),
            "/big": big(20_000_000, declared=True),
            "/big-undeclared": big(20_000_000, declared=False),
            "/huge": big(50_000_000, declared=False),
            "/slow": slow,
            "/manual.pdf": lambda h: send(h, 200, minimal_pdf("Hello from the PDF"), PDF),
            "/logo.png": lambda h: send(h, 200, b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "image/png"),
            "/gone": lambda h: send(h, 404, b"<html><title>Gone</title></html>", "text/html"),
            "/%C3%A9t%C3%A9%20ici": lambda h: send(h, 200, b"summer page", "text/plain"),
            "/to-accented": redirect("/\u00e9t\u00e9 ici"),
            "/bad-location": redirect("http://[::1/x"),
            "/long": lambda h: send(h, 200, LONG, "text/plain; charset=utf-8"),
            "/one-block": lambda h: send(h, 200, ONE_BLOCK, "text/plain; charset=utf-8"),
        }  # fmt: skip
        with serve(routes) as main:
            yield main, other


async def test_a_page_becomes_markdown_without_scripts_or_chrome(tmp_path, site) -> None:
    main, _ = site
    agent = await _agent(tmp_path, _config(allowed_domains=[f"127.0.0.1:{main.port}"]))
    try:
        result = await _call(agent, "web_fetch", url=f"{main.url}/page")
        again = await _call(agent, "web_fetch", url=f"{main.url}/page")
    finally:
        await agent.close()
    assert not result.is_error, result.text
    assert "# Gadget manual" in result.text
    assert "The gadget's **reset button** is under the lid." in result.text
    assert "- first step" in result.text
    assert "[more](https://example.org/more)" in result.text
    for chrome in ("SCRIPT-TEXT", "NAV-LINKS", "FOOTER-TEXT", "color:red"):
        assert chrome not in result.text
    assert result.details["title"] == "Gadget manual"
    assert again.text == result.text
    assert main.count("/page") == 1, "the second fetch of the URL comes from the session's cache"
    hit_headers = main.hits[0][1]
    assert hit_headers["user-agent"].startswith("Shard-web_fetch")


async def test_the_sandboxs_network_false_is_for_commands_not_the_web_tools(tmp_path, site) -> None:
    main, _ = site
    config = ShardConfig.model_validate({
        "sandbox": {"mode": "required", "network": False},
        "web": {"allowed_domains": [f"127.0.0.1:{main.port}"]},
    })  # fmt: skip
    agent = await _agent(tmp_path, config)
    probe = f"import urllib.request as u; print(u.urlopen('{main.url}/page', timeout=5).status)"
    try:
        fetched = await _call(agent, "web_fetch", url=f"{main.url}/page")
        command = await _call(agent, "bash", command=f'python3 -c "{probe}"')
    finally:
        await agent.close()
    assert not fetched.is_error, fetched.text
    assert "reset button" in fetched.text
    assert command.details["sandbox"] == "bwrap"
    assert "exit code 1" in command.text, "the sandboxed command has no network"
    assert "200" not in command.text.splitlines()
    assert main.count("/page") == 1, "only web_fetch reached the server"


async def test_redirects_are_followed_and_each_hop_is_checked_again(tmp_path, site) -> None:
    main, other = site
    agent = await _agent(tmp_path, _config(allowed_domains=[f"127.0.0.1:{main.port}"]))
    try:
        moved = await _call(agent, "web_fetch", url=f"{main.url}/moved")
        other_port = await _call(agent, "web_fetch", url=f"{main.url}/to-other-port")
        to_localhost = await _call(agent, "web_fetch", url=f"{main.url}/to-localhost")
        loop = await _call(agent, "web_fetch", url=f"{main.url}/loop-a")
    finally:
        await agent.close()
    assert not moved.is_error
    assert "redirected from" in moved.text
    assert moved.details["final_url"] == f"{main.url}/page"
    _fails(other_port, "not in web.allowed_domains")
    _fails(to_localhost, "localhost is not in web.allowed_domains")
    assert other.count("/page") == 0, "the refused redirect never reached the other server"
    _fails(loop, "redirect loop")


async def test_a_url_with_spaces_or_accents_is_sent_encoded(tmp_path, site) -> None:
    main, _ = site
    agent = await _agent(tmp_path, _config(allowed_domains=[f"127.0.0.1:{main.port}"]))
    try:
        accented = await _call(agent, "web_fetch", url=f"{main.url}/\u00e9t\u00e9 ici")
        redirected = await _call(agent, "web_fetch", url=f"{main.url}/to-accented")
        bad = await _call(agent, "web_fetch", url=f"{main.url}/bad-location")
        after = await _call(agent, "web_fetch", url=f"{main.url}/page")
    finally:
        await agent.close()
    assert not accented.is_error, accented.text
    assert "summer page" in accented.text
    assert not redirected.is_error, redirected.text
    assert "summer page" in redirected.text
    assert main.count("/%C3%A9t%C3%A9%20ici") == 2, "sent as UTF-8 escapes, as a browser does"
    _fails(bad, "redirect 302 to 'http://[::1/x', which is not a URL")
    assert not after.is_error


async def test_private_addresses_are_refused_unless_named(tmp_path, site) -> None:
    main, other = site
    agent = await _agent(tmp_path, _config())  # no allowed_domains: the whole public web
    try:
        literal = await _call(agent, "web_fetch", url=f"{main.url}/page")
        by_name = await _call(agent, "web_fetch", url=f"http://localhost:{other.port}/page")
        metadata = await _call(agent, "web_fetch", url="http://169.254.169.254/latest/meta-data/")
        mapped = await _call(agent, "web_fetch", url=f"http://[::ffff:127.0.0.1]:{main.port}/page")
    finally:
        await agent.close()
    _fails(literal, "private or local address")
    _fails(by_name, "localhost resolves to 127.0.0.1")
    _fails(metadata, "169.254.169.254")
    _fails(mapped, "private or local")
    assert main.count("/page") == 0
    assert other.count("/page") == 0


async def test_size_time_and_type_limits_are_clear_errors(tmp_path, site) -> None:
    main, _ = site
    config = _config(allowed_domains=[f"127.0.0.1:{main.port}"], fetch={"timeout": 1.5})
    agent = await _agent(tmp_path, config)
    try:
        declared = await _call(agent, "web_fetch", url=f"{main.url}/big")
        undeclared = await _call(agent, "web_fetch", url=f"{main.url}/big-undeclared")
        huge = await _call(agent, "web_fetch", url=f"{main.url}/huge")
        slow_body = await _call(agent, "web_fetch", url=f"{main.url}/slow")
        png = await _call(agent, "web_fetch", url=f"{main.url}/logo.png")
        gone = await _call(agent, "web_fetch", url=f"{main.url}/gone")
        after = await _call(agent, "web_fetch", url=f"{main.url}/page")
    finally:
        await agent.close()
    _fails(declared, "20 MB, over the 10 MB limit")
    _fails(undeclared, "over the 10 MB limit")
    _fails(huge, "over the 10 MB limit")  # a 50 MB page, its size not said: read up to the cap
    _fails(slow_body, "within 1.5 s")
    _fails(png, "image/png")
    _fails(png, "not text")
    _fails(gone, "HTTP 404")
    assert not after.is_error, "the agent and the server carry on after every failure"


async def test_bad_urls_and_the_domain_policy(tmp_path, site) -> None:
    main, _ = site
    config = _config(allowed_domains=[f"127.0.0.1:{main.port}", "docs.example.com"],
                     denied_domains=["evil.example.com"])  # fmt: skip
    agent = await _agent(tmp_path, config)
    try:
        results = {
            url: await _call(agent, "web_fetch", url=url)
            for url in ("file:///etc/passwd", "ftp://example.com/x", "not a url", "https://",
                        "https://user:pw@docs.example.com/", "https://elsewhere.org/",
                        "https://evil.example.com/")
        }  # fmt: skip
        missing = await _call(agent, "web_fetch")
        offset = await _call(agent, "web_fetch", url=f"{main.url}/page", offset=10**9)
    finally:
        await agent.close()
    assert "only http and https" in results["file:///etc/passwd"].text
    assert "only http and https" in results["ftp://example.com/x"].text
    assert "only http and https" in results["not a url"].text
    assert "names no host" in results["https://"].text
    assert "user name or password" in results["https://user:pw@docs.example.com/"].text
    assert "not in web.allowed_domains" in results["https://elsewhere.org/"].text
    assert "denied by web.denied_domains" in results["https://evil.example.com/"].text
    assert all(r.is_error for r in results.values())
    _fails(missing, "`url`")
    _fails(offset, "past the page's end")


async def test_a_prompt_cuts_a_long_page_to_its_relevant_parts(tmp_path, site) -> None:
    main, _ = site
    config = _config(allowed_domains=[f"127.0.0.1:{main.port}"], fetch={"max_chars": 2_000})
    agent = await _agent(tmp_path, config)
    try:
        long = await _call(agent, "web_fetch", url=f"{main.url}/long", prompt="warranty hinge")
        block = await _call(agent, "web_fetch", url=f"{main.url}/one-block",
                            prompt="warranty hinge")  # fmt: skip
        plain = await _call(agent, "web_fetch", url=f"{main.url}/long")
    finally:
        await agent.close()
    for result in (long, block):
        assert not result.is_error, result.text
        assert "The warranty covers the hinge for two years." in result.text, result.text[:500]
        assert "most relevant to: warranty hinge" in result.text
        assert len(result.text) < 3_000, "the budget holds"
    assert "warranty" not in plain.text, "without a prompt the page is read from its start"
    assert "call again with offset=" in plain.text


async def test_the_sessions_cache_is_bounded_and_drops_its_oldest_pages(tmp_path, site) -> None:
    main, _ = site
    agent = await _agent(tmp_path, _config(allowed_domains=[f"127.0.0.1:{main.port}"]))
    tool = agent.session.tools.get("web_fetch")
    assert isinstance(tool, WebFetchTool)
    tool.cache_chars = 100_000  # the long page (~80,000) and the gadget page fit, not twice
    try:
        for path in ("/page", "/long", "/page", "/one-block", "/long", "/page"):
            assert not (await _call(agent, "web_fetch", url=f"{main.url}{path}")).is_error
        tool.cache_chars = 1_000  # smaller than the long page: it is fetched, never kept
        for _ in range(2):
            assert not (await _call(agent, "web_fetch", url=f"{main.url}/one-block")).is_error
    finally:
        await agent.close()
    assert main.count("/page") == 2, "kept until the one-block page pushed it out"
    assert main.count("/long") == 2, "pushed out by the one-block page, fetched again"
    assert main.count("/one-block") == 3


async def test_a_pdf_is_read_as_text(tmp_path, site) -> None:
    main, _ = site
    agent = await _agent(tmp_path, _config(allowed_domains=[f"127.0.0.1:{main.port}"]))
    try:
        result = await _call(agent, "web_fetch", url=f"{main.url}/manual.pdf")
    finally:
        await agent.close()
    assert not result.is_error, result.text
    assert "[page 1]" in result.text
    assert "Hello from the PDF" in result.text


async def test_offline_search_over_a_folder(tmp_path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "reset.md").write_text("# Resetting the gadget\n\nHold the reset button for 5 s.\n")
    (docs / "colors.txt").write_text("The gadget comes in blue and green.\n")
    (docs / "page.html").write_text("<html><title>Warranty</title><p>Two years.</p></html>")
    (docs / "image.png").write_bytes(b"\x89PNG reset")
    agent = await _agent(tmp_path, _config(search={"provider": "offline", "folder": str(docs)}))
    try:
        found = await _call(agent, "web_search", query="reset button")
        warranty = await _call(agent, "web_search", query="years")
        none = await _call(agent, "web_search", query="zeppelin")
        empty = await _call(agent, "web_search", query="  ")
        (docs / "airship.md").write_text("# Airships\n\nA zeppelin is a rigid airship.\n")
        (docs / "colors.txt").unlink()
        added = await _call(agent, "web_search", query="zeppelin")
        removed = await _call(agent, "web_search", query="green")
    finally:
        await agent.close()
    assert not found.is_error, found.text
    assert "1. Resetting the gadget — file://" in found.text
    assert "reset.md" in found.text
    assert "image.png" not in found.text
    assert "Warranty" in warranty.text
    assert "no results" in none.text
    assert empty.is_error
    assert "1. Airships — file://" in added.text, "a document added since is found"
    assert "no results" in removed.text, "a removed one is gone"


async def test_brave_wire_format_through_a_named_credential(tmp_path) -> None:
    received: list[dict[str, object]] = []
    with serve({"/res/v1/web/search": brave_api(received)}) as api:
        config = ShardConfig.model_validate({
            "credentials": {"brave": {"env": "MY_BRAVE"}},
            "web": {"search": {"provider": "brave", "credential": "brave",
                               "url": f"{api.url}/res/v1/web/search"}},
        })  # fmt: skip
        agent = await _agent(tmp_path, config, env={"MY_BRAVE": "brave-test-key"})
        wrong = await _agent(tmp_path, config, env={"MY_BRAVE": "not-the-key"})
        unset = await _agent(tmp_path, config, env={})
        try:
            hits = await _call(agent, "web_search", query="gadget reset", domains=["example.com"])
            refused = await _call(wrong, "web_search", query="gadget reset")
            no_key = await _call(unset, "web_search", query="gadget reset")
        finally:
            for a in (agent, wrong, unset):
                await a.close()
    assert not hits.is_error, hits.text
    assert "Reset the gadget — https://docs.example.com/reset" in hits.text
    assert "Press the reset button for 5 s." in hits.text, "Brave's <strong> marks are dropped"
    assert "forum.other.net" not in hits.text, "results outside `domains` are dropped"
    assert received[0] == {"q": "gadget reset (site:example.com)", "count": ["8"],
                           "token": "brave-test-key"}  # fmt: skip
    _fails(refused, "API key was refused (HTTP 401)")
    _fails(no_key, "MY_BRAVE is not set")


async def test_search_results_outside_the_domain_policy_are_dropped(tmp_path) -> None:
    with serve({"/res/v1/web/search": brave_api([])}) as api:
        search = {"provider": "brave", "url": f"{api.url}/res/v1/web/search"}
        env = {"BRAVE_API_KEY": "brave-test-key"}
        denied = await _agent(tmp_path, _config(search=search, denied_domains=["other.net"]), env)
        allowed = await _agent(tmp_path, _config(search=search, allowed_domains=["other.net"]),
                               env)  # fmt: skip
        try:
            without_denied = await _call(denied, "web_search", query="gadget")
            only_allowed = await _call(allowed, "web_search", query="gadget")
        finally:
            await denied.close()
            await allowed.close()
    assert "https://docs.example.com/reset" in without_denied.text, without_denied.text
    assert "forum.other.net" not in without_denied.text, "web.denied_domains drops the hit"
    assert without_denied.details["results"] == 1
    assert "https://forum.other.net/t/1" in only_allowed.text, only_allowed.text
    assert "docs.example.com" not in only_allowed.text, "outside web.allowed_domains: dropped"


async def test_web_search_exists_only_with_a_provider_and_unknown_ones_say_so(tmp_path) -> None:
    plain = await _agent(tmp_path, _config())
    unknown = await _agent(tmp_path, _config(search={"provider": "nosuch"}))
    try:
        assert plain.session.tools.get("web_search") is None
        assert plain.session.tools.get("web_fetch") is not None
        result = await _call(unknown, "web_search", query="x")
    finally:
        await plain.close()
        await unknown.close()
    _fails(result, "no search provider named 'nosuch'")
    assert "brave" in result.text
    assert "offline" in result.text


ACME_EXTENSION = """
from shard_core.contracts.web import SearchHit


class AcmeSearch:
    name = "acme"

    async def search(self, request):
        return [SearchHit(f"Acme on {request.query}", "https://acme.example/a", "from acme")]


def extension(api):
    api.register_search_provider(AcmeSearch())
"""


class _Catalog:
    """A third party's search provider, replacing the bundled offline one by its name."""

    name = "offline"

    async def search(self, request: SearchRequest) -> list[SearchHit]:
        return [SearchHit("Catalog hit", "https://catalog.example/x", request.query)]


class _Mirror:
    """A third party's fetcher: pages from a mirror it keeps, no network."""

    async def fetch(self, url: str, limits: FetchLimits) -> FetchedPage:
        body = b"<html><title>Mirrored</title><p>kept by the mirror</p></html>"
        return FetchedPage(url, url, 200, "text/html", body)


def _third_party(api: ExtensionApi) -> None:
    api.register_search_provider(_Catalog())
    api.register_web_fetcher(_Mirror())


async def test_a_third_partys_search_provider_and_fetcher_are_the_ones_used(tmp_path) -> None:
    home = tmp_path / "home"
    (home / "extensions").mkdir(parents=True)
    (home / "extensions" / "acme_search.py").write_text(ACME_EXTENSION)
    acme = await _agent(tmp_path, _config(search={"provider": "acme"}))
    workspace = tmp_path / "ws"
    caller = await create_agent(cwd=workspace, model="scripted/demo", home=home, env={},
                                config=_config(search={"provider": "offline"}),
                                extensions=[("catalog", _third_party)])  # fmt: skip
    try:
        found = await _call(acme, "web_search", query="anvils")
        catalog = await _call(caller, "web_search", query="anvils")
        # a public address literal (no DNS needed; the mirror never connects anywhere)
        mirrored = await _call(caller, "web_fetch", url="http://1.1.1.1/page")
        private = await _call(caller, "web_fetch", url="http://127.0.0.1:9/page")
        by_name = await _call(caller, "web_fetch", url="http://localhost:9/page")
    finally:
        await acme.close()
        await caller.close()
    assert not found.is_error, found.text
    assert "1. Acme on anvils — https://acme.example/a" in found.text
    assert found.details["provider"] == "acme"
    assert "Catalog hit — https://catalog.example/x" in catalog.text, catalog.text
    assert not mirrored.is_error, mirrored.text
    assert "kept by the mirror" in mirrored.text
    # the address guard holds whichever fetcher is registered
    _fails(private, "private or local address")
    _fails(by_name, "localhost resolves to 127.0.0.1")


async def test_tavily_and_searxng_wire_formats(tmp_path) -> None:
    tavily_seen: list[dict[str, object]] = []
    searxng_seen: list[dict[str, object]] = []
    with (
        serve({"/search": tavily_api(tavily_seen)}) as tavily,
        serve({"/search": searxng_api(searxng_seen)}) as searxng,
    ):
        tavily_agent = await _agent(
            tmp_path, _config(search={"provider": "tavily", "url": f"{tavily.url}/search"}),
            env={"TAVILY_API_KEY": "tvly-test-key"},
        )  # fmt: skip
        searxng_agent = await _agent(tmp_path, _config(search={"provider": "searxng",
                                                               "url": searxng.url}))  # fmt: skip
        try:
            care = await _call(tavily_agent, "web_search", query="gadget care",
                               domains=["example.com"], limit=3)  # fmt: skip
            wiki = await _call(searxng_agent, "web_search", query="gadget")
        finally:
            await tavily_agent.close()
            await searxng_agent.close()
    assert not care.is_error, care.text
    assert "1. Gadget reset & care — https://docs.example.com/care" in care.text
    assert "Hold reset for 5 s." in care.text
    assert tavily_seen == [{"method": "POST", "auth": "Bearer tvly-test-key",
                            "body": {"query": "gadget care", "max_results": 3,
                                     "include_domains": ["example.com"]}}]  # fmt: skip
    assert not wiki.is_error, wiki.text
    assert "1. Gadget - Wiki — https://wiki.example.org/Gadget" in wiki.text
    assert searxng_seen == [{"q": "gadget", "format": "json"}]


async def test_a_search_without_a_network_or_a_folder_says_so(tmp_path) -> None:
    with serve({}) as gone:
        closed_port = gone.url  # the server is stopped when the block ends: nothing listens
    brave = await _agent(
        tmp_path,
        _config(search={"provider": "brave", "url": f"{closed_port}/res/v1/web/search"}),
        env={"BRAVE_API_KEY": "k"},
    )
    no_folder = await _agent(tmp_path, _config(search={"provider": "offline"}))
    nowhere = {"provider": "offline", "folder": str(tmp_path / "nope")}
    missing = await _agent(tmp_path, _config(search=nowhere))
    try:
        unreachable = await _call(brave, "web_search", query="gadget")
        unset = await _call(no_folder, "web_search", query="gadget")
        absent = await _call(missing, "web_search", query="gadget")
        fetch_after = await _call(brave, "web_fetch", url="ftp://x")
    finally:
        for agent in (brave, no_folder, missing):
            await agent.close()
    _fails(unreachable, "brave: cannot reach")
    _fails(unset, "set web.search.folder")
    _fails(absent, "is not a folder")
    _fails(fetch_after, "only http and https")  # the agent carries on
