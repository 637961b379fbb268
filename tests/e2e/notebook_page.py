"""NotebookPage: one JupyterLab notebook tab in chromium, driven through `window.jupyterapp`.

Commands are started with `commands.execute(...)` but the promise is never returned to
`page.evaluate`: a cell that waits for a permission answer would block the test until timeout.
"""

from __future__ import annotations

from playwright.sync_api import Locator, Page

KERNEL_IDLE = """() => {
  const kernel = window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel;
  return kernel?.connectionStatus === "connected" && kernel?.status === "idle";
}"""

HOSTILE_ELEMENTS = """() => {
  const marker = "__shardXss";
  const withPayload = [...document.querySelectorAll("*")].filter((el) =>
    [...el.attributes].some((a) => a.value.includes(marker)),
  );
  return {
    flag: window.__shardXss ?? null,
    scripts: [...document.querySelectorAll("script")].filter((s) => s.text.includes(marker)).length,
    elementsWithPayload: withPayload.map((el) => el.tagName.toLowerCase()),
    images: document.querySelectorAll('img[src="x"]').length,
    jsLinks: document.querySelectorAll('a[href^="javascript:" i]').length,
  };
}"""


class NotebookPage:
    def __init__(self, page: Page) -> None:
        self.page = page

    def open(self, url: str, timeout: float = 90_000) -> None:
        self.page.goto(url)
        self.page.wait_for_function(KERNEL_IDLE, timeout=timeout)

    def run_all(self) -> None:
        self.page.evaluate(
            "() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }"
        )

    def save(self) -> None:
        self.page.evaluate(
            "() => window.jupyterapp.commands.execute('docmanager:save')"
        )  # saving never waits on a cell: this promise may be awaited
        self.page.wait_for_function(
            "() => !window.jupyterapp.shell.currentWidget.context.model.dirty"
        )

    def cell(self, index: int) -> Locator:
        return self.page.locator(".jp-Notebook .jp-Cell").nth(index)

    def outputs(self, index: int) -> Locator:
        return self.cell(index).locator(".jp-OutputArea-output")

    def wait_text(self, locator: Locator, text: str, timeout: float = 60_000) -> None:
        locator.filter(has_text=text).first.wait_for(timeout=timeout)

    def hostile_elements(self) -> dict[str, object]:
        return self.page.evaluate(HOSTILE_ELEMENTS)
