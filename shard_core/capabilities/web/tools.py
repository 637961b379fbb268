"""`web_fetch` and `web_search`: the web, read within the rules the person set.

Both run in the agent, not in bash's sandbox (its `network: false` is about commands); the
domain policy and the address guard apply instead, and the permission gate asks before each
call unless a rule says otherwise (`WebFetch(domain:docs.python.org)`, `WebSearch`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from shard_core.capabilities.web.convert import Page, to_text
from shard_core.capabilities.web.guard import DomainPolicy, resolve
from shard_core.contracts import ToolContext
from shard_core.contracts.access import DomainAccess, ToolAccess
from shard_core.contracts.web import (
    FetchLimits,
    SearchProvider,
    SearchRequest,
    WebError,
    WebFetcher,
)
from shard_core.types import JsonObject, ToolResult
from shard_core.types.render import KvDescriptor, KvPair, WebPageDescriptor

CACHE_SECONDS = 15 * 60
CACHE_CHARS = 40_000_000
"""characters of pages one agent's cache keeps (the oldest go first): four pages at the 10 MB cap"""
_WORD = re.compile(r"[\w-]{3,}")


@dataclass(frozen=True)
class _Cached:
    at: float
    final_url: str
    status: int
    page: Page
    redirects: tuple[str, ...]


def _passages(text: str, size: int) -> list[tuple[str, str]]:
    """The page as (separator before, passage): its paragraphs, one longer than `size` cut at
    its lines, a line longer than `size` cut every `size` characters, so a page of one block
    (a text file, a PDF's page) still has parts small enough to choose."""
    out: list[tuple[str, str]] = []
    for paragraph in (p for p in text.split("\n\n") if p.strip()):
        sep = "\n\n"
        lines = [paragraph] if len(paragraph) <= size else paragraph.split("\n")
        for line in lines:
            for start in range(0, max(len(line), 1), size):
                if line[start : start + size].strip():
                    out.append((sep, line[start : start + size]))
                    sep = "\n" if start + size >= len(line) else ""
    return out


def _relevant(text: str, prompt: str, budget: int) -> str:
    """The passages sharing most words with `prompt`, in page order, within `budget`."""
    wanted = {w.lower() for w in _WORD.findall(prompt)}
    passages = _passages(text, max(budget // 8, 100))
    scored = sorted(
        range(len(passages)),
        key=lambda i: -len(wanted & {w.lower() for w in _WORD.findall(passages[i][1])}),
    )
    chosen: set[int] = set()
    used = 0
    for index in scored:
        size = len(passages[index][1]) + 2
        if used + size > budget:
            continue
        chosen.add(index)
        used += size
    parts = [(passages[i][0] if i - 1 in chosen else "\n\n") + passages[i][1]
             for i in sorted(chosen)]  # fmt: skip
    return "".join(parts).lstrip("\n")


class WebFetchTool:
    name = "web_fetch"
    description = (
        "Fetch an http(s) page and read it as Markdown (HTML converted, PDF as text). "
        "`prompt`: what you are looking for — a long page is cut to its most relevant parts. "
        "`offset`: continue a long page from that character. Private and local addresses are "
        "refused; results are cached for 15 minutes in this session."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {
            "url": {"type": "string", "description": "an http:// or https:// URL"},
            "prompt": {"type": "string", "description": "what to look for in the page"},
            "offset": {"type": "integer", "minimum": 0, "description": "first character"},
        },
        "required": ["url"],
        "additionalProperties": False,
    }
    read_only = False
    kind = "fetch"
    access: ToolAccess = DomainAccess("url")  # `WebFetch(domain:docs.python.org)` rules

    def __init__(
        self,
        fetcher: Callable[[], WebFetcher],
        policy: DomainPolicy,
        limits: FetchLimits,
        max_chars: int,
    ) -> None:
        self._fetcher = fetcher
        self._policy = policy
        self._limits = limits
        self._max_chars = max_chars
        self._cache: dict[str, _Cached] = {}
        self.cache_chars = CACHE_CHARS

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        url = input.get("url")
        if not isinstance(url, str) or not url.strip():
            return ToolResult.error("web_fetch: `url` must be an http(s) URL")
        url = url.strip()
        offset = input.get("offset", 0)
        if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
            return ToolResult.error("web_fetch: `offset` must be a whole number ≥ 0")
        prompt = input.get("prompt")
        prompt = prompt.strip() if isinstance(prompt, str) else ""
        try:
            cached = await self._get(url)
        except WebError as exc:
            return ToolResult.error(f"web_fetch: {exc}", url=url)
        return self._result(url, cached, prompt, offset)

    async def _get(self, url: str) -> _Cached:
        hit = self._cache.get(url)
        if hit is not None and time.monotonic() - hit.at < CACHE_SECONDS:
            return hit
        target = self._policy.check(url)
        # checked here too, whichever fetcher is registered (the bundled one checks again
        # where it connects, and each redirect)
        await resolve(self._policy, target.host, target.port)
        fetched = await self._fetcher().fetch(url, self._limits)
        page = to_text(fetched)
        entry = _Cached(time.monotonic(), fetched.final_url, fetched.status, page,
                        tuple(fetched.redirects))  # fmt: skip
        self._keep(url, entry)
        return entry

    def _keep(self, url: str, entry: _Cached) -> None:
        """Cache `entry`, dropping expired pages and then the oldest until the cache's pages
        fit `cache_chars` (a page bigger than that is not kept)."""
        now = time.monotonic()
        for key in [k for k, v in self._cache.items() if now - v.at >= CACHE_SECONDS]:
            del self._cache[key]
        self._cache.pop(url, None)
        if len(entry.page.text) > self.cache_chars:
            return
        self._cache[url] = entry
        while sum(len(v.page.text) for v in self._cache.values()) > self.cache_chars:
            del self._cache[next(iter(self._cache))]

    def _result(self, url: str, cached: _Cached, prompt: str, offset: int) -> ToolResult:
        text, total = cached.page.text, len(cached.page.text)
        if offset >= total and total:
            return ToolResult.error(f"web_fetch: offset {offset} is past the page's end ({total})")
        if prompt and offset == 0 and total > self._max_chars:
            shown = _relevant(text, prompt, self._max_chars)
            note = f"[the parts of {total:,} characters most relevant to: {prompt}]"
        else:
            shown = text[offset : offset + self._max_chars]
            end = offset + len(shown)
            more = f"; call again with offset={end} for more" if end < total else ""
            note = f"[characters {offset:,} to {end:,} of {total:,}{more}]" if total else ""
        title = cached.page.title or cached.final_url
        header = [f"# {title}", f"{cached.final_url} · HTTP {cached.status} · {cached.page.kind}"]
        if cached.redirects:
            header.append(f"redirected from {url}")
        if cached.status >= 400:
            header.append(f"the server answered HTTP {cached.status}")
        body = "\n".join([*header, "", shown or "(empty page)", "", note]).rstrip()
        facts = {"url": cached.final_url, "title": title, "status": str(cached.status),
                 "size": f"{total:,} chars"}  # fmt: skip
        pairs = [KvPair(k=k, v=v) for k, v in facts.items() if k in ("status", "size")]
        card = [WebPageDescriptor(url=cached.final_url, title=title, text=shown[:4000]),
                KvDescriptor(pairs=pairs)]  # fmt: skip
        details = {"url": url, "final_url": cached.final_url, "status": cached.status,
                   "chars": total, "title": title}  # fmt: skip
        result = ToolResult.ok(body, *card, **details)
        result.is_error = cached.status >= 400
        return result


class WebSearchTool:
    name = "web_search"
    description = (
        "Search the web through the configured search provider. Returns titles, URLs and "
        "snippets; read a result with web_fetch. `domains`: only results from these sites."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "domains": {"type": "array", "items": {"type": "string"}},
            "limit": {"type": "integer", "minimum": 1, "maximum": 20},
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    read_only = False
    kind = "search"

    def __init__(
        self, provider: Callable[[], SearchProvider], policy: DomainPolicy, limit: int
    ) -> None:
        self._provider = provider
        self._policy = policy
        self._limit = limit

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        query = input.get("query")
        if not isinstance(query, str) or not query.strip():
            return ToolResult.error("web_search: `query` must be non-empty text")
        domains_in = input.get("domains", [])
        names = cast(list[object], domains_in) if isinstance(domains_in, list) else None
        if names is None or not all(isinstance(d, str) for d in names):
            return ToolResult.error("web_search: `domains` must be a list of host names")
        limit = input.get("limit", self._limit)
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 20:
            return ToolResult.error("web_search: `limit` must be between 1 and 20")
        domains = tuple(str(d).strip().lower() for d in names if str(d).strip())
        try:
            provider = self._provider()
            hits = await provider.search(SearchRequest(query.strip(), domains, limit))
        except WebError as exc:
            return ToolResult.error(f"web_search: {exc}")
        kept = [h for h in hits if self._allowed(h.url)]
        if not kept:
            return ToolResult.ok(f"no results for {query!r} ({provider.name})", results=0)
        lines = [f"{i}. {h.title} — {h.url}" + (f"\n   {h.snippet}" if h.snippet else "")
                 for i, h in enumerate(kept, 1)]  # fmt: skip
        text = f"{len(kept)} results for {query!r} ({provider.name}):\n" + "\n".join(lines)
        cards = [WebPageDescriptor(url=h.url, title=h.title, text=h.snippet) for h in kept]
        return ToolResult.ok(text, *cards, results=len(kept), provider=provider.name)

    def _allowed(self, url: str) -> bool:
        if url.startswith("file:"):
            return True
        try:
            self._policy.check(url)
        except WebError:
            return False
        return True
