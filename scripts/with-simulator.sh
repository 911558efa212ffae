#!/usr/bin/env bash
# Run a command against a fresh Neon API simulator (tests/simulator).
#
# Starts `python -m neon_simulator --port 0 --api-key KEY --url-file F` on
# 127.0.0.1 with a random API key, waits (bounded) for the URL file, exports
# NEON_API_URL and NEON_API_KEY (plus any other NEON_*=value line the simulator
# prints, e.g. a demo project id), runs the command, then always stops the
# simulator and reports how it exited. Exits with the command's status.
#
# usage: scripts/with-simulator.sh COMMAND [ARGS...]
# env:   NEON_SIM_PYTHON  interpreter for the simulator (default: .venvs/default/bin/python)
#        NEON_SIM_WAIT    seconds to wait for the simulator to come up (default 30)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

[ "$#" -ge 1 ] || die "usage: with-simulator.sh COMMAND [ARGS...]"
python="${NEON_SIM_PYTHON:-$ROOT/.venvs/default/bin/python}"
[ -x "$python" ] || die "with-simulator.sh: no interpreter $python (run scripts/venv.sh first)"
[ -d "$ROOT/tests/simulator/neon_simulator" ] || die "with-simulator.sh: tests/simulator/neon_simulator is missing"
wait_s="${NEON_SIM_WAIT:-30}"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/neon-sim.XXXXXX")"
url_file="$tmp/url"
sim_log="$tmp/simulator.log"
key="$("$python" -c 'import secrets; print(secrets.token_hex(32))')"
sim_pid=""

# shellcheck disable=SC2329  # called from cleanup (EXIT trap)
stop_simulator() {
    local status=0 i
    [ -n "$sim_pid" ] || return 0
    if kill -0 "$sim_pid" 2>/dev/null; then
        kill -TERM "$sim_pid" 2>/dev/null || true
        for ((i = 0; i < 50; i++)); do  # at most 5 s, then SIGKILL
            kill -0 "$sim_pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$sim_pid" 2>/dev/null; then
            log "simulator (pid $sim_pid) ignored SIGTERM for 5s: SIGKILL"
            kill -KILL "$sim_pid" 2>/dev/null || true
        fi
    fi
    wait "$sim_pid" 2>/dev/null || status=$?
    case "$status" in
        0) log "simulator (pid $sim_pid) stopped, exit status 0" ;;
        143) log "simulator (pid $sim_pid) stopped by SIGTERM (status 143)" ;;
        *)
            log "simulator (pid $sim_pid) exited with status $status; last lines of its log:"
            tail -n 20 "$sim_log" >&2 || true
            ;;
    esac
    sim_pid=""
}
# shellcheck disable=SC2329  # the EXIT trap
cleanup() {
    stop_simulator
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

PYTHONPATH="$ROOT/tests/simulator${PYTHONPATH:+:$PYTHONPATH}" \
    "$python" -m neon_simulator --port 0 --api-key "$key" --url-file "$url_file" >"$sim_log" 2>&1 &
sim_pid=$!

# bounded wait: poll every 0.1 s, at most wait_s seconds
for ((i = 0; i < wait_s * 10; i++)); do
    [ -s "$url_file" ] && break
    if ! kill -0 "$sim_pid" 2>/dev/null; then
        log "simulator exited before writing $url_file; its log:"
        cat "$sim_log" >&2
        exit 1
    fi
    sleep 0.1
done
[ -s "$url_file" ] || { log "simulator did not write its URL within ${wait_s}s; its log:"; cat "$sim_log" >&2; exit 1; }
sleep 0.1  # the URL file may be written in more than one step

url="$(head -n 1 "$url_file" | tr -d '\r')"
url="${url#NEON_API_URL=}"
case "$url" in
    http://127.0.0.1:* | http://localhost:* | http://\[::1\]:*) ;;
    *) die "simulator URL '$url' is not on the loopback interface" ;;
esac

# other NEON_*=value lines the simulator printed (never overriding URL/key)
while IFS='=' read -r name value; do
    case "$name" in NEON_API_URL | NEON_API_KEY) continue ;; esac
    export "$name=$value"
done < <(grep -aE '^NEON_[A-Z0-9_]+=' "$sim_log" | tr -d '\r' || true)

export NEON_API_URL="$url" NEON_API_KEY="$key"
log "simulator (pid $sim_pid) up: NEON_API_URL=$NEON_API_URL"
status=0
"$@" || status=$?
if ! kill -0 "$sim_pid" 2>/dev/null; then
    log "simulator died while the command ran"
    [ "$status" -ne 0 ] || status=1
fi
exit "$status"
