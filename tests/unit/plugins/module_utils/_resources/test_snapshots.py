# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The decisions of snapshots and backup schedules (_resources/snapshots.py, schedules.py): pure.

What a task does with a snapshot it finds or not (take it, leave it, refuse it, warn of an expiry it
cannot change), which branches a snapshot can be taken of, what snapshot_info lists, and when two
schedules are one. The requests that need a service (a listing with two snapshots of one name, a
schedule write answered "200, empty", the reads a schedule costs) run against neon_fakes' scripted
transport. A snapshot's restore: test_snapshot_restores.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._api.errors import TaskFailure
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import CREATE, NOTHING, REFUSE, UPDATE, decide
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.schedules import (
    BackupSchedule,
    normalised,
    same_schedule,
    schedule_problem,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.snapshots import (
    SNAPSHOT,
    Snapshot,
    chosen_snapshots,
    blocking_snapshots,
    as_planned,
    expiry_problem,
    find_snapshot,
    limit_refusal,
    other_branch_problem,
    replaced_by_restore,
    snapshot_input_problem,
    snapshot_problem,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import ResourceTask
from ansible_collections.neon.cloud.tests.unit.plugins.module_utils.neon_fakes import make_client, make_response

ROOT = {"id": "br-root", "name": "main", "parent_id": None}
CHILD = {"id": "br-child", "name": "dev", "parent_id": "br-root"}
TAKEN = {"id": "snap-1", "name": "before", "source_branch_id": "br-root", "timestamp": "2026-01-31T22:00:00Z",
         "lsn": "0/1A2B3C4", "created_at": "2026-01-31T22:00:01Z", "manual": True}


def snapshot_plan(current, **options):
    return decide(SNAPSHOT, current, dict(options, name="before", branch=options.get("branch", "br-root")), name="before")


# ---------------------------------------------------------------------------------------------- a snapshot


def test_a_snapshot_not_found_is_taken_with_the_point_and_expiry_asked():
    plan = snapshot_plan(None, timestamp="2026-01-31T22:00:00Z", expires_at="2026-02-28T00:00:00Z")
    assert plan.action == CREATE
    assert plan.body == {"name": "before", "source_branch_id": "br-root", "timestamp": "2026-01-31T22:00:00Z",
                         "expires_at": "2026-02-28T00:00:00Z"}


def test_a_snapshot_found_as_asked_is_left_alone_whatever_the_spelling_of_its_point():
    assert snapshot_plan(TAKEN).action == NOTHING
    assert snapshot_plan(TAKEN, timestamp="2026-01-31T22:00:00.000+00:00").action == NOTHING
    assert snapshot_plan(TAKEN, lsn="0/01a2b3c4").action == NOTHING


@pytest.mark.parametrize("options, said", [
    (dict(timestamp="2026-01-31T21:00:00Z"), "timestamp is '2026-01-31T22:00:00Z', not '2026-01-31T21:00:00Z'"),
    (dict(lsn="0/1A2B3C5"), "lsn is '0/1A2B3C4', not '0/1A2B3C5'"),
])
def test_a_snapshot_of_another_point_is_refused(options, said):
    """(Of another branch: other_branch_problem, test_a_snapshot_of_the_name_taken_of_another_branch_...)"""
    plan = snapshot_plan(TAKEN, **options)
    assert plan.action == REFUSE and said in plan.reason and "snap-1" in plan.reason


def test_a_snapshot_of_the_name_taken_of_another_branch_is_refused_naming_both():
    """As after a finalized restore: the branch main is a new one, the snapshot was taken of the one it replaced."""
    snapshot = Snapshot(ResourceTask(make_client(lambda request: make_response(500))[0]), "p-1", "before")
    snapshot.branch = {"id": "br-new", "name": "main"}
    plan = snapshot.decide(TAKEN, dict(timestamp=None, lsn=None, expires_at="2026-03-01T00:00:00Z"))
    assert plan.action == REFUSE and "taken of branch br-root, not of branch 'main' (br-new)" in plan.reason
    assert "finalized restore" in plan.reason and snapshot.task.warnings == []
    snapshot.branch = {"id": "br-root", "name": "main"}
    assert snapshot.decide(TAKEN, dict(timestamp=None, lsn=None, expires_at=None)).action == NOTHING


# After a finalized restore the branch main is a new one that names the branch it replaced in restored_as; that
# one is 'main (old)' now. A second rollback replaces the new one in turn.
OLD_MAIN = {"id": "br-root", "name": "main (old)", "parent_id": None}
NEW_MAIN = {"id": "br-new", "name": "main", "parent_id": None, "restore_status": "finalized",
            "restored_from": "snap-1", "restored_as": "br-root"}
NEWER_MAIN = {"id": "br-newer", "name": "main", "parent_id": None, "restore_status": "finalized",
              "restored_from": "snap-2", "restored_as": "br-new"}


def test_a_snapshot_taken_of_the_branch_a_finalized_restore_replaced_is_the_one_asked():
    """Issue 37, 4.1: snapshot_restore's EXAMPLES run again after their finalize find the snapshot of main, taken of
    the branch that was main before the restore: it is left as it is, and the result says why."""
    snapshot = Snapshot(ResourceTask(make_client(lambda request: make_response(500))[0]), "p-1", "before")
    snapshot.branch, snapshot.branches = NEW_MAIN, [OLD_MAIN, NEW_MAIN]
    plan = snapshot.decide(TAKEN, dict(timestamp=None, lsn=None, expires_at=None))
    assert plan.action == NOTHING and not plan.changed
    taken_of = snapshot.task.kept["taken_of"]
    assert (taken_of["id"], taken_of["name"]) == ("br-root", "main (old)")
    assert "had the name 'main' until a finalized restore put branch br-new in its place" in taken_of["note"]
    # two rollbacks: the snapshot was taken of the main of before the first
    assert replaced_by_restore(NEWER_MAIN, [OLD_MAIN, dict(NEW_MAIN, name="main (old 2)"), NEWER_MAIN]) == [
        "br-new", "br-root"]
    assert other_branch_problem(TAKEN, NEWER_MAIN, [OLD_MAIN, NEW_MAIN, NEWER_MAIN]) is None


@pytest.mark.parametrize("branch", [
    dict(NEW_MAIN, restore_status="restored"),             # restored, not finalized: it replaced nothing yet
    dict(NEW_MAIN, restored_as="br-other"),                # it replaced another branch
    dict(NEW_MAIN, restore_status=None, restored_as=None),  # an ordinary branch
])
def test_a_snapshot_of_a_branch_the_asked_one_did_not_replace_is_still_refused(branch):
    problem = other_branch_problem(TAKEN, branch, [OLD_MAIN, branch, {"id": "br-other", "name": "x"}])
    assert "taken of branch br-root, not of branch 'main' (br-new) as asked" in problem
    assert "nor of a branch that main replaced by a finalized restore" in problem


def test_a_chain_of_restores_that_names_itself_ends():
    looped = dict(NEW_MAIN, restored_as="br-a")
    other = {"id": "br-a", "name": "a", "restore_status": "finalized", "restored_as": "br-new"}
    assert replaced_by_restore(looped, [looped, other]) == ["br-a"]


class Refused:
    def __init__(self, status, message, code=None):
        self.status, self.api_message, self.code = status, message, code


def test_a_create_refused_for_the_limit_names_the_manual_snapshots_that_hold_it():
    """Issue 37, 3.1: the next run of the rollback runbook failed with "manual snapshots limit of 1 exceeded" and
    nothing said which snapshot held it."""
    assert limit_refusal(Refused(422, "manual snapshots limit of 1 exceeded"))
    assert limit_refusal(Refused(400, "too many", "SNAPSHOTS_LIMIT_EXCEEDED"))
    assert not limit_refusal(Refused(409, "snapshot already exists")) and not limit_refusal(Refused(500, "limit"))
    # a rate limit, or another limit, is no reason to name the project's snapshots
    assert not limit_refusal(Refused(429, "rate limit exceeded for snapshots"))
    assert not limit_refusal(Refused(422, "branch limit exceeded"))
    scheduled = dict(TAKEN, id="snap-2", name="nightly", manual=False)
    said = blocking_snapshots([TAKEN, scheduled], [OLD_MAIN, NEW_MAIN])
    assert "holds 1 manual snapshot," in said and "'before' (snap-1, of branch br-root 'main (old)'" in said
    assert "nightly" not in said and "state: absent" in said
    assert blocking_snapshots([scheduled], []) is None


def test_an_expiry_that_differs_is_an_update_of_the_expiry_alone():
    plan = snapshot_plan(TAKEN, expires_at="2026-03-01T00:00:00Z")
    assert plan.action == UPDATE and plan.body == {"expires_at": "2026-03-01T00:00:00Z"}
    assert plan.changes == {"expires_at": (None, "2026-03-01T00:00:00Z")}
    expiring = dict(TAKEN, expires_at="2026-02-28T00:00:00Z")
    assert snapshot_plan(expiring, expires_at="2026-02-28T00:00:00.000+00:00").action == NOTHING  # one moment
    assert snapshot_plan(expiring).action == NOTHING  # not asked: left as it is
    removed = snapshot_plan(expiring, expires_at="")  # '': never expires, the update's null
    assert removed.action == UPDATE and removed.body == {"expires_at": None}
    assert "expires_at" not in as_planned(expiring, removed) and as_planned(TAKEN, plan)["expires_at"] == \
        "2026-03-01T00:00:00Z"
    assert snapshot_plan(TAKEN, expires_at="").action == NOTHING
    assert snapshot_plan(None, expires_at="").body == {"name": "before", "source_branch_id": "br-root",
                                                       "expires_at": None}  # a query parameter None is not sent


def test_an_update_answered_without_the_expiry_asked_is_a_problem_naming_both():
    plan = snapshot_plan(TAKEN, expires_at="2026-03-01T00:00:00Z")
    assert expiry_problem(dict(TAKEN, expires_at="2026-03-01T00:00:00.000Z"), plan) is None
    said = expiry_problem(TAKEN, plan)
    assert "with an expiry of never, not 2026-03-01T00:00:00Z as asked" in said and "snap-1" in said
    expiring = dict(TAKEN, expires_at="2026-02-28T00:00:00Z")
    removed = snapshot_plan(expiring, expires_at="")
    assert "expiry of 2026-02-28T00:00:00Z, not never" in expiry_problem(expiring, removed)
    assert expiry_problem(TAKEN, removed) is None
    assert expiry_problem(TAKEN, snapshot_plan(TAKEN)) is None


def test_manual_snapshots_come_only_from_root_branches():
    assert snapshot_problem(ROOT) is None
    problem = snapshot_problem(CHILD)
    assert "'dev' (br-child) is a child of br-root" in problem and "root branches" in problem


@pytest.mark.parametrize("options, said", [
    (dict(timestamp="yesterday"), "timestamp must be an RFC 3339 timestamp"),
    (dict(expires_at="2026-02-30"), "expires_at must be an RFC 3339 timestamp"),
    (dict(expires_at="2026-02-30T00:00:00Z"), "expires_at must be an RFC 3339 timestamp"),  # no such day
    (dict(timestamp="2026-01-31 22:00:00"), "timestamp must be an RFC 3339 timestamp, such as 2026-05-04T02:55:00Z"),
    (dict(timestamp="2026-01-31T22:00:00+0100"), "timestamp must be an RFC 3339 timestamp"),
    (dict(expires_at="2026-01-31T23:59:60Z"), "expires_at must be an RFC 3339 timestamp"),
    (dict(lsn="1A2B3C4"), "lsn must be a Log Sequence Number"),
    (dict(lsn="0/1A", timestamp="2026-01-31T22:00:00Z"), "not both"),
])
def test_points_that_cannot_be_sent_are_refused(options, said):
    assert said in snapshot_input_problem(dict(dict(timestamp=None, lsn=None, expires_at=None), **options))
    assert snapshot_input_problem(dict(timestamp="2026-01-31T23:00:00+01:00", lsn=None,
                                       expires_at="2026-02-28T00:00:00.5Z")) is None
    assert snapshot_input_problem(dict(timestamp=None, lsn=None, expires_at="")) is None  # '': never expires


def test_a_snapshot_listed_without_its_source_branch_is_the_one_asked():
    """source_branch_id is optional in the OpenAPI: a snapshot listed without it is found as asked on a rerun,
    not refused because its branch cannot be compared (review finding 5)."""
    snapshot = Snapshot(ResourceTask(make_client(lambda request: make_response(500))[0]), "p-1", "before")
    snapshot.branch = ROOT
    unsourced = dict((field, value) for field, value in TAKEN.items() if field != "source_branch_id")
    plan = snapshot.decide(unsourced, dict(timestamp=None, lsn=None, expires_at=None))
    assert plan.action == NOTHING and not plan.changed
    assert snapshot.decide(unsourced, dict(timestamp="2026-01-31T22:00:00Z", lsn="0/1a2b3c4",
                                           expires_at=None)).action == NOTHING


def test_snapshot_info_lists_by_name_and_by_branch_name_or_id():
    snapshots = [dict(TAKEN, id="snap-1", name="a"), dict(TAKEN, id="snap-2", name="b", source_branch_id="br-gone"),
                 dict(TAKEN, id="snap-3", name="c", source_branch_id=None)]
    branches = [ROOT, CHILD]
    assert [item["id"] for item in chosen_snapshots(snapshots, branches)] == ["snap-1", "snap-2", "snap-3"]
    assert [item["id"] for item in chosen_snapshots(snapshots, branches, branch="main")] == ["snap-1"]
    assert [item["id"] for item in chosen_snapshots(snapshots, branches, branch="br-root")] == ["snap-1"]
    assert [item["id"] for item in chosen_snapshots(snapshots, branches, branch="br-gone")] == ["snap-2"]  # deleted
    assert chosen_snapshots(snapshots, branches, branch="dev") == []
    assert [item["id"] for item in chosen_snapshots(snapshots, branches, name="c")] == ["snap-3"]
    assert chosen_snapshots(snapshots, branches, name="a", branch="br-gone") == []


def test_a_snapshot_is_found_by_id_first_then_by_name_and_two_of_one_name_are_refused():
    snapshots = [dict(TAKEN, id="snap-1", name="snap-2"), dict(TAKEN, id="snap-2", name="x")]
    assert find_snapshot(snapshots, "snap-2")["id"] == "snap-2"
    assert find_snapshot(snapshots, "x")["id"] == "snap-2" and find_snapshot(snapshots, "none") is None
    with pytest.raises(Refusal) as refused:
        find_snapshot([dict(TAKEN, id="snap-a"), dict(TAKEN, id="snap-b")], "before")
    assert "snap-a, snap-b" in refused.value.msg


def answered(*bodies):
    client, adapter = make_client(lambda request: bodies[len(adapter.sent) - 1] if len(adapter.sent) <= len(bodies)
                                  else make_response(500, {"message": "unexpected"}))
    return client, adapter


def test_two_snapshots_of_the_name_in_the_listing_are_refused_naming_both():
    client, adapter = answered(make_response(200, {"branches": [dict(ROOT, default=True)]}),
                               make_response(200, {"snapshots": [dict(TAKEN, id="snap-a"), dict(TAKEN, id="snap-b")]}))
    snapshot = Snapshot(ResourceTask(client), "p-1", "before")
    snapshot.locate = True
    with pytest.raises(Refusal) as refused:
        snapshot.find()
    assert "2 snapshots are named 'before'" in refused.value.msg and "snap-a, snap-b" in refused.value.msg
    assert [request.method for request in adapter.sent] == ["GET", "GET"]


def test_a_create_sends_its_settings_as_query_parameters_and_no_body():
    client = make_client(lambda request: make_response(500))[0]
    snapshot = Snapshot(ResourceTask(client), "p-1", "before 1")
    snapshot.branch = ROOT
    plan = snapshot.decide(None, dict(timestamp="2026-01-31T22:00:00Z", lsn=None, expires_at=None))
    path, body = snapshot.create_request(plan)
    assert body is None
    assert path == \
        "/projects/p-1/branches/br-root/snapshot?name=before%201&timestamp=2026-01-31T22%3A00%3A00Z"


def test_a_create_sends_its_points_in_utc_ending_in_z():
    """A moment given with an offset, an LSN in lower case: sent as the service's canonical forms (finding 2)."""
    created = make_response(200, {"snapshot": dict(TAKEN, id="snap-9"), "operations": []})
    client, adapter = answered(make_response(200, {"branches": [dict(ROOT, default=True)]}),
                               make_response(200, {"snapshots": []}), created)
    result = Snapshot.run(ResourceTask(client, wait=False), dict(
        project_id="p-1", name="before", branch=None, state="present",
        timestamp="2026-01-31T23:00:00.500+01:00", lsn=None, expires_at="2026-02-28T01:00:00+01:00"))
    assert result["changed"] is True
    post = adapter.sent[2]
    assert post.method == "POST" and post.body is None
    assert post.url.endswith("/projects/p-1/branches/br-root/snapshot?name=before&timestamp=2026-01-31T22%3A00%3A00.5Z"
                             "&expires_at=2026-02-28T00%3A00%3A00Z")


# ---------------------------------------------------------------------------------------------- schedules

DAILY = {"frequency": "daily", "hour": 2, "day": None, "retention_seconds": 604800}
WEEKLY = {"frequency": "weekly", "hour": 3, "day": 7, "retention_seconds": None}


def test_a_schedule_is_the_same_whatever_the_order_of_its_items():
    assert same_schedule([{"frequency": "weekly", "hour": 3, "day": 7}, dict(DAILY, day=None)], [DAILY, WEEKLY])
    assert not same_schedule([DAILY], [DAILY, WEEKLY])
    assert not same_schedule([dict(DAILY, retention_seconds=3600)], [DAILY])
    assert normalised([WEEKLY, DAILY]) == [{"frequency": "daily", "hour": 2, "retention_seconds": 604800},
                                           {"frequency": "weekly", "hour": 3, "day": 7}]


@pytest.mark.parametrize("item, said", [
    (dict(DAILY, frequency="hourly"), "must be daily, weekly or monthly"),
    (dict(DAILY, hour=24), "hour is required, the hour of the day from 0 to 23"),
    (dict(DAILY, hour=None), "hour is required"),
    (dict(DAILY, day=3), "day is not used by a daily item"),
    (dict(WEEKLY, day=None), "day is required for a weekly item, the day of the week (1 is Monday) from 1 to 7"),
    (dict(WEEKLY, day=8), "from 1 to 7, got 8"),
    (dict(WEEKLY, frequency="monthly", day=32), "the day of the month from 1 to 31, got 32"),
    (dict(DAILY, retention_seconds=60), "retention_seconds must be from 3600 (an hour) to 3024000 (35 days), got 60"),
])
def test_schedule_items_the_service_refuses_are_refused(item, said):
    problem = schedule_problem([DAILY, item])
    assert problem.startswith("schedule[1].") and said in problem
    assert schedule_problem([DAILY, WEEKLY, dict(WEEKLY, frequency="monthly", day=31)]) is None


def test_a_schedule_write_answered_200_without_a_body_is_done():
    """The service answers PUT .../backup_schedule with 200 and an empty body (notes section 6)."""
    client, adapter = answered(make_response(200, {"schedule": []}), make_response(200, raw=b""),
                               make_response(200, {"schedule": [{"frequency": "daily", "hour": 2}]}))
    result = BackupSchedule(ResourceTask(client, diff=True), "p-1", "br-wispy-meadow-a5l2dqxb",
                            [{"frequency": "daily", "hour": 2}]).run()
    assert result["changed"] is True and result["schedule"] == [{"frequency": "daily", "hour": 2}]
    assert [request.method for request in adapter.sent] == ["GET", "PUT", "GET"]
    assert json.loads(adapter.sent[1].body) == {"schedule": [{"frequency": "daily", "hour": 2}]}
    assert result["diff"] == {"before": {"schedule": []}, "after": {"schedule": [{"frequency": "daily", "hour": 2}]}}


def schedule_answers():
    """A transport that answers GET .../branches with main (by its id) and GET .../backup_schedule with a daily
    item."""
    def answer(request):
        if request.url.split("?")[0].endswith("/branches"):
            return make_response(200, {"branches": [dict(ROOT, id="br-wispy-meadow-a5l2dqxb", default=True)]})
        return make_response(200, {"schedule": [{"frequency": "daily", "hour": 2}]})
    return make_client(answer)


@pytest.mark.parametrize("branch, reads", [
    ("br-wispy-meadow-a5l2dqxb", ["/backup_schedule"]),  # by id: the schedule, read at once
    ("main", ["/branches", "/backup_schedule"]),  # by name: the branches to find it, then its schedule
    (None, ["/branches", "/backup_schedule"]),  # the default branch: the same
])
def test_a_schedule_found_as_asked_costs_one_read_by_id_and_two_by_name(branch, reads):
    """The cost the documentation states (review finding 8): no write, and one read only for a branch id."""
    client, adapter = schedule_answers()
    result = BackupSchedule(ResourceTask(client), "p-1", branch, [{"frequency": "daily", "hour": 2}]).run()
    assert result["changed"] is False and result["branch_id"] == "br-wispy-meadow-a5l2dqxb"
    assert [(request.method, "/" + request.url.split("?")[0].rsplit("/", 1)[1]) for request in adapter.sent] == [
        ("GET", read) for read in reads]


def test_a_schedule_refused_by_its_rules_sends_nothing():
    client, adapter = answered(make_response(500))
    with pytest.raises(TaskFailure) as refused:
        BackupSchedule(ResourceTask(client), "p-1", "main", [dict(WEEKLY, day=None)]).run()
    assert "day is required for a weekly item" in refused.value.msg and "Nothing was changed" in refused.value.msg
    assert adapter.sent == []
