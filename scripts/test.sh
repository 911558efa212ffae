#!/usr/bin/env bash
# make test: everything a change has to pass.
#   default env (Python 3.11 + ansible-core 2.19): lint, sanity, units,
#                                                   integration, ecosystem (pytest)
#   newest ansible-core (2.21 on Python 3.13):     sanity, units, integration
#   the other matrix cells (2.17, 2.18, 2.20) unless NEON_TEST_MATRIX=newest
# Every step runs even after a failure; a table of results and durations and a
# closing "steps: N passed, N failed" line end the output; exit 1 if any failed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

matrix="${NEON_TEST_MATRIX:-full}"
case "$matrix" in
    full) extra_cells=(2.17 2.18 2.20) ;;
    newest) extra_cells=() ;;
    *) die "NEON_TEST_MATRIX must be 'full' or 'newest', not '$matrix'" ;;
esac

run_step "env default (ac2.19/py3.11)" ensure_env default
run_step "lint" "$ROOT/scripts/lint.sh"
run_step "sanity ac2.19/py3.11" "$ROOT/scripts/ansible-test.sh" default sanity
run_step "units ac2.19/py3.11" "$ROOT/scripts/ansible-test.sh" default units
run_step "integration ac2.19/py3.11" "$ROOT/scripts/integration.sh" default
run_step "ecosystem pytest py3.11" "$ROOT/scripts/ecosystem.sh"
for cell in "$NEWEST_CELL" "${extra_cells[@]}"; do
    py="$(cell_python "$cell")"
    run_step "env ac$cell/py$py" ensure_env "$cell"
    run_step "sanity ac$cell/py$py" "$ROOT/scripts/ansible-test.sh" "$cell" sanity
    run_step "units ac$cell/py$py" "$ROOT/scripts/ansible-test.sh" "$cell" units
    run_step "integration ac$cell/py$py" "$ROOT/scripts/integration.sh" "$cell"
done
print_steps
