#!/usr/bin/env bash
# Integration tests of one cell: ansible-test integration, no docker, against
# a simulator started for the run.
#
# usage: scripts/integration.sh CELL [extra ansible-test args, e.g. a target name]
#
# In the synced copy it writes tests/integration/integration_config.yml
# (neon_api_url, neon_api_key, neon_demo_project_id, neon_sim_control_url),
# then runs
#   ansible-test integration --local --python X.Y --python-interpreter VENV/bin/python
# --local: the controller is the cell's venv; ansible-test's generated
# inventory (testhost, ansible_connection=local) sets ansible_python_interpreter
# to that same interpreter, so modules run with the venv's python (which has
# requests) and not with whatever interpreter discovery would pick.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

if [ "${1:-}" != "--in-simulator" ]; then
    cell="${1:?usage: integration.sh CELL [ansible-test args]}"
    venv="$(ensure_env "$cell")"
    lock_cell "$cell"  # held (inherited) until the run below ends
    dest="$(sync_collection "$cell")"
    if [ -z "$(find "$dest/tests/integration/targets" -mindepth 2 -maxdepth 2 -name aliases -print -quit 2>/dev/null)" ]; then
        log "no integration targets (tests/integration/targets/*/aliases) yet: skipping"
        exit 0
    fi
    NEON_SIM_PYTHON="$venv/bin/python" exec "$ROOT/scripts/with-simulator.sh" "$0" --in-simulator "$@"
fi
shift
cell="$1"
shift
pyver="$(cell_python "$cell")"
venv="$ROOT/.venvs/$(cell_venv_name "$cell")"
dest="$(sync_collection "$cell")"
use_venv "$venv"

# the demo project the simulator seeds: it prints NEON_SIM_DEMO_PROJECT=...
# (exported by with-simulator.sh); else look for "demo-project" through the API
NEON_DEMO_PROJECT_ID="${NEON_DEMO_PROJECT_ID:-${NEON_SIM_DEMO_PROJECT:-}}"
if [ -z "$NEON_DEMO_PROJECT_ID" ]; then
    NEON_DEMO_PROJECT_ID="$(python - <<'EOF'
import json, os, sys, urllib.request
req = urllib.request.Request(
    os.environ["NEON_API_URL"].rstrip("/") + "/projects?limit=400",
    headers={"Authorization": "Bearer " + os.environ["NEON_API_KEY"], "Accept": "application/json"},
)
try:
    with urllib.request.urlopen(req, timeout=10) as resp:
        projects = json.load(resp).get("projects") or []
    demo = [p for p in projects if p.get("name") == "demo-project"] or projects
    print(demo[0]["id"] if demo else "")
except Exception as exc:  # the config is still useful without it
    print("integration.sh: could not list projects: %s" % exc, file=sys.stderr)
EOF
)"
fi
export NEON_DEMO_PROJECT_ID
[ -n "$NEON_DEMO_PROJECT_ID" ] || log "WARNING: no demo project id from the simulator; neon_demo_project_id is empty"

python - "$dest/tests/integration/integration_config.yml" <<'EOF'
import json, os, sys
# JSON strings are valid YAML scalars: no quoting surprises
values = {
    "neon_api_url": os.environ["NEON_API_URL"],
    "neon_api_key": os.environ["NEON_API_KEY"],
    "neon_demo_project_id": os.environ.get("NEON_DEMO_PROJECT_ID", ""),
    # the simulator's own control API (faults, clock), when it prints one
    "neon_sim_control_url": os.environ.get("NEON_SIM_CONTROL_URL", ""),
}
with open(sys.argv[1], "w", encoding="utf-8") as handle:
    handle.write("---\n# written by scripts/integration.sh for one simulator run\n")
    for key, value in values.items():
        handle.write("%s: %s\n" % (key, json.dumps(value)))
EOF

cd "$dest"
args=(--local --python "$pyver" --python-interpreter "$venv/bin/python" --color no)
log "[$cell] (cd ${dest#"$ROOT"/} && ansible-test integration ${args[*]} $*)"
ansible-test integration "${args[@]}" "$@"
