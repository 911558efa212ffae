#!/usr/bin/env bash
# Runs the collection's demo playbook (playbooks/demo.yml) as a user would:
#   NEON_API_URL=... NEON_API_KEY=... ansible-playbook neon.cloud.demo
# from a fresh simulator state, and checks that it passes and shows no secret.
# No `set -x`: the command lines would show the key.
set -euo pipefail

config="../../integration_config.yml"
[ -f "$config" ] || { echo "runme.sh: no $config: run the targets with nox -s integration-2.19 (noxfile.py)" >&2; exit 1; }
eval "$(python - "$config" <<'PYEOF'
import shlex, sys, yaml
with open(sys.argv[1]) as handle:
    cfg = yaml.safe_load(handle)
url = cfg["neon_api_url"]
control = cfg.get("neon_sim_control_url") or url.rstrip("/").rsplit("/api/v2", 1)[0] + "/_simulator"
for name, value in (("NEON_API_URL", url), ("NEON_API_KEY", cfg["neon_api_key"]), ("CONTROL_URL", control)):
    print("%s=%s" % (name, shlex.quote(value)))
PYEOF
)"
export NEON_API_URL NEON_API_KEY CONTROL_URL
export ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false

control() {  # control METHOD PATH: the simulator's control API (no auth); prints the JSON answer
    python - "$CONTROL_URL$2" "$1" <<'PYEOF'
import sys, urllib.request
request = urllib.request.Request(sys.argv[1], method=sys.argv[2], data=b"" if sys.argv[2] == "POST" else None)
with urllib.request.urlopen(request, timeout=10) as response:
    print(response.read().decode())
PYEOF
}

control POST /reset >/dev/null
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
rc=0
ansible-playbook neon.cloud.demo "$@" >"$out" 2>&1 || rc=$?
cat "$out"
[ "$rc" = 0 ] || { echo "FAIL: the demo playbook exited with status $rc" >&2; exit 1; }

python - "$out" <<'PYEOF'
import json, os, re, sys, urllib.request
out = open(sys.argv[1]).read()
recap = re.search(r"^localhost\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", out, re.M)
assert recap, "no PLAY RECAP for localhost"
ok, changed, unreachable, failed = map(int, recap.groups())
assert failed == 0 and unreachable == 0 and ok >= 30, recap.group(0)
# 2 changes in the tour (key created, key revoked), 3 in the team lead's play (project-scoped
# key created, rotated, revoked) and 6 in the pull request's play (project, branch, role and database created,
# compute resized, branch deleted), 3 in the baseline's (the baseline held, the drift found in check mode, the drift
# fixed) and 2 in the recovery's (the restore in check mode, the restore)
assert changed == 16, "expected 16 changes: %s" % recap.group(0)
assert "['checkout-api'] of 3 projects differ from the baseline, in ['allowed_ips', 'maintenance_window']" in out
assert re.search(r"the drift report found 1, the fix changed 1, and the last run changed 0", out), "the baseline's line"
assert re.search(r"main \(br-[a-z0-9-]+\) holds 3 orders again, .* the second run changed nothing: True", out), \
    "the restore's line"
for task in ("List every project, across pages", "Wait for the operations it started",
             "Try to use the revoked key - the service must refuse it with 401",
             "Create a key scoped to that one project, for its CI", "With the CI key, try another project of the organization",
             "The old CI key no longer works", "Revoke the CI key",
             "Create a branch for pull request 123 from main, with a compute, and wait until it is ready",
             "Give the branch the application's own role; its password is shown once, so keep it (no_log)",
             "Give the application its own database, owned by that role", "Size the branch's compute for the test run",
             "Read the pooled connection string of the application's role and database for the migration step",
             "Delete the branch when the pull request closes"):
    assert "TASK [%s]" % task in out, "task %r did not run" % task
assert "It lists only checkout-api" in out
assert "HTTP 403: not allowed: the API key is scoped to another project" in out
assert re.search(r"Migrations of pull request 123 connect as shop_app to shop through the pooler ep-[a-z0-9-]+-pooler\.", out)
assert re.search(r"Role shop_app \(created now: True, password of [1-9][0-9]* characters returned once\), database shop "
                 r"owned by shop_app, compute ep-[a-z0-9-]+ at 0\.25-2\.0 CU \(active\)", out), "the role/database line"
assert "postgresql://" not in out, "a connection string is in the output"
assert "projects_info found 37 projects, following every page (a single plain GET /projects answers 10" in out
# no secret in the output: neither the bootstrap key nor the key the demo created (64 [a-z0-9])
assert os.environ["NEON_API_KEY"] not in out, "the API key is in the output"
leaked = re.findall(r"(?<![a-z0-9])[a-z0-9]{64}(?![a-z0-9])", out)
assert not leaked, "key-like strings in the output: %s" % leaked[:2]
# the demo's key was created once and is revoked now
with urllib.request.urlopen(os.environ["CONTROL_URL"] + "/keys", timeout=10) as response:
    keys = [k for k in json.load(response)["keys"] if k["name"] == "demo-automation"]
assert len(keys) == 1 and keys[0]["revoked"], keys
# the CI key and the key that replaced it, both project-scoped, both revoked by the end
ci_keys = [k for k in json.load(urllib.request.urlopen(os.environ["CONTROL_URL"] + "/keys", timeout=10))["keys"]
           if k["name"] == "ci-checkout-api"]
assert len(ci_keys) == 2 and all(k["revoked"] and k["kind"] == "project" for k in ci_keys), ci_keys
# the pull request's branch is gone, its project stays with its default branch only
with urllib.request.urlopen(os.environ["CONTROL_URL"] + "/requests", timeout=10) as response:
    deletes = [r for r in json.load(response)["requests"] if r["method"] == "DELETE" and "/branches/" in r["path"]]
assert len(deletes) == 1 and deletes[0]["status"] == 200, deletes
print("demo: the playbook passed, created and revoked its keys, made and deleted a pull request's branch, and showed no secret")
PYEOF


# ---- the demo's second part: the inventory of the account and a play over its hosts
inventory_dir="$(mktemp -d)"
trap 'rm -f "$out"; rm -rf "$inventory_dir"' EXIT
printf 'plugin: neon.cloud.projects\nkeyed_groups:\n  - key: neon_region_id\n    prefix: region\n' > "$inventory_dir/demo.neon.yml"
listed="$(mktemp)"
trap 'rm -f "$out" "$listed"; rm -rf "$inventory_dir"' EXIT
ansible-inventory -i "$inventory_dir/demo.neon.yml" --list >"$listed" 2>"$out" || { cat "$out"; echo "FAIL: ansible-inventory --list" >&2; exit 1; }
# The play over the inventory runs on the first hosts only: what it proves (the plugin's host
# variables reach a module task, no secret is shown) is the same for every host, and each host is a
# module run; the plugin's own behaviour is the inventory_projects target's. `make demo` runs it on all.
play_hosts=5
rc=0
ansible-playbook -i "$inventory_dir/demo.neon.yml" --limit "all[0:$((play_hosts - 1))]" neon.cloud.demo_inventory >"$out" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$out"; echo "FAIL: neon.cloud.demo_inventory exited with status $rc" >&2; exit 1; }
python - "$out" "$listed" "$play_hosts" <<'PYEOF'
import json, os, re, sys
out = open(sys.argv[1]).read()
listed = json.load(open(sys.argv[2]))
# every project the bootstrap key reaches (personal and its organization's, and the demo-shop project the
# pull request play made) is a host, with the plugin's variables
hosts = listed["_meta"]["hostvars"]
assert len(hosts) == 41, "expected 41 hosts: %d" % len(hosts)
assert all(host.get("neon_id") and host.get("neon_region_id") for host in hosts.values()), "a host without neon_id"
assert any(name.startswith("region_") for name in listed["all"]["children"]), listed["all"]
recaps = re.findall(r"^([a-z0-9-]+)\s+:\s+ok=(\d+)\s+changed=\d+\s+unreachable=(\d+)\s+failed=(\d+)", out, re.M)
assert len(recaps) == int(sys.argv[3]), "expected %s hosts in the play: %d" % (sys.argv[3], len(recaps))
assert all(ok == "2" and unreachable == "0" and failed == "0" for _host, ok, unreachable, failed in recaps), recaps
assert all(host in hosts for host, _ok, _unreachable, _failed in recaps), recaps
assert "Show the project, its region and its latest operation" in out
for text in (out, open(sys.argv[2]).read()):
    assert os.environ["NEON_API_KEY"] not in text, "the API key is in the output"
print("demo: the inventory of the account has %d hosts, and the play over %d of them passed" % (len(hosts), len(recaps)))
PYEOF
