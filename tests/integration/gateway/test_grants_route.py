"""`/shard/api/grants` on a real `shard gateway`: the workspace grants every agent in a folder
shares, listed (all folders, or one) and revoked in the files the agents' gates read; bad and
unknown revokes say what is wrong and change nothing; an unreadable file is listed with its
problem and never overwritten."""

from __future__ import annotations

import os
import urllib.parse
from pathlib import Path

from shard_core.engine.permissions.grants import GrantStore
from tests.integration.gateway.conftest import Servers, api, body


def _query(**args: str) -> str:
    return "?" + urllib.parse.urlencode(args)


async def test_workspace_grants_are_listed_and_revoked(servers: Servers, tmp_path: Path) -> None:
    home = Path(servers.env["SHARD_HOME"])
    first, second, unread = (tmp_path / name for name in ("first", "second", "unread"))
    for folder in (first, second, unread):
        folder.mkdir()
    GrantStore.for_workspace(first, home).add("Write(note.txt)", "alice · Tab 1a2b")
    GrantStore.for_workspace(first, home).add("Bash(make test)", "you")
    GrantStore.for_workspace(second, home).add("Edit(*)", "bob")
    broken = GrantStore.for_workspace(unread, home)
    broken.path.parent.mkdir(parents=True)
    broken.path.write_text("{not json")
    server = servers.start()

    listed = body(await api(server, "GET", "/shard/api/grants"))["workspaces"]
    by_folder = {entry["workspace"]: entry for entry in listed}
    assert sorted(by_folder) == sorted(os.path.realpath(f) for f in (first, second))
    assert [g["rule"] for g in by_folder[os.path.realpath(first)]["grants"]] == [
        "Write(note.txt)",
        "Bash(make test)",
    ]
    assert by_folder[os.path.realpath(first)]["grants"][0]["granted_by"] == "alice · Tab 1a2b"
    # the unreadable file names no folder: it is listed when its folder is asked for
    one = body(await api(server, "GET", "/shard/api/grants" + _query(cwd=str(unread))))
    assert one["workspaces"][0]["grants"] == []
    assert "is unreadable" in one["workspaces"][0]["problem"]

    revoke = _query(workspace=str(first), rule="Write(note.txt)")
    done = await api(server, "DELETE", "/shard/api/grants" + revoke)
    assert done.code == 200, done.body
    assert [g["rule"] for g in body(done)["grants"]] == ["Bash(make test)"]
    assert GrantStore.for_workspace(first, home).rules()[0].text == "Bash(make test)"

    again = await api(server, "DELETE", "/shard/api/grants" + revoke)
    assert again.code == 404
    assert "no workspace grant Write(note.txt)" in body(again)["message"]
    missing = await api(server, "DELETE", "/shard/api/grants" + _query(rule="Edit(*)"))
    assert missing.code == 400
    assert "send workspace" in body(missing)["message"]
    refused = await api(
        server, "DELETE", "/shard/api/grants" + _query(workspace=str(unread), rule="Edit(*)")
    )
    assert refused.code == 409
    assert "fix or remove the file" in body(refused)["message"]
    assert broken.path.read_text() == "{not json"
    assert [g.text for g in GrantStore.for_workspace(second, home).grants()] == ["Edit(*)"]
