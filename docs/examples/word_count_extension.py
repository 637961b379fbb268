"""word_count: an example Shard extension — a tool, a slash command, an event handler, a provider.

Copy this file into `SHARD_HOME/extensions/` (default `~/.shard/extensions/`) and every agent
you start loads it. Try it without any API key:

    mkdir -p ~/.shard/extensions && cp docs/examples/word_count_extension.py ~/.shard/extensions/
    shard run --model count/any "count the words in README.md"

docs/EXTENSIONS.md walks through it; tests/integration/sdk/test_extension_guide.py runs it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from shard_core.contracts import ExtensionApi, ToolContext
from shard_core.protocol import ToolResultEvent
from shard_core.tools.workspace import display_path, resolve_in_workspace
from shard_core.types import (
    AssistantMessage,
    JsonObject,
    MessageDone,
    ProviderRequest,
    StreamEvent,
    TextBlock,
    TextDelta,
    ToolCallBlock,
    ToolResult,
    ToolResultBlock,
    Usage,
)


class WordCountTool:
    """A tool is a name, a description and a JSON schema for the model, plus `execute`."""

    name = "word_count"
    description = "Count the words in a text file of the workspace."
    input_schema: JsonObject = {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "relative to the workspace"}},
        "required": ["path"],
    }
    read_only = True  # it changes nothing: the gate allows it without asking

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        # A failure is a result the model reads, never an exception.
        resolved = resolve_in_workspace(str(input.get("path", "")), ctx)
        if isinstance(resolved, ToolResult):
            return resolved  # outside the workspace, or no usable path
        try:
            words = len(resolved.read_text(encoding="utf-8").split())
        except (OSError, UnicodeDecodeError) as exc:
            return ToolResult.error(f"cannot read {display_path(resolved, ctx)}: {exc}")
        return ToolResult.ok(f"{display_path(resolved, ctx)}: {words} words", words=words)


class CountingModel:
    """A provider with no model behind it: it calls `word_count` on the last word of the
    prompt, then reports what the tool said. Handy for trying an extension without a key."""

    name = "count"
    context_window = 8_000

    def __init__(self, model: str) -> None:
        self.model = model

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        last = request.messages[-1]
        results = [b for b in last.content if isinstance(b, ToolResultBlock)]
        if results:
            said = " ".join(c.text for c in results[-1].content if isinstance(c, TextBlock))
            text = f"The tool says: {said}"
            yield TextDelta(text=text)
            message = AssistantMessage(content=[TextBlock(text=text)], stop_reason="end_turn")
        else:
            prompt = " ".join(b.text for b in last.content if isinstance(b, TextBlock))
            path = prompt.split()[-1] if prompt.split() else "."
            call_id = f"count-{len(request.messages)}"
            call = ToolCallBlock(id=call_id, name="word_count", input={"path": path})
            message = AssistantMessage(content=[call], stop_reason="tool_use")
        yield MessageDone(message=message, usage=Usage(input_tokens=10, output_tokens=5))


def extension(api: ExtensionApi) -> Callable[[], None]:
    """Shard calls this once per agent with the registration API; what it returns (optional)
    is run when the agent closes."""
    counted: list[str] = []  # this agent's word counts, newest last

    api.register_tool(WordCountTool())

    def on_tool_result(event: ToolResultEvent) -> None:  # every event of this agent, by type
        if event.name == "word_count" and not event.result.is_error:
            counted.append(event.result.text)

    api.on("tool_result", on_tool_result)

    def words_command(args: list[str]) -> str:  # `/words` in a cell; returns Markdown
        if not counted:
            return "No word counts yet."
        return "Word counts so far:\n" + "\n".join(f"- {line}" for line in counted)

    api.register_command("words", "the word counts this agent made", words_command)
    api.register_provider("count", CountingModel)  # model strings `count/<anything>`

    def dispose() -> None:  # run when the agent closes
        counted.clear()

    return dispose
