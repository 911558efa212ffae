# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Recovery runbooks against the simulator (issue 31): branch_restore, branch's default and init_source,
branch_schema_info.

Each test runs a module in this process (rel.run_module), as a playbook task would. Rows are written and read
through the simulator's data stand-in (its control API), so "the state before the bad change" is visible after a
restore; time moves with the simulator's clock, and operations are held or failed by script, never raced.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import json

import pytest
import requests

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok
from test_provisioning_modules import (RUN_TIMEOUT, branch_named, branches, changes_since, endpoints_of, iso,
                                       new_project, requests_since, run, sim_now, wait_for_request)

ORDERS = [{"id": 1, "total": 5}, {"id": 2, "total": 7}]


# ---------------------------------------------------------------------------------------------- helpers


def data_url(sim, pid, branch_id):
    return "%s/projects/%s/branches/%s/data" % (sim.control_url, pid, branch_id)


def write(sim, pid, branch_id, table, rows, **extra):
    answer = requests.post(data_url(sim, pid, branch_id), json=dict(extra, table=table, rows=rows), timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def rows(sim, pid, branch_id, table="orders"):
    answer = requests.get(data_url(sim, pid, branch_id), timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()["databases"].get("neondb", {}).get(table)


def bad_change(sim):
    """A project whose main had ORDERS, then a bad change emptied them: (project id, main, a moment between)."""
    project = new_project(sim)
    pid, main = project["project"]["id"], project["branch"]
    write(sim, pid, main["id"], "orders", ORDERS)
    sim.advance_clock(60)
    before = iso(sim_now(sim))
    sim.advance_clock(60)
    write(sim, pid, main["id"], "orders", [])
    sim.advance_clock(5)
    return pid, main, before


def restore(sim, pid, check_mode=False, diff=False, **args):
    return run(sim, "branch_restore", check_mode=check_mode, diff=diff, project_id=pid, **args)


# ---------------------------------------------------------------------------------------------- the runbook


def test_restore_to_a_moment_before_the_bad_change_brings_the_rows_back_and_a_rerun_changes_nothing(sim):
    pid, main, before = bad_change(sim)
    child = ok(run(sim, "branch", project_id=pid, name="dev", compute=False))["branch"]
    computes = endpoints_of(sim, pid, main["id"])
    restored = ok(restore(sim, pid, diff=True, branch="main", source_timestamp=before,
                          preserve_under_name="main-before-restore"))

    assert restored["changed"] is True
    assert rows(sim, pid, main["id"]) == ORDERS  # the state before the bad change is back
    kept = restored["preserved_branch"]
    assert kept["name"] == "main-before-restore" and rows(sim, pid, kept["id"]) == []  # the bad state, kept
    branch = restored["branch"]
    assert branch["id"] == main["id"] and branch["name"] == "main" and branch["current_state"] == "ready"
    assert branch["parent_id"] == kept["id"] and branch["parent_timestamp"] == before  # read again: final values
    assert [(op["action"], op["status"]) for op in restored["operations"]] == [
        ("create_timeline", "finished"), ("start_compute", "finished")]
    # the computes stayed with the restored branch: its connection strings are the same
    assert [(ep["id"], ep["branch_id"]) for ep in restored["endpoints"]] == [(ep["id"], main["id"]) for ep in computes]
    assert branch_named(sim, pid, "dev")["parent_id"] == kept["id"] and child["id"] == branch_named(sim, pid, "dev")["id"]
    assert restored["diff"]["after"]["data"] == "its own state at %s: its data, roles and databases" % before
    assert restored["diff"]["after"]["preserved"]["children"] == ["dev"]
    assert restored["restore"] == {"source_branch_id": main["id"], "source_branch_name": "main",
                                   "source_timestamp": before, "source_lsn": None,
                                   "preserve_under_name": "main-before-restore"}

    write(sim, pid, main["id"], "orders", ORDERS + [{"id": 3, "total": 1}])  # work goes on after the restore
    seq = last_seq(sim)
    again = ok(restore(sim, pid, branch="main", source_timestamp=before, preserve_under_name="main-before-restore"))
    assert again["changed"] is False and again["operations"] == [] and not again.get("warnings")
    assert again["preserved_branch"]["id"] == kept["id"] and again["branch"]["id"] == main["id"]
    assert changes_since(sim, seq) == [] and len(requests_since(sim, seq)) == 2
    assert rows(sim, pid, main["id"]) == ORDERS + [{"id": 3, "total": 1}]  # not restored twice
    assert [item["name"] for item in branches(sim, pid)].count("main-before-restore") == 1

    other_point = iso(sim_now(sim) - datetime.timedelta(seconds=20))
    warned = ok(restore(sim, pid, branch="main", source_timestamp=other_point, preserve_under_name="main-before-restore"))
    assert warned["changed"] is False and "give another preserve_under_name" in json.dumps(warned["warnings"])


def test_a_rerun_with_another_moment_returns_the_moment_the_branch_holds_not_the_one_asked(sim):
    """Issue 37, 3.5: the restore survey run again for the same ticket with a new moment changes nothing and warns;
    restored_to is the moment of the restore the branch holds, which the page's summary prints."""
    pid, main, before = bad_change(sim)
    restored = ok(restore(sim, pid, branch="main", source_timestamp=before, preserve_under_name="main-before-INC-7"))
    assert restored["restored_to"] == {"timestamp": before, "lsn": restored["branch"]["parent_lsn"]}
    assert restored["restored_to"]["lsn"]

    later = iso(sim_now(sim) - datetime.timedelta(seconds=30))
    seq = last_seq(sim)
    again = ok(restore(sim, pid, branch="main", source_timestamp=later, preserve_under_name="main-before-INC-7"))
    assert again["changed"] is False and changes_since(sim, seq) == []
    assert "restored before to %s, not to %s" % (before, later) in json.dumps(again["warnings"])
    assert again["restored_to"] == restored["restored_to"]  # the moment held, not the one asked
    assert again["restore"]["source_timestamp"] == later  # what was asked, as the warning says
    assert rows(sim, pid, main["id"]) == ORDERS

    by_lsn = ok(restore(sim, pid, branch="main", source_lsn="0/1", preserve_under_name="main-before-INC-7"))
    assert by_lsn["changed"] is False and by_lsn["restored_to"] == restored["restored_to"]
    checked = ok(restore(sim, pid, check_mode=True, branch="main", source_timestamp=later,
                         preserve_under_name="main-before-INC-8"))
    assert checked["changed"] is True and checked["restored_to"] == {"timestamp": later, "lsn": None}


def test_restore_by_lsn_from_another_branch_and_without_a_name_to_preserve_is_a_reset_every_run(sim):
    pid, main, _before = bad_change(sim)
    staging = ok(run(sim, "branch", project_id=pid, name="staging", compute=False))["branch"]
    moment = write(sim, pid, staging["id"], "orders", [{"id": 9, "total": 1}])
    sim.advance_clock(5)
    write(sim, pid, staging["id"], "orders", [{"id": 9, "total": 2}])
    preview = ok(run(sim, "branch", project_id=pid, name="preview"))
    for _attempt in range(2):
        reset = ok(restore(sim, pid, branch="preview", source_branch="staging", source_lsn=moment["lsn"]))
        assert reset["changed"] is True and reset["preserved_branch"] is None
        assert reset["branch"]["parent_id"] == staging["id"] and reset["branch"]["parent_lsn"] == moment["lsn"]
        assert rows(sim, pid, preview["branch"]["id"]) == [{"id": 9, "total": 1}]
        assert [ep["id"] for ep in reset["endpoints"]] == [preview["endpoints"][0]["id"]]
        write(sim, pid, preview["branch"]["id"], "orders", [])
    head = ok(restore(sim, pid, branch=preview["branch"]["id"], source_branch=staging["id"]))
    assert head["changed"] is True and rows(sim, pid, preview["branch"]["id"]) == [{"id": 9, "total": 2}]
    assert main["id"] != head["branch"]["id"]


# ---------------------------------------------------------------------------------------------- refused before sending


@pytest.mark.parametrize("args, words", [
    (dict(branch="main", source_timestamp="yesterday", preserve_under_name="x"), "must be an RFC 3339 timestamp"),
    (dict(branch="main", source_timestamp="2026-01-01T00:00:00Z", source_lsn="0/1", preserve_under_name="x"),
     "mutually exclusive"),
    (dict(branch="main", source_lsn="16/B374D848/1", preserve_under_name="x"), "must be a Log Sequence Number"),
    (dict(branch="main"), "needs the point to go back to"),
    (dict(branch="main", source_branch="main", preserve_under_name="x"), "needs the point to go back to"),
    (dict(branch="main", source_lsn="0/1A"), "preserve_under_name is required"),
    (dict(branch="main", source_lsn="0/1A", preserve_under_name="main"), "must differ from the branch's own name"),
    (dict(branch="..", source_branch="dev"), "must not be '..'"),
    # not RFC 3339 (issue 31 point 4): refused naming the option, with an example, before anything is sent
    (dict(branch="main", source_timestamp="2026-05-04 02:55:00", preserve_under_name="x"),
     "source_timestamp must be an RFC 3339 timestamp, such as 2026-05-04T02:55:00Z"),
    (dict(branch="main", source_timestamp="2026-05-04T02:55:00.Z", preserve_under_name="x"), "source_timestamp must be"),
    (dict(branch="main", source_timestamp="2026-05-04T02:55:00+0200", preserve_under_name="x"), "Z or an offset +hh:mm"),
    (dict(branch="main", source_timestamp="2026-02-31T02:55:00Z", preserve_under_name="x"), "a real date"),
    (dict(branch="main", source_timestamp="2026-05-04T02:55:60Z", preserve_under_name="x"), "seconds 00 to 59"),
])
def test_bad_input_fails_before_any_request(sim, args, words):
    seq = last_seq(sim)
    refused = failed(restore(sim, "any-project-12345678", **args))
    assert words in refused["msg"] and refused.get("changed") is not True
    assert requests_since(sim, seq) == []


def test_a_point_given_with_an_offset_is_sent_in_utc_and_a_rerun_in_z_finds_it_restored(sim):
    pid, main, before = bad_change(sim)
    moment = datetime.datetime.strptime(before, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    offset = moment.astimezone(datetime.timezone(datetime.timedelta(hours=2))).strftime("%Y-%m-%dT%H:%M:%S+02:00")
    restored = ok(restore(sim, pid, branch="main", source_timestamp=offset, preserve_under_name="kept"))
    assert restored["changed"] is True and restored["restore"]["source_timestamp"] == before  # sent as ...Z
    assert restored["branch"]["parent_timestamp"] == before and rows(sim, pid, main["id"]) == ORDERS
    seq = last_seq(sim)
    again = ok(restore(sim, pid, branch="main", source_timestamp=before, preserve_under_name="kept"))
    assert again["changed"] is False and not again.get("warnings") and changes_since(sim, seq) == []


def test_a_parent_of_the_name_to_preserve_that_no_restore_made_is_refused_before_any_change(sim):
    """Review finding 1: preview was made from release-base. Restoring it from staging with preserve_under_name
    release-base is not "restored already" - release-base is its ordinary parent, older than it - and the task
    fails before anything is sent, saying to give another name. With another name, it is restored."""
    pid, main, _before = bad_change(sim)
    ok(run(sim, "branch", project_id=pid, name="release-base", compute=False))
    sim.advance_clock(5)
    ok(run(sim, "branch", project_id=pid, name="preview", parent="release-base", compute=False))
    staging = ok(run(sim, "branch", project_id=pid, name="staging", compute=False))["branch"]
    write(sim, pid, staging["id"], "orders", [{"id": 9, "total": 1}])
    preview = branch_named(sim, pid, "preview")
    for _run in range(2):  # a reset since (last_reset_at set) does not make the older parent a preserved state
        seq = last_seq(sim)
        refused = failed(restore(sim, pid, branch="preview", source_branch="staging", preserve_under_name="release-base"))
        assert "a branch named 'release-base' already exists" in refused["msg"]
        assert "before the branch" in refused["msg"] or "never restored or reset" in refused["msg"]
        assert "Give another preserve_under_name" in refused["msg"] and refused["changed"] is False
        assert changes_since(sim, seq) == [] and rows(sim, pid, preview["id"]) == []
        ok(run(sim, "branch", project_id=pid, name="preview", compute=False, reset_from_parent=True))
    kept = ok(restore(sim, pid, branch="preview", source_branch="staging", preserve_under_name="preview-before"))
    assert kept["changed"] is True and rows(sim, pid, preview["id"]) == [{"id": 9, "total": 1}]
    assert kept["preserved_branch"]["name"] == "preview-before" and kept["branch"]["parent_id"] == \
        kept["preserved_branch"]["id"]
    seq = last_seq(sim)
    again = ok(restore(sim, pid, branch="preview", source_branch="staging", preserve_under_name="preview-before"))
    assert again["changed"] is False and changes_since(sim, seq) == []


def test_what_the_listing_shows_is_refused_before_any_change(sim):
    pid, main, before = bad_change(sim)
    ok(run(sim, "branch", project_id=pid, name="dev", compute=False))
    seq = last_seq(sim)
    children = failed(restore(sim, pid, branch="main", source_branch="dev"))
    assert "preserve_under_name is required" in children["msg"] and "'dev'" in children["msg"]
    taken = failed(restore(sim, pid, branch="main", source_timestamp=before, preserve_under_name="dev"))
    assert "a branch named 'dev' already exists" in taken["msg"] and "Nothing was changed" in taken["msg"]
    itself = failed(restore(sim, pid, branch=main["id"], source_branch="main", preserve_under_name="x"))
    assert "its own source" in itself["msg"]
    unknown = failed(restore(sim, pid, branch="main", source_branch="nope", preserve_under_name="x"))
    assert "source_branch 'nope' is neither the name nor the id" in unknown["msg"]
    assert changes_since(sim, seq) == []


# ---------------------------------------------------------------------------------------------- check mode, failures, waits


def test_check_mode_says_what_would_be_restored_and_sends_nothing(sim):
    pid, main, before = bad_change(sim)
    seq = last_seq(sim)
    checked = ok(restore(sim, pid, check_mode=True, diff=True, branch="main", source_timestamp=before,
                         preserve_under_name="main-before-restore"))
    assert checked["changed"] is True and changes_since(sim, seq) == []
    assert checked["preserved_branch"] == {"id": None, "name": "main-before-restore", "parent_id": None}
    assert checked["diff"]["before"]["data"].startswith("its own state, as it is now")
    assert checked["diff"]["after"]["data"] == "its own state at %s: its data, roles and databases" % before
    assert checked["diff"]["after"]["preserved"]["name"] == "main-before-restore"
    assert rows(sim, pid, main["id"]) == [] and branch_named(sim, pid, "main-before-restore") is None


def test_a_point_outside_the_history_window_fails_with_the_services_words_and_nothing_else_is_sent(sim):
    pid, main, _before = bad_change(sim)
    too_old = iso(sim_now(sim) - datetime.timedelta(days=2))
    seq = last_seq(sim)
    refused = failed(restore(sim, pid, branch="main", source_timestamp=too_old, preserve_under_name="old"))
    assert "HTTP 400" in refused["msg"] and "history retention window (24h0m0s)" in refused["msg"]
    assert "The project keeps 24h0m0s of history" in refused["msg"] and refused["changed"] is False
    sent = requests_since(sim, seq)
    assert sent[-1] == ("POST", "/api/v2/projects/%s/branches/%s/restore" % (pid, main["id"]))
    assert [method for method, _path in sent] == ["GET", "GET", "POST"]  # nothing after the refusal


def test_a_failed_restore_operation_fails_the_task_naming_it(sim):
    pid, _main, before = bad_change(sim)
    sim.script_operations("create_timeline", project_id=pid, outcome="failed", error="timeline creation failed")
    failure = failed(restore(sim, pid, branch="main", source_timestamp=before, preserve_under_name="kept"))
    operation = [op for op in failure["operations"] if op["action"] == "create_timeline"][0]
    for part in (operation["id"], "create_timeline", "failed", "timeline creation failed",
                 "Changed by this task so far: restored branch 'main'"):
        assert part in failure["msg"], failure["msg"]
    assert failure["changed"] is True


def test_the_restores_operations_are_waited_for(sim, collection_parent, tmp_path):
    pid, main, before = bad_change(sim)
    sim.script_operations("create_timeline", project_id=pid, hold=True)
    seq = last_seq(sim)
    process, = rel.start_module_processes(collection_parent, tmp_path, "branch_restore", [
        rel.connection_args(sim, project_id=pid, branch="main", source_timestamp=before, preserve_under_name="held",
                            api_timeout=30)])
    try:
        wait_for_request(sim, seq, "POST", "/restore", status=200)
        wait_for_request(sim, seq, "GET", "/operations")  # it polls while the operation is held
        assert branch_named(sim, pid, "main")["current_state"] == "resetting"
    finally:
        sim.release_operations(pid)
    result, = rel.module_process_results([process], RUN_TIMEOUT)
    assert not result.get("failed"), result
    assert [op["status"] for op in result["operations"]] == ["finished", "finished"]
    assert result["branch"]["current_state"] == "ready" and rows(sim, pid, main["id"]) == ORDERS


def test_two_runs_at_once_restore_once_and_both_succeed(sim, collection_parent, tmp_path):
    pid, main, before = bad_change(sim)
    sim.add_barrier(method="GET", path="/api/v2/projects/%s/branches" % pid, parties=2, timeout=60)
    args = rel.connection_args(sim, project_id=pid, branch="main", source_timestamp=before,
                               preserve_under_name="main-before-restore", api_timeout=RUN_TIMEOUT - 10)
    results = rel.module_process_results(
        rel.start_module_processes(collection_parent, tmp_path, "branch_restore", [args, args]), RUN_TIMEOUT)
    assert [barrier["timed_out"] for barrier in sim.barriers()] == [False]  # both planned before either restored
    kept = branch_named(sim, pid, "main-before-restore")
    for result in results:
        assert not result.get("failed"), result
        assert result["preserved_branch"]["id"] == kept["id"] and result["branch"]["current_state"] == "ready"
    assert sorted(result["changed"] for result in results) == [False, True]
    assert "another run" in json.dumps([result.get("warnings") for result in results])
    assert rows(sim, pid, main["id"]) == ORDERS and rows(sim, pid, kept["id"]) == []


# ---------------------------------------------------------------------------------------------- the default branch


def test_default_true_names_the_previous_default_and_a_rerun_sends_nothing(sim):
    project = new_project(sim)
    pid, main = project["project"]["id"], project["branch"]
    made = ok(run(sim, "branch", diff=True, project_id=pid, name="release", compute=False, default=True))
    assert made["changed"] is True and made["branch"]["default"] is True
    assert made["previous_default"] == {"id": main["id"], "name": "main"}
    assert made["diff"]["after"]["default"] is True
    assert branch_named(sim, pid, "main")["default"] is False and branch_named(sim, pid, "release")["default"] is True

    seq = last_seq(sim)
    again = ok(run(sim, "branch", project_id=pid, name="release", compute=False, default=True))
    assert again["changed"] is False and again["previous_default"]["name"] == "release"
    assert changes_since(sim, seq) == [] and len(requests_since(sim, seq)) <= 2

    checked = ok(run(sim, "branch", check_mode=True, diff=True, project_id=pid, name="main", compute=False,
                     default=True))
    assert checked["changed"] is True and checked["branch"]["default"] is True
    assert (checked["diff"]["before"]["default"], checked["diff"]["after"]["default"]) == (False, True)
    back = ok(run(sim, "branch", project_id=pid, name="main", compute=False, default=True))
    assert back["changed"] is True and back["previous_default"]["name"] == "release"
    assert branch_named(sim, pid, "main")["default"] is True

    seq = last_seq(sim)
    refused = failed(run(sim, "branch", project_id=pid, name="main", compute=False, default=False))
    assert "set default: true on the branch that is to be the default instead" in refused["msg"]
    assert refused["changed"] is False and changes_since(sim, seq) == []
    expiry = iso(sim_now(sim) + datetime.timedelta(days=3))
    expiring = failed(run(sim, "branch", project_id=pid, name="short-lived", compute=False, default=True,
                          expires_at=expiry))
    assert "default branch (default: true) cannot have an expiry" in expiring["msg"]
    assert changes_since(sim, seq) == [] and branch_named(sim, pid, "short-lived") is None


# ---------------------------------------------------------------------------------------------- a branch's points in time


@pytest.mark.parametrize("args, words", [
    (dict(parent_timestamp="2026-05-04 02:55"), "parent_timestamp must be an RFC 3339 timestamp"),
    (dict(parent_timestamp="2026-05-04T02:55:00"), "parent_timestamp must be an RFC 3339 timestamp"),
    (dict(parent_lsn="0/1/2"), "parent_lsn must be a Log Sequence Number"),
    (dict(expires_at="2026-06-31T00:00:00Z"), "expires_at must be an RFC 3339 timestamp"),
    (dict(expires_at="tomorrow"), "expires_at must be an RFC 3339 timestamp"),
])
def test_a_branchs_point_or_expiry_that_cannot_be_sent_fails_before_any_request(sim, args, words):
    seq = last_seq(sim)
    refused = failed(run(sim, "branch", project_id="any-project-12345678", name="pr-1", **args))
    assert words in refused["msg"] and requests_since(sim, seq) == []


def test_a_branchs_point_and_expiry_given_with_an_offset_are_sent_in_utc(sim):
    pid, main, before = bad_change(sim)
    moment = datetime.datetime.strptime(before, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    east = datetime.timezone(datetime.timedelta(hours=5, minutes=30))
    expiry = (sim_now(sim) + datetime.timedelta(days=3)).replace(microsecond=0)
    made = ok(run(sim, "branch", project_id=pid, name="then", compute=False,
                  parent_timestamp=moment.astimezone(east).strftime("%Y-%m-%dT%H:%M:%S+05:30"),
                  expires_at=expiry.astimezone(east).strftime("%Y-%m-%dT%H:%M:%S+05:30")))
    assert made["branch"]["parent_timestamp"] == before and made["branch"]["expires_at"] == iso(expiry)
    assert rows(sim, pid, made["branch"]["id"]) == ORDERS
    seq = last_seq(sim)
    again = ok(run(sim, "branch", project_id=pid, name="then", compute=False, parent_timestamp=before,
                   expires_at=iso(expiry)))
    assert again["changed"] is False and changes_since(sim, seq) == []


# ---------------------------------------------------------------------------------------------- schema-only and schema


def test_a_schema_only_branch_has_the_schema_and_no_rows_and_a_rerun_does_not_flap(sim):
    pid, main, _before = bad_change(sim)
    write(sim, pid, main["id"], "orders", ORDERS)
    args = dict(project_id=pid, name="no-data", parent="main", init_source="schema-only")
    made = ok(run(sim, "branch", **args))
    assert made["changed"] is True and made["branch"].get("parent_id") is None
    assert made["branch"]["init_source"] == "schema-only" and rows(sim, pid, made["branch"]["id"]) == []
    seq = last_seq(sim)
    again = ok(run(sim, "branch", **args))
    assert again["changed"] is False and changes_since(sim, seq) == []
    same = ok(run(sim, "branch_schema_info", project_id=pid, branch="no-data", database="neondb",
                  compare_to={"branch": "main"}))
    assert same["differs"] is False and same["schema_diff"] == ""
    refused = failed(run(sim, "branch", project_id=pid, name="no-data", init_source="parent-data"))
    assert "init_source is 'schema-only', not 'parent-data'" in refused["msg"]


def test_a_schema_drift_check_before_a_deploy(sim):
    project = new_project(sim)
    pid, main = project["project"]["id"], project["branch"]
    write(sim, pid, main["id"], "orders", ORDERS)
    sim.advance_clock(1)
    staging = ok(run(sim, "branch", project_id=pid, name="staging", compute=False))["branch"]
    sim.advance_clock(5)
    before = iso(sim_now(sim))
    sim.advance_clock(5)
    write(sim, pid, staging["id"], "orders", [{"id": 1, "total": 5, "email": "a@example.com"}])

    seq = last_seq(sim)
    drift = ok(run(sim, "branch_schema_info", project_id=pid, branch="staging", database="neondb",
                   compare_to={"branch": "main"}))
    assert drift["differs"] is True and drift["changed"] is False
    assert drift["schema_diff"].startswith("--- a/neondb\n+++ b/neondb\n@@") and "+    email text" in drift["schema_diff"]
    assert (drift["branch_id"], drift["compare_to_branch_id"]) == (staging["id"], main["id"])
    assert len(requests_since(sim, seq)) == 2 and changes_since(sim, seq) == []
    at_point = ok(run(sim, "branch_schema_info", project_id=pid, branch="staging", database="neondb",
                      timestamp=before, compare_to={"branch": "main"}))
    assert at_point["differs"] is False

    sql = ok(run(sim, "branch_schema_info", project_id=pid, branch="staging", database="neondb"))
    assert "CREATE TABLE public.orders (" in sql["sql"] and "email text" in sql["sql"] and "json" not in sql
    tables = ok(run(sim, "branch_schema_info", project_id=pid, branch="main", database="neondb", format="json"))
    assert [column["name"] for column in tables["json"]["tables"][0]["columns"]] == ["id", "total"]
    missing = failed(run(sim, "branch_schema_info", project_id=pid, branch="main", database="nope"))
    assert "HTTP 404" in missing["msg"] and "database not found" in missing["msg"]


def test_a_schema_point_given_with_an_offset_is_asked_in_utc(sim):
    project = new_project(sim)
    pid, main = project["project"]["id"], project["branch"]
    write(sim, pid, main["id"], "orders", ORDERS)
    sim.advance_clock(5)
    moment = sim_now(sim).replace(microsecond=0)
    seq = last_seq(sim)
    offset = moment.astimezone(datetime.timezone(datetime.timedelta(hours=-5))).strftime("%Y-%m-%dT%H:%M:%S-05:00")
    schema = ok(run(sim, "branch_schema_info", project_id=pid, branch="main", database="neondb", timestamp=offset))
    assert "CREATE TABLE public.orders" in schema["sql"]
    asked = [entry["query"] for entry in sim.requests(since=seq) if entry["path"].endswith("/schema")]
    assert asked == ["timestamp=%s&db_name=neondb&format=sql" % iso(moment).replace(":", "%3A")]


@pytest.mark.parametrize("args, words", [
    (dict(timestamp="now"), "timestamp must be an RFC 3339 timestamp"),
    (dict(timestamp="2026-01-01T00:00:00"), "timestamp must be an RFC 3339 timestamp"),
    (dict(compare_to={"branch": "main", "timestamp": "2026-01-01 00:00"}), "compare_to.timestamp must be an RFC"),
    (dict(lsn="zz/1"), "lsn must be a Log Sequence Number"),
    (dict(compare_to={"branch": "main", "lsn": "1"}), "compare_to.lsn must be a Log Sequence Number"),
    (dict(timestamp="2026-01-01T00:00:00Z", lsn="0/1"), "mutually exclusive"),
])
def test_schema_info_bad_input_fails_before_any_request(sim, args, words):
    seq = last_seq(sim)
    refused = failed(run(sim, "branch_schema_info", project_id="any-project-12345678", branch="main",
                         database="neondb", **args))
    assert words in refused["msg"] and requests_since(sim, seq) == []
