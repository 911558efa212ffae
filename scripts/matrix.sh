#!/usr/bin/env bash
# make matrix: sanity + units + integration for every supported ansible-core
# version on its Python (see lib.sh for the cells), NEON_JOBS (default 2) cells
# at a time. Runs every step even after a failure, prints a table with each
# step's time, exits 1 if any failed.
# usage: scripts/matrix.sh [CELL...]      (default: 2.17 2.18 2.19 2.20 2.21)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

cells=("$@")
[ "${#cells[@]}" -gt 0 ] || cells=("${ALL_CELLS[@]}")
for cell in "${cells[@]}"; do cell_python "$cell" >/dev/null; done
start=$SECONDS
steps_init
run_cells "${cells[@]}"
log "make matrix: $((SECONDS - start))s for cells ${cells[*]} (NEON_JOBS=${NEON_JOBS:-2})"
print_steps "${cells[@]}"
