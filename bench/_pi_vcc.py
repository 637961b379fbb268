"""pi-vcc beside Shard: a Shard session → pi JSONL converter, and a driver for pi-vcc's `compile()`.

pi-vcc (`sting8k/pi-vcc`, v0.2.2) is not published on the npm registry and none of its code is in
this repository. To run it, clone its public repository yourself and point the bench at it:

    git clone <the sting8k/pi-vcc repository> /some/dir/pi-vcc   # checkout v0.2.2
    PI_VCC_SRC=/some/dir/pi-vcc python bench/b9_vs_pi_vcc.py     # or --pi-vcc-src DIR

`setup()` then, once, in a cache folder (`$XDG_CACHE_HOME/shard-bench/pi-vcc-<version>`, or
`--pi-vcc-cache DIR`):
  1. copies the checkout's `src/` and `package.json` there (a bare git dir is read with
     `git archive HEAD`),
  2. `npm install`s its peer dependencies (`@mariozechner/pi-coding-agent`, `@sinclair/typebox`)
     from the npm registry npm is configured for,
  3. bundles a small driver (`DRIVER_JS` below: pi's `loadEntriesFromFile` + `buildSessionContext`
     to load a session, pi-vcc's `compile()` to summarise it) with the esbuild of
     `labextension/node_modules` into one `driver.mjs`.
Later runs reuse the bundle. Nothing is fetched while timing.

The driver, `node driver.mjs RUNS FILE...`, prints one JSON line per file: the messages loaded,
the load time and `compile({messages})` times in ms, and the summary. The whole-process time of
`node driver.mjs 1 FILE` (node start, bundle load, read, compile, print) is the counterpart of
`shard session compact FILE --dry-run`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ESBUILD = REPO / "labextension" / "node_modules" / ".bin" / "esbuild"
PEERS = ("@mariozechner/pi-coding-agent", "@sinclair/typebox")

DRIVER_JS = """\
import { performance } from "node:perf_hooks";
import { buildSessionContext, loadEntriesFromFile } from
  "./node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js";
import { compile } from "./src/core/summarize.ts";

const runs = Number(process.argv[2]);
for (const file of process.argv.slice(3)) {
  const t0 = performance.now();
  const entries = loadEntriesFromFile(file).filter((e) => e.type !== "session");
  const messages = buildSessionContext(entries).messages
    .filter((m) => m && typeof m.role === "string" && "content" in m);
  const load = performance.now() - t0;
  const times = [];
  let summary = "";
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    summary = compile({ messages });
    times.push(performance.now() - start);
  }
  const row = { file, messages: messages.length, load, times, summary };
  process.stdout.write(JSON.stringify(row) + "\\n");
}
"""


def cache_dir(override: str | None = None) -> Path:
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "shard-bench" / "pi-vcc-0.2.2"


def _copy_source(src: Path, dest: Path) -> None:
    if (src / "src" / "core" / "summarize.ts").exists():
        shutil.copytree(src / "src", dest / "src", dirs_exist_ok=True)
        shutil.copy(src / "package.json", dest / "package.json")
        return
    # a bare git dir (or a .git folder): the committed tree
    tar = subprocess.run(
        ["git", f"--git-dir={src}", "archive", "--format=tar", "HEAD", "src", "package.json"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(tar)) as archive:
        archive.extractall(dest, filter="data")


def setup(src: str | None, cache: str | None = None) -> Path:
    """The bundled driver (built on first use, see the module doc). Raises with the steps to
    take when the pi-vcc checkout is not given."""
    folder = cache_dir(cache)
    bundle = folder / "driver.mjs"
    if bundle.exists():
        return bundle
    src = src or os.environ.get("PI_VCC_SRC")
    copied = (folder / "src" / "core" / "summarize.ts").exists()
    if not copied and (not src or not Path(src).exists()):
        raise SystemExit(
            "pi-vcc is not set up: clone the sting8k/pi-vcc repository (v0.2.2) and pass "
            "--pi-vcc-src DIR or set PI_VCC_SRC (see bench/_pi_vcc.py)"
        )
    folder.mkdir(parents=True, exist_ok=True)
    if src and Path(src).exists():
        _copy_source(Path(src), folder)
    if not (folder / "node_modules" / "@mariozechner" / "pi-coding-agent").exists():
        subprocess.run(
            ["npm", "install", "--no-save", "--no-audit", "--no-fund", *PEERS],
            cwd=folder,
            check=True,
        )
    (folder / "driver.ts").write_text(DRIVER_JS, encoding="utf-8")
    subprocess.run(
        [str(ESBUILD), "driver.ts", "--bundle", "--platform=node", "--format=esm",
         "--log-level=warning", f"--outfile={bundle}"],
        cwd=folder,
        check=True,
    )  # fmt: skip
    return bundle


@dataclass(frozen=True)
class PiResult:
    file: str
    messages: int
    load_ms: float
    times_ms: list[float]
    summary: str


def run(bundle: Path, files: Sequence[Path], runs: int) -> list[PiResult]:
    """`compile()` `runs` times on each file, in one node process."""
    out = subprocess.run(
        ["node", str(bundle), str(runs), *map(str, files)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    results: list[PiResult] = []
    for line in out.splitlines():
        row = json.loads(line)
        results.append(
            PiResult(row["file"], row["messages"], row["load"], row["times"], row["summary"])
        )
    return results


# ------------------------------------------------------------------------------- converter


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


def _assistant_content(blocks: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            content.append({"type": "text", "text": block.get("text", "")})
        elif kind == "thinking":
            content.append({"type": "thinking", "thinking": block.get("thinking", "")})
        elif kind == "tool_call":
            content.append({
                "type": "toolCall", "id": block["id"], "name": block["name"],
                "arguments": block.get("input") or {},
            })  # fmt: skip
    return content


def _message(line: dict[str, Any]) -> dict[str, Any] | None:
    """The pi message for one Shard entry (None: an entry pi has no message for)."""
    details = line.get("details") or {}
    millis = int(float(line.get("ts", 0)) * 1000)
    if line.get("type") == "message":
        message = details.get("message") or {}
        role = message.get("role")
        blocks = message.get("content") or []
        if role == "user":
            texts = [{"type": "text", "text": b.get("text", "")} for b in blocks
                     if b.get("type") == "text"]  # fmt: skip
            return {"role": "user", "content": texts, "timestamp": millis}
        if role == "assistant":
            return {
                "role": "assistant", "content": _assistant_content(blocks), "api": "shard",
                "provider": "shard", "model": "shard", "stopReason": "stop", "timestamp": millis,
                "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
                          "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0,
                                                     "cacheWrite": 0, "total": 0}},
            }  # fmt: skip
        return None
    if line.get("type") == "tool_result":
        result = details.get("result") or {}
        texts = [{"type": "text", "text": b.get("text", "")}
                 for b in result.get("content") or [] if b.get("type") == "text"]  # fmt: skip
        return {
            "role": "toolResult", "toolCallId": details.get("tool_call_id", ""),
            "toolName": details.get("name", ""), "content": texts,
            "details": result.get("details"), "isError": bool(result.get("is_error")),
            "timestamp": millis,
        }  # fmt: skip
    return None


def to_pi_jsonl(lines: Iterable[dict[str, Any]], stop_at: str | None = None) -> str:
    """Shard session lines (the store's JSON objects, in file order, one branch) → a pi v3
    session: a header, then one `message` entry per user/assistant message and tool result,
    chained by parentId. Entries pi has no message for are left out. `stop_at`: the first
    entry id not to convert (the first one a Shard compaction keeps), so both systems
    summarise the same entries."""
    out: list[str] = []
    parent: str | None = None
    for line in lines:
        if stop_at is not None and line.get("id") == stop_at:
            break
        if line.get("type") == "session":
            header = {"type": "session", "version": 3, "id": line.get("id", "session"),
                      "timestamp": _iso(float(line.get("ts", 0))),
                      "cwd": (line.get("details") or {}).get("cwd", "/")}  # fmt: skip
            out.append(json.dumps(header))
            continue
        message = _message(line)
        if message is None:
            continue
        entry = {"type": "message", "id": line["id"], "parentId": parent,
                 "timestamp": _iso(float(line.get("ts", 0))), "message": message}  # fmt: skip
        out.append(json.dumps(entry, ensure_ascii=False))
        parent = line["id"]
    return "\n".join(out) + "\n"


def convert_file(src: Path, dest: Path, stop_at: str | None = None) -> Path:
    lines = (json.loads(x) for x in src.read_text(encoding="utf-8").splitlines() if x.strip())
    dest.write_text(to_pi_jsonl(lines, stop_at), encoding="utf-8")
    return dest


def temp_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="pi-vcc-bench-"))
