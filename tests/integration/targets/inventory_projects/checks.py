# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Scenarios of the inventory plugin neon.cloud.projects, run by runme.sh: ansible-inventory --list
with personal, organization and project-scoped keys, org_ids, shared, keyed groups, the cache, a
partial answer, a refused key, an API that fails under a play (Ansible plays on without the hosts
unless any_unparsed_is_failed is set), and a play over the hosts. Each check prints one line; the first
that fails ends the target with what it saw (never a key)."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

import yaml

with open(sys.argv[1], encoding="utf-8") as handle:
    CONFIG = yaml.safe_load(handle)
API_URL = CONFIG["neon_api_url"]
API_KEY = CONFIG["neon_api_key"]
CONTROL = CONFIG.get("neon_sim_control_url") or API_URL.rstrip("/").rsplit("/api/v2", 1)[0] + "/_simulator"
WORK = tempfile.mkdtemp(prefix="neon-inventory-")
SECRETS = [API_KEY]
CHECKS = []


def control(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else (b"" if method in ("POST", "DELETE") else None)
    request = urllib.request.Request(CONTROL + path, method=method, data=data,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read().decode())


def inventory_file(name, **options):
    path = os.path.join(WORK, name)
    with open(path, "w", encoding="utf-8") as handle:
        yaml.safe_dump(dict({"plugin": "neon.cloud.projects", "api_url": API_URL}, **options), handle)
    return path


PIECE = 12


def run(args, key=API_KEY, expect_rc=0, env=None):
    environment = dict(os.environ, NEON_API_KEY=key, ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0",
                       ANSIBLE_INVENTORY_UNPARSED_FAILED="true", ANSIBLE_LOCALHOST_WARNING="false")
    environment.update(env or {})
    done = subprocess.run(args, env=environment, capture_output=True, text=True, timeout=300, check=False)
    output = done.stdout + done.stderr
    for secret in SECRETS:
        # 12 characters of a key in a row: a 6-character piece of a random hex key turns up by
        # chance in output full of hex request ids and numbered project ids (it did, once in a
        # CI run); 12 do not (one chance in 16**12 per place)
        for start in range(0, len(secret) - PIECE + 1):
            if secret[start:start + PIECE] in output:
                fail("a piece of an API key is in the output of %s" % args[0], "")
    if done.returncode != expect_rc:
        fail("%s exited %d, expected %d" % (" ".join(args[:3]), done.returncode, expect_rc), output)
    return done


def plain(value):
    """ansible-inventory --list marks untrusted strings ({"__ansible_unsafe": ...}, 2.19+): the values alone."""
    if isinstance(value, dict):
        if set(value) == {"__ansible_unsafe"}:
            return value["__ansible_unsafe"]
        return dict((key, plain(item)) for key, item in value.items())
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def listing(path, key=API_KEY, env=None):
    done = run(["ansible-inventory", "-i", path, "--list"], key=key, env=env)
    return plain(json.loads(done.stdout)), done.stderr


def one_line(output):
    """Output with every run of white space one space: ansible-core 2.17 and 2.18 wrap warnings at 80 columns."""
    return " ".join(output.split())


def hosts_of(data):
    return set(data.get("_meta", {}).get("hostvars", {}))


def group(data, name):
    return set(data.get(name, {}).get("hosts", []))


def requests_made():
    return [(entry["method"], entry["path"], entry["query"]) for entry in control("GET", "/requests")["requests"]]


def fail(message, output):
    print("FAIL: %s" % message)
    if output:
        print(str(output)[-4000:])
    sys.exit(1)


def check(name, condition, seen=""):
    if not condition:
        fail(name, seen)
    CHECKS.append(name)
    print("ok: %s" % name)


def main():
    control("POST", "/reset")
    info = control("GET", "/info")
    me = next(user["id"] for user in info["users"] if user["bootstrap"])
    mine = set(project["id"] for project in info["projects"])
    orgs = [org for org in info["organizations"] if any(m["user_id"] == me for m in org["members"])]
    org = orgs[0]
    org_projects = set(project["id"] for project in org["projects"])
    seeded_shared = set(project["id"] for project in info["shared_projects"])
    reach = mine | set(project["id"] for each in orgs for project in each["projects"])

    # ---- a personal key: every project it reaches, in 2 + one page per source requests
    everything = inventory_file("all.neon.yml", keyed_groups=[{"key": "neon_region_id", "prefix": "region"}])
    control("DELETE", "/requests")
    data, _err = listing(everything)
    made = requests_made()
    check("personal key: exactly the personal projects and those of the user's organizations",
          hosts_of(data) == reach, sorted(hosts_of(data) ^ reach))
    check("personal key: GET /auth, GET /users/me/organizations, then one page of 400 per source (%d requests)"
          % len(made), [path for _method, path, _query in made][:2] == ["/api/v2/auth", "/api/v2/users/me/organizations"]
          and len(made) == 2 + 1 + len(orgs) and all("limit=400" in query for _m, path, query in made[2:]), made)
    some = sorted(org_projects)[0]
    variables = data["_meta"]["hostvars"][some]
    check("host variables: every listed field prefixed neon_, plus neon_shared, neon_unavailable, local connection",
          variables["neon_id"] == some and variables["neon_org_id"] == org["id"] and "neon_region_id" in variables
          and "neon_pg_version" in variables and variables["neon_shared"] is False
          and variables["neon_unavailable"] is False and variables["ansible_connection"] == "local", variables)
    region = variables["neon_region_id"]
    in_region = set(name for name, values in data["_meta"]["hostvars"].items() if values["neon_region_id"] == region)
    check("keyed_groups: region_<region> holds exactly that region's projects",
          group(data, "region_" + region.replace("-", "_")) == in_region)

    # ---- an organization key and a project-scoped key
    org_key = control("POST", "/keys", {"kind": "organization", "org_id": org["id"], "name": "inventory-org"})["key"]
    project_key = control("POST", "/keys", {"kind": "project", "project_id": some, "name": "inventory-one"})["key"]
    SECRETS.extend([org_key, project_key])
    data, _err = listing(inventory_file("org.neon.yml"), key=org_key)
    check("organization key: exactly that organization's projects", hosts_of(data) == org_projects,
          sorted(hosts_of(data) ^ org_projects))
    data, _err = listing(inventory_file("one.neon.yml"), key=project_key)
    check("project-scoped key: its one project", hosts_of(data) == {some}, sorted(hosts_of(data)))

    # ---- org_ids, and a key template (a lookup)
    data, _err = listing(inventory_file("only.neon.yml", org_ids=[org["id"]],
                                        api_key="{{ lookup('ansible.builtin.env', 'SOME_OTHER_VARIABLE') }}"),
                         key="not-this-one", env={"SOME_OTHER_VARIABLE": API_KEY})
    check("org_ids with a templated api_key: only that organization's projects", hosts_of(data) == org_projects)

    # ---- shared projects
    other = control("POST", "/users", {"name": "someone-else"})["id"]
    theirs = control("POST", "/projects", {"name": "shared-with-me", "owner": other})["id"]
    control("POST", "/projects/%s/share" % theirs, {"user_id": "bootstrap"})
    data, _err = listing(everything)
    check("without shared: a project shared with the account is not a host", theirs not in hosts_of(data))
    data, _err = listing(inventory_file("shared.neon.yml", shared=True))
    check("shared: true adds it, with neon_shared true",
          theirs in hosts_of(data) and data["_meta"]["hostvars"][theirs]["neon_shared"] is True
          and hosts_of(data) == reach | {theirs} | seeded_shared, sorted(hosts_of(data) ^ (reach | {theirs})))

    # ---- the cache: a second run makes no request, and no piece of a key is in it
    cache_dir = os.path.join(WORK, "cache")
    cached = inventory_file("cached.neon.yml", cache=True, cache_plugin="ansible.builtin.jsonfile",
                            cache_connection=cache_dir, cache_timeout=3600)
    first, _err = listing(cached)
    control("DELETE", "/requests")
    second, _err = listing(cached)
    check("cache: the second run makes no request at all", requests_made() == [], requests_made())
    check("cache: the same hosts and variables", second["_meta"] == first["_meta"])
    stored = "".join(open(os.path.join(cache_dir, name), encoding="utf-8").read() + name
                     for name in os.listdir(cache_dir))
    check("cache: no piece of the key in the cache files or their names",
          stored and not any(API_KEY[start:start + PIECE] in stored for start in range(len(API_KEY) - PIECE + 1)))
    other_key_run, _err = listing(cached, key=org_key)
    check("cache: another key does not get this key's cached hosts", hosts_of(other_key_run) == org_projects)

    # ---- a partial answer: asked again; what stays unavailable is a host in neon_unavailable, with a warning
    unavailable = sorted(org_projects)[-1]
    control("POST", "/unavailable", {"project_ids": [unavailable], "answers": 1})
    data, _err = listing(everything)
    check("a project unavailable once is asked again and listed in full",
          data["_meta"]["hostvars"][unavailable]["neon_unavailable"] is False
          and "neon_name" in data["_meta"]["hostvars"][unavailable])
    control("POST", "/unavailable", {"project_ids": [unavailable], "answers": None})
    data, err = listing(everything)
    control("DELETE", "/unavailable")
    check("a project that stays unavailable is still a host, in group neon_unavailable, and a warning names it",
          data["_meta"]["hostvars"][unavailable]["neon_unavailable"] is True
          and group(data, "neon_unavailable") == {unavailable} and unavailable in err and hosts_of(data) == reach,
          err)

    # ---- a refused key and a bad option: one clear message, no traceback, no key even at -vvv
    done = run(["ansible-inventory", "-i", everything, "--list", "-vvv"], key="x" * 64, expect_rc=1)
    output = one_line(done.stdout + done.stderr)
    check("a refused key: Ansible's inventory error with the request that failed, no traceback",
          "Failed to parse" in output and "GET /auth failed: HTTP 401" in output and "Traceback" not in output
          and "x" * 64 not in output, output)
    done = run(["ansible-inventory", "-i", inventory_file("bad.neon.yml", org_ids=["Not An Id"]), "--list"],
               expect_rc=1)
    check("a bad option: one clear message", "org_ids: each must be an organization id" in done.stderr, done.stderr)

    # ---- the API failing while a play runs over the inventory: by default Ansible only warns and plays on with no
    # host (exit 0), so the plugin's message names the cause and says how to stop; with any_unparsed_is_failed
    # (ansible.cfg's [inventory] section, or its environment variable) the run stops with that cause
    control("POST", "/faults", {"status": 500, "count": 100})
    failing = inventory_file("failing.neon.yml", org_ids=[org["id"]], api_retries=0)
    done = run(["ansible-playbook", "-i", failing, "over_projects.yml"], env={"ANSIBLE_INVENTORY_UNPARSED_FAILED": "false"})
    output = one_line(done.stdout + done.stderr)
    check("an API that fails, by default: Ansible plays on with no host, and the warning names the request that "
          "failed and how to stop", "no hosts matched" in output
          and "neon.cloud.projects could not list the projects: GET /auth failed: HTTP 500: internal server error "
          "(request id " in output and "ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED=true" in output, output)
    done = run(["ansible-playbook", "-i", failing, "over_projects.yml"], expect_rc=1,
               env={"ANSIBLE_INVENTORY_UNPARSED_FAILED": "false", "ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED": "true"})
    output = one_line(done.stdout + done.stderr)
    check("an API that fails, with any_unparsed_is_failed: the run stops before any play, with the cause",
          "Completely failed to parse inventory source" in output and "PLAY [" not in output
          and "GET /auth failed: HTTP 500: internal server error (request id " in output
          and "ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED=true" not in output, output)
    control("DELETE", "/faults")

    # ---- a play over the hosts of one organization
    done = run(["ansible-playbook", "-i", inventory_file("play.neon.yml", org_ids=[org["id"]]), "over_projects.yml"],
               env={"NEON_API_URL": API_URL})  # the modules' connection, as an AWX credential would set it
    check("a play over the hosts runs the modules on the controller for each project",
          "failed=0" in done.stdout and done.stdout.count("ok=2") == len(org_projects), done.stdout)

    print("inventory_projects: %d checks passed" % len(CHECKS))


try:
    main()
finally:
    shutil.rmtree(WORK, ignore_errors=True)
