#!/usr/bin/env bash
# The whole check suite, from a fresh checkout: venv, install, lint, types, layers, tests.
# The README's second command and CI (.ci/run) both run exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# Bytecode is written (__pycache__/ is in .gitignore): with PYTHONDONTWRITEBYTECODE=1 in the
# environment every Python process of the run compiles the checkout's modules again (each
# kernel, server and CLI the tests start: 0.3 s of CPU on a kernel's 1.15 s of imports), and
# each pytest process rewrites and compiles every test module (28 s of CPU to collect, 19 s
# with bytecode).
unset PYTHONDONTWRITEBYTECODE

# System packages the suite needs, installed when missing (a fresh Debian machine has neither):
# Debian's chromium for tests/e2e (Playwright launches it by path; never `playwright install`) and
# bubblewrap for the OS sandbox around the agent's commands, and nodejs + npm for the Lab extension.
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)  # the Lab extension's build and tests
if [ "${#missing[@]}" -gt 0 ]; then
  echo "== system packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y "${missing[@]}"
fi

install_started=$SECONDS
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[dev]'
echo "== venv + install: $((SECONDS - install_started)) s"

# Test prerequisites (Enterprise Gateway's own venv, the hub's proxy from npm, the collaboration,
# jupyter-ai, notebook-intelligence and Binder venvs), built in the background while the checks
# and tests below run (mostly registry downloads). They are kept in the test cache by the hash of
# their inputs (tests/fixtures/cache.py; Binder's by the content of the checkout's build inputs),
# so a later run reuses them; a build holds a lock, so no test (or other worker) races it.
prereq_log=$(mktemp)
(
  .venv/bin/python -m tests.fixtures.enterprise_gateway &
  .venv/bin/python -m tests.fixtures.hub_proxy &
  .venv/bin/python -m tests.fixtures.rtc &  # jupyter-collaboration's venv (tests/e2e/test_notebook_rtc.py)
  .venv/bin/python -m tests.fixtures.jupyter_ai &  # jupyter-ai 3.2's venv (tests/e2e/test_jupyter_ai.py)
  .venv/bin/python -m tests.fixtures.nbi &  # notebook-intelligence 6.2's venv (tests/integration/acp/test_acp_nbi.py)
  .venv/bin/python -m tests.fixtures.euporie &  # euporie 2.10.4's venv (tests/integration/kernel/test_plain_clients.py)
  .venv/bin/python -m tests.fixtures.binder &  # Binder's build of this checkout (tests/integration/test_binder.py)
  fail=0
  for job in $(jobs -p); do wait "$job" || fail=1; done
  exit "$fail"
) >"$prereq_log" 2>&1 &
prereq=$!

# Each phase says how long it took (and the whole run at the end), so a slow phase shows in CI's log.
run_started=$SECONDS
phase() { echo "== $1: $2 s"; }

t=$SECONDS
echo "== ruff"; .venv/bin/ruff check . && .venv/bin/ruff format --check .
echo "== import-linter"; .venv/bin/lint-imports
phase "ruff + import-linter" $((SECONDS - t))
if ! command -v npm >/dev/null 2>&1; then
  echo "npm is required for the front-end tests and could not be installed (apt-get install -y nodejs npm)" >&2
  exit 1
fi
# npm ci before the tests start: the e2e accessibility checks read axe-core from node_modules,
# which `npm ci` removes and writes again.
t=$SECONDS
(cd labextension && npm ci --no-audit --no-fund --loglevel=error)
phase "npm ci" $((SECONDS - t))

# pyright and the front end's tests run beside pytest, each into its log: the suite spends much
# of its time waiting on kernels and servers, and those waits leave a core free for them.
logs=$(mktemp -d)
(
  t=$SECONDS
  status=0
  .venv/bin/pyright --pythonpath .venv/bin/python >"$logs/pyright" 2>&1 || status=$?
  phase "pyright (beside pytest)" $((SECONDS - t)) >>"$logs/pyright"
  exit "$status"
) &
pyright_job=$!
(
  t=$SECONDS
  status=0
  (cd labextension && npm test) >"$logs/npm" 2>&1 || status=$?
  phase "front end: npm test (beside pytest)" $((SECONDS - t)) >>"$logs/npm"
  exit "$status"
) &
npm_job=$!

# The browser tests (JupyterLab + Debian chromium + Playwright; screenshots in test-artifacts/)
# run in a pytest of their own beside the rest, one test at a time (SHARD_E2E_WORKERS=N for N
# xdist workers): Playwright's sync API leaves its event loop running in the thread, so an
# asyncio test after a browser test in one process cannot run its loop.
e2e_job=""
if [ "${SHARD_E2E:-1}" = 0 ]; then
  echo "e2e skipped: SHARD_E2E=0"
elif [ ! -x /usr/bin/chromium ]; then
  echo "e2e needs Debian's chromium (never playwright install): apt-get update && apt-get install -y chromium" >&2
  exit 1
else
  e2e_workers=()
  [ "${SHARD_E2E_WORKERS:-1}" = 1 ] || e2e_workers=(-n "$SHARD_E2E_WORKERS" --dist loadscope --no-loadscope-reorder)
  (
    t=$SECONDS
    status=0
    .venv/bin/python -m pytest -m e2e "${e2e_workers[@]}" tests/e2e >"$logs/e2e" 2>&1 || status=$?
    phase "e2e (beside pytest)" $((SECONDS - t)) >>"$logs/e2e"
    if [ "$status" -eq 5 ]; then
      echo "the e2e run collected no tests: that is a failure of the suite" >>"$logs/e2e"
      status=1
    fi
    exit "$status"
  ) &
  e2e_job=$!
fi

# The rest in parallel: a pytest-xdist worker per core (SHARD_TEST_WORKERS=N for N, 1 for one
# serial process). Every test keeps its own ports (tests/fixtures/ports.py), temp dirs and
# SHARD_HOME; a module is run whole by one worker (--dist loadscope), so its module-scoped
# fixtures are made once, and the modules are handed out longest first by the last run's times
# (tests/conftest.py). A test that needs a prerequisite still being built waits for it (the
# build's lock, cache.py).
workers=${SHARD_TEST_WORKERS:-auto}
[ "$workers" != 1 ] || workers=0
echo "== pytest (workers: $workers)"
t=$SECONDS
status=0
.venv/bin/python -m pytest -m "not e2e" -n "$workers" --dist loadscope --no-loadscope-reorder "$@" || status=$?
phase "pytest" $((SECONDS - t))
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure of the suite" >&2
  status=1
fi

if [ -n "$e2e_job" ]; then
  echo "== e2e (JupyterLab + Debian chromium + Playwright; screenshots in test-artifacts/)"
  wait "$e2e_job" || status=1
  cat "$logs/e2e"
fi
echo "== pyright (against the venv's packages, not whatever python is first on PATH)"
wait "$pyright_job" || status=1
cat "$logs/pyright"
echo "== front end (labextension: types from schema/, renderer tests)"
wait "$npm_job" || status=1
cat "$logs/npm"
echo "== test prerequisites (Enterprise Gateway's own venv, the hub's proxy from npm, the collaboration, jupyter-ai, notebook-intelligence and Binder venvs)"
prereq_status=0
wait "$prereq" || prereq_status=$?
cat "$prereq_log"; rm -f "$prereq_log"; rm -rf "$logs"
if [ "$prereq_status" -ne 0 ]; then
  echo "a test prerequisite could not be built (the tests that need it were skipped)" >&2
  status=1
fi
phase "the whole check (after the install)" $((SECONDS - run_started))
exit "$status"
