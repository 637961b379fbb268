"""Varied sessions: a second session generator for the compaction benches, independent of
`tests/fixtures/sessions/synthetic.py`'s mix (which `bench/_planted.py` fills with).

Seeded, so deterministic (same entries and seed, same bytes). What differs from the first
generator, on purpose:

  tools      bash (pytest, jest, cargo, make, git, pip, ls, failing commands), read, edit
             (some failing), write (new files), grep, find, ls, web_fetch, web_search,
             notebook_edit, python_exec, subagent_launch, todo_write; now and then two to
             four calls in one assistant message, their results after it
  sizes      results from a few bytes to a few hundred KB (a build log, a fetched page, a
             generated file read whole; one every HUGE_EVERY entries, more by chance), most
             small
  files      a pool of tens of files (54 at 1k entries, 67 at 5k, 99 at 28k) across several
             folders and languages, every one edited or written at some point
  turns      many small turns (a question, one or two tool steps), a few huge ones (a
             refactor of a hundred steps and more), steers (a user message with a steer id)
             and injected context (diagnostics after an edit) in the middle of a turn,
             thinking blocks, assistant text between calls
  facts      VARIED_PLANTED, other words than `_planted.PLANTED`, planted at other fractions;
             the last failure is the last failing test of any of the three runners

`varied_facts(lines)` works out the facts of the folded lines with `_planted.facts_of` (its
patterns and tool names passed in), and `_planted.score` reads a summary against them, so B9
scores every corpus alike.

No third corpus of sessions recorded from the test suite's agent runs: the suite keeps none (each
test's SHARD_HOME is a temp dir it removes, and no recorded JSONL is checked in), and the
scripted runs it makes are a few to a few dozen entries, far under the 1k entries where B9's
200k window first folds anything. Stitching hundreds of them into one session would be a shape
no agent produces; replaying a generated script through the real loop would give real tool
outputs but this generator's shape, at minutes of real bash per 28k entries on shared cores.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from bench._planted import Facts, facts_of
from tests.fixtures.sessions.synthetic import RawSession

VARIED_PLANTED: tuple[tuple[str, float, str, str, tuple[str, ...]], ...] = (
    # name, where, role, text, needles
    ("goal", 0.0, "user",
     "I need the CSV importer to stream rows instead of loading the whole file, so the "
     "nightly job stops running out of memory on the 4 GB exports.", ("stream rows",)),
    ("preference", 0.22, "user",
     "Please keep type hints on every new function and never use bare except clauses.",
     ("bare except",)),
    ("scope", 0.41, "user",
     "New requirement: the XLSX importer has to stream as well; drop the legacy DBF reader "
     "entirely.", ("xlsx importer",)),
    ("decision", 0.63, "assistant",
     "I decided to use a generator pipeline with a bounded queue of 512 rows instead of "
     "threads, because the parser is CPU bound.", ("bounded queue",)),
    ("question", 0.86, "user",
     "Still open: do we keep the row limit flag for the admin export or remove it? We can "
     "decide after the benchmark.", ("row limit flag",)),
)  # fmt: skip

JEST_FAIL, JEST_SEP = "\u2715", "\u203a"
"""What jest prints before a failed test and between its file and name."""
FAILURES = (
    re.compile(r"FAILED (\S+::\S+)"),  # pytest
    re.compile(f"{JEST_FAIL} (\\S+ {JEST_SEP} \\S+)"),  # jest
    re.compile(r"test (\S+::\S+) \.\.\. FAILED"),  # cargo
)
CHANGING = ("edit", "write", "notebook_edit")

_WORDS = (
    "row", "column", "stream", "chunk", "reader", "writer", "header", "delimiter", "quote",
    "encoding", "schema", "batch", "flush", "offset", "cursor", "yield", "buffer", "memory",
    "export", "import", "nightly", "admin", "limit", "queue", "worker", "parse", "decode",
    "sheet", "cell", "format", "locale", "date", "number", "null", "trim", "validate",
)  # fmt: skip
_FOLDERS = (
    "importer", "importer/readers", "api", "jobs", "web/src", "web/src/components",
    "crates/parse/src", "docs", "tests", "tests/fixtures", "notebooks", "scripts",
)  # fmt: skip
_EXTS = {"importer": ".py", "importer/readers": ".py", "api": ".py", "jobs": ".py",
         "web/src": ".ts", "web/src/components": ".tsx", "crates/parse/src": ".rs",
         "docs": ".md", "tests": ".py", "tests/fixtures": ".json", "notebooks": ".ipynb",
         "scripts": ".sh"}  # fmt: skip


Step = tuple[str, dict[str, Any], str, bool]
"""(tool name, arguments, result text, is_error) of one call."""


def _bash(command: str, output: str, code: int) -> Step:
    return "bash", {"command": command}, f"{output}\n\nexit code {code}", False


HUGE_EVERY = 900
"""Entries between two results of a few hundred KB made for sure (more come by chance)."""


def pool_size(entries: int) -> int:
    """How many files a session of `entries` entries edits (tens, growing slowly)."""
    return 44 + int(entries**0.5 / 3)


class _Varied:
    def __init__(self, entries: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.entries = entries
        self.s = RawSession(f"s-varied-{entries}")
        names = [f"{a}_{b}" for a in _WORDS for b in _WORDS if a != b]
        self.rng.shuffle(names)
        self.files = [self._path(i, names[i]) for i in range(pool_size(entries))]
        self.untouched = list(self.files)  # every file gets edited once before any repeats
        self.created: set[str] = set()
        self.steers = 0
        self.next_huge = 450  # and every HUGE_EVERY entries after: a few huge results for sure
        self.todo = list(VARIED_PLANTED)
        lines = [" ".join(self.rng.choice(_WORDS) for _ in range(self.rng.randint(4, 14)))
                 for _ in range(997)]  # fmt: skip
        self.text_lines = lines

    def _path(self, i: int, name: str) -> str:
        folder = _FOLDERS[i % len(_FOLDERS)]
        return f"{folder}/{name}{_EXTS[folder]}"

    # ------------------------------------------------------------------ text

    def words(self, n: int) -> str:
        return " ".join(self.rng.choice(_WORDS) for _ in range(n))

    def blob(self, chars: int) -> str:
        """About `chars` characters of lines (a window into a fixed rota: cheap at 300 KB)."""
        out: list[str] = []
        size = 0
        k = self.rng.randrange(len(self.text_lines))
        step = self.rng.choice((1, 3, 7, 11))
        while size < chars:
            line = self.text_lines[k % len(self.text_lines)]
            out.append(line)
            size += len(line) + 1
            k += step
        return "\n".join(out)

    def size(self) -> int:
        """A result's size: mostly small, sometimes medium, rarely a few hundred KB."""
        roll = self.rng.random()
        if roll < 0.004:
            return self.rng.randint(100_000, 400_000)
        if roll < 0.04:
            return self.rng.randint(5_000, 30_000)
        if roll < 0.5:
            return self.rng.randint(200, 2_000)
        return self.rng.randint(5, 200)

    def pick_file(self) -> str:
        if self.untouched and self.rng.random() < 0.5:
            return self.untouched.pop(self.rng.randrange(len(self.untouched)))
        return self.rng.choice(self.files)

    # ------------------------------------------------------------------ entries

    def calls(self, calls: list[Step]) -> None:
        """One assistant message with these calls (and maybe text or thinking), then their
        results in order."""
        s = self.s
        content: list[dict[str, Any]] = []
        if self.rng.random() < 0.15:
            content.append({"type": "thinking", "thinking": self.words(self.rng.randint(10, 60))})
        if self.rng.random() < 0.2:
            content.append({"type": "text", "text": f"Next: {self.words(8)}."})
        ids: list[str] = []
        for name, args, _, _ in calls:
            s.calls += 1
            ids.append(f"toolu_{s.calls:06d}")
            content.append({"type": "tool_call", "id": ids[-1], "name": name, "input": args})
        s.message("assistant", content)
        for call_id, (name, _, output, error) in zip(ids, calls, strict=True):
            result = {"content": [{"type": "text", "text": output}], "is_error": error,
                      "details": {}}  # fmt: skip
            s._add("tool_result", {"tool_call_id": call_id, "name": name, "result": result})  # pyright: ignore[reportPrivateUsage]

    def step(self) -> Step:  # noqa: C901 (a table of tools)
        rng = self.rng
        roll = rng.random()
        if roll < 0.22:
            path = rng.choice(self.files)
            size = self.size()
            return "read", {"path": path}, self.blob(size), False
        if roll < 0.36:
            path = self.pick_file()
            if rng.random() < 0.12:
                why = rng.choice(("old_string not found in", "old_string matches 3 places in"))
                return "edit", {"path": path, "old_string": "x", "new_string": "y"}, \
                    f"{why} {path}", True  # fmt: skip
            args = {"path": path, "edits": [{"old_string": self.words(3),
                                             "new_string": self.words(4)}]}  # fmt: skip
            plus, minus = rng.randint(1, 40), rng.randint(0, 30)
            return "edit", args, f"edited {path}: 1 replacement, +{plus} -{minus} lines", False
        if roll < 0.40:
            path = self.pick_file()
            content = self.blob(rng.randint(100, 4_000))
            new = path not in self.created
            self.created.add(path)
            note = " (new file)" if new else ""
            return "write", {"path": path, "content": content}, \
                f"wrote {len(content)} bytes to {path}{note}", False  # fmt: skip
        if roll < 0.64:
            return self.bash()
        if roll < 0.72:
            hits = rng.choice((0, 0, 1, 3, 12, 40, 300))
            pattern = rng.choice(_WORDS)
            lines = [f"{rng.choice(self.files)}:{rng.randint(1, 900)}: {self.words(7)}"
                     for _ in range(hits)]  # fmt: skip
            return "grep", {"pattern": pattern}, "\n".join(lines) or "no matches", False
        if roll < 0.75:
            found = [p for p in self.files if rng.random() < 0.2]
            return "find", {"pattern": f"*{rng.choice(list(_EXTS.values()))}"}, \
                "\n".join(found) or "no files", False  # fmt: skip
        if roll < 0.78:
            folder = rng.choice(_FOLDERS)
            names = [p.rsplit("/", 1)[-1] for p in self.files if p.startswith(folder + "/")]
            return "ls", {"path": folder}, "\n".join(names) or "(empty)", False
        if roll < 0.82:
            url = f"https://docs.example.org/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}"
            if rng.random() < 0.1:
                return "web_fetch", {"url": url}, f"fetch failed: 404 Not Found for {url}", True
            return "web_fetch", {"url": url}, self.blob(rng.choice((800, 6_000, 60_000))), False
        if roll < 0.84:
            results = [f"{k + 1}. {self.words(6)} — https://example.net/{self.words(1)}/{k}\n"
                       f"   {self.words(20)}" for k in range(10)]  # fmt: skip
            return "web_search", {"query": self.words(4)}, "\n".join(results), False
        if roll < 0.87:
            path = rng.choice([p for p in self.files if p.endswith(".ipynb")])
            cell = rng.randint(0, 30)
            return "notebook_edit", {"path": path, "cell": cell, "source": self.words(12)}, \
                f"edited cell {cell} of {path}", False  # fmt: skip
        if roll < 0.91:
            code = f"df = load('{rng.choice(self.files)}')\ndf.{rng.choice(_WORDS)}()"
            if rng.random() < 0.2:
                trace = f"Traceback (most recent call last):\nKeyError: '{rng.choice(_WORDS)}'"
                return "python_exec", {"code": code}, trace, True
            return "python_exec", {"code": code}, self.blob(rng.randint(20, 3_000)), False
        if roll < 0.94:
            task = self.words(10)
            report = f"Subagent report: {self.words(30)}\n{self.blob(rng.randint(300, 6_000))}"
            return "subagent_launch", {"prompt": task, "agent": "explore"}, report, False
        items = [{"content": self.words(5), "status": rng.choice(("pending", "done"))}
                 for _ in range(rng.randint(2, 7))]  # fmt: skip
        return "todo_write", {"todos": items}, f"{len(items)} todos", False

    def huge(self) -> Step:
        """A result of 100 to 400 KB: a build log, a generated file read whole, a long page."""
        size = self.rng.randint(100_000, 400_000)
        kind = self.rng.choice(("build", "read", "fetch"))
        if kind == "build":
            return _bash("make all 2>&1", self.blob(size), 0)
        if kind == "read":
            return "read", {"path": self.rng.choice(self.files)}, self.blob(size), False
        return "web_fetch", {"url": "https://docs.example.org/spec/full"}, self.blob(size), False

    def bash(self) -> Step:
        rng = self.rng
        roll = rng.random()
        if roll < 0.4:
            return self.test_run(roll)
        if roll < 0.47:
            msg = self.words(5)
            out = f"[main {rng.getrandbits(40):010x}] {msg}\n {rng.randint(1, 9)} files changed"
            return _bash(f"git commit -am '{msg}'", out, 0)
        if roll < 0.55:
            status = [f" M {rng.choice(self.files)}" for _ in range(rng.randint(1, 8))]
            return _bash("git status --short", "\n".join(status), 0)
        if roll < 0.6:
            return _bash("git diff", self.blob(rng.randint(500, 20_000)), 0)
        if roll < 0.64:
            huge = rng.random() < 0.08
            size = rng.randint(100_000, 350_000) if huge else rng.randint(2_000, 20_000)
            return _bash("make build 2>&1", self.blob(size), 0)
        if roll < 0.7:
            tool = rng.choice(("jq", "xsv", "csvkit"))
            return _bash(f"{tool} --version", f"bash: {tool}: command not found", 127)
        if roll < 0.75:
            return "bash", {"command": "sleep 600 && make bench"}, "timed out after 120 s", True
        return _bash(f"ls -la {rng.choice(_FOLDERS)}", self.blob(rng.randint(50, 1_500)), 0)

    def test_run(self, roll: float) -> Step:
        """pytest, jest or cargo; about a third fail, naming the failing test their way."""
        rng = self.rng
        failed = rng.random() < 0.35
        word, k = rng.choice(_WORDS), rng.randint(1, 99)
        if roll < 0.22:
            test = f"tests/test_{rng.choice(_WORDS)}.py::test_{word}_{k}"
            if failed:
                log = self.blob(rng.randint(200, 3_000))
                out = f"{log}\nFAILED {test} - AssertionError\n1 failed, {k} passed"
                return _bash("python -m pytest -x -q", out, 1)
            return _bash("python -m pytest -q", f"{k * 3} passed in {rng.random() * 9:.2f}s", 0)
        if roll < 0.32:
            name = f"{rng.choice(_WORDS)}.test.ts {JEST_SEP} {word}_{k}"
            if failed:
                return _bash(
                    "npx jest --silent",
                    f"FAIL web/src/{name.split(' ')[0]}\n  {JEST_FAIL} {name}",
                    1,
                )
            return _bash("npx jest --silent", "Tests: 41 passed, 41 total", 0)
        name = f"{rng.choice(_WORDS)}::{word}_{k}"
        if failed:
            return _bash("cargo test -p parse", f"running 12 tests\ntest {name} ... FAILED", 101)
        return _bash("cargo test -p parse", "test result: ok. 12 passed", 0)

    # ------------------------------------------------------------------ turns

    def planted(self) -> bool:
        if self.todo and len(self.s.lines) >= self.todo[0][1] * self.entries:
            _, _, role, text, _ = self.todo.pop(0)
            (self.s.user if role == "user" else self.s.say)(text)
            return True
        return False

    def turn(self) -> None:
        rng = self.rng
        if not self.planted():
            self.s.user(rng.choice(("Can you ", "Now ", "Next, please ", "Hmm. ")) +
                        f"{self.words(rng.randint(3, 30))}?")  # fmt: skip
        roll = rng.random()
        steps = (0 if roll < 0.15 else rng.randint(1, 3) if roll < 0.8
                 else rng.randint(4, 20) if roll < 0.97 else rng.randint(100, 260))  # fmt: skip
        for k in range(steps):
            if len(self.s.lines) >= self.entries - 2:
                return
            if self.planted():
                continue
            if steps > 50 and k % 61 == 60:
                self.steers += 1
                self.s._add("message", {"message": {"role": "user", "content": [  # pyright: ignore[reportPrivateUsage]
                    {"type": "text", "text": f"(steer) also {self.words(6)}"}]},
                    "steer_id": f"steer-{self.steers:04d}"})  # fmt: skip
            elif rng.random() < 0.03:
                where = f"{rng.choice(self.files)}:{rng.randint(1, 400)}"
                self.s._add("message", {"message": {"role": "user", "content": [  # pyright: ignore[reportPrivateUsage]
                    {"type": "text", "text": f"error: {where}: {self.words(6)}"}]},
                    "context": {"kind": "output", "label": "diagnostics after edit"}})  # fmt: skip
            if len(self.s.lines) >= self.next_huge:
                self.next_huge += HUGE_EVERY
                self.calls([self.huge()])
                continue
            n = 1 if rng.random() < 0.85 else rng.randint(2, 4)
            self.calls([self.step() for _ in range(n)])
        self.s.say(f"Done: {self.words(rng.randint(5, 50))}.")


def varied_session(entries: int, seed: int = 0) -> RawSession:
    """A session of exactly `entries` entries (header included) with VARIED_PLANTED in it."""
    gen = _Varied(entries, seed)
    while len(gen.s.lines) < entries - 2:
        gen.turn()
    while len(gen.s.lines) < entries:
        gen.s.user(gen.words(5))
    del gen.s.lines[entries:]
    return gen.s


def write_varied(path: Path, entries: int, seed: int = 0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(varied_session(entries, seed).text(), encoding="utf-8")
    return path


def varied_facts(lines: list[dict[str, Any]]) -> Facts:
    """The facts of the folded `lines`: VARIED_PLANTED's present, the last failing test of
    any runner, the last commit, every file an edit, write or notebook_edit changed."""
    return facts_of(lines, VARIED_PLANTED, failures=FAILURES, changing=CHANGING)
