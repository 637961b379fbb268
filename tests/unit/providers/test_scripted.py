"""ScriptedProvider: steps in order, expectations, exhaustion, session replay, the demo."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from shard_core.providers import Expectation, ScriptedProvider, ScriptStep, ScriptToolCall, scripted
from shard_core.providers.scripted import FINISHED
from shard_core.types import (
    AssistantMessage,
    Message,
    MessageDetails,
    MessageDone,
    MessageEntry,
    ProviderRequest,
    SessionHeaderDetails,
    SessionHeaderEntry,
    StreamEvent,
    SystemSection,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ToolCallBlock,
    ToolCallDelta,
    ToolResult,
    ToolResultBlock,
    ToolResultDetails,
    ToolResultEntry,
    UserMessage,
)
from shard_core.types.errors import ConfigError

HI = UserMessage(content=[TextBlock(text="hi")])
PASSED = Expectation(last_tool_result_contains="passed", description="the test run to pass")


def request(*messages: Message) -> ProviderRequest:
    system = [SystemSection(name="identity", text="You are Shard. " * 20)]
    return ProviderRequest(model="scripted/demo", system=system, messages=list(messages) or [HI])


def result(text: str, *, is_error: bool = False, call_id: str = "call_0_0") -> UserMessage:
    block = ToolResultBlock(tool_call_id=call_id, content=[TextBlock(text=text)], is_error=is_error)
    return UserMessage(content=[block])


async def play(provider: ScriptedProvider, req: ProviderRequest) -> list[StreamEvent]:
    return [event async for event in provider.stream(req)]


async def reply(provider: ScriptedProvider, *messages: Message) -> AssistantMessage:
    events = await play(provider, request(*messages))
    assert isinstance(events[-1], MessageDone)
    assert sum(isinstance(e, MessageDone) for e in events) == 1
    return events[-1].message


async def test_steps_play_in_order_then_the_script_finishes() -> None:
    provider = ScriptedProvider(
        [
            ScriptStep(text="Reading.", tool_calls=[ScriptToolCall(name="read", input={"p": 1})]),
            ScriptStep(text="Done."),
        ]
    )
    first = await reply(provider)
    assert first.content == [
        TextBlock(text="Reading."),
        ToolCallBlock(id="call_0_0", name="read", input={"p": 1}),
    ]
    assert (first.stop_reason, first.model) == ("tool_use", "script")
    second = await reply(provider, HI, first, result("x"))
    assert (second.content, second.stop_reason) == ([TextBlock(text="Done.")], "end_turn")
    assert provider.remaining == 0
    for _ in range(2):
        finished = await reply(provider)
        assert (finished.text, finished.stop_reason) == (FINISHED, "end_turn")
    assert FINISHED == "[scripted demo] script finished"


async def test_tool_call_ids_are_deterministic() -> None:
    calls = [ScriptToolCall(name="read"), ScriptToolCall(name="ls")]
    steps = [ScriptStep(tool_calls=calls), ScriptStep(tool_calls=calls)]
    runs = []
    for _ in range(2):
        provider = ScriptedProvider(steps)
        runs.append([[c.id for c in (await reply(provider)).tool_calls] for _ in steps])
    assert runs[0] == runs[1] == [["call_0_0", "call_0_1"], ["call_1_0", "call_1_1"]]


async def test_text_and_thinking_stream_in_chunks_before_the_message() -> None:
    text = "one two three four five six seven eight nine ten"
    step = ScriptStep(thinking="let me think about it", text=text, tool_calls=[])
    provider = ScriptedProvider([step, ScriptStep(tool_calls=[ScriptToolCall(name="ls")])])
    events = await play(provider, request())
    texts = [e.text for e in events if isinstance(e, TextDelta)]
    thoughts = [e.text for e in events if isinstance(e, ThinkingDelta)]
    assert 2 <= len(texts) <= 4
    assert "".join(texts) == text
    assert "".join(thoughts) == "let me think about it"
    assert isinstance(events[0], ThinkingDelta)
    message = events[-1]
    assert isinstance(message, MessageDone)
    assert message.message.content == [
        ThinkingBlock(thinking="let me think about it"),
        TextBlock(text=text),
    ]
    tool_events = await play(provider, request())
    assert tool_events[0] == ToolCallDelta(id="call_1_0", name="ls", partial_json="{}")


async def test_usage_is_estimated_from_characters() -> None:
    provider = ScriptedProvider([ScriptStep(text="x" * 400)])
    done = (await play(provider, request()))[-1]
    assert isinstance(done, MessageDone)
    assert done.usage.input_tokens > 75  # the system prompt alone is 300 characters
    assert done.usage.output_tokens >= 100
    assert done.usage.cost_usd == 0.0
    assert done.message.usage == done.usage


async def test_usage_of_a_growing_history_matches_a_fresh_count() -> None:
    """The sizes remembered between requests never stale: same objects, new ones, fewer."""
    steps = [ScriptStep(text=f"step {i}") for i in range(4)]
    reused, fresh = ScriptedProvider(steps), ScriptedProvider(steps)
    first = UserMessage(content=[TextBlock(text="a" * 800)])
    histories = [
        [first],
        [first, result("b" * 400)],
        [first, result("b" * 400), result("c" * 4000)],
        [result("d" * 40)],  # a compacted history: most objects gone
    ]
    for history in histories:
        got = (await play(reused, request(*history)))[-1]
        want = (await play(fresh, request(*[m.model_copy() for m in history])))[-1]
        assert isinstance(got, MessageDone)
        assert isinstance(want, MessageDone)
        assert got.usage.input_tokens == want.usage.input_tokens


async def test_expectation_met_continues_the_script() -> None:
    provider = ScriptedProvider([ScriptStep(text="All green.", expect=PASSED)])
    answer = await reply(provider, HI, result("3 passed in 0.1s\n\nexit code 0"))
    assert answer.text == "All green."


async def test_unmet_expectation_explains_and_ends_the_turn() -> None:
    steps = [
        ScriptStep(text="All green.", expect=PASSED, tool_calls=[ScriptToolCall(name="x")]),
        ScriptStep(text="next"),
    ]
    provider = ScriptedProvider(steps)
    answer = await reply(provider, HI, result("1 failed in 0.1s\n\nexit code 1"))
    assert answer.content == [
        TextBlock(
            text="[scripted demo] expected the test run to pass, but the last tool result was:\n"
            "1 failed in 0.1s\n\nexit code 1"
        )
    ]
    assert answer.stop_reason == "end_turn"
    assert (await reply(provider)).text == "next"  # the failed step was consumed


async def test_expectation_checks_the_newest_result_and_error_flag() -> None:
    expect = Expectation(last_tool_result_contains=["a", "b"], last_tool_is_error=False)
    old, new = result("a b", call_id="c1"), result("a b", is_error=True, call_id="c2")
    provider = ScriptedProvider([ScriptStep(text="."), ScriptStep(text="ok", expect=expect)])
    played = AssistantMessage(content=[TextBlock(text=".")], model="script")  # step 0, earlier
    answer = await reply(provider, HI, old, played, new)
    assert answer.text == (
        "[scripted demo] expected the last tool result to contain 'a' and to contain 'b' and "
        "not to be an error, but the last tool result (an error) was:\na b"
    )


async def test_expectation_without_any_tool_result() -> None:
    provider = ScriptedProvider([ScriptStep(text="ok", expect=PASSED)])
    answer = await reply(provider)
    assert (
        answer.text == "[scripted demo] expected the test run to pass, but there was no tool result"
    )


async def test_long_tool_results_are_cut_to_their_end() -> None:
    provider = ScriptedProvider([ScriptStep(text="ok", expect=PASSED)])
    answer = await reply(provider, HI, result("x" * 5000 + "FAILED tail"))
    assert answer.text.endswith("xFAILED tail")
    assert len(answer.text) < 1000


async def test_delay_is_spread_over_the_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    pauses: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        pauses.append(seconds)

    monkeypatch.setattr(scripted, "asyncio", SimpleNamespace(sleep=fake_sleep))
    provider = ScriptedProvider([ScriptStep(text="a b c d", delay=0.2), ScriptStep(text="x")])
    await play(provider, request())
    assert pauses == [pytest.approx(0.05)] * 4
    pauses.clear()
    await play(provider, request())
    assert pauses == [0.0]


async def test_a_delayed_reply_is_cancellable() -> None:
    async def consume() -> None:
        async for _ in ScriptedProvider([ScriptStep(text="a b", delay=600)]).stream(request()):
            pass

    task = asyncio.create_task(consume())
    await asyncio.sleep(0)  # let it reach its first pause
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def _write_session(path: Path) -> list[AssistantMessage]:
    replies = [
        AssistantMessage(
            content=[
                ThinkingBlock(thinking="hm", signature="sig"),
                TextBlock(text="Looking."),
                ToolCallBlock(id="toolu_abc", name="read", input={"path": "calc.py"}),
            ],
            model="claude-sonnet-4-6",
            stop_reason="tool_use",
        ),
        AssistantMessage(content=[TextBlock(text="Fixed.")], stop_reason="end_turn"),
    ]
    header = SessionHeaderDetails(session_id="s1", cwd="/work")
    entries = [
        SessionHeaderEntry(id="e0", ts=1.0, details=header),
        MessageEntry(id="e1", parentId="e0", ts=2.0, details=MessageDetails(message=HI)),
        MessageEntry(id="e2", parentId="e1", ts=3.0, details=MessageDetails(message=replies[0])),
        ToolResultEntry(
            id="e3",
            parentId="e2",
            ts=4.0,
            details=ToolResultDetails(
                tool_call_id="toolu_abc", name="read", result=ToolResult.ok("x = 1")
            ),
        ),
        MessageEntry(id="e4", parentId="e3", ts=5.0, details=MessageDetails(message=replies[1])),
    ]
    path.write_text("".join(e.to_json() + "\n" for e in entries) + "\n", encoding="utf-8")
    return replies


async def test_replays_the_assistant_side_of_a_session(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    recorded = _write_session(path)
    provider = ScriptedProvider.from_session(path)
    first = await reply(provider)
    assert (first.content, first.stop_reason) == (recorded[0].content, "tool_use")
    second = await reply(provider)
    assert (second.content, second.stop_reason) == (recorded[1].content, "end_turn")
    assert (await reply(provider)).text == FINISHED
    assert provider.model == str(path)


def test_a_broken_session_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    _write_session(path)
    path.write_text(path.read_text() + '{"type": "message"}\n')
    with pytest.raises(ConfigError, match="line 7"):
        ScriptedProvider.from_session(path)


async def test_script_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    script = {
        "name": "t",
        "steps": [{"text": "hi", "tool_calls": [{"name": "ls", "input": {"path": "."}}]}],
    }
    path.write_text(json.dumps(script))
    provider = ScriptedProvider.from_file(path)
    assert (await reply(provider)).tool_calls == [
        ToolCallBlock(id="call_0_0", name="ls", input={"path": "."})
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{not json", "invalid JSON at line 1"),
        ('{"name": "t", "steps": [{"txt": "typo"}]}', "steps.0.txt: Extra inputs"),
        ('{"name": "t", "steps": [{"tool_calls": [{"input": {}}]}]}', "tool_calls.0.name"),
        ('{"steps": []}', "name: Field required"),
        ('{"name": "t", "steps": [{"delay": -1}]}', "steps.0.delay"),
    ],
)
def test_bad_script_files_are_config_errors(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match=problem) as caught:
        ScriptedProvider.from_file(path)
    assert str(path) in str(caught.value)


def test_missing_script_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read script"):
        ScriptedProvider.from_file(tmp_path / "nope.json")


async def test_demo_reads_edits_tests_and_sums_up() -> None:
    provider = ScriptedProvider.demo()
    assert (provider.name, provider.model) == ("scripted", "demo")
    read = await reply(provider)
    assert read.tool_calls == [ToolCallBlock(id="call_0_0", name="read", input={"path": "calc.py"})]
    listing = result("     1\tdef add(a, b): return a - b\n")
    edit = await reply(provider, HI, read, listing)
    assert edit.tool_calls[0].name == "edit"
    assert edit.tool_calls[0].input == {
        "path": "calc.py",
        "old_string": "def add(a, b): return a - b",
        "new_string": "def add(a, b): return a + b",
    }
    bash = await reply(provider, HI, edit, result("edited calc.py", call_id="call_1_0"))
    assert bash.tool_calls[0].input["command"] == "python -m pytest -q"
    tests_ran = result("2 passed in 0.01s\n\nexit code 0", call_id="call_2_0")
    summary = await reply(provider, HI, bash, tests_ran)
    assert summary.stop_reason == "end_turn"
    assert "a + b" in summary.text
    assert not summary.text.startswith("[scripted demo] expected")


async def test_demo_stops_clearly_when_the_tests_fail() -> None:
    provider = ScriptedProvider.demo()
    for _ in range(3):
        await reply(provider, HI, result("     1\tdef add(a, b): return a - b\n"))
    failed = await reply(provider, HI, result("1 failed in 0.01s\n\nexit code 1"))
    assert failed.text.startswith(
        "[scripted demo] expected the test run to pass, but the last tool result was:\n1 failed"
    )


THREE = [ScriptStep(text="one"), ScriptStep(text="two"), ScriptStep(text="three")]


async def test_a_resumed_session_continues_after_the_replies_it_holds() -> None:
    first = await reply(ScriptedProvider(THREE))
    assert first.text == "one"
    restarted = ScriptedProvider(THREE)  # a new process: only the log knows what was played
    second = await reply(restarted, HI, first, HI)
    assert second.text == "two"
    third = await reply(ScriptedProvider(THREE), HI, first, HI, second, HI)
    assert third.text == "three"
    assert (await reply(ScriptedProvider(THREE), HI, first, HI, second, HI, third)).text == FINISHED


async def test_another_models_replies_are_not_steps_of_the_script() -> None:
    demo = AssistantMessage(content=[TextBlock(text="hello from the demo")], model="demo")
    real = AssistantMessage(content=[TextBlock(text="hello")], model="claude-sonnet-4-5")
    answer = await reply(ScriptedProvider(THREE), HI, demo, HI, real, HI)
    assert answer.text == "one"


async def test_a_reply_with_tool_calls_names_its_step() -> None:
    steps = [ScriptStep(text=str(n), tool_calls=[ScriptToolCall(name="ls")]) for n in range(4)]
    provider = ScriptedProvider(steps)
    # compaction folded steps 0 and 1 into a summary: the kept tail starts at step 2
    kept = AssistantMessage(content=[ToolCallBlock(id="call_2_0", name="ls")], model="script")
    assert provider.position([HI, kept, result("x", call_id="call_2_0")]) == 3
    assert (await reply(provider, HI, kept, result("x", call_id="call_2_0"))).text == "3"


async def test_a_replay_counts_its_replies_whatever_their_ids(tmp_path: Path) -> None:
    replies = [
        AssistantMessage(content=[ToolCallBlock(id="call_7_0", name="ls")], model="m"),
        AssistantMessage(content=[TextBlock(text="done")], model="m"),
    ]
    provider = ScriptedProvider(replies, model="m")
    assert provider.position([HI, replies[0], result("x", call_id="call_7_0")]) == 1
