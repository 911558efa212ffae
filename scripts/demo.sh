#!/usr/bin/env bash
# make demo: build and install the collection like a user would, start the
# simulator and run playbooks/demo.yml against it.
#   ansible-galaxy collection build  -> .build/dist/neon-cloud-X.Y.Z.tar.gz
#   ansible-galaxy collection install -> .build/collections/ansible_collections/neon/cloud
#   ANSIBLE_COLLECTIONS_PATH=.build/collections ansible-playbook playbooks/demo.yml
# with NEON_API_URL/NEON_API_KEY exported by with-simulator.sh. Modules run with
# the venv's Python (ANSIBLE_PYTHON_INTERPRETER): interpreter discovery on this
# kind of machine would pick a pyenv shim without `requests`.
# usage: scripts/demo.sh [extra ansible-playbook args]
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

playbook="${DEMO_PLAYBOOK:-playbooks/demo.yml}"
venv="$(ensure_env default)"
use_venv "$venv"
cd "$ROOT"
[ -f "$playbook" ] || die "$playbook does not exist yet"

take_lock "$ROOT/.build/demo.lock"
rm -rf .build/dist
log "ansible-galaxy collection build --output-path .build/dist"
ansible-galaxy collection build --force --output-path .build/dist >&2
tarball="$(find .build/dist -maxdepth 1 -name '*.tar.gz' -print -quit)"
[ -n "$tarball" ] || die "ansible-galaxy built no tarball"
export ANSIBLE_COLLECTIONS_PATH="$ROOT/.build/collections"
log "ansible-galaxy collection install --force -p .build/collections $tarball"
ansible-galaxy collection install --force --offline -p .build/collections "$tarball" >&2

export ANSIBLE_PYTHON_INTERPRETER="$venv/bin/python"
export ANSIBLE_LOCALHOST_WARNING=false
export ANSIBLE_INVENTORY_UNPARSED_WARNING=false
export NEON_SIM_PYTHON="$venv/bin/python"
log "ANSIBLE_COLLECTIONS_PATH=.build/collections ansible-playbook $playbook $*"
exec "$ROOT/scripts/with-simulator.sh" ansible-playbook "$playbook" "$@"
