# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collection's modules against a simulator whose computes are real PostgreSQL servers (``--postgres``):
what a pull-request pipeline and a runbook do, checked with SQL (psql) rather than with the API's word.

The modules run in this process, as playbook tasks would (rel.task); every change waits for its operations,
so when a task returns, the server it names answers. The simulator's own tests of the mode are
tests/simulator/tests/test_real_computes.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

import neon_reliability as rel
from neon_reliability import failed, ok
from neon_testing import psql, real_computes_simulator
from neon_testing import psql_rows as rows


@pytest.fixture(scope="module", name="pg_sim")
def pg_sim_fixture(auth_key):
    with real_computes_simulator(api_key=auth_key, operation_pace=0.1) as simulator:
        yield simulator


def run(sim, module, **args):
    # a request that starts a server or copies a branch's data takes longer than the suite's 1 s
    return rel.task(sim, module, api_timeout=60, **args)


def test_a_pull_request_branch_gets_the_data_and_its_migration_stays_on_it(pg_sim):
    made = ok(run(pg_sim, "project", name=rel.unique_name("shop")))
    project_id = made["project"]["id"]
    main_uri = made["connection_uri"]  # shown once, and it logs in
    rows(pg_sim, main_uri, "CREATE TABLE orders (id int PRIMARY KEY, item text); "
                           "INSERT INTO orders VALUES (1, 'book'), (2, 'pen')")

    branch = ok(run(pg_sim, "branch", project_id=project_id, name="pr-42", compute=True))
    assert branch["changed"] is True
    info = ok(run(pg_sim, "connection_info", project_id=project_id, branch="pr-42"))
    assert info["host"] == "127.0.0.1" and info["port"] not in (None, 5432)
    rows(pg_sim, info["uri"], "ALTER TABLE orders ADD COLUMN price numeric; UPDATE orders SET price = 9.5")
    assert rows(pg_sim, info["uri"], "SELECT id, item, price FROM orders ORDER BY id") == ["1|book|9.5", "2|pen|9.5"]
    assert rows(pg_sim, main_uri, "SELECT count(*) FROM information_schema.columns WHERE column_name = 'price'") \
        == ["0"]
    pooled = ok(run(pg_sim, "connection_info", project_id=project_id, branch="pr-42", pooled=True))
    assert rows(pg_sim, pooled["uri"], "SELECT count(*) FROM orders") == ["2"]

    again = ok(run(pg_sim, "branch", project_id=project_id, name="pr-42", compute=True))
    assert again["changed"] is False
    ok(run(pg_sim, "branch", project_id=project_id, name="pr-42", state="absent"))
    status, error = psql(pg_sim, info["uri"], "SELECT 1")
    assert status != 0 and "refused" in error


def test_a_role_made_by_the_module_logs_in_with_the_password_it_returned_and_no_longer_once_reset(pg_sim):
    made = ok(run(pg_sim, "project", name=rel.unique_name("roles")))
    project_id = made["project"]["id"]
    role = ok(run(pg_sim, "role", project_id=project_id, branch="main", name="app"))
    uri = ok(run(pg_sim, "connection_info", project_id=project_id, branch="main", role="app"))["uri"]
    assert role["password"] in uri
    assert rows(pg_sim, uri, "SELECT current_user") == ["app"]
    reset = ok(run(pg_sim, "role", project_id=project_id, branch="main", name="app", reset_password=True))
    assert reset["changed"] is True and reset["password"] != role["password"]
    status, error = psql(pg_sim, uri, "SELECT 1")
    assert status != 0 and "password authentication failed" in error
    assert rows(pg_sim, uri.replace(role["password"], reset["password"]), "SELECT current_user") == ["app"]


def test_a_suspended_compute_stops_its_server_and_a_started_one_has_the_rows(pg_sim):
    made = ok(run(pg_sim, "project", name=rel.unique_name("suspend")))
    project_id, uri = made["project"]["id"], made["connection_uri"]
    rows(pg_sim, uri, "CREATE TABLE t (x int); INSERT INTO t VALUES (7)")
    endpoint_id = made["endpoints"][0]["id"] if made.get("endpoints") else \
        rel.api(pg_sim, "GET", "/projects/%s/endpoints" % project_id)["endpoints"][0]["id"]
    server = pg_sim.state.real.computes[(project_id, endpoint_id)].process
    ok(run(pg_sim, "endpoint", project_id=project_id, id=endpoint_id, state="suspended"))
    assert server.poll() is not None  # its server stopped
    ok(run(pg_sim, "endpoint", project_id=project_id, id=endpoint_id, state="started"))
    assert rows(pg_sim, uri, "SELECT x FROM t") == ["7"]


def test_snapshot_change_and_roll_back_brings_the_real_rows_back(pg_sim):
    made = ok(run(pg_sim, "project", name=rel.unique_name("rollback")))
    project_id, uri = made["project"]["id"], made["connection_uri"]
    rows(pg_sim, uri, "CREATE TABLE orders (id int); INSERT INTO orders VALUES (1), (2), (3)")
    ok(run(pg_sim, "snapshot", project_id=project_id, branch="main", name="before-deploy"))
    rows(pg_sim, uri, "DELETE FROM orders")  # the bad migration
    restored = ok(run(pg_sim, "snapshot_restore", project_id=project_id, snapshot="before-deploy",
                      name="main-restored", target_branch="main", finalize=True))
    assert restored["finalized"] is True
    assert rows(pg_sim, uri, "SELECT count(*) FROM orders") == ["3"]  # same connection string: the compute moved


def test_a_restore_to_a_point_in_the_past_fails_with_the_simulators_501_and_changes_nothing(pg_sim):
    made = ok(run(pg_sim, "project", name=rel.unique_name("pitr")))
    project_id = made["project"]["id"]
    before = rel.api(pg_sim, "GET", "/projects/%s/branches" % project_id)["branches"]
    result = failed(run(pg_sim, "branch_restore", project_id=project_id, branch="main",
                        source_timestamp=made["project"]["created_at"], preserve_under_name="main-before"))
    assert "501" in result["msg"] and "not simulated" in result["msg"], result["msg"]
    assert rel.api(pg_sim, "GET", "/projects/%s/branches" % project_id)["branches"] == before
