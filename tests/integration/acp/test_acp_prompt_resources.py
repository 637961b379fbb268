"""An ACP host's prompt content blocks reach the model's request (a fake OpenAI-compatible
server, the real agent-client-protocol SDK as the host): the text, a `resource_link` as a
mention of its name and URI, an embedded text `resource` inline with its URI, an embedded image
`resource` (a blob) and an `image` block as image parts."""

from __future__ import annotations

from pathlib import Path

from acp.schema import (
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from tests.fixtures.fake_llm import FakeLLMServer
from tests.integration.acp.conftest import AcpHost, acp_agent

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"
    "nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg=="
)
GIF = "R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw=="


async def test_resources_links_and_images_of_a_prompt_reach_the_models_request(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    calc = project / "calc.py"
    prompt = [
        TextContentBlock(type="text", text="why does add fail?"),
        ResourceContentBlock(
            type="resource_link",
            name="calc.py",
            uri=calc.as_uri(),
            description="the module under test",
        ),
        EmbeddedResourceContentBlock(
            type="resource",
            resource=TextResourceContents(uri="file:///notes/todo.md", text="- fix add\n"),
        ),
        EmbeddedResourceContentBlock(
            type="resource",
            resource=BlobResourceContents(uri="file:///shot.gif", blob=GIF, mime_type="image/gif"),
        ),
        ImageContentBlock(type="image", data=PNG, mime_type="image/png"),
    ]
    with FakeLLMServer([{"text": "It subtracts."}]) as fake:
        env = {
            **acp_env,
            "OPENAI_API_KEY": "sk-fake-for-the-test",
            "OPENAI_BASE_URL": fake.openai_base_url,
        }
        host = AcpHost()
        async with acp_agent(
            host, env, "--model", "openai/fake-model", stderr=tmp_path / "stderr"
        ) as (conn, _p, _i):
            new = await conn.new_session(cwd=str(project), mcp_servers=[])
            response = await conn.prompt(session_id=new.session_id, prompt=prompt)
        assert response.stop_reason == "end_turn"
        fake.wait_idle()
        [request] = fake.requests
    [user] = [m for m in request.body["messages"] if m["role"] == "user"]
    texts = [p["text"] for p in user["content"] if p["type"] == "text"]
    images = [p["image_url"]["url"] for p in user["content"] if p["type"] == "image_url"]
    assert texts == [
        "why does add fail?\n\n"
        f"[@calc.py]({calc.as_uri()}) (the module under test)\n\n"
        '<resource uri="file:///notes/todo.md">\n- fix add\n\n</resource>'
    ]
    assert images == [f"data:image/gif;base64,{GIF}", f"data:image/png;base64,{PNG}"]
