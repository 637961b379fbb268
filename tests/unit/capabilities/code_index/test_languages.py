"""Every language the index claims: definitions (name, kind, line), signatures and references
from a small but typical file."""

from __future__ import annotations

import pytest

from shard_core.capabilities.code_index.languages import QUERIES, SUFFIXES, language_of
from shard_core.capabilities.code_index.parse import parse_source

SAMPLES: dict[str, tuple[str, list[tuple[str, str, int]], str, str]] = {
    # language: (source, [(name, kind, line)], a signature, a referenced name)
    "python": (
        "class A(Base):\n    @property\n    def x(self) -> int:\n        return go()\n",
        [("A", "class", 1), ("x", "method", 3)],
        "def x(self) -> int",
        "go",
    ),
    "javascript": (
        "class A {\n  run(a) { return go(a) }\n}\nfunction f(x) {}\nconst g = (y) => y\n",
        [("A", "class", 1), ("run", "method", 2), ("f", "function", 4), ("g", "function", 5)],
        "function f(x)",
        "go",
    ),
    "typescript": (
        "export interface P { a: number }\nexport type T = P | null\nenum E { X }\n"
        "export abstract class B { abstract m(): void }\n",
        [
            ("P", "interface", 1),
            ("T", "type", 2),
            ("E", "enum", 3),
            ("B", "class", 4),
            ("m", "method", 4),
        ],
        "interface P",
        "",
    ),
    "tsx": (
        "export function View(p: Props): JSX.Element {\n  return <div>{fmt(p)}</div>\n}\n",
        [("View", "function", 1)],
        "function View(p: Props): JSX.Element",
        "fmt",
    ),
    "go": (
        "package m\n\ntype S struct{ a int }\n\n"
        "func (s *S) Run(n int) error {\n\treturn do(n)\n}\n",
        [("S", "type", 3), ("Run", "method", 5)],
        "func (s *S) Run(n int) error",
        "do",
    ),
    "rust": (
        "pub struct S;\npub trait T { fn m(&self); }\npub fn run(x: i32) -> i32 {\n    go(x)\n}\n",
        [("S", "struct", 1), ("T", "trait", 2), ("m", "method", 2), ("run", "function", 3)],
        "pub fn run(x: i32) -> i32",
        "go",
    ),
    "java": (
        "public class A {\n  public A() {}\n  int run(String s) { return go(s); }\n}\n",
        [("A", "class", 1), ("A", "method", 2), ("run", "method", 3)],
        "int run(String s)",
        "go",
    ),
    "c": (
        "struct point { int x; };\ntypedef int num;\nstatic int add(int a, int b) {\n"
        "  return sum(a, b);\n}\n",
        [("point", "struct", 1), ("num", "type", 2), ("add", "function", 3)],
        "static int add(int a, int b)",
        "sum",
    ),
    "cpp": (
        "namespace n {\nclass W {\n  int f() { return g(); }\n};\n}\nint W::h() { return 1; }\n",
        [("n", "module", 1), ("W", "class", 2), ("f", "method", 3), ("W::h", "function", 6)],
        "int W::h()",
        "g",
    ),
    "ruby": (
        "module M\n  class A < B\n    def run(x)\n      go(x)\n    end\n  end\nend\n",
        [("M", "module", 1), ("A", "class", 2), ("run", "method", 3)],
        "def run(x)",
        "go",
    ),
    "bash": (
        "deploy() {\n  rsync -a . host:\n}\n",
        [("deploy", "function", 1)],
        "deploy()",
        "rsync",
    ),
    "markdown": (
        "# Title\n\ntext\n\n## Part two\n",
        [("Title", "heading", 1), ("Part two", "heading", 5)],
        "Part two",
        "",
    ),
}


def test_every_language_has_a_sample_and_a_suffix() -> None:
    assert sorted(SAMPLES) == sorted(QUERIES)
    assert sorted(set(SUFFIXES.values())) == sorted(QUERIES)
    assert language_of("x/Y.TSX") == "tsx"
    assert language_of("Makefile") is None


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_definitions_signatures_and_references(language: str) -> None:
    source, expected, signature, referenced = SAMPLES[language]
    symbols = parse_source(language, source.encode())
    assert [(d.name, d.kind, d.line) for d in symbols.definitions] == expected
    assert signature in [d.signature for d in symbols.definitions]
    if referenced:
        assert symbols.references.get(referenced, 0) >= 1
