#!/usr/bin/env bash
# Linters (default env), run on the synced collection copy:
#   ansible-lint (profile production, .ansible-lint), antsibull-changelog lint,
#   antsibull-docs lint-collection-docs --plugin-docs, shellcheck on our scripts,
#   and no tests/sanity/ignore-*.txt.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

venv="$(ensure_env default)"
lock_cell default
dest="$(sync_collection default)"
use_venv "$venv"
status=0

# sanity must pass without ignore files (project rule)
if compgen -G "$ROOT/tests/sanity/ignore-*.txt" >/dev/null; then
    log "tests/sanity/ignore-*.txt is not allowed: fix the code instead"
    ls "$ROOT"/tests/sanity/ignore-*.txt >&2
    status=1
fi

cd "$dest"
log "(cd ${dest#"$ROOT"/} && ansible-lint)"
ansible-lint --nocolor || status=1
log "antsibull-changelog lint"
antsibull-changelog lint || status=1
log "antsibull-docs lint-collection-docs --plugin-docs ."
antsibull-docs lint-collection-docs --plugin-docs . || status=1

cd "$ROOT"
if command -v shellcheck >/dev/null; then
    log "shellcheck --severity=warning .ci/run scripts/*.sh"
    shellcheck -x --severity=warning .ci/run scripts/*.sh || status=1
else
    log "shellcheck not installed: skipped"
fi
exit "$status"
