"""WorkflowView: one gateway workflow run as a live notebook widget (`%shard workflow FILE`).

It follows the gateway's events on the LoopThread (`workflow_updated` for the run, `job_updated`
for its steps' jobs) until the run ends: its state, each step's agent as its job moves, the
result or the error. A pending `wf.ask` shows its choices as buttons (toggles and Answer with
`multi`, a text box with `allow_other`); a click answers over REST, first answer wins, and the
view says who answered. A gateway that goes away is waited for (the run resumes there).
"""

from __future__ import annotations

import asyncio
import html
from typing import Any

import ipywidgets

from shard_core.protocol.orchestrator import JobUpdatedEvent, WorkflowUpdatedEvent
from shard_kernel.remote.events import EventFeed
from shard_kernel.remote.link import GatewayError, GatewayLink
from shard_kernel.remote.loop import LoopThread

API = "shard/api/workflows"
ENDED = ("completed", "failed", "cancelled")
RETRY_SECONDS = 1.0


class WorkflowView:
    def __init__(self, loop: LoopThread, link: GatewayLink, record: dict[str, Any]) -> None:
        self.loop, self.link, self.run_id = loop, link, str(record["id"])
        self.record = record
        self.steps: dict[str, str] = {}
        """each step's run id -> '<alias> <state>' as its job last showed it"""
        self.note = ""
        self.header = ipywidgets.HTML()
        self.question = ipywidgets.VBox()
        self.view = ipywidgets.VBox([self.header, self.question])
        self._asked: str | None = None
        self._show()
        self.following = loop.submit(self._follow())

    @property
    def ended(self) -> bool:
        return self.record.get("state") in ENDED

    async def _follow(self) -> None:
        feed = EventFeed(self.link)
        try:
            while not self.ended:
                try:
                    await feed.connect()
                    self._update(await self.link.request("GET", f"{API}/{self.run_id}"))
                    while not self.ended:
                        self._on(await feed.next_event(reconnect=False))
                    # the events carry no result: the whole run once it ended
                    self._update(await self.link.request("GET", f"{API}/{self.run_id}"))
                except GatewayError as exc:
                    self.note = f"waiting for the gateway: {exc}"
                    self._show()
                    await asyncio.sleep(RETRY_SECONDS)
        finally:
            await feed.close()

    def _on(self, event: Any) -> None:
        if isinstance(event, WorkflowUpdatedEvent) and event.run_id == self.run_id:
            self._update(event.run)
        elif isinstance(event, JobUpdatedEvent) and event.parent_agent_id == self.record.get(
            "agent_id"
        ):
            for run in event.job.get("runs", []):
                self.steps[str(run["id"])] = f"{run['alias']} {run['state']}"
            self._show()

    def _update(self, record: dict[str, Any]) -> None:
        self.record = {**self.record, **record}
        self.note = ""
        self._show()

    # ------------------------------------------------------------ drawing

    def _show(self) -> None:
        r = self.record
        rows = [f"<b>workflow {_e(r.get('file', ''))}</b> {_e(self.run_id)}: {_e(r['state'])}"]
        rows += [f"&nbsp;&nbsp;{_e(step)}" for step in self.steps.values()]
        for key in ("error", "result"):
            if r.get(key):
                rows.append(f"{key}: {_e(str(r[key]))}")
        answered = r.get("answered") or {}
        rows += [f"answered by {_e(by)}" for by in answered.values()]
        if self.note:
            rows.append(f"<i>{_e(self.note)}</i>")
        self.header.value = "<br>".join(rows)
        pending = r.get("pending")
        wanted = None if pending is None or self.ended else pending["request_id"]
        if wanted != self._asked:
            self._asked = wanted
            self.question.children = () if pending is None or wanted is None else self._ask(pending)

    def _ask(self, pending: dict[str, Any]) -> tuple[Any, ...]:
        choices: list[str] = pending["choices"]
        title = ipywidgets.HTML(f"<b>? {_e(pending['question'])}</b>")
        rid = str(pending["request_id"])
        if pending["multi"]:
            toggles = [ipywidgets.ToggleButton(description=c) for c in choices]
            send = ipywidgets.Button(description="Answer", button_style="primary")
            send.on_click(lambda _b: self.answer(rid, [t.description for t in toggles if t.value]))
            row: list[Any] = [*toggles, send]
        else:
            row = []
            for choice in choices:
                button = ipywidgets.Button(description=choice)
                button.on_click(lambda _b, c=choice: self.answer(rid, [c]))
                row.append(button)
        parts: list[Any] = [title, ipywidgets.HBox(row)]
        if pending["allow_other"]:
            words = ipywidgets.Text(placeholder="or in your own words")
            own = ipywidgets.Button(description="Answer in my words")
            own.on_click(lambda _b: self.answer(rid, [words.value]))
            parts.append(ipywidgets.HBox([words, own]))
        return tuple(parts)

    # ------------------------------------------------------------ answering

    def answer(self, request_id: str, values: list[str]) -> None:
        """Answer the pending question (from a button; the reply lands in the view)."""
        self.loop.submit(self._answer(request_id, values))

    async def _answer(self, request_id: str, values: list[str]) -> None:
        body = {"request_id": request_id, "value": values, "label": "notebook"}
        try:
            await self.link.request("POST", f"{API}/{self.run_id}/answer", body=body)
        except GatewayError as exc:
            self.note = str(exc)
            self._show()


def _e(text: str) -> str:
    return html.escape(text, quote=False)
