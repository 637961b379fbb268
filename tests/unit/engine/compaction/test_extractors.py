"""Each built-in extractor on small, pointed inputs."""

from __future__ import annotations

from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from shard_core.contracts.codeintel import Symbol
from shard_core.contracts.compactor import ExtractorContext
from shard_core.engine.compaction import SectionContext, build_sections, normalize
from shard_core.engine.compaction.extractors import (
    BriefTranscript,
    Commits,
    DecisionsAndQuestions,
    EarlierTurns,
    FilesAndChanges,
    OutstandingContext,
    Progress,
    SessionGoal,
    TypeCatalog,
    UserPreferences,
    intent,
)
from shard_core.engine.compaction.extractors.files import shell_file_ops
from shard_core.engine.compaction.extractors.intent import preference_sentences
from shard_core.types import NormalizedBlock, PlanCheckpoint, PlanStep
from tests.fixtures.sessions.builders import SessionBuilder

CTX = ExtractorContext(code_index=None, previous_summary=None, compaction_index=0)


def blocks_of(b: SessionBuilder) -> list[NormalizedBlock]:
    return normalize(b.entries)


def test_goal_is_the_first_substantive_turn_plus_the_latest_scope_change() -> None:
    b = SessionBuilder()
    b.user("ok")
    b.user("Speed up the CSV importer in src/importer.py; it takes 40 s on the sample file.")
    b.user("Also add a progress bar to it.")
    b.user("Actually, let's switch to the JSON importer instead.")
    assert SessionGoal()(blocks_of(b), CTX) == [
        "Speed up the CSV importer in src/importer.py; it takes 40 s on the sample file. "
        "(recall: expand=[2])",
        "scope change: Actually, let's switch to the JSON importer instead. (recall: expand=[4])",
    ]


def test_a_short_first_goal_takes_the_next_turn_too_and_later_spans_only_track_scope() -> None:
    b = SessionBuilder()
    b.user("Fix the login bug")
    b.user("Users get a 500 after resetting their password.")
    assert SessionGoal()(blocks_of(b), CTX) == [
        "Fix the login bug (recall: expand=[1])",
        "Users get a 500 after resetting their password. (recall: expand=[2])",
    ]
    stated = "# earlier\n\n## Session Goal\n- Fix the signup bug (recall: expand=[1])\n"
    later = ExtractorContext(code_index=None, previous_summary=stated, compaction_index=1)
    assert SessionGoal()(blocks_of(b), later) == []


def test_a_later_span_finds_the_goal_when_the_previous_summary_has_none() -> None:
    b = SessionBuilder()
    b.user("Fix the login bug")
    scope_only = "# earlier\n\n## Session Goal\n- scope change: use sqlite instead\n"
    for previous in ("# earlier", scope_only):
        later = ExtractorContext(code_index=None, previous_summary=previous, compaction_index=1)
        assert SessionGoal()(blocks_of(b), later) == ["Fix the login bug (recall: expand=[1])"]


def test_cheap_prefilters_miss_nothing_the_patterns_find() -> None:
    asked = "I'd like you to run ruff before every commit."
    assert preference_sentences(asked) == [asked]
    assert preference_sentences(f"Café first. {asked}") == [asked]  # non-ASCII: regex test
    assert preference_sentences("We fixed the café menu.") == []
    b = SessionBuilder()
    b.user("Fix the login bug in the café app: users get a 500 after resetting a password")
    b.user("Actually, let's rewrite the café search in Rust")
    assert SessionGoal()(blocks_of(b), CTX)[-1] == (
        "scope change: Actually, let's rewrite the café search in Rust (recall: expand=[2])"
    )


def test_preferences_are_explicit_standing_instructions_deduplicated() -> None:
    b = SessionBuilder()
    b.user("Please use ruff for formatting. The build is slow. Never edit generated files!")
    b.user(
        "I'd prefer tabs over spaces.\n- don't add comments that narrate code\n"
        "please use ruff for formatting."
    )
    b.user("I don't know why it fails.")
    assert UserPreferences()(blocks_of(b), CTX) == [
        "Please use ruff for formatting.",
        "Never edit generated files!",
        "I'd prefer tabs over spaces.",
        "don't add comments that narrate code",
    ]


def test_files_track_created_modified_deleted_and_skip_failed_edits() -> None:
    b = SessionBuilder()
    b.write("src/new.py", "x = 1\n")
    b.edit("src/new.py", "x = 1", "x = 2")
    b.write("README.md", "# hi\n", new=False)
    b.edit("src/missing.py", "a", "b", error="src/missing.py does not exist")
    b.bash("git rm -q old.py && mv a.txt b.txt", "", 0)
    b.bash("rm never.py", "rm: cannot remove", 1)
    assert FilesAndChanges()(blocks_of(b), CTX) == [
        "src/new.py: created (recall: expand=[2, 4])",
        "README.md: modified (recall: expand=[6])",
        "old.py: deleted (recall: expand=[10])",
        "a.txt: deleted (recall: expand=[10])",
        "b.txt: created (recall: expand=[10])",
    ]


def test_shell_file_ops_ignore_globs_variables_and_unparsable_segments() -> None:
    assert shell_file_ops("rm -rf build/* $TMP/x && rm 'unclosed") == []
    assert shell_file_ops("cd src; rm -f ./a.py b.py") == [("a.py", "deleted"), ("b.py", "deleted")]


def test_commits_made_and_seen_in_git_log() -> None:
    b = SessionBuilder()
    b.bash('git commit -m "fix: x"', "[main (root-commit) abc1234] fix: x\n 1 file changed", 0)
    b.bash(
        "git log --oneline -3",
        "def5678 (HEAD -> main) feat: y\nabc1234 fix: x\n* 0123abc old",
        0,
    )
    assert Commits()(blocks_of(b), CTX) == [
        "abc1234: fix: x (main) (recall: expand=[2])",
        "def5678: feat: y (seen in git log) (recall: expand=[4])",
        "0123abc: old (seen in git log) (recall: expand=[4])",
    ]


SOURCES = {
    "a.py": "class Store(Base):\n    def get(self, key: str) -> bytes:\n    def _hidden(self):\n"
    "    def __init__(self, root):\nasync def main() -> None:\n",
    "b.ts": "export interface User {\nexport function login(u: User): Promise<void> {\n"
    "type Id = string;\nexport const handler = async (req) => {\n",
    "c.go": "func (s *Server) Serve(l net.Listener) error {\ntype Config struct {\n"
    "func helper() {\n",
    "d.rs": "pub fn parse(input: &str) -> Result<Ast> {\npub(crate) struct Parser {\n"
    "fn private() {}\n",
    "e.txt": "def not_code(): pass\n",
}


def test_type_catalog_reads_signatures_by_language() -> None:
    b = SessionBuilder()
    for path, source in SOURCES.items():
        b.read(path, source)
    assert TypeCatalog()(blocks_of(b), CTX) == [
        "a.py: class Store(Base); def get(self, key: str) -> bytes; def __init__(self, root); "
        "async def main() -> None",
        "b.ts: export interface User; export function login(u: User): Promise<void>; "
        "type Id = string; export const handler = async (req) =>",
        "c.go: func (s *Server) Serve(l net.Listener) error; type Config struct",
        "d.rs: pub fn parse(input: &str) -> Result<Ast>; pub(crate) struct Parser",
    ]


class FakeIndex:
    name = "fake"

    def outline(self, path: str) -> list[Symbol]:
        return []

    def symbol(self, name: str) -> list[Symbol]:
        return []

    def signatures(self, path: str) -> list[str]:
        if path == "c.go":
            raise OSError("gone")
        return [f"indexed({path})"]

    def invalidate(self, path: str) -> None:
        return None


def test_type_catalog_prefers_the_code_index_and_falls_back_when_it_fails() -> None:
    b = SessionBuilder()
    b.read("a.py", SOURCES["a.py"])
    b.read("c.go", SOURCES["c.go"])
    ctx = ExtractorContext(code_index=FakeIndex(), previous_summary=None, compaction_index=0)
    assert TypeCatalog()(blocks_of(b), ctx) == [
        "a.py: indexed(a.py)",
        "c.go: func (s *Server) Serve(l net.Listener) error; type Config struct",
    ]


def test_outstanding_classifies_and_retags_resolved() -> None:
    b = SessionBuilder()
    b.bash("pytest -q", "E   AssertionError: 1 != 2\n1 failed", 1)
    b.edit("src/x.py", "a", "b", error="old_string not found in src/x.py")
    b.bash("python -m tool", 'File "src/tool.py", line 3\nSyntaxError: bad', 1)
    b.grep("TODO", "")
    b.bash("rg nothing", "", 1)
    b.bash("npm run build", "error TS2304: Cannot find name 'x'", 2)
    b.edit("src/x.py", "a", "c")
    b.write("src/tool.py", "ok", new=False)
    b.bash("pytest -q tests/", "3 passed, 1 warning", 0)
    assert OutstandingContext()(blocks_of(b), CTX) == [
        "[ERROR] [build] npm run build — error TS2304: Cannot find name 'x' (recall: expand=[12])",
        "[WARN] [tests] pytest -q tests/ — 1 warning (recall: expand=[18])",
        "[INFO] [no matches] no matches for 'TODO' in . (recall: expand=[8])",
        "[INFO] [no matches] rg nothing (recall: expand=[10])",
        "[RESOLVED] [edit] edit src/x.py: old_string not found in src/x.py (recall: expand=[4])",
        "[RESOLVED] [bash:exit 1] python -m tool — SyntaxError: bad (recall: expand=[6])",
    ]


def test_a_failing_command_is_resolved_by_the_same_program_on_the_same_subject() -> None:
    b = SessionBuilder()
    b.bash("python -m cache_stats", "ModuleNotFoundError: No module named cache_stats", 1)
    b.bash("timeout 5 ls", "", 124)
    b.bash("python -m tools.cache_stats", "ok", 0)
    assert OutstandingContext()(blocks_of(b), CTX) == [
        "[ERROR] [bash:exit 124] timeout 5 ls — (no output) (recall: expand=[4])",
        "[RESOLVED] [bash:exit 1] python -m cache_stats — ModuleNotFoundError: No module named "
        "cache_stats (recall: expand=[2])",
    ]


def test_progress_reads_the_plan_and_the_open_failures() -> None:
    b = SessionBuilder()
    b.user("Ship the exporter.")
    b.bash("pytest", "E   KeyError: 'id'", 1)
    plan = PlanCheckpoint(steps=[PlanStep(text="write", done=True), PlanStep(text="test")], text="")
    ctx = SectionContext(code_index=None, previous_summary=None, compaction_index=0, plan=plan)
    assert Progress()(blocks_of(b), ctx) == [
        "plan: 1/2 steps done",
        "done: write",
        "remaining: test",
        "last test run: pytest → failed (exit 1) (recall: expand=[3])",
        "open failures: 1 (see Outstanding Context)",
        "next action: fix [tests] pytest — E KeyError: 'id' (recall: expand=[3])",
    ]
    b.bash("pytest", "1 passed", 0)
    assert Progress()(blocks_of(b), ctx)[-1] == "next action: test"
    assert Progress()(blocks_of(b), CTX) == [
        "last test run: pytest → passed (recall: expand=[5])",
        "last failing test run: pytest → failed (recall: expand=[3])",
        "in progress: Ship the exporter. (recall: expand=[1])",
    ]


def test_earlier_turns_one_line_each_with_outcome() -> None:
    b = SessionBuilder()
    b.say("(resuming)")
    b.user("What does the cache do?")
    b.say("It memoises lookups.")
    b.user("Make it thread-safe.")
    b.edit("src/cache.py", "a", "b")
    b.bash("pytest", "ok", 0)
    assert EarlierTurns()(blocks_of(b), CTX) == [
        "(continued) → answered: (resuming) (recall: expand=[1])",
        "What does the cache do? → answered: It memoises lookups. (recall: expand=[2])",
        "Make it thread-safe. → 2 tool calls; changed src/cache.py; tests passed "
        "(recall: expand=[4])",
    ]


def test_transcript_cuts_a_huge_output_head_and_tail_with_a_breadcrumb() -> None:
    b = SessionBuilder()
    b.user("Dump the log")
    b.bash("cat big.log", "START " + "x" * 50_000 + " END", 0)
    lines = BriefTranscript()(blocks_of(b), CTX)
    assert lines[0] == "[user #1] Dump the log"
    assert lines[1].startswith("  $ cat big.log → exit 0: START xxx")
    assert "chars cut; (recall: expand=[3])]…" in lines[1]
    assert lines[1].endswith("xxx END (#3)")
    assert len(lines[1]) < 500


def test_build_sections_shares_one_index_and_survives_a_broken_extractor() -> None:
    class Broken:
        name = "broken"
        title = "Broken"

        def __call__(self, blocks: object, ctx: object) -> list[str]:
            raise RuntimeError("bug")

    b = SessionBuilder()
    b.user("hello world, do something")
    sections = build_sections(blocks_of(b), CTX, [SessionGoal(), Broken()])
    assert [(s.name, s.lines, s.merge) for s in sections] == [
        ("goal", ("hello world, do something (recall: expand=[1])",), "sticky-goal"),
        ("broken", (), "replace"),
    ]


WORDS = [
    "I'd like you to", "please use ruff", "Never", "PREFER tabs", "instead of", "ok.",
    "\u0131nstead", "\u017ftop", "\u0130 would prefer", "actually, let's", "now add", "\n",
    "New requirement", "out of scope", "no longer need",
]  # fmt: skip
"""Preference and scope phrases, some with the letters IGNORECASE folds onto ASCII."""
PHRASES = st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=6)), max_size=8).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(text=PHRASES)
def test_the_prefilters_are_supersets_of_the_patterns(text: str) -> None:
    with mock.patch.object(intent, "_maybe_preference", return_value=True):
        unfiltered = preference_sentences(text)
    assert preference_sentences(text) == unfiltered
    if intent._SCOPE.search(text):  # pyright: ignore[reportPrivateUsage]
        assert intent._maybe_scope(text)  # pyright: ignore[reportPrivateUsage]


def test_an_explicit_change_of_scope_outlasts_later_next_steps() -> None:
    b = SessionBuilder()
    b.user("Make the CSV importer stream rows instead of loading the whole file into memory.")
    b.user("New requirement: the XLSX importer has to stream as well.")
    b.user("Now let's add a progress bar.")
    b.user("Next, please implement the retry.")
    assert SessionGoal()(blocks_of(b), CTX)[-1] == (
        "scope change: New requirement: the XLSX importer has to stream as well. "
        "(recall: expand=[2])"
    )
    implied = SessionBuilder()  # with no explicit one, the latest implied change is it
    implied.user("Make the CSV importer stream rows instead of loading the whole file.")
    implied.user("Now let's add a progress bar.")
    assert SessionGoal()(blocks_of(implied), CTX)[-1] == (
        "scope change: Now let's add a progress bar. (recall: expand=[2])"
    )


def test_a_commit_is_named_by_the_hash_git_printed() -> None:
    b = SessionBuilder()
    b.bash("git commit -am 'stream rows'", "[main 8975adce7a] stream rows\n 2 files changed", 0)
    b.bash("git log --oneline -1", "8975adc (HEAD -> main) stream rows", 0)
    assert Commits()(blocks_of(b), CTX) == ["8975adce7a: stream rows (main) (recall: expand=[2])"]


def test_questions_said_to_be_open_outrank_requests_phrased_as_questions() -> None:
    b = SessionBuilder()
    b.user("Still open: do we keep the row limit flag or remove it? Decide after the benchmark.")
    for n in range(5):
        b.user(f"Can you make the parser number {n} faster?")
    lines = DecisionsAndQuestions()(blocks_of(b), CTX)
    assert lines == [
        "user asked: Still open: do we keep the row limit flag or remove it? Decide after the "
        "benchmark. (recall: expand=[1])",
        "user asked: Can you make the parser number 4 faster? (recall: expand=[6])",
    ]


def test_progress_names_the_failing_tests_of_pytest_jest_and_cargo() -> None:
    outputs = {
        "pytest -q": "FAILED tests/test_a.py::test_b - AssertionError\n1 failed",
        "npx jest": "FAIL src/row.test.ts\n  \u2715 row \u203a streams (12 ms)",
        "cargo test": "running 3 tests\ntest parse::quotes ... FAILED\n",
    }
    names = {"pytest -q": "tests/test_a.py::test_b", "npx jest": "row \u203a streams",
             "cargo test": "parse::quotes"}  # fmt: skip
    for command, output in outputs.items():
        b = SessionBuilder()
        b.user("Make the tests pass.")
        b.bash(command, output, 1)
        assert f"failing: {names[command]} (recall: expand=[3])" in Progress()(blocks_of(b), CTX)
