# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The four measurements. Each one runs the collection's way and its baseline side by side
in one run, repeats, and keeps every sample (the report takes medians)."""

import functools
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

import requests
import urllib3.connection

END_STATUSES = ("finished", "skipped", "failed", "error", "cancelled")
NEON_USER_AGENT_PREFIX = "neon.cloud-ansible/"


# ---------------------------------------------------------------------- connection counter
# The collection sends each request from a worker thread of this name (so that a time limit
# bounds the whole request); its connections count for the thread that waits on it.
COLLECTION_WORKER = "neon-request"


class ConnectionCounter:
    """Counts new TCP connections opened by urllib3, per thread (for keep-alive checks).

    Connections of the collection's request workers are counted apart; ``mine(workers=True)``
    adds them, for the one side of a measurement that runs the collection.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.by_thread = {}
        self.original = None

    def install(self):
        if self.original is not None:
            return
        self.original = urllib3.connection.HTTPConnection.connect
        counter = self

        def connect(conn):
            with counter.lock:
                ident = threading.get_ident()
                if threading.current_thread().name == COLLECTION_WORKER:
                    ident = COLLECTION_WORKER
                counter.by_thread[ident] = counter.by_thread.get(ident, 0) + 1
            return counter.original(conn)

        urllib3.connection.HTTPConnection.connect = connect

    def mine(self, workers=False):
        with self.lock:
            return self.by_thread.get(threading.get_ident(), 0) + (
                self.by_thread.get(COLLECTION_WORKER, 0) if workers else 0)


CONNECTIONS = ConnectionCounter()


def with_client(sim, work):
    """(``work(client)``, the requests it made) with a fresh client of the collection."""
    from ansible_collections.neon.cloud.plugins.module_utils._api.client import NeonClient

    client = NeonClient(sim.api_key, api_url=sim.api_url)
    try:
        return work(client), client.requests_made
    finally:
        client.close()


def _timed(function):
    started = time.perf_counter()
    result = function()
    return result, time.perf_counter() - started


# ---------------------------------------------------------------------- 1. paging
def paging(sim, runs, total=10000, log=print):
    """List ``total`` operations of one project: the collection's collect() vs a plain loop."""
    from ansible_collections.neon.cloud.plugins.module_utils._api.operations import operations_path
    from ansible_collections.neon.cloud.plugins.module_utils._api.paging import OPERATIONS_PAGE_MAX, collect

    CONNECTIONS.install()
    page = OPERATIONS_PAGE_MAX  # what operation_info asks unless page_size is given
    project_id = sim.create_project("bench-paging")
    sim.add_history(project_id, total, seed=1)
    path = operations_path(project_id)

    def neon(**kwargs):
        listed, made = with_client(sim, lambda client: collect(client, path, "operations", page, **kwargs))
        return len(listed.items), made

    def plain():
        session = requests.Session()
        session.headers.update(sim.headers)
        items, made, cursor = [], 0, None
        try:
            while made < 1000:  # bounded
                params = {"limit": page}
                if cursor:
                    params["cursor"] = cursor
                answer = session.get(sim.api_url + path, params=params, timeout=30)
                made += 1
                answer.raise_for_status()
                body = answer.json()
                items.extend(body["operations"])
                if len(body["operations"]) < page:
                    break
                cursor = body["pagination"]["cursor"]
        finally:
            session.close()
        return len(items), made

    ways = {"neon": neon, "plain": plain}
    for name in ways:  # warm-up: code paths, first connection
        ways[name]()
    samples = {name: [] for name in ways}
    for run in range(runs):
        for name in (("neon", "plain") if run % 2 == 0 else ("plain", "neon")):
            sim.clear_requests()
            before = CONNECTIONS.mine(workers=name == "neon")
            (items, made), elapsed = _timed(ways[name])
            samples[name].append({
                "items": items, "requests": made, "seconds": elapsed, "items_per_s": items / elapsed,
                "server_requests": len(sim.requests_log()),
                "connections": CONNECTIONS.mine(workers=name == "neon") - before,
            })
        log("  paging run %d/%d: neon.cloud %.0f items/s, plain loop %.0f items/s" % (
            run + 1, runs, samples["neon"][-1]["items_per_s"], samples["plain"][-1]["items_per_s"]))

    # stopping early: max_results without a filter asks the last page smaller; with a filter
    # the read stops inside the page (plus one request for the exact cursor there)
    early = {}
    early["max_results=2500"] = neon(max_results=2500)
    early["status=failed, max_results=10"] = neon(max_results=10, keep=lambda op: op.get("status") == "failed")
    return {"total": total, "page": page, "samples": samples, "early": early,
            "expected_requests": math.ceil(total / page) + 1}


# ---------------------------------------------------------------------- 2. waiting
def _operation_specs(rng, count, spread):
    specs = []
    for _spec in range(count):
        duration = round(rng.uniform(0.5, spread), 3)
        specs.append({
            "action": rng.choice(("create_branch", "start_compute", "apply_config", "suspend_compute")),
            "duration": duration,
            "scheduling": round(min(0.5, duration / 4), 3),
            "outcome": rng.choices(("finished", "skipped", "failed"), (90, 5, 5))[0],
        })
    return specs


def waiting(sim, runs, count=200, spread=20.0, poll_interval=2.0, timeout=90.0, log=print):
    """Wait for ``count`` operations of one project: OperationWaiter vs one GET per op per poll."""
    from ansible_collections.neon.cloud.plugins.module_utils._api.client import NeonClient
    from ansible_collections.neon.cloud.plugins.module_utils._api.operations import OperationWaiter
    from ansible_collections.neon.cloud.plugins.module_utils._api.paging import OPERATIONS_PAGE_MAX

    CONNECTIONS.install()
    samples = {"neon": [], "naive": []}
    for run in range(runs):
        rng = random.Random(1000 + run)
        project_id = sim.create_project("bench-wait-%d" % run)
        sim.add_history(project_id, 500, seed=run)  # older operations behind the ones waited for
        # the last end falls at a random point of the poll cycle, not always just before a poll
        specs = _operation_specs(rng, count, spread - rng.uniform(0.0, poll_interval))
        sim.clear_requests()
        started_before = time.time()
        operations = sim.start_operations(project_id, specs)
        last_end = started_before + max(spec["duration"] for spec in specs)  # earliest it can be
        ids = [operation["id"] for operation in operations]
        barrier = threading.Barrier(2)
        results = {}

        def neon():
            client = NeonClient(sim.api_key, api_url=sim.api_url)
            waiter = OperationWaiter(client, timeout, poll_interval)
            per_poll = []
            real_poll = waiter._poll  # pylint: disable=protected-access

            def counted_poll(pending):
                before = client.requests_made
                try:
                    return real_poll(pending)
                finally:
                    per_poll.append((len(pending), client.requests_made - before))

            waiter._poll = counted_poll  # pylint: disable=protected-access
            connections_before = CONNECTIONS.mine(workers=True)
            barrier.wait()
            outcome = waiter.wait_for([(project_id, operation_id) for operation_id in ids])
            done = time.time()
            client.close()
            if outcome.error is not None or outcome.timed_out or outcome.pending:
                raise RuntimeError("the collection's wait did not complete: error=%s timed_out=%s pending=%d" % (
                    outcome.error, outcome.timed_out, len(outcome.pending)))
            results["neon"] = {
                "requests": outcome.requests, "polls": outcome.polls, "lag": done - last_end,
                "per_poll": per_poll,
                "max_per_poll": max(made for _pending, made in per_poll),
                "bound_ok": all(made <= math.ceil(pending / OPERATIONS_PAGE_MAX) + 1 for pending, made in per_poll),
                "connections": CONNECTIONS.mine(workers=True) - connections_before,
            }

        def naive():
            session = requests.Session()
            session.headers.update(sim.headers)
            pending, made, polls, per_poll = list(ids), 0, 0, []
            deadline = time.monotonic() + timeout
            connections_before = CONNECTIONS.mine()
            barrier.wait()
            while pending and time.monotonic() < deadline:
                polls += 1
                still = []
                for operation_id in pending:
                    answer = session.get("%s/projects/%s/operations/%s" % (sim.api_url, project_id, operation_id),
                                         timeout=30)
                    made += 1
                    answer.raise_for_status()
                    if answer.json()["operation"]["status"] not in END_STATUSES:
                        still.append(operation_id)
                per_poll.append((len(pending), len(pending)))
                pending = still
                if pending:
                    time.sleep(poll_interval)
            done = time.time()
            session.close()
            if pending:
                raise RuntimeError("the naive wait timed out with %d pending" % len(pending))
            results["naive"] = {
                "requests": made, "polls": polls, "lag": done - last_end, "per_poll": per_poll,
                "max_per_poll": max(made for _pending, made in per_poll), "bound_ok": None,
                "connections": CONNECTIONS.mine() - connections_before,
            }

        errors = []

        def guarded(function):
            try:
                function()
            except Exception as exc:  # pylint: disable=broad-except
                errors.append(exc)
                barrier.abort()

        threads = [threading.Thread(target=guarded, args=(function,), name=name)
                   for name, function in (("neon", neon), ("naive", naive))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout + 30)
        if errors:
            raise errors[0]
        log_entries = sim.requests_log()
        results["neon"]["server_requests"] = sum(
            1 for entry in log_entries if entry["user_agent"].startswith(NEON_USER_AGENT_PREFIX))
        results["naive"]["server_requests"] = len(log_entries) - results["neon"]["server_requests"]
        for name in samples:
            samples[name].append(results[name])
        log("  wait run %d/%d: neon.cloud %d requests in %d polls, lag %.2f s; naive %d requests, lag %.2f s" % (
            run + 1, runs, results["neon"]["requests"], results["neon"]["polls"], results["neon"]["lag"],
            results["naive"]["requests"], results["naive"]["lag"]))
    # one operation: one GET per poll
    project_id = sim.create_project("bench-wait-one")
    operation = sim.start_operations(project_id, [{"action": "start_compute", "duration": 2.0}])[0]
    client = NeonClient(sim.api_key, api_url=sim.api_url)
    outcome = OperationWaiter(client, 30, 0.5).wait_for([(project_id, operation["id"])])
    client.close()
    single = {"requests": outcome.requests, "polls": outcome.polls, "ended": not outcome.pending}
    log("  wait for one operation: %d requests in %d polls" % (outcome.requests, outcome.polls))
    return {"count": count, "spread": spread, "poll_interval": poll_interval, "page": OPERATIONS_PAGE_MAX,
            "samples": samples, "single": single}


# ---------------------------------------------------------------------- 3. per-task overhead
# ---------------------------------------------------------------------- 5. key tasks: requests
# What each api_key / api_key_info task costs in requests, counted in the simulator's log. The
# ceiling of each is what the same task cost before max_age_days, keep and convergence (issue 16):
# the decisions they add are made from the same listing, so no key task may cost more.
KEY_CASES = (
    # (label, ceiling, setup: [(name, created_days_ago)], task options)
    ("present, the key exists", 1, [("k", 5)], dict(rotate=False)),
    ("present, no key yet (list, create, list again)", 3, [], dict(rotate=False)),
    ("rotate=true, one older key", 4, [("k", 5)], dict(rotate=True)),
    ("max_age_days=30, newest key 5 days old (no change)", 1, [("k", 5)], dict(rotate=False, max_age_days=30)),
    ("max_age_days=30 keep=2, newest 31 days old (nothing to revoke)", 3, [("k", 31)],
     dict(rotate=False, max_age_days=30, keep=2)),
    ("max_age_days=30 keep=2, two older keys (one revoked)", 4, [("k", 61), ("k", 31)],
     dict(rotate=False, max_age_days=30, keep=2)),
    ("keep=1, two keys (one revoked, no create)", 2, [("k", 61), ("k", 31)], dict(rotate=False, keep=1)),
)


def _ensure_present(client, name, options):
    from ansible_collections.neon.cloud.plugins.module_utils._keys.api_keys import KeyStore
    from ansible_collections.neon.cloud.plugins.module_utils._keys.lifecycle import KeyTask
    from ansible_collections.neon.cloud.plugins.module_utils._resources.task import ResourceTask

    return KeyTask(ResourceTask(client), KeyStore(client), "present", name, **options).run()


def keys(sim, log=print):
    """Request counts of key tasks against the simulator (deterministic: one run each)."""
    from ansible_collections.neon.cloud.plugins.module_utils._keys.api_keys import KeyStore
    from ansible_collections.neon.cloud.plugins.module_utils._keys.plan import unused_for

    rows = []
    for number, (label, ceiling, setup, options) in enumerate(KEY_CASES):
        name = "bench-key-%d" % number
        for _prefix, days in setup:
            made = sim.create_key(name)
            sim.age_key(made["id"], days)
        sim.clear_requests()
        result, _made = with_client(sim, functools.partial(_ensure_present, name=name, options=options))
        made_requests = [entry["method"] for entry in sim.requests_log()]
        log("   %s: %s (%s)" % (label, " ".join(made_requests), result["action"]))
        rows.append({"label": "api_key " + label, "requests": len(made_requests), "ceiling": ceiling,
                     "sequence": made_requests})
    sim.clear_requests()
    listed, _made = with_client(sim, lambda client: KeyStore(client).list())
    stale = [key for key in listed if unused_for(key, time.time(), 90)]
    made_requests = [entry["method"] for entry in sim.requests_log()]
    rows.append({"label": "api_key_info unused_days=90 (%d keys stale)" % len(stale), "requests": len(made_requests),
                 "ceiling": 1, "sequence": made_requests})
    return rows


# ---------------------------------------------------------------------- 6. the inventory of many projects
INVENTORY_PAGE = 400


def inventory(sim, collection, runs, total=10000, organizations=4, log=print):
    """Every project a personal key reaches, across several organizations: the collection's listing
    (what the neon.cloud.projects inventory plugin runs) against a plain requests loop over the same
    pages, and ansible-inventory --list from the API and from its cache."""
    from ansible_collections.neon.cloud.plugins.module_utils._account.inventory import reachable_projects

    per_org = total // organizations
    for number in range(organizations):
        sim.create_projects(per_org, sim.create_organization("bench-org-%d" % (number + 1)))
    info = sim.info()
    me = next(user["id"] for user in info["users"] if user["bootstrap"])
    sources = [len(info["projects"])] + [len(org["projects"]) for org in info["organizations"]
                                         if any(member["user_id"] == me for member in org["members"])]
    reach = sum(sources)
    # GET /auth and GET /users/me/organizations, then the pages of each source: a full last page
    # is followed by an empty one, since the service marks the end only with a short page
    floor = 2 + sum(count // INVENTORY_PAGE + 1 for count in sources)

    def neon():
        found, made = with_client(sim, reachable_projects)
        return len(found.projects), made

    def plain():
        session = requests.Session()
        session.headers.update(sim.headers)
        made = [0]

        def get(path, **params):
            made[0] += 1
            answer = session.get(sim.api_url + path, params=params, timeout=60)
            answer.raise_for_status()
            return answer.json()

        get("/auth")
        org_ids = [None] + [org["id"] for org in get("/users/me/organizations")["organizations"]]
        items = 0
        for org_id in org_ids:
            cursor = None
            while True:
                page = get("/projects", limit=INVENTORY_PAGE, cursor=cursor, org_id=org_id)
                items += len(page["projects"])
                if len(page["projects"]) < INVENTORY_PAGE:
                    break
                cursor = page["pagination"]["cursor"]
        session.close()
        return items, made[0]

    samples = {"neon": [], "plain": []}
    for run in range(runs):
        for name in (("neon", "plain") if run % 2 == 0 else ("plain", "neon")):
            sim.clear_requests()
            (items, made), elapsed = _timed(neon if name == "neon" else plain)
            samples[name].append({"seconds": elapsed, "items": items, "requests": made,
                                  "server_requests": len(sim.requests_log())})
        log("  inventory run %d/%d: collection %.3f s, plain %.3f s"
            % (run + 1, runs, samples["neon"][-1]["seconds"], samples["plain"][-1]["seconds"]))

    ansible_inventory = os.path.join(os.path.dirname(ansible_executable() or sys.executable), "ansible-inventory")
    config = os.path.join(collection.root, "bench.neon.yml")
    cache_dir = os.path.join(collection.root, "inventory-cache")
    with open(config, "w", encoding="utf-8") as handle:
        handle.write("plugin: neon.cloud.projects\ncache: true\ncache_plugin: ansible.builtin.jsonfile\n"
                     "cache_connection: %s\ncache_timeout: 3600\n" % cache_dir)
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collection.root, ANSIBLE_NOCOLOR="1",
               ANSIBLE_INVENTORY_UNPARSED_FAILED="true", NEON_API_URL=sim.api_url, NEON_API_KEY=sim.api_key)
    commands = []
    for label in ("from the API", "from the cache"):
        if label == "from the API":
            shutil.rmtree(cache_dir, ignore_errors=True)
        sim.clear_requests()
        completed, elapsed = _timed(lambda: subprocess.run(
            [ansible_inventory, "-i", config, "--list"], env=env, capture_output=True, timeout=600, check=False))
        if completed.returncode != 0:
            raise RuntimeError("ansible-inventory failed: %s" % completed.stderr[-600:])
        hosts = len(json.loads(completed.stdout)["_meta"]["hostvars"])
        commands.append({"label": label, "seconds": elapsed, "hosts": hosts, "requests": len(sim.requests_log())})
        log("  ansible-inventory --list %s: %.2f s, %d hosts, %d requests"
            % (label, elapsed, hosts, commands[-1]["requests"]))
    return {"samples": samples, "reach": reach, "sources": sources, "floor": floor, "page": INVENTORY_PAGE,
            "commands": commands}


# ---------------------------------------------------------------------- 7. provisioning: requests against the floor
# What each project / branch / branch_info / connection_info task costs in requests, counted in the
# simulator's request log, beside the fewest requests the API allows for the same work (the floor,
# reasoned from the API: see docs/docsite/rst/performance.rst). Polls (reads of the operations list or
# of one operation) are counted apart: how many a wait takes depends on how long the operations take,
# which the simulator's --operation-pace sets. The floor of the polls is one per wait: one read after
# the operations have ended.
PROVISIONING_PROJECT = "bench-provisioning"
PROVISIONING_BRANCH = "pr-1"
PROVISIONING_BRANCHES = 50  # branches of the project when branch_info lists them
PROVISIONING_COMPUTE = {"min_cu": 0.25, "max_cu": 1.0}
_ID_AFTER = {"projects": "{p}", "branches": "{b}", "endpoints": "{e}", "operations": "{op}", "roles": "{role}",
             "databases": "{db}"}
# (label, floor without polls, waits, how the floor is reasoned)
PROVISIONING_FLOORS = {
    "project_create": (3, 1, "list projects by name (1), the regions the account may use, to refuse one it may not "
                             "before the create (1: region_id is given), POST /projects (1), then the wait"),
    "project_unchanged": (1, 1, "list projects by name (1), then one read of the project's newest operations, to "
                                "know none still runs (a project has no state that tells)"),
    "project_unchanged_compute": (2, 1, "list projects by name (1), list its computes to compare the settings (1), "
                                        "one read of the project's newest operations"),
    "project_absent_gone": (1, 0, "list projects by name (1)"),
    "project_delete": (2, 0, "list projects by name (1), DELETE (1); the answer starts no operations"),
    "branch_create": (4, 1, "list branches (1), POST with the compute (1), the wait, then read the branch and its "
                            "computes as they are after it (2)"),
    "branch_unchanged": (2, 0, "list branches (1), list the branch's computes (1)"),
    "branch_reset": (5, 1, "list branches (1), the branch's computes (1, compute: true is checked), POST restore (1), "
                           "the wait, the re-read (2)"),
    "branch_delete": (2, 1, "list branches (1), DELETE (1), the wait"),
    "branch_absent_gone": (1, 0, "list branches (1)"),
    "branch_info_all": (2, 0, "every page of branches (floor(N/10000) + 1 = 1), the project's computes (1)"),
    "branch_info_name": (2, 0, "branches found by search (1), the project's computes (1)"),
    "connection_info_named": (2, 0, "list branches to turn the name into an id (1), GET connection_uri (1); the "
                                    "service picks the branch's read-write compute when endpoint_id is left out"),
    "connection_info_defaults": (4, 0, "list branches for the default branch's id (1), its roles (1), its databases "
                                       "(1), GET connection_uri (1)"),
    "role_create": (3, 1, "list branches for the branch's id (1), its roles (1), POST (1), then the wait"),
    "role_unchanged": (2, 1, "list branches (1), the branch's roles (1), one read of the project's newest "
                             "operations, to know none still runs on the branch (a role has no state that tells)"),
    "role_reset": (3, 1, "list branches (1), the branch's roles (1), POST reset_password (1), then the wait"),
    "database_create": (3, 1, "list branches (1), the branch's databases (1), POST (1), then the wait; the service "
                              "checks the owner itself (the task reads the roles to refuse a missing owner before "
                              "any change: one above)"),
    "database_unchanged": (2, 1, "list branches (1), the branch's databases (1), one read of the project's newest "
                                 "operations (as for a role)"),
    "database_owner": (3, 1, "list branches (1), the branch's databases (1), PATCH (1), then the wait (the owner check "
                             "is one above, as for a create)"),
    "endpoint_unchanged": (2, 0, "list branches (1), the branch's computes (1)"),
    "endpoint_resize": (4, 1, "list branches (1), the branch's computes (1), PATCH (1), the wait, then read the compute "
                              "as it is after it (1)"),
    "endpoint_suspend": (4, 1, "list branches (1), the branch's computes (1), POST suspend (1), the wait, the re-read "
                               "(1)"),
    "database_delete": (3, 1, "list branches (1), the branch's databases (1), DELETE (1), then the wait"),
    "role_delete": (3, 1, "list branches (1), the branch's roles (1), DELETE (1), then the wait; the service refuses "
                          "to delete an owner itself (the task reads the databases to name them before any change: "
                          "one above)"),
}


def _route(entry):
    """One request of the log as ``GET …/branches/{b}/endpoints``: ids replaced, the query left out, and
    ``/projects/{p}`` shown as ``…`` below a project."""
    parts = entry["path"].split("/api/v2", 1)[-1].strip("/").split("/")
    shown = []
    for index, part in enumerate(parts):
        shown.append(_ID_AFTER[parts[index - 1]] if index and parts[index - 1] in _ID_AFTER else part)
    path = "/".join(shown)
    return "%s %s" % (entry["method"], "…" + path[len("projects/{p}"):] if path.startswith("projects/{p}/") else "/" + path)


def _is_poll(entry):
    return entry["method"] == "GET" and "/operations" in entry["path"]


def _setup_branches(sim, project_id, count):
    """``count`` branches without computes, made through the API (not counted), each created operation
    scripted to end at once so that the next create is not refused with 423."""
    session = requests.Session()
    session.headers.update(sim.headers)
    try:
        sim.script_operations({"action": "*", "project_id": project_id, "duration": 0.001, "scheduling": 0.0,
                               "count": count})
        made = 0
        while made < count:
            answer = session.post("%s/projects/%s/branches" % (sim.api_url, project_id),
                                  json={"branch": {"name": "bench-%03d" % made}}, timeout=30)
            if answer.status_code == 423:
                time.sleep(0.01)
                continue
            answer.raise_for_status()
            made += 1
    finally:
        session.close()


def provisioning(sim, pace, log=print):
    """Request counts of the provisioning modules' tasks, in the order a pull request's playbook runs them."""
    from ansible_collections.neon.cloud.plugins.module_utils._resources.branches import Branch
    from ansible_collections.neon.cloud.plugins.module_utils._resources.connections import connection_details
    from ansible_collections.neon.cloud.plugins.module_utils._resources.endpoints import Endpoint
    from ansible_collections.neon.cloud.plugins.module_utils._resources.branches import branches_with_endpoints
    from ansible_collections.neon.cloud.plugins.module_utils._resources.projects import Project
    from ansible_collections.neon.cloud.plugins.module_utils._resources.roles_databases import Database, Role
    from ansible_collections.neon.cloud.plugins.module_utils._resources.task import ResourceTask

    branch_settings = dict.fromkeys(("name", "parent", "parent_timestamp", "parent_lsn", "protected", "expires_at"))
    branch_settings["name"] = PROVISIONING_BRANCH
    project_settings = dict.fromkeys(("name", "org_id", "region_id", "pg_version", "history_retention_seconds",
                                      "compute", "default_branch", "database", "role"))
    project_settings.update(name=PROVISIONING_PROJECT, region_id="aws-eu-central-1")
    state = {}

    def project_task(client, absent=False, compute=None):
        task = Project(ResourceTask(client), name=PROVISIONING_PROJECT)
        if absent:
            return task.absent()
        return task.present(dict(project_settings, compute=compute))

    def branch_task(client, absent=False, reset=False):
        task = Branch(ResourceTask(client), state["project_id"], PROVISIONING_BRANCH, compute=True,
                      reset_from_parent=reset)
        if absent:
            return task.absent()
        return task.present(dict(branch_settings))

    def role_task(client, absent=False, reset=False):
        task = Role(ResourceTask(client), state["project_id"], PROVISIONING_BRANCH, "app", reset_password=reset)
        return task.absent() if absent else task.present({})

    def database_task(client, absent=False, owner="app"):
        task = Database(ResourceTask(client), state["project_id"], PROVISIONING_BRANCH, "shop")
        return task.absent() if absent else task.present({"owner": owner})

    def endpoint_task(client, run_state="present", settings=None):
        task = Endpoint(ResourceTask(client), state["project_id"], PROVISIONING_BRANCH, "read_write", None, run_state)
        return task.present(dict(dict.fromkeys(("min_cu", "max_cu", "suspend_timeout_seconds")), **(settings or {})))

    def project_create(client):
        result = project_task(client, compute=PROVISIONING_COMPUTE)
        state["project_id"] = result["project"]["id"]
        return result

    cases = [
        ("project_create", "project: create (compute settings given)", project_create),
        ("project_unchanged", "project: unchanged", project_task),
        ("project_unchanged_compute", "project: unchanged, compute settings given",
         functools.partial(project_task, compute=PROVISIONING_COMPUTE)),
        ("branch_create", "branch: create, with its compute", branch_task),
        ("branch_unchanged", "branch: unchanged", branch_task),
        ("branch_reset", "branch: reset_from_parent", functools.partial(branch_task, reset=True)),
        ("setup_branches", None, None),
        ("branch_info_all", "branch_info: every branch (N = {branches})",
         lambda client: branches_with_endpoints(client, state["project_id"])),
        ("branch_info_name", "branch_info: one by name (of N = {branches})",
         lambda client: branches_with_endpoints(client, state["project_id"], PROVISIONING_BRANCH)),
        ("connection_info_named", "connection_info: branch by name, database and role given, pooled",
         lambda client: connection_details(client, state["project_id"], branch=PROVISIONING_BRANCH,
                                           database="neondb", role="neondb_owner", pooled=True)),
        ("connection_info_defaults", "connection_info: everything left out (default branch, its one role and database)",
         lambda client: connection_details(client, state["project_id"])),
        ("role_create", "role: create (its password returned once)", role_task),
        ("role_unchanged", "role: unchanged", role_task),
        ("role_reset", "role: reset_password", functools.partial(role_task, reset=True)),
        ("database_create", "database: create, owned by the role", database_task),
        ("database_unchanged", "database: unchanged", database_task),
        ("database_owner", "database: another owner", functools.partial(database_task, owner="neondb_owner")),
        ("endpoint_unchanged", "endpoint: the read-write compute, unchanged", endpoint_task),
        ("endpoint_resize", "endpoint: resized", functools.partial(endpoint_task, settings={"max_cu": 2.0})),
        ("endpoint_suspend", "endpoint: suspended", functools.partial(endpoint_task, run_state="suspended")),
        ("database_delete", "database: delete", functools.partial(database_task, absent=True)),
        ("role_delete", "role: delete", functools.partial(role_task, absent=True)),
        ("branch_delete", "branch: delete", functools.partial(branch_task, absent=True)),
        ("branch_absent_gone", "branch: absent, already gone", functools.partial(branch_task, absent=True)),
        ("project_delete", "project: delete", functools.partial(project_task, absent=True)),
        ("project_absent_gone", "project: absent, already gone", functools.partial(project_task, absent=True)),
    ]
    rows = []
    branches = None
    for key, label, work in cases:
        if key == "setup_branches":
            _setup_branches(sim, state["project_id"], PROVISIONING_BRANCHES - 2)  # with main and pr-1
            continue
        sim.clear_requests()
        started = time.monotonic()
        result, _made = with_client(sim, work)
        elapsed = time.monotonic() - started
        log_entries = sim.requests_log()
        if key == "branch_info_all":
            branches = len(result)
        sent = [_route(entry) for entry in log_entries if not _is_poll(entry)]
        polls = [entry for entry in log_entries if _is_poll(entry)]
        floor, waits, reason = PROVISIONING_FLOORS[key]
        failed = [entry for entry in log_entries if entry["status"] >= 400]
        changed = bool(result.get("changed")) if isinstance(result, dict) else False
        rows.append({"key": key, "label": label.format(branches=branches), "requests": len(sent), "sequence": sent,
                     "floor": floor, "reason": reason, "polls": len(polls), "poll_floor": waits,
                     "errors": ["%s %s" % (_route(entry), entry["status"]) for entry in failed],
                     "changed": changed, "seconds": elapsed})
        log("   %s: %d request(s) (floor %d), %d poll(s): %s"
            % (rows[-1]["label"], len(sent), floor, len(polls), ", ".join(sent)))
    return {"pace": pace, "branches": branches, "rows": rows}


def ansible_executable():
    here = os.path.join(os.path.dirname(sys.executable), "ansible")
    return here if os.path.exists(here) else shutil.which("ansible")


def tasks(sim, collection, runs, log=print):
    """Wall time of `ansible localhost -m neon.cloud.projects_info` vs the same GET with uri."""
    ansible = ansible_executable()
    if not ansible:
        raise RuntimeError("no ansible executable next to %s or on PATH" % sys.executable)
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collection.root, ANSIBLE_LOCALHOST_WARNING="False",
               ANSIBLE_INVENTORY_UNPARSED_WARNING="False", ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0",
               ANSIBLE_LOCAL_TEMP=os.path.join(collection.root, "ansible-local"),
               NEON_API_URL=sim.api_url, NEON_API_KEY=sim.api_key)
    interpreter = ["-e", "ansible_python_interpreter=%s" % sys.executable]
    uri_args = ('{"url": "%s/projects?limit=400", "return_content": true, '
                '"headers": {"Authorization": "Bearer %s", "Accept": "application/json"}}' % (sim.api_url, sim.api_key))
    commands = {
        # projects_info asks GET /projects?limit=400 (the largest page): one request for this account
        "neon": [ansible, "localhost", "-m", "neon.cloud.projects_info"] + interpreter,
        "uri": [ansible, "localhost", "-m", "ansible.builtin.uri", "-a", uri_args] + interpreter,
    }

    def once(name):
        (completed), elapsed = _timed(lambda: subprocess.run(
            commands[name], env=env, cwd=collection.root, capture_output=True, timeout=120, check=False))
        if completed.returncode != 0 or "SUCCESS" not in completed.stdout.decode("utf-8", "replace"):
            raise RuntimeError("%s failed (rc %s): %s %s" % (" ".join(commands[name][:4]), completed.returncode,
                                                             completed.stdout[-600:], completed.stderr[-600:]))
        return elapsed

    for name in commands:  # warm-up (disk cache, .pyc of ansible itself)
        once(name)
    samples = {name: [] for name in commands}
    for run in range(runs):
        for name in (("neon", "uri") if run % 2 == 0 else ("uri", "neon")):
            samples[name].append(once(name))
        log("  task run %d/%d: projects_info %.3f s, uri %.3f s"
            % (run + 1, runs, samples["neon"][-1], samples["uri"][-1]))
    return {"samples": samples, "ansible": ansible}


# ---------------------------------------------------------------------- 4. import time
_IMPORTTIME_RE = re.compile(r"^import time:\s+(\d+)\s+\|\s+(\d+)\s+\|(\s*)(\S+)\s*$")


def _importtime(module, collection):
    env = dict(os.environ, PYTHONPATH=collection.root, PYTHONDONTWRITEBYTECODE="1")
    completed = subprocess.run([sys.executable, "-X", "importtime", "-c", "import " + module],
                               env=env, cwd=collection.root, capture_output=True, timeout=60, check=False)
    if completed.returncode != 0:
        raise RuntimeError("import %s failed: %s" % (module, completed.stderr.decode("utf-8", "replace")[-800:]))
    cumulative = {}
    own_self = client_self = 0
    for line in completed.stderr.decode("utf-8", "replace").splitlines():
        match = _IMPORTTIME_RE.match(line)
        if not match:
            continue
        self_us, cumulative_us, name = int(match.group(1)), int(match.group(2)), match.group(4)
        cumulative.setdefault(name, cumulative_us)
        if name.startswith("ansible_collections.neon.cloud.plugins."):
            own_self += self_us
        if name == "ansible_collections.neon.cloud.plugins.module_utils._api.client":
            client_self = self_us
    return {"total": cumulative.get(module, 0) / 1000.0, "own": own_self / 1000.0, "client": client_self / 1000.0}


def imports(collection, runs, log=print):
    """`python -X importtime` of every module of the collection, of ansible.builtin.uri and of
    the two big libraries alone. The collection's files have no .pyc (compiled from source, as
    in AnsiballZ); the installed libraries use theirs."""
    modules_dir = os.path.join(collection.link, "plugins", "modules")
    names = sorted(name[:-3] for name in os.listdir(modules_dir) if name.endswith(".py") and name != "__init__.py")
    targets = [("neon.cloud." + name, "ansible_collections.neon.cloud.plugins.modules." + name) for name in names]
    targets += [("ansible.builtin.uri", "ansible.modules.uri"),
                ("requests (alone)", "requests"),
                ("ansible.module_utils.basic (alone)", "ansible.module_utils.basic"),
                ("shared client `_client` (alone, with requests)",
                 "ansible_collections.neon.cloud.plugins.module_utils._api.client")]
    result = {}
    for label, module in targets:
        _importtime(module, collection)  # warm-up (disk cache)
        result[label] = [_importtime(module, collection) for _run in range(runs)]
    log("  imports: %s" % ", ".join("%s %.0f ms" % (label, statistics.median(s["total"] for s in samples))
                                    for label, samples in result.items()))
    return result
