"""The shell analyser: every command bash would run is listed, and anything unclear fails closed."""

from __future__ import annotations

import dataclasses

import pytest

from shard_core.engine.permissions import shell
from shard_core.engine.permissions.shell import ShellAnalysis, SimpleCommand, analyze


def argvs(command: str) -> tuple[tuple[str, ...], ...]:
    return tuple(c.argv for c in analyze(command).commands)


def names(command: str) -> tuple[str, ...]:
    return tuple(c.argv[0] if c.argv else "" for c in analyze(command).commands)


# -- bypasses: each input, the full tuple of argv[0]s, the writes, and whether it is ok ---------

BYPASSES = [
    ("git add x && git push", ("git", "git"), (), True),
    ("git add x; rm -rf y", ("git", "rm"), (), True),
    ("ls || curl x", ("ls", "curl"), (), True),
    ("ls | sh", ("ls", "sh"), (), True),
    ("ls\nrm y", ("ls", "rm"), (), True),
    ("ls $(rm -rf y)", ("ls", "rm"), (), True),
    ("ls `rm y`", ("ls", "rm"), (), True),
    ("ls <(rm y)", ("ls", "rm"), (), True),
    ("ls > ../outside", ("ls",), ("../outside",), True),
    ("FOO=1 rm y", ("rm",), (), True),
    ("env rm y", ("rm",), (), True),
    ("command rm y", ("rm",), (), True),
    ("\\rm y", ("rm",), (), True),
    ("/bin/rm y", ("rm",), (), True),
    ("bash -c 'rm y'", ("rm",), (), True),
    ("xargs rm < list", ("xargs", "rm"), (), True),
    ("rm -fr y", ("rm",), (), True),
    ("rm --recursive --force y", ("rm",), (), True),
    ("sh <<EOF\nrm y\nEOF", ("sh", "rm"), (), False),
    ("ls &&", ("ls",), (), False),
    ("if then fi(", ("then",), (), False),
    # beyond the brief: spellings that hide the command name or move it
    ("r\\\nm -rf y", ("rm",), (), True),
    ("'r''m' y", ("rm",), (), True),
    ("$'\\x72m' y", ("rm",), (), True),
    ("rm > /dev/null -rf y", ("rm",), (), True),
    ("env -iu git rm y", ("rm",), (), True),
    ("/usr/bin/env nice -n 5 timeout -k 5 10 rm y", ("rm",), (), True),
    ("sudo -u root rm y", ("sudo", "rm"), (), True),
    ("find . -exec rm {} \\;", ("find", "rm"), (), True),
    ("git status | xargs -I{} sh -c 'rm {}'", ("git", "xargs", "rm"), (), True),
    ("echo x > >(rm y)", ("echo", "rm"), (), True),
    ("ls() { rm -rf y; }; ls", ("rm", "ls"), (), True),
    ("cat <<EOF && rm y\nhi\nEOF", ("cat", "rm"), (), True),
    ("cat <<EOF | sh\nrm $(whoami)\nEOF", ("cat", "sh", "whoami"), (), True),
    ("ls | tee -a ../a b", ("ls", "tee"), ("../a", "b"), True),
    ("x=$(sh <<EOF\nrm y\nEOF\n)", ("sh", "rm"), (), False),
    ("bash -c 'bash -c \"rm y\"'", ("rm",), (), True),
    ("{rm,-rf,y}", (), (), False),
    ("r{m,} -rf y", ("r{m,}",), (), False),
    ("$CMD -rf y", ("$CMD",), (), False),
]


@pytest.mark.parametrize(("command", "expected_names", "expected_writes", "ok"), BYPASSES)
def test_bypass_shapes_list_every_command(
    command: str, expected_names: tuple[str, ...], expected_writes: tuple[str, ...], ok: bool
) -> None:
    analysis = analyze(command)
    assert (names(command), analysis.writes, analysis.ok) == (expected_names, expected_writes, ok)


def test_options_are_left_to_the_rule_layer() -> None:
    assert argvs("rm -fr y") == (("rm", "-fr", "y"),)
    assert argvs("rm --recursive --force y") == (("rm", "--recursive", "--force", "y"),)


# -- benign commands come out whole ---------------------------------------------------------

BENIGN = [
    ("git status", (("git", "status"),)),
    ("npm run test:unit -- --watch=false", (("npm", "run", "test:unit", "--", "--watch=false"),)),
    ('grep -rn "foo|bar" src | head -5', (("grep", "-rn", "foo|bar", "src"), ("head", "-5"))),
    ("echo 'a && b'", (("echo", "a && b"),)),
    ('echo "a\u2028b" && ls', (("echo", "a\u2028b"), ("ls",))),
    ("ls $HOME", (("ls", "$HOME"),)),
    ('echo "$(date)"', (("echo", "$(date)"), ("date",))),
    ("kubectl apply -f - <<EOF\nkind: Pod\nEOF", (("kubectl", "apply", "-f", "-"),)),
    (
        "cd k8s && kubectl apply -f - <<EOF\nkind: Pod\nEOF",
        (("cd", "k8s"), ("kubectl", "apply", "-f", "-")),
    ),
    ("git commit -m \"$(cat <<'EOF'\nfix: $(not run)\nEOF\n)\"", None),
    ("ls 2>&1 >/dev/null &", (("ls",),)),
    ("# just a note\nls", (("ls",),)),
]


@pytest.mark.parametrize(("command", "expected"), BENIGN)
def test_benign_commands_are_ok_with_exactly_their_commands(
    command: str, expected: tuple[tuple[str, ...], ...] | None
) -> None:
    analysis = analyze(command)
    assert (analysis.ok, analysis.problems) == (True, ())
    if expected is not None:
        assert argvs(command) == expected


def test_quoted_heredoc_in_a_commit_message_runs_only_cat() -> None:
    command = "git commit -m \"$(cat <<'EOF'\nfix: $(not run)\nEOF\n)\""
    assert names(command) == ("git", "cat")


def test_whole_structure_of_a_compound_command() -> None:
    assert analyze("cd src && rm -f out.txt > log 2>&1") == ShellAnalysis(
        commands=(
            SimpleCommand(("cd", "src"), "cd src", (), "top"),
            SimpleCommand(("rm", "-f", "out.txt"), "rm -f out.txt > log 2>&1", ("log",), "top"),
        ),
        ok=True,
        problems=(),
    )


# -- every place a command can hide --------------------------------------------------------

SPLITS = [
    ("a && b || c; d | e & f\ng", ("a", "b", "c", "d", "e", "f", "g"), "top"),
    ("(a; b)", ("a", "b"), "subshell"),
    ("{ a; b; }", ("a", "b"), "top"),
    ("x $(a) `b`", ("x", "a", "b"), None),
    ("x <(a) >(b)", ("x", "a", "b"), None),
    ("if a; then b; elif c; then d; else e; fi", ("a", "b", "c", "d", "e"), "top"),
    ("while a; do b; done; until c; do d; done", ("a", "b", "c", "d"), "top"),
    ("for i in $(a); do b; done", ("a", "b"), None),
    ("for ((i = 0; i < 3; i++)); do a; done", ("a",), "top"),
    ("case $x in y) a;; *) b;; esac", ("a", "b"), "top"),
    ("f() { a; }", ("a",), "function"),
    ("function f { a; }", ("a",), "function"),
    ("! a", ("a",), "top"),
    ("[[ -f $(a) ]] && (( $(b) ))", ("a", "b"), "substitution"),
    ("(( $(a) )); a && (( $(b) ))", ("a", "a", "b"), None),
    ("export X=$(a)", ("export", "a"), None),
    ("X=$(a)", ("a",), "substitution"),
    ('echo "${X:-$(a)}" $((1 + $(b)))', ("echo", "a", "b"), None),
    ('cat <<< "$(a)"', ("cat", "a"), None),
]


@pytest.mark.parametrize(("command", "expected", "origin"), SPLITS)
def test_splits_across_every_construct(
    command: str, expected: tuple[str, ...], origin: str | None
) -> None:
    analysis = analyze(command)
    assert (names(command), analysis.ok) == (expected, True)
    if origin is not None:
        assert {c.origin for c in analysis.commands} == {origin}


def test_origins_name_the_construct() -> None:
    origins = [(c.argv[0], c.origin) for c in analyze("a $(b) <(c) (d) | xargs e").commands]
    assert origins == [
        ("a", "top"),
        ("b", "substitution"),
        ("c", "process_substitution"),
        ("d", "subshell"),
        ("xargs", "top"),
        ("e", "xargs"),
    ]


# -- wrappers ------------------------------------------------------------------------------

WRAPPERS = [
    ("env -i A=1 B=2 rm y", (("rm", "y"),)),
    ("env -u HOME rm y", (("rm", "y"),)),  # `env -C DIR`: test_hardening_reads.py
    ("command -p rm y", (("rm", "y"),)),
    ("command -v rm", (("command", "-v", "rm"),)),
    ("builtin cd x", (("cd", "x"),)),
    ("exec rm y", (("rm", "y"),)),
    ("nohup rm y &", (("rm", "y"),)),
    ("time rm y", (("rm", "y"),)),
    ("nice -n 10 rm y", (("rm", "y"),)),
    ("nice -5 rm y", (("rm", "y"),)),
    ("timeout 10 rm y", (("rm", "y"),)),
    ("timeout -s KILL --preserve-status 10s rm y", (("rm", "y"),)),
    ("stdbuf -oL rm y", (("rm", "y"),)),
    ("env", (("env",),)),
    ("sudo rm y", (("sudo", "rm", "y"), ("rm", "y"))),
    (
        "sudo -E -u bob env X=1 rm y",
        (("sudo", "-E", "-u", "bob", "env", "X=1", "rm", "y"), ("rm", "y")),
    ),
    ("xargs -0 -n 1 rm -f < list", (("xargs", "-0", "-n", "1", "rm", "-f"), ("rm", "-f"))),
    ("/usr/local/bin/rm y", (("rm", "y"),)),
]


@pytest.mark.parametrize(("command", "expected"), WRAPPERS)
def test_wrappers_are_seen_through(command: str, expected: tuple[tuple[str, ...], ...]) -> None:
    assert (argvs(command), analyze(command).ok) == (expected, True)


def test_sudo_keeps_its_own_entry_so_a_rule_must_allow_sudo() -> None:
    origins = [(c.argv[0], c.origin) for c in analyze("sudo rm y").commands]
    assert origins == [("sudo", "top"), ("rm", "sudo")]


@pytest.mark.parametrize("command", ["./git push", "/tmp/x/git push", "bin/git push"])
def test_paths_outside_system_bin_dirs_keep_their_name(command: str) -> None:
    assert names(command) == (command.split()[0],)


def test_text_keeps_the_original_spelling() -> None:
    assert [c.text for c in analyze("/bin/rm y && \\rm z").commands] == ["/bin/rm y", "\\rm z"]


# -- bash -c ---------------------------------------------------------------------------------


def test_bash_c_script_is_parsed_recursively() -> None:
    assert analyze("sh -e -o pipefail -c 'cd x && rm y' > out") == ShellAnalysis(
        commands=(
            SimpleCommand(("cd", "x"), "cd x", ("out",), "bash -c"),
            SimpleCommand(("rm", "y"), "rm y", ("out",), "bash -c"),
        ),
        ok=True,
        problems=(),
    )


@pytest.mark.parametrize(
    ("command", "problem"),
    [
        ('bash -c "rm $HOME"', "bash -c script is not a literal: rm $HOME"),
        ("dash -c", "dash -c without a script"),
        ("bash -lc 'ls'", "bash reads startup files, which may run anything"),
        ("bash -c 'ls &&'", "bash -c: parse error at 1:6 (missing word)"),
        ("bash -c '$0 -rf y' rm", "bash -c: dynamic command name $0"),
    ],
)
def test_bash_c_that_cannot_be_read_fails_closed(command: str, problem: str) -> None:
    analysis = analyze(command)
    assert (analysis.ok, analysis.problems) == (False, (problem,))


def test_non_literal_script_is_still_analysed_for_deny_rules() -> None:
    analysis = analyze('zsh -c "rm -rf $X"')
    assert (names('zsh -c "rm -rf $X"'), analysis.ok) == (("rm",), False)
    assert analyze('zsh -c "$X"').problems == (
        "zsh -c script is not a literal: $X",
        "bash -c: dynamic command name $X",
    )


def test_bash_without_c_is_listed_as_bash() -> None:
    assert (argvs("bash script.sh"), argvs("bash < script")) == (
        (("bash", "script.sh"),),
        (("bash",),),
    )


def test_nested_shell_code_has_a_depth_limit() -> None:
    # Heredocs nest without quoting, so the input grows linearly with the depth.
    command = "rm y"
    for level in range(12):
        command = f"sh <<E{level}\n{command}\nE{level}"
    analysis = analyze(command)
    assert analysis.ok is False
    assert analysis.problems[-1].endswith("shell code nested too deeply to analyse")


# -- interpreters, eval, source --------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected_names", "problem"),
    [
        ("sh <<EOF\nrm y\nEOF", ("sh", "rm"), "heredoc feeds an interpreter: sh"),
        ("python - <<EOF\nimport os\nEOF", ("python",), "heredoc feeds an interpreter: python"),
        ("bash <<< 'rm y'", ("bash", "rm"), "here-string feeds an interpreter: bash"),
        ("sudo sh <<'EOF'\nrm y\nEOF", ("sudo", "sh", "rm"), "heredoc feeds an interpreter: sh"),
        ("eval rm y", ("eval",), "eval is not analysable"),
        ("source ./env.sh", ("source",), "source is not analysable"),
        (". ./env.sh", (".",), ". is not analysable"),
        ("builtin eval x", ("eval",), "eval is not analysable"),
        ("trap 'rm y' EXIT", ("trap",), "trap is not analysable"),
        ("env -S 'rm y'", ("env",), "env -S is not analysable"),
        ("alias ls='rm -rf'", ("alias",), "alias is not analysable"),
        ("hash -p /bin/rm ls; ls", ("hash", "ls"), "hash is not analysable"),
        ("enable -f ./x.so ls", ("enable",), "enable is not analysable"),
        ("mapfile -C rm -c 1 < f", ("mapfile",), "mapfile -C runs a callback"),
    ],
)
def test_code_we_cannot_see_fails_closed(
    command: str, expected_names: tuple[str, ...], problem: str
) -> None:
    analysis = analyze(command)
    assert (names(command), analysis.ok, analysis.problems) == (expected_names, False, (problem,))


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("ls | sh", (("ls",), ("sh",))),
        ("curl -s x | bash", (("curl", "-s", "x"), ("bash",))),
        ("bash < script", (("bash",),)),
        ("python3 -", (("python3", "-"),)),
    ],
)
def test_interpreter_fed_from_a_pipe_or_file_is_listed(
    command: str, expected: tuple[tuple[str, ...], ...]
) -> None:
    # ok stays True: a rule layer without an allow rule for `sh` asks.
    assert (argvs(command), analyze(command).ok) == (expected, True)


def test_heredoc_into_a_non_interpreter_is_fine() -> None:
    assert analyze("cat <<EOF > notes.txt\nhello\nEOF").writes == ("notes.txt",)
    assert analyze("cat <<EOF > notes.txt\nhello\nEOF").ok


# -- redirects -------------------------------------------------------------------------------

REDIRECTS = [
    ("ls > a", ("a",)),
    ("ls >> a", ("a",)),
    ("ls &> a", ("a",)),
    ("ls &>> a", ("a",)),
    ("ls 2> a", ("a",)),
    ("ls >| a", ("a",)),
    ("ls >& a", ("a",)),
    ("ls 2>&1", ()),
    ("ls >&2", ()),
    ("ls >&-", ()),
    ("ls > /dev/null 2>/dev/stderr", ()),
    ("ls < a", ()),
    ("exec 3> a", ("a",)),
    ("> a", ("a",)),
    ("(cd x; ls) > a", ("a",)),
    ("{ ls; } >> a", ("a",)),
    ("for f in *; do cat $f; done > a", ("a",)),
    ("a | b > c", ("c",)),
    ("ls | tee a -a b -- -c", ("a", "b", "-c")),
    ("ls | tee /dev/null", ()),
]


@pytest.mark.parametrize(("command", "writes"), REDIRECTS)
def test_write_targets(command: str, writes: tuple[str, ...]) -> None:
    analysis = analyze(command)
    assert (analysis.writes, analysis.ok) == (writes, True)


@pytest.mark.parametrize(
    ("command", "writes"),
    [
        ("a && b > f", [(), ("f",)]),
        ("a | b > f && c", [(), ("f",), ()]),
        ("a && b | c 2> f", [(), (), ("f",)]),
    ],
)
def test_redirect_after_a_list_belongs_to_the_last_command(
    command: str, writes: list[tuple[str, ...]]
) -> None:
    # tree-sitter hangs these redirects on the whole list; bash does not.
    assert [c.writes for c in analyze(command).commands] == writes


def test_words_after_a_redirect_target_are_arguments() -> None:
    # tree-sitter gives `-rf y` to the redirect; bash gives them to rm.
    assert analyze("rm > /dev/null -rf y 2>&1 z").commands == (
        SimpleCommand(("rm", "-rf", "y", "z"), "rm > /dev/null -rf y 2>&1 z", (), "top"),
    )


def test_redirect_on_arithmetic_is_kept() -> None:
    assert analyze("a && ((x)) > f").writes == ("f",)


def test_redirect_on_a_group_reaches_every_inner_command() -> None:
    assert [c.writes for c in analyze("(cd x; rm y) > out").commands] == [("out",), ("out",)]


def test_bare_redirect_is_kept_with_an_empty_argv() -> None:
    assert analyze("> f").commands == (SimpleCommand((), "> f", ("f",), "top"),)


@pytest.mark.parametrize(
    ("command", "problem"),
    [("ls > $F", "dynamic write target $F"), ('tee "$OUT"', "dynamic write target $OUT")],
)
def test_dynamic_write_target_fails_closed(command: str, problem: str) -> None:
    analysis = analyze(command)
    assert (analysis.ok, analysis.problems) == (False, (problem,))


# -- dynamic names, parse errors, empty --------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "problem"),
    [
        ("$CMD args", "dynamic command name $CMD"),
        ("$(echo rm) x", "dynamic command name $(echo rm)"),
        ('"$(echo rm)" x', "dynamic command name $(echo rm)"),
        ("${X} y", "dynamic command name ${X}"),
        ("r* y", "dynamic command name r*"),
    ],
)
def test_dynamic_command_names_fail_closed(command: str, problem: str) -> None:
    analysis = analyze(command)
    assert (analysis.ok, analysis.problems) == (False, (problem,))


def test_substitution_in_a_dynamic_name_is_still_listed() -> None:
    assert names("$(echo rm) x") == ("$(echo rm)", "echo")


@pytest.mark.parametrize(
    ("command", "problem"),
    [
        ("ls &&", "parse error at 1:6 (missing word)"),
        ("if then fi(", "parse error at 1:1"),
        ("echo 'unterminated", "parse error at 1:5"),
        ("ls\necho )", "parse error at 2:6"),
        ("echo é && ))", "parse error at 1:8"),  # characters, not bytes
        ("ls <> f", "parse error at 1:5"),
    ],
)
def test_parse_errors_name_the_position(command: str, problem: str) -> None:
    analysis = analyze(command)
    assert (analysis.ok, analysis.problems[0]) == (False, problem)


@pytest.mark.parametrize("command", ["", "   ", "\n\t\n", "# only a comment"])
def test_empty_command_fails_closed(command: str) -> None:
    assert analyze(command) == ShellAnalysis((), False, ("empty command",))


def test_text_dropped_by_the_grammar_fails_closed() -> None:
    # tree-sitter drops this `-`; with no command around it there is nothing to put it back on.
    analysis = analyze("x=1 - <<EOF\nhi\nEOF")
    assert (analysis.ok, analysis.problems) == (False, ("unparsed text at 1:4: '-'",))


def test_deep_nesting_fails_closed_instead_of_crashing() -> None:
    analysis = analyze("echo " + "$(echo " * 400 + "x" + ")" * 400)
    assert (analysis.ok, analysis.problems) == (False, ("command nests too deeply to analyse",))


# -- variables that change what runs -----------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "variable"),
    [
        ("PATH=. ls", "PATH"),
        ("LD_PRELOAD=./x.so git status", "LD_PRELOAD"),
        ("env GIT_SSH_COMMAND='rm y' git fetch", "GIT_SSH_COMMAND"),
        ("export PATH=.:$PATH; ls", "PATH"),
        ("declare -x BASH_ENV=./x", "BASH_ENV"),
        ("PATH+=:. ls", "PATH"),
    ],
)
def test_hazardous_assignments_fail_closed(command: str, variable: str) -> None:
    analysis = analyze(command)
    assert (analysis.ok, analysis.problems) == (
        False,
        (f"sets {variable}, which changes what runs",),
    )


def test_harmless_assignments_are_fine() -> None:
    assert analyze("GIT_AUTHOR_NAME=x FOO=1 git commit").ok


@pytest.mark.parametrize(
    "command",
    [
        "printf -v 'a[$(rm y)]' x",
        "read -r 'a[$(rm y)]' < f",
        "let 'x=a[`rm y`]'",
        "declare 'a[$(rm y)]=1'",
        'test -v "a[$i]"',
    ],
)
def test_quoted_subscripts_in_builtins_that_take_names_fail_closed(command: str) -> None:
    # bash evaluates the subscript of a variable name given to these builtins.
    analysis = analyze(command)
    assert (analysis.ok, len(analysis.problems)) == (False, 1)
    assert analysis.problems[0].endswith("evaluates an array subscript with an expansion")


def test_quoted_substitution_in_arithmetic_fails_closed() -> None:
    # bash runs `id` here: `[[` evaluates the operand's array subscript.
    analysis = analyze("[[ 'a[$(id)]' -eq 1 ]]")
    assert (analysis.ok, analysis.problems) == (
        False,
        ("quoted command substitution in arithmetic: 'a[$(id)]'",),
    )


# -- quote removal -----------------------------------------------------------------------------

WORDS = [
    ("echo 'a b'", ("echo", "a b")),
    ('echo "x"', ("echo", "x")),
    ("echo \"a\"'b'c", ("echo", "abc")),
    ("echo $'a\\tb\\n\\x41\\u00e9\\'q'", ("echo", "a\tb\nAé'q")),
    ('echo "a \\"b\\" \\$c \\\\ \\d"', ("echo", 'a "b" $c \\ \\d')),
    ("echo a\\ b \\*", ("echo", "a b", "*")),
    ('echo $"hello"', ("echo", "hello")),
    ('echo x"$HOME"y', ("echo", "x$HOMEy")),
    ("echo ~/x *.py {a,b}", ("echo", "~/x", "*.py", "{a,b}")),
]


@pytest.mark.parametrize(("command", "argv"), WORDS)
def test_quote_removal(command: str, argv: tuple[str, ...]) -> None:
    assert argvs(command) == (argv,)


# -- module shape ------------------------------------------------------------------------------


def test_results_are_frozen() -> None:
    command = analyze("ls").commands[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        command.argv = ("rm",)  # type: ignore[misc]


def test_parser_is_built_once() -> None:
    analyze("ls")
    assert shell._parser() is shell._parser()  # pyright: ignore[reportPrivateUsage]
