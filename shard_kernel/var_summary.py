"""`@var:NAME` in a `%%shard` cell: a variable of this kernel's user namespace as context for the
prompt, summarised as the Lab chat's `@var:` summarises it (type, shape, dtypes and head() for a
DataFrame, a truncated repr otherwise). SUMMARISER is the very code the chat sends to a
notebook's kernel (labextension/src/lab/var-mentions.ts; a test keeps the two equal), run here
in a namespace of its own: the user's stays as it was.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

MENTION = re.compile(r"(^|[\s(])@var:([A-Za-z_][A-Za-z0-9_]*)")
MAX_MENTIONS = 8

SUMMARISER = """
def _summary(ns, name, limit=3000):
    if name not in ns:
        return {"ok": False, "error": "missing"}
    value = ns[name]
    kind = type(value)
    module = getattr(kind, "__module__", "") or ""
    qual = kind.__qualname__ if module in ("", "builtins") else module + "." + kind.__qualname__
    lines = ["type: " + qual]
    try:
        shape = getattr(value, "shape", None)
        if isinstance(shape, tuple):
            lines.append("shape: " + repr(shape))
        top = module.split(".")[0]
        if top == "pandas" and kind.__name__ == "DataFrame":
            lines.append("dtypes:\\n" + value.dtypes.to_string())
            lines.append("head():\\n" + value.head().to_string())
        elif top == "pandas" and kind.__name__ == "Series":
            lines.append("dtype: " + str(value.dtype))
            lines.append("head():\\n" + value.head().to_string())
        else:
            if top == "numpy":
                lines.append("dtype: " + str(getattr(value, "dtype", "")))
            elif hasattr(kind, "__len__"):
                try:
                    lines.append("len: " + str(len(value)))
                except Exception:
                    pass
            text = repr(value)
            if len(text) > limit:
                text = text[:limit] + " ... (" + str(len(text) - limit) + " more characters)"
            lines.append("repr: " + text)
    except Exception as exc:
        lines.append("(the summary stopped: " + type(exc).__name__ + ": " + str(exc)[:200] + ")")
    text = "\\n".join(lines)
    return {"ok": True, "text": text if len(text) <= 8000 else text[:8000] + "\\n... (cut)"}


class _Json:
    def __init__(self, data):
        self.data = data

    def _repr_json_(self):
        return self.data


result = _Json(_summary(ns, name))
"""


class VarMentionError(Exception):
    pass


def var_mentions(text: str) -> list[str]:
    """The distinct `@var:NAME`s of a prompt, in order."""
    names: list[str] = []
    for match in MENTION.finditer(text):
        if match.group(2) not in names:
            names.append(match.group(2))
    return names


def summarise(ns: dict[str, Any], name: str) -> dict[str, Any]:
    scope: dict[str, Any] = {"ns": ns, "name": name}
    exec(SUMMARISER, scope)  # Shard's fixed summariser, never the user's code
    return scope["result"]._repr_json_()


def var_contexts(text: str, ns: dict[str, Any]) -> list[tuple[str, str]]:
    """(summary, label) of each `@var:` of `text`, labelled `@var:NAME from NOTEBOOK` (the
    notebook ipykernel names in `__session__`, else "this kernel"); VarMentionError when one is
    not a variable there, so nothing is sent."""
    names = var_mentions(text)
    if len(names) > MAX_MENTIONS:
        raise VarMentionError(f"at most {MAX_MENTIONS} @var: mentions go with one prompt")
    session = ns.get("__session__")
    where = Path(session).name if isinstance(session, str) and session else "this kernel"
    found: list[tuple[str, str]] = []
    for name in names:
        summary = summarise(ns, name)
        if summary.get("ok") is not True:
            shown = f"{where}'s kernel" if where != "this kernel" else where
            raise VarMentionError(f"there is no variable {name} in {shown}")
        found.append((summary["text"], f"@var:{name} from {where}"))
    return found
