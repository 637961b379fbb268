"""`/shard/api/agents/<id>/mention-file` on a real `shard gateway`: an `@file:` mention's text,
read with the read tool's containment: a file of the agent's folder is read, a symbolic link in
the folder that points outside it and a `..` path are refused, a missing file and a binary one
say so."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

from tests.integration.gateway.conftest import Servers, api, body, write_script


async def test_a_link_pointing_outside_the_folder_is_refused(
    servers: Servers, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("the threshold is 42\n")
    (workspace / "blob.bin").write_bytes(b"\xff\xfe\x00\x01")
    outside = workspace.parent / "outside.txt"
    outside.write_text("not for the agent\n")
    (workspace / "link.txt").symlink_to(outside)
    server = servers.start()
    model = write_script(workspace.parent, [{"text": "ok"}])
    created = await api(
        server, "POST", "/shard/api/agents", {"cwd": str(workspace), "model": model}
    )
    agent = body(created)["id"]

    async def mention(path: str) -> tuple[int, dict[str, object]]:
        query = urllib.parse.urlencode({"path": path})
        answer = await api(server, "GET", f"/shard/api/agents/{agent}/mention-file?{query}")
        return answer.code, body(answer)

    assert await mention("notes.txt") == (
        200,
        {"path": "notes.txt", "text": "the threshold is 42\n", "more": False},
    )
    real = outside.resolve()
    code, refused = await mention("link.txt")
    assert (code, refused["message"]) == (
        403,
        f"@file:link.txt is outside the agent's folder {workspace} (it resolves to {real})",
    )
    code, refused = await mention("../outside.txt")
    assert code == 403
    assert str(refused["message"]).startswith("@file:../outside.txt is outside the agent's folder")
    code, missing = await mention("missing.txt")
    assert (code, missing["message"]) == (
        404,
        "there is no text file missing.txt in the agent's folder",
    )
    code, binary = await mention("blob.bin")
    assert (code, binary["message"]) == (415, "blob.bin is not a text file (not UTF-8)")
    unknown = await api(server, "GET", "/shard/api/agents/agent-nope/mention-file?path=a")
    assert unknown.code == 404
