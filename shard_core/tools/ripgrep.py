"""The ripgrep engine: find the `rg` binary, run it with --json, and read its events."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from shard_core.tools.search import Collector, SearchLine, SearchOutcome, SearchQuery

RG_TIMEOUT = 60.0
# One --json event holds a whole matched line; minified files have lines of megabytes.
STREAM_LIMIT = 64 * 1024 * 1024


def find_rg() -> str | None:
    """The `rg` on PATH, else the one the ripgrep wheel put next to this Python."""
    found = shutil.which("rg")
    if found:
        return found
    beside = Path(sys.executable).parent / "rg"
    return str(beside) if beside.is_file() and os.access(beside, os.X_OK) else None


def rg_arguments(query: SearchQuery) -> list[str]:
    # --no-require-git: honour .gitignore even outside a git repository, like the fallback.
    # --hidden with !.git: dotfiles such as .github/ are worth searching, git's internals not.
    # --sort path: a stable order for the model (and tests), at the cost of parallelism.
    args = ["--json", "--no-config", "--no-require-git", "--hidden", "--glob", "!.git"]
    args += ["--sort", "path"]
    if query.ignore_case:
        args.append("--ignore-case")
    if query.literal:
        args.append("--fixed-strings")
    if query.context:
        args += ["--context", str(query.context)]
    if query.glob:
        args += ["--glob", query.glob]
    return [*args, "--regexp", query.pattern, "--", str(query.target)]


async def search_with_rg(rg: str, query: SearchQuery) -> SearchOutcome:
    proc = await asyncio.create_subprocess_exec(
        rg,
        *rg_arguments(query),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=STREAM_LIMIT,
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    # Read stderr alongside stdout so a flood of warnings cannot fill its pipe and stall rg.
    errors = asyncio.create_task(proc.stderr.read())
    collector = Collector(query)
    stopped_early = False
    try:
        async with asyncio.timeout(RG_TIMEOUT):
            async for raw in proc.stdout:
                line = parse_event(raw)
                if line is not None and not collector.add(line):
                    stopped_early = True
                    break
            if not stopped_early:
                # Its exit status tells "no match" (1) from "bad pattern" (2): let it finish.
                await proc.wait()
    except TimeoutError:
        return SearchOutcome(error=f"search timed out after {RG_TIMEOUT:g}s; narrow path or glob")
    finally:
        # Stopped early, timed out or cancelled: rg has nothing more to say.
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        await proc.wait()
        stderr = (await errors).decode("utf-8", errors="replace").strip()
    outcome = collector.finish()
    if proc.returncode == 2 and not stopped_early and not outcome.lines:
        return SearchOutcome(error=_explain(stderr, query.pattern))
    return outcome


def parse_event(raw: bytes) -> SearchLine | None:
    """A match or context line from one rg --json event; None for begin/end/summary events."""
    event: dict[str, Any] = json.loads(raw)
    kind = event.get("type")
    if kind not in ("match", "context"):
        return None
    data: dict[str, Any] = event["data"]
    text = _field_text(data["lines"]).removesuffix("\n").removesuffix("\r")
    return SearchLine(Path(_field_text(data["path"])), data["line_number"], text, kind == "match")


def _field_text(value: dict[str, str]) -> str:
    # rg sends {"text": …} for UTF-8 and {"bytes": base64} for anything else.
    if "text" in value:
        return value["text"]
    return base64.b64decode(value["bytes"]).decode("utf-8", errors="replace")


def _explain(stderr: str, pattern: str) -> str:
    if "regex parse error" in stderr or "error parsing regex" in stderr:
        return f"invalid regex {pattern!r}:\n{stderr}"
    return f"ripgrep failed: {stderr or 'exit code 2'}"
