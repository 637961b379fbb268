"""A second browser on a Shard notebook is live: while the first person's cell waits for a
permission answer, a second person who opens the same notebook sees the running turn and the
pending prompt, rendered from the agent (not from the saved file, which has no outputs yet), and
can answer it; the first person's cell then goes on. Its Agent view never says "idle" while the
prompt waits.

In JupyterLab and in Notebook 7 (the second browser's front end; the first is Lab). The time from
the second page's kernel WebSocket opening to the prompt on screen is printed, not asserted
(bench/second_tab.py measures it; the issue's bar is 1 s; it was 3.1-4.6 s while the kernel left
JupyterLab's kernel_info_request unanswered until the cell ended, and Lab held the comm_open back
for its 3 s fallback; 0.15-0.59 s since the kernel answers kernel_info while a cell runs).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, expect

from tests.e2e.axe import serious_violations
from tests.e2e.conftest import Script, save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import PERMISSION_MIME
from tests.e2e.notebook_page import KERNEL_IDLE, NotebookPage

pytestmark = pytest.mark.e2e

OPENED = """(() => {
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      if (/\\/api\\/kernels\\/[^/]+\\/channels/.test(String(args[0])))
        this.addEventListener("open", () => { window.__kernelOpened ??= performance.now(); });
    }
  };
})();"""
"""records when the page's first kernel WebSocket opens (Notebook 7 exposes no app to ask)"""

WHOLE_IN = """([el, box]) => {
  const r = el.getBoundingClientRect(), v = box.getBoundingClientRect();
  return r.top >= v.top - 1 && r.bottom <= v.bottom + 1 && r.bottom <= window.innerHeight;
}"""
"""whether an element is whole inside a box and the window"""

FRONT_ENDS = {
    "lab": "lab/tree/{name}?reset&token={token}",
    "notebook7": "notebooks/{name}?token={token}",
}


@pytest.fixture
def two(browser: Browser, request: pytest.FixtureRequest) -> Iterator[list[NotebookPage]]:
    contexts: list[BrowserContext] = [
        browser.new_context(viewport={"width": 1280, "height": 900}) for _ in range(2)
    ]
    pages = [NotebookPage(c.new_page()) for c in contexts]
    yield pages
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        for name, person in zip("AB", pages, strict=True):
            save_screenshot(person.page, f"{request.node.name}-{name}-failure.png")
    for context in contexts:
        context.close()


@pytest.mark.parametrize("front_end", list(FRONT_ENDS))
def test_a_second_browser_sees_the_pending_prompt_live_and_answers_it(
    lab: LabServer, two: list[NotebookPage], shard_script: Script, front_end: str
) -> None:
    a, b = two
    target = f"second-{front_end}.py"
    (lab.workspace / target).write_text("x = 1\n")
    edit = {"path": target, "old_string": "x = 1\n", "new_string": "x = 2\n"}
    shard_script(
        [
            {"text": "Changing second.py.", "tool_calls": [{"name": "edit", "input": edit}]},
            {"text": "Changed by the second tab's answer."},
        ]
    )
    name = f"second-tab-{front_end}.ipynb"
    url = lab.notebook(name, "shard", [f"change {target}"])
    try:
        a.open(url)
        a.run_all()
        mine = a.outputs(0).and_(a.page.locator(f'[data-mime-type="{PERMISSION_MIME}"]'))
        expect(mine.get_by_role("button", name="Allow once")).to_be_visible(timeout=60_000)

        b.page.add_init_script(OPENED)
        b.page.goto(f"{lab.url}/{FRONT_ENDS[front_end].format(name=name, token=lab.token)}")
        live = b.page.locator(".shard-notebook-live")
        prompt = live.locator(".shard-permission")
        expect(prompt.get_by_role("button", name="Allow once")).to_be_visible(timeout=90_000)
        took = b.page.evaluate("() => performance.now() - window.__kernelOpened") / 1000
        print(f"second browser ({front_end}): kernel socket open → prompt shown: {took:.2f} s")
        # in order: the person's prompt, the agent's text, then the question, never "idle"
        expect(live.locator(".shard-msg-user")).to_contain_text(f"change {target}")
        expect(live).to_contain_text("Changing second.py.")
        expect(live.locator(".shard-status-text")).to_have_text("waiting for permission")
        assert b.outputs(0).count() == 0  # the saved file has no outputs: this is the agent's
        # the prompt's buttons are whole in the strip (they were below its edge: only the top of
        # Allow once showed, Deny and Always allow not at all)
        for name in ("Allow once", "Deny"):
            button = prompt.get_by_role("button", name=name)
            b.page.wait_for_function(
                WHOLE_IN, arg=[button.element_handle(), live.element_handle()], timeout=5_000
            )
        save_screenshot(b.page, f"e2e-second-tab-1-live-prompt-{front_end}.png")
        found = serious_violations(b.page, ".shard-notebook-live, .shard-agent-button")
        assert found == [], found

        prompt.get_by_role("button", name="Allow once").click()
        a.wait_text(a.outputs(0), "Changed by the second tab's answer.")
        expect(mine.locator(".shard-dialog-footer")).to_contain_text("✓ allowed once — by ")
        expect(live).to_be_hidden(timeout=15_000)  # the turn ended: nothing live to show
        a.page.wait_for_function(KERNEL_IDLE)
        assert (lab.workspace / target).read_text() == "x = 2\n"
        # the first browser never showed the strip: its own cell showed everything
        assert a.page.locator(".shard-notebook-live:visible").count() == 0
    finally:
        lab.shutdown_kernels()
