# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests of the real computes (``--postgres``, real_computes.py): every running compute is a
PostgreSQL server on 127.0.0.1, reached with the connection strings the API answers, logged in with the
passwords it answers; each branch has its own data.

Rows are written and read with the ``psql`` of the same PostgreSQL programs (tests/support/neon_testing.py). No test waits for wall time: the
simulator's clock is moved on past the operations, and the next request makes the servers match.
Without PostgreSQL programs the module is skipped on a workstation and fails in CI (``CI`` set): the project's
test requirements install them (the pgserver wheel).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time

import pytest

import requests
from neon_simulator import Simulator
from neon_simulator.pg_wake import has_sessions
from neon_testing import psql, psql_session, real_computes_simulator
from neon_testing import psql_rows as rows

API_KEY = "sim-selftest-key-real-computes"
SETTLE = 30


@pytest.fixture(scope="module", name="server")
def server_fixture():
    with real_computes_simulator(api_key=API_KEY) as simulator:
        yield simulator


@pytest.fixture(name="sim")
def sim_fixture(server):
    server.clock.back_to_real_time()  # first: the reset dates the seeded operations by the clock
    server.reset()
    return server


def until(condition, seconds=10.0):
    """Whether ``condition()`` came true within ``seconds`` (a server's process appearing or going: not the
    simulator's time, which the tests move themselves)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def call(sim, method, path, **kwargs):
    kwargs.setdefault("timeout", 60)
    return requests.request(method, sim.url + path, headers=sim.headers, **kwargs)


def ok(response, status=200):
    assert response.status_code == status, response.text
    return response.json()


def settle(sim, project_id):
    """The operations ended (the clock moved past them) and the servers made to match (the next request)."""
    sim.advance_clock(SETTLE)
    return ok(call(sim, "GET", "/projects/%s/endpoints" % project_id))["endpoints"]


def new_project(sim):
    made = ok(call(sim, "POST", "/projects", json={"project": {"name": "real"}}), 201)
    settle(sim, made["project"]["id"])
    return made["project"]["id"], made["branch"], made["connection_uris"][0]["connection_uri"]


def new_branch(sim, project_id, name, **spec):
    made = ok(call(sim, "POST", "/projects/%s/branches" % project_id,
                   json={"branch": dict(spec, name=name), "endpoints": [{"type": "read_write"}]}), 201)
    settle(sim, project_id)
    return made["branch"], made["connection_uris"][0]["connection_uri"]


def uri_of(sim, project_id, branch_id, role="neondb_owner", database="neondb"):
    return ok(call(sim, "GET", "/projects/%s/connection_uri" % project_id,
                   params={"branch_id": branch_id, "role_name": role, "database_name": database}))["uri"]


def test_a_new_projects_connection_string_reaches_its_own_server(sim):
    project_id, _main, uri = new_project(sim)
    assert uri.startswith("postgresql://neondb_owner:") and "@127.0.0.1:" in uri, uri
    endpoint = ok(call(sim, "GET", "/projects/%s/endpoints" % project_id))["endpoints"][0]
    assert endpoint["host"] == "127.0.0.1" and endpoint["current_state"] == "active"
    assert rows(sim, uri, "SELECT current_user, current_database(), pg_has_role('neon_superuser', 'member')") \
        == ["neondb_owner|neondb|t"]
    assert rows(sim, uri, "CREATE TABLE orders (id int); INSERT INTO orders VALUES (1), (2); "
                          "SELECT count(*) FROM orders") == ["2"]
    other_id, _other, other_uri = new_project(sim)
    assert other_uri != uri and rows(sim, other_uri, "SELECT count(*) FROM pg_tables WHERE tablename = 'orders'") \
        == ["0"]
    assert other_id != project_id


def test_a_child_starts_with_its_parents_data_and_then_each_has_its_own(sim):
    project_id, main, uri = new_project(sim)
    rows(sim, uri, "CREATE TABLE orders (id int); INSERT INTO orders VALUES (1), (2)")
    _child, child_uri = new_branch(sim, project_id, "pr-1")
    rows(sim, uri, "INSERT INTO orders VALUES (3)")            # after the branch point: not the child's
    rows(sim, child_uri, "DELETE FROM orders WHERE id = 1")    # the child's own: not the parent's
    assert rows(sim, child_uri, "SELECT id FROM orders ORDER BY id") == ["2"]
    assert rows(sim, uri, "SELECT id FROM orders ORDER BY id") == ["1", "2", "3"]
    assert child_uri.split("@")[1] != uri.split("@")[1]  # another port
    assert main["id"] != _child["id"]


def test_roles_made_reset_and_deleted_through_the_api_log_in_only_while_they_should(sim):
    project_id, main, uri = new_project(sim)
    made = ok(call(sim, "POST", "/projects/%s/branches/%s/roles" % (project_id, main["id"]),
                   json={"role": {"name": "app"}}), 201)
    settle(sim, project_id)
    app_uri = uri_of(sim, project_id, main["id"], role="app")
    assert made["role"]["password"] in app_uri
    assert rows(sim, app_uri, "SELECT current_user") == ["app"]
    reset = ok(call(sim, "POST", "/projects/%s/branches/%s/roles/app/reset_password" % (project_id, main["id"])))
    settle(sim, project_id)
    assert reset["role"]["password"] != made["role"]["password"]
    status, error = psql(sim, app_uri, "SELECT 1")
    assert status != 0 and "password authentication failed" in error
    assert rows(sim, uri_of(sim, project_id, main["id"], role="app"), "SELECT current_user") == ["app"]
    ok(call(sim, "DELETE", "/projects/%s/branches/%s/roles/app" % (project_id, main["id"])))
    settle(sim, project_id)
    assert rows(sim, uri, "SELECT count(*) FROM pg_roles WHERE rolname = 'app'") == ["0"]


def test_databases_made_renamed_and_deleted_through_the_api_are_so_in_the_server(sim):
    project_id, main, uri = new_project(sim)
    ok(call(sim, "POST", "/projects/%s/branches/%s/databases" % (project_id, main["id"]),
            json={"database": {"name": "shop", "owner_name": "neondb_owner"}}), 201)
    settle(sim, project_id)
    shop = uri_of(sim, project_id, main["id"], database="shop")
    rows(sim, shop, "CREATE TABLE items (id int); INSERT INTO items VALUES (7)")
    ok(call(sim, "PATCH", "/projects/%s/branches/%s/databases/shop" % (project_id, main["id"]),
            json={"database": {"name": "store"}}))
    settle(sim, project_id)
    assert rows(sim, uri_of(sim, project_id, main["id"], database="store"), "SELECT id FROM items") == ["7"]
    ok(call(sim, "DELETE", "/projects/%s/branches/%s/databases/store" % (project_id, main["id"])))
    settle(sim, project_id)
    assert rows(sim, uri, "SELECT datname FROM pg_database WHERE datname IN ('shop', 'store')") == []


def test_a_suspended_compute_has_no_server_and_a_started_one_has_its_data(sim):
    project_id, _main, uri = new_project(sim)
    rows(sim, uri, "CREATE TABLE t (x int); INSERT INTO t VALUES (42)")
    endpoint = settle(sim, project_id)[0]
    server = sim.state.real.computes[(project_id, endpoint["id"])].process
    ok(call(sim, "POST", "/projects/%s/endpoints/%s/suspend" % (project_id, endpoint["id"])))
    assert settle(sim, project_id)[0]["current_state"] == "idle"
    assert server.poll() is not None and (project_id, endpoint["id"]) not in sim.state.real.computes
    ok(call(sim, "POST", "/projects/%s/endpoints/%s/start" % (project_id, endpoint["id"])))
    settle(sim, project_id)
    assert (project_id, endpoint["id"]) in sim.state.real.computes
    assert rows(sim, uri, "SELECT x FROM t") == ["42"]


def test_deleting_a_branch_stops_its_server_and_removes_its_data(sim):
    project_id, _main, _uri = new_project(sim)
    child, child_uri = new_branch(sim, project_id, "doomed")
    real = sim.state.real
    folder = real.branches[(project_id, child["id"])].folder
    assert os.path.isdir(folder)
    ok(call(sim, "DELETE", "/projects/%s/branches/%s" % (project_id, child["id"])))
    settle(sim, project_id)
    assert not os.path.exists(folder)
    status, error = psql(sim, child_uri, "SELECT 1")
    assert status != 0 and "refused" in error


def test_a_restore_from_the_parent_gives_its_data_and_keeps_the_old_under_the_name(sim):
    project_id, main, uri = new_project(sim)
    rows(sim, uri, "CREATE TABLE t (x int); INSERT INTO t VALUES (1)")
    child, child_uri = new_branch(sim, project_id, "dev")
    rows(sim, child_uri, "INSERT INTO t VALUES (2)")
    rows(sim, uri, "INSERT INTO t VALUES (3)")
    ok(call(sim, "POST", "/projects/%s/branches/%s/restore" % (project_id, child["id"]),
            json={"source_branch_id": main["id"], "preserve_under_name": "dev-before"}))
    settle(sim, project_id)
    assert rows(sim, child_uri, "SELECT x FROM t ORDER BY x") == ["1", "3"]  # the parent's now, same address
    branches = ok(call(sim, "GET", "/projects/%s/branches" % project_id))["branches"]
    kept = next(item for item in branches if item["name"] == "dev-before")
    ok(call(sim, "POST", "/projects/%s/endpoints" % project_id,
            json={"endpoint": {"branch_id": kept["id"], "type": "read_write"}}), 201)
    settle(sim, project_id)
    kept_uri = uri_of(sim, project_id, kept["id"])
    assert rows(sim, kept_uri, "SELECT x FROM t ORDER BY x") == ["1", "2"]  # the branch as it was


def test_snapshot_change_and_roll_back_brings_the_rows_back_on_the_same_address(sim):
    project_id, main, uri = new_project(sim)
    rows(sim, uri, "CREATE TABLE orders (id int); INSERT INTO orders VALUES (1), (2), (3)")
    snapshot = ok(call(sim, "POST", "/projects/%s/branches/%s/snapshot" % (project_id, main["id"]),
                       params={"name": "before-migration"}))["snapshot"]
    settle(sim, project_id)
    rows(sim, uri, "DELETE FROM orders")
    restored = ok(call(sim, "POST", "/projects/%s/snapshots/%s/restore" % (project_id, snapshot["id"]),
                       json={"finalize_restore": True}))["branch"]
    settle(sim, project_id)
    assert rows(sim, uri, "SELECT count(*) FROM orders") == ["3"]  # the compute moved to the restored branch
    branches = ok(call(sim, "GET", "/projects/%s/branches" % project_id))["branches"]
    assert next(item for item in branches if item["default"])["id"] == restored["id"]


def test_a_schema_and_a_schema_diff_are_the_servers(sim):
    project_id, main, uri = new_project(sim)
    child, child_uri = new_branch(sim, project_id, "migrate")
    rows(sim, child_uri, "CREATE TABLE accounts (id bigint PRIMARY KEY, email text NOT NULL)")
    schema = ok(call(sim, "GET", "/projects/%s/branches/%s/schema" % (project_id, child["id"]),
                     params={"db_name": "neondb"}))["sql"]
    assert "CREATE TABLE public.accounts" in schema
    diff = ok(call(sim, "GET", "/projects/%s/branches/%s/compare_schema" % (project_id, child["id"]),
                   params={"db_name": "neondb", "base_branch_id": main["id"]}))["diff"]
    assert "+CREATE TABLE public.accounts" in diff
    assert rows(sim, uri, "SELECT count(*) FROM pg_tables WHERE tablename = 'accounts'") == ["0"]


def test_a_branchs_schema_as_json_is_its_databases_tables_with_their_columns_in_order(sim):
    """format=json of a real compute's schema: the base tables PostgreSQL holds now (not a view), each with its
    columns in their order and information_schema's types - what branch_anonymized checks its rules against."""
    project_id, main, uri = new_project(sim)
    rows(sim, uri, "CREATE TABLE customers (id bigint, email text, plan varchar(10)); CREATE SCHEMA billing; "
                   "CREATE TABLE billing.invoices (id int); CREATE VIEW emails AS SELECT email FROM customers")
    schema = ok(call(sim, "GET", "/projects/%s/branches/%s/schema" % (project_id, main["id"]),
                     params={"db_name": "neondb", "format": "json"}))["json"]
    assert schema == {"tables": [
        {"schema": "billing", "name": "invoices", "columns": [{"name": "id", "type": "integer"}]},
        {"schema": "public", "name": "customers", "columns": [
            {"name": "id", "type": "bigint"}, {"name": "email", "type": "text"},
            {"name": "plan", "type": "character varying"}]}]}


@pytest.mark.parametrize("method,path,kwargs,what", [
    ("POST", "/branches", {"json": {"branch": {"parent_timestamp": "2026-01-01T00:00:00Z"}}}, "point in the past"),
    ("POST", "/branches", {"json": {"branch": {"init_source": "schema-only"}}}, "schema-only"),
    ("POST", "/branches", {"json": {"endpoints": [{"type": "read_only"}]}}, "read-only compute"),
    ("POST", "/endpoints", {"json": {"endpoint": {"branch_id": "{main}", "type": "read_only"}}}, "read-only compute"),
    ("POST", "/branches/{main}/restore", {"json": {"source_branch_id": "{main}", "source_lsn": "0/1"}},
     "point in the past"),
    ("POST", "/branches/{main}/snapshot", {"params": {"timestamp": "2026-01-01T00:00:00Z"}}, "point in the past"),
    ("GET", "/branches/{main}/schema", {"params": {"db_name": "neondb", "lsn": "0/1"}}, "point in the past"),
])
def test_what_cannot_be_done_honestly_is_501_not_simulated_and_changes_nothing(sim, method, path, kwargs, what):
    project_id, main, _uri = new_project(sim)
    before = ok(call(sim, "GET", "/projects/%s/branches" % project_id))["branches"]

    def filled(value):
        if isinstance(value, dict):
            return {name: filled(item) for name, item in value.items()}
        if isinstance(value, list):
            return [filled(item) for item in value]
        return value.replace("{main}", main["id"]) if isinstance(value, str) else value

    response = call(sim, method, "/projects/%s%s" % (project_id, path.replace("{main}", main["id"])),
                    **filled(kwargs))
    assert response.status_code == 501, response.text
    assert response.json()["code"] == "NOT_SIMULATED" and what in response.json()["message"]
    assert ok(call(sim, "GET", "/projects/%s/branches" % project_id))["branches"] == before


def test_without_postgres_nothing_changes(sim):
    """The default simulator: no servers, no port in the connection strings (the real mode is an option)."""
    with Simulator(api_key="plain-key") as plain:
        made = requests.post(plain.url + "/projects", json={"project": {"name": "plain"}}, headers=plain.headers,
                             timeout=30).json()
        assert plain.state.real is None
        assert made["connection_uris"][0]["connection_uri"].endswith(".neon.tech/neondb?sslmode=require")
    assert sim.state.real is not None


def test_a_stopped_simulator_leaves_no_server_and_no_data():
    with real_computes_simulator(api_key="short-lived") as simulator:
        made = requests.post(simulator.url + "/projects", json={"project": {}}, headers=simulator.headers,
                             timeout=60).json()
        simulator.advance_clock(SETTLE)
        requests.get(simulator.url + "/projects", headers=simulator.headers, timeout=60)
        real = simulator.state.real
        workdir, processes = real.workdir, [cluster.process for cluster in real.computes.values()]
        assert processes and made["project"]["id"]
    assert not os.path.exists(workdir)
    assert all(process.poll() is not None for process in processes)


def test_a_connection_to_a_suspended_compute_wakes_it_as_neons_proxy_does(sim):
    project_id, _main, uri = new_project(sim)
    rows(sim, uri, "CREATE TABLE t (x int); INSERT INTO t VALUES (5)")
    endpoint = settle(sim, project_id)[0]
    ok(call(sim, "POST", "/projects/%s/endpoints/%s/suspend" % (project_id, endpoint["id"])))
    assert settle(sim, project_id)[0]["current_state"] == "idle"
    assert rows(sim, uri, "SELECT x FROM t") == ["5"]  # the connection woke it and reached its server
    operations = ok(call(sim, "GET", "/projects/%s/operations" % project_id))["operations"]
    assert operations[0]["action"] == "start_compute" and operations[0]["endpoint_id"] == endpoint["id"]
    assert settle(sim, project_id)[0]["current_state"] == "active"
    assert rows(sim, uri, "SELECT x FROM t") == ["5"]  # straight to the server now


def test_a_compute_with_a_session_open_does_not_suspend_itself_by_its_timeout(sim):
    project_id, _main, uri = new_project(sim)
    session = psql_session(sim, uri)
    server = sim.state.real.computes[(project_id, settle(sim, project_id)[0]["id"])].process
    try:
        session.stdin.write(b"SELECT 1;\n")
        session.stdin.flush()
        assert until(lambda: has_sessions(server.pid)), "the session's backend never showed"
        sim.advance_clock(600)  # twice the default suspend timeout (300 s)
        assert settle(sim, project_id)[0]["current_state"] == "active"
    finally:
        session.stdin.close()
        session.wait(30)
    assert until(lambda: not has_sessions(server.pid)), "the session's backend never went"
    sim.advance_clock(600)  # no session: it suspends itself
    assert settle(sim, project_id)[0]["current_state"] == "idle"


def test_a_session_opened_as_the_compute_starts_keeps_it_active(sim):
    """The start's operation has ended but no request has taken it in yet when the session opens."""
    made = ok(call(sim, "POST", "/projects", json={"project": {"name": "busy"}}), 201)
    project_id, uri = made["project"]["id"], made["connection_uris"][0]["connection_uri"]
    session = psql_session(sim, uri)
    server = next(iter(cluster.process for key, cluster in sim.state.real.computes.items() if key[0] == project_id))
    try:
        session.stdin.write(b"SELECT 1;\n")
        session.stdin.flush()
        assert until(lambda: has_sessions(server.pid)), "the session's backend never showed"
        sim.advance_clock(600)
        assert settle(sim, project_id)[0]["current_state"] == "active"
        assert server.poll() is None
    finally:
        session.stdin.close()
        session.wait(30)


def test_twenty_branches_made_at_once_each_run_their_own_server_with_their_own_data(sim):
    """What a suite of pull-request branches holds: 20 branches made by 4 clients at once, each running its
    compute, each with the parent's rows and then its own (benchmarks/simulator.py measures their memory)."""
    from concurrent.futures import ThreadPoolExecutor

    project_id, _main, uri = new_project(sim)
    rows(sim, uri, "CREATE TABLE t (branch text)")
    # the operations they start end at once: no 423 between the clients, and the clock never moves on (a jump
    # past the 300 s suspend timeout would suspend the computes made first)
    sim.script_operations("*", duration=0, count=100)

    def make(number):
        answer = call(sim, "POST", "/projects/%s/branches" % project_id,
                      json={"branch": {"name": "pr-%d" % number}, "endpoints": [{"type": "read_write"}]})
        return ok(answer, 201)["connection_uris"][0]["connection_uri"]

    with ThreadPoolExecutor(4) as pool:
        uris = list(pool.map(make, range(20)))
    ok(call(sim, "GET", "/projects/%s/endpoints" % project_id))
    assert len(sim.state.real.computes) == 21 and len({uri.split("@")[1] for uri in uris}) == 20
    for number, branch_uri in enumerate(uris):
        rows(sim, branch_uri, "INSERT INTO t VALUES ('pr-%d')" % number)
    assert [rows(sim, branch_uri, "SELECT branch FROM t") for branch_uri in uris] == [
        ["pr-%d" % number] for number in range(20)]
    assert rows(sim, uri, "SELECT count(*) FROM t") == ["0"]


def test_a_reset_leaves_no_data_of_before_in_the_seeded_projects(sim):
    """The seeded projects come back with the same ids: their branches start empty again."""
    sim.advance_clock(60)  # the seeded operations in progress are over
    main = next(item for item in ok(call(sim, "GET", "/projects/%s/branches" % sim.demo_project_id))["branches"]
                if item["default"])
    endpoint = ok(call(sim, "GET", "/projects/%s/branches/%s/endpoints" % (sim.demo_project_id, main["id"])))[
        "endpoints"][0]
    ok(call(sim, "POST", "/projects/%s/endpoints/%s/start" % (sim.demo_project_id, endpoint["id"])))
    settle(sim, sim.demo_project_id)
    rows(sim, uri_of(sim, sim.demo_project_id, main["id"]), "CREATE TABLE before_reset (x int)")
    sim.reset()
    assert sim.state.real.branches == {} and sim.state.real.computes == {}
    sim.advance_clock(60)
    endpoint = ok(call(sim, "GET", "/projects/%s/branches/%s/endpoints" % (sim.demo_project_id, main["id"])))[
        "endpoints"][0]
    ok(call(sim, "POST", "/projects/%s/endpoints/%s/start" % (sim.demo_project_id, endpoint["id"])))
    settle(sim, sim.demo_project_id)
    assert rows(sim, uri_of(sim, sim.demo_project_id, main["id"]),
                "SELECT count(*) FROM pg_tables WHERE tablename = 'before_reset'") == ["0"]


def test_a_connection_that_wakes_a_compute_logs_in_with_a_role_made_while_it_slept(sim):
    project_id, main, _uri = new_project(sim)
    endpoint = settle(sim, project_id)[0]
    ok(call(sim, "POST", "/projects/%s/endpoints/%s/suspend" % (project_id, endpoint["id"])))
    settle(sim, project_id)
    ok(call(sim, "POST", "/projects/%s/branches/%s/roles" % (project_id, main["id"]), json={"role": {"name": "late"}}),
       201)
    sim.advance_clock(SETTLE)  # its operations end; no request has run since
    assert rows(sim, uri_of(sim, project_id, main["id"], role="late"), "SELECT current_user") == ["late"]


def test_a_seeded_child_has_its_parents_data_of_when_it_was_made_not_of_later(sim):
    sim.advance_clock(60)  # the seeded operations in progress are over
    project = sim.demo_project_id
    branches = ok(call(sim, "GET", "/projects/%s/branches" % project))["branches"]
    main = next(item for item in branches if item["default"])
    child = next(item for item in branches if item.get("parent_id") == main["id"])
    for branch in (main, child):
        computes = ok(call(sim, "GET", "/projects/%s/branches/%s/endpoints" % (project, branch["id"])))["endpoints"]
        if not computes:
            ok(call(sim, "POST", "/projects/%s/endpoints" % project,
                    json={"endpoint": {"branch_id": branch["id"], "type": "read_write"}}), 201)
        else:
            ok(call(sim, "POST", "/projects/%s/endpoints/%s/start" % (project, computes[0]["id"])))
        settle(sim, project)
        if branch is main:
            rows(sim, uri_of(sim, project, main["id"]), "CREATE TABLE written_later (x int)")
    assert rows(sim, uri_of(sim, project, child["id"]),
                "SELECT count(*) FROM pg_tables WHERE tablename = 'written_later'") == ["0"]


def test_a_database_deleted_and_made_again_while_suspended_is_a_new_one(sim):
    project_id, main, _uri = new_project(sim)
    path = "/projects/%s/branches/%s/databases" % (project_id, main["id"])
    ok(call(sim, "POST", path, json={"database": {"name": "shop", "owner_name": "neondb_owner"}}), 201)
    settle(sim, project_id)
    rows(sim, uri_of(sim, project_id, main["id"], database="shop"), "CREATE TABLE old_items (id int)")
    endpoint = settle(sim, project_id)[0]
    ok(call(sim, "POST", "/projects/%s/endpoints/%s/suspend" % (project_id, endpoint["id"])))
    settle(sim, project_id)
    ok(call(sim, "DELETE", path + "/shop"))
    settle(sim, project_id)
    ok(call(sim, "POST", path, json={"database": {"name": "shop", "owner_name": "neondb_owner"}}), 201)
    settle(sim, project_id)
    assert rows(sim, uri_of(sim, project_id, main["id"], database="shop"),
                "SELECT count(*) FROM pg_tables WHERE tablename = 'old_items'") == ["0"]


def test_a_database_renamed_while_a_session_is_on_it_keeps_its_data(sim):
    project_id, main, _uri = new_project(sim)
    path = "/projects/%s/branches/%s/databases" % (project_id, main["id"])
    ok(call(sim, "POST", path, json={"database": {"name": "shop", "owner_name": "neondb_owner"}}), 201)
    settle(sim, project_id)
    shop = uri_of(sim, project_id, main["id"], database="shop")
    rows(sim, shop, "CREATE TABLE items (id int); INSERT INTO items VALUES (3)")
    session = psql_session(sim, shop)
    try:
        ok(call(sim, "PATCH", path + "/shop", json={"database": {"name": "store"}}))
        settle(sim, project_id)
        assert rows(sim, uri_of(sim, project_id, main["id"], database="store"), "SELECT id FROM items") == ["3"]
    finally:
        session.stdin.close()
        session.wait(30)


def test_the_schema_of_a_database_made_while_no_compute_ran(sim):
    project_id, main, _uri = new_project(sim)
    endpoint = settle(sim, project_id)[0]
    ok(call(sim, "POST", "/projects/%s/endpoints/%s/suspend" % (project_id, endpoint["id"])))
    settle(sim, project_id)
    ok(call(sim, "POST", "/projects/%s/branches/%s/databases" % (project_id, main["id"]),
            json={"database": {"name": "empty", "owner_name": "neondb_owner"}}), 201)
    settle(sim, project_id)
    schema = ok(call(sim, "GET", "/projects/%s/branches/%s/schema" % (project_id, main["id"]),
                     params={"db_name": "empty"}))["sql"]
    assert "PostgreSQL database dump" in schema and "\\restrict" not in schema


def test_a_restart_restarts_the_server_with_the_computes_pg_settings(sim):
    project_id, _main, uri = new_project(sim)
    endpoint = settle(sim, project_id)[0]
    before = sim.state.real.computes[(project_id, endpoint["id"])].process.pid
    ok(call(sim, "PATCH", "/projects/%s/endpoints/%s" % (project_id, endpoint["id"]),
            json={"endpoint": {"settings": {"pg_settings": {"work_mem": "7MB"}}}}))
    settle(sim, project_id)
    assert rows(sim, uri, "SHOW work_mem") == ["7MB"]
    middle = sim.state.real.computes[(project_id, endpoint["id"])].process.pid
    ok(call(sim, "POST", "/projects/%s/endpoints/%s/restart" % (project_id, endpoint["id"])))
    settle(sim, project_id)
    after = sim.state.real.computes[(project_id, endpoint["id"])].process.pid
    assert len({before, middle, after}) == 3
    assert rows(sim, uri, "SHOW work_mem") == ["7MB"]


def test_a_name_the_server_refuses_is_kept_in_the_errors_and_the_simulator_goes_on(sim):
    project_id, main, uri = new_project(sim)
    ok(call(sim, "POST", "/projects/%s/branches/%s/roles" % (project_id, main["id"]),
            json={"role": {"name": "bad\u0000name"}}), 201)
    settle(sim, project_id)
    ok(call(sim, "POST", "/projects/%s/branches/%s/roles" % (project_id, main["id"]), json={"role": {"name": "good"}}),
       201)
    settle(sim, project_id)
    errors = requests.get(sim.control_url + "/postgres", timeout=30).json()["errors"]
    assert any("CREATE ROLE" in error and '"bad' in error for error in errors), errors
    assert rows(sim, uri_of(sim, project_id, main["id"], role="good"), "SELECT current_user") == ["good"]
    assert rows(sim, uri, "SELECT 1") == ["1"]


# ---------------------------------------------------------------------- anonymized branches (anonymized.py, anon_sql.py)
CUSTOMERS = [(1, "ada@shop.test", "Ada", "+44 20 7946 0001"), (2, "grace@shop.test", "Grace", "+44 20 7946 0002"),
             (3, "linus@shop.test", "Linus", "+44 20 7946 0003")]


def customers_parent(sim):
    """A project whose default branch has a ``customers`` table of emails, names and phone numbers."""
    project_id, main, uri = new_project(sim)
    values = ", ".join("(%d, '%s', '%s', '%s')" % row for row in CUSTOMERS)
    rows(sim, uri, "CREATE TABLE customers (id int PRIMARY KEY, email text NOT NULL, name text, phone text); "
                   "INSERT INTO customers VALUES " + values)
    return project_id, main, uri


def anonymized_branch(sim, project_id, parent_id, rules):
    """An anonymized branch of ``parent_id`` with a compute, its run started with it, waited for on the clock."""
    made = ok(call(sim, "POST", "/projects/%s/branch_anonymized" % project_id, json={
        "branch_create": {"branch": {"parent_id": parent_id, "name": "masked"}, "endpoints": [{"type": "read_write"}]},
        "masking_rules": rules, "start_anonymization": True}), 201)
    branch_id = made["branch"]["id"]
    settle(sim, project_id)
    status = ok(call(sim, "GET", "/projects/%s/branches/%s/anonymized_status" % (project_id, branch_id)))
    return branch_id, made["connection_uris"][0]["connection_uri"], status


def rule(column, **masking):
    return dict({"database_name": "neondb", "schema_name": "public", "table_name": "customers",
                 "column_name": column}, **masking)


def test_an_anonymized_branch_is_its_parents_data_with_the_masked_columns_rewritten(sim):
    project_id, main, uri = customers_parent(sim)
    branch_id, masked_uri, status = anonymized_branch(sim, project_id, main["id"], [
        rule("email", masking_function="anon.fake_email()"), rule("phone", masking_function="anon.partial(phone, 3, '*****', 2)")])
    assert (status["state"], status["last_run"]["masked_columns"]) == ("anonymized", 2), status
    emails = rows(sim, masked_uri, "SELECT email FROM customers ORDER BY id")
    assert len(emails) == len(CUSTOMERS)
    assert not set(emails) & {row[1] for row in CUSTOMERS}, emails  # none of the parent's emails
    assert all("@example." in email for email in emails), emails
    assert rows(sim, masked_uri, "SELECT id, name FROM customers ORDER BY id") == \
        ["%d|%s" % (row[0], row[2]) for row in CUSTOMERS]                          # the unmasked columns unchanged
    assert rows(sim, masked_uri, "SELECT phone FROM customers ORDER BY id") == ["+44*****0%d" % row[0] for row in CUSTOMERS]
    assert rows(sim, uri, "SELECT email FROM customers ORDER BY id") == [row[1] for row in CUSTOMERS]  # the parent's own
    assert branch_id != main["id"]


def test_hash_is_deterministic_and_a_literal_value_is_set_as_given(sim):
    project_id, main, _uri = customers_parent(sim)
    _branch_id, masked_uri, status = anonymized_branch(sim, project_id, main["id"], [
        rule("email", masking_function="anon.hash(email)"), rule("name", masking_value="REDACTED"),
        rule("phone", masking_value="NULL")])
    assert status["state"] == "anonymized", status
    hashed = rows(sim, masked_uri, "SELECT email = encode(sha512(convert_to(%s, 'UTF8')), 'hex') FROM customers "
                                   "WHERE id = 1" % "'ada@shop.test'")
    assert hashed == ["t"]
    assert rows(sim, masked_uri, "SELECT DISTINCT name, phone IS NULL FROM customers") == ["REDACTED|t"]
    assert rows(sim, masked_uri, "SELECT anon.hash('x') = anon.hash('x'), length(anon.random_string(10)), "
                                 "anon.partial_email('ada@shop.test')") == ["t|10|ad******@sh******.test"]


def test_a_function_the_local_neon_cannot_do_ends_the_run_in_error_and_leaves_the_data_as_it_was(sim):
    project_id, main, _uri = customers_parent(sim)
    branch_id, masked_uri, status = anonymized_branch(sim, project_id, main["id"], [
        rule("name", masking_function="anon.fake_first_name()"), rule("email", masking_function="anon.lorem_ipsum()")])
    assert status["state"] == "error", status
    assert status["status_message"].startswith("masking function anon.lorem_ipsum is not available in the local "
                                               "Neon"), status
    assert status["last_run"]["masked_columns"] == 0
    assert rows(sim, masked_uri, "SELECT email, name FROM customers ORDER BY id") == \
        ["%s|%s" % (row[1], row[2]) for row in CUSTOMERS]  # nothing half masked and called done
    path = "/projects/%s/branches/%s" % (project_id, branch_id)
    ok(call(sim, "PATCH", path + "/masking_rules", json={"masking_rules": [rule("id", masking_function="anon.fake_email()")]}))
    ok(call(sim, "POST", path + "/anonymize"))
    settle(sim, project_id)
    failed = ok(call(sim, "GET", path + "/anonymized_status"))
    assert failed["state"] == "error" and "column \"id\" is of type integer" in failed["status_message"], failed
    assert rows(sim, masked_uri, "SELECT count(*) FROM customers WHERE id IN (1, 2, 3)") == ["3"]


def test_a_masking_function_with_a_psql_command_runs_nothing_and_ends_the_run_in_error(sim):
    """psql runs a backslash command anywhere on a line it is given: a masking function carrying one must not reach
    it (the file the command would make is not made), and the run says which rule and why."""
    folder = tempfile.mkdtemp()
    os.chmod(folder, 0o777)  # the programs may run as nobody
    made = os.path.join(folder, "pwned")
    try:
        project_id, main, _uri = customers_parent(sim)
        _branch_id, masked_uri, status = anonymized_branch(sim, project_id, main["id"], [
            rule("email", masking_function="anon.fake_email() \\! touch %s" % made)])
        assert not os.path.exists(made), "the masking function ran a shell command"
        assert status["state"] == "error", status
        assert "is not one call anon.<name>(<arguments>)" in status["status_message"], status
        assert "neondb.public.customers.email" in status["status_message"], status
        assert rows(sim, masked_uri, "SELECT email FROM customers ORDER BY id") == [row[1] for row in CUSTOMERS]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_masking_function_with_more_sql_after_the_call_masks_nothing_and_is_not_called_anonymized(sim):
    """``anon.fake_email() WHERE false`` would make the UPDATE change no row: a run that says ``anonymized`` with
    every email as it was. It is refused, naming the rule."""
    project_id, main, _uri = customers_parent(sim)
    _branch_id, masked_uri, status = anonymized_branch(sim, project_id, main["id"], [
        rule("name", masking_function="anon.fake_first_name()"),
        rule("email", masking_function="anon.fake_email() WHERE false")])
    assert status["state"] == "error", status
    assert status["status_message"].startswith("masking function 'anon.fake_email() WHERE false' is not one call"), status
    assert "neondb.public.customers.email" in status["status_message"], status
    assert status["last_run"]["masked_columns"] == 0
    assert rows(sim, masked_uri, "SELECT email, name FROM customers ORDER BY id") == \
        ["%s|%s" % (row[1], row[2]) for row in CUSTOMERS]


def test_masking_arguments_are_columns_strings_numbers_and_null_and_a_value_is_only_ever_a_value(sim):
    """What a masking function may be, masked for real: a column named in any case, a string with a quote in it;
    a masking value that looks like SQL is set as that text."""
    project_id, main, _uri = customers_parent(sim)
    _branch_id, masked_uri, status = anonymized_branch(sim, project_id, main["id"], [
        rule("email", masking_function="anon.partial( EMAIL , 1, 'it''s', 0 )"),
        rule("name", masking_value="x' || current_user || '\\! id"), rule("phone", masking_value="'O''Brien'")])
    assert status["state"] == "anonymized", status
    assert rows(sim, masked_uri, "SELECT email, name, phone FROM customers WHERE id = 1") == \
        ["ait's|x' || current_user || '\\! id|O'Brien"]
