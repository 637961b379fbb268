"""The environment a tool's process gets: no secrets, and git with the workspace's commands off.

Secrets (`shard_core.types.secrets`: by name or by value) never reach a command the model writes
— a `curl` could send them out — unless `config.json` forwards the name
(`"tools": {"env_passthrough": ["MY_TOKEN"]}`).

A repository is untrusted input: its `.git/config` can name programs git runs on its own
(`core.fsmonitor` on every `git status`, a `diff.external` or textconv on `git diff`/`git log -p`,
a `gpg.program` with `log.showSignature`, hooks, filters, credential helpers, …). Git ≥ 2.31 reads
`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` as command-line config, which wins
over every file: fixed safe values for the keys that have one, and for the keys the workspace's
repository defines in its own files (filter, diff and merge drivers, `diff.external`) an
identity (`cat`) or a program that only says it was not run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping
from pathlib import Path

from shard_core.types.secrets import is_secret

OWNER_VARIABLE = "SHARD_AGENT_ID"

GIT_SAFE_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.editor", "true"),
    ("sequence.editor", "true"),
    ("core.askPass", ""),
    ("core.sshCommand", "ssh"),
    ("credential.helper", ""),  # an empty value clears every helper configured before it
    ("protocol.ext.allow", "never"),
    ("log.showSignature", "false"),
    ("gpg.program", "gpg"),
    ("gpg.ssh.program", "ssh-keygen"),
    ("gpg.x509.program", "gpgsm"),
    ("gpg.ssh.defaultKeyCommand", ""),
)
"""Keys with a safe fixed value, set whatever the repository says."""

GIT_SAFE_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "GIT_ASKPASS": ""}

_NOT_RUN = "printf '%s\\n' 'shard: not run: {key} from the repository config' #"
"""git runs such a program as `sh -c '<value> "$@"'`; `#` drops the arguments."""
_LOCAL_SCOPES = ("local", "worktree")
_SCAN_TIMEOUT = 10.0


def scrubbed_env(base: Mapping[str, str], passthrough: Collection[str] = ()) -> dict[str, str]:
    """`base` minus every secret, except the names `passthrough` forwards on purpose."""
    return {
        name: value
        for name, value in base.items()
        if name in passthrough or not is_secret(name, value)
    }


def repository_overrides(local_keys: Collection[str]) -> list[tuple[str, str]]:
    """Neutral values for the program-running keys a repository's own config files define.

    `local_keys`: key names (`filter.lfs.clean`), as `git config --list --name-only` prints them
    (section and variable lower case, subsection as written)."""
    found: list[tuple[str, str]] = []
    for key in local_keys:
        section, _, rest = key.partition(".")
        driver, _, variable = rest.rpartition(".")
        section, variable = section.lower(), variable.lower()
        if key.lower() == "diff.external":
            found.append(("diff.external", _NOT_RUN.format(key="diff.external")))
        elif section == "filter" and driver and variable in ("clean", "smudge", "process"):
            found += [
                (f"filter.{driver}.clean", "cat"),
                (f"filter.{driver}.smudge", "cat"),
                (f"filter.{driver}.process", ""),
                (f"filter.{driver}.required", "false"),
            ]
        elif section == "diff" and driver and variable == "textconv":
            found.append((f"diff.{driver}.textconv", "cat"))
        elif section == "diff" and driver and variable == "command":
            found.append((f"diff.{driver}.command", _NOT_RUN.format(key=key)))
        elif section == "merge" and driver and variable == "driver":
            found.append((f"merge.{driver}.driver", _NOT_RUN.format(key=key) + "\nfalse"))
    return list(dict.fromkeys(found))


def with_git_config(env: dict[str, str], pairs: list[tuple[str, str]]) -> dict[str, str]:
    """`env` plus `pairs` as command-line git config, after any the environment already had."""
    try:
        start = int(env.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        start = 0
    out = {**env, **GIT_SAFE_ENV}
    for offset, (key, value) in enumerate(pairs):
        out[f"GIT_CONFIG_KEY_{start + offset}"] = key
        out[f"GIT_CONFIG_VALUE_{start + offset}"] = value
    out["GIT_CONFIG_COUNT"] = str(start + len(pairs))
    return out


async def repository_keys(cwd: Path, env: Mapping[str, str]) -> list[str]:
    """The config keys the repository at `cwd` defines in its own files (and what they include).

    `git config` only reads files; it runs nothing the repository names. No repository, no git,
    or a config git cannot parse (then git refuses to run there too): none."""
    if not _inside_repository(cwd):
        return []
    try:
        proc = await asyncio.create_subprocess_exec(
            "git", "config", "--includes", "--list", "--show-scope", "--name-only",
            cwd=cwd, env=dict(env),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
    except OSError:
        return []
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), _SCAN_TIMEOUT)
    except BaseException as exc:
        proc.kill()
        await proc.wait()
        if isinstance(exc, TimeoutError):  # fail closed: the command is not run unprotected
            raise RuntimeError(
                f"`git config` did not answer in {_SCAN_TIMEOUT:g} s, so the repository's "
                "git programs could not be switched off; the command was not run"
            ) from None
        raise
    keys: list[str] = []
    for line in out.decode("utf-8", "replace").splitlines():
        scope, _, key = line.partition("\t")
        if scope in _LOCAL_SCOPES and key:
            keys.append(key)
    return keys


def _inside_repository(cwd: Path) -> bool:
    return any((folder / ".git").exists() for folder in (cwd, *cwd.parents))


async def tool_environment(
    base: Mapping[str, str], cwd: Path, *, agent_id: str, passthrough: Collection[str] = ()
) -> dict[str, str]:
    """The environment for one command run in `cwd`: secrets out, git's repository programs off,
    and `SHARD_AGENT_ID`, which marks every process the call starts so that an agent restarted
    after a crash can find what its previous process left running (see shard_kernel.recovery)."""
    env = scrubbed_env(base, passthrough)
    safe = with_git_config(env, list(GIT_SAFE_CONFIG))
    local = repository_overrides(await repository_keys(cwd, safe))
    env = with_git_config(env, [*GIT_SAFE_CONFIG, *local])
    env[OWNER_VARIABLE] = agent_id
    return env
