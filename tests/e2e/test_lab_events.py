"""The Lab sidebar keeps its agent list from the gateway's pushed events: in a real browser the
page subscribes to /shard/api/events (its login cookie, its own Origin), shows an agent created
elsewhere and its kill from the pushed agent_spawned / agent_exited, and polls the REST registry
no more while the subscription is live."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Request, WebSocket, expect

from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import LabPage

pytestmark = pytest.mark.e2e


def test_the_sidebar_follows_pushed_events(page: Page, lab: LabServer, tmp_path: Path) -> None:
    frames: list[dict[str, Any]] = []
    polls: list[float] = []

    def on_socket(socket: WebSocket) -> None:
        if "/shard/api/events" in socket.url:
            socket.on("framereceived", lambda payload: frames.append(json.loads(payload)))

    def on_request(request: Request) -> None:
        if request.method == "GET" and request.url.split("?")[0].endswith("/shard/api/agents"):
            polls.append(time.monotonic())

    page.on("websocket", on_socket)
    page.on("request", on_request)
    lab_page = LabPage(page, lab)
    lab_page.open()
    lab_page.show_sidebar()
    deadline = time.monotonic() + 30
    while not any(f.get("type") == "agents_snapshot" for f in frames):
        assert time.monotonic() < deadline, "the page never subscribed to /shard/api/events"
        page.wait_for_timeout(100)
    live_since = time.monotonic()

    work = tmp_path / "pushed"
    work.mkdir()
    script = tmp_path / "pushed.json"
    script.write_text(json.dumps({"name": "pushed", "steps": [{"text": "hi"}]}))
    agent = lab.api(
        "POST",
        "/shard/api/agents",
        {"cwd": str(work), "model": f"scripted/{script}", "name": "pushed"},
    )
    try:
        row = lab_page.agent_row("pushed")
        expect(row).to_be_visible(timeout=10_000)
        lab.api("DELETE", f"/shard/api/agents/{agent['id']}")
        expect(row.locator(".shard-status-badge")).to_have_text("stopped", timeout=10_000)
        save_screenshot(page, "e2e-lab-events-stopped.png")
    finally:
        lab.api("DELETE", f"/shard/api/agents/{agent['id']}")

    kinds = [(f["type"], (f.get("agent") or {}).get("id")) for f in frames]
    assert ("agent_spawned", agent["id"]) in kinds
    assert ("agent_exited", agent["id"]) in kinds
    page.wait_for_timeout(2500)  # a polling page would have asked again by now
    assert [t for t in polls if t > live_since] == []  # pushed, not polled
