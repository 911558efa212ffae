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

# sync_collection CELL: refresh the cell's copy of the collection,
# .build/CELL/ansible_collections/neon/cloud; prints its path.
sync_collection() {
    python3 "$ROOT/scripts/sync_collection.py" "${1:?sync_collection CELL}"
}

# take_lock FILE: hold an exclusive lock on FILE until this shell and the
# commands it execs exit (the descriptor is inherited); others working in the
# same tree wait for it (at most NEON_LOCK_WAIT seconds, default 1800).
take_lock() {
    local file="$1" fd
    mkdir -p "$(dirname "$file")"
    exec {fd}>>"$file"
    if ! flock -n "$fd"; then
        log "waiting for ${file#"$ROOT"/}: another run (maybe someone else's) is using it ..."
        flock -w "${NEON_LOCK_WAIT:-1800}" "$fd" || die "gave up waiting for $file"
    fi
}

# lock_cell CELL: exclusive use of the cell's copy under .build/
lock_cell() {
    take_lock "$ROOT/.build/${1:?lock_cell CELL}.lock"
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

# ---- steps and cells, for test.sh and matrix.sh --------------------------
# run_step NAME CMD...  runs CMD (external commands under `timeout`,
#   NEON_STEP_TIMEOUT seconds, default 1200), records result and duration in
#   $STEPS_DIR/$STEP_GROUP and carries on after a failure.
# run_cells CELL...  runs cell_steps for each cell, NEON_JOBS (default 2) cells
#   at a time: each cell has its own venv, collection copy, lock and simulator,
#   so they don't interfere; a cell's output is printed in one piece when it
#   ends (with NEON_JOBS=1 it streams).
# print_steps GROUP...  prints the table and the closing
#   "steps: N passed, N failed" line; returns 1 if any step failed.
STEPS_DIR="${STEPS_DIR:-}"
STEP_GROUP=main
PROGRESS_FD=""

steps_init() {
    STEPS_DIR="$(mktemp -d "${TMPDIR:-/tmp}/neon-steps.XXXXXX")"
    export STEPS_DIR
    # shellcheck disable=SC2064  # expand now: the directory to remove
    trap "rm -rf '$STEPS_DIR'" EXIT
}

progress() {
    printf '==> [%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2
    if [ -n "$PROGRESS_FD" ]; then printf '==> [%s] %s\n' "$(date +%H:%M:%S)" "$*" >&"$PROGRESS_FD"; fi
}

run_step() {
    local name="$1" start status=0 result secs
    shift
    start=$SECONDS
    printf '\n' >&2
    progress "START $name: $*"
    if [ "$(type -t "$1")" = file ]; then
        # bounded: a hung step must not eat CI's 90 minutes (124 = timed out)
        timeout -k 30 "${NEON_STEP_TIMEOUT:-1200}" "$@" || status=$?
    else
        "$@" || status=$?
    fi
    secs=$((SECONDS - start))
    if [ "$status" -eq 0 ]; then result=ok; else result="FAILED($status)"; fi
    printf '%s\t%s\t%s\n' "$name" "$result" "$secs" >>"$STEPS_DIR/$STEP_GROUP"
    progress "END   $name: $result in ${secs}s"
    return 0
}

# cell_steps CELL: the steps of one cell; "default" also runs lint and the
# plain-pytest suites (tests/ecosystem, tests/reliability, ...: see
# pytest-suite.sh; they need the default env's tools)
cell_steps() {
    local cell="$1" py label
    py="$(cell_python "$cell")"
    case "$cell" in default) label="ac2.19/py$py" ;; *) label="ac$cell/py$py" ;; esac
    STEP_GROUP="$cell"
    run_step "env $label" ensure_env "$cell"
    if [ "$cell" = default ]; then run_step "lint" "$ROOT/scripts/lint.sh"; fi
    run_step "sanity $label" "$ROOT/scripts/ansible-test.sh" "$cell" sanity
    run_step "units $label" "$ROOT/scripts/ansible-test.sh" "$cell" units
    run_step "integration $label" "$ROOT/scripts/integration.sh" "$cell"
    if [ "$cell" = default ]; then
        local suite
        while read -r suite; do
            run_step "pytest $suite" "$ROOT/scripts/pytest-suite.sh" "$suite"
        done < <(pytest_suites)
    fi
}

# pytest_suites: tests/<dir> holding test_*.py that ansible-test does not run
pytest_suites() {
    local d
    for d in "$ROOT"/tests/*/; do
        d="${d%/}"
        case "${d##*/}" in unit | integration | sanity | output | simulator) continue ;; esac
        if compgen -G "$d/test_*.py" >/dev/null; then echo "tests/${d##*/}"; fi
    done
}

run_cells() {
    local jobs="${NEON_JOBS:-2}" queue i cell
    [ "$jobs" -ge 1 ] 2>/dev/null || die "NEON_JOBS must be a positive number"
    if [ "$jobs" -eq 1 ] || [ "$#" -eq 1 ]; then
        for cell in "$@"; do cell_steps "$cell"; done
        return 0
    fi
    queue="$STEPS_DIR/queue"
    printf '%s\n' "$@" >"$queue"
    log "running ${#} cells ($*), $jobs at a time; each cell's output follows when it ends"
    exec {PROGRESS_FD}>&2
    for ((i = 0; i < jobs; i++)); do
        (
            while :; do
                cell="$(flock "$queue.lock" sh -c 'head -n 1 "$1"; sed -i 1d "$1"' _ "$queue")"
                [ -n "$cell" ] || break
                cell_steps "$cell" >"$STEPS_DIR/log-$cell" 2>&1
                flock "$STEPS_DIR/print.lock" sh -c 'printf "\n===== output of cell %s =====\n" "$1"; cat "$2"' _ "$cell" "$STEPS_DIR/log-$cell" >&2
            done
        ) &
    done
    wait
    exec {PROGRESS_FD}>&-
    PROGRESS_FD=""
}

print_steps() {
    local group name result secs passed=0 failed=0
    printf '\n%-36s %-12s %8s\n' "step" "result" "seconds"
    for group in "$@"; do
        [ -f "$STEPS_DIR/$group" ] || continue
        while IFS=$'\t' read -r name result secs; do
            printf '%-36s %-12s %8s\n' "$name" "$result" "$secs"
            if [ "$result" = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
        done <"$STEPS_DIR/$group"
    done
    printf 'steps: %d passed, %d failed\n' "$passed" "$failed"
    [ "$failed" -eq 0 ]
}
