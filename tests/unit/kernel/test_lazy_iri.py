"""lazy_iri: jsonschema imported after `defer()` does not build the IRI grammar (lark is not
even imported), and its `iri` / `iri-reference` checks answer exactly as with the real module."""

from __future__ import annotations

import json
import subprocess
import sys

VALUES = [
    "http://example.org/\u00e4",
    "ht tp://x y",
    "a b",
    "/rel/path",
    "urn:x:y",
    "http://[::1]/",
]
CHECK = f"""
import json, sys
from jsonschema import FormatChecker
before = 'lark' in sys.modules
checker = FormatChecker()
answers = [[checker.conforms(v, f) for f in ('iri', 'iri-reference')] for v in {VALUES!r}]
print(json.dumps({{'lark_at_import': before, 'answers': answers,
                  'real': type(sys.modules['rfc3987_syntax']).__name__}}))
"""


def run(prefix: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", prefix + CHECK], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out.splitlines()[-1])


def test_deferred_grammar_answers_as_the_real_one_and_is_not_built_at_import() -> None:
    eager = run("")
    deferred = run("from shard_kernel.lazy_iri import defer\ndefer()\n")
    assert eager["lark_at_import"] is True  # the cost this module avoids is there without it
    assert deferred["lark_at_import"] is False
    assert deferred["answers"] == eager["answers"]
    assert [False, False] in eager["answers"]
    assert [True, True] in eager["answers"]
    assert deferred["real"] == "module"  # the first check put the real module in its place


def test_defer_leaves_an_already_imported_module_alone() -> None:
    code = (
        "import sys, rfc3987_syntax\nreal = sys.modules['rfc3987_syntax']\n"
        "from shard_kernel.lazy_iri import defer\ndefer()\n"
        "print(sys.modules['rfc3987_syntax'] is real)"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "True"
