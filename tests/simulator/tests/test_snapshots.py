# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests: snapshots, their restore and finalize, and backup schedules (governance-recovery-api-notes.md
section 6), with answers shaped as the OpenAPI schemas say (Snapshot, the create's and list's answers,
RestoredSnapshot, OperationsResponse, BackupSchedule)."""

from __future__ import annotations

import datetime

import pytest
import requests

API_KEY = "sim-selftest-key-snapshots"
DEMO = "shiny-river-12345678"           # a personal project: a free plan
CHECKOUT = "bold-glade-61830452"        # a project of the seeded organization: a paid plan

# The OpenAPI document's schemas (kislerdm/neon-sdk-go openAPIDefinition.json): required fields and their types,
# and the types of the optional ones.
SNAPSHOT = ({"id": str, "name": str, "created_at": str},
            {"lsn": str, "timestamp": str, "source_branch_id": str, "expires_at": str, "manual": bool})
BRANCH = ({"id": str, "project_id": str, "name": str, "current_state": str, "state_changed_at": str,
           "creation_source": str, "created_at": str, "updated_at": str, "default": bool, "protected": bool,
           "cpu_used_sec": int, "active_time_seconds": int, "compute_time_seconds": int, "written_data_bytes": int,
           "data_transfer_bytes": int},
          {"restore_status": str, "restored_from": str, "restored_as": str, "parent_id": str})
OPERATION = ({"id": str, "project_id": str, "action": str, "status": str, "failures_count": int, "created_at": str,
              "updated_at": str, "total_duration_ms": int}, {"branch_id": str, "endpoint_id": str})
SCHEDULE_ITEM = ({"frequency": str}, {"hour": int, "day": int, "month": int, "retention_seconds": int})
NIGHTLY = {"frequency": "daily", "hour": 2, "retention_seconds": 604800}


def conforms(item, schema):
    required, optional = schema
    assert isinstance(item, dict), item
    for field, kind in required.items():
        assert isinstance(item.get(field), kind), (field, item)
    for field, kind in optional.items():
        assert field not in item or isinstance(item[field], kind), (field, item)
    return item


def call(sim, method, path, **kwargs):
    kwargs.setdefault("timeout", 10)
    return requests.request(method, sim.url + path, headers=sim.headers, **kwargs)


def answer(response, status=200, keys=None):
    assert response.status_code == status, response.text
    body = response.json()
    if keys is not None:
        assert set(body) == set(keys), body
    return body


def refused(response, status, message):
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"code", "message", "request_id"} and message in body["message"], body
    return body


def branches(sim, project=DEMO):
    return {branch["name"]: branch for branch in answer(call(sim, "GET", "/projects/%s/branches" % project))["branches"]}


def take(sim, branch_id, project=DEMO, **params):
    return call(sim, "POST", "/projects/%s/branches/%s/snapshot" % (project, branch_id), params=params)


def taken(sim, branch_id, project=DEMO, **params):
    body = answer(take(sim, branch_id, project, **params), keys={"snapshot", "operations"})
    for op in body["operations"]:
        conforms(op, OPERATION)
    sim.advance_clock(5)
    return conforms(body["snapshot"], SNAPSHOT)


def write(sim, branch_id, rows, project=DEMO):
    return answer(requests.post("%s/projects/%s/branches/%s/data" % (sim.control_url, project, branch_id),
                                json={"table": "orders", "rows": rows}, timeout=10))


def rows(sim, branch_id, project=DEMO):
    return answer(requests.get("%s/projects/%s/branches/%s/data" % (sim.control_url, project, branch_id),
                               timeout=10))["databases"]["neondb"].get("orders")


def restore(sim, snapshot_id, project=DEMO, status=200, **body):
    response = call(sim, "POST", "/projects/%s/snapshots/%s/restore" % (project, snapshot_id), json=body)
    if status != 200:
        return response
    restored = answer(response, keys={"branch", "endpoints", "operations"})
    conforms(restored["branch"], BRANCH)
    for op in restored["operations"]:
        conforms(op, OPERATION)
    sim.advance_clock(10)
    return restored


def endpoints_of(sim, branch_id, project=DEMO):
    return answer(call(sim, "GET", "/projects/%s/branches/%s/endpoints" % (project, branch_id)))["endpoints"]


@pytest.fixture(name="main")
def main_fixture(sim):
    sim.advance_clock(10)  # the seeded operations in progress end
    return branches(sim)["main"]


# ---------------------------------------------------------------------------------------------- snapshots


def test_a_create_reads_query_parameters_and_ignores_a_json_body(sim, main):
    made = taken(sim, main["id"], name="before", expires_at="2099-01-01T00:00:00Z")
    assert (made["name"], made["source_branch_id"], made["manual"]) == ("before", main["id"], True)
    assert made["expires_at"] == "2099-01-01T00:00:00Z" and made["lsn"].startswith("0/")
    answer(call(sim, "DELETE", "/projects/%s/snapshots/%s" % (DEMO, made["id"])), 202)
    sim.advance_clock(5)
    ignored = call(sim, "POST", "/projects/%s/branches/%s/snapshot" % (DEMO, main["id"]), json={"name": "from-body"})
    assert answer(ignored)["snapshot"]["name"].startswith("main-") and "expires_at" not in ignored.json()["snapshot"]


def test_list_rename_and_delete_answer_as_the_spec_says(sim, main):
    made = taken(sim, main["id"], name="before")
    listed = answer(call(sim, "GET", "/projects/%s/snapshots" % DEMO), keys={"snapshots"})["snapshots"]
    assert [conforms(item, SNAPSHOT)["id"] for item in listed] == [made["id"]]
    path = "/projects/%s/snapshots/%s" % (DEMO, made["id"])
    renamed = answer(call(sim, "PATCH", path, json={"snapshot": {"name": "renamed", "expires_at": "2099-01-01T00:00:00Z"}}),
                     keys={"snapshot"})["snapshot"]
    assert renamed["name"] == "renamed" and renamed["expires_at"] == "2099-01-01T00:00:00Z"  # both taken (2026-07)
    kept = answer(call(sim, "PATCH", path, json={"snapshot": {"name": "renamed-again"}}))["snapshot"]
    assert kept["expires_at"] == "2099-01-01T00:00:00Z"  # an expiry not named is left as it is
    cleared = answer(call(sim, "PATCH", path, json={"snapshot": {"expires_at": None}}))["snapshot"]
    assert cleared["name"] == "renamed-again" and "expires_at" not in cleared  # null: never expires
    refused(call(sim, "PATCH", path, json={"snapshot": {"expires_at": "2001-01-01T00:00:00Z"}}), 400,
            "expires_at: must be in the future")
    refused(call(sim, "PATCH", path, json={"snapshot": {"expires_at": "next week"}}), 400,
            "expires_at: must be an RFC 3339 timestamp")
    refused(call(sim, "PATCH", path, json={"snapshot": {"expires_at": 7}}), 400, "expires_at: must be")
    deleted = answer(call(sim, "DELETE", path), 202, keys={"operations"})
    assert [conforms(op, OPERATION)["action"] for op in deleted["operations"]] == ["delete_timeline"]
    assert answer(call(sim, "GET", "/projects/%s/snapshots" % DEMO))["snapshots"] == []
    refused(call(sim, "DELETE", path), 404, "snapshot not found")
    refused(call(sim, "PATCH", path, json={"snapshot": {"name": "x"}}), 404, "snapshot not found")


def test_manual_snapshots_only_of_root_branches_with_names_unique_and_the_plans_limit(sim, main):
    child = branches(sim)["dev"]
    refused(take(sim, child["id"], name="of-dev"), 400, "only be created from root branches")
    taken(sim, main["id"], name="one")
    refused(take(sim, main["id"], name="one"), 409, 'snapshot already exists; snapshot_name:"one"')
    limit = refused(take(sim, main["id"], name="two"), 422, "manual snapshots limit of 1 exceeded")
    assert limit["code"] == "SNAPSHOTS_LIMIT_EXCEEDED"
    control = "%s/projects/%s/branches/%s/scheduled_snapshot" % (sim.control_url, DEMO, main["id"])
    scheduled = answer(requests.post(control, timeout=10))
    assert scheduled["snapshot"]["manual"] is False  # scheduled ones do not count
    paid = branches(sim, CHECKOUT)["main"]
    for number in range(10):
        taken(sim, paid["id"], CHECKOUT, name="paid-%d" % number)
    refused(take(sim, paid["id"], CHECKOUT, name="paid-10"), 422, "manual snapshots limit of 10 exceeded")


def test_a_point_is_one_of_timestamp_or_lsn_inside_the_history_window(sim, main):
    first = write(sim, main["id"], [{"id": 1}])
    sim.advance_clock(60)
    write(sim, main["id"], [{"id": 1}, {"id": 2}])
    by_lsn = taken(sim, main["id"], name="by-lsn", lsn=first["lsn"])
    assert by_lsn["lsn"] == first["lsn"]
    refused(take(sim, main["id"], name="x", lsn=first["lsn"], timestamp=first["timestamp"]), 400, "give at most one")
    refused(take(sim, main["id"], name="x", timestamp="2001-01-01T00:00:00Z"), 400, "outside the restore window")
    refused(take(sim, main["id"], name="x", timestamp="2999-01-01T00:00:00Z"), 400, "h0m0s")
    refused(take(sim, main["id"], name="x", timestamp="yesterday"), 400, "timestamp")
    refused(take(sim, main["id"], name="x", expires_at="2001-01-01T00:00:00Z"), 400, "expires_at: must be in the future")
    restored = restore(sim, by_lsn["id"], name="look")
    assert rows(sim, restored["branch"]["id"]) == [{"id": 1}]


@pytest.mark.parametrize("spelled", [
    lambda moment: moment.replace("T", " "), lambda moment: moment.replace("T", "t"),
    lambda moment: moment.replace("Z", "z"), lambda moment: moment.replace("Z", "+0000"),
    lambda moment: moment[:-1], lambda moment: moment[:17] + "60Z", lambda moment: "2026-02-31T00:00:00Z",
])
def test_a_timestamp_or_expiry_that_is_not_rfc_3339_is_refused_naming_it(sim, main, spelled):
    """As the service's RFC 3339 parser refuses them (review finding 20): a lenient client is caught here."""
    first = write(sim, main["id"], [{"id": 1}])
    sim.advance_clock(5)
    in_a_day = datetime.datetime.fromtimestamp(sim.state.clock.time() + 86400, tz=datetime.timezone.utc)
    refused(take(sim, main["id"], name="x", timestamp=spelled(first["timestamp"])), 400,
            "timestamp: must be an RFC 3339 timestamp")
    refused(take(sim, main["id"], name="x", expires_at=spelled(in_a_day.strftime("%Y-%m-%dT%H:%M:%SZ"))), 400,
            "expires_at: must be an RFC 3339 timestamp")
    assert answer(call(sim, "GET", "/projects/%s/snapshots" % DEMO))["snapshots"] == []
    made = taken(sim, main["id"], name="x", timestamp=first["timestamp"].replace("Z", "+00:00"),
                 expires_at=in_a_day.strftime("%Y-%m-%dT%H:%M:%S+00:00"))
    assert made["lsn"] == first["lsn"]


def test_the_window_is_named_as_go_prints_a_duration(sim):
    """A 30-minute history window is 30m0s, as Go's time.Duration prints it (not 0h30m0s): history.go_duration."""
    made = answer(call(sim, "POST", "/projects", json={"project": {"name": "short-history",
                                                                   "history_retention_seconds": 1800}}), 201)
    sim.advance_clock(30)
    message = refused(take(sim, made["branch"]["id"], made["project"]["id"], name="old",
                           timestamp="2001-01-01T00:00:00Z"), 400, "outside the restore window")["message"]
    assert "kept for 30m0s" in message and "0h30m0s" not in message


def test_an_expired_snapshot_is_gone_from_the_list(sim, main):
    in_an_hour = datetime.datetime.fromtimestamp(sim.state.clock.time() + 3600, tz=datetime.timezone.utc)
    made = taken(sim, main["id"], name="short", expires_at=in_an_hour.strftime("%Y-%m-%dT%H:%M:%SZ"))
    assert made["expires_at"] == in_an_hour.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert len(answer(call(sim, "GET", "/projects/%s/snapshots" % DEMO))["snapshots"]) == 1
    sim.advance_clock(3600)
    assert answer(call(sim, "GET", "/projects/%s/snapshots" % DEMO))["snapshots"] == []


def test_a_change_while_operations_run_is_refused_with_423(sim, main):
    sim.start_operations(DEMO, [{"action": "apply_config", "hold": True}])
    refused(take(sim, main["id"], name="locked"), 423, "running conflicting operations")
    sim.release_operations(DEMO)
    taken(sim, main["id"], name="locked")


# ---------------------------------------------------------------------------------------------- restore and finalize


def test_a_restore_is_a_new_root_branch_with_the_snapshots_data_beside_the_target(sim, main):
    write(sim, main["id"], [{"id": 1}])
    made = taken(sim, main["id"], name="good")
    write(sim, main["id"], [{"id": 1, "bad": True}])
    restored = restore(sim, made["id"], name="main-restored")
    branch = restored["branch"]
    assert (branch["name"], branch["restore_status"], branch["restored_from"]) == ("main-restored", "restored", made["id"])
    assert "parent_id" not in branch and "restored_as" not in branch and restored["endpoints"] == []
    assert [op["action"] for op in restored["operations"]] == ["create_branch"]
    now = branches(sim)
    assert now["main-restored"]["current_state"] == "ready" and now["main"]["id"] == main["id"]
    assert rows(sim, branch["id"]) == [{"id": 1}] and rows(sim, main["id"]) == [{"id": 1, "bad": True}]
    roles = answer(call(sim, "GET", "/projects/%s/branches/%s/roles" % (DEMO, branch["id"])))["roles"]
    assert [role["name"] for role in roles] == ["neondb_owner"]
    refused(restore(sim, made["id"], status=409, name="main-restored"), 409, "branch already exists")
    refused(restore(sim, made["id"], status=404, target_branch_id="br-nope-1"), 404, "target branch not found")
    refused(restore(sim, "snap-nope-1", status=404), 404, "snapshot not found")
    deprecated = call(sim, "POST", "/projects/%s/snapshots/%s/restore?name=by-query" % (DEMO, made["id"]))
    assert answer(deprecated)["branch"]["name"] == "by-query"


def test_finalize_moves_the_computes_and_the_name_and_keeps_the_old_branch(sim, main):
    write(sim, main["id"], [{"id": 1}])
    made = taken(sim, main["id"], name="good")
    computes = sorted(endpoint["id"] for endpoint in endpoints_of(sim, main["id"]))
    restored = restore(sim, made["id"], name="main-restored")["branch"]
    refused(call(sim, "POST", "/projects/%s/branches/%s/finalize_restore" % (DEMO, main["id"])), 400,
            "was not restored from a snapshot")
    path = "/projects/%s/branches/%s/finalize_restore" % (DEMO, restored["id"])
    finalized = answer(call(sim, "POST", path), keys={"operations"})
    assert [conforms(op, OPERATION)["action"] for op in finalized["operations"]] == ["start_compute"]
    sim.advance_clock(10)
    now = branches(sim)
    assert now["main"]["id"] == restored["id"] and now["main"]["default"] is True
    assert (now["main"]["restore_status"], now["main"]["restored_as"]) == ("finalized", main["id"])
    assert now["main (old)"]["id"] == main["id"] and now["main (old)"]["default"] is False
    assert sorted(endpoint["id"] for endpoint in endpoints_of(sim, restored["id"])) == computes
    assert endpoints_of(sim, main["id"]) == [] and endpoints_of(sim, restored["id"])[0]["current_state"] == "active"
    assert answer(call(sim, "GET", "/projects/%s/snapshots" % DEMO))["snapshots"][0]["source_branch_id"] == main["id"]
    refused(call(sim, "POST", path), 400, "already finalized")


def test_a_one_step_restore_finalizes_at_once_and_a_second_old_name_is_numbered(sim, main):
    made = taken(sim, main["id"], name="good")
    first = restore(sim, made["id"], name="rollback-1", finalize_restore=True)
    assert (first["branch"]["name"], first["branch"]["restore_status"]) == ("main", "finalized")
    assert [endpoint["branch_id"] for endpoint in first["endpoints"]] == [first["branch"]["id"]]
    assert sorted(op["action"] for op in first["operations"]) == ["create_branch", "start_compute"]
    second = restore(sim, made["id"], name="rollback-2", target_branch_id=first["branch"]["id"], finalize_restore=True)
    now = branches(sim)
    assert now["main"]["id"] == second["branch"]["id"]
    assert (now["main (old)"]["id"], now["main (old 2)"]["id"]) == (main["id"], first["branch"]["id"])
    third = restore(sim, made["id"], name="rollback-3", target_branch_id=second["branch"]["id"])
    answer(call(sim, "POST", "/projects/%s/branches/%s/finalize_restore" % (DEMO, third["branch"]["id"]),
                json={"name": "kept"}))
    assert branches(sim)["kept"]["id"] == second["branch"]["id"]


# ---------------------------------------------------------------------------------------------- backup schedules


def test_a_schedule_is_read_and_replaced_whole_and_follows_a_finalize(sim):
    sim.advance_clock(10)
    main = branches(sim, CHECKOUT)["main"]
    path = "/projects/%s/branches/%s/backup_schedule" % (CHECKOUT, main["id"])
    assert answer(call(sim, "GET", path), keys={"schedule"}) == {"schedule": []}
    weekly = {"frequency": "weekly", "day": 7, "hour": 3}
    put = call(sim, "PUT", path, json={"schedule": [NIGHTLY, weekly]})
    assert put.status_code == 200 and put.json() == {}  # the 2026-06 document's EmptyResponse
    listed = answer(call(sim, "GET", path))["schedule"]
    assert [conforms(item, SCHEDULE_ITEM) for item in listed] == [NIGHTLY, weekly]
    made = taken(sim, main["id"], CHECKOUT, name="good")
    restored = restore(sim, made["id"], CHECKOUT, name="rollback", finalize_restore=True)["branch"]
    assert answer(call(sim, "GET", "/projects/%s/branches/%s/backup_schedule" % (CHECKOUT, restored["id"]))) == \
        {"schedule": [NIGHTLY, weekly]}


@pytest.mark.parametrize("item, message", [
    ({"frequency": "hourly", "hour": 1}, "hourly is not supported"),
    ({"frequency": "yearly", "hour": 1, "month": 1, "day": 1}, "yearly is not supported"),
    ({"frequency": "daily"}, "hour: required for daily"),
    ({"frequency": "daily", "hour": 24}, "hour: required for daily"),
    ({"frequency": "daily", "hour": 1, "day": 2}, "day: not used by a daily item"),
    ({"frequency": "weekly", "hour": 1}, "day: required for weekly, an integer from 1 to 7"),
    ({"frequency": "monthly", "hour": 1, "day": 32}, "day: required for monthly, an integer from 1 to 31"),
    ({"frequency": "monthly", "hour": 1, "day": 3, "month": 2}, "month: is not used"),
    ({"frequency": "daily", "hour": 1, "retention_seconds": 60}, "retention_seconds: must be an integer from 3600"),
    ({"frequency": "daily", "hour": 1, "minute": 5}, "unknown fields minute"),
])
def test_schedule_items_the_service_refuses(sim, item, message):
    main = branches(sim, CHECKOUT)["main"]
    path = "/projects/%s/branches/%s/backup_schedule" % (CHECKOUT, main["id"])
    refused(call(sim, "PUT", path, json={"schedule": [NIGHTLY, item]}), 400, "schedule[1]")
    refused(call(sim, "PUT", path, json={"schedule": [item]}), 400, message)
    assert answer(call(sim, "GET", path))["schedule"] == []


def test_a_schedule_on_a_free_plan_is_refused_and_an_empty_one_taken(sim, main):
    path = "/projects/%s/branches/%s/backup_schedule" % (DEMO, main["id"])
    refused(call(sim, "PUT", path, json={"schedule": [NIGHTLY]}), 403, "paid plans")
    assert call(sim, "PUT", path, json={"schedule": []}).status_code == 200
    refused(call(sim, "GET", "/projects/%s/branches/br-nope-1/backup_schedule" % DEMO), 404, "branch not found")


def test_reset_forgets_every_snapshot_and_schedule(sim, main):
    taken(sim, main["id"], name="before")
    sim.reset()
    assert answer(call(sim, "GET", "/projects/%s/snapshots" % DEMO))["snapshots"] == []
