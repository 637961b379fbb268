"""web_fetch and web_search in the Lab chat: a real agent kernel fetches a page from a local
HTTP server and searches an offline folder; each result is a web card with the page's title,
its URL as a link, and its text in a fold-out that opens on a click."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import LabPage
from tests.integration.web.servers import PAGE, Server, send, serve

pytestmark = pytest.mark.e2e


@pytest.fixture
def site() -> Iterator[Server]:
    with serve({"/page": lambda h: send(h, 200, PAGE, "text/html; charset=utf-8")}) as server:
        yield server


@pytest.fixture
def web_agent(lab: LabServer, tmp_path: Path, site: Server) -> Iterator[str]:
    """An agent under a config.json allowing the page server and an offline search folder (the
    file restored afterwards: other tests share the Lab)."""
    work = tmp_path / "web-work"
    work.mkdir()
    docs = tmp_path / "web-docs"
    docs.mkdir()
    (docs / "reset.md").write_text("# Resetting the gadget\n\nHold the reset button for 5 s.\n")
    config = lab.base / "xdg" / "shard" / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    kept = config.read_text(encoding="utf-8") if config.exists() else None
    settings = json.loads(kept) if kept else {}
    settings["web"] = {"allowed_domains": [f"127.0.0.1:{site.port}"],
                       "search": {"provider": "offline", "folder": str(docs)}}  # fmt: skip
    config.write_text(json.dumps(settings), encoding="utf-8")
    steps = [
        {"tool_calls": [{"name": "web_fetch", "input": {"url": f"{site.url}/page"}}]},
        {"tool_calls": [{"name": "web_search", "input": {"query": "reset button"}}]},
        {"text": "Read and searched."},
    ]
    script = tmp_path / "web-script.json"
    script.write_text(json.dumps({"name": "web", "steps": steps}))
    body = {"cwd": str(work), "model": f"scripted/{script}", "name": "web-cards",
            "permissions": {"allow": ["WebFetch(domain:127.0.0.1)", "WebSearch"]}}  # fmt: skip
    agent = lab.api("POST", "/shard/api/agents", body)
    try:
        yield str(agent["id"])
    finally:  # the kernel reads config.json when it starts: kept until the test is done
        lab.api("DELETE", f"/shard/api/agents/{agent['id']}")
        if kept is None:
            config.unlink()
        else:
            config.write_text(kept, encoding="utf-8")


def test_web_results_are_cards_with_a_link_and_the_text_folded(
    page: Page, lab: LabServer, web_agent: str, site: Server, request: pytest.FixtureRequest
) -> None:
    person = LabPage(page, lab)
    try:
        person.open()
        chat = person.open_agent(web_agent)
        person.send(chat, "read the manual")
        expect(chat).to_contain_text("Read and searched.", timeout=90_000)
        cards = chat.locator(".shard-web-page")
        fetched = cards.filter(has_text="Gadget manual").first
        expect(fetched.locator(".shard-web-title")).to_have_text("Gadget manual")
        link = fetched.locator(".shard-web-url a")
        expect(link).to_have_attribute("href", f"{site.url}/page")
        expect(link).to_have_attribute("rel", "noopener noreferrer")
        fold = fetched.locator("details.shard-web-text")
        expect(fold).not_to_have_attribute("open", "")
        expect(fold.locator("pre")).not_to_be_visible()
        fold.locator("summary").click()
        expect(fold.locator("pre")).to_be_visible()
        expect(fold.locator("pre")).to_contain_text("reset button")
        hit = cards.filter(has_text="Resetting the gadget").first
        expect(hit.locator(".shard-web-url")).to_contain_text("reset.md")
        assert site.count("/page") == 1
        save_screenshot(page, "e2e-lab-web-cards.png")
    except Exception:
        save_screenshot(page, f"{request.node.name}-failure.png")
        raise
