"""Local HTTP servers for the web tools' tests: pages, redirects, huge and slow bodies, and
fake search APIs speaking Brave's, Tavily's and SearXNG's wire formats. Each binds 127.0.0.1
on a free port."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

Route = Callable[[BaseHTTPRequestHandler], None]

PAGE = b"""<!doctype html><html><head><title>Gadget manual</title>
<style>body{color:red}</style><script>var tracking = "SCRIPT-TEXT";</script></head>
<body><nav>NAV-LINKS home about</nav><main><h1>Gadget</h1>
<p>The gadget's <strong>reset button</strong> is under the lid.</p>
<ul><li>first step</li><li>second step</li></ul>
<p>See <a href="https://example.org/more">more</a>.</p></main>
<footer>FOOTER-TEXT</footer></body></html>"""


def minimal_pdf(text: str) -> bytes:
    """A one-page PDF whose page says `text` (Helvetica), with a correct xref table."""
    stream = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    trailer = f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    out += trailer.encode()
    return bytes(out)


class Server:
    def __init__(self, routes: dict[str, Route]) -> None:
        self.routes = routes
        self.hits: list[tuple[str, dict[str, str]]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                self._dispatch()

            def do_POST(self) -> None:
                self._dispatch()

            def _dispatch(self) -> None:
                path = urlsplit(self.path).path
                server.hits.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                route = server.routes.get(path)
                if route is None:
                    send(self, 404, b"not here", "text/plain")
                    return
                with suppress(BrokenPipeError, ConnectionResetError):
                    route(self)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def count(self, path: str) -> int:
        return sum(1 for p, _ in self.hits if urlsplit(p).path == path)


def send(
    handler: BaseHTTPRequestHandler, status: int, body: bytes, kind: str, **headers: str
) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", kind)
    handler.send_header("Content-Length", str(len(body)))
    for key, value in headers.items():
        handler.send_header(key.replace("_", "-"), value)
    handler.end_headers()
    handler.wfile.write(body)


def redirect(location: str) -> Route:
    def route(handler: BaseHTTPRequestHandler) -> None:
        send(handler, 302, b"", "text/plain", Location=location)

    return route


def big(size: int, *, declared: bool) -> Route:
    def route(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/plain")
        if declared:
            handler.send_header("Content-Length", str(size))
        else:
            handler.send_header("Connection", "close")
        handler.end_headers()
        chunk = b"x" * 65536
        for _ in range(size // len(chunk)):
            handler.wfile.write(chunk)
        handler.close_connection = True

    return route


def slow(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.send_header("Content-Length", "1000")
    handler.end_headers()
    for _ in range(100):
        handler.wfile.write(b"0123456789")
        handler.wfile.flush()
        time.sleep(0.2)


def brave_api(received: list[dict[str, object]]) -> Route:
    """GET /res/v1/web/search?q=…&count=… with X-Subscription-Token, answered in Brave's shape."""

    def route(handler: BaseHTTPRequestHandler) -> None:
        query = parse_qs(urlsplit(handler.path).query)
        token = handler.headers.get("X-Subscription-Token")
        received.append({"q": query.get("q", [""])[0], "count": query.get("count"), "token": token})
        if token != "brave-test-key":
            send(handler, 401, b'{"type":"ErrorResponse"}', "application/json")
            return
        results = [
            {"title": "Reset the gadget", "url": "https://docs.example.com/reset",
             "description": "Press the <strong>reset button</strong> for 5 s."},
            {"title": "Gadget forum", "url": "https://forum.other.net/t/1", "description": "talk"},
        ]  # fmt: skip
        body = {"type": "search", "query": {"original": query.get("q", [""])[0]},
                "web": {"type": "search", "results": results}}  # fmt: skip
        send(handler, 200, json.dumps(body).encode(), "application/json")

    return route


def tavily_api(received: list[dict[str, object]]) -> Route:
    """POST /search with `Authorization: Bearer …` and a JSON body, answered in Tavily's shape."""

    def route(handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        request = json.loads(handler.rfile.read(length) or b"{}")
        auth = handler.headers.get("Authorization")
        received.append({"method": handler.command, "auth": auth, "body": request})
        if auth != "Bearer tvly-test-key":
            send(handler, 401, b'{"detail":{"error":"Unauthorized"}}', "application/json")
            return
        results = [
            {"title": "Gadget reset &amp; care", "url": "https://docs.example.com/care",
             "content": "Hold reset for 5 s.", "score": 0.91, "raw_content": None},
        ]  # fmt: skip
        body = {"query": request.get("query"), "follow_up_questions": None, "answer": None,
                "images": [], "results": results, "response_time": 0.42}  # fmt: skip
        send(handler, 200, json.dumps(body).encode(), "application/json")

    return route


def searxng_api(received: list[dict[str, object]]) -> Route:
    """GET /search?q=…&format=json, answered in SearXNG's shape."""

    def route(handler: BaseHTTPRequestHandler) -> None:
        query = parse_qs(urlsplit(handler.path).query)
        received.append({k: v[0] for k, v in query.items()})
        if query.get("format") != ["json"]:
            send(handler, 403, b"Forbidden", "text/html")  # an instance without JSON output
            return
        results = [
            {"url": "https://wiki.example.org/Gadget", "title": "Gadget - Wiki",
             "content": "A gadget is a small tool.", "engine": "wikipedia",
             "engines": ["wikipedia"], "score": 1.0, "category": "general"},
        ]  # fmt: skip
        body = {"query": query.get("q", [""])[0], "number_of_results": 0, "results": results,
                "answers": [], "corrections": [], "infoboxes": [], "suggestions": [],
                "unresponsive_engines": []}  # fmt: skip
        send(handler, 200, json.dumps(body).encode(), "application/json")

    return route


@contextmanager
def serve(routes: dict[str, Route]) -> Iterator[Server]:
    server = Server(routes)
    server.thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
        server.thread.join(timeout=5)
