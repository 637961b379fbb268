#!/usr/bin/env bash
# The whole check suite, from a fresh checkout: venv, install, lint, types, layers, tests.
# The README's second command and CI (.ci/run) both run exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages the suite needs, installed when missing (a fresh Debian machine has neither):
# Debian's chromium for tests/e2e (Playwright launches it by path; never `playwright install`) and
# bubblewrap for the OS sandbox around the agent's commands.
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "== system packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y "${missing[@]}"
fi

PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[dev]'

# Test prerequisites (Enterprise Gateway's own venv, the hub's proxy from npm, the collaboration
# and jupyter-ai venvs), built in the background while the checks below run (mostly registry
# downloads). They are kept in the test cache by the hash of their inputs (tests/fixtures/cache.py),
# so a later run reuses them; a build holds a lock, so no test (or other worker) races it.
prereq_log=$(mktemp)
(
  .venv/bin/python -m tests.fixtures.enterprise_gateway &
  .venv/bin/python -m tests.fixtures.hub_proxy &
  .venv/bin/python -m tests.fixtures.rtc &  # jupyter-collaboration's venv (tests/e2e/test_notebook_rtc.py)
  .venv/bin/python -m tests.fixtures.jupyter_ai &  # jupyter-ai 3.2's venv (tests/e2e/test_jupyter_ai.py)
  .venv/bin/python -m tests.fixtures.nbi &  # notebook-intelligence 6.2's venv (tests/integration/acp/test_acp_nbi.py)
  fail=0
  for job in $(jobs -p); do wait "$job" || fail=1; done
  exit "$fail"
) >"$prereq_log" 2>&1 &
prereq=$!

echo "== ruff"; .venv/bin/ruff check . && .venv/bin/ruff format --check .
echo "== import-linter"; .venv/bin/lint-imports
echo "== pyright (against the venv's packages, not whatever python is first on PATH)"; .venv/bin/pyright --pythonpath .venv/bin/python
echo "== front end (labextension: types from schema/, renderer tests)"
if command -v npm >/dev/null 2>&1; then
  (cd labextension && npm ci --no-audit --no-fund --loglevel=error && npm test)
else
  echo "npm is required for the front-end tests (apt-get install -y nodejs npm)" >&2
  exit 1
fi
echo "== test prerequisites (Enterprise Gateway's own venv, the hub's proxy from npm, the collaboration, jupyter-ai and notebook-intelligence venvs)"
prereq_status=0
wait "$prereq" || prereq_status=$?
cat "$prereq_log"; rm -f "$prereq_log"
[ "$prereq_status" -eq 0 ] || { echo "a test prerequisite could not be built" >&2; exit 1; }
# In parallel: a pytest-xdist worker per core (SHARD_TEST_WORKERS=N for N, 1 for one serial
# process). Every test keeps its own ports (tests/fixtures/ports.py), temp dirs and SHARD_HOME;
# a module is run whole by one worker (--dist loadscope), so its module-scoped fixtures are made
# once, and the modules are handed out longest first by the last run's times (tests/conftest.py).
workers=${SHARD_TEST_WORKERS:-auto}
[ "$workers" != 1 ] || workers=0
echo "== pytest (workers: $workers)"
status=0
.venv/bin/python -m pytest -m "not e2e" -n "$workers" --dist loadscope --no-loadscope-reorder "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure of the suite" >&2
  exit 1
fi

echo "== e2e (JupyterLab + Debian chromium + Playwright; screenshots in test-artifacts/)"
if [ "${SHARD_E2E:-1}" = 0 ]; then
  echo "skipped: SHARD_E2E=0"
elif [ ! -x /usr/bin/chromium ]; then
  echo "e2e needs Debian's chromium (never playwright install): apt-get update && apt-get install -y chromium" >&2
  exit 1
else
  e2e_status=0
  .venv/bin/python -m pytest -m e2e -n "$workers" --dist loadscope --no-loadscope-reorder tests/e2e || e2e_status=$?
  if [ "$e2e_status" -eq 5 ]; then
    echo "the e2e run collected no tests: that is a failure of the suite" >&2
    e2e_status=1
  fi
  [ "$status" -ne 0 ] || status=$e2e_status
fi
exit "$status"
