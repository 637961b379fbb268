"""The environment a tool's process gets: an allowlist, no secrets, and git with the
workspace's commands off.

Only the variables a developer's `pytest`, `npm test`, `cargo build` or `git commit` needs reach
a command the model writes (`ALLOWED_NAMES`, `ALLOWED_PREFIXES`: locale, terminal, HOME, PATH,
the toolchains' own), plus the names `config.json` forwards
(`"tools": {"env_passthrough": ["MY_TOKEN"]}`). Whatever is not on the list does not reach it —
agent sockets (`SSH_AUTH_SOCK`, `*_SOCK`, `GPG_AGENT_INFO`), cloud and CI credentials, whatever
a new tool invents. A listed name whose value looks like a secret (`shard_core.types.secrets`)
is dropped too, unless forwarded: a `curl` could send it out.

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
import os
from collections.abc import Collection, Mapping
from pathlib import Path

from shard_core.types.secrets import is_secret

OWNER_VARIABLE = "SHARD_AGENT_ID"
HOME_VARIABLE = "SHARD_AGENT_HOME"
"""the agent's SHARD_HOME: an agent id is unique only within one home, so a restarted agent
stops only what carries both (two homes on one machine may each have an `agent-test`)"""


def agent_home() -> str:
    """This process's SHARD_HOME as `shard_core.engine.state.shard_home` resolves it."""
    raw = os.environ.get("SHARD_HOME")
    return str(Path(raw).expanduser() if raw else Path.home() / ".shard")


def _words(*groups: str) -> frozenset[str]:
    return frozenset(word for group in groups for word in group.split())


ALLOWED_NAMES = _words(
    # the session, the terminal, the locale
    "PATH HOME USER LOGNAME SHELL HOSTNAME LANG LANGUAGE TZ TERM COLORTERM COLUMNS LINES "
    "NO_COLOR FORCE_COLOR CLICOLOR CLICOLOR_FORCE TMPDIR CI DEBIAN_FRONTEND "
    "XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME XDG_STATE_HOME XDG_CONFIG_DIRS XDG_DATA_DIRS ",
    # Python
    "VIRTUAL_ENV VIRTUAL_ENV_PROMPT PYTHONPATH PYTHONHOME PYTHONDONTWRITEBYTECODE "
    "PYTHONUNBUFFERED PYTHONIOENCODING PYTHONUTF8 PYTHONSAFEPATH PYTHONWARNINGS PYTHONHASHSEED "
    "PYTHONNOUSERSITE PYTHONPYCACHEPREFIX PYTHONFAULTHANDLER MPLBACKEND MPLCONFIGDIR ",
    # JavaScript
    "NODE_PATH NODE_OPTIONS NODE_ENV NODE_EXTRA_CA_CERTS NVM_DIR NVM_BIN NVM_INC PNPM_HOME "
    "VOLTA_HOME BUN_INSTALL DENO_INSTALL DENO_DIR ",
    # Rust, Go, the JVM, Ruby, .NET, Perl
    "CARGO_HOME RUSTUP_HOME RUSTUP_TOOLCHAIN RUSTFLAGS RUSTDOCFLAGS CARGO_TARGET_DIR "
    "CARGO_INCREMENTAL RUST_BACKTRACE RUST_LOG GOPATH GOROOT GOFLAGS GOCACHE GOMODCACHE GOPROXY "
    "GOPRIVATE GONOSUMDB GOTOOLCHAIN GO111MODULE CGO_ENABLED GOOS GOARCH JAVA_HOME "
    "JDK_JAVA_OPTIONS MAVEN_OPTS MAVEN_HOME M2_HOME GRADLE_HOME GRADLE_USER_HOME GRADLE_OPTS "
    "SDKMAN_DIR GEM_HOME GEM_PATH RBENV_ROOT DOTNET_ROOT DOTNET_CLI_TELEMETRY_OPTOUT "
    "NUGET_PACKAGES PERL5LIB ",
    # C and C++ builds
    "CC CXX CFLAGS CXXFLAGS CPPFLAGS LDFLAGS CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH "
    "LIBRARY_PATH LD_LIBRARY_PATH PKG_CONFIG_PATH MAKEFLAGS CMAKE_PREFIX_PATH CMAKE_GENERATOR "
    "CCACHE_DIR OMP_NUM_THREADS MKL_NUM_THREADS OPENBLAS_NUM_THREADS ",
    # certificates and proxies (a proxy URL with a password is a secret by value)
    "SSL_CERT_FILE SSL_CERT_DIR REQUESTS_CA_BUNDLE CURL_CA_BUNDLE HTTP_PROXY HTTPS_PROXY "
    "NO_PROXY ALL_PROXY http_proxy https_proxy no_proxy all_proxy ",
    # git: who commits (git's own program switches are added after, see GIT_SAFE_CONFIG)
    "GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL",
)
"""Variables a command gets (when their value is no secret), beside `ALLOWED_PREFIXES`."""
ALLOWED_PREFIXES = (
    "LC_",
    "CONDA_",
    "PYENV_",
    "PIP_",
    "UV_",
    "POETRY_",
    "PYTEST_",
    "COVERAGE_",
    "npm_config_",
    "NPM_CONFIG_",
    "GIT_CONFIG_",
)

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


def allowed_env(base: Mapping[str, str], passthrough: Collection[str] = ()) -> dict[str, str]:
    """The variables of `base` on the allowlist whose values are no secret, and the names
    `passthrough` forwards on purpose (whatever they hold)."""
    return {
        name: value
        for name, value in base.items()
        if name in passthrough
        or (_listed(name) and not name.endswith("_SOCK") and not is_secret(name, value))
    }


def _listed(name: str) -> bool:
    return name in ALLOWED_NAMES or name.startswith(ALLOWED_PREFIXES)


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
    """The environment for one command run in `cwd`: the allowlist, secrets out, git's
    repository programs off, and `SHARD_AGENT_ID` with `SHARD_AGENT_HOME`, which mark every
    process the call starts so that an agent restarted after a crash can find what its previous
    process left running (see shard_kernel.recovery)."""
    env = allowed_env(base, passthrough)
    safe = with_git_config(env, list(GIT_SAFE_CONFIG))
    local = repository_overrides(await repository_keys(cwd, safe))
    env = with_git_config(env, [*GIT_SAFE_CONFIG, *local])
    env[OWNER_VARIABLE] = agent_id
    env[HOME_VARIABLE] = agent_home()
    return env
