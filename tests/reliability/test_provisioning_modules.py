# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The provisioning modules (project, branch, branch_info, connection_info) against the simulator.

Each test runs a module in this process (rel.run_module), as a playbook task would, and checks
what a user would notice: what the service holds afterwards, what the result says, how many
requests it took (the simulator's request log) and that no secret leaks into messages, warnings
or diffs. Waiting is driven through the simulator (held and scripted operations, its clock), never
by racing the wall clock. The integration targets keep one representative playbook per module;
the scenarios live here (CONTRIBUTING.md, "Integration targets and ansible-core").
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import json
import time

import pytest

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok

CHANGES = ("POST", "PATCH", "DELETE", "PUT")
RUN_TIMEOUT = 120  # seconds for a module process of the overlap and 423 tests
LOG_TIMEOUT = 60  # seconds to see an expected request in the log (it comes at once on an idle machine)


# ---------------------------------------------------------------------------------------------- helpers


def run(sim, module, check_mode=False, diff=False, **args):
    return rel.task(sim, module, check_mode=check_mode, diff=diff, **args)


def requests_since(sim, seq):
    return [(entry["method"], entry["path"]) for entry in sim.requests(since=seq)]


def changes_since(sim, seq):
    return [request for request in requests_since(sim, seq) if request[0] in CHANGES]


def shown(result):
    """What a user reads of a result besides its documented return values: msg, warnings, diff."""
    data = result.result or {}
    return json.dumps([data.get("msg"), data.get("warnings"), data.get("diff"), data.get("error")])


def assert_secret_hidden(result, *secrets):
    text = shown(result)
    for secret in secrets:
        assert secret and secret not in text, "a secret is shown outside the documented return values: %s" % text


def new_project(sim, **project):
    """A project made straight through the API (set-up), its creation operations ended."""
    project.setdefault("name", rel.unique_name("prov"))
    created = rel.api(sim, "POST", "/projects", json={"project": project})
    sim.advance_clock(30)
    return created


def branches(sim, project_id):
    return rel.api(sim, "GET", "/projects/%s/branches" % project_id)["branches"]


def branch_named(sim, project_id, name):
    found = [branch for branch in branches(sim, project_id) if branch["name"] == name]
    assert len(found) <= 1, found
    return found[0] if found else None


def endpoints_of(sim, project_id, branch_id):
    return rel.api(sim, "GET", "/projects/%s/branches/%s/endpoints" % (project_id, branch_id))["endpoints"]


def wait_for_request(sim, seq, method, path_end, status=None):
    """Until the log shows the request (driven by what the module did, not by time); the entry."""
    deadline = time.monotonic() + LOG_TIMEOUT
    while time.monotonic() < deadline:
        for entry in sim.requests(since=seq):
            if entry["method"] == method and entry["path"].endswith(path_end) and status in (None, entry["status"]):
                return entry
        time.sleep(0.05)
    raise AssertionError("no %s ...%s (%s) in the log: %s" % (method, path_end, status, requests_since(sim, seq)))


def iso(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def sim_now(sim):
    return datetime.datetime.fromtimestamp(sim.state.clock.time(), tz=datetime.timezone.utc)


# ---------------------------------------------------------------------------------------------- project


def test_project_create_provisions_a_default_branch_compute_role_and_database_and_shows_the_uri_once(sim):
    name = rel.unique_name("prov-project")
    created = ok(run(sim, "project", name=name, default_branch="main", database="app", role="app_owner"))

    project = created["project"]
    assert created["changed"] is True and project["name"] == name
    uri = created["connection_uri"]
    assert uri.startswith("postgresql://app_owner:") and uri.split("/")[-1].startswith("app?")
    assert [(op["action"], op["status"]) for op in created["operations"]] == [
        ("create_timeline", "finished"), ("start_compute", "finished")]
    listed = branches(sim, project["id"])
    assert [(branch["name"], branch["default"], branch["current_state"]) for branch in listed] == [("main", True, "ready")]
    endpoints = endpoints_of(sim, project["id"], listed[0]["id"])
    assert [(endpoint["type"], endpoint["current_state"]) for endpoint in endpoints] == [("read_write", "active")]
    assert endpoints[0]["host"] in uri
    password = uri.split(":")[2].split("@")[0]
    assert sim.password_valid(project["id"], listed[0]["id"], "app_owner", password)

    seq = last_seq(sim)
    again = ok(run(sim, "project", name=name, default_branch="main", database="app", role="app_owner"))
    assert again["changed"] is False and again["project"]["id"] == project["id"]
    assert "connection_uri" not in again and password not in json.dumps(again)  # shown only at creation
    assert len(requests_since(sim, seq)) <= 2 and changes_since(sim, seq) == []


def test_project_check_mode_sends_nothing_and_diff_shows_no_secret(sim):
    name = rel.unique_name("prov-check")
    seq = last_seq(sim)
    checked = ok(run(sim, "project", check_mode=True, diff=True, name=name, history_retention_seconds=3600))
    assert checked["changed"] is True and "connection_uri" not in checked
    assert checked["diff"]["before"] == {} and checked["diff"]["after"]["name"] == name
    assert changes_since(sim, seq) == []
    assert rel.api(sim, "GET", "/projects", params={"search": name})["projects"] == []

    created = ok(run(sim, "project", diff=True, name=name, history_retention_seconds=3600))
    password = created["connection_uri"].split(":")[2].split("@")[0]
    assert created["diff"]["after"]["history_retention_seconds"] == 3600
    assert_secret_hidden(run(sim, "project", diff=True, name=name), password)

    seq = last_seq(sim)
    updated = ok(run(sim, "project", check_mode=True, diff=True, name=name, history_retention_seconds=7200))
    assert updated["changed"] is True and changes_since(sim, seq) == []
    assert (updated["diff"]["before"]["history_retention_seconds"],
            updated["diff"]["after"]["history_retention_seconds"]) == (3600, 7200)
    assert_secret_hidden(run(sim, "project", check_mode=True, diff=True, name=name, history_retention_seconds=7200),
                         password)
    project = rel.api(sim, "GET", "/projects/%s" % created["project"]["id"])["project"]
    assert project["history_retention_seconds"] == 3600

    changed = ok(run(sim, "project", diff=True, name=name, history_retention_seconds=7200))
    assert changed["changed"] is True and changed["project"]["history_retention_seconds"] == 7200
    assert [op["action"] for op in changed["operations"]] == ["apply_storage_config"]
    assert_secret_hidden(run(sim, "project", diff=True, name=name, history_retention_seconds=7200), password)


def test_project_compute_settings_reach_the_existing_default_compute(sim):
    project = new_project(sim)
    result = ok(run(sim, "project", name=project["project"]["name"], compute=dict(min_cu=0.5, max_cu=2)))
    assert result["changed"] is True
    endpoint = endpoints_of(sim, project["project"]["id"], project["branch"]["id"])[0]
    assert (endpoint["autoscaling_limit_min_cu"], endpoint["autoscaling_limit_max_cu"]) == (0.5, 2)
    settings = rel.api(sim, "GET", "/projects/%s" % project["project"]["id"])["project"]["default_endpoint_settings"]
    assert (settings["autoscaling_limit_min_cu"], settings["autoscaling_limit_max_cu"]) == (0.5, 2)
    assert ok(run(sim, "project", name=project["project"]["name"], compute=dict(min_cu=0.5, max_cu=2)))["changed"] is False


def test_project_create_only_setting_that_differs_fails_and_changes_nothing(sim):
    project = new_project(sim, region_id="aws-us-east-2")
    seq = last_seq(sim)
    refused = failed(run(sim, "project", name=project["project"]["name"], region_id="aws-eu-central-1", pg_version=16))
    assert "region_id is 'aws-us-east-2', not 'aws-eu-central-1'" in refused["msg"]
    assert "pg_version is 17, not 16" in refused["msg"] and "Nothing was changed" in refused["msg"]
    assert refused["changed"] is False and changes_since(sim, seq) == []


def test_two_projects_of_one_name_fail_naming_both_ids(sim):
    name = rel.unique_name("prov-twice")
    first, second = new_project(sim, name=name), new_project(sim, name=name)
    seq = last_seq(sim)
    refused = failed(run(sim, "project", name=name, history_retention_seconds=0))
    assert first["project"]["id"] in refused["msg"] and second["project"]["id"] in refused["msg"]
    assert refused["changed"] is False and changes_since(sim, seq) == []


def test_project_delete_then_again_unchanged(sim):
    project = new_project(sim)
    name = project["project"]["name"]
    deleted = ok(run(sim, "project", name=name, state="absent"))
    assert deleted["changed"] is True and deleted["project"]["id"] == project["project"]["id"]
    assert rel.api(sim, "GET", "/projects", params={"search": name})["projects"] == []
    assert ok(run(sim, "project", name=name, state="absent"))["changed"] is False


# ---------------------------------------------------------------------------------------------- branch


def test_branch_from_the_default_branch_with_a_read_write_compute(sim):
    project = new_project(sim)
    pid, main = project["project"]["id"], project["branch"]
    password = project["connection_uris"][0]["connection_parameters"]["password"]
    created = ok(run(sim, "branch", diff=True, project_id=pid, name="pr-1"))

    branch = created["branch"]
    assert created["changed"] is True and branch["name"] == "pr-1" and branch["parent_id"] == main["id"]
    assert created["endpoints"][0]["type"] == "read_write" and created["endpoints"][0]["host"].startswith("ep-")
    assert [(op["action"], op["status"]) for op in created["operations"]] == [
        ("create_branch", "finished"), ("start_compute", "finished")]
    # returned as it is once its operations ended, ready for the next task, not as the create answered it
    assert branch["current_state"] == "ready" and created["endpoints"][0]["current_state"] == "active"
    assert created["endpoints"][0]["host"] in created["connection_uri"]  # one role, one database: the service gives it
    assert created["diff"]["before"] == {} and created["diff"]["after"]["name"] == "pr-1"
    assert_secret_hidden(run(sim, "branch", project_id=pid, name="pr-1"), password)
    listed = branch_named(sim, pid, "pr-1")
    assert listed["id"] == branch["id"] and listed["current_state"] == "ready"
    assert [endpoint["current_state"] for endpoint in endpoints_of(sim, pid, branch["id"])] == ["active"]

    seq = last_seq(sim)
    again = ok(run(sim, "branch", project_id=pid, name="pr-1"))
    assert again["changed"] is False and again["branch"]["id"] == branch["id"] and again["operations"] == []
    assert again["endpoints"][0]["id"] == created["endpoints"][0]["id"] and "connection_uri" not in again
    assert len(requests_since(sim, seq)) <= 2 and changes_since(sim, seq) == []


def test_branch_from_a_named_parent_at_a_point_in_time(sim):
    project = new_project(sim)
    pid = project["project"]["id"]
    parent = ok(run(sim, "branch", project_id=pid, name="staging", compute=False))["branch"]
    sim.advance_clock(60)  # the parent has a minute of history to branch from
    moment = iso(sim_now(sim) - datetime.timedelta(seconds=30))
    created = ok(run(sim, "branch", project_id=pid, name="pr-2", parent="staging", parent_timestamp=moment))
    assert created["branch"]["parent_id"] == parent["id"]
    assert created["branch"]["parent_timestamp"] == moment

    seq = last_seq(sim)
    same = ok(run(sim, "branch", project_id=pid, name="pr-2", parent=parent["id"],
                  parent_timestamp=moment.replace("Z", "+00:00")))
    assert same["changed"] is False and len(requests_since(sim, seq)) <= 2

    refused = failed(run(sim, "branch", project_id=pid, name="pr-2", parent="main"))
    assert "parent" in refused["msg"] and "can only be set when it is created" in refused["msg"]
    assert changes_since(sim, seq) == []

    unknown = failed(run(sim, "branch", project_id=pid, name="pr-3", parent="no-such-branch"))
    assert "'no-such-branch' is neither the name nor the id of a branch" in unknown["msg"]
    assert changes_since(sim, seq) == [] and branch_named(sim, pid, "pr-3") is None


def test_branch_without_compute_and_a_compute_added_later(sim):
    pid = new_project(sim)["project"]["id"]
    bare = ok(run(sim, "branch", project_id=pid, name="no-compute", compute=False))
    assert bare["endpoints"] == [] and [op["action"] for op in bare["operations"]] == ["create_branch"]
    assert endpoints_of(sim, pid, bare["branch"]["id"]) == []
    assert ok(run(sim, "branch", project_id=pid, name="no-compute", compute=False))["changed"] is False

    added = ok(run(sim, "branch", project_id=pid, name="no-compute", compute=dict(min_cu=0.25, max_cu=1)))
    assert added["changed"] is True and added["endpoints"][0]["type"] == "read_write"
    assert [(e["type"], e["autoscaling_limit_max_cu"]) for e in endpoints_of(sim, pid, bare["branch"]["id"])] == [
        ("read_write", 1)]
    resized = ok(run(sim, "branch", project_id=pid, name="no-compute", compute=dict(max_cu=2)))
    assert resized["changed"] is True and [op["action"] for op in resized["operations"]][0] == "apply_config"
    assert endpoints_of(sim, pid, bare["branch"]["id"])[0]["autoscaling_limit_max_cu"] == 2


def test_reset_from_parent_changes_every_time_and_keeps_the_branch(sim):
    pid = new_project(sim)["project"]["id"]
    created = ok(run(sim, "branch", project_id=pid, name="pr-reset"))
    branch_id, host = created["branch"]["id"], created["endpoints"][0]["host"]
    for _attempt in range(2):
        reset = ok(run(sim, "branch", project_id=pid, name="pr-reset", reset_from_parent=True))
        assert reset["changed"] is True and reset["branch"]["id"] == branch_id
        assert reset["endpoints"][0]["host"] == host
        assert [op["status"] for op in reset["operations"]] == ["finished"] * len(reset["operations"])
        assert reset["operations"]
        assert branch_named(sim, pid, "pr-reset")["last_reset_at"]
    seq = last_seq(sim)
    checked = ok(run(sim, "branch", check_mode=True, project_id=pid, name="pr-reset", reset_from_parent=True))
    assert checked["changed"] is True and changes_since(sim, seq) == []


def test_expires_at_and_protected(sim):
    pid = new_project(sim)["project"]["id"]
    expiry = iso(sim_now(sim) + datetime.timedelta(days=7))
    created = ok(run(sim, "branch", project_id=pid, name="pr-expiring", expires_at=expiry, compute=False))
    assert created["branch"]["expires_at"] == expiry
    assert ok(run(sim, "branch", project_id=pid, name="pr-expiring", expires_at=expiry, compute=False))["changed"] is False
    later = iso(sim_now(sim) + datetime.timedelta(days=8))
    moved = ok(run(sim, "branch", diff=True, project_id=pid, name="pr-expiring", expires_at=later, compute=False))
    assert moved["changed"] is True and branch_named(sim, pid, "pr-expiring")["expires_at"] == later
    assert (moved["diff"]["before"]["expires_at"], moved["diff"]["after"]["expires_at"]) == (expiry, later)
    cleared = ok(run(sim, "branch", project_id=pid, name="pr-expiring", expires_at="", compute=False))
    assert cleared["changed"] is True and branch_named(sim, pid, "pr-expiring").get("expires_at") is None

    protected = ok(run(sim, "branch", project_id=pid, name="release", protected=True, compute=False))
    assert protected["branch"]["protected"] is True and branch_named(sim, pid, "release")["protected"] is True
    seq = last_seq(sim)
    refused = failed(run(sim, "branch", project_id=pid, name="release", expires_at=later, compute=False))
    # The service refuses an expiry on a protected branch: refused before anything is sent (issue 28).
    assert "a protected branch cannot have an expiry (expires_at)" in refused["msg"]
    assert "Nothing was changed" in refused["msg"]
    assert branch_named(sim, pid, "release").get("expires_at") is None
    assert changes_since(sim, seq) == []


def test_delete_and_delete_again(sim):
    pid = new_project(sim)["project"]["id"]
    branch = ok(run(sim, "branch", project_id=pid, name="pr-gone"))["branch"]
    deleted = ok(run(sim, "branch", diff=True, project_id=pid, name="pr-gone", state="absent"))
    assert deleted["changed"] is True and deleted["branch"]["id"] == branch["id"]
    assert deleted["diff"]["after"] == {} and deleted["diff"]["before"]["name"] == "pr-gone"
    assert {op["action"] for op in deleted["operations"]} >= {"delete_timeline"}
    assert [op["status"] for op in deleted["operations"]] == ["finished"] * len(deleted["operations"])
    assert branch_named(sim, pid, "pr-gone") is None
    seq = last_seq(sim)
    again = ok(run(sim, "branch", project_id=pid, name="pr-gone", state="absent"))
    assert again["changed"] is False and again["branch"] is None and changes_since(sim, seq) == []


@pytest.mark.parametrize("what", ["default", "protected", "parent"])
def test_deleting_a_default_protected_or_parent_branch_is_refused_before_any_change(sim, what):
    project = new_project(sim)
    pid = project["project"]["id"]
    name, reason = "main", "it is the project's default branch"
    if what == "protected":
        name, reason = "kept", "it is protected"
        ok(run(sim, "branch", project_id=pid, name=name, protected=True, compute=False))
    elif what == "parent":
        name, reason = "base", "it is the parent of 'child'"
        ok(run(sim, "branch", project_id=pid, name=name, compute=False))
        ok(run(sim, "branch", project_id=pid, name="child", parent=name, compute=False))
    seq = last_seq(sim)
    refused = failed(run(sim, "branch", project_id=pid, name=name, state="absent"))
    assert reason in refused["msg"] and "Nothing was changed" in refused["msg"]
    assert refused["changed"] is False and changes_since(sim, seq) == []
    assert branch_named(sim, pid, name) is not None


# ---------------------------------------------------------------------------------------------- waiting


def test_a_failed_operation_fails_the_task_and_says_what_was_already_changed(sim):
    pid = new_project(sim)["project"]["id"]
    sim.script_operations("start_compute", project_id=pid, outcome="failed", error="no capacity in the region")
    result = run(sim, "branch", project_id=pid, name="pr-unlucky")
    failure = failed(result)
    branch = branch_named(sim, pid, "pr-unlucky")
    start = [op for op in failure["operations"] if op["action"] == "start_compute"][0]
    assert start["status"] == "failed"
    for part in (start["id"], "start_compute", "failed", "no capacity in the region",
                 "Changed by this task so far: branch 'pr-unlucky' was created (id %s)" % branch["id"]):
        assert part in failure["msg"], failure["msg"]
    assert failure["changed"] is True and failure["branch"]["id"] == branch["id"]
    assert "connection_uri" in failure  # shown once: kept in the failed result too
    assert_secret_hidden(result, failure["connection_uri"].split(":")[2].split("@")[0])


def test_wait_false_returns_at_once_with_the_operations_started(sim):
    pid = new_project(sim)["project"]["id"]
    sim.script_operations("*", project_id=pid, hold=True, count=2)
    seq = last_seq(sim)
    started = ok(run(sim, "branch", project_id=pid, name="pr-nowait", wait=False))
    assert started["changed"] is True
    assert [op["action"] for op in started["operations"]] == ["create_branch", "start_compute"]
    assert [op["status"] in ("scheduling", "running") for op in started["operations"]] == [True, True]
    assert branch_named(sim, pid, "pr-nowait")["current_state"] == "init"  # returned before the branch was ready
    assert [path for method, path in requests_since(sim, seq) if path.endswith("/operations")] == []
    sim.release_operations(pid)


def test_wait_timeout_bounds_the_wait_for_what_it_started(sim):
    pid = new_project(sim)["project"]["id"]
    sim.script_operations("create_branch", project_id=pid, hold=True)  # never ends unless released
    started = time.monotonic()
    failure = failed(run(sim, "branch", project_id=pid, name="pr-slow", compute=False, wait_timeout=1.5))
    assert time.monotonic() - started < 15
    assert "still in progress when wait_timeout (1.5 s) ran out" in failure["msg"]
    assert "create_branch" in failure["msg"] and "neon.cloud.operation_wait" in failure["msg"]
    assert "Changed by this task so far: branch 'pr-slow' was created" in failure["msg"]
    sim.release_operations(pid)


def test_a_423_while_another_operation_runs_is_waited_out(sim, collection_parent, tmp_path):
    pid = new_project(sim)["project"]["id"]
    held = sim.start_operations(pid, action="apply_config", hold=True)[0]
    seq = last_seq(sim)
    process, = rel.start_module_processes(collection_parent, tmp_path, "branch", [
        rel.connection_args(sim, project_id=pid, name="pr-locked", api_timeout=30)])
    try:
        wait_for_request(sim, seq, "POST", "/branches", status=423)
        assert branch_named(sim, pid, "pr-locked") is None  # refused, not carried out
        wait_for_request(sim, seq, "GET", "/operations")  # it waits for the project's operations
    finally:
        sim.release_operations(pid, held["id"])
    result, = rel.module_process_results([process], RUN_TIMEOUT)
    assert not result.get("failed"), result
    assert result["changed"] is True and branch_named(sim, pid, "pr-locked")["id"] == result["branch"]["id"]
    posts = [entry for entry in sim.requests(since=seq) if entry["method"] == "POST"]
    assert [entry["status"] for entry in posts][-1] == 201 and set(entry["status"] for entry in posts) == {423, 201}
    assert len(branches(sim, pid)) == 2


def test_a_423_that_outlasts_wait_timeout_fails_with_nothing_changed(sim):
    pid = new_project(sim)["project"]["id"]
    sim.start_operations(pid, action="apply_config", hold=True)
    failure = failed(run(sim, "branch", project_id=pid, name="pr-stuck", wait_timeout=1.5))
    assert "HTTP 423" in failure["msg"] and "wait_timeout (1.5 s)" in failure["msg"]
    assert "apply_config" in failure["msg"] and "Nothing was changed" in failure["msg"]
    assert failure["changed"] is False and branch_named(sim, pid, "pr-stuck") is None
    sim.release_operations(pid)


# ---------------------------------------------------------------------------------------------- overlapping runs


def test_two_overlapping_creates_of_one_branch_leave_one_branch_and_both_succeed(sim, collection_parent, tmp_path):
    pid = new_project(sim)["project"]["id"]
    sim.add_barrier(method="GET", path="/api/v2/projects/%s/branches" % pid, parties=2, timeout=60)
    args = rel.connection_args(sim, project_id=pid, name="pr-race", api_timeout=RUN_TIMEOUT - 10)
    results = rel.module_process_results(rel.start_module_processes(collection_parent, tmp_path, "branch", [args, args]),
                                         RUN_TIMEOUT)
    assert [barrier["timed_out"] for barrier in sim.barriers()] == [False]  # both listed before either created

    named = [branch for branch in branches(sim, pid) if branch["name"] == "pr-race"]
    assert len(named) == 1
    for result in results:
        assert not result.get("failed"), result
        assert result["branch"]["id"] == named[0]["id"]
        assert result["endpoints"][0]["type"] == "read_write"
        # Ready for the next task in both runs, the one that used the other's branch too (issue 28).
        assert result["branch"]["current_state"] == "ready" and result["endpoints"][0]["current_state"] == "active"
    posts = [entry["status"] for entry in sim.requests() if entry["method"] == "POST"
             and entry["path"].endswith("/projects/%s/branches" % pid)]
    assert sorted(posts) == [201, 409]  # the second create was refused as "already exists"
    used = [result for result in results if "another run" in json.dumps(result.get("warnings"))]
    assert len(used) == 1 and "connection_uri" not in used[0]
    assert [len(endpoints_of(sim, pid, named[0]["id"]))] == [1]


# ---------------------------------------------------------------------------------------------- faults


@pytest.mark.parametrize("fault", [
    dict(status=500, apply=True),
    dict(drop=True, apply=True),
    dict(body="truncated"),
    dict(status=503),
    dict(status=500),
])
def test_a_faulty_answer_to_a_branch_create_never_creates_it_twice(sim, fault):
    pid = new_project(sim)["project"]["id"]
    sim.add_fault(method="POST", path="/api/v2/projects/%s/branches" % pid, count=1, **fault)
    result = run(sim, "branch", project_id=pid, name="pr-fault")
    named = [branch for branch in branches(sim, pid) if branch["name"] == "pr-fault"]
    assert len(named) == 1, (fault, result.describe())
    data = ok(result)
    assert data["changed"] is True and data["branch"]["id"] == named[0]["id"]
    assert [endpoint["type"] for endpoint in endpoints_of(sim, pid, named[0]["id"])] == ["read_write"]
    assert ok(run(sim, "branch", project_id=pid, name="pr-fault"))["changed"] is False


@pytest.mark.parametrize("fault", [dict(status=500, apply=True), dict(body="truncated"), dict(status=503)])
def test_a_faulty_answer_to_a_project_create_never_creates_it_twice(sim, fault):
    name = rel.unique_name("prov-fault")
    sim.add_fault(method="POST", path="/api/v2/projects", count=1, **fault)
    result = run(sim, "project", name=name)
    listed = rel.api(sim, "GET", "/projects", params={"search": name})["projects"]
    assert [project["name"] for project in listed] == [name], result.describe()
    assert ok(result)["project"]["id"] == listed[0]["id"]


# ---------------------------------------------------------------------------------------------- branch_info


def test_branch_info_reads_every_page_and_each_branch_s_computes(sim, monkeypatch):
    from ansible_collections.neon.cloud.plugins.module_utils._resources import finding

    project = new_project(sim)
    pid = project["project"]["id"]
    for name in ("dev", "qa", "pr-7", "pr-8"):
        ok(run(sim, "branch", project_id=pid, name=name, compute=name.startswith("pr-"), wait=False))
    sim.advance_clock(30)
    monkeypatch.setattr(finding, "BRANCHES_PAGE_MAX", 2)  # five branches: three pages of the service's cursor
    seq = last_seq(sim)
    listed = ok(run(sim, "branch_info", project_id=pid))["branches"]
    pages = [entry for entry in sim.requests(since=seq) if entry["path"].endswith("/branches")]
    assert len(pages) == 3 and "cursor=" in pages[-1]["query"]
    assert sorted(branch["name"] for branch in listed) == ["dev", "main", "pr-7", "pr-8", "qa"]
    computes = dict((branch["name"], [endpoint["type"] for endpoint in branch["endpoints"]]) for branch in listed)
    assert computes == {"main": ["read_write"], "dev": [], "qa": [], "pr-7": ["read_write"], "pr-8": ["read_write"]}
    for branch in listed:
        assert all(endpoint["branch_id"] == branch["id"] for endpoint in branch["endpoints"])


def test_branch_info_one_by_name_in_two_requests(sim):
    pid = new_project(sim)["project"]["id"]
    made = ok(run(sim, "branch", project_id=pid, name="pr-9"))
    ok(run(sim, "branch", project_id=pid, name="pr-90", compute=False))  # a longer name the search also matches
    seq = last_seq(sim)
    found = ok(run(sim, "branch_info", project_id=pid, name="pr-9"))
    assert [branch["id"] for branch in found["branches"]] == [made["branch"]["id"]]
    assert [endpoint["id"] for endpoint in found["branches"][0]["endpoints"]] == [made["endpoints"][0]["id"]]
    assert found["changed"] is False and len(requests_since(sim, seq)) == 2
    assert ok(run(sim, "branch_info", project_id=pid, name="pr-404"))["branches"] == []


# ---------------------------------------------------------------------------------------------- connection_info


def test_connection_info_pooled_and_direct_on_the_read_write_compute_even_listed_after_a_read_only_one(sim):
    project = new_project(sim)
    pid = project["project"]["id"]
    branch = ok(run(sim, "branch", project_id=pid, name="pr-ro-first", compute=False))["branch"]
    replica = rel.api(sim, "POST", "/projects/%s/endpoints" % pid,
                      json={"endpoint": {"branch_id": branch["id"], "type": "read_only"}})["endpoint"]
    sim.advance_clock(30)
    writer = ok(run(sim, "branch", project_id=pid, name="pr-ro-first"))["endpoints"][0]
    assert writer["type"] == "read_write"
    assert [endpoint["type"] for endpoint in endpoints_of(sim, pid, branch["id"])] == ["read_only", "read_write"]

    direct = run(sim, "connection_info", project_id=pid, branch="pr-ro-first")
    data = ok(direct)
    assert data["host"] == writer["host"] and data["endpoint_id"] == writer["id"] != replica["id"]
    assert (data["database"], data["role"], data["port"], data["pooled"]) == ("neondb", "neondb_owner", 5432, False)
    assert data["uri"] == "postgresql://neondb_owner:%s@%s/neondb?sslmode=require" % (data["password"], writer["host"])
    assert sim.password_valid(pid, branch["id"], "neondb_owner", data["password"])
    assert data["changed"] is False
    assert_secret_hidden(direct, data["password"])

    pooled = ok(run(sim, "connection_info", project_id=pid, branch=branch["id"], pooled=True))
    first, dot, rest = writer["host"].partition(".")
    assert pooled["host"] == first + "-pooler" + dot + rest and pooled["host"] in pooled["uri"]
    assert pooled["password"] == data["password"] and pooled["pooled"] is True


def test_connection_info_defaults_to_the_default_branch_and_asks_when_ambiguous(sim):
    project = new_project(sim)
    pid, main = project["project"]["id"], project["branch"]
    default = ok(run(sim, "connection_info", project_id=pid))
    assert default["branch_id"] == main["id"] and default["host"] == project["endpoints"][0]["host"]
    assert default["uri"] == project["connection_uris"][0]["connection_uri"]

    rel.api(sim, "POST", "/projects/%s/branches/%s/roles" % (pid, main["id"]), json={"role": {"name": "reader"}})
    sim.advance_clock(30)
    rel.api(sim, "POST", "/projects/%s/branches/%s/databases" % (pid, main["id"]),
            json={"database": {"name": "analytics", "owner_name": "reader"}})
    sim.advance_clock(30)
    seq = last_seq(sim)
    ambiguous = failed(run(sim, "connection_info", project_id=pid))
    assert "has 2 roles (neondb_owner, reader); say which one with the role option" in ambiguous["msg"]
    no_database = failed(run(sim, "connection_info", project_id=pid, role="reader"))
    assert "has 2 databases (analytics, neondb); say which one with the database option" in no_database["msg"]
    chosen = ok(run(sim, "connection_info", project_id=pid, role="reader", database="analytics"))
    assert (chosen["role"], chosen["database"]) == ("reader", "analytics")
    assert sim.password_valid(pid, main["id"], "reader", chosen["password"])
    assert changes_since(sim, seq) == []


def test_connection_info_of_a_branch_without_compute_or_unknown_fails_clearly(sim):
    pid = new_project(sim)["project"]["id"]
    ok(run(sim, "branch", project_id=pid, name="pr-dark", compute=False))
    dark = failed(run(sim, "connection_info", project_id=pid, branch="pr-dark"))
    assert "has no read-write compute to connect to" in dark["msg"]
    unknown = failed(run(sim, "connection_info", project_id=pid, branch="pr-none"))
    assert "has no branch 'pr-none'" in unknown["msg"]


@pytest.mark.parametrize("limit", ["projects", "branches", "history"])
def test_a_plan_limit_fails_with_the_service_s_message_and_nothing_changed(sim, limit):
    pid = new_project(sim)["project"]["id"]
    count = len(sim.state.shared.projects)
    try:
        if limit == "projects":
            sim.set_limits(max_projects=0)
            args = dict(name=rel.unique_name("prov-over"))
        elif limit == "branches":
            sim.set_limits(max_branches=1)
            args = dict(project_id=pid, name="pr-over")
        else:
            sim.set_limits(max_history_retention_seconds=86400)
            args = dict(name=rel.unique_name("prov-long"), history_retention_seconds=604800)
        seq = last_seq(sim)
        refused = failed(run(sim, "branch" if limit == "branches" else "project", **args))
    finally:
        sim.set_limits(max_projects=None, max_branches=None, max_history_retention_seconds=None)
    expected = {"projects": ("HTTP 422", "user projects limit of 0 exceeded", "PROJECTS_LIMIT_EXCEEDED"),
                "branches": ("HTTP 422", "branches limit of 1 exceeded", "BRANCHES_LIMIT_EXCEEDED"),
                "history": ("HTTP 400", "requested history retention seconds exceeds allowed maximum", "")}[limit]
    for part in expected[:2] + ("Nothing was changed",):
        assert part in refused["msg"], refused["msg"]
    assert refused["changed"] is False and refused["error"]["method"] == "POST"
    assert refused["error"]["code"] == expected[2]
    assert len(changes_since(sim, seq)) == 1  # the one refused create, never asked again
    assert len(sim.state.shared.projects) == count and branch_named(sim, pid, "pr-over") is None
