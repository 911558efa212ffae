#!/usr/bin/env bash
# make test: everything a change has to pass, in "cells" (see lib.sh):
#   default (Python 3.11 + ansible-core 2.19): lint, sanity, units, integration,
#                                              pytest suites (tests/ecosystem, tests/reliability, ...)
#   2.21 (Python 3.13, newest ansible-core):   sanity, units, integration
#   2.17, 2.18 (py3.11), 2.20 (py3.12):        sanity, units, integration
#                                              (skipped with NEON_TEST_MATRIX=newest)
# NEON_JOBS cells run at a time (default 2). Every step runs even after a
# failure; a table of results and durations and a closing
# "steps: N passed, N failed" line end the output; exit 1 if any failed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

case "${NEON_TEST_MATRIX:-full}" in
    full) cells=(default "$NEWEST_CELL" 2.17 2.18 2.20) ;;
    newest) cells=(default "$NEWEST_CELL") ;;
    *) die "NEON_TEST_MATRIX must be 'full' or 'newest', not '$NEON_TEST_MATRIX'" ;;
esac

start=$SECONDS
steps_init
run_cells "${cells[@]}"
log "make test: $((SECONDS - start))s for cells ${cells[*]} (NEON_JOBS=${NEON_JOBS:-2})"
print_steps "${cells[@]}"
