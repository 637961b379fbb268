"""An AgentWidget's transcript as static outputs: what a saved notebook keeps of a live widget.

The live widget exists only while its kernel runs. Its display also carries Shard's render MIME —
`{"version": 1, "descriptors": [a text fallback], "transcript": [events…], "state": {…}}`, the
events a renderer needs to draw the conversation — and a `text/plain` summary, both refreshed when
a turn ends. Bounded: the newest events that fit `MAX_EVENTS` and `MAX_BYTES`, the count of older
ones in `omitted`; streamed deltas that a complete message replaced are dropped; a prompt's image
over `MAX_IMAGE_CHARS` is a note.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from shard_core.protocol.mime import RENDER_MIME, render_payload
from shard_core.types import TextDescriptor

MAX_EVENTS = 500
MAX_BYTES = 1_000_000
"""Serialized size of the kept events (a notebook holds the snapshot of every agent cell)."""
MAX_IMAGE_CHARS = 200_000
"""Base64 of one prompt image kept in the saved transcript; a larger one is a note there."""
MAX_SUMMARY_CHARS = 4000
_SHOWN = 300

EventDict = dict[str, Any]


def snapshot_bundle(events: Sequence[EventDict], state: Mapping[str, Any]) -> dict[str, Any]:
    """The static part of a widget's display: Shard's render MIME and a text summary."""
    kept, omitted = transcript(events)
    summary = summary_text(kept, state, omitted)
    payload = render_payload(
        [TextDescriptor(text=summary)], transcript=kept, omitted=omitted, state=dict(state)
    )
    return {RENDER_MIME: payload, "text/plain": summary}


def _superseded(event: EventDict, turns: set[object], calls: set[object]) -> bool:
    """A streamed event whose final form follows it (the completed message, the tool's result)."""
    if event["type"] == "message_delta":
        return event.get("turn_id") in turns
    return event["type"] == "tool_update" and event.get("tool_call_id") in calls


def transcript(events: Sequence[EventDict]) -> tuple[list[EventDict], int]:
    """The events worth keeping, oldest first, bounded; and how many older ones were left out.

    A streamed `message_delta` is dropped when a `message_complete` of its turn follows it (that
    message holds the whole text); one that none follows (an aborted stream) is kept. Likewise a
    `tool_update` when its call's `tool_result` follows."""
    newest_first: list[EventDict] = []
    completed_turns: set[object] = set()
    finished_calls: set[object] = set()
    for event in reversed(events):
        if event["type"] == "message_complete":
            completed_turns.add(event.get("turn_id"))
        elif event["type"] == "tool_result":
            finished_calls.add(event.get("tool_call_id"))
        elif _superseded(event, completed_turns, finished_calls):
            continue
        newest_first.append(_saved_images(event))
    kept: list[EventDict] = []
    size = 0
    for event in newest_first:
        size += len(json.dumps(event, ensure_ascii=False))
        if len(kept) == MAX_EVENTS or size > MAX_BYTES:
            break
        kept.append(event)
    kept.reverse()
    return kept, len(newest_first) - len(kept)


def summary_text(events: Sequence[EventDict], state: Mapping[str, Any], omitted: int = 0) -> str:
    """The transcript in plain text: a header, then a line or two per event that says something."""
    head = f"Shard agent · {state.get('model') or 'unknown model'} · {state.get('mode')} mode"
    head += f" · {state.get('status')}" + (" · scripted demo" if state.get("demo") else "")
    lines = [head]
    if omitted:
        lines.append(f"… {omitted} earlier event{'s' if omitted != 1 else ''} not kept")
    lines += [line for event in events for line in _lines(event)]
    text = "\n".join(lines)
    if len(text) > MAX_SUMMARY_CHARS:  # keep the header and the end: the latest turn matters
        text = head + "\n…\n" + text[-(MAX_SUMMARY_CHARS - len(head) - 3) :]
    return text


def _lines(event: EventDict) -> list[str]:
    kind = event["type"]
    if kind == "turn_start":
        images = [_image_line(b) for b in event.get("images") or []]
        return [f"> {_short(event['prompt'])}", *images]
    if kind == "message_complete":
        text = _text_of(event["message"].get("content", []))
        return [f"  {_short(text)}"] if text.strip() else []
    if kind == "message_delta" and event.get("channel") == "text":
        return [f"  {_short(event['delta'])}"]
    if kind == "tool_result":
        result = event["result"]
        mark = "✗" if result.get("is_error") else "✓"
        text = "\n".join(
            b.get("text", "") for b in result.get("content", []) if b["type"] == "text"
        )
        return [f"  {mark} {event['name']}: {_short(text)}"]
    if kind == "permission_request":
        return [f"  ? {_short(event['prompt'])}"]
    if kind == "permission_resolved":
        return [f"    {event['decision']} by {event['decided_by']}"]
    if kind == "turn_end":
        return [f"— {event['reason']} · {usage_text(event.get('usage') or {})}"]
    if kind == "error":
        return [f"  ✗ {_short(event['message'])}"]
    return []


def _image_line(block: Mapping[str, Any]) -> str:
    if block.get("type") != "image":
        return f"  [{_short(str(block.get('text', '')))}]"
    size = len(str(block.get("data", ""))) * 3 // 4  # base64: four characters per three bytes
    return f"  [{block.get('media_type', 'image')} image, {size:,} bytes]"


def _saved_images(event: EventDict) -> EventDict:
    """A prompt's images as the saved output keeps them: one over MAX_IMAGE_CHARS of base64 is a
    note instead (a screenshot would otherwise crowd the rest of the transcript out)."""
    images = event.get("images") or []
    if event["type"] != "turn_start" or not any(_too_big(b) for b in images):
        return event
    kept = [
        {"type": "text", "text": f"{b['media_type']} image, not kept in the saved output"}
        if _too_big(b)
        else b
        for b in images
    ]
    return {**event, "images": kept}


def _too_big(block: Mapping[str, Any]) -> bool:
    return block.get("type") == "image" and len(str(block.get("data", ""))) > MAX_IMAGE_CHARS


def usage_text(usage: Mapping[str, Any]) -> str:
    cost = usage.get("cost_usd", 0.0)
    parts = [f"{usage.get('input_tokens', 0)} in", f"{usage.get('output_tokens', 0)} out"]
    if cost is None:
        parts.append("cost unknown")
    elif cost:
        parts.append(f"${cost:.4f}")
    return " · ".join(parts)


def _text_of(blocks: list[dict[str, Any]]) -> str:
    return "\n".join(b.get("text", "") for b in blocks if b.get("type") == "text")


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _SHOWN else flat[: _SHOWN - 1] + "…"
