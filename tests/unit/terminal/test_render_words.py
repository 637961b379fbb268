"""The terminal renderer's words: an unknown cost, and who decided a permission."""

from __future__ import annotations

import io

import pytest

from shard_core.protocol.events import (
    MessageCompleteEvent,
    MessageDeltaEvent,
    PermissionResolvedEvent,
    TurnEndEvent,
)
from shard_core.types import AssistantMessage, TextBlock, Usage
from shard_kernel.terminal.render import TerminalRenderer, format_usage, resolved_text


def test_a_cost_is_shown_known_unknown_or_not_at_all() -> None:
    assert format_usage(Usage(input_tokens=5, output_tokens=2, cost_usd=0.0123)) == (
        "5 in · 2 out · $0.0123"
    )
    assert format_usage(Usage(input_tokens=5, output_tokens=2, cost_usd=None)) == (
        "5 in · 2 out · cost unknown"
    )
    assert format_usage(Usage(input_tokens=5, output_tokens=2)) == "5 in · 2 out"


def test_a_turn_with_an_unknown_cost_says_so() -> None:
    out = io.StringIO()
    usage = Usage(input_tokens=10, output_tokens=3, cost_usd=None)
    TerminalRenderer(out, color=False).handle(
        TurnEndEvent(agent_id="a", seq=1, ts=0, turn_id="t", reason="completed", usage=usage)
    )
    assert out.getvalue() == "— completed · 10 in · 3 out · cost unknown\n"


@pytest.mark.parametrize(
    ("fields", "text"),
    [
        ({"source": "rule", "rule": "Bash(pytest:*)", "decided_by": "Bash(pytest:*)"},
         "allowed by rule Bash(pytest:*)"),
        ({"source": "grant", "rule": "Bash(make:*)", "decided_by": "Bash(make:*)"},
         "allowed by grant Bash(make:*)"),
        ({"source": "client", "decided_by": "alice · Tab 2", "client_id": "c7"},
         "allowed by alice · Tab 2"),
        ({"source": "client", "decision": "allow_always", "decided_by": "c7"},
         "allowed always by c7"),
        ({"source": "headless", "decision": "deny", "decided_by": "headless policy: deny"},
         "denied by headless policy: deny"),
    ],
)  # fmt: skip
def test_who_decided_in_words(fields: dict[str, str], text: str) -> None:
    event = PermissionResolvedEvent.model_validate(
        {"agent_id": "a", "seq": 1, "ts": 0, "request_id": "r", "decision": "allow", **fields}
    )
    assert resolved_text(event) == text


def _message(seq: int, text: str) -> MessageCompleteEvent:
    message = AssistantMessage(content=[TextBlock(text=text)])
    return MessageCompleteEvent(
        agent_id="a", seq=seq, ts=0, turn_id="t", entry_id="e", message=message
    )


def test_a_message_whose_deltas_were_not_seen_is_shown_whole_once() -> None:
    """Deltas are ephemeral (not in the log): a client that synced a gap or attached mid-message
    gets only the `message_complete`, and must still show the text; a streamed one is not
    shown twice."""
    out = io.StringIO()
    render = TerminalRenderer(out, color=False)
    render(_message(1, "I could not write it."))
    render(MessageDeltaEvent(agent_id="a", seq=2, ts=0, turn_id="t", delta="Stre", channel="text"))
    render(MessageDeltaEvent(agent_id="a", seq=3, ts=0, turn_id="t", delta="amed.", channel="text"))
    render(_message(4, "Streamed."))
    render(_message(5, "\x1b]0;title\x07Again"))
    assert out.getvalue() == "I could not write it.\nStreamed.\n\\x1b]0;title\\x07Again\n"


def test_deltas_lost_after_the_first_are_completed_from_the_message() -> None:
    out = io.StringIO()
    render = TerminalRenderer(out, color=False)
    render(
        MessageDeltaEvent(agent_id="a", seq=1, ts=0, turn_id="t", delta="I could ", channel="text")
    )
    render(_message(4, "I could not write it."))
    render(TurnEndEvent(agent_id="a", seq=5, ts=0, turn_id="t", reason="completed", usage=Usage()))
    assert out.getvalue().startswith("I could not write it.\n— completed")
