#!/usr/bin/env bash
# Plain-pytest test suites under tests/ (tests/ecosystem, tests/reliability, ...:
# every tests/<dir> with test_*.py files except unit/integration/simulator,
# which ansible-test runs or which are not tests), each run with pytest from
# the repository root in the default venv, as their conftest.py files expect.
# usage: scripts/pytest-suite.sh [SUITE_DIR...] [-- pytest args]
#        (no SUITE_DIR: every suite, one pytest run each)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

suites=()
while [ "$#" -gt 0 ] && [ "$1" != -- ]; do suites+=("${1%/}"); shift; done
[ "${1:-}" != -- ] || shift
[ "${#suites[@]}" -gt 0 ] || mapfile -t suites < <(pytest_suites)
if [ "${#suites[@]}" -eq 0 ]; then
    log "no pytest suites (tests/<dir>/test_*.py outside unit/integration) yet: skipping"
    exit 0
fi

venv="$(ensure_env default)"
use_venv "$venv"
cd "$ROOT"
status=0
for suite in "${suites[@]}"; do
    log "python -m pytest $suite $*   # $venv/bin/python"
    rc=0
    python -m pytest -p no:cacheprovider -r fEsx "$suite" "$@" || rc=$?
    case "$rc" in
        0) ;;
        5) log "pytest collected no tests in $suite" ;;
        *) status=1 ;;
    esac
done
exit "$status"
