"""Which files to index first: those near the focus (the files the session opened or changed),
so a question asked while the rest is indexed finds what it most likely asks about.

Order: the focus files, the other files of their directories, the files they import (Python
`import`/`from` and JavaScript/TypeScript relative `import`/`require`, resolved against the
workspace's files by path), then everything else in walk order.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from pathlib import Path

from shard_core.capabilities.code_index.pool import Job

MAX_SOURCE_BYTES = 200_000
"""of each focus file, read for its imports"""
_PY_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+\(?([\w., \t]+)", re.M)
_PY_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w., \t]+)", re.M)
_JS_IMPORT = re.compile(r"""(?:from|import|require\()\s*["'](\.{1,2}/[^"']+)["']""")
_JS_SUFFIXES = ("", ".ts", ".tsx", ".js", ".jsx", ".mjs", "/index.ts", "/index.js")


def by_relevance(jobs: Sequence[Job], focus: Sequence[str], root: Path) -> list[Job]:
    """`jobs` reordered nearest the focus first (a stable sort: ties keep walk order)."""
    rels = [job[0] for job in jobs]
    near = imported(focus, rels, root)
    places = {posixpath.dirname(rel) for rel in focus}
    wanted = set(focus)

    def tier(job: Job) -> int:
        rel = job[0]
        if rel in wanted:
            return 0
        if posixpath.dirname(rel) in places:
            return 1
        return 2 if rel in near else 3

    return sorted(jobs, key=tier)


def imported(focus: Sequence[str], rels: Sequence[str], root: Path) -> set[str]:
    """The files among `rels` that the focus files import."""
    known = set(rels)
    by_tail: dict[str, list[str]] = {}
    for rel in rels:
        stem = rel.removesuffix("/__init__.py").removesuffix(".py")
        by_tail.setdefault(stem.rsplit("/", 1)[-1], []).append(stem)
    found: set[str] = set()
    for rel in focus:
        try:
            with open(root / rel, "rb") as handle:
                text = handle.read(MAX_SOURCE_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        if rel.endswith((".py", ".pyi")):
            found |= _python(rel, text, by_tail, known)
        else:
            found |= _javascript(rel, text, known)
    return found


def _python(rel: str, text: str, by_tail: dict[str, list[str]], known: set[str]) -> set[str]:
    modules: list[str] = []
    here = posixpath.dirname(rel)
    for dots, name, names in _PY_FROM.findall(text):
        base = name.replace(".", "/")
        if dots:  # relative: from the file's package up
            up = here
            for _ in range(len(dots) - 1):
                up = posixpath.dirname(up)
            base = posixpath.join(up, base) if base else up
        modules.append(base)
        modules += [posixpath.join(base, n.split()[0]) for n in names.split(",") if n.strip()]
    for names in _PY_IMPORT.findall(text):
        modules += [n.split()[0].replace(".", "/") for n in names.split(",") if n.strip()]
    found: set[str] = set()
    for module in modules:
        tail = module.rsplit("/", 1)[-1]
        for stem in by_tail.get(tail, ()):
            if stem == module or stem.endswith("/" + module):  # (also under src/ and the like)
                found |= {f"{stem}.py", f"{stem}/__init__.py"} & known
    return found


def _javascript(rel: str, text: str, known: set[str]) -> set[str]:
    here = posixpath.dirname(rel)
    found: set[str] = set()
    for spec in _JS_IMPORT.findall(text):
        base = posixpath.normpath(posixpath.join(here, spec))
        found |= {base + suffix for suffix in _JS_SUFFIXES} & known
    return found
