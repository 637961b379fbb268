"""LabPage: JupyterLab with the Shard extension in chromium — the sidebar, chat tabs, mime outputs.

Like NotebookPage, commands are started through `window.jupyterapp.commands.execute(...)` without
returning the promise to `page.evaluate` (a turn waiting for an answer would block the test).
"""

from __future__ import annotations

from playwright.sync_api import Locator, Page

from tests.e2e.lab import LabServer

RENDER_MIME = "application/vnd.shard.render+json"
PERMISSION_MIME = "application/vnd.shard.permission+json"
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"
    "nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg=="
)
"""one pixel, what the tests paste"""
_PASTE = """([box, data]) => {
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  const transfer = new DataTransfer();
  transfer.items.add(new File([bytes], "shot.png", { type: "image/png" }));
  const el = [...document.querySelectorAll(box)].at(-1);
  const paste = { clipboardData: transfer, bubbles: true, cancelable: true };
  el.dispatchEvent(new ClipboardEvent("paste", paste));
}"""


def paste_png(page: Page, selector: str, data: str = PNG) -> None:
    """Pastes a PNG into the last element `selector` matches, as a person's Ctrl+V does."""
    page.evaluate(_PASTE, [selector, data])


class LabPage:
    def __init__(self, page: Page, lab: LabServer) -> None:
        self.page = page
        self.lab = lab

    def open(self, path: str = "lab") -> None:
        self.page.goto(f"{self.lab.url}/{path}?reset&token={self.lab.token}")
        self.page.wait_for_selector("#shard-agents", state="attached", timeout=90_000)

    def command(self, name: str, args: dict[str, object] | None = None) -> None:
        self.page.evaluate(
            "([name, args]) => { window.jupyterapp.commands.execute(name, args); }",
            [name, args or {}],
        )

    # ------------------------------------------------------------ the sidebar
    @property
    def sidebar(self) -> Locator:
        return self.page.locator("#shard-agents")

    def show_sidebar(self) -> Locator:
        self.command("shard:dashboard")
        self.sidebar.wait_for(state="visible", timeout=30_000)
        return self.sidebar

    def agent_row(self, name: str) -> Locator:
        return self.sidebar.locator(".shard-agent-item").filter(
            has=self.page.locator(".shard-agent-name", has_text=name)
        )

    # ------------------------------------------------------------ chat tabs
    def open_agent(self, agent_id: str) -> Locator:
        self.command("shard:open-agent", {"agent": agent_id})
        chat = self.page.locator(f"#shard-chat-{agent_id}")
        chat.locator(".shard-composer-input").wait_for(timeout=60_000)
        return chat

    def send(self, chat: Locator, text: str) -> None:
        box = chat.locator(".shard-composer-input")
        box.fill(text)
        box.press("Enter")

    def tab_label(self) -> str:
        """This tab's human label as the extension made it ("<user> · Tab xxxx")."""
        return str(self.page.evaluate("() => sessionStorage.getItem('shard:tab-label')"))

    def outputs(self, mime: str) -> Locator:
        return self.page.locator(f'.jp-OutputArea-output[data-mime-type="{mime}"]')
