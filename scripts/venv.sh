#!/usr/bin/env bash
# Create or refresh the virtualenv .venvs/NAME for Python X.Y from requirement
# files; do nothing when the interpreter and the requirement files (including
# files they pull in with -r/-c) are unchanged since the last successful run.
# usage: scripts/venv.sh NAME X.Y REQFILE...
# prints nothing on stdout but the venv path (last line), logs on stderr.
set -euo pipefail
name="${1:?usage: venv.sh NAME X.Y REQFILE...}"
pyver="${2:?usage: venv.sh NAME X.Y REQFILE...}"
shift 2
[ "$#" -ge 1 ] || { echo "venv.sh: no requirement files given" >&2; exit 2; }

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
venv="$root/.venvs/$name"
stamp="$venv/.requirements.sha256"

# all requirement files, following -r/-c includes (relative to the including file)
collect() {
    local f="$1" dir inc
    [ -f "$f" ] || { echo "venv.sh: missing requirement file $f" >&2; exit 2; }
    echo "$f"
    dir="$(dirname "$f")"
    while read -r inc; do
        collect "$dir/$inc"
    done < <(sed -n -E 's/^[[:space:]]*-(r|c|-requirement|-constraint)[[:space:]=]+([^[:space:]#]+).*/\2/p' "$f")
}
files=()
for f in "$@"; do
    while read -r g; do files+=("$g"); done < <(collect "$f")
done

# one builder at a time per venv (others may run make in this tree too)
mkdir -p "$root/.venvs"
exec {lock_fd}>>"$root/.venvs/$name.lock"
if ! flock -n "$lock_fd"; then
    echo "venv.sh: waiting for another process building .venvs/$name ..." >&2
    flock -w 1800 "$lock_fd" || { echo "venv.sh: gave up waiting for .venvs/$name.lock" >&2; exit 1; }
fi

python="$("$root/scripts/find-python.sh" "$pyver")"
hash="$( { "$python" -VV; printf '%s\n' "$@"; cat "${files[@]}"; } | sha256sum | cut -d' ' -f1)"

if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ]; then
    echo "venv.sh: .venvs/$name is up to date" >&2
    echo "$venv"
    exit 0
fi

start=$SECONDS
echo "venv.sh: building .venvs/$name (python $pyver: $python) from $*" >&2
if ! [ -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import sys; sys.exit(0 if "%d.%d" % sys.version_info[:2] == "'"$pyver"'" else 1)' 2>/dev/null; then
    rm -rf "$venv"
    "$python" -m venv "$venv"
fi
rm -f "$stamp"
req_args=()
for f in "$@"; do req_args+=(-r "$f"); done
pip_log="$venv/pip-install.log"
pip() {
    # keep the log readable: pip warns about every index location it skips
    if ! "$venv/bin/python" -m pip --disable-pip-version-check "$@" >"$pip_log" 2>&1; then
        grep -v 'is ignored: it is neither a file nor a directory' "$pip_log" >&2 || true
        echo "venv.sh: pip $* failed (full log: $pip_log)" >&2
        exit 1
    fi
}
pip install --upgrade pip
pip install --upgrade "${req_args[@]}"
echo "$hash" > "$stamp"
echo "venv.sh: .venvs/$name ready in $((SECONDS - start))s" >&2
echo "$venv"
