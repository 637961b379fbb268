"""The bundled search providers: Brave, Tavily, SearXNG, and an offline folder of documents.

The three services are asked over their public JSON APIs with a key from a named credential
(`web.search.credential`, else the service's usual variable: BRAVE_API_KEY, TAVILY_API_KEY);
`web.search.url` points a provider at another base URL (a SearXNG instance, a proxy, a test
server). The offline provider indexes a local folder (`web.search.folder`: Markdown, text,
reStructuredText and HTML files) with SQLite's FTS5 at the first query, and again at a query
after a document was added, changed or removed, for Binder, tests and air-gapped sites. Each is
registered with `register_search_provider` like an extension's.
"""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from shard_core.contracts.web import SearchHit, SearchRequest, WebError

if TYPE_CHECKING:
    import sqlite3

KeySource = Callable[[], str]
"""Returns the API key, or raises WebError saying where it should be."""
_TIMEOUT = 20.0
_TAGS = re.compile(r"<[^>]{0,200}>")


def _plain(text: str) -> str:
    """A title or snippet as text: services mark the matched words (`<strong>reset</strong>`)
    and escape entities (`&amp;`, `&#x27;`)."""
    return " ".join(html.unescape(_TAGS.sub("", text)).split())


def _in_domains(url: str, domains: Sequence[str]) -> bool:
    from urllib.parse import urlsplit

    host = (urlsplit(url).hostname or "").lower()
    return not domains or any(host == d or host.endswith("." + d) for d in domains)


def _site_query(request: SearchRequest) -> str:
    if not request.domains:
        return request.query
    sites = " OR ".join(f"site:{d}" for d in request.domains)
    return f"{request.query} ({sites})"


async def _json(method: str, url: str, *, service: str, **kwargs: Any) -> Any:
    import httpx2

    try:
        async with httpx2.AsyncClient(timeout=_TIMEOUT, trust_env=False) as client:
            response = await client.request(method, url, **kwargs)
    except httpx2.HTTPError as exc:
        raise WebError(f"{service}: cannot reach {url} ({type(exc).__name__}: {exc})") from None
    if response.status_code in (401, 403):
        raise WebError(f"{service}: the API key was refused (HTTP {response.status_code})")
    if response.status_code == 429:
        raise WebError(f"{service}: rate limited (HTTP 429); try again later")
    if response.status_code >= 400:
        raise WebError(f"{service}: HTTP {response.status_code}: {response.text[:300]}")
    try:
        return response.json()
    except ValueError:
        raise WebError(f"{service}: the answer is not JSON: {response.text[:200]!r}") from None


def _field(data: object, *keys: str) -> object:
    """`data[k1][k2]…` through JSON objects, None where a level is missing or not an object."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = cast(dict[str, object], data).get(key)
    return data


def _hits(items: object, snippet_key: str, request: SearchRequest) -> list[SearchHit]:
    hits: list[SearchHit] = []
    for item in cast(list[dict[str, Any]], items if isinstance(items, list) else []):
        url = str(item.get("url") or "")
        if not url or not _in_domains(url, request.domains):
            continue
        title = _plain(str(item.get("title") or "")) or url
        hits.append(SearchHit(title, url, _plain(str(item.get(snippet_key) or ""))))
    return hits[: request.limit]


class BraveSearch:
    name = "brave"
    URL = "https://api.search.brave.com/res/v1/web/search"

    def __init__(self, key: KeySource, url: str | None = None) -> None:
        self._key, self._url = key, url or self.URL

    async def search(self, request: SearchRequest) -> list[SearchHit]:
        data = await _json(
            "GET",
            self._url,
            service="brave",
            params={"q": _site_query(request), "count": min(request.limit, 20)},
            headers={"Accept": "application/json", "X-Subscription-Token": self._key()},
        )
        return _hits(_field(data, "web", "results"), "description", request)


class TavilySearch:
    name = "tavily"
    URL = "https://api.tavily.com/search"

    def __init__(self, key: KeySource, url: str | None = None) -> None:
        self._key, self._url = key, url or self.URL

    async def search(self, request: SearchRequest) -> list[SearchHit]:
        body: dict[str, Any] = {"query": request.query, "max_results": min(request.limit, 20)}
        if request.domains:
            body["include_domains"] = list(request.domains)
        data = await _json(
            "POST",
            self._url,
            service="tavily",
            json=body,
            headers={"Authorization": f"Bearer {self._key()}"},
        )
        return _hits(_field(data, "results"), "content", request)


class SearxngSearch:
    name = "searxng"

    def __init__(self, url: str | None) -> None:
        self._url = url

    async def search(self, request: SearchRequest) -> list[SearchHit]:
        if not self._url:
            raise WebError("searxng: set web.search.url to the instance (https://searx.example)")
        data = await _json(
            "GET",
            self._url.rstrip("/") + "/search",
            service="searxng",
            params={"q": _site_query(request), "format": "json"},
        )
        return _hits(_field(data, "results"), "content", request)


class OfflineSearch:
    """Full-text search over a folder of documents, indexed in memory at the first query and
    again when the folder's documents change."""

    name = "offline"
    SUFFIXES = frozenset({".md", ".markdown", ".txt", ".rst", ".html", ".htm"})
    MAX_FILES = 20_000
    MAX_BYTES = 2_000_000

    def __init__(self, folder: str | Path | None) -> None:
        self._folder = Path(folder).expanduser() if folder else None
        self._db: sqlite3.Connection | None = None
        self._seen: list[tuple[Path, int, int]] = []
        self.skipped = 0

    async def search(self, request: SearchRequest) -> list[SearchHit]:
        return await asyncio.to_thread(self._search, request)

    def _search(self, request: SearchRequest) -> list[SearchHit]:
        db = self._index()
        words = [w for w in "".join(c if c.isalnum() else " " for c in request.query).split()]
        if not words:
            raise WebError("web_search: the query has no words to look for")
        match = " OR ".join(f'"{w}"' for w in words)
        rows = db.execute(
            "SELECT title, path, snippet(docs, 2, '', '', ' … ', 24) FROM docs "
            "WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?",
            (match, request.limit),
        ).fetchall()
        return [SearchHit(t, Path(p).as_uri(), s) for t, p, s in rows]

    def _files(self, folder: Path) -> list[tuple[Path, int, int]]:
        """The folder's documents with their modification time and size, in path order."""
        found: list[tuple[Path, int, int]] = []
        for path in sorted(folder.rglob("*")):
            if path.suffix.lower() not in self.SUFFIXES or not path.is_file():
                continue
            stat = path.stat()
            found.append((path, stat.st_mtime_ns, stat.st_size))
        return found

    def _index(self) -> sqlite3.Connection:
        """The index of the folder as it is now: built again when a document was added,
        changed or removed since the last query (a walk of the folder's names and sizes)."""
        folder = self._folder
        if folder is None:
            raise WebError("offline search: set web.search.folder to a folder of documents")
        if not folder.is_dir():
            raise WebError(f"offline search: {folder} is not a folder")
        files = self._files(folder)
        if self._db is not None and files == self._seen:
            return self._db
        import sqlite3  # with the first offline search, not at boot

        db = sqlite3.connect(":memory:", check_same_thread=False)
        db.execute("CREATE VIRTUAL TABLE docs USING fts5(title, path UNINDEXED, body)")
        count, self.skipped = 0, 0
        for path, _mtime, size in files:
            if count >= self.MAX_FILES or size > self.MAX_BYTES:
                self.skipped += 1
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            title = path.stem
            if path.suffix.lower() in (".html", ".htm"):
                from shard_core.capabilities.web.convert import html_to_markdown

                page = html_to_markdown(text)
                text, title = page.text, page.title or title
            else:
                heading = next((ln for ln in text.splitlines() if ln.startswith("# ")), "")
                title = heading[2:].strip() or title
            db.execute("INSERT INTO docs VALUES (?, ?, ?)", (title, str(path), text))
            count += 1
        self._db, self._seen = db, files  # the old one may still serve a search: left to gc
        return db
