#!/usr/bin/env bash
# Run `ansible-test COMMAND` for one cell on the synced collection copy,
# without docker, with the cell's venv and Python.
# usage: scripts/ansible-test.sh CELL sanity|units [extra ansible-test args]
#   sanity: ansible-test sanity --python X.Y --python-interpreter VENV/bin/python
#           (each sanity test builds its own venv under ~/.ansible/test/venv,
#            bootstrapped by our offline get-pip stand-in)
#   units:  ansible-test units --local --python X.Y --python-interpreter ...
#           (pytest, pytest-xdist, mock ... come from the cell's venv)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

cell="${1:?usage: ansible-test.sh CELL sanity|units [args]}"
cmd="${2:?usage: ansible-test.sh CELL sanity|units [args]}"
shift 2

pyver="$(cell_python "$cell")"
venv="$(ensure_env "$cell")"
lock_cell "$cell"
dest="$(sync_collection "$cell")"
use_venv "$venv"

args=(--python "$pyver" --python-interpreter "$venv/bin/python" --color no)
case "$cmd" in
    sanity)
        # ansible-test creates its sanity venvs in ~/.ansible/test/venv without
        # locking: two first runs at once would delete each other's
        take_lock "$HOME/.ansible/test/neon-cloud-sanity.lock"
        ;;
    units)
        args+=(--local)
        if [ ! -d "$dest/tests/unit" ] || [ -z "$(find "$dest/tests/unit" -name 'test_*.py' -print -quit)" ]; then
            log "no unit tests (tests/unit/**/test_*.py) yet: skipping ansible-test units"
            exit 0
        fi
        ;;
    *) die "ansible-test.sh: unsupported command '$cmd'" ;;
esac

cd "$dest"
log "[$cell] (cd ${dest#"$ROOT"/} && ansible-test $cmd ${args[*]} $*)   # ansible-core $(ansible --version | sed -n '1s/.*core \([0-9.]*\).*/\1/p'), $venv/bin/python"
exec ansible-test "$cmd" "${args[@]}" "$@"
