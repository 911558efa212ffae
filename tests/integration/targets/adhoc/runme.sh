#!/usr/bin/env bash
# The modules from the command line, as docs/docsite/rst/adhoc.rst shows them:
#   NEON_API_KEY=... ansible localhost -m neon.cloud.<module> -a '...' -e ansible_python_interpreter=...
# The connection comes only from the environment (NEON_API_KEY, NEON_API_URL). The simulator's
# URL and key are read from tests/integration/integration_config.yml (written by
# noxfile.py; ansible-test copies it to ../../ of this script's directory).
# No `set -x`: the command lines would show the key.
set -euo pipefail

config="../../integration_config.yml"
[ -f "$config" ] || { echo "runme.sh: no $config: run the targets with nox -s integration-2.19 (noxfile.py)" >&2; exit 1; }

# the Python that runs ansible here has requests: the modules use it, as the docs advise
py="$(python -c 'import sys; print(sys.executable)')"
eval "$(python - "$config" <<'PYEOF'
import shlex, sys, yaml
with open(sys.argv[1]) as handle:
    cfg = yaml.safe_load(handle)
url = cfg["neon_api_url"]
control = cfg.get("neon_sim_control_url") or url.rstrip("/").rsplit("/api/v2", 1)[0] + "/_simulator"
for name, value in (("NEON_API_URL", url), ("NEON_API_KEY", cfg["neon_api_key"]), ("CONTROL_URL", control),
                    ("PROJECT_ID", cfg.get("neon_demo_project_id") or "shiny-river-12345678")):
    print("%s=%s" % (name, shlex.quote(value)))
PYEOF
)"
export NEON_API_URL NEON_API_KEY
export ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false
out_dir="$(mktemp -d)"
trap 'rm -rf "$out_dir"' EXIT

control() {  # control METHOD PATH: the simulator's control API (no auth); prints the JSON answer
    python - "$CONTROL_URL$2" "$1" <<'PYEOF'
import sys, urllib.request
request = urllib.request.Request(sys.argv[1], method=sys.argv[2], data=b"" if sys.argv[2] == "POST" else None)
with urllib.request.urlopen(request, timeout=10) as response:
    print(response.read().decode())
PYEOF
}

# adhoc NAME EXPECTED_RC ARGS...: run `ansible localhost ARGS`, keep its output in $out_dir/NAME
adhoc() {
    local name="$1" expected="$2" rc=0
    shift 2
    echo "=== ansible localhost $*"
    ansible localhost "$@" -e "ansible_python_interpreter=$py" >"$out_dir/$name" 2>&1 || rc=$?
    if [ "$rc" != "$expected" ]; then
        cat "$out_dir/$name"
        echo "FAIL: $name: exit status $rc, expected $expected" >&2
        exit 1
    fi
}

# check NAME PYTHON-EXPRESSION: evaluate it with `status` (SUCCESS, FAILED!, ...), `result` (the
# JSON after "=>"), `out` (the whole output) and `key` (NEON_API_KEY, never shown)
check() {
    python - "$out_dir/$1" "$2" <<'PYEOF' || { cat "$out_dir/$1"; echo "FAIL: $1: $2" >&2; exit 1; }
import json, os, re, sys
out = open(sys.argv[1]).read()
match = re.search(r"^localhost \| ([A-Z!]+) => (\{.*\})\s*$", out, re.S | re.M)
status, result = (match.group(1), json.loads(match.group(2))) if match else (None, None)
key = os.environ["NEON_API_KEY"]
assert key not in out, "the API key is in the output"
ok = eval(sys.argv[2], {"status": status, "result": result, "out": out, "key": key, "re": re,
                        "project_id": os.environ["PROJECT_ID"]})
sys.exit(0 if ok else 1)
PYEOF
    echo "ok: $1: $2"
}

export PROJECT_ID
control POST /reset >/dev/null

# ---- projects_info: every page, and one project
adhoc projects 0 -m neon.cloud.projects_info
check projects 'status == "SUCCESS" and result["changed"] is False and len(result["projects"]) == 37'
check projects 'result["projects"][0]["id"] == project_id'

adhoc project 0 -m neon.cloud.projects_info -a "project_id=$PROJECT_ID"
check project '[p["name"] for p in result["projects"]] == ["demo-project"]'

# ---- operation_info: a list, list options in key=value and JSON form (one operation by id and a
# malformed id are the operation_info target's and tests/reliability/test_operation_scenarios.py's)
adhoc operations 0 -m neon.cloud.operation_info -a "project_id=$PROJECT_ID max_results=5"
check operations 'status == "SUCCESS" and len(result["operations"]) == 5 and isinstance(result["cursor"], str)'

adhoc failures 0 -m neon.cloud.operation_info -a "project_id=$PROJECT_ID status=failed,error max_results=3"
check failures 'len(result["operations"]) == 3 and {o["status"] for o in result["operations"]} <= {"failed", "error"}'

adhoc failures_json 0 -m neon.cloud.operation_info -a "{\"project_id\": \"$PROJECT_ID\", \"status\": [\"failed\", \"error\"], \"max_results\": 3}"
check failures_json 'len(result["operations"]) == 3'
python - "$out_dir/failures" "$out_dir/failures_json" <<'PYEOF'
import json, re, sys
ids = [[o["id"] for o in json.loads(re.search(r"=> (\{.*\})", open(p).read(), re.S).group(1))["operations"]] for p in sys.argv[1:]]
assert ids[0] == ids[1], ids
PYEOF
echo "ok: the key=value and JSON forms read the same operations"

# ---- api_key_info and api_key in check mode: no secret shown, nothing created
adhoc keys 0 -m neon.cloud.api_key_info
check keys '[k["name"] for k in result["api_keys"]] == ["bootstrap", "ci-pipeline", "ci-pipeline"] and not any("key" in k for k in result["api_keys"])'

adhoc key_check 0 -m neon.cloud.api_key -a "name=adhoc-deploy" --check
check key_check 'status == "CHANGED" and result["changed"] is True and result["api_key"] == {"name": "adhoc-deploy"} and "key" not in result'
control GET /keys | python -c 'import json, sys; assert all(k["name"] != "adhoc-deploy" for k in json.load(sys.stdin)["keys"])'
echo "ok: check mode created no key"

# ---- operation_wait: the project becomes idle (the seeded in-progress operations end within 5 s)
adhoc wait 0 -m neon.cloud.operation_wait -a "project_id=$PROJECT_ID timeout=30 poll_interval=0.5"
check wait 'status == "SUCCESS" and result["failed_operations"] == [] and all(o["status"] in ("finished", "skipped") for o in result["operations"])'

# ---- branch: a dict option (compute) in key=value form, as Ansible's own dict options take it
# (the JSON form and bad strings are tests/reliability/test_compute_strings.py's)
adhoc branch_compute 0 -m neon.cloud.branch -a 'project_id='"$PROJECT_ID"' name=adhoc-compute compute="min_cu=0.25 max_cu=1"'
check branch_compute 'status == "CHANGED" and [(e["type"], e["autoscaling_limit_min_cu"], e["autoscaling_limit_max_cu"]) for e in result["endpoints"]] == [("read_write", 0.25, 1)]'

# ---- failures: exit status 2, the message and the structured error
adhoc unknown_project 2 -m neon.cloud.operation_info -a "project_id=no-such-project-00000000"
check unknown_project 'status == "FAILED!" and result["error"]["status"] == 404 and "project not found" in result["msg"]'
check unknown_project 'result["error"]["method"] == "GET" and result["error"]["request_id"]'
check unknown_project 'result["error"]["path"] == "/projects/no-such-project-00000000/operations?limit=1000"'

NEON_API_KEY=revoked-or-wrong adhoc wrong_key 2 -m neon.cloud.projects_info
check wrong_key 'result["error"]["status"] == 401 and "missing, invalid or revoked" in result["msg"]'

# without NEON_API_KEY (and no api_key option) the module says what is missing
(unset NEON_API_KEY; adhoc no_key 2 -m neon.cloud.projects_info)
python - "$out_dir/no_key" <<'PYEOF' || { cat "$out_dir/no_key"; echo "FAIL: no_key" >&2; exit 1; }
import sys
out = open(sys.argv[1]).read()
assert "localhost | FAILED!" in out and "api_key is required: set the api_key option" in out and "NEON_API_KEY environment variable" in out, out
PYEOF
echo "ok: no_key: a missing key is reported"

echo "adhoc: all checks passed"
