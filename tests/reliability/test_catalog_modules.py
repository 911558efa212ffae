# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The role, database and endpoint modules (and branch_info's roles and databases) against the simulator.

As in test_provisioning_modules.py, each test runs a module in this process as a playbook task
would and checks what a user would notice: what the service holds afterwards (a role's password
is checked to log in, through the simulator's control API), what the result says, how many
requests it took, and that no secret is shown outside the documented return values. Waiting is
driven through the simulator (held and scripted operations), never by racing the wall clock.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok
from test_provisioning_modules import (
    RUN_TIMEOUT,
    assert_secret_hidden,
    branch_named,
    changes_since,
    endpoints_of,
    new_project,
    requests_since,
    run,
)


def project_with_branch(sim):
    """A new project: its id and its default branch (``main``, with role ``neondb_owner`` owning ``neondb``)."""
    created = new_project(sim)
    return created["project"]["id"], created["branch"]


def catalog(sim, pid, branch_id, kind):
    return rel.api(sim, "GET", "/projects/%s/branches/%s/%s" % (pid, branch_id, kind))[kind]


def names(sim, pid, branch_id, kind):
    return sorted(item["name"] for item in catalog(sim, pid, branch_id, kind))


def barrier_timed_out(sim, path):
    """Whether the barrier on ``path`` let its parties go only by timing out (each was answered at once)."""
    return [barrier["timed_out"] for barrier in sim.barriers() if barrier.get("path") == path]


# ---------------------------------------------------------------------------------------------- roles


def test_a_role_is_created_with_its_password_once_and_the_password_logs_in(sim):
    pid, main = project_with_branch(sim)
    result = run(sim, "role", diff=True, project_id=pid, branch="main", name="app")
    created = ok(result)
    password = created["password"]
    assert created["changed"] is True and created["role"]["name"] == "app" and "password" not in created["role"]
    assert created["branch_id"] == main["id"]
    assert [(op["action"], op["status"]) for op in created["operations"]] == [("apply_config", "finished")]
    assert sim.password_valid(pid, main["id"], "app", password)
    assert created["diff"] == {"before": {}, "after": {"name": "app"}}
    assert_secret_hidden(result, password)

    seq = last_seq(sim)
    again = ok(run(sim, "role", project_id=pid, branch=main["id"], name="app"))  # the branch by id this time
    assert again["changed"] is False and "password" not in again and password not in json.dumps(again)
    # The branches, its roles, and the project's newest operations (one page: anything still running
    # on the branch is waited for before the task returns, issue 28).
    assert [path.rsplit("/", 1)[-1] for _method, path in requests_since(sim, seq)] == [
        "branches", "roles", "operations"] and changes_since(sim, seq) == []


def test_role_check_mode_sends_nothing(sim):
    pid, main = project_with_branch(sim)
    seq = last_seq(sim)
    checked = ok(run(sim, "role", check_mode=True, diff=True, project_id=pid, name="app"))
    # No password is made: null, where a real run returns one (a later task that stores it runs in a dry run too).
    assert checked["changed"] is True and checked["password"] is None
    assert checked["diff"]["after"] == {"name": "app"}
    reset = ok(run(sim, "role", check_mode=True, diff=True, project_id=pid, name="neondb_owner", reset_password=True))
    assert reset["changed"] is True and reset["password"] is None
    assert reset["diff"]["before"]["password"] != reset["diff"]["after"]["password"]  # says it changes, shows neither
    assert changes_since(sim, seq) == [] and names(sim, pid, main["id"], "roles") == ["neondb_owner"]


def test_reset_password_gives_a_new_one_each_run_and_the_old_one_works_until_it_is_in_force(sim):
    pid, main = project_with_branch(sim)
    first = ok(run(sim, "role", project_id=pid, name="app"))["password"]
    sim.script_operations("apply_config", project_id=pid, hold=True)
    started = ok(run(sim, "role", project_id=pid, name="app", reset_password=True, wait=False))
    second = started["password"]
    assert started["changed"] is True and second != first
    assert sim.password_valid(pid, main["id"], "app", first)  # the reset's operation has not ended yet
    assert not sim.password_valid(pid, main["id"], "app", second)
    sim.release_operations(pid)
    sim.advance_clock(5)
    assert sim.password_valid(pid, main["id"], "app", second) and not sim.password_valid(pid, main["id"], "app", first)

    third = ok(run(sim, "role", project_id=pid, name="app", reset_password=True))
    assert third["changed"] is True and third["password"] not in (first, second)
    assert third["operations"][-1]["status"] == "finished"  # waited: the new password is in force
    assert sim.password_valid(pid, main["id"], "app", third["password"])


def test_reveal_password_reads_the_current_one_and_fails_clearly_when_the_project_stores_none(sim):
    pid, main = project_with_branch(sim)
    password = ok(run(sim, "role", project_id=pid, name="app"))["password"]
    revealed = ok(run(sim, "role", project_id=pid, name="app", reveal_password=True))
    assert revealed["changed"] is False and revealed["password"] == password

    sim.set_store_passwords(pid, False)
    result = run(sim, "role", project_id=pid, name="app", reveal_password=True)
    failure = failed(result)
    assert "HTTP 412" in failure["msg"] and "does not store passwords" in failure["msg"]
    assert "reset_password=true" in failure["msg"] and "password" not in failure
    assert failure["changed"] is False and "Nothing was changed" in failure["msg"]


@pytest.mark.parametrize("how", ["failed", "timeout"])
def test_a_new_password_is_never_lost_when_what_follows_the_create_fails(sim, how):
    pid, main = project_with_branch(sim)
    if how == "failed":
        sim.script_operations("apply_config", project_id=pid, outcome="failed", error="compute did not answer")
        result = run(sim, "role", project_id=pid, name="app")
    else:
        sim.script_operations("apply_config", project_id=pid, hold=True)
        result = run(sim, "role", project_id=pid, name="app", wait_timeout=1.0)
        sim.release_operations(pid)
    failure = failed(result)
    assert failure["changed"] is True and failure["role"]["name"] == "app"
    assert "role 'app' of branch 'main' (%s) was created" % main["id"] in failure["msg"]
    assert "new password is in this result (password)" in failure["msg"]
    assert ("compute did not answer" if how == "failed" else "wait_timeout (1.0 s)") in failure["msg"]
    sim.advance_clock(5)
    assert sim.password_valid(pid, main["id"], "app", failure["password"])
    assert_secret_hidden(result, failure["password"])


def test_a_reset_password_is_never_lost_when_its_operation_fails(sim):
    pid, main = project_with_branch(sim)
    ok(run(sim, "role", project_id=pid, name="app"))
    sim.script_operations("apply_config", project_id=pid, outcome="failed", error="config not applied")
    result = run(sim, "role", project_id=pid, name="app", reset_password=True)
    failure = failed(result)
    assert failure["changed"] is True and failure["password"]
    assert "the password of role 'app'" in failure["msg"] and "was reset" in failure["msg"]
    assert "new password is in this result (password)" in failure["msg"]
    assert_secret_hidden(result, failure["password"])


def test_a_lost_answer_to_a_role_create_never_creates_it_twice_and_reads_the_password_back(sim):
    pid, main = project_with_branch(sim)
    sim.add_fault(method="POST", path="/api/v2/projects/%s/branches/%s/roles" % (pid, main["id"]), count=1,
                  status=500, apply=True)
    result = run(sim, "role", project_id=pid, name="app")
    created = ok(result)
    assert names(sim, pid, main["id"], "roles") == ["app", "neondb_owner"]
    assert created["changed"] is True and "read back with reveal_password" in json.dumps(created["warnings"])
    assert sim.password_valid(pid, main["id"], "app", created["password"])
    posts = [entry["status"] for entry in sim.requests() if entry["method"] == "POST" and entry["path"].endswith("/roles")]
    assert posts == [500]


def test_two_overlapping_creates_of_one_role_leave_one_role_and_say_which_run_holds_the_password(
        sim, collection_parent, tmp_path):
    pid, main = project_with_branch(sim)
    listing = "/api/v2/projects/%s/branches/%s/roles" % (pid, main["id"])
    sim.add_barrier(method="GET", path=listing, parties=2, timeout=60)
    args = rel.connection_args(sim, project_id=pid, name="app", api_timeout=RUN_TIMEOUT - 10)
    results = rel.module_process_results(rel.start_module_processes(collection_parent, tmp_path, "role", [args, args]),
                                         RUN_TIMEOUT)
    assert barrier_timed_out(sim, listing) == [False]  # both listed before either created
    assert names(sim, pid, main["id"], "roles") == ["app", "neondb_owner"]
    for result in results:
        assert not result.get("failed"), result
    holders = [result for result in results if "password" in result]
    others = [result for result in results if "password" not in result]
    assert len(holders) == 1 and len(others) == 1
    assert sim.password_valid(pid, main["id"], "app", holders[0]["password"])
    assert "another run at the same time; that run's result holds its password" in json.dumps(others[0]["warnings"])
    assert others[0]["changed"] is False


def test_a_role_that_owns_databases_is_not_deleted_and_the_message_names_them(sim):
    pid, main = project_with_branch(sim)
    ok(run(sim, "role", project_id=pid, name="app"))
    ok(run(sim, "database", project_id=pid, name="shop", owner="app"))
    ok(run(sim, "database", project_id=pid, name="shop_reports", owner="app"))
    seq = last_seq(sim)
    failure = failed(run(sim, "role", project_id=pid, name="app", state="absent"))
    assert "owns the databases shop, shop_reports" in failure["msg"] and "Nothing was changed" in failure["msg"]
    assert failure["changed"] is False and changes_since(sim, seq) == []

    ok(run(sim, "database", project_id=pid, name="shop", state="absent"))
    ok(run(sim, "database", project_id=pid, name="shop_reports", owner="neondb_owner"))
    deleted = ok(run(sim, "role", project_id=pid, name="app", state="absent", diff=True))
    assert deleted["changed"] is True and deleted["diff"] == {"before": {"name": "app"}, "after": {}}
    assert names(sim, pid, main["id"], "roles") == ["neondb_owner"]
    assert ok(run(sim, "role", project_id=pid, name="app", state="absent"))["changed"] is False


def test_a_role_on_a_branch_that_does_not_exist_fails_before_any_change(sim):
    pid, _main = project_with_branch(sim)
    seq = last_seq(sim)
    failure = failed(run(sim, "role", project_id=pid, branch="nope", name="app"))
    assert "has no branch 'nope'" in failure["msg"] and "Nothing was changed" in failure["msg"]
    assert changes_since(sim, seq) == []


# ---------------------------------------------------------------------------------------------- databases


def test_a_database_is_created_for_its_owner_and_re_owned_as_an_update(sim):
    pid, main = project_with_branch(sim)
    ok(run(sim, "role", project_id=pid, name="app"))
    created = ok(run(sim, "database", diff=True, project_id=pid, name="shop", owner="app"))
    assert created["changed"] is True and created["database"]["owner_name"] == "app"
    assert created["diff"] == {"before": {}, "after": {"name": "shop", "owner": "app"}}
    assert [op["action"] for op in created["operations"]] == ["apply_config"]

    seq = last_seq(sim)
    assert ok(run(sim, "database", project_id=pid, name="shop", owner="app"))["changed"] is False
    assert ok(run(sim, "database", project_id=pid, name="shop"))["changed"] is False
    assert len(requests_since(sim, seq)) <= 6 and changes_since(sim, seq) == []  # 3 each: see the role's rerun

    seq = last_seq(sim)
    checked = ok(run(sim, "database", check_mode=True, diff=True, project_id=pid, name="shop", owner="neondb_owner"))
    assert checked["changed"] is True and checked["diff"]["after"]["owner"] == "neondb_owner"
    assert changes_since(sim, seq) == []
    moved = ok(run(sim, "database", project_id=pid, name="shop", owner="neondb_owner"))
    assert moved["changed"] is True and moved["database"]["owner_name"] == "neondb_owner"
    assert [method for method, _path in changes_since(sim, seq)] == ["PATCH"]
    listed = [item for item in catalog(sim, pid, main["id"], "databases") if item["name"] == "shop"]
    assert listed[0]["owner_name"] == "neondb_owner" and listed[0]["id"] == created["database"]["id"]


@pytest.mark.parametrize("owner", [None, "ghost"])
def test_a_database_whose_owner_is_missing_fails_before_any_change(sim, owner):
    pid, main = project_with_branch(sim)
    seq = last_seq(sim)
    failure = failed(run(sim, "database", project_id=pid, name="shop", owner=owner))
    assert ("without an owner" if owner is None else "its owner 'ghost' is not a role of the branch") in failure["msg"]
    assert "Nothing was changed" in failure["msg"] and changes_since(sim, seq) == []
    assert names(sim, pid, main["id"], "databases") == ["neondb"]


def test_two_overlapping_creates_of_one_database_leave_one_and_both_succeed(sim, collection_parent, tmp_path):
    pid, main = project_with_branch(sim)
    listing = "/api/v2/projects/%s/branches/%s/databases" % (pid, main["id"])
    sim.add_barrier(method="GET", path=listing, parties=2, timeout=60)
    args = rel.connection_args(sim, project_id=pid, name="shop", owner="neondb_owner", api_timeout=RUN_TIMEOUT - 10)
    results = rel.module_process_results(
        rel.start_module_processes(collection_parent, tmp_path, "database", [args, args]), RUN_TIMEOUT)
    assert barrier_timed_out(sim, listing) == [False]  # both listed before either created
    assert names(sim, pid, main["id"], "databases") == ["neondb", "shop"]
    for result in results:
        assert not result.get("failed"), result
        assert result["database"]["name"] == "shop" and result["database"]["owner_name"] == "neondb_owner"
    assert sorted(result["changed"] for result in results) == [False, True]
    assert len([result for result in results if "another run" in json.dumps(result.get("warnings"))]) == 1


def test_a_database_is_deleted_once(sim):
    pid, main = project_with_branch(sim)
    ok(run(sim, "database", project_id=pid, name="scratch", owner="neondb_owner"))
    deleted = ok(run(sim, "database", project_id=pid, name="scratch", state="absent"))
    assert deleted["changed"] is True and deleted["database"]["name"] == "scratch"
    assert names(sim, pid, main["id"], "databases") == ["neondb"]
    again = ok(run(sim, "database", project_id=pid, name="scratch", state="absent"))
    assert again["changed"] is False and again["database"] is None


# ---------------------------------------------------------------------------------------------- computes


def test_the_read_write_compute_is_the_branch_s_one_and_is_resized_in_place(sim):
    pid, main = project_with_branch(sim)
    existing = endpoints_of(sim, pid, main["id"])[0]
    seq = last_seq(sim)
    same = ok(run(sim, "endpoint", project_id=pid))
    assert same["changed"] is False and same["endpoint"]["id"] == existing["id"] and same["endpoint"]["host"]
    assert len(requests_since(sim, seq)) <= 2

    seq = last_seq(sim)
    checked = ok(run(sim, "endpoint", check_mode=True, diff=True, project_id=pid, min_cu=0.5, max_cu=2))
    assert checked["changed"] is True and changes_since(sim, seq) == []
    assert checked["diff"]["after"]["max_cu"] == 2 and checked["diff"]["before"]["max_cu"] != 2
    resized = ok(run(sim, "endpoint", project_id=pid, min_cu=0.5, max_cu=2))
    assert resized["changed"] is True and resized["endpoint"]["id"] == existing["id"]
    assert "apply_config" in [op["action"] for op in resized["operations"]]
    listed = endpoints_of(sim, pid, main["id"])
    assert len(listed) == 1 and (listed[0]["autoscaling_limit_min_cu"], listed[0]["autoscaling_limit_max_cu"]) == (0.5, 2)
    assert ok(run(sim, "endpoint", project_id=pid, min_cu=0.5, max_cu=2))["changed"] is False


def test_a_branch_without_compute_gets_one_and_runs_it(sim):
    pid, _main = project_with_branch(sim)
    ok(run(sim, "branch", project_id=pid, name="pr-7", compute=False))
    created = ok(run(sim, "endpoint", project_id=pid, branch="pr-7", state="started"))
    branch = branch_named(sim, pid, "pr-7")
    assert created["changed"] is True and created["endpoint"]["current_state"] == "active"
    assert created["endpoint"]["branch_id"] == branch["id"]
    assert [op["action"] for op in created["operations"]] == ["start_compute"]  # a new compute starts by itself
    assert [endpoint["id"] for endpoint in endpoints_of(sim, pid, branch["id"])] == [created["endpoint"]["id"]]


def test_suspend_start_and_restart(sim):
    pid, main = project_with_branch(sim)
    seq = last_seq(sim)
    assert ok(run(sim, "endpoint", check_mode=True, project_id=pid, state="suspended"))["changed"] is True
    assert changes_since(sim, seq) == []
    suspended = ok(run(sim, "endpoint", project_id=pid, state="suspended"))
    assert suspended["changed"] is True and suspended["endpoint"]["current_state"] == "idle"
    assert ok(run(sim, "endpoint", project_id=pid, state="suspended"))["changed"] is False
    started = ok(run(sim, "endpoint", project_id=pid, state="started"))
    assert started["changed"] is True and started["endpoint"]["current_state"] == "active"
    assert ok(run(sim, "endpoint", project_id=pid, state="started"))["changed"] is False
    restarted = ok(run(sim, "endpoint", project_id=pid, state="restarted"))
    assert restarted["changed"] is True and restarted["endpoint"]["current_state"] == "active"
    assert [op["action"] for op in restarted["operations"]] == ["suspend_compute", "start_compute"]
    assert ok(run(sim, "endpoint", project_id=pid, state="restarted"))["changed"] is True  # every run


def test_read_only_computes_by_type_and_by_id(sim):
    pid, main = project_with_branch(sim)
    first = ok(run(sim, "endpoint", project_id=pid, type="read_only", max_cu=1))
    assert first["changed"] is True and first["endpoint"]["type"] == "read_only"
    assert ok(run(sim, "endpoint", project_id=pid, type="read_only", max_cu=1))["changed"] is False
    second = rel.api(sim, "POST", "/projects/%s/endpoints" % pid,
                     json={"endpoint": {"branch_id": main["id"], "type": "read_only"}})["endpoint"]
    sim.advance_clock(30)
    seq = last_seq(sim)
    refused = failed(run(sim, "endpoint", project_id=pid, type="read_only", max_cu=2))
    assert first["endpoint"]["id"] in refused["msg"] and second["id"] in refused["msg"]
    assert "give the id" in refused["msg"] and changes_since(sim, seq) == []
    by_id = ok(run(sim, "endpoint", project_id=pid, type="read_only", id=second["id"], max_cu=2))
    assert by_id["changed"] is True and by_id["endpoint"]["id"] == second["id"]
    wrong = failed(run(sim, "endpoint", project_id=pid, type="read_write", id=second["id"]))
    assert "is read_only, not read_write" in wrong["msg"]
    deleted = ok(run(sim, "endpoint", project_id=pid, id=second["id"], type="read_only", state="absent"))
    assert deleted["changed"] is True
    assert sorted(endpoint["type"] for endpoint in endpoints_of(sim, pid, main["id"])) == ["read_only", "read_write"]
    gone = ok(run(sim, "endpoint", project_id=pid, id=second["id"], type="read_only", state="absent"))
    assert gone["changed"] is False and gone["endpoint"] is None


def test_two_overlapping_creates_of_a_read_write_compute_leave_one(sim, collection_parent, tmp_path):
    pid, _main = project_with_branch(sim)
    ok(run(sim, "branch", project_id=pid, name="pr-race", compute=False))
    branch = branch_named(sim, pid, "pr-race")
    listing = "/api/v2/projects/%s/branches/%s/endpoints" % (pid, branch["id"])
    sim.add_barrier(method="GET", path=listing, parties=2, timeout=60)
    args = rel.connection_args(sim, project_id=pid, branch="pr-race", api_timeout=RUN_TIMEOUT - 10)
    results = rel.module_process_results(
        rel.start_module_processes(collection_parent, tmp_path, "endpoint", [args, args]), RUN_TIMEOUT)
    assert barrier_timed_out(sim, listing) == [False]
    listed = endpoints_of(sim, pid, branch["id"])
    assert len(listed) == 1
    for result in results:
        assert not result.get("failed"), result
        assert result["endpoint"]["id"] == listed[0]["id"]
    assert len([result for result in results if "another run" in json.dumps(result.get("warnings"))]) == 1


def test_a_second_read_write_compute_refused_in_other_words_is_the_one_that_exists(sim):
    pid, _main = project_with_branch(sim)
    ok(run(sim, "branch", project_id=pid, name="pr-8", compute=False))
    branch = branch_named(sim, pid, "pr-8")
    # Another run's create is carried out first; this run's is then refused with a 409 whose message
    # does not say "already exists" (the service's wording for a second read-write compute is not documented).
    sim.add_fault(method="POST", path="/api/v2/projects/%s/endpoints" % pid, count=1, status=409, apply=True)
    result = ok(run(sim, "endpoint", project_id=pid, branch="pr-8"))
    listed = endpoints_of(sim, pid, branch["id"])
    assert len(listed) == 1 and result["endpoint"]["id"] == listed[0]["id"]
    assert "another run" in json.dumps(result["warnings"])


@pytest.mark.parametrize("args, message", [
    (dict(min_cu=2, max_cu=1), "min_cu (2.0) must not be more than max_cu (1.0)"),
    (dict(min_cu=0.1), "min_cu must be 0.25 or more"),
    (dict(suspend_timeout_seconds=30), "suspend_timeout_seconds must be -1 (never), 0"),
])
def test_compute_settings_are_checked_before_any_request(sim, args, message):
    seq = last_seq(sim)
    failure = failed(run(sim, "endpoint", project_id="any-project-12345678", **args))
    assert message in failure["msg"] and requests_since(sim, seq) == []


# ---------------------------------------------------------------------------------------------- branch_info


def test_branch_info_lists_roles_and_databases_never_a_password(sim):
    pid, main = project_with_branch(sim)
    password = ok(run(sim, "role", project_id=pid, name="app"))["password"]
    ok(run(sim, "database", project_id=pid, name="shop", owner="app"))
    listed = ok(run(sim, "branch_info", project_id=pid, name="main", roles_and_databases=True))
    branch = listed["branches"][0]
    assert sorted(role["name"] for role in branch["roles"]) == ["app", "neondb_owner"]
    owners = sorted((db["name"], db["owner_name"]) for db in branch["databases"])
    assert owners == [("neondb", "neondb_owner"), ("shop", "app")]
    assert password not in json.dumps(listed) and all("password" not in role for role in branch["roles"])
    plain = ok(run(sim, "branch_info", project_id=pid, name="main"))
    assert "roles" not in plain["branches"][0]
