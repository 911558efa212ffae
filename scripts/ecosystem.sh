#!/usr/bin/env bash
# Ecosystem tests (tests/ecosystem: galaxy build, ansible-runner, execution
# environment, AWX credential type, docs in sync) with plain pytest from the
# repository root in the default venv, as tests/ecosystem/conftest.py expects.
# usage: scripts/ecosystem.sh [pytest args]
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

venv="$(ensure_env default)"
use_venv "$venv"
cd "$ROOT"
if [ -z "$(find tests/ecosystem -name 'test_*.py' -print -quit 2>/dev/null)" ]; then
    log "no tests/ecosystem/test_*.py yet: skipping"
    exit 0
fi
log "python -m pytest tests/ecosystem $*   # $venv/bin/python"
status=0
python -m pytest -p no:cacheprovider -r a tests/ecosystem "$@" || status=$?
[ "$status" -ne 5 ] || { log "pytest collected no tests"; status=0; }
exit "$status"
