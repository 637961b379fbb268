#!/usr/bin/env bash
# The whole check suite, from a fresh checkout: venv, install, lint, types, layers, tests.
# The README's second command and CI (.ci/run) both run exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[dev]'

echo "== ruff"; .venv/bin/ruff check . && .venv/bin/ruff format --check .
echo "== import-linter"; .venv/bin/lint-imports
echo "== pyright"; .venv/bin/pyright
echo "== front end (labextension: types from schema/, renderer tests)"
if command -v npm >/dev/null 2>&1; then
  (cd labextension && npm ci --no-audit --no-fund --loglevel=error && npm test)
else
  echo "npm is required for the front-end tests (apt-get install -y nodejs npm)" >&2
  exit 1
fi
echo "== pytest"
status=0
.venv/bin/python -m pytest "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure of the suite" >&2
  exit 1
fi
exit "$status"
