#!/usr/bin/env bash
# Print the path of a working interpreter for Python X.Y.
# usage: scripts/find-python.sh 3.12
# pyenv shims for versions that are not "global" exist but fail when run, so
# prefer the real binary under $PYENV_ROOT/versions and check every candidate.
set -euo pipefail
want="${1:?usage: find-python.sh X.Y}"
pyenv_root="${PYENV_ROOT:-$HOME/.pyenv}"
candidates=()
for d in "$pyenv_root"/versions/"$want"*/bin /usr/local/bin /usr/bin; do
    [ -x "$d/python$want" ] && candidates+=("$d/python$want")
done
if c="$(command -v "python$want" 2>/dev/null)"; then candidates+=("$c"); fi
for c in "${candidates[@]}"; do
    if "$c" -c "import sys; assert '%d.%d' % sys.version_info[:2] == '$want'; import venv, ensurepip" >/dev/null 2>&1; then
        echo "$c"
        exit 0
    fi
done
echo "find-python.sh: no working python$want found (looked in $pyenv_root/versions, /usr/local/bin, /usr/bin, PATH)" >&2
exit 1
