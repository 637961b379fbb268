"""axe-core in the page: the accessibility rules a screen-reader user depends on, checked on a part
of the page. The engine comes from the labextension's node_modules (an npm devDependency), read
from disk and injected — nothing is downloaded while a test runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

AXE = Path(__file__).resolve().parents[2] / "labextension" / "node_modules" / "axe-core"
SERIOUS = ("serious", "critical")

RUN = """async (selector) => {
  const result = await window.axe.run(document.querySelectorAll(selector), {
    resultTypes: ["violations"],
  });
  return result.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5),
  }));
}"""


def violations(page: Page, selector: str) -> list[dict[str, Any]]:
    """Every axe violation inside the elements `selector` matches."""
    engine = AXE / "axe.min.js"
    if not engine.exists():
        pytest.fail(f"axe-core is missing: run `npm ci` in labextension/ ({engine})")
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(content=engine.read_text(encoding="utf-8"))
    return list(page.evaluate(RUN, selector))


def serious_violations(page: Page, selector: str) -> list[dict[str, Any]]:
    return [v for v in violations(page, selector) if v["impact"] in SERIOUS]
