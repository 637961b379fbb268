"""A second tab on a Shard notebook, in Chromium: from the second tab's kernel WebSocket opening
to the pending permission prompt drawn in its live strip, in Notebook 7 and in JupyterLab, one
real server. The first tab (a browser context of its own) runs the notebook's cell, whose edit
waits for a permission answer; then the second context opens the same notebook. Goal (issue
34): 1 s from the connection.

The times run in the second page (performance.now()): the WebSocket's `open` on
/api/kernels/<id>/channels (a wrapped WebSocket), its first message from the kernel (the anchor:
what any kernel's connection takes before a front end can do anything), and the first animation
frame with "Allow once" visible in `.shard-notebook-live`. Page load (navigation start to the
WebSocket open) is printed beside them, not counted.

    python bench/second_tab.py [--runs 5] [--quick]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: the tests' helpers live at the repo root
    sys.path.insert(0, str(ROOT))

from playwright.sync_api import Browser, expect, sync_playwright  # noqa: E402

from bench._common import machine, ms, percentile, table  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.e2e.lab import LabServer  # noqa: E402
from tests.e2e.lab_page import PERMISSION_MIME  # noqa: E402

WATCH = """() => {
  const b = (window.__bench = { opened: null, first: null, shown: null });
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      if (b.opened !== null || !/\\/api\\/kernels\\/[^/]+\\/channels/.test(String(args[0])))
        return;
      this.addEventListener("open", () => { b.opened ??= performance.now(); });
      this.addEventListener("message", () => { b.first ??= performance.now(); });
    }
  };
  const frame = () => {
    const buttons = document.querySelectorAll(".shard-notebook-live .shard-permission button");
    const allow = [...buttons].find((el) => el.textContent.includes("Allow once"));
    if (allow && allow.checkVisibility()) { b.shown = performance.now(); return; }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}"""

FRONTENDS = {"notebook7": "notebooks/{name}?token={token}", "lab": "lab/tree/{name}?token={token}"}


def sample(browser: Browser, lab: LabServer, frontend: str, index: int) -> dict[str, float]:
    """One first tab asking, one second tab opened on it: the second tab's times, seconds."""
    name = f"second-{frontend}-{index}.ipynb"
    target = f"bench-{frontend}-{index}.py"
    (lab.workspace / target).write_text("x = 1\n")
    edit = {"path": target, "old_string": "x = 1\n", "new_string": "x = 2\n"}
    steps = [
        {"text": "Changing the file.", "tool_calls": [{"name": "edit", "input": edit}]},
        {"text": "Changed."},
    ]
    script = lab.base / "shard-kernel-script.json"
    script.write_text(json.dumps({"name": "second-tab", "steps": steps}))
    lab.notebook(name, "shard", [f"change {target}"])
    path = FRONTENDS[frontend].format(name=name, token=lab.token)
    first = browser.new_context(viewport={"width": 1280, "height": 900})
    second = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        a = first.new_page()
        a.goto(f"{lab.url}/lab/tree/{name}?reset&token={lab.token}")
        lab.wait_kernel_connected(name)
        a.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
        asked = a.locator(f'.jp-OutputArea-output[data-mime-type="{PERMISSION_MIME}"]')
        expect(asked.get_by_role("button", name="Allow once")).to_be_visible(timeout=90_000)

        b = second.new_page()
        b.add_init_script(f"({WATCH})();")
        b.goto(f"{lab.url}/{path}")
        b.wait_for_function("() => window.__bench?.shown != null", timeout=60_000)
        times: dict[str, Any] = b.evaluate("() => window.__bench")
        b.locator(".shard-notebook-live").get_by_role("button", name="Allow once").click()
        expect(a.locator(".jp-Notebook")).to_contain_text("Changed.", timeout=60_000)
    finally:
        first.close()
        second.close()
        lab.shutdown_kernels()
    opened, shown = times["opened"], times["shown"]
    return {
        "load": opened / 1000,
        "first": (times["first"] - opened) / 1000,
        "prompt": (shown - opened) / 1000,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="1 run each")
    args = parser.parse_args(argv)
    runs = 1 if args.quick else args.runs
    found: dict[str, list[dict[str, float]]] = {f: [] for f in FRONTENDS}
    with tempfile.TemporaryDirectory(prefix="bench-second-tab-") as tmp:
        base = Path(tmp)
        lab = LabServer(
            base,
            {
                "KERNEL_SHARD_MODEL": f"scripted/{base / 'shard-kernel-script.json'}",
                "KERNEL_SHARD_CWD": str(base / "workspace"),
            },
        )
        lab.start()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
                )
                sample(browser, lab, "lab", -1)  # warm: the server's first bundle download
                for index in range(runs):  # interleaved: the machine's load falls on both
                    for frontend in FRONTENDS:
                        found[frontend].append(sample(browser, lab, frontend, index))
                browser.close()
        finally:
            lab.stop()
    print(f"# second tab on a Shard notebook: {runs} run(s) each, scripted model")
    print(f"# {machine()}")
    rows = []
    for frontend, samples in found.items():
        row = [frontend]
        for key in ("load", "first", "prompt"):
            values = [s[key] for s in samples]
            row += [ms(percentile(values, 50)), ms(max(values))]
        rows.append(row)
    headers = ["second tab", "page load p50 ms", "max", "ws open -> first kernel message p50 ms"]
    headers += ["max", "ws open -> prompt drawn p50 ms", "max"]
    print(table(headers, rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
