"""A fetched body as text the model can read: HTML to Markdown, PDF to text, text as it is.

HTML goes through BeautifulSoup and markdownify (scripts, styles, forms, navigation chrome and
embedded media dropped first); a PDF through pypdf, page by page; other text types are decoded
by their declared charset. Anything else (an image, an archive) is said to be binary.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

from shard_core.contracts.web import FetchedPage, WebError

_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript")
_DROPPED = ("script", "style", "noscript", "template", "svg", "iframe", "form", "nav", "footer")
_BLANK_RUNS = re.compile(r"\n{3,}")


@dataclass(frozen=True)
class Page:
    title: str
    text: str
    kind: str
    """html, pdf or text"""


def _media_type(content_type: str) -> tuple[str, str | None]:
    media, _, params = content_type.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, value = param.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip("\"' ")
    return media.strip().lower(), charset


def _decode(body: bytes, charset: str | None) -> str:
    for candidate in (charset, "utf-8"):
        if candidate:
            try:
                return body.decode(candidate)
            except (LookupError, UnicodeDecodeError):
                continue
    return body.decode("utf-8", errors="replace")


def _looks_like_html(body: bytes) -> bool:
    head = body[:512].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html", b"<head", b"<body"))


def to_text(page: FetchedPage) -> Page:
    media, charset = _media_type(page.content_type)
    html = media in ("text/html", "application/xhtml+xml")
    if html or (not media and _looks_like_html(page.body)):
        return html_to_markdown(_decode(page.body, charset))
    if media == "application/pdf" or page.body.startswith(b"%PDF-"):
        return pdf_to_text(page.body)
    if media.startswith(_TEXT_TYPES) or media.endswith(("+json", "+xml")) or not media:
        text = _decode(page.body, charset)
        if "\x00" in text[:4096]:
            raise WebError(f"{page.final_url}: binary content ({len(page.body)} bytes), not text")
        return Page("", text, "text")
    raise WebError(
        f"{page.final_url}: {media} ({len(page.body)} bytes) is not text; web_fetch reads HTML, "
        "text and PDF"
    )


def html_to_markdown(html: str) -> Page:
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup.find_all(_DROPPED):
        tag.decompose()
    if soup.head:
        soup.head.decompose()
    body = soup.find("main") or soup.find("article") or soup.body or soup
    text = MarkdownConverter(heading_style="ATX", bullets="-").convert_soup(body)
    return Page(title, _BLANK_RUNS.sub("\n\n", text).strip(), "html")


def pdf_to_text(body: bytes) -> Page:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(body))
        pages = [p.extract_text() or "" for p in reader.pages]
        metadata = reader.metadata
        title = str(metadata.title or "") if metadata is not None else ""
    except (PdfReadError, ValueError, KeyError, OSError) as exc:
        raise WebError(f"the PDF cannot be read: {exc}") from None
    text = "\n\n".join(f"[page {i}]\n{t.strip()}" for i, t in enumerate(pages, 1) if t.strip())
    return Page(title, text or "(the PDF has no extractable text)", "pdf")
