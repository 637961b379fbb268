"""The agent widget's `@` mentions, resolved in the notebook's own kernel, where the widget's
Python side runs: `@var:NAME` by the summariser `%%shard` and the Lab chat use (var_summary.py),
`@file:PATH` read with the read tool's containment (mention_text.py: a path outside the agent's
folder is refused), `@cell:N` and `@output:N` (`@output:N.M`, its Mth) from the notebook the
widget is in, as the page shows it when the page sent its cells (`Shown`), else as last saved
(ipykernel's `__session__` names it), its images going with the message.
Each becomes context labelled as the Lab chat labels it (`@var:df from frame.ipynb`); one that
cannot be resolved is a `MentionRefusedError` saying why, and nothing is sent. `options` completes
the `@` word being typed: the kinds, then names, files or cells.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from shard_kernel.mention_text import (
    MAX_LISTED,
    MentionError,
    file_completions,
    file_mentions,
    read_mention,
)
from shard_kernel.notebook_tools.outputs import Budget, summarise
from shard_kernel.var_summary import MENTION, VarMentionError, var_contexts
from shard_widgets import MentionContext, MentionRefusedError, Mentions
from shard_widgets import ShownNotebook as Shown

CELL = re.compile(r"(^|[\s(])@cell:([A-Za-z0-9_-]+)")
OUTPUT = re.compile(r"(^|[\s(])@output:([A-Za-z0-9_-]+(?:\.\d+)?)")
MAX_IMAGES = 8
KINDS = (
    ("@file:", "a file of the agent's folder"),
    ("@cell:", "a cell of this notebook (source and outputs)"),
    ("@output:", "a cell's outputs"),
    ("@var:", "a variable in this notebook's kernel"),
)


def _found(pattern: re.Pattern[str], text: str) -> list[str]:
    names: list[str] = []
    for match in pattern.finditer(text):
        if match.group(2) not in names:
            names.append(match.group(2))
    return names


def user_namespace() -> dict[str, Any]:
    """The namespace of the IPython shell this runs in (empty outside one)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - the widget always runs under IPython
        return {}
    shell = get_ipython()
    return shell.user_ns if shell is not None else {}


def notebook_path(ns: dict[str, Any]) -> Path | None:
    """The notebook this kernel runs: `__session__` (absolute, or a server path whose file is in
    the kernel's folder), None when the kernel does not know it."""
    session = ns.get("__session__")
    if not isinstance(session, str) or not session.endswith(".ipynb"):
        return None
    path = Path(session)
    if path.is_absolute() and path.is_file():
        return path
    here = Path.cwd() / path.name
    return here if here.is_file() else None


def _cells(ns: dict[str, Any], shown: Shown | None = None) -> Shown:
    if shown is not None:
        return shown
    path = notebook_path(ns)
    if path is None:
        raise MentionRefusedError(
            "@cell: and @output: need the notebook's path (this kernel has none)"
        )
    try:
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    except (OSError, ValueError) as exc:
        raise MentionRefusedError(f"{path.name} could not be read: {exc}") from None
    return path.name, [c for c in cells if isinstance(c, dict)]


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _cell_context(
    ref: str, kind: str, ns: dict[str, Any], images: list[Any], shown: Shown | None
) -> MentionContext:
    name, cells = _cells(ns, shown)
    saved = "" if shown is not None else " (as saved)"
    cell_ref, _, nth = ref.partition(".") if kind == "output" else (ref, "", "")
    if cell_ref.isdigit():
        n = int(cell_ref)
        cell = cells[n - 1] if 0 < n <= len(cells) else None
    else:
        cell = next((c for c in cells if c.get("id") == cell_ref), None)
    if cell is None:
        raise MentionRefusedError(
            f"there is no cell {cell_ref} in {name} (a position from 1, or an id)"
        )
    outputs = [o for o in cell.get("outputs", []) if isinstance(o, dict)]
    if kind == "output":
        outputs = outputs[int(nth) - 1 : int(nth)] if nth else outputs
        if not outputs:
            missing = f"no output {nth}" if nth else "no outputs"
            raise MentionRefusedError(f"cell {cell_ref} of {name} has {missing}{saved}")
    budget = Budget(images=max(0, MAX_IMAGES - len(images)))
    parts = [f'<output n="{n}">\n{text}\n</output>' for n, text in enumerate(
        summarise(outputs, budget), 1)]  # fmt: skip
    images.extend(budget.attached)
    count = cell.get("execution_count")
    head = (
        f'<cell notebook="{name}" id="{cell.get("id", "")}" type="{cell.get("cell_type")}"'
        + (f' execution_count="{count}"' if isinstance(count, int) else "")
        + f">\n{_source(cell)}\n</cell>"
    )
    body = "\n".join(parts) if kind == "output" else "\n".join([head, *parts])
    return MentionContext(body, "output", f"@{kind}:{ref} from {name}")


def resolve(
    text: str, cwd: Path, ns: dict[str, Any], agent_id: str = "", shown: Shown | None = None
) -> Mentions:
    """Every mention of `text` as context (and the cells' images), all read before any is
    sent; MentionRefusedError names the first that cannot be."""
    images: list[Any] = []
    found: list[MentionContext] = []
    try:
        found += [MentionContext(t, "variable", label) for t, label in var_contexts(text, ns)]
    except VarMentionError as exc:
        raise MentionRefusedError(str(exc)) from None
    for kind, pattern in (("cell", CELL), ("output", OUTPUT)):
        found += [_cell_context(ref, kind, ns, images, shown) for ref in _found(pattern, text)]
    for path in file_mentions(text):
        try:
            mention = read_mention(path, cwd, agent_id)
        except MentionError as exc:
            raise MentionRefusedError(exc.message) from None
        found.append(MentionContext(mention.shown, "file", f"@file:{mention.path}"))
    return Mentions(found, images)


def _variables(start: str, ns: dict[str, Any]) -> list[dict[str, str]]:
    """The user's names, as IPython's `%who` lists them (no `_` names, none of the shell's own,
    no modules), each with its type's name."""
    shell = ns.get("get_ipython", lambda: None)()
    hidden = getattr(shell, "user_ns_hidden", {})
    return [
        {"insert": f"@var:{name}", "detail": type(value).__name__}
        for name, value in sorted(ns.items())
        if name.startswith(start) and not name.startswith("_") and name not in hidden
        and type(value).__name__ != "module"
    ][:MAX_LISTED]  # fmt: skip


def _cell_options(kind: str, ns: dict[str, Any], shown: Shown | None) -> list[dict[str, str]]:
    try:
        _, cells = _cells(ns, shown)
    except MentionRefusedError:
        return []
    listed: list[dict[str, str]] = []
    for n, cell in enumerate(cells, 1):
        if kind == "output" and not cell.get("outputs"):
            continue
        line = next((ln for ln in _source(cell).splitlines() if ln.strip()), "")
        detail = line if len(line) <= 60 else line[:59] + "…"
        listed.append(
            {"insert": f"@{kind}:{n}", "detail": detail or f"(empty {cell.get('cell_type')} cell)"}
        )
    return listed


def options(
    word: str, cwd: Path, ns: dict[str, Any], shown: Shown | None = None
) -> list[dict[str, str]]:
    """What completes the `@` word being typed: the kinds, then names, files or cells."""
    kind, colon, rest = word.removeprefix("@").partition(":")
    if not colon:
        return [{"insert": k, "detail": d} for k, d in KINDS if k.startswith(word)]
    if kind == "var":
        return _variables(rest, ns) if MENTION.match(f"@var:{rest or 'x'}") else []
    if kind == "file":
        return [
            {"insert": f, "detail": "folder" if f.endswith("/") else ""}
            for f in file_completions(rest, cwd)
        ]
    if kind in ("cell", "output"):
        listed = _cell_options(kind, ns, shown)
        return [o for o in listed if o["insert"].startswith(word)][:MAX_LISTED]
    return []
