"""AcpSession: one ACP session = one Shard agent, its events streamed to the host in order.

Events become updates (updates.py), each sent as soon as it happens, in order; a prompt's
response waits until every update of its turn is out, and a permission request waits for the
tool call it is about. A prompt while a turn runs is a steer of that turn: its response comes
when the turn that carried it ends, or is an error saying why it was not carried.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

from acp.exceptions import RequestError
from acp.interfaces import Client
from acp.schema import (
    AudioContentBlock,
    AvailableCommandsUpdate,
    BlobResourceContents,
    CurrentModeUpdate,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    PromptResponse,
    ResourceContentBlock,
    SessionInfoUpdate,
    SessionMode,
    SessionModeState,
    StopReason,
    TextContentBlock,
    Usage,
)

from shard_core.engine.modes import latest_plan
from shard_core.engine.slash_commands import PromptTurn, run_command
from shard_core.protocol.commands import PROMPT_IMAGES_MAX, image_problem
from shard_core.protocol.events import (
    Event,
    MessageDeltaEvent,
    StatusEvent,
    SteerReceiptEvent,
    TurnEndEvent,
)
from shard_core.sdk import Agent
from shard_core.types import AssistantMessage, ImageBlock, JsonObject, MessageEntry
from shard_core.types.errors import ConfigError
from shard_core.types.session import HookRunCheckpoint
from shard_kernel.acp.eager import start_now
from shard_kernel.acp.replay import replay
from shard_kernel.acp.updates import (
    Update,
    UpdateMapper,
    command_entry,
    plan_update,
    text_chunk,
)

_log = logging.getLogger("shard.acp")

ContentBlock = (
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock
)
SessionUpdate = Update | CurrentModeUpdate | AvailableCommandsUpdate | SessionInfoUpdate
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def prompt_parts(blocks: Sequence[ContentBlock]) -> tuple[str, list[ImageBlock]]:
    """An ACP prompt as Shard's: the text (embedded resources inline, links as mentions) and
    the images. A block Shard cannot take is an invalid-params error naming it."""
    texts: list[str] = []
    images: list[ImageBlock] = []
    for index, block in enumerate(blocks):
        if isinstance(block, TextContentBlock):
            texts.append(block.text)
        elif isinstance(block, ImageContentBlock):
            images.append(_image(index, block.mime_type, block.data))
        elif isinstance(block, ResourceContentBlock):
            about = f" ({block.description})" if block.description else ""
            texts.append(f"[@{block.name}]({block.uri}){about}")
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, BlobResourceContents):
                if resource.mime_type in IMAGE_TYPES:
                    images.append(_image(index, resource.mime_type or "", resource.blob))
                    continue
                raise RequestError.invalid_params(
                    {"message": f"prompt block {index}: a binary resource ({resource.uri}, "
                     f"{resource.mime_type or 'no type'}) cannot be read as text"}
                )  # fmt: skip
            texts.append(f'<resource uri="{resource.uri}">\n{resource.text}\n</resource>')
        else:
            raise RequestError.invalid_params(
                {"message": f"prompt block {index}: audio is not supported (no audio capability)"}
            )
    if len(images) > PROMPT_IMAGES_MAX:  # the agent protocol's limit, for a gateway's agent too
        raise RequestError.invalid_params(
            {"message": f"{len(images)} images: at most {PROMPT_IMAGES_MAX} go with a prompt"}
        )
    text = "\n\n".join(t for t in texts if t)
    if not text.strip() and not images:
        raise RequestError.invalid_params({"message": "the prompt is empty"})
    return text, images


def _image(index: int, mime: str, data: str) -> ImageBlock:
    if mime not in IMAGE_TYPES:
        raise RequestError.invalid_params(
            {"message": f"prompt block {index}: image type {mime!r}; expected {IMAGE_TYPES}"}
        )
    if (problem := image_problem(data)) is not None:
        why = "image data is not base64" if problem == "the data is not base64" else problem
        if why[0].isdigit():
            why = f"the image is {why}"
        raise RequestError.invalid_params({"message": f"prompt block {index}: {why}"})
    return ImageBlock(media_type=mime, data=data)  # pyright: ignore[reportArgumentType]


def stop_reason(agent: Agent, end: TurnEndEvent) -> StopReason:
    if end.reason == "aborted":
        return "cancelled"
    if end.reason == "max_steps":
        return "max_turn_requests"
    if end.reason == "error":
        raise RequestError.internal_error({"message": end.error or "the turn failed"})
    for entry in reversed(agent.session.store.branch()):
        if isinstance(entry, MessageEntry) and isinstance(entry.details.message, AssistantMessage):
            if entry.details.message.stop_reason in ("max_tokens", "refusal"):
                return entry.details.message.stop_reason  # pyright: ignore[reportReturnType]
            break
    return "end_turn"


def hook_stop(prompted: bool, run: HookRunCheckpoint | None) -> tuple[StopReason, JsonObject]:
    """A turn a hook stopped (`hook_stopped`), as ACP says it, and `_meta` naming the hook.

    A prompt a UserPromptSubmit hook kept out of the log is `refusal`: the prompt is not in the
    session, which is what refusal tells a host. A turn stopped after its prompt was logged (a
    Stop hook's or a tool hook's `continue: false`) has no exact ACP reason: `end_turn`, since
    its reply and tool calls stay in the session and go with the next prompt, where `refusal`
    would make a host drop them (Zed removes everything after the last user message) and
    `cancelled` answers session/cancel only."""
    shard: JsonObject = {"stopReason": "hook_stopped"}
    if run is not None:
        shard["hook"] = run.event
        if run.reason:
            shard["reason"] = run.reason
    return ("end_turn" if prompted else "refusal"), {"shard": shard}


SESSION_UPDATE = "session/update"
Notify = Callable[[str, Any], Awaitable[None]]


def chunk_params(session_id: str, event: MessageDeltaEvent) -> dict[str, object]:
    """A text or thinking delta as the `session/update` params the SDK would write for
    `text_chunk(...)` (serialize_params: by alias, no defaults), built without its models:
    the SDK path costs each of thousands of chunks ~10 us of validation and dumping.
    tests/unit/acp pins the two as equal."""
    kind = "agent_thought_chunk" if event.channel == "thinking" else "agent_message_chunk"
    content = {"text": event.delta, "type": "text"}
    return {"sessionId": session_id, "update": {"content": content, "sessionUpdate": kind}}


def raw_notify(client: Client) -> Notify | None:
    """The SDK connection's `send_notification` behind an AgentSideConnection (its `_conn`,
    pinned by tests/unit/acp); None for any other client, which then gets the models."""
    send = getattr(getattr(client, "_conn", None), "send_notification", None)
    return cast(Notify, send) if callable(send) else None


def prompt_response(
    reason: StopReason, end: TurnEndEvent, meta: JsonObject | None = None
) -> PromptResponse:
    """A prompt's answer: why its turn stopped (`meta`: Shard's word for it) and what the turn
    used."""
    usage = end.usage
    return PromptResponse(
        field_meta=meta,
        stop_reason=reason,
        usage=Usage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            total_tokens=usage.input_tokens + usage.output_tokens,
            cached_read_tokens=usage.cache_read_tokens or None,
            cached_write_tokens=usage.cache_write_tokens or None,
        ),
    )


class AcpSession:
    def __init__(self, agent: Agent, client: Client, session_id: str) -> None:
        self.agent = agent
        self.client = client
        self.session_id = session_id
        self.mapper = UpdateMapper(agent.session.config.cwd, agent.session.tools.get)
        self._inflight: list[asyncio.Task[None]] = []
        self.mode = agent.session.mode
        self.plan = latest_plan(agent.session.store.branch())
        self.turn: asyncio.Task[TurnEndEvent] | None = None
        self._notify = raw_notify(client)
        """the connection's own notification sender, for chunks (None: a client without one)"""
        self._unsubscribe = agent.events.subscribe(self._on_event)

    # -- updates -------------------------------------------------------------------------------

    def _on_event(self, event: Event) -> None:
        if isinstance(event, MessageDeltaEvent) and self._notify is not None:
            if event.delta and event.channel != "tool_call":  # the hot path: one chunk
                self._send_params(chunk_params(self.session_id, event))
            return
        for update in self.mapper(event):
            self.send(update)
        if isinstance(event, StatusEvent) and event.mode != self.mode:
            self.mode = event.mode
            self.send(
                CurrentModeUpdate(session_update="current_mode_update", current_mode_id=event.mode)
            )

    def send(self, update: SessionUpdate) -> None:
        """Send one update now: the connection writes it before it could pause (eager.py), so
        the wire keeps the order of the events and a chunk waits for nothing."""
        if len(self._inflight) > 64:
            self._inflight = [t for t in self._inflight if not t.done()]
        try:
            task = start_now(self._send_one(update))
        except Exception as exc:
            _log.warning("acp: session/update failed: %s", exc)
            return
        if task is not None:
            self._inflight.append(task)

    def _send_params(self, params: dict[str, object]) -> None:
        """`send` for a notification already in its wire form (see `chunk_params`)."""
        assert self._notify is not None
        try:
            task = start_now(self._notify_one(self._notify, params))
        except Exception as exc:
            _log.warning("acp: session/update failed: %s", exc)
            return
        if task is not None:
            self._inflight.append(task)

    async def _notify_one(self, notify: Notify, params: dict[str, object]) -> None:
        try:
            await notify(SESSION_UPDATE, params)
        except Exception as exc:  # the host went away: the agent still runs its turn out
            _log.warning("acp: session/update failed: %s", exc)

    async def _send_one(self, update: SessionUpdate) -> None:
        try:
            await self.client.session_update(session_id=self.session_id, update=update)
        except Exception as exc:  # the host went away: the agent still runs its turn out
            _log.warning("acp: session/update failed: %s", exc)

    async def flush(self) -> None:
        """Wait until every update sent so far is written."""
        while pending := [t for t in self._inflight if not t.done()]:
            await asyncio.gather(*pending)
        self._inflight.clear()

    def modes(self) -> SessionModeState:
        available = [
            SessionMode(id=mode.name, name=mode.name.capitalize(), description=mode.description)
            for mode in self.agent.session.modes.values()
        ]
        return SessionModeState(current_mode_id=self.agent.session.mode, available_modes=available)

    def commands(self) -> AvailableCommandsUpdate:
        listed = [command_entry(c.name, c.description, c.hint) for c in self.agent.host.commands()]
        return AvailableCommandsUpdate(
            session_update="available_commands_update", available_commands=listed
        )

    def replay(self) -> None:
        branch = self.agent.session.store.branch()
        for update in replay(branch, self.agent.session.config.cwd, self.agent.session.tools.get):
            self.send(update)

    # -- turns ---------------------------------------------------------------------------------

    async def prompt(self, blocks: Sequence[ContentBlock]) -> PromptResponse:
        text, images = prompt_parts(blocks)
        if self.turn is not None and not self.turn.done():
            return await self._steer(text, images)
        if text.startswith("/") and not images:
            command = self.agent.host.command(text.split(maxsplit=1)[0])
            if command is not None:
                return await self._command(text)
        self.turn = asyncio.ensure_future(self.agent.run(text, images))
        try:
            end = await asyncio.shield(self.turn)
        except asyncio.CancelledError:
            self.agent.abort()
            raise
        return await self._finish(end)

    async def _finish(self, end: TurnEndEvent) -> PromptResponse:
        plan = latest_plan(self.agent.session.store.branch())
        if plan is not None and plan != self.plan:
            self.plan = plan
            self.send(plan_update(plan))
        await self.flush()
        prompted, run = self.mapper.turn_over(end.turn_id)
        if end.reason == "hook_stopped":
            reason, meta = hook_stop(prompted, run)
            return prompt_response(reason, end, meta)
        return prompt_response(stop_reason(self.agent, end), end)

    async def _steer(self, text: str, images: list[ImageBlock]) -> PromptResponse:
        turn = self.turn
        assert turn is not None
        receipt: asyncio.Future[SteerReceiptEvent] = asyncio.get_running_loop().create_future()
        steer_id = ""

        def watch(event: Event) -> None:
            if (
                isinstance(event, SteerReceiptEvent)
                and event.steer_id == steer_id
                and event.status != "queued"
                and not receipt.done()
            ):
                receipt.set_result(event)

        unsubscribe = self.agent.events.subscribe(watch)
        try:
            steer_id = self.agent.steer(text, images)
            done, _ = await asyncio.wait({receipt, turn}, return_when=asyncio.FIRST_COMPLETED)
            got = receipt.result() if receipt in done else None
        finally:
            unsubscribe()
        if got is None or got.status != "admitted":
            why = got.reason if got is not None and got.reason else "the turn ended first"
            raise RequestError.invalid_request(
                {"message": f"a turn was running and the steer was not carried: {why}",
                 "steerId": steer_id, "status": got.status if got else "rejected"}
            )  # fmt: skip
        end = await asyncio.shield(turn)
        response = await self._finish(end)
        response.field_meta = {"shard": {"steerId": steer_id, "steer": "admitted"}}
        return response

    async def _command(self, text: str) -> PromptResponse:
        try:  # the kernel's dispatcher: the same words (shell-split), the same messages
            markdown = await run_command(self.agent.host, text)
        except ConfigError as exc:  # a command's failure is its output
            markdown = str(exc)
        if isinstance(markdown, PromptTurn):  # a prompt command: its text is the turn
            self.turn = asyncio.ensure_future(self.agent.run(str(markdown)))
            return await self._finish(await asyncio.shield(self.turn))
        self.send(text_chunk(str(markdown)))
        await self.flush()
        return PromptResponse(stop_reason="end_turn")

    def cancel(self) -> bool:
        return self.agent.abort()

    def set_mode(self, mode: str) -> None:
        self.agent.set_mode(mode)  # its status event sends current_mode_update

    async def close(self) -> None:
        self._unsubscribe()
        self.agent.abort()
        if self.turn is not None:
            with contextlib.suppress(BaseException):
                await self.turn
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(self.flush(), 5)
        await self.agent.close()
