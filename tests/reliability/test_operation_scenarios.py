# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The scenarios of neon.cloud.operation_info (long pagination, cursors, filters, one operation,
refusals, errors) and neon.cloud.operation_wait (outcomes, idle mode, faults, refusals, errors,
timeouts) against the simulator.

Each test runs the module in this process (rel.run_module), as a playbook task would, and checks
what a user would notice: the result, the requests it took (the simulator's request log) and the
messages. The operations waited for end by how often they are read ("reads_in_progress") or are
held until released, never by wall time, so a busy machine cannot change what a wait sees; only a
timeout is the module's own clock, on an operation that never ends. The operation_info and
operation_wait integration targets keep one representative playbook task per behaviour; the
scenarios live here (CONTRIBUTING.md, "Integration targets and ansible-core").
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

import pytest

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok

DEMO_OPERATIONS = 502  # 500 ended over the past 30 days plus 2 started at reset (tests/simulator/README.md)
CURSOR = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{6}Z$")
UNKNOWN_OPERATION = "00000000-0000-4000-8000-000000000000"
POLL = 0.05  # operation_wait's poll_interval here: what ends an operation is how often it is read
WAIT = dict(poll_interval=POLL, timeout=20)


# ---------------------------------------------------------------------------------------------- helpers


def run(sim, module, check_mode=False, **args):
    return rel.task(sim, module, check_mode=check_mode, **args)


def ids(operations):
    return [operation["id"] for operation in operations]


def requests_since(sim, seq):
    return sim.requests(since=seq)


def project_with(sim, operations):
    """A seeded project with exactly that many operations."""
    return [project["id"] for project in sim.state.summary()["projects"] if project["operations"] == operations][0]


def everything(sim):
    """Every operation of the demo project, newest first, as operation_info reads them."""
    found = ok(run(sim, "operation_info", project_id=sim.demo_project_id))["operations"]
    assert len(found) == DEMO_OPERATIONS
    return found


def scratch_project(sim):
    """A project of this test's own, so that no other work runs in it, its creation ended."""
    project = sim.create_project(name=rel.unique_name("ops"))
    sim.advance_clock(30)
    idle = ok(run(sim, "operation_wait", project_id=project["id"], **WAIT))
    assert idle["operations"] == [], idle
    return project["id"]


def start(sim, project_id, *operations):
    """Operations started as a work-starting request returns them."""
    return sim.start_operations(project_id, [dict(operation) for operation in operations])


# ---------------------------------------------------------------------------------------------- operation_info: lists


def test_operation_info_reads_every_operation_newest_first_in_one_request(fresh_sim):
    sim = fresh_sim
    seq = last_seq(sim)
    data = ok(run(sim, "operation_info", project_id=sim.demo_project_id))
    operations = data["operations"]
    assert data["changed"] is False
    assert len(operations) == DEMO_OPERATIONS and len(set(ids(operations))) == DEMO_OPERATIONS
    created = [operation["created_at"] for operation in operations]
    assert created == sorted(created, reverse=True)
    assert {operation["project_id"] for operation in operations} == {sim.demo_project_id}
    assert data["cursor"] is None and "operation" not in data
    log = requests_since(sim, seq)
    assert [(entry["path"], entry["query"]) for entry in log] == [
        ("/api/v2/projects/%s/operations" % sim.demo_project_id, "limit=1000")]

    check = ok(run(sim, "operation_info", project_id=sim.demo_project_id, check_mode=True))
    assert check["changed"] is False and ids(check["operations"]) == ids(operations)


def test_two_reads_chained_by_cursor_give_the_whole_list_and_pages_are_asked_as_documented(fresh_sim):
    sim = fresh_sim
    whole = ids(everything(sim))
    seq = last_seq(sim)
    first = ok(run(sim, "operation_info", project_id=sim.demo_project_id, page_size=50, max_results=120))
    log = requests_since(sim, seq)
    second = ok(run(sim, "operation_info", project_id=sim.demo_project_id, page_size=200, cursor=first["cursor"]))

    assert len(first["operations"]) == 120 and CURSOR.match(first["cursor"])
    assert len(second["operations"]) == DEMO_OPERATIONS - 120 and second["cursor"] is None
    assert ids(first["operations"] + second["operations"]) == whole
    # 50 + 50 + 20: the last page is asked only as large as needed
    assert [re.sub(r"^limit=([0-9]+).*$", r"\1", entry["query"]) for entry in log] == ["50", "50", "20"]
    # the cursor travels URL-encoded
    assert re.search(r"cursor=[0-9-]+T[0-9]{2}%3A[0-9]{2}%3A", log[1]["query"]), log[1]["query"]
    assert "cursor" not in log[0]["query"]


def test_a_list_read_to_its_end_has_a_null_cursor_and_an_empty_project_an_empty_list(fresh_sim):
    sim = fresh_sim
    project_120 = project_with(sim, 120)
    exact = ok(run(sim, "operation_info", project_id=project_120, page_size=60))
    assert len(exact["operations"]) == 120 and exact["cursor"] is None
    exact_max = ok(run(sim, "operation_info", project_id=project_120, page_size=60, max_results=120))
    assert ids(exact_max["operations"]) == ids(exact["operations"])
    if exact_max["cursor"] is not None:  # a continuation of a full read is empty
        after = ok(run(sim, "operation_info", project_id=project_120, page_size=60, cursor=exact_max["cursor"]))
        assert after["operations"] == [] and after["cursor"] is None

    empty = ok(run(sim, "operation_info", project_id=project_with(sim, 0)))
    assert empty["operations"] == [] and empty["cursor"] is None


def test_each_filter_keeps_exactly_the_matching_operations_newest_first(fresh_sim):
    sim = fresh_sim
    every = everything(sim)
    branch = every[-1]["branch_id"]
    endpoint = [operation for operation in every if operation.get("endpoint_id")][0]["endpoint_id"]
    on_endpoint = [operation for operation in every if operation.get("endpoint_id") == endpoint]

    def read(**filters):
        return ok(run(sim, "operation_info", project_id=sim.demo_project_id, **filters))

    def expected(keep):
        found = [operation["id"] for operation in every if keep(operation)]
        return found

    by_status = read(status=["failed", "error"])
    assert by_status["operations"] and ids(by_status["operations"]) == expected(lambda op: op["status"] in ("failed", "error"))
    assert by_status["cursor"] is None
    by_action = read(action=["create_branch", "start_compute"])
    assert by_action["operations"]
    assert ids(by_action["operations"]) == expected(lambda op: op["action"] in ("create_branch", "start_compute"))
    by_branch = read(branch_id=branch)
    assert by_branch["operations"] and ids(by_branch["operations"]) == expected(lambda op: op.get("branch_id") == branch)
    by_endpoint = read(endpoint_id=endpoint)
    assert by_endpoint["operations"] and ids(by_endpoint["operations"]) == ids(on_endpoint)
    combined = read(status=["failed"], action=["start_compute"], endpoint_id=endpoint)
    assert ids(combined["operations"]) == [
        op["id"] for op in on_endpoint if op["status"] == "failed" and op["action"] == "start_compute"]
    no_match = read(status=["no-such-status"], action=["no_such_action"])
    assert no_match["operations"] == [] and no_match["cursor"] is None


def test_filtered_reads_chain_by_cursor_without_overlap_or_gap(fresh_sim):
    sim = fresh_sim
    all_failed = [operation["id"] for operation in everything(sim) if operation["status"] == "failed"]
    seq = last_seq(sim)
    first = ok(run(sim, "operation_info", project_id=sim.demo_project_id, status=["failed"], max_results=5))
    # one page of 1000, and one small request for the exact cursor after the 5th match
    assert len(requests_since(sim, seq)) == 2
    following = ok(run(sim, "operation_info", project_id=sim.demo_project_id, status=["failed"], max_results=5,
                       cursor=first["cursor"]))
    rest = ok(run(sim, "operation_info", project_id=sim.demo_project_id, status=["failed"], cursor=following["cursor"]))
    assert len(first["operations"]) == 5 and CURSOR.match(first["cursor"])
    assert len(following["operations"]) == 5 and CURSOR.match(following["cursor"])
    assert rest["cursor"] is None
    assert ids(first["operations"] + following["operations"] + rest["operations"]) == all_failed


# ---------------------------------------------------------------------------------------------- operation_info: one operation


def test_one_operation_as_the_service_returns_it_list_options_ignored(sim):
    listed = ok(run(sim, "operation_info", project_id=sim.demo_project_id, max_results=11))["operations"]
    wanted = listed[10]
    one = ok(run(sim, "operation_info", project_id=sim.demo_project_id, operation_id=wanted["id"]))
    assert one["changed"] is False
    for field in ("id", "action", "status", "created_at"):
        assert one["operation"][field] == wanted[field], field
    assert one["operation"]["project_id"] == sim.demo_project_id
    assert isinstance(one["operation"]["failures_count"], int)
    assert "operations" not in one and "cursor" not in one

    check = ok(run(sim, "operation_info", project_id=sim.demo_project_id, operation_id=wanted["id"],
                   status=["no-such-status"], page_size=1, max_results=1, check_mode=True))
    assert check["changed"] is False and check["operation"]["id"] == wanted["id"]

    project_id = scratch_project(sim)
    held = start(sim, project_id, {"action": "create_branch", "hold": True, "scheduling": 0})[0]
    running = ok(run(sim, "operation_info", project_id=project_id, operation_id=held["id"]))["operation"]
    assert (running["id"], running["action"], running["status"]) == (held["id"], "create_branch", "running")
    sim.release_operations(project_id)


# ---------------------------------------------------------------------------------------------- operation_info: failures


@pytest.mark.parametrize("args, msg", [
    (dict(operation_id="not-an-operation"),
     "operation_id must be an operation id, a UUID such as 0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10, got 'not-an-operation'"),
    (dict(page_size=0), "page_size must be from 1 to 1000, got 0"),
    (dict(page_size=1001), "page_size must be from 1 to 1000, got 1001"),
    (dict(max_results=0), "max_results must be greater than 0, got 0"),
    (dict(project_id=None), "project_id"),
], ids=["malformed-id", "page-0", "page-1001", "max-0", "no-project"])
def test_operation_info_invalid_options_fail_without_asking_the_service(sim, args, msg):
    args = dict(dict(project_id=sim.demo_project_id), **args)
    if args["project_id"] is None:
        del args["project_id"]
    seq = last_seq(sim)
    refused = failed(run(sim, "operation_info", **args))
    if msg == "project_id":
        assert "project_id" in refused["msg"]
    else:
        assert refused["msg"] == msg
    assert requests_since(sim, seq) == []


def test_unknown_operations_and_projects_fail_with_the_service_s_404_and_the_request(sim):
    unknown = failed(run(sim, "operation_info", project_id=sim.demo_project_id, operation_id=UNKNOWN_OPERATION))
    error = unknown["error"]
    assert "operation" not in unknown
    assert (error["status"], error["method"]) == (404, "GET")
    assert error["path"] == "/projects/%s/operations/%s" % (sim.demo_project_id, UNKNOWN_OPERATION)
    assert error["request_id"] and error["message"] == "operation not found"
    assert unknown["msg"] == "GET %s failed: HTTP 404: operation not found (request id %s)" % (
        error["path"], error["request_id"])

    no_project = failed(run(sim, "operation_info", project_id="no-such-project-00000000"))
    assert "operations" not in no_project
    assert (no_project["error"]["status"], no_project["error"]["method"]) == (404, "GET")
    assert no_project["error"]["path"] == "/projects/no-such-project-00000000/operations?limit=1000"
    assert no_project["error"]["request_id"]
    assert "HTTP 404: project not found" in no_project["msg"]

    a_known_id = ok(run(sim, "operation_info", project_id=sim.demo_project_id, max_results=1))["operations"][0]["id"]
    no_project_one = failed(run(sim, "operation_info", project_id="no-such-project-00000000", operation_id=a_known_id))
    assert no_project_one["error"]["status"] == 404


def test_operation_info_waits_out_a_rate_limit(sim):
    sim.add_fault(method="GET", path="/api/v2/projects/*/operations", status=429, retry_after="0", count=2)
    seq = last_seq(sim)
    data = ok(run(sim, "operation_info", project_id=sim.demo_project_id, max_results=3))
    assert len(data["operations"]) == 3
    assert [entry["status"] for entry in requests_since(sim, seq)] == [429, 429, 200]


# ---------------------------------------------------------------------------------------------- operation_wait: outcomes


def test_wait_for_operations_as_a_work_starting_request_returns_them(sim):
    project_id = scratch_project(sim)
    started = start(sim, project_id, {"action": "create_branch", "reads_in_progress": 1},
                    {"action": "start_compute", "reads_in_progress": 1})
    assert [operation["status"] for operation in started if operation["status"] == "finished"] == []
    data = ok(run(sim, "operation_wait", operations=started, **WAIT))
    assert data["changed"] is False
    assert ids(data["operations"]) == ids(started)
    assert [operation["status"] for operation in data["operations"]] == ["finished", "finished"]
    assert [operation["action"] for operation in data["operations"]] == ["create_branch", "start_compute"]
    assert data["failed_operations"] == [] and data["elapsed"] > 0
    # the first poll saw them in progress, the second saw them ended: the wait stops at once
    assert data["polls"] == 2
    # two operations of one project: one page of the operations list per poll
    assert data["requests"] == data["polls"]


def test_skipped_ends_well_and_one_id_is_read_once_a_poll(sim):
    project_id = scratch_project(sim)
    started = start(sim, project_id, {"action": "check_availability", "outcome": "skipped", "reads_in_progress": 1})
    data = ok(run(sim, "operation_wait", project_id=project_id, operation_id=started[0]["id"], **WAIT))
    assert ids(data["operations"]) == ids(started) and data["operations"][0]["status"] == "skipped"
    assert data["failed_operations"] == []
    assert data["polls"] == 2 and data["requests"] == data["polls"]  # one GET of it per poll


def test_failed_error_and_cancelled_end_badly_and_each_is_named(sim):
    project_id = scratch_project(sim)
    started = ids(start(
        sim, project_id,
        {"action": "apply_config", "outcome": "failed", "reads_in_progress": 1, "error": "disk quota exceeded"},
        {"action": "start_compute", "outcome": "error", "reads_in_progress": 1, "failures_count": 3},
        {"action": "suspend_compute", "outcome": "cancelled", "reads_in_progress": 2},
        {"action": "create_branch", "outcome": "finished", "reads_in_progress": 1}))
    bad = failed(run(sim, "operation_wait", project_id=project_id, operation_ids=started, **WAIT))
    assert not bad.get("changed")
    assert bad["msg"].startswith("3 of 4 operations ended badly")
    assert "%s (apply_config) failed, failures_count 1, error: disk quota exceeded" % started[0] in bad["msg"]
    assert "%s (start_compute) error, failures_count 3" % started[1] in bad["msg"]
    assert "%s (suspend_compute) cancelled, failures_count 0" % started[2] in bad["msg"]
    assert started[3] not in bad["msg"]
    assert ids(bad["operations"]) == started
    assert [operation["status"] for operation in bad["operations"]] == ["failed", "error", "cancelled", "finished"]
    assert ids(bad["failed_operations"]) == started[:3]
    assert "error" not in bad

    listed = ok(run(sim, "operation_wait", project_id=project_id, operation_ids=started, fail_on_failure=False, **WAIT))
    assert "msg" not in listed
    assert [operation["status"] for operation in listed["failed_operations"]] == ["failed", "error", "cancelled"]
    assert len(listed["operations"]) == 4 and listed["polls"] == 1
    cancelled = ok(run(sim, "operation_wait", project_id=project_id, operation_id=started[2], fail_on_failure=False, **WAIT))
    assert ids(cancelled["failed_operations"]) == [started[2]]


def test_entries_without_project_id_take_the_option_and_one_wait_spans_two_projects(sim):
    project_id = scratch_project(sim)
    other_id = scratch_project(sim)
    here = start(sim, project_id, {"action": "apply_config", "reads_in_progress": 1})[0]
    there = start(sim, other_id, {"action": "apply_config", "reads_in_progress": 1})[0]
    data = ok(run(sim, "operation_wait", project_id=project_id, operations=[{"id": here["id"]}, there], **WAIT))
    assert [operation["project_id"] for operation in data["operations"]] == [project_id, other_id]
    assert [operation["status"] for operation in data["operations"]] == ["finished", "finished"]


def test_idle_mode_returns_what_was_in_progress_and_an_idle_project_returns_at_once(sim):
    project_id = scratch_project(sim)
    started = start(sim, project_id, {"action": "create_branch", "reads_in_progress": 1},
                    {"action": "start_compute", "reads_in_progress": 3})
    idle = ok(run(sim, "operation_wait", project_id=project_id, **WAIT))
    assert sorted(ids(idle["operations"])) == sorted(ids(started))
    assert {operation["status"] for operation in idle["operations"]} == {"finished"}
    assert idle["failed_operations"] == [] and idle["elapsed"] > 0
    again = ok(run(sim, "operation_wait", project_id=project_id, **WAIT))
    assert again["operations"] == [] and again["failed_operations"] == []
    assert again["polls"] == 1 and again["requests"] == 1


def test_a_failure_during_the_idle_wait_fails_the_task(sim):
    project_id = scratch_project(sim)
    started = start(sim, project_id, {"action": "apply_storage_config", "outcome": "failed", "reads_in_progress": 1})[0]
    bad = failed(run(sim, "operation_wait", project_id=project_id, **WAIT))
    assert bad["msg"].startswith("1 of 1 operations ended badly")
    assert started["id"] in bad["msg"] and "(apply_storage_config) failed" in bad["msg"]
    assert ids(bad["failed_operations"]) == [started["id"]]


def test_check_mode_waits_too(sim):
    project_id = scratch_project(sim)
    started = start(sim, project_id, {"action": "apply_config", "reads_in_progress": 1})
    data = ok(run(sim, "operation_wait", operations=started, check_mode=True, **WAIT))
    assert data["changed"] is False and data["operations"][0]["status"] == "finished" and data["polls"] == 2


def test_transient_faults_during_the_wait_are_retried(sim):
    project_id = scratch_project(sim)
    started = start(sim, project_id, {"action": "apply_config", "reads_in_progress": 1})
    for fault in ({"status": 503}, {"body": "html", "status": 502}, {"status": 423}):
        sim.add_fault(method="GET", path="/api/v2/projects/*/operations/*", **fault)
    seq = last_seq(sim)
    data = ok(run(sim, "operation_wait", operations=started, api_retry_max_delay=0.2, **WAIT))
    assert data["operations"][0]["status"] == "finished"
    assert data["requests"] >= data["polls"] + 3
    assert [entry["status"] for entry in requests_since(sim, seq)][:3] == [503, 502, 423]


def test_an_empty_list_is_nothing_to_wait_for(sim):
    seq = last_seq(sim)
    data = ok(run(sim, "operation_wait", operations=[], **WAIT))
    assert data["operations"] == [] and data["failed_operations"] == [] and data["requests"] == 0
    assert requests_since(sim, seq) == []


# ---------------------------------------------------------------------------------------------- operation_wait: failures


@pytest.mark.parametrize("args, msg", [
    (dict(timeout=1, poll_interval=2), "poll_interval (2.0) must not be greater than timeout (1.0)"),
    (dict(timeout=-1), "timeout must be greater than 0, got -1.0"),
    (dict(poll_interval=0), "poll_interval must be greater than 0, got 0.0"),
    (dict(operations=[{"id": UNKNOWN_OPERATION}, {"action": "create_branch", "status": "running"}]),
     "operations[1] has no id: give operation objects as the API returns them"),
    (dict(project_id=None, operations=[{"id": UNKNOWN_OPERATION}]),
     "operations[0] (%s) has no project_id: set the project_id option" % UNKNOWN_OPERATION),
    (dict(project_id=None, operation_ids=[UNKNOWN_OPERATION]),
     "project_id is required unless every entry of operations carries one"),
    (dict(operation_ids=["not-an-operation"]),
     "operation_ids must be an operation id, a UUID such as 0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10, got 'not-an-operation'"),
    (dict(operation_ids=[UNKNOWN_OPERATION], operations=[{"id": UNKNOWN_OPERATION}]), "mutually exclusive"),
], ids=["poll-over-timeout", "negative-timeout", "zero-poll", "entry-without-id", "entry-without-project",
        "ids-without-project", "malformed-id", "ids-and-operations"])
def test_operation_wait_invalid_options_fail_without_asking_the_service(sim, args, msg):
    args = dict(dict(project_id=sim.demo_project_id), **args)
    if args["project_id"] is None:
        del args["project_id"]
    seq = last_seq(sim)
    refused = failed(run(sim, "operation_wait", **args))
    if msg == "mutually exclusive":
        assert msg in refused["msg"]
    else:
        assert refused["msg"] == msg
    assert requests_since(sim, seq) == []


def test_errors_that_cannot_heal_end_the_wait_at_once_with_the_request_that_failed(sim):
    project_id = scratch_project(sim)
    unknown = failed(run(sim, "operation_wait", project_id=project_id, operation_id=UNKNOWN_OPERATION, **WAIT))
    error = unknown["error"]
    assert (error["status"], error["method"]) == (404, "GET")
    assert error["path"] == "/projects/%s/operations/%s" % (project_id, UNKNOWN_OPERATION)
    assert error["request_id"] and "HTTP 404: operation not found" in unknown["msg"]
    assert ids(unknown["operations"]) == [UNKNOWN_OPERATION]
    assert unknown["polls"] == 1 and unknown["elapsed"] < 5

    no_project = failed(run(sim, "operation_wait", project_id="no-such-project-00000000", **WAIT))
    assert no_project["error"]["status"] == 404 and "project not found" in no_project["msg"]
    assert no_project["operations"] == []

    bad_key = failed(rel.run_module("operation_wait", rel.connection_args(sim, api_key="not-a-key", project_id=project_id, **WAIT)))
    assert bad_key["error"]["status"] == 401 and "missing, invalid or revoked" in bad_key["msg"]


def test_a_timeout_fails_names_what_is_in_progress_and_returns_the_operations(sim):
    timeout, api_timeout = 0.5, 5
    project_id = scratch_project(sim)
    held = start(sim, project_id, {"action": "create_branch", "hold": True, "scheduling": 0})
    op_id = held[0]["id"]
    args = dict(timeout=timeout, poll_interval=0.1, api_timeout=api_timeout)

    for wait in (dict(operations=held), dict(project_id=project_id)):
        timed_out = failed(run(sim, "operation_wait", **dict(args, **wait)))
        assert timed_out["msg"].startswith("Timed out after %s s with 1 of 1 operations still in progress" % timeout)
        assert "%s (create_branch) running, failures_count 0" % op_id in timed_out["msg"]
        assert ids(timed_out["operations"]) == [op_id] and timed_out["operations"][0]["status"] == "running"
        assert timed_out["failed_operations"] == []
        # the documented bound: never longer than timeout plus one request's api_timeout
        assert timeout <= timed_out["elapsed"] < timeout + api_timeout
        assert timed_out["polls"] >= 2

    released = sim.release_operations(project_id, op_id, outcome="cancelled")
    assert [operation["status"] for operation in released] == ["cancelled"]
    after = ok(run(sim, "operation_wait", project_id=project_id, fail_on_failure=False, **WAIT))
    assert after["operations"] == []
