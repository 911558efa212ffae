# shellcheck shell=bash
# Shared helpers for the scripts in this directory (source it, don't run it).
#
# A "cell" names one test environment: an ansible-core version and the Python
# it runs on, each with its own virtualenv under .venvs/:
#   default  Python 3.11 + ansible-core 2.19.x + every tool (requirements-test.txt)
#   2.17     Python 3.11 + ansible-core 2.17.x  (scripts/matrix/ansible-core-2.17.txt)
#   2.18     Python 3.11 + ansible-core 2.18.x
#   2.19     the default env
#   2.20     Python 3.12 + ansible-core 2.20.x
#   2.21     Python 3.13 + ansible-core 2.21.x  (newest)

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ROOT
# shellcheck disable=SC2034  # used by the scripts that source this file
ALL_CELLS=(2.17 2.18 2.19 2.20 2.21)
# shellcheck disable=SC2034
NEWEST_CELL=2.21

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

cell_python() {
    case "$1" in
        default | 2.17 | 2.18 | 2.19) echo 3.11 ;;
        2.20) echo 3.12 ;;
        2.21) echo 3.13 ;;
        *) die "unknown cell '$1' (known: default ${ALL_CELLS[*]})" ;;
    esac
}

cell_venv_name() {
    case "$1" in
        default | 2.19) echo default ;;
        *) echo "ac$1-py$(cell_python "$1")" ;;
    esac
}

cell_requirements() {
    case "$1" in
        default | 2.19) echo "requirements-test.txt" ;;
        *) echo "scripts/matrix/ansible-core-$1.txt" ;;
    esac
}

# ensure_env CELL: create/refresh the cell's venv, install ansible-test's pip
# bootstrap stand-ins for it; prints the venv path.
ensure_env() {
    local cell="$1" venv
    venv="$("$ROOT/scripts/venv.sh" "$(cell_venv_name "$cell")" "$(cell_python "$cell")" "$(cell_requirements "$cell")")"
    "$ROOT/scripts/install-get-pip.sh" "$venv"
    echo "$venv"
}

# sync_collection: refresh the .build/ansible_collections/... copy; prints its path.
sync_collection() {
    python3 "$ROOT/scripts/sync_collection.py"
}

# use_venv VENV: put the venv first on PATH (what `activate` does).
use_venv() {
    export VIRTUAL_ENV="$1"
    export PATH="$1/bin:$PATH"
    unset PYTHONHOME
}

# no interactive prompts, no colour codes in CI logs, stable locale
export ANSIBLE_FORCE_COLOR="${ANSIBLE_FORCE_COLOR:-0}"
export PIP_DISABLE_PIP_VERSION_CHECK=1
export PIP_NO_INPUT=1
if [ -n "${CI:-}" ]; then
    export ANSIBLE_NOCOLOR=1
fi

# Step bookkeeping for test.sh / matrix.sh: run_step NAME CMD... runs CMD,
# records its status and duration and carries on; print_steps prints the table
# and the closing "steps: N passed, N failed" line; returns 1 if any failed.
STEP_NAMES=()
STEP_RESULTS=()
STEP_SECONDS=()
run_step() {
    local name="$1" start status=0
    shift
    start=$SECONDS
    printf '\n==> [%s] START %s: %s\n' "$(date +%H:%M:%S)" "$name" "$*" >&2
    "$@" || status=$?
    STEP_NAMES+=("$name")
    STEP_SECONDS+=("$((SECONDS - start))")
    if [ "$status" -eq 0 ]; then STEP_RESULTS+=(ok); else STEP_RESULTS+=("FAILED($status)"); fi
    printf '==> [%s] END   %s: %s in %ss\n' "$(date +%H:%M:%S)" "$name" "${STEP_RESULTS[-1]}" "${STEP_SECONDS[-1]}" >&2
    return 0
}
print_steps() {
    local i passed=0 failed=0
    printf '\n%-36s %-12s %8s\n' "step" "result" "seconds"
    for i in "${!STEP_NAMES[@]}"; do
        printf '%-36s %-12s %8s\n' "${STEP_NAMES[$i]}" "${STEP_RESULTS[$i]}" "${STEP_SECONDS[$i]}"
        if [ "${STEP_RESULTS[$i]}" = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
    done
    printf 'steps: %d passed, %d failed\n' "$passed" "$failed"
    [ "$failed" -eq 0 ]
}
