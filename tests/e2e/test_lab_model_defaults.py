"""The New agent form with its Model left empty gives the agent the server's `KERNEL_SHARD_MODEL`,
and says so before anything is created. The server is a real `jupyter lab` started with that
variable and an OpenAI key; the model is a fake OpenAI-compatible server (the real `openai` SDK
talks to it), which records the model each request names.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import LabPage
from tests.fixtures.fake_llm import FakeLLMServer

SERVED = "served-by-the-server"


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer([{"text": "Hello from the served model."}]) as server:
        yield server


@pytest.fixture(scope="module")
def served_lab(
    tmp_path_factory: pytest.TempPathFactory, fake_llm: FakeLLMServer
) -> Iterator[LabServer]:
    base = tmp_path_factory.mktemp("served-lab")
    server = LabServer(
        base,
        {
            "KERNEL_SHARD_MODEL": f"openai/{SERVED}",
            "OPENAI_API_KEY": "sk-fake-for-the-test",
            "OPENAI_BASE_URL": fake_llm.openai_base_url,
        },
    )
    server.start()
    yield server
    leftovers = server.stop()
    assert leftovers == [], f"processes left running after Lab stopped: {leftovers}"


def test_a_form_created_agent_gets_the_servers_model_and_the_form_says_so(
    browser: Browser, served_lab: LabServer, fake_llm: FakeLLMServer
) -> None:
    (served_lab.root / "project").mkdir()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    person = LabPage(context.new_page(), served_lab)
    try:
        person.open()
        person.command("shard:new-agent")
        form = person.sidebar.locator("form.shard-new-agent")
        expect(form).to_be_visible(timeout=30_000)
        hint = form.locator(".shard-model-default")
        expect(hint).to_have_text(
            f"empty: openai/{SERVED} — the server's KERNEL_SHARD_MODEL", timeout=15_000
        )
        expect(form.locator(".shard-new-model")).to_have_attribute(
            "placeholder", f"(openai/{SERVED})"
        )
        save_screenshot(person.page, "e2e-model-default-1-form.png")
        form.locator(".shard-new-folder").fill("project")
        form.locator(".shard-new-name").fill("served")
        form.get_by_role("button", name="Create").click()

        chat = person.page.locator(".shard-chat").filter(
            has=person.page.locator(".shard-composer-input")
        )
        expect(chat.locator(".shard-composer-input")).to_be_enabled(timeout=60_000)
        person.send(chat, "hello")
        expect(chat).to_contain_text("Hello from the served model.", timeout=60_000)
        save_screenshot(person.page, "e2e-model-default-2-answered.png")
        agents = {a["name"]: a for a in served_lab.api("GET", "/shard/api/agents")["agents"]}
        assert agents["served"]["model"] == f"openai/{SERVED}"
        fake_llm.wait_idle()
        assert [r.body["model"] for r in fake_llm.requests] == [SERVED]
        assert served_lab.api("GET", "/shard/api/defaults")["model"] == {
            "model": f"openai/{SERVED}",
            "source": "server",
            "why": "the server's KERNEL_SHARD_MODEL",
            "demo": False,
        }
    finally:
        context.close()
        for agent in served_lab.api("GET", "/shard/api/agents")["agents"]:
            served_lab.api("DELETE", f"/shard/api/agents/{agent['id']}")


def test_the_defaults_route_needs_the_token(served_lab: LabServer) -> None:
    import urllib.error
    import urllib.request

    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{served_lab.url}/shard/api/defaults", timeout=10)
    refused.value.close()  # an HTTPError holds the response's socket until closed
    assert refused.value.code in (401, 403)
