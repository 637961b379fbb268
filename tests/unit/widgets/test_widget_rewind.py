"""The widget's "Rewind to here" and "Changes" on a real in-process agent: a `rewind` message
from the browser reviews a turn by its prompt's entry id (per file and per cell, with the
structured review the controls name), reverts one hunk, rewinds; every widget of the agent gets
the `rewind` event. A controller without checkpoints says so."""

from __future__ import annotations

from pathlib import Path

from shard_core.engine.config import ShardConfig
from shard_kernel.inprocess import InProcessAgent
from shard_kernel.notebook_tools.extension import notebook_extension
from shard_widgets import AgentWidget
from tests.unit.capabilities.checkpoints.conftest import ALLOW, make_notebook, write_script
from tests.unit.widgets._support import comm_of
from tests.unit.widgets.test_widget_commands import _reply  # pyright: ignore[reportPrivateUsage]

TEXT = "".join(f"line {i}\n" for i in range(1, 21))


async def test_review_revert_and_rewind_through_the_widget(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text(TEXT)
    [first, _] = make_notebook(ws / "nb.ipynb", ["x = 1", "y = 2"])
    edits = [
        {"name": "edit", "input": {"path": "a.txt", "old_string": "line 2\n", "new_string": "2\n"}},
        {"name": "edit", "input": {"path": "a.txt", "old_string": "line 19\n", "new_string": ""}},
        {"name": "notebook_edit", "input": {"path": "nb.ipynb", "operations": [
            {"op": "replace", "id": first, "source": "x = 10"}]}},
    ]  # fmt: skip
    host = InProcessAgent(
        "t",
        cwd=ws,
        model=f"scripted/{write_script(tmp_path / 's.json', [edits])}",
        home=tmp_path / "home",
        config=ShardConfig(),
        env={"HOME": str(tmp_path / "user")},
        extensions=[notebook_extension()],
        allow=ALLOW,
    )
    try:
        widget, other = host.widget(), host.widget()
        host.call(host.agent.run("edit them"))
        [turn] = [e for e in widget.events if e["type"] == "turn_start"]
        target = turn["entry_id"]

        diff = {"type": "rewind", "id": "r1", "action": "diff", "target": target}
        widget._handle_custom_msg(diff, [])
        review = (await _reply(widget, "r1"))["data"]["review"]
        assert (review["turn"], review["target"]) == (1, target)
        files = {f["path"]: f for f in review["files"]}
        assert [len(files["a.txt"]["hunks"]), files["a.txt"]["cells"]] == [2, None]
        [cell] = files["nb.ipynb"]["cells"]
        assert (cell["cell_id"], cell["status"]) == (first, "modified")
        assert cell["hunks"][0]["lines"] == ["-x = 1", "+x = 10"]

        widget._handle_custom_msg(
            {"type": "rewind", "id": "r2", "action": "revert", "target": target,
             "path": "a.txt", "hunk": 2},
            [],
        )  # fmt: skip
        assert (await _reply(widget, "r2"))["ok"]
        assert (ws / "a.txt").read_text() == TEXT.replace("line 2\n", "2\n")

        widget._handle_custom_msg(
            {"type": "rewind", "id": "r3", "target": target, "scope": "code"}, []
        )
        done = await _reply(widget, "r3")
        assert done["ok"], done["message"]
        assert (ws / "a.txt").read_text() == TEXT
        for seen in (widget, other):
            rewinds = [e for e in seen.events if e["type"] == "rewind"]
            assert [r["scope"] for r in rewinds] == ["code", "code"]  # the revert, the rewind
            assert sorted(rewinds[-1]["restored"]) == ["a.txt", "nb.ipynb"]

        widget._handle_custom_msg(
            {"type": "rewind", "id": "r4", "action": "diff", "target": "feedfacefeed"}, []
        )
        bad = await _reply(widget, "r4")
        assert not bad["ok"]
        assert "unknown entry 'feedfacefeed'" in bad["message"]
    finally:
        host.close()


def test_a_controller_without_checkpoints_says_so() -> None:
    class Bare:
        def set_mode(self, mode: str) -> None: ...

    widget = AgentWidget(Bare())  # type: ignore[arg-type]
    widget._handle_custom_msg({"type": "rewind", "id": "c1", "action": "list"}, [])
    [reply] = comm_of(widget).custom()
    assert (reply["ok"], reply["message"]) == (False, "rewind is not sent through this widget")
