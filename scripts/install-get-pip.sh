#!/usr/bin/env bash
# Install scripts/get_pip_standin.py as ~/.ansible/test/cache/get_pip_<ver>.py
# for every pip version that the ansible-test of the given venvs asks for
# (ansible-test cannot download the real get-pip.py here). Idempotent; a real
# get-pip.py already in the cache is left alone.
# usage: scripts/install-get-pip.sh VENV_DIR...
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
standin="$root/scripts/get_pip_standin.py"
cache="$HOME/.ansible/test/cache"
mkdir -p "$cache"
versions=()
for venv in "$@"; do
    # pip version(s) pinned by ansible-test: default_packages = dict(pip='24.2')
    # and per-Python overrides in python_requirements.py
    for f in "$venv"/lib/python3*/site-packages/ansible_test/_internal/python_requirements.py; do
        [ -f "$f" ] || { echo "install-get-pip.sh: no ansible-test in $venv" >&2; exit 1; }
        while read -r v; do versions+=("$v"); done < <(grep -oE "pip=['\"][0-9][0-9.]*['\"]|'pip': *'[0-9][0-9.]*'" "$f" | grep -oE "[0-9][0-9.]*[0-9]")
    done
done
[ "${#versions[@]}" -gt 0 ] || { echo "install-get-pip.sh: found no pip version in ansible-test" >&2; exit 1; }
for v in $(printf '%s\n' "${versions[@]}" | sort -u); do
    dest="$cache/get_pip_${v//./_}.py"
    if [ -f "$dest" ] && ! grep -q "Offline stand-in for ansible-test" "$dest"; then
        continue  # a real get-pip.py: keep it
    fi
    if ! cmp -s "$standin" "$dest"; then
        cp "$standin" "$dest"
        echo "install-get-pip.sh: wrote $dest" >&2
    fi
done
