#!/usr/bin/env bash
# make matrix: sanity + units + integration for every supported ansible-core
# version on its Python (see lib.sh for the cells). Runs every step even after
# a failure, prints a table with each step's time, exits 1 if any failed.
# usage: scripts/matrix.sh [CELL...]      (default: 2.17 2.18 2.19 2.20 2.21)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

cells=("$@")
[ "${#cells[@]}" -gt 0 ] || cells=("${ALL_CELLS[@]}")
for cell in "${cells[@]}"; do
    py="$(cell_python "$cell")"
    run_step "env ac$cell/py$py" ensure_env "$cell"
    run_step "sanity ac$cell/py$py" "$ROOT/scripts/ansible-test.sh" "$cell" sanity
    run_step "units ac$cell/py$py" "$ROOT/scripts/ansible-test.sh" "$cell" units
    run_step "integration ac$cell/py$py" "$ROOT/scripts/integration.sh" "$cell"
done
print_steps
