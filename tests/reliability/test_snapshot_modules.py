# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Snapshots, their restore and backup schedules (snapshot, snapshot_info, snapshot_restore, snapshot_schedule)
against the simulator.

Each test runs the modules in this process, as playbook tasks would, and checks what a user would
notice: the rows a branch holds (the simulator's data stand-in, written and read through its control
API), the branches' names and computes, what the result says, and which requests were sent (none that
change anything for refused input, in check mode or on a rerun). "Snapshot, change, roll back" is the
issue's block/rescue, run task by task.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import json

import requests

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok
from test_provisioning_modules import branch_named, changes_since, endpoints_of, iso, new_project, requests_since, run, sim_now

BEFORE = [{"id": 1, "item": "book"}]
AFTER = [{"id": 1, "item": "book", "price": None}]  # what a bad migration left


# ---------------------------------------------------------------------------------------------- helpers


def data_url(sim, project_id, branch_id):
    return "%s/projects/%s/branches/%s/data" % (sim.control_url, project_id, branch_id)


def write(sim, project_id, branch_id, rows, table="orders"):
    answer = requests.post(data_url(sim, project_id, branch_id), json={"table": table, "rows": rows}, timeout=10)
    answer.raise_for_status()
    return answer.json()


def rows(sim, project_id, branch_id, table="orders"):
    answer = requests.get(data_url(sim, project_id, branch_id), timeout=10)
    answer.raise_for_status()
    return answer.json()["databases"]["neondb"].get(table)


def project_with_rows(sim, **project):
    """A new project (a free plan's: one manual snapshot) whose branch main holds BEFORE; (project id, main)."""
    created = new_project(sim, **project)
    pid, main = created["project"]["id"], created["branch"]
    write(sim, pid, main["id"], BEFORE)
    sim.advance_clock(1)
    return pid, main


def org_project(sim):
    """A project of the seeded organization (a paid plan: schedules, ten manual snapshots); (project id, main)."""
    project = sim.create_project(name=rel.unique_name("snap-org"), org_id=sim.org_id)
    main = [branch for branch in rel.api(sim, "GET", "/projects/%s/branches" % project["id"])["branches"]
            if branch["default"]][0]
    return project["id"], main


def child_of(sim, project_id, parent_id, name):
    body = {"branch": {"name": name, "parent_id": parent_id}}
    created = rel.api(sim, "POST", "/projects/%s/branches" % project_id, json=body)
    sim.advance_clock(5)
    return created["branch"]


def snapshots(sim, project_id):
    return rel.api(sim, "GET", "/projects/%s/snapshots" % project_id)["snapshots"]


def connection(sim, project_id, branch):
    return ok(run(sim, "connection_info", project_id=project_id, branch=branch, role="neondb_owner",
                  database="neondb"))


# ---------------------------------------------------------------------------------------------- snapshot


def test_a_snapshot_is_taken_once_waited_for_and_a_rerun_sends_no_change(sim):
    pid, main = project_with_rows(sim)
    seq = last_seq(sim)
    taken = ok(run(sim, "snapshot", project_id=pid, name="before-migration"))
    assert taken["changed"] is True and taken["branch_id"] == main["id"]
    assert taken["snapshot"]["name"] == "before-migration" and taken["snapshot"]["source_branch_id"] == main["id"]
    assert [(op["action"], op["status"]) for op in taken["operations"]] == [("create_timeline", "finished")]
    created = [(entry["path"], entry["query"]) for entry in sim.requests(since=seq) if entry["method"] == "POST"]
    assert created == [("/api/v2/projects/%s/branches/%s/snapshot" % (pid, main["id"]), "name=before-migration")]

    seq = last_seq(sim)
    again = ok(run(sim, "snapshot", project_id=pid, branch="main", name="before-migration"))
    assert again["changed"] is False and again["snapshot"]["id"] == taken["snapshot"]["id"]
    assert changes_since(sim, seq) == [] and len(requests_since(sim, seq)) == 3  # branches, snapshots, operations
    assert [snapshot["name"] for snapshot in snapshots(sim, pid)] == ["before-migration"]


def test_a_snapshot_at_a_moment_keeps_the_rows_of_that_moment(sim):
    created = new_project(sim)
    pid, main = created["project"]["id"], created["branch"]
    written = write(sim, pid, main["id"], BEFORE)
    sim.advance_clock(60)
    write(sim, pid, main["id"], AFTER)
    taken = ok(run(sim, "snapshot", project_id=pid, name="at-write", timestamp=written["timestamp"]))
    assert taken["snapshot"]["lsn"] == written["lsn"]

    restored = ok(run(sim, "snapshot_restore", project_id=pid, snapshot="at-write", name="look"))
    assert rows(sim, pid, restored["branch"]["id"]) == BEFORE and rows(sim, pid, main["id"]) == AFTER
    again = ok(run(sim, "snapshot", project_id=pid, name="at-write", lsn=written["lsn"].lower()))
    assert again["changed"] is False


def test_a_moment_given_with_an_offset_is_sent_in_utc_ending_in_z(sim):
    created = new_project(sim)
    pid, main = created["project"]["id"], created["branch"]
    written = write(sim, pid, main["id"], BEFORE)
    sim.advance_clock(60)
    write(sim, pid, main["id"], AFTER)
    moment = datetime.datetime.strptime(written["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc)
    offset = moment.astimezone(datetime.timezone(datetime.timedelta(hours=-3))).strftime("%Y-%m-%dT%H:%M:%S.%f-03:00")
    expires = (sim_now(sim) + datetime.timedelta(days=2)).replace(microsecond=0)
    seq = last_seq(sim)
    taken = ok(run(sim, "snapshot", project_id=pid, name="at-write", timestamp=offset,
                   expires_at=expires.astimezone(datetime.timezone(datetime.timedelta(hours=1))).isoformat()))
    query = [entry["query"] for entry in sim.requests(since=seq) if entry["method"] == "POST"]
    fraction = written["timestamp"][20:-1].rstrip("0")  # sent without trailing zeros: .120000 is .12
    in_utc = written["timestamp"][:19] + ("." + fraction if fraction else "") + "Z"
    assert query == ["name=at-write&timestamp=%s&expires_at=%s" % (
        in_utc.replace(":", "%3A"), iso(expires).replace(":", "%3A"))]
    assert taken["snapshot"]["lsn"] == written["lsn"]
    seq = last_seq(sim)
    assert ok(run(sim, "snapshot", project_id=pid, name="at-write", timestamp=written["timestamp"]))["changed"] is False
    assert changes_since(sim, seq) == []


def test_a_snapshot_of_a_child_branch_fails_with_the_reason_before_any_change(sim):
    pid, main = project_with_rows(sim)
    child = child_of(sim, pid, main["id"], "dev")
    seq = last_seq(sim)
    refused = failed(run(sim, "snapshot", project_id=pid, branch="dev", name="of-dev"))
    assert "'dev' (%s) is a child of %s" % (child["id"], main["id"]) in refused["msg"]
    assert "only of root branches" in refused["msg"] and "Nothing was changed" in refused["msg"]
    assert refused["changed"] is False and changes_since(sim, seq) == [] and snapshots(sim, pid) == []


def test_refused_input_sends_no_request(sim):
    pid = new_project(sim)["project"]["id"]
    seq = last_seq(sim)
    for args, said in ((dict(timestamp="yesterday"), "timestamp must be an RFC 3339 timestamp"),
                       (dict(lsn="1A2B"), "lsn must be a Log Sequence Number"),
                       (dict(expires_at="next week"), "expires_at must be an RFC 3339 timestamp"),
                       (dict(timestamp="2026-01-31 22:00:00"), "such as 2026-05-04T02:55:00Z"),
                       (dict(timestamp="2026-01-31T22:00:00+0100"), "timestamp must be an RFC 3339 timestamp"),
                       (dict(expires_at="2026-02-30T00:00:00Z"), "expires_at must be an RFC 3339 timestamp"),
                       (dict(expires_at="2026-12-31T23:59:60Z"), "seconds 00 to 59"),
                       (dict(timestamp="2026-01-31T22:00:00Z", lsn="0/1A"), "mutually exclusive")):
        assert said in failed(run(sim, "snapshot", project_id=pid, name="x", **args))["msg"]
    assert "day is required for a weekly item" in failed(run(
        sim, "snapshot_schedule", project_id=pid, branch="main", schedule=[{"frequency": "weekly", "hour": 3}]))["msg"]
    assert "must be one of: daily, weekly, monthly" in failed(run(
        sim, "snapshot_schedule", project_id=pid, schedule=[{"frequency": "hourly", "hour": 3}]))["msg"]
    assert "name must not be empty" in failed(run(sim, "snapshot_restore", project_id=pid, snapshot="s", name=" "))["msg"]
    assert requests_since(sim, seq) == []


def test_a_point_outside_the_history_window_fails_with_the_services_words(sim):
    pid = new_project(sim, history_retention_seconds=3600)["project"]["id"]
    long_ago = iso(sim_now(sim) - datetime.timedelta(hours=5))
    refused = failed(run(sim, "snapshot", project_id=pid, name="old", timestamp=long_ago))
    assert "HTTP 400" in refused["msg"] and "outside the restore window" in refused["msg"] and "1h0m0s" in refused["msg"]
    assert snapshots(sim, pid) == []


def patches_since(sim, seq):
    return [path for method, path in changes_since(sim, seq) if method == "PATCH"]


def test_an_expiry_that_differs_is_updated_once_and_a_rerun_changes_nothing(sim):
    pid, main = project_with_rows(sim)
    expires = iso(sim_now(sim) + datetime.timedelta(days=7))
    taken = ok(run(sim, "snapshot", project_id=pid, name="weekly-check", expires_at=expires))["snapshot"]
    seq = last_seq(sim)
    later = iso(sim_now(sim) + datetime.timedelta(days=14))
    updated = ok(run(sim, "snapshot", diff=True, project_id=pid, name="weekly-check", expires_at=later))
    assert updated["changed"] is True and updated["snapshot"]["expires_at"] == later
    assert updated["diff"]["before"]["expires_at"] == expires and updated["diff"]["after"]["expires_at"] == later
    assert not updated.get("warnings")
    # one PATCH of that snapshot, taken by the service: the same snapshot, its expiry moved
    assert patches_since(sim, seq) == ["/api/v2/projects/%s/snapshots/%s" % (pid, taken["id"])]
    assert [(item["id"], item["expires_at"]) for item in snapshots(sim, pid)] == [(taken["id"], later)]
    seq = last_seq(sim)
    again = ok(run(sim, "snapshot", project_id=pid, name="weekly-check", expires_at=later))
    assert again["changed"] is False and changes_since(sim, seq) == []
    seq = last_seq(sim)  # without expires_at, its expiry is left as it is
    assert ok(run(sim, "snapshot", project_id=pid, name="weekly-check"))["changed"] is False
    assert changes_since(sim, seq) == [] and snapshots(sim, pid)[0]["expires_at"] == later


def test_an_empty_expiry_removes_it_and_takes_a_snapshot_that_never_expires(sim):
    pid, main = project_with_rows(sim)
    ok(run(sim, "snapshot", project_id=pid, name="keep", expires_at=iso(sim_now(sim) + datetime.timedelta(days=3))))
    removed = ok(run(sim, "snapshot", project_id=pid, name="keep", expires_at=""))
    assert removed["changed"] is True and "expires_at" not in removed["snapshot"]
    assert "expires_at" not in snapshots(sim, pid)[0]
    seq = last_seq(sim)
    assert ok(run(sim, "snapshot", project_id=pid, name="keep", expires_at=""))["changed"] is False
    assert changes_since(sim, seq) == []
    ok(run(sim, "snapshot", project_id=pid, name="keep", state="absent"))
    seq = last_seq(sim)
    taken = ok(run(sim, "snapshot", project_id=pid, name="forever", expires_at=""))
    assert taken["changed"] is True and "expires_at" not in snapshots(sim, pid)[0]
    assert [entry["query"] for entry in sim.requests(since=seq) if entry["method"] == "POST"] == ["name=forever"]


def test_check_mode_of_an_expiry_change_sends_nothing_and_shows_it(sim):
    pid, main = project_with_rows(sim)
    expires = iso(sim_now(sim) + datetime.timedelta(days=7))
    ok(run(sim, "snapshot", project_id=pid, name="planned-expiry", expires_at=expires))
    later = iso(sim_now(sim) + datetime.timedelta(days=10))
    seq = last_seq(sim)
    checked = ok(run(sim, "snapshot", check_mode=True, diff=True, project_id=pid, name="planned-expiry",
                     expires_at=later))
    assert checked["changed"] is True and checked["snapshot"]["expires_at"] == later
    assert (checked["diff"]["before"]["expires_at"], checked["diff"]["after"]["expires_at"]) == (expires, later)
    assert changes_since(sim, seq) == [] and snapshots(sim, pid)[0]["expires_at"] == expires


def test_an_update_answered_without_the_expiry_asked_fails_saying_so(sim):
    """A service that takes the PATCH but not the expiry (as the live one did until its backend release, website
    #5317): the task fails naming what the answer holds, never reporting a change that did not happen."""
    pid, main = project_with_rows(sim)
    expires = iso(sim_now(sim) + datetime.timedelta(days=7))
    taken = ok(run(sim, "snapshot", project_id=pid, name="stubborn", expires_at=expires))["snapshot"]
    unchanged = json.dumps({"snapshot": taken})
    sim.add_fault(method="PATCH", path="/api/v2/projects/%s/snapshots/*" % pid, status=200, body=unchanged)
    later = iso(sim_now(sim) + datetime.timedelta(days=14))
    refused = failed(run(sim, "snapshot", project_id=pid, name="stubborn", expires_at=later))
    assert "with an expiry of %s, not %s as asked" % (expires, later) in refused["msg"]
    assert snapshots(sim, pid)[0]["expires_at"] == expires


def test_check_mode_sends_no_change_and_the_diff_shows_the_snapshot(sim):
    pid, main = project_with_rows(sim)
    seq = last_seq(sim)
    checked = ok(run(sim, "snapshot", check_mode=True, diff=True, project_id=pid, name="planned"))
    assert checked["changed"] is True and checked["snapshot"]["id"] is None
    planned = {"name": "planned", "branch": main["id"], "timestamp": None, "lsn": None, "expires_at": None}
    assert checked["diff"] == {"before": {}, "after": planned}
    assert changes_since(sim, seq) == [] and snapshots(sim, pid) == []

    ok(run(sim, "snapshot", project_id=pid, name="planned"))
    seq = last_seq(sim)
    deleting = ok(run(sim, "snapshot", check_mode=True, diff=True, project_id=pid, name="planned", state="absent"))
    assert deleting["changed"] is True and deleting["diff"]["after"] == {} and changes_since(sim, seq) == []
    assert len(snapshots(sim, pid)) == 1


def test_a_delete_answered_202_is_waited_for_and_a_rerun_is_unchanged(sim):
    pid, main = project_with_rows(sim)
    taken = ok(run(sim, "snapshot", project_id=pid, name="gone-soon"))
    deleted = ok(run(sim, "snapshot", project_id=pid, name="gone-soon", state="absent"))
    assert deleted["changed"] is True and deleted["snapshot"]["id"] == taken["snapshot"]["id"]
    assert [(op["action"], op["status"]) for op in deleted["operations"]] == [("delete_timeline", "finished")]
    assert snapshots(sim, pid) == []
    seq = last_seq(sim)
    again = ok(run(sim, "snapshot", project_id=pid, name="gone-soon", state="absent"))
    assert again["changed"] is False and again["snapshot"] is None and len(requests_since(sim, seq)) == 1


def test_past_the_free_plans_one_manual_snapshot_the_services_refusal_is_the_message(sim):
    pid, main = project_with_rows(sim)
    ok(run(sim, "snapshot", project_id=pid, name="first"))
    refused = failed(run(sim, "snapshot", project_id=pid, name="second"))
    assert "HTTP 422" in refused["msg"] and "manual snapshots limit of 1 exceeded" in refused["msg"]
    assert refused["changed"] is False


def test_a_snapshot_refused_for_the_limit_names_the_snapshot_that_holds_it(sim):
    """Issue 37, 3.1: after a rollback that kept its snapshot, the next run's snapshot failed with the service's
    words alone; the message names the manual snapshot that holds the limit, and the branch it was taken of as it
    is named now."""
    pid, main = project_with_rows(sim)
    first = ok(run(sim, "snapshot", project_id=pid, name="before-migration-1"))["snapshot"]
    ok(run(sim, "snapshot_restore", project_id=pid, snapshot="before-migration-1", name="main-rollback",
           finalize=True))
    sim.state.snapshots.take_scheduled_snapshot(pid, branch_named(sim, pid, "main")["id"], {"name": "nightly"})
    seq = last_seq(sim)
    refused = failed(run(sim, "snapshot", project_id=pid, name="before-migration-2"))
    assert "manual snapshots limit of 1 exceeded" in refused["msg"]
    assert "The project holds 1 manual snapshot, which the plan's limit counts" in refused["msg"]
    assert "'before-migration-1' (%s, of branch %s 'main (old)'" % (first["id"], main["id"]) in refused["msg"]
    assert "nightly" not in refused["msg"] and "state: absent" in refused["msg"]
    assert refused["changed"] is False and "Nothing was changed" in refused["msg"]
    assert [entry[0] for entry in changes_since(sim, seq)] == ["POST"]  # the refused one alone


def test_snapshot_info_lists_them_by_name_and_by_branch(sim):
    pid, main = org_project(sim)
    ok(run(sim, "snapshot", project_id=pid, name="by-hand"))
    scheduled = requests.post("%s/projects/%s/branches/%s/scheduled_snapshot" % (sim.control_url, pid, main["id"]),
                              json={"name": "nightly"}, timeout=10).json()["snapshot"]
    everything = ok(run(sim, "snapshot_info", project_id=pid))["snapshots"]
    assert sorted((item["name"], item["manual"]) for item in everything) == [("by-hand", True), ("nightly", False)]
    assert [item["id"] for item in ok(run(sim, "snapshot_info", project_id=pid, name="nightly"))["snapshots"]] == \
        [scheduled["id"]]
    assert len(ok(run(sim, "snapshot_info", project_id=pid, branch="main"))["snapshots"]) == 2
    assert ok(run(sim, "snapshot_info", project_id=pid, branch="br-gone-long-ago"))["snapshots"] == []
    missing = failed(run(sim, "snapshot_info", project_id="no-such-project-1"))
    assert "there is no project no-such-project-1" in missing["msg"]


# ---------------------------------------------------------------------------------------------- restore


def test_a_restore_for_a_look_then_its_finalize_each_happen_once(sim):
    pid, main = project_with_rows(sim)
    ok(run(sim, "snapshot", project_id=pid, name="good"))
    write(sim, pid, main["id"], AFTER)
    host = endpoints_of(sim, pid, main["id"])[0]["host"]

    look = ok(run(sim, "snapshot_restore", project_id=pid, snapshot="good", name="main-restored"))
    assert look["changed"] is True and look["finalized"] is False and look["replaced_branch"] is None
    assert (look["branch"]["name"], look["branch"]["restore_status"]) == ("main-restored", "restored")
    assert look["branch"]["current_state"] == "ready" and look["endpoints"] == []
    assert rows(sim, pid, look["branch"]["id"]) == BEFORE and rows(sim, pid, main["id"]) == AFTER
    seq = last_seq(sim)
    assert ok(run(sim, "snapshot_restore", project_id=pid, snapshot="good", name="main-restored"))["changed"] is False
    assert changes_since(sim, seq) == [] and len(requests_since(sim, seq)) == 4  # snapshots, branches, operations, computes

    seq = last_seq(sim)
    done = ok(run(sim, "snapshot_restore", project_id=pid, snapshot="good", name="main-restored", finalize=True))
    assert changes_since(sim, seq) == [("POST", "/api/v2/projects/%s/branches/%s/finalize_restore" % (
        pid, look["branch"]["id"]))]
    assert done["changed"] is True and done["finalized"] is True
    assert (done["branch"]["id"], done["branch"]["name"]) == (look["branch"]["id"], "main")
    assert done["replaced_branch"]["id"] == main["id"] and done["replaced_branch"]["name"] == "main (old)"
    assert [endpoint["host"] for endpoint in done["endpoints"]] == [host]
    assert all(op["status"] == "finished" for op in done["operations"])
    seq = last_seq(sim)
    again = ok(run(sim, "snapshot_restore", project_id=pid, snapshot="good", name="main-restored", finalize=True))
    assert again["changed"] is False and again["branch"]["id"] == done["branch"]["id"] and changes_since(sim, seq) == []
    assert again["replaced_branch"]["name"] == "main (old)"


def test_finalize_of_a_branch_not_restored_from_the_snapshot_fails_before_any_change(sim):
    pid, main = project_with_rows(sim)
    ok(run(sim, "snapshot", project_id=pid, name="good"))
    child_of(sim, pid, main["id"], "staging")
    seq = last_seq(sim)
    refused = failed(run(sim, "snapshot_restore", project_id=pid, snapshot="good", name="staging", finalize=True))
    assert "cannot be finalized" in refused["msg"] and "not restored from a snapshot" in refused["msg"]
    assert refused["changed"] is False and changes_since(sim, seq) == []
    missing = failed(run(sim, "snapshot_restore", project_id=pid, snapshot="nope", name="x"))
    assert "has no snapshot 'nope'" in missing["msg"]


def test_restore_check_mode_says_what_would_be_restored_and_finalized_and_sends_nothing(sim):
    pid, main = project_with_rows(sim)
    taken = ok(run(sim, "snapshot", project_id=pid, name="good"))["snapshot"]
    endpoint = endpoints_of(sim, pid, main["id"])[0]
    seq = last_seq(sim)
    checked = ok(run(sim, "snapshot_restore", check_mode=True, diff=True, project_id=pid, snapshot="good",
                     name="main-restored", finalize=True))
    assert checked["changed"] is True and changes_since(sim, seq) == []
    assert checked["diff"]["before"] == {"target_branch": {"id": main["id"], "name": "main"}, "restored_branch": None}
    assert checked["diff"]["after"] == {
        "target_branch": {"id": main["id"], "name": "main (old)"},
        "restored_branch": {"id": None, "name": "main", "restored_from": "good (%s)" % taken["id"],
                            "snapshot_timestamp": taken["timestamp"], "restore_status": "finalized",
                            "computes": [endpoint["id"]]}}
    assert checked["replaced_branch"]["name"] == "main (old)" and checked["finalized"] is True
    assert [branch["name"] for branch in rel.api(sim, "GET", "/projects/%s/branches" % pid)["branches"]] == ["main"]


def test_held_operations_of_a_restore_and_its_finalize_are_waited_for(sim):
    pid, main = project_with_rows(sim)
    ok(run(sim, "snapshot", project_id=pid, name="good"))
    sim.script_operations("create_branch", project_id=pid, reads_in_progress=3)
    sim.script_operations("start_compute", project_id=pid, reads_in_progress=3)
    seq = last_seq(sim)
    done = ok(run(sim, "snapshot_restore", project_id=pid, snapshot="good", name="main-restored", finalize=True))
    polls = [path for method, path in requests_since(sim, seq) if method == "GET" and "/operations" in path]
    assert len(polls) >= 3, "returned without waiting for the held operations"
    assert {op["action"]: op["status"] for op in done["operations"]}["create_branch"] == "finished"
    assert all(op["status"] == "finished" for op in done["operations"])
    assert done["branch"]["current_state"] == "ready" and done["endpoints"][0]["current_state"] == "active"


def test_a_failed_restore_operation_fails_the_task_naming_it_and_what_was_done(sim):
    pid, main = project_with_rows(sim)
    ok(run(sim, "snapshot", project_id=pid, name="good"))
    sim.script_operations("create_branch", project_id=pid, outcome="failed", error="timeline creation failed")
    refused = failed(run(sim, "snapshot_restore", project_id=pid, snapshot="good", name="main-restored"))
    assert refused["changed"] is True and "1 of its 1 operations ended badly" in refused["msg"]
    assert "create_branch" in refused["msg"] and "timeline creation failed" in refused["msg"]
    assert "Changed by this task so far: snapshot 'good'" in refused["msg"] and refused["branch"]["name"] == "main-restored"


def test_snapshot_change_roll_back_as_one_block_and_rescue(sim):
    """The issue's runbook: snapshot the branch, the change fails, the rescue restores the snapshot with finalize.
    Afterwards main holds the snapshot's rows under its old name, with its computes, and its connection string
    (the same compute host, the same role and password) still reaches it. A rerun of the rescue changes nothing."""
    pid, main = project_with_rows(sim)
    before = connection(sim, pid, "main")
    computes = sorted(endpoint["id"] for endpoint in endpoints_of(sim, pid, main["id"]))

    # block:
    ok(run(sim, "snapshot", project_id=pid, branch="main", name="before-migration-42"))
    write(sim, pid, main["id"], AFTER)  # the migration's first step ...
    migration_failed = True  # ... and its second step fails: the rescue runs
    assert rows(sim, pid, main["id"]) == AFTER

    # rescue:
    assert migration_failed
    rolled_back = ok(run(sim, "snapshot_restore", project_id=pid, snapshot="before-migration-42",
                         name="main-rollback", finalize=True))
    assert rolled_back["changed"] is True and rolled_back["finalized"] is True

    now_main = branch_named(sim, pid, "main")
    assert now_main["id"] == rolled_back["branch"]["id"] != main["id"] and now_main["default"] is True
    assert rows(sim, pid, now_main["id"]) == BEFORE
    assert sorted(endpoint["id"] for endpoint in endpoints_of(sim, pid, now_main["id"])) == computes
    old = rolled_back["replaced_branch"]
    assert (old["id"], old["name"]) == (main["id"], "main (old)") and rows(sim, pid, old["id"]) == AFTER
    after = connection(sim, pid, "main")
    assert after["host"] == before["host"] and after["uri"] == before["uri"]
    assert sim.password_valid(pid, now_main["id"], "neondb_owner", after["password"])

    # The whole runbook again, with the same snapshot name (issue 37, 4.1): main is a new branch, and the snapshot of
    # that name was taken of the one it replaced by the finalized restore - the snapshot asked, left as it is; the
    # rescue restores nothing again.
    seq = last_seq(sim)
    taken = ok(run(sim, "snapshot", project_id=pid, branch="main", name="before-migration-42"))
    assert taken["changed"] is False and taken["branch_id"] == now_main["id"]
    assert taken["snapshot"]["source_branch_id"] == main["id"]
    assert (taken["taken_of"]["id"], taken["taken_of"]["name"]) == (main["id"], "main (old)")
    assert "which had the name 'main' until a finalized restore" in taken["taken_of"]["note"]
    again = ok(run(sim, "snapshot_restore", project_id=pid, snapshot="before-migration-42", name="main-rollback",
                   finalize=True))
    assert again["changed"] is False and again["branch"]["id"] == now_main["id"] and changes_since(sim, seq) == []
    assert rows(sim, pid, now_main["id"]) == BEFORE

    # A truly different branch's snapshot of that name is still refused
    ok(run(sim, "branch", project_id=pid, name="other-root", init_source="schema-only"))
    refused = failed(run(sim, "snapshot", project_id=pid, branch="other-root", name="before-migration-42"))
    assert "taken of branch %s, not of branch 'other-root'" % main["id"] in refused["msg"]


# ---------------------------------------------------------------------------------------------- schedules

NIGHTLY = {"frequency": "daily", "hour": 2, "retention_seconds": 604800}
SUNDAYS = {"frequency": "weekly", "day": 7, "hour": 3}


def test_a_schedule_is_set_once_and_found_as_asked_in_one_read_by_id_two_by_name(sim):
    pid, main = org_project(sim)
    seq = last_seq(sim)
    checked = ok(run(sim, "snapshot_schedule", check_mode=True, diff=True, project_id=pid, branch="main",
                     schedule=[NIGHTLY, SUNDAYS]))
    assert checked["changed"] is True and changes_since(sim, seq) == []
    assert checked["diff"] == {"before": {"schedule": []}, "after": {"schedule": [NIGHTLY, SUNDAYS]}}

    done = ok(run(sim, "snapshot_schedule", diff=True, project_id=pid, branch="main", schedule=[SUNDAYS, NIGHTLY]))
    assert done["changed"] is True and sorted(done["schedule"], key=lambda item: item["frequency"]) == [NIGHTLY, SUNDAYS]
    stored = rel.api(sim, "GET", "/projects/%s/branches/%s/backup_schedule" % (pid, main["id"]))["schedule"]
    assert sorted(stored, key=lambda item: item["frequency"]) == [NIGHTLY, SUNDAYS]

    # Found as asked: no write, and one read for a branch given by id; two by name or for the default branch (the
    # branches to find it, then its schedule), as the module's documentation says.
    schedule_read = ("GET", "/api/v2/projects/%s/branches/%s/backup_schedule" % (pid, main["id"]))
    branches_read = ("GET", "/api/v2/projects/%s/branches" % pid)
    for branch, reads in ((main["id"], [schedule_read]), ("main", [branches_read, schedule_read]),
                          (None, [branches_read, schedule_read])):
        seq = last_seq(sim)
        again = ok(run(sim, "snapshot_schedule", project_id=pid, branch=branch, schedule=[NIGHTLY, SUNDAYS]))
        assert again["changed"] is False and requests_since(sim, seq) == reads, branch

    cleared = ok(run(sim, "snapshot_schedule", project_id=pid, branch="main", schedule=[]))
    assert cleared["changed"] is True and cleared["schedule"] == []


def test_a_schedule_on_a_free_plan_fails_with_the_services_words(sim):
    pid, main = project_with_rows(sim)
    refused = failed(run(sim, "snapshot_schedule", project_id=pid, schedule=[NIGHTLY]))
    assert "HTTP 403" in refused["msg"] and "paid plans" in refused["msg"] and refused["changed"] is False
    missing = failed(run(sim, "snapshot_schedule", project_id=pid, branch="br-not-there-1", schedule=[]))
    assert "has no branch 'br-not-there-1'" in missing["msg"]
