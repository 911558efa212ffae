# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests: a branch restored to a point (its own history or another branch's), set as default,
schema and compare_schema, and schema-only branches (governance-recovery-api-notes.md sections 5, 7, 8, 10).

Rows are written and read back through the control API's data stand-in (history.py); no test waits for wall
time: the clock is jumped forward, operations are held or failed by script.
"""

from __future__ import annotations

import datetime
import time

import pytest

import requests
from neon_simulator.history import go_duration, lsn_of, schema_diff

API_KEY = "sim-selftest-key-0031r"
SETTLE = 30
# Branch's required fields (SPEC Branch), and the answers' shapes (BranchOperations, BranchSchemaResponse,
# BranchSchemaCompareResponse).
BRANCH_REQUIRED = ("id", "project_id", "name", "current_state", "state_changed_at", "creation_source", "created_at",
                   "updated_at", "default", "protected", "cpu_used_sec", "active_time_seconds", "compute_time_seconds",
                   "written_data_bytes", "data_transfer_bytes")


def call(sim, method, path, **kwargs):
    kwargs.setdefault("timeout", 10)
    return requests.request(method, sim.url + path, headers=sim.headers, **kwargs)


def ok(response, status=200):
    assert response.status_code == status, response.text
    return response.json()


def refused(response, status, *words):
    assert response.status_code == status, response.text
    message = response.json()["message"]
    for word in words:
        assert word in message, message
    return message


def project(sim, **spec):
    made = ok(call(sim, "POST", "/projects", json={"project": dict({"name": "recovery"}, **spec)}), 201)
    sim.advance_clock(SETTLE)
    return made["project"]["id"], made["branch"]


def branch(sim, pid, name, settle=True, **spec):
    made = ok(call(sim, "POST", "/projects/%s/branches" % pid, json={"branch": dict(spec, name=name)}), 201)
    if settle:
        sim.advance_clock(SETTLE)
    return made["branch"]


def get_branch(sim, pid, branch_id):
    return ok(call(sim, "GET", "/projects/%s/branches/%s" % (pid, branch_id)))["branch"]


def by_name(sim, pid):
    return {item["name"]: item for item in ok(call(sim, "GET", "/projects/%s/branches" % pid))["branches"]}


def write(sim, pid, branch_id, table, rows, **extra):
    answer = requests.post("%s/projects/%s/branches/%s/data" % (sim.control_url, pid, branch_id),
                           json=dict(extra, table=table, rows=rows), timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def rows(sim, pid, branch_id, table, database="neondb"):
    answer = requests.get("%s/projects/%s/branches/%s/data" % (sim.control_url, pid, branch_id), timeout=10)
    return answer.json()["databases"].get(database, {}).get(table)


def restore(sim, pid, branch_id, **body):
    return call(sim, "POST", "/projects/%s/branches/%s/restore" % (pid, branch_id), json=body)


def conforms(answer):
    """A BranchOperations answer: ``branch`` with the SPEC's required fields, ``operations``."""
    assert set(answer) == {"branch", "operations"}
    for field in BRANCH_REQUIRED:
        assert field in answer["branch"], field
    assert isinstance(answer["operations"], list)
    return answer


@pytest.fixture(name="bad_change")
def bad_change_fixture(sim):
    """A project whose main has two orders, then (a minute later) a bad change that emptied them."""
    pid, main = project(sim)
    good = write(sim, pid, main["id"], "orders", [{"id": 1, "total": 5}, {"id": 2, "total": 7}])
    sim.advance_clock(60)
    bad = write(sim, pid, main["id"], "orders", [])
    sim.advance_clock(5)
    return pid, main, good, bad


# ---------------------------------------------------------------------------------------------- restore


def test_restore_from_its_own_history_brings_the_rows_back_and_preserves_the_bad_state(sim, bad_change):
    pid, main, good, _bad = bad_change
    child = branch(sim, pid, "dev")
    endpoint = ok(call(sim, "GET", "/projects/%s/branches/%s/endpoints" % (pid, main["id"])))["endpoints"][0]
    answer = conforms(ok(restore(sim, pid, main["id"], source_branch_id=main["id"], source_timestamp=good["timestamp"],
                                 preserve_under_name="main-before-restore")))
    assert answer["branch"]["id"] == main["id"] and answer["branch"]["current_state"] == "resetting"
    # not final until the operations end (SPEC): left out of the answer, read with a GET afterwards
    assert "parent_lsn" not in answer["branch"] and "parent_timestamp" not in answer["branch"]
    assert [op["action"] for op in answer["operations"]] == ["create_timeline", "start_compute"]
    sim.advance_clock(SETTLE)

    listed = by_name(sim, pid)
    kept, restored = listed["main-before-restore"], listed["main"]
    assert rows(sim, pid, main["id"], "orders") == [{"id": 1, "total": 5}, {"id": 2, "total": 7}]
    assert rows(sim, pid, kept["id"], "orders") == []  # the bad state, kept
    assert restored["parent_id"] == kept["id"] and restored["current_state"] == "ready" and restored["default"]
    assert restored["parent_lsn"] == good["lsn"] and restored["last_reset_at"]
    assert kept.get("parent_id") is None and listed["dev"]["parent_id"] == kept["id"]  # the children moved
    assert child["id"] == listed["dev"]["id"]
    # the computes stay with the restored branch, same id and host
    assert [ep["id"] for ep in ok(call(sim, "GET", "/projects/%s/branches/%s/endpoints" % (pid, main["id"])))[
        "endpoints"]] == [endpoint["id"]]
    assert ok(call(sim, "GET", "/projects/%s/branches/%s/endpoints" % (pid, kept["id"])))["endpoints"] == []
    # the preserved branch keeps the history: its own past still reads
    then = requests.get("%s/projects/%s/branches/%s/data" % (sim.control_url, pid, kept["id"]),
                        params={"timestamp": good["timestamp"]}, timeout=10).json()
    assert then["databases"]["neondb"]["orders"] == [{"id": 1, "total": 5}, {"id": 2, "total": 7}]
    roles = ok(call(sim, "GET", "/projects/%s/branches/%s/roles" % (pid, kept["id"])))["roles"]
    assert [role["name"] for role in roles] == ["neondb_owner"]


def test_restore_by_lsn_and_from_another_branch_head(sim, bad_change):
    pid, main, good, _bad = bad_change
    ok(restore(sim, pid, main["id"], source_branch_id=main["id"], source_lsn=good["lsn"], preserve_under_name="kept"))
    sim.advance_clock(SETTLE)
    assert rows(sim, pid, main["id"], "orders") == [{"id": 1, "total": 5}, {"id": 2, "total": 7}]

    staging = branch(sim, pid, "staging")
    write(sim, pid, staging["id"], "orders", [{"id": 9, "total": 1}])
    preview = branch(sim, pid, "preview", parent_id=main["id"])
    answer = ok(restore(sim, pid, preview["id"], source_branch_id=staging["id"]))  # its head, nothing preserved
    sim.advance_clock(SETTLE)
    assert answer["branch"]["id"] == preview["id"] and rows(sim, pid, preview["id"], "orders") == [{"id": 9, "total": 1}]
    assert get_branch(sim, pid, preview["id"])["parent_id"] == staging["id"]
    assert set(by_name(sim, pid)) == {"main", "kept", "staging", "preview"}


@pytest.mark.parametrize("body, status, words", [
    ({}, 400, ["source_branch_id"]),
    ({"source": "self"}, 400, ["source_lsn or source_timestamp: required"]),
    ({"source": "self", "source_lsn": "0/1A", "source_timestamp": "2026-01-01T00:00:00Z",
      "preserve_under_name": "x"}, 400, ["give at most one"]),
    ({"source": "self", "source_lsn": "1A", "preserve_under_name": "x"}, 400, ["source_lsn", "not an LSN"]),
    ({"source": "self", "source_timestamp": "yesterday", "preserve_under_name": "x"}, 400, ["RFC 3339"]),
    ({"source": "self", "source_timestamp": "2001-01-01T00:00:00Z", "preserve_under_name": "x"}, 400,
     ["must be within the history retention window (24h0m0s)"]),
    ({"source": "self", "source_timestamp": "2999-01-01T00:00:00Z", "preserve_under_name": "x"}, 400, ["future"]),
    ({"source": "self", "source_timestamp": "good"}, 400, ["preserve_under_name: required"]),
    ({"source": "self", "source_timestamp": "good", "preserve_under_name": "dev"}, 409, ["already exists"]),
    ({"source_branch_id": "br-no-such-00000000"}, 404, ["source branch not found"]),
])
def test_refused_restores_change_nothing(sim, bad_change, body, status, words):
    pid, main, good, _bad = bad_change
    branch(sim, pid, "dev", parent_id=main["id"])
    body = dict(body)
    if body.pop("source", None) == "self":
        body["source_branch_id"] = main["id"]
    if body.get("source_timestamp") == "good":
        body["source_timestamp"] = good["timestamp"]
    before = by_name(sim, pid)
    refused(restore(sim, pid, main["id"], **body), status, *words)
    assert by_name(sim, pid) == before and rows(sim, pid, main["id"], "orders") == []


# What the service's RFC 3339 parser refuses (review finding 20): a client that sends these must see them refused.
NOT_RFC3339 = [
    lambda good: good.replace("T", " "),  # a space
    lambda good: good.replace("T", "t"),  # a lower-case t
    lambda good: good.replace("Z", "z"),  # a lower-case z
    lambda good: good.replace("Z", "+0000"),  # an offset without its colon
    lambda good: good[:-1],  # no time zone
    lambda good: "2026-02-31T00:00:00Z",  # no such day
    lambda good: good[:17] + "60" + good[19:],  # second 60
]


@pytest.mark.parametrize("spelled", NOT_RFC3339)
def test_a_restore_point_that_is_not_rfc_3339_is_refused_naming_it(sim, bad_change, spelled):
    pid, main, good, _bad = bad_change
    before = by_name(sim, pid)
    refused(restore(sim, pid, main["id"], source_branch_id=main["id"], source_timestamp=spelled(good["timestamp"]),
                    preserve_under_name="x"), 400, "source_timestamp: must be an RFC 3339 timestamp")
    assert by_name(sim, pid) == before and rows(sim, pid, main["id"], "orders") == []


def test_a_restore_point_with_an_offset_is_that_moment(sim, bad_change):
    pid, main, good, _bad = bad_change
    moment = good["timestamp"]  # 2026-...T10:11:12.123456Z
    hour = int(moment[11:13])
    shifted = "%s%02d%s+01:00" % (moment[:11], (hour + 1) % 24, moment[13:-1]) if hour < 23 else \
        moment[:-1] + "+00:00"
    ok(restore(sim, pid, main["id"], source_branch_id=main["id"], source_timestamp=shifted, preserve_under_name="kept"))
    sim.advance_clock(SETTLE)
    assert rows(sim, pid, main["id"], "orders") == [{"id": 1, "total": 5}, {"id": 2, "total": 7}]


@pytest.mark.parametrize("spelled", NOT_RFC3339)
def test_a_schema_point_that_is_not_rfc_3339_is_refused_naming_it(sim, spelled):
    pid, main = project(sim)
    staging = branch(sim, pid, "staging")
    now = write(sim, pid, main["id"], "orders", [{"id": 1}])["timestamp"]
    refused(schema(sim, pid, main["id"], db_name="neondb", timestamp=spelled(now)), 400,
            "timestamp: must be an RFC 3339 timestamp")
    refused(compare(sim, pid, staging["id"], db_name="neondb", base_branch_id=main["id"],
                    base_timestamp=spelled(now)), 400, "base_timestamp: must be an RFC 3339 timestamp")
    refused(compare(sim, pid, staging["id"], db_name="neondb", base_branch_id=main["id"], timestamp=spelled(now)),
            400, "timestamp: must be an RFC 3339 timestamp")


@pytest.mark.parametrize("spelled", NOT_RFC3339)
def test_a_branch_point_or_expiry_that_is_not_rfc_3339_is_refused(sim, spelled):
    pid, main = project(sim)
    now = write(sim, pid, main["id"], "orders", [{"id": 1}])["timestamp"]
    sim.advance_clock(1)
    names = set(by_name(sim, pid))
    path = "/projects/%s/branches" % pid
    refused(call(sim, "POST", path, json={"branch": {"name": "at", "parent_timestamp": spelled(now)}}), 400,
            "parent_timestamp: must be an RFC 3339 timestamp")
    tomorrow = datetime.datetime.fromtimestamp(sim.state.clock.time() + 86400, tz=datetime.timezone.utc)
    expiry = spelled(tomorrow.strftime("%Y-%m-%dT%H:%M:%SZ"))
    refused(call(sim, "POST", path, json={"branch": {"name": "short", "expires_at": expiry}}), 400,
            "expires_at: must be an RFC 3339 timestamp")
    preview = branch(sim, pid, "preview")
    refused(call(sim, "PATCH", "%s/%s" % (path, preview["id"]), json={"branch": {"expires_at": expiry}}), 400,
            "expires_at: must be an RFC 3339 timestamp")
    assert set(by_name(sim, pid)) == names | {"preview"} and "expires_at" not in get_branch(sim, pid, preview["id"])
    # the same moments in RFC 3339 are taken
    branch(sim, pid, "at", parent_timestamp=now)
    branch(sim, pid, "short", expires_at=tomorrow.strftime("%Y-%m-%dT%H:%M:%S+00:00"))


def test_a_branch_with_children_needs_a_name_to_preserve_even_from_another_branch(sim, bad_change):
    pid, main, _good, _bad = bad_change
    base = branch(sim, pid, "base")
    branch(sim, pid, "base-child", parent_id=base["id"])
    refused(restore(sim, pid, base["id"], source_branch_id=main["id"]), 400, "preserve_under_name: required")
    window = refused(restore(sim, pid, base["id"], source_branch_id=main["id"], source_lsn=lsn_of(0),
                             preserve_under_name="old"), 400, "history retention window")
    assert go_duration(86400) in window


def test_restore_operations_can_be_held_and_failed(sim, bad_change):
    pid, main, good, _bad = bad_change
    sim.script_operations("create_timeline", project_id=pid, hold=True)
    held = ok(restore(sim, pid, main["id"], source_branch_id=main["id"], source_timestamp=good["timestamp"],
                      preserve_under_name="held"))
    assert held["operations"][0]["status"] in ("scheduling", "running")
    refused(restore(sim, pid, main["id"], source_branch_id=main["id"], source_timestamp=good["timestamp"],
                    preserve_under_name="again"), 423)
    sim.release_operations(pid)
    sim.advance_clock(SETTLE)
    assert get_branch(sim, pid, main["id"])["current_state"] == "ready"

    sim.script_operations("create_timeline", project_id=pid, outcome="failed", error="timeline creation failed")
    failed = ok(restore(sim, pid, main["id"], source_branch_id=main["id"], source_timestamp=good["timestamp"],
                        preserve_under_name="failed-once"))
    sim.advance_clock(SETTLE)
    operation = ok(call(sim, "GET", "/projects/%s/operations/%s" % (pid, failed["operations"][0]["id"])))["operation"]
    assert operation["status"] == "failed" and operation["error"] == "timeline creation failed"


def test_a_protected_branch_is_not_restored(sim, bad_change):
    pid, _main, _good, _bad = bad_change
    kept = branch(sim, pid, "release", protected=True)
    refused(restore(sim, pid, kept["id"], source_branch_id=kept["id"], source_lsn=lsn_of(10 ** 15),
                    preserve_under_name="x"), 400, "protected")


# ---------------------------------------------------------------------------------------------- set as default


def test_set_as_default_moves_the_mark_and_answers_branch_operations(sim):
    pid, main = project(sim)
    other = branch(sim, pid, "next")
    answer = conforms(ok(call(sim, "POST", "/projects/%s/branches/%s/set_as_default" % (pid, other["id"]))))
    assert answer["branch"]["default"] is True and answer["operations"] == []
    listed = by_name(sim, pid)
    assert listed["next"]["default"] is True and listed["main"]["default"] is False and listed["main"]["id"] == main["id"]


def test_an_expiring_branch_cannot_be_the_default(sim):
    pid, _main = project(sim)
    now = ok(requests.get(sim.control_url + "/clock", timeout=10))["time"]
    expiry = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now + 86400))
    expiring = branch(sim, pid, "expiring", expires_at=expiry)
    refused(call(sim, "POST", "/projects/%s/branches/%s/set_as_default" % (pid, expiring["id"])), 400, "expiring")


# ---------------------------------------------------------------------------------------------- schema


def schema(sim, pid, branch_id, **params):
    return call(sim, "GET", "/projects/%s/branches/%s/schema" % (pid, branch_id), params=params)


def compare(sim, pid, branch_id, **params):
    return call(sim, "GET", "/projects/%s/branches/%s/compare_schema" % (pid, branch_id), params=params)


def test_schema_follows_the_tables_at_each_point_in_sql_and_json(sim):
    pid, main = project(sim)
    before = write(sim, pid, main["id"], "orders", [{"id": 1, "note": "x"}])
    sim.advance_clock(10)
    write(sim, pid, main["id"], "orders", [], columns={"id": "bigint", "note": "text", "paid": "boolean"})
    now_json = ok(schema(sim, pid, main["id"], db_name="neondb", format="json"))
    assert set(now_json) == {"json"}
    assert now_json["json"]["tables"] == [{"schema": "public", "name": "orders", "columns": [
        {"name": "id", "type": "bigint"}, {"name": "note", "type": "text"}, {"name": "paid", "type": "boolean"}]}]
    now_sql = ok(schema(sim, pid, main["id"], db_name="neondb"))
    assert set(now_sql) == {"sql"} and "CREATE TABLE public.orders (" in now_sql["sql"] and "paid boolean" in now_sql["sql"]
    then = ok(schema(sim, pid, main["id"], db_name="neondb", timestamp=before["timestamp"]))["sql"]
    assert "paid" not in then and "note text" in then
    assert ok(schema(sim, pid, main["id"], db_name="neondb", lsn=before["lsn"]))["sql"] == then


@pytest.mark.parametrize("params, status, words", [
    ({}, 400, ["db_name"]),
    ({"db_name": "nope"}, 404, ["database not found"]),
    ({"db_name": "neondb", "format": "yaml"}, 400, ["format"]),
    ({"db_name": "neondb", "lsn": "0/1", "timestamp": "2026-01-01T00:00:00Z"}, 400, ["at most one"]),
    ({"db_name": "neondb", "timestamp": "2001-01-01T00:00:00Z"}, 400, ["history retention window (24h0m0s)"]),
])
def test_schema_refusals(sim, params, status, words):
    pid, main = project(sim)
    refused(schema(sim, pid, main["id"], **params), status, *words)


def test_compare_schema_is_empty_when_equal_and_a_unified_diff_when_not(sim):
    pid, main = project(sim)
    write(sim, pid, main["id"], "orders", [{"id": 1}])
    sim.advance_clock(1)
    staging = branch(sim, pid, "staging")
    assert ok(compare(sim, pid, staging["id"], db_name="neondb")) == {"diff": ""}  # base: its parent
    moment = write(sim, pid, staging["id"], "orders", [{"id": 1, "email": "a@b"}])
    sim.advance_clock(1)
    diff = ok(compare(sim, pid, staging["id"], db_name="neondb", base_branch_id=main["id"]))["diff"]
    assert diff.startswith("--- a/neondb\n+++ b/neondb\n@@") and "\n+    email text" in diff
    # each side at its own point: staging before its migration equals main now
    assert ok(compare(sim, pid, staging["id"], db_name="neondb", base_branch_id=main["id"],
                      lsn=staging_lsn_before(moment)))["diff"] == ""
    reverse = ok(compare(sim, pid, main["id"], db_name="neondb", base_branch_id=staging["id"]))["diff"]
    assert "\n-    email text" in reverse
    refused(compare(sim, pid, main["id"], db_name="neondb"), 400, "base_branch_id")  # a root: no parent to default to
    refused(compare(sim, pid, staging["id"], db_name="neondb", base_branch_id=main["id"],
                    base_timestamp="2001-01-01T00:00:00Z"), 400, "base_timestamp", "history retention window")


def staging_lsn_before(write_answer):
    """The LSN one step before a write (the LSN grows by one per simulated millisecond)."""
    high, low = write_answer["lsn"].split("/")
    return "%s/%X" % (high, int(low, 16) - 1)


def test_schema_diff_and_go_duration():
    assert schema_diff("a\n", "a\n", "neondb") == ""
    assert schema_diff("a\n", "b\n", "db") == "--- a/db\n+++ b/db\n@@ -1 +1 @@\n-a\n+b\n"
    assert [go_duration(seconds) for seconds in (0, 5, 90, 3600, 21600, 86400 + 61)] == [
        "0s", "5s", "1m30s", "1h0m0s", "6h0m0s", "24h1m1s"]


# ---------------------------------------------------------------------------------------------- schema-only branches


def test_a_schema_only_branch_is_a_root_with_the_parents_tables_and_no_rows(sim):
    pid, main = project(sim)
    write(sim, pid, main["id"], "orders", [{"id": 1, "total": 5}])
    sim.advance_clock(1)
    made = branch(sim, pid, "schema-copy", init_source="schema-only", parent_id=main["id"])
    assert made["init_source"] == "schema-only" and "parent_id" not in made
    listed = get_branch(sim, pid, made["id"])
    assert listed.get("parent_id") is None and listed["init_source"] == "schema-only"
    assert rows(sim, pid, made["id"], "orders") == []
    assert ok(compare(sim, pid, made["id"], db_name="neondb", base_branch_id=main["id"])) == {"diff": ""}
    assert get_branch(sim, pid, main["id"])["init_source"] == "parent-data"
    refused(call(sim, "POST", "/projects/%s/branches" % pid, json={"branch": {"init_source": "all"}}), 400,
            "init_source")


def test_a_branch_from_an_lsn_has_the_data_of_that_moment(sim):
    pid, main = project(sim)
    first = write(sim, pid, main["id"], "orders", [{"id": 1}])
    sim.advance_clock(5)
    write(sim, pid, main["id"], "orders", [{"id": 1}, {"id": 2}])
    sim.advance_clock(1)
    child = branch(sim, pid, "from-lsn", parent_lsn=first["lsn"])
    assert rows(sim, pid, child["id"], "orders") == [{"id": 1}]
    assert child["parent_lsn"] == first["lsn"]
    refused(call(sim, "POST", "/projects/%s/branches" % pid, json={"branch": {"parent_lsn": "0/1/2"}}), 400,
            "parent_lsn")
