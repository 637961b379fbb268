"""`POST /shard/api/complete`: inline completion for Lab's editors (the extension's
`IInlineCompletionProvider`), one small model request per call.

The body is `{"prefix", "suffix", "language", "path", "cells_above", "editor"}`; the answer
is `{"text", "model"}`. The model is config.json's `completion.model`, else the one a new
agent gets (agent_defaults.py), built once per model string with the server's keys, which
never reach the browser. A client that goes away (Lab cancels a completion on the next
keystroke) cancels the model request with it, and a newer request for the same `editor`
cancels the older one before it starts, so an editor has at most one model request in
flight. A missing model, a bad body or a provider's failure is a JSON `{"message"}` saying
what to fix.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from typing import Any

from jupyter_server.auth.decorator import authorized
from tornado import web

from shard_core.contracts import Provider
from shard_core.engine.completion import CompletionAsk, complete
from shard_core.engine.config import ShardConfig, load_config
from shard_core.providers.models import NO_MODEL, create_provider
from shard_core.types.errors import ConfigError, ProviderError
from shard_kernel.agent_defaults import default_model
from shard_kernel.gateway.handlers import ShardAPIHandler
from shard_kernel.gateway.validation import BadRequestError, parse_json_object
from shard_kernel.registrations import provider_specs

MAX_BODY_CHARS = 64_000
_running: dict[str, asyncio.Task[str]] = {}
"""the completion running for each editor (the body's `editor`): a newer one cancels it first"""
_providers: dict[tuple[str, str], Provider] = {}


def completion_model(config: ShardConfig) -> str:
    """`completion.model` from config.json, else the model a new agent gets."""
    chosen = config.completion.model
    if chosen and chosen.strip():
        return chosen.strip()
    return default_model(config=config).model


def _provider(model: str, config: ShardConfig) -> Provider:
    key = (model, config.model_dump_json(include={"providers", "credentials"}))
    provider = _providers.get(key)
    if provider is None:
        specs = provider_specs()  # a third-party provider completes as it answers turns
        provider = _providers[key] = create_provider(model, config, os.environ, specs)
    return provider


def parse_ask(body: dict[str, Any]) -> CompletionAsk:
    def text(key: str, default: str = "") -> str:
        value = body.get(key, default)
        if not isinstance(value, str):
            raise BadRequestError(f"{key} must be a string")
        return value

    cells = body.get("cells_above", [])
    if not isinstance(cells, list) or not all(isinstance(c, str) for c in cells):
        raise BadRequestError("cells_above must be a list of strings")
    if "prefix" not in body:
        raise BadRequestError("prefix is required (the code before the cursor)")
    ask = CompletionAsk(
        prefix=text("prefix"),
        suffix=text("suffix"),
        language=text("language", "python"),
        path=text("path"),
        cells_above=tuple(str(c) for c in cells),
    )
    size = len(ask.prefix) + len(ask.suffix) + sum(map(len, ask.cells_above))
    if size > MAX_BODY_CHARS:
        raise BadRequestError(f"at most {MAX_BODY_CHARS} characters of code go with a completion")
    return ask


class CompleteHandler(ShardAPIHandler):
    _task: asyncio.Task[str] | None = None
    _gone = False

    @web.authenticated
    @authorized
    async def post(self) -> None:
        try:
            data = parse_json_object(self.request.body)
            ask = parse_ask(data)
            config = load_config()
        except (BadRequestError, ConfigError) as exc:
            raise web.HTTPError(400, "%s", str(exc)) from None
        model = completion_model(config)
        if model == NO_MODEL:
            raise web.HTTPError(409, "no model is configured for completion (config.json model)")
        try:
            provider = _provider(model, config)
        except ConfigError as exc:
            raise web.HTTPError(409, "%s", str(exc)) from None
        editor = str(data.get("editor", ""))[:200]
        while editor and (earlier := _running.get(editor)) is not None:
            earlier.cancel()  # the person typed on: at most one request per editor
            await asyncio.wait([earlier])
        task = self._task = asyncio.ensure_future(
            complete(provider, ask, config.completion.max_tokens)
        )
        if editor:
            _running[editor] = task
        try:
            text = await task
        except asyncio.CancelledError:
            if self._gone:
                return  # the client went away
            text = ""  # a newer request for the editor replaced this one
        except ProviderError as exc:
            raise web.HTTPError(502, "%s", f"{model}: {exc}") from None
        finally:
            if _running.get(editor) is task:
                del _running[editor]
        self.reply({"text": text, "model": model})

    def on_connection_close(self) -> None:
        self._gone = True
        if self._task is not None and not self._task.done():
            self._task.cancel()
        with contextlib.suppress(Exception):
            super().on_connection_close()


COMPLETION_ROUTES: tuple[tuple[str, type[ShardAPIHandler]], ...] = (
    (r"/shard/api/complete", CompleteHandler),
)
