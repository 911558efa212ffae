# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Recovering what was deleted (issue 40): branch_recover and project_recover against the simulator.

Each test runs a module in this process (rel.run_module), as a playbook task would, except the overlapping runs and
the waits, which are module processes of their own. The 7-day window ends by the simulator's clock jumped forward;
what the recovery runs is held and released by script, never raced.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import time

import requests

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok
from test_provisioning_modules import (RUN_TIMEOUT, branch_named, changes_since, endpoints_of, new_project,
                                       requests_since, run, wait_for_request)

WINDOW = 7 * 86400


# ---------------------------------------------------------------------------------------------- helpers


def made_branch(sim, pid, name, **spec):
    made = rel.api(sim, "POST", "/projects/%s/branches" % pid,
                   json={"branch": dict(spec, name=name), "endpoints": [{"type": "read_write"}]})
    sim.advance_clock(30)
    return made["branch"]


def deleted_branch(sim, pid, name, **spec):
    """A branch made and deleted through the API (set-up), its operations ended."""
    branch = made_branch(sim, pid, name, **spec)
    rel.api(sim, "DELETE", "/projects/%s/branches/%s" % (pid, branch["id"]))
    sim.advance_clock(30)
    return branch


def deleted_project(sim, name=None):
    project = new_project(sim, **({"name": name} if name else {}))
    rel.api(sim, "DELETE", "/projects/%s" % project["project"]["id"])
    sim.advance_clock(30)
    return project


def recover_branch(sim, pid, branch, check_mode=False, diff=False, **args):
    return run(sim, "branch_recover", check_mode=check_mode, diff=diff, project_id=pid, branch=branch, **args)


def recover_project(sim, check_mode=False, diff=False, **args):
    return run(sim, "project_recover", check_mode=check_mode, diff=diff, **args)


def warnings_of(result):
    return json.dumps(result.get("warnings") or [])


# ---------------------------------------------------------------------------------------------- a branch


def test_a_deleted_branch_is_recovered_by_name_ready_with_its_compute_and_a_rerun_changes_nothing(sim):
    pid = new_project(sim)["project"]["id"]
    gone = deleted_branch(sim, pid, "staging")
    assert branch_named(sim, pid, "staging") is None

    checked = ok(recover_branch(sim, pid, "staging", check_mode=True, diff=True))
    assert checked["changed"] is True and checked["branch"]["id"] == gone["id"]
    assert checked["diff"]["before"]["state"] == "deleted" and checked["diff"]["after"]["state"] == "live"
    assert checked["diff"]["before"]["deleted_at"] and checked["diff"]["before"]["recoverable_until"]
    assert branch_named(sim, pid, "staging") is None  # check mode sent nothing

    seq = last_seq(sim)
    recovered = ok(recover_branch(sim, pid, "staging", diff=True))
    assert recovered["changed"] is True and recovered["branch"]["id"] == gone["id"]
    assert recovered["branch"]["current_state"] == "ready"  # what the recovery runs was waited for
    assert [endpoint["type"] for endpoint in recovered["endpoints"]] == ["read_write"]
    assert recovered["recovered_from"]["deletion_method"] == "user" and recovered["ttl_removed"] is False
    assert recovered["operations"] == []  # the answer names none (the document); the wait read them instead
    assert branch_named(sim, pid, "staging")["id"] == gone["id"]
    assert len(endpoints_of(sim, pid, gone["id"])) == 1
    assert [path for method, path in changes_since(sim, seq)] == ["/api/v2/projects/%s/branches/%s/recover" % (
        pid, gone["id"])]

    seq = last_seq(sim)
    again = ok(recover_branch(sim, pid, "staging"))
    assert again["changed"] is False and again["branch"]["id"] == gone["id"] and again["recovered_from"] is None
    again_by_id = ok(recover_branch(sim, pid, gone["id"]))
    assert again_by_id["changed"] is False
    assert changes_since(sim, seq) == []


def test_a_branch_deleted_by_its_ttl_comes_back_permanent_and_says_so(sim):
    pid = new_project(sim)["project"]["id"]
    expires = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(sim.state.clock.time() + 86400))
    preview = made_branch(sim, pid, "preview", expires_at=expires)
    expired = requests.post("%s/projects/%s/branches/%s/expire" % (sim.control_url, pid, preview["id"]), timeout=10)
    assert expired.status_code == 200, expired.text

    checked = ok(recover_branch(sim, pid, "preview", check_mode=True, diff=True))
    assert checked["ttl_removed"] is True and checked["diff"]["after"]["expires_at"] is None
    assert checked["diff"]["before"]["expires_at"] == expires

    recovered = ok(recover_branch(sim, pid, "preview"))
    assert recovered["ttl_removed"] is True and recovered["recovered_from"]["deletion_method"] == "ttl"
    assert "no longer expires" in warnings_of(recovered) and "deleted by its TTL" in warnings_of(recovered)
    assert "expires_at" not in branch_named(sim, pid, "preview")


def test_a_name_that_several_deleted_branches_had_is_refused_naming_each_id_and_deletion_time(sim):
    pid = new_project(sim)["project"]["id"]
    first = deleted_branch(sim, pid, "dev")
    second = deleted_branch(sim, pid, "dev")
    seq = last_seq(sim)
    refused = failed(recover_branch(sim, pid, "dev"))
    assert "2 deleted branches of project %s are named 'dev'" % pid in refused["msg"]
    for branch in (first, second):
        assert "id %s (deleted at " % branch["id"] in refused["msg"]
    assert "Give the id of the one to recover" in refused["msg"]
    assert refused["changed"] is False and changes_since(sim, seq) == []
    # the id chooses one
    assert ok(recover_branch(sim, pid, second["id"]))["branch"]["id"] == second["id"]


def test_a_live_branch_of_the_name_beside_a_deleted_one_is_refused_saying_what_to_decide(sim):
    pid = new_project(sim)["project"]["id"]
    gone = deleted_branch(sim, pid, "dev")
    live = made_branch(sim, pid, "dev")
    seq = last_seq(sim)
    for wanted in ("dev", gone["id"]):
        refused = failed(recover_branch(sim, pid, wanted))
        assert live["id"] in refused["msg"] and gone["id"] in refused["msg"]
        assert "rename or delete the live one first" in refused["msg"] and "nothing to recover" in refused["msg"]
    assert changes_since(sim, seq) == []


def test_past_the_window_on_the_clock_the_branch_is_gone_and_the_task_says_so(sim):
    pid = new_project(sim)["project"]["id"]
    deleted_branch(sim, pid, "old")
    sim.advance_clock(WINDOW - 120)
    assert ok(recover_branch(sim, pid, "old", check_mode=True))["changed"] is True  # still kept
    sim.advance_clock(180)
    seq = last_seq(sim)
    refused = failed(recover_branch(sim, pid, "old"))
    assert "no deleted branch of project %s whose name or id is 'old'" % pid in refused["msg"]
    assert "more than 7 days ago" in refused["msg"] and changes_since(sim, seq) == []


def test_a_404_or_409_to_the_recovery_fails_naming_the_status_and_what_it_means(sim):
    pid = new_project(sim)["project"]["id"]
    gone = deleted_branch(sim, pid, "dev")
    path = "/api/v2/projects/%s/branches/%s/recover" % (pid, gone["id"])
    sim.add_fault(method="POST", path=path, status=404, count=1)
    refused = failed(recover_branch(sim, pid, "dev"))
    assert "HTTP 404" in refused["msg"] and "recovery window ended at" in refused["msg"]
    assert "POST %s" % path[len("/api/v2"):] in refused["msg"] and refused["changed"] is False
    sim.add_fault(method="POST", path=path, status=409, count=1)
    refused = failed(recover_branch(sim, pid, "dev"))
    assert "HTTP 409" in refused["msg"] and "refuses to recover it as things are now" in refused["msg"]
    assert branch_named(sim, pid, "dev") is None


def test_bad_input_is_refused_before_any_request(sim):
    seq = last_seq(sim)
    assert "project_id must be a project id" in failed(recover_branch(sim, "Not_An_Id", "dev"))["msg"]
    assert "branch must not be empty" in failed(recover_branch(sim, "shiny-river-12345678", " "))["msg"]
    assert "project_id must be a project id" in failed(recover_project(sim, project_id="x" * 61))["msg"]
    assert "name must not be empty" in failed(recover_project(sim, name=""))["msg"]
    assert requests_since(sim, seq) == []


def test_a_branch_of_a_deleted_project_names_project_recover(sim):
    project = deleted_project(sim)
    refused = failed(recover_branch(sim, project["project"]["id"], "main"))
    assert "HTTP 404" in refused["msg"] and "neon.cloud.project_recover" in refused["msg"]


def test_the_recovery_is_waited_for_until_what_it_runs_has_ended(sim, collection_parent, tmp_path):
    pid = new_project(sim)["project"]["id"]
    gone = deleted_branch(sim, pid, "staging")
    sim.script_operations("timeline_unarchive", project_id=pid, hold=True)
    seq = last_seq(sim)
    process, = rel.start_module_processes(collection_parent, tmp_path, "branch_recover", [
        rel.connection_args(sim, project_id=pid, branch="staging", api_timeout=30)])
    try:
        wait_for_request(sim, seq, "POST", "/recover", status=200)
        wait_for_request(sim, seq, "GET", "/operations")  # it waits for what the recovery runs
        assert branch_named(sim, pid, "staging")["current_state"] == "init"
    finally:
        sim.release_operations(pid)
    result, = rel.module_process_results([process], RUN_TIMEOUT)
    assert not result.get("failed"), result
    assert result["changed"] is True and result["branch"]["id"] == gone["id"]
    assert result["branch"]["current_state"] == "ready"


def test_two_runs_at_once_recovering_one_branch_both_succeed_and_it_is_recovered_once(sim, collection_parent, tmp_path):
    pid = new_project(sim)["project"]["id"]
    gone = deleted_branch(sim, pid, "staging")
    sim.add_barrier(method="GET", path="/api/v2/projects/%s/branches" % pid, parties=2, timeout=60)
    args = rel.connection_args(sim, project_id=pid, branch="staging", api_timeout=RUN_TIMEOUT - 10)
    results = rel.module_process_results(
        rel.start_module_processes(collection_parent, tmp_path, "branch_recover", [args, args]), RUN_TIMEOUT)
    assert [barrier["timed_out"] for barrier in sim.barriers()] == [False]  # both listed it deleted

    for result in results:
        assert not result.get("failed"), result
        assert result["branch"]["id"] == gone["id"] and result["branch"]["current_state"] == "ready"
    assert sorted(result["changed"] for result in results) == [False, True]
    other = next(result for result in results if not result["changed"])
    assert "recovered by another run at the same time" in warnings_of(other)
    posts = [entry["status"] for entry in sim.requests() if entry["method"] == "POST" and entry["path"].endswith(
        "/branches/%s/recover" % gone["id"])]
    assert sorted(posts) == [200, 409]
    assert branch_named(sim, pid, "staging")["id"] == gone["id"]


# ---------------------------------------------------------------------------------------------- a project


def test_a_deleted_project_is_recovered_by_name_with_its_branches_and_a_rerun_changes_nothing(sim):
    name = rel.unique_name("recover")
    project = deleted_project(sim, name)
    pid = project["project"]["id"]

    checked = ok(recover_project(sim, check_mode=True, diff=True, name=name))
    assert checked["changed"] is True and checked["project"]["id"] == pid
    assert checked["diff"]["before"]["state"] == "deleted" and checked["diff"]["before"]["deleted_at"]
    assert checked["diff"]["after"]["state"] == "live"
    assert rel.api(sim, "GET", "/projects", params={"search": name})["projects"] == []

    recovered = ok(recover_project(sim, name=name))
    assert recovered["changed"] is True and recovered["project"]["id"] == pid
    assert [branch["id"] for branch in recovered["branches"]] == [project["branch"]["id"]]
    assert recovered["branches"][0]["current_state"] == "ready"
    assert recovered["recovered_from"]["deleted_at"] and "deletion_method" not in recovered["recovered_from"]
    assert rel.api(sim, "GET", "/projects/%s" % pid)["project"]["name"] == name

    seq = last_seq(sim)
    assert ok(recover_project(sim, name=name))["changed"] is False
    assert ok(recover_project(sim, project_id=pid))["changed"] is False
    assert changes_since(sim, seq) == []


def test_a_project_name_that_several_deleted_projects_had_or_a_live_one_has_is_refused(sim):
    name = rel.unique_name("recover-twice")
    first, second = deleted_project(sim, name), deleted_project(sim, name)
    seq = last_seq(sim)
    refused = failed(recover_project(sim, name=name))
    assert "2 deleted projects" in refused["msg"] and "give the id" in refused["msg"].lower()
    for project in (first, second):
        assert "id %s (deleted at " % project["project"]["id"] in refused["msg"]
    assert changes_since(sim, seq) == []

    ok(recover_project(sim, project_id=first["project"]["id"]))
    refused = failed(recover_project(sim, name=name))  # a live one of the name now, beside the deleted one
    assert "a live project named %r exists (%s)" % (name, first["project"]["id"]) in refused["msg"]
    assert "give its id" in refused["msg"] and second["project"]["id"] in refused["msg"]
    both = ok(recover_project(sim, project_id=second["project"]["id"]))
    assert both["changed"] is True and "two projects have that name" in warnings_of(both)


def test_past_the_window_on_the_clock_the_project_is_gone(sim):
    name = rel.unique_name("recover-late")
    project = deleted_project(sim, name)
    sim.advance_clock(WINDOW + 1)
    for args in (dict(name=name), dict(project_id=project["project"]["id"])):
        refused = failed(recover_project(sim, **args))
        assert "no deleted project" in refused["msg"] and "more than 7 days ago" in refused["msg"]


def test_a_404_to_a_project_recovery_fails_naming_it(sim):
    project = deleted_project(sim)
    pid = project["project"]["id"]
    sim.add_fault(method="POST", path="/api/v2/projects/%s/recover" % pid, status=404, count=1)
    refused = failed(recover_project(sim, project_id=pid))
    assert "HTTP 404" in refused["msg"] and "recovery window ended at" in refused["msg"]
    assert ok(recover_project(sim, project_id=pid))["changed"] is True
