# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The vendor's CLI (`neonctl`, npm) against the simulator, as a user runs it against the live
service (issue 22: "the vendor's CLI (`neonctl` `projects create`, `branches create/list/delete`,
`connection-string`) ..., pointed at the simulator, work as they do against the service"), and for
roles, databases and computes (issue 23): `roles create/list/delete`, `databases create/list/delete`,
`branches add-compute`. neonctl 2.x has no command of its own to start, suspend, restart or delete a
compute, nor to reveal or reset a password: those go through its `api` passthrough
(`neonctl api PATH -X METHOD`), which sends the request as given and prints the answer.

The session installs the CLI itself (`npm install neonctl@2` into the repository's ignored
`.cache/`, reused by later sessions while it answers `--version` with the pinned major; the time is
printed). Without `node` or `npm` on the machine the tests skip; a failing install fails them.

Each run is non-interactive and offline but for the simulator: `--api-host` (the simulator's
/api/v2) and `--api-key`, `--no-analytics` (no Segment client, so no track.neon.tech and no
`/auth` + `/users/me` look-ups), `--output json`, and its own `--config-dir`, `--context-file`,
HOME and working directory (neither a user's credentials nor a `.neon` context file is read).

No test waits for wall time: the simulated clock is jumped past the operations a change starts,
and the 423 test holds an operation until the CLI has been refused once.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import fcntl
import json
import os
import shutil
import subprocess
import time
from urllib.parse import urlsplit

import pytest
import requests

from neon_testing import ROOT

NEONCTL_MAJOR = "2"  # neonctl 2.x: the `neon` package's CLI, the commands and flags used below
NEONCTL_SPEC = "neonctl@" + NEONCTL_MAJOR
NPM_INSTALL_TIMEOUT = 600
RUN_TIMEOUT = 120
SETTLE = 30  # simulated seconds: past every unscripted operation (1-2 s), before computes suspend (300 s)
LOCKED = "project already has running conflicting operations, scheduling of new ones is prohibited"


def _report(config, line):
    """Print ``line`` on the terminal of the session, past pytest's output capture."""
    capture = config.pluginmanager.get_plugin("capturemanager")
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if capture is None or reporter is None:
        print(line)
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line(line)


def _version(binary, env):
    try:
        done = subprocess.run([binary, "--version"], env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT,
                              check=False)
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@pytest.fixture(scope="session")
def neonctl(request, tmp_path_factory):
    """The path of the installed `neonctl` binary (major NEONCTL_MAJOR). Installed under a lock:
    pytest-xdist workers (nox -s pytest) each set this fixture up, and one installs while the
    others wait, then find it installed."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are needed to install the vendor CLI (neonctl) and are not on PATH")
    prefix = os.path.join(str(ROOT), ".cache", "neonctl-" + NEONCTL_MAJOR)
    os.makedirs(os.path.dirname(prefix), exist_ok=True)
    env = dict(os.environ, HOME=str(tmp_path_factory.mktemp("npm-home")))
    env.pop("NEON_API_KEY", None)
    with open(prefix + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return _installed(request.config, prefix, env)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _installed(config, prefix, env):
    binary = os.path.join(prefix, "node_modules", ".bin", "neonctl")
    cached = _version(binary, env) if os.path.exists(binary) else None
    if cached is not None and cached.split(".")[0] == NEONCTL_MAJOR:
        _report(config, "neonctl %s reused from %s (no install)" % (cached, prefix))
        return binary
    shutil.rmtree(prefix, ignore_errors=True)
    os.makedirs(prefix)
    started = time.monotonic()
    try:
        done = subprocess.run(
            ["npm", "install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", "--ignore-scripts",
             "--loglevel=error", NEONCTL_SPEC],
            env=env, cwd=prefix, capture_output=True, text=True, timeout=NPM_INSTALL_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        shutil.rmtree(prefix, ignore_errors=True)
        pytest.fail("npm install %s took over %d s" % (NEONCTL_SPEC, NPM_INSTALL_TIMEOUT))
    elapsed = time.monotonic() - started
    if done.returncode != 0:
        shutil.rmtree(prefix, ignore_errors=True)
        pytest.fail("npm install %s failed (%d) after %.1f s:\n%s\n%s"
                    % (NEONCTL_SPEC, done.returncode, elapsed, done.stdout, done.stderr))
    version = _version(binary, env)
    assert version is not None and version.split(".")[0] == NEONCTL_MAJOR, (binary, version)
    _report(config, "neonctl %s installed into %s in %.1f s (npm install, cold)" % (version, prefix, elapsed))
    return binary


@pytest.fixture
def cli(neonctl, simulator, tmp_path):
    """cli(*args, key=..., check=True) -> CompletedProcess of `neonctl ARGS` against the simulator;
    its stdout parsed as JSON in `.json` when it is JSON."""
    home = tmp_path / "home"
    home.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith("NEON_")}
    env.update(HOME=str(home), CI="true", NO_COLOR="1")

    def command(*args, key=None):
        return [neonctl, *args, "--api-host", simulator.url, "--api-key", key or simulator.api_key,
                "--output", "json", "--no-analytics", "--no-color", "--config-dir", str(home / "config"),
                "--context-file", str(tmp_path / "context.json")]

    def run(*args, key=None, check=True):
        done = subprocess.run(command(*args, key=key), env=env, cwd=str(tmp_path), capture_output=True, text=True,
                              timeout=RUN_TIMEOUT, check=False)
        if check:
            assert done.returncode == 0, (args, done.returncode, done.stdout, done.stderr)
        try:
            done.json = json.loads(done.stdout)
        except ValueError:
            done.json = None
        return done

    run.command = command
    run.env = env
    run.cwd = str(tmp_path)
    return run


def _api(simulator, path):
    answer = requests.get(simulator.url + path, headers=simulator.headers, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def _uri_parts(uri):
    parts = urlsplit(uri)
    return parts.username, parts.password, parts.hostname, parts.path.lstrip("/"), parts.query


def _project(simulator, cli, name):
    """`neonctl projects create`, its operations ended -> (the CLI's JSON, project id)."""
    made = cli("projects", "create", "--name", name).json
    simulator.advance_clock(SETTLE)
    return made, made["project"]["id"]


def test_projects_create_prints_the_project_and_a_connection_uri_that_logs_in(simulator, cli):
    since = simulator.requests()[-1]["seq"] if simulator.requests() else None
    made = cli("projects", "create", "--name", "cli-project", "--database", "shop", "--role", "shop_admin").json
    project = made["project"]
    assert project["name"] == "cli-project"
    (details,) = made["connection_uris"]
    role, password, host, database, query = _uri_parts(details["connection_uri"])
    assert (role, database, query) == ("shop_admin", "shop", "sslmode=require")
    assert details["connection_parameters"]["pooler_host"] == host.replace(".", "-pooler.", 1)
    # what the simulator holds: the project, its default branch with the compute of that host
    simulator.advance_clock(SETTLE)
    (main,) = _api(simulator, "/projects/%s/branches" % project["id"])["branches"]
    assert (main["name"], main["default"], main["current_state"]) == ("main", True, "ready")
    (endpoint,) = _api(simulator, "/projects/%s/endpoints" % project["id"])["endpoints"]
    assert (endpoint["host"], endpoint["branch_id"], endpoint["current_state"]) == (host, main["id"], "active")
    assert simulator.password_valid(project["id"], main["id"], "shop_admin", password)
    (create,) = [r for r in simulator.requests(since=since) if r["method"] == "POST"]
    assert (create["path"], create["status"]) == ("/api/v2/projects", 201)
    assert create["user_agent"].startswith("neonctl v" + NEONCTL_MAJOR + ".")


def test_branches_create_list_and_delete(simulator, cli):
    _made, pid = _project(simulator, cli, "cli-branches")
    created = cli("branches", "create", "--project-id", pid, "--name", "pr-7").json
    branch = created["branch"]
    assert (branch["name"], branch["current_state"], branch["default"]) == ("pr-7", "init", False)
    (endpoint,) = created["endpoints"]
    assert (endpoint["type"], endpoint["branch_id"]) == ("read_write", branch["id"])  # a compute, as by default
    (details,) = created["connection_uris"]  # one role, one database, a read_write compute: notes
    assert _uri_parts(details["connection_uri"])[2] == endpoint["host"]
    simulator.advance_clock(SETTLE)

    listed = cli("branches", "list", "--project-id", pid).json
    by_name = {b["name"]: b for b in listed}
    assert sorted(by_name) == ["main", "pr-7"]
    assert by_name["pr-7"]["current_state"] == "ready" and by_name["pr-7"]["parent_id"] == by_name["main"]["id"]

    # a taken name: the service's message on stderr, exit 1, nothing created
    taken = cli("branches", "create", "--project-id", pid, "--name", "pr-7", check=False)
    assert taken.returncode == 1 and 'branch already exists; branch_name:"pr-7"' in taken.stderr

    deleted = cli("branches", "delete", "pr-7", "--project-id", pid).json  # by name: the CLI lists, then deletes
    assert (deleted["id"], deleted["name"]) == (branch["id"], "pr-7")
    assert [b["name"] for b in cli("branches", "list", "--project-id", pid).json] == ["main"]
    # by id once it is gone: the service's 204 without a body, which the CLI takes as done
    again = cli("branches", "delete", branch["id"], "--project-id", pid)
    assert again.stdout.strip() == ""
    assert simulator.requests()[-1]["method"] == "DELETE" and simulator.requests()[-1]["status"] == 204
    # the default branch cannot be deleted (400 with the service's message)
    refused = cli("branches", "delete", "main", "--project-id", pid, check=False)
    assert refused.returncode == 1 and simulator.requests()[-1]["status"] == 400


def test_connection_string_direct_and_pooled(simulator, cli):
    _made, pid = _project(simulator, cli, "cli-connect")
    branch = cli("branches", "create", "--project-id", pid, "--name", "pr-8").json
    simulator.advance_clock(SETTLE)
    (endpoint,) = branch["endpoints"]

    # not JSON: the CLI prints the URI itself whatever --output says, built from the branch's
    # read_write compute's host, its one role and database, and the role's revealed password
    direct = cli("connection-string", "pr-8", "--project-id", pid).stdout.strip()
    pooled = cli("connection-string", "pr-8", "--project-id", pid, "--pooled").stdout.strip()
    role, password, host, database, query = _uri_parts(direct)
    assert (role, host, database, query) == ("neondb_owner", endpoint["host"], "neondb",
                                             "sslmode=require&channel_binding=require")
    assert _uri_parts(pooled) == (role, password, host.replace(endpoint["id"], endpoint["id"] + "-pooler"),
                                  database, query)
    assert simulator.password_valid(pid, branch["branch"]["id"], "neondb_owner", password)
    # without a branch: the default branch's compute, another host, the same (inherited) password
    main = cli("connection-string", "--project-id", pid).stdout.strip()
    assert _uri_parts(main)[1] == password and _uri_parts(main)[2] not in (host, _uri_parts(pooled)[2])


def test_branches_create_waits_out_a_423_and_then_creates(simulator, cli):
    """The CLI repeats a create refused with 423 (retryOnLock: 3 s apart, 5 tries): against the
    simulator's real refusal, while an operation is held, then released after the first refusal."""
    _made, pid = _project(simulator, cli, "cli-locked")
    (held,) = simulator.start_operations(pid, action="apply_config", hold=True)
    since = simulator.requests()[-1]["seq"]
    background = subprocess.Popen(cli.command("branches", "create", "--project-id", pid, "--name", "pr-9"),
                                  env=cli.env, cwd=cli.cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + RUN_TIMEOUT  # a bound on a hung CLI, not a timing assumption
        while not [r for r in simulator.requests(since=since) if r["method"] == "POST" and r["status"] == 423]:
            assert background.poll() is None, background.communicate()
            assert time.monotonic() < deadline, "neonctl never sent the create"
            time.sleep(0.05)
        simulator.release_operations(pid, held["id"])
        out, err = background.communicate(timeout=RUN_TIMEOUT)
    finally:
        if background.poll() is None:
            background.kill()
            background.communicate()
    assert background.returncode == 0, (out, err)
    assert json.loads(out)["branch"]["name"] == "pr-9"
    posts = [r["status"] for r in simulator.requests(since=since) if r["method"] == "POST"]
    assert posts == [423, 201]
    assert "locked" in err.lower()


def _roles(simulator, pid, branch_id):
    return [r["name"] for r in _api(simulator, "/projects/%s/branches/%s/roles" % (pid, branch_id))["roles"]]


def _last(simulator):
    request = simulator.requests()[-1]
    return request["method"], request["status"]


def test_roles_create_list_and_delete(simulator, cli):
    _made, pid = _project(simulator, cli, "cli-roles")
    role = cli("roles", "create", "--name", "app", "--project-id", pid, "--branch", "main").json
    main = role["branch_id"]
    # the created role as the service answers it: its password shown once, and it logs in
    assert (role["name"], role["protected"]) == ("app", False) and len(role["password"]) == 12
    assert simulator.password_valid(pid, main, "app", role["password"])
    simulator.advance_clock(SETTLE)

    listed = cli("roles", "list", "--project-id", pid).json  # no --branch: the default branch
    assert [r["name"] for r in listed] == ["neondb_owner", "app"]
    assert not [r for r in listed if "password" in r] and {r["branch_id"] for r in listed} == {main}
    taken = cli("roles", "create", "--name", "app", "--project-id", pid, check=False)
    assert taken.returncode == 1 and 'role already exists; role_name:"app"' in taken.stderr
    assert _last(simulator) == ("POST", 409)
    revealed = cli("api", "/projects/%s/branches/%s/roles/app/reveal_password" % (pid, main)).json
    assert revealed == {"password": role["password"]} and _last(simulator) == ("GET", 200)

    deleted = cli("roles", "delete", "app", "--project-id", pid, "--branch", main).json
    assert (deleted["name"], deleted["branch_id"]) == ("app", main) and "password" not in deleted
    simulator.advance_clock(SETTLE)
    assert _roles(simulator, pid, main) == ["neondb_owner"]
    # gone: the service's 204 without a body, which the CLI takes as done and prints nothing
    again = cli("roles", "delete", "app", "--project-id", pid)
    assert again.stdout.strip() == "" and _last(simulator) == ("DELETE", 204)


def test_databases_create_with_owners_list_and_delete(simulator, cli):
    _made, pid = _project(simulator, cli, "cli-databases")
    # one role on the branch: without --owner-name the CLI lists the roles and makes that one the owner
    shop = cli("databases", "create", "--name", "shop", "--project-id", pid).json
    main = shop["branch_id"]
    assert (shop["name"], shop["owner_name"]) == ("shop", "neondb_owner") and isinstance(shop["id"], int)
    simulator.advance_clock(SETTLE)
    cli("roles", "create", "--name", "app", "--project-id", pid)
    simulator.advance_clock(SETTLE)
    ledger = cli("databases", "create", "--name", "ledger", "--owner-name", "app", "--project-id", pid,
                 "--branch", "main").json
    assert (ledger["name"], ledger["owner_name"], ledger["branch_id"]) == ("ledger", "app", main)
    simulator.advance_clock(SETTLE)

    # an owner that is no role of the branch: the service's message, exit 1, nothing created
    unknown = cli("databases", "create", "--name", "other", "--owner-name", "nobody", "--project-id", pid,
                  check=False)
    assert unknown.returncode == 1 and "database owner not found" in unknown.stderr
    assert _last(simulator) == ("POST", 404)
    listed = cli("databases", "list", "--project-id", pid, "--branch", main).json
    assert [(d["name"], d["owner_name"]) for d in listed] == [
        ("neondb", "neondb_owner"), ("shop", "neondb_owner"), ("ledger", "app")]
    # the owner of a database cannot be deleted (400, the service's message)
    owner = cli("roles", "delete", "app", "--project-id", pid, check=False)
    assert owner.returncode == 1 and 'role "app" owns databases (ledger)' in owner.stderr
    assert _last(simulator) == ("DELETE", 400)

    deleted = cli("databases", "delete", "ledger", "--project-id", pid).json
    assert (deleted["id"], deleted["name"], deleted["owner_name"]) == (ledger["id"], "ledger", "app")
    simulator.advance_clock(SETTLE)
    dbs = _api(simulator, "/projects/%s/branches/%s/databases" % (pid, main))["databases"]
    assert [d["name"] for d in dbs] == ["neondb", "shop"]
    again = cli("databases", "delete", "ledger", "--project-id", pid)
    assert again.stdout.strip() == "" and _last(simulator) == ("DELETE", 204)


def test_branches_add_compute_and_compute_routes_through_the_api_passthrough(simulator, cli):
    _made, pid = _project(simulator, cli, "cli-computes")
    (primary,) = _api(simulator, "/projects/%s/endpoints" % pid)["endpoints"]
    main = primary["branch_id"]

    reader = cli("branches", "add-compute", "main", "--project-id", pid, "--cu", "0.5-2").json  # read_only by default
    assert (reader["type"], reader["branch_id"], reader["autoscaling_limit_min_cu"],
            reader["autoscaling_limit_max_cu"]) == ("read_only", main, 0.5, 2)
    assert (reader["current_state"], reader["pending_state"]) == ("init", "active")
    # the CLI's own quirk: its positional <id|name> is also yargs' `name`, so it sends the branch it
    # was given as the compute's name
    assert reader["name"] == "main"
    # one read_write compute per branch: the service's 409 and message, exit 1
    second = cli("branches", "add-compute", "main", "--project-id", pid, "--type", "read_write", check=False)
    assert second.returncode == 1 and 'read_write endpoint already exists; branch_id:"%s"' % main in second.stderr
    assert _last(simulator) == ("POST", 409)
    simulator.advance_clock(SETTLE)
    path = "/projects/%s/endpoints/%s" % (pid, reader["id"])
    assert _api(simulator, path)["endpoint"]["current_state"] == "active"

    def action(name, expected_actions, state):
        answer = cli("api", path + "/" + name, "-X", "POST").json
        assert [op["action"] for op in answer["operations"]] == expected_actions, name
        simulator.advance_clock(SETTLE)
        assert _api(simulator, path)["endpoint"]["current_state"] == state, name
        return answer

    assert action("suspend", ["suspend_compute"], "idle")["endpoint"]["pending_state"] == "idle"
    assert action("start", ["start_compute"], "active")["endpoint"]["pending_state"] == "active"
    action("restart", ["suspend_compute", "start_compute"], "active")

    deleted = cli("api", path, "-X", "DELETE").json
    assert deleted["endpoint"]["id"] == reader["id"]
    assert [op["action"] for op in deleted["operations"]] == ["suspend_compute"]  # it was active
    assert [e["id"] for e in _api(simulator, "/projects/%s/endpoints" % pid)["endpoints"]] == [primary["id"]]
