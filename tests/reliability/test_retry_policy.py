# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The retry policy, seen from the simulator's request log: pauses, Retry-After, attempt counts,
what a POST or DELETE does after an ambiguous failure, the wait's time bound, paging that does not
advance, and answers with fields and values nobody has seen before."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import email.utils
import json
import re
import time

import pytest

import neon_reliability as rel

OPS = "/api/v2/projects/*/operations"


def _record(results, check, run, **facts):
    results["other"].append(dict(check=check, outcome="failed" if run.failed else "ok",
                                 message=rel.normalise(run.msg), **facts))


def _gaps(entries):
    return [later["time"] - earlier["time"] for earlier, later in zip(entries, entries[1:])]


def _route(sim, method, path):
    return [entry for entry in sim.requests() if entry["method"] == method and entry["path"] == path]


def _sequence(sim):
    return [(entry["method"], entry["path"].replace("/api/v2", ""), entry["status"]) for entry in sim.requests()]


def _shown(sequence):
    """The sequence for the report, key ids as <id>."""
    return [(method, re.sub(r"/\d+$", "/<id>", path), status) for method, path, status in sequence]


# ---------------------------------------------------------------------------------------------- pauses

@pytest.mark.parametrize("retry_after, max_delay, low, high", [
    ("1", 5.0, 0.95, 1.6),  # honoured
    ("30", 0.3, 0.25, 0.9),  # capped by api_retry_max_delay
    ("<date+2>", 10.0, 0.9, 2.6),  # an HTTP date, honoured (1 s resolution)
    ("<date+60>", 0.3, 0.25, 0.9),  # an HTTP date, capped
], ids=["seconds", "seconds-capped", "http-date", "http-date-capped"])
def test_retry_after_is_honoured_and_capped(sim, results, retry_after, max_delay, low, high):
    if retry_after.startswith("<date+"):
        retry_after = email.utils.formatdate(time.time() + int(retry_after[6:-1]), usegmt=True)
    sim.add_fault(method="GET", path="/api/v2/projects", status=429, retry_after=retry_after, count=1)
    run = rel.run_module("projects_info", rel.connection_args(sim, api_retry_max_delay=max_delay,
                                                              project_id=sim.demo_project_id))
    calls = _route(sim, "GET", "/api/v2/projects")
    gap = _gaps(calls)[0]
    _record(results, "429 with Retry-After %s, api_retry_max_delay %s" % (
        "an HTTP date" if " " in retry_after else retry_after, max_delay), run,
        pause="%s-%s s" % (low, high))
    assert run.rc == 0 and [entry["status"] for entry in calls] == [429, 200], run.describe()
    assert low <= gap <= high, gap


def test_backoff_without_retry_after_is_jittered_and_capped(sim, results):
    sim.add_fault(method="GET", path="/api/v2/api_keys", status=503, count=1000)
    run = rel.run_module("api_key_info", rel.connection_args(sim, api_retries=4, api_retry_max_delay=0.2))
    calls = _route(sim, "GET", "/api/v2/api_keys")
    gaps = _gaps(calls)
    _record(results, "503 for good, api_retries 4, api_retry_max_delay 0.2", run, attempts=len(calls))
    assert len(calls) == 5 and all(0.09 <= gap <= 0.35 for gap in gaps), gaps
    match = re.search(r"HTTP 503: .*; gave up after 5 attempts over (\d+\.\d) s$", run.msg)
    # The time it says covers the attempts the service saw (first to last, as the request log has them) and no more
    # than the task took: a span, not a race (rounded to 0.1 s; a busy machine adds to the task's time only).
    span = calls[-1]["time"] - calls[0]["time"]
    assert match and span - 0.05 <= float(match.group(1)) <= run.elapsed + 0.05, (run.msg, span, run.elapsed)


def test_default_api_retries_is_5(sim, results):
    sim.add_fault(method="GET", path="/api/v2/projects", status=502, count=1000)
    args = rel.connection_args(sim)
    del args["api_retries"]
    run = rel.run_module("projects_info", args)
    _record(results, "502 for good, default api_retries", run, attempts=len(_route(sim, "GET", "/api/v2/projects")))
    assert len(_route(sim, "GET", "/api/v2/projects")) == 6
    assert re.search(r"^GET /projects\?limit=400 failed: HTTP 502: bad gateway \(request id [0-9a-f-]{36}\); "
                     r"gave up after 6 attempts over \d+\.\d s$", run.msg), run.msg
    assert run.result["error"]["attempts"] == 6 and run.result["error"]["status"] == 502


def test_api_retries_0_means_one_attempt(sim):
    sim.add_fault(method="GET", path="/api/v2/projects", status=429, count=1000)
    run = rel.run_module("projects_info", rel.connection_args(sim, api_retries=0))
    assert len(_route(sim, "GET", "/api/v2/projects")) == 1
    assert run.failed and "gave up" not in run.msg and "HTTP 429" in run.msg


def test_client_errors_are_not_retried(sim):
    sim.add_fault(method="GET", path="/api/v2/projects", status=400, count=1000)
    run = rel.run_module("projects_info", rel.connection_args(sim))
    assert len(_route(sim, "GET", "/api/v2/projects")) == 1 and "HTTP 400" in run.msg


# ---------------------------------------------------------------------------------------------- POST and DELETE

def test_post_after_a_gateway_error_is_repeated_only_after_a_listing(sim, results):
    name = rel.unique_name()
    sim.add_fault(method="POST", path="/api/v2/api_keys", status=502, count=2)
    run = rel.run_module("api_key", rel.connection_args(sim, name=name))
    made = [key for key in sim.keys() if key["name"] == name]
    _record(results, "POST /api_keys 502 twice", run, keys_created=len(made), sequence=_shown(_sequence(sim)))
    assert run.rc == 0 and run.result["key"], run.describe()
    # ... and after the create, one listing more that looks for keys other runs created meanwhile
    assert _sequence(sim) == [("GET", "/api_keys", 200), ("POST", "/api_keys", 502), ("GET", "/api_keys", 200),
                              ("POST", "/api_keys", 502), ("GET", "/api_keys", 200), ("POST", "/api_keys", 200),
                              ("GET", "/api_keys", 200)]
    assert len(made) == 1 and made[0]["id"] == run.result["api_key"]["id"]


def test_post_refused_with_429_is_repeated_at_once(sim):
    name = rel.unique_name()
    sim.add_fault(method="POST", path="/api/v2/api_keys", status=429, count=2)
    run = rel.run_module("api_key", rel.connection_args(sim, name=name))
    assert run.rc == 0
    assert _sequence(sim) == [("GET", "/api_keys", 200), ("POST", "/api_keys", 429), ("POST", "/api_keys", 429),
                              ("POST", "/api_keys", 200), ("GET", "/api_keys", 200)]


LOST_ANSWERS = [("connection dropped", dict(drop=True, apply=True)), ("answer cut in half", dict(body="truncated")),
                ("HTTP 502", dict(status=502, apply=True)), ("HTTP 504 HTML page", dict(body="html", status=504, apply=True))]


@pytest.mark.parametrize("what, fault", LOST_ANSWERS, ids=["dropped", "truncated", "502", "504-html"])
def test_post_carried_out_but_answer_lost_is_reported_not_repeated(sim, results, what, fault):
    name = rel.unique_name()
    sim.add_fault(method="POST", path="/api/v2/api_keys", count=1000, **fault)
    run = rel.run_module("api_key", rel.connection_args(sim, name=name))
    made = [key for key in sim.keys() if key["name"] == name]
    posts = _route(sim, "POST", "/api/v2/api_keys")
    _record(results, "POST /api_keys carried out, answer lost: %s" % what, run, posts=len(posts),
            keys_created=len(made))
    assert len(posts) == 1 and len(made) == 1, _sequence(sim)
    assert run.failed and run.result["changed"] is True and run.result["api_key"]["id"] == made[0]["id"]
    assert "key" not in run.result and "key" not in run.result["api_key"]
    assert "the service did create key %d" % made[0]["id"] in run.msg and "Nothing was created twice" in run.msg


def test_post_without_answer_in_time_is_never_repeated(sim, results):
    """The request may still be running on the service: a listing now proves nothing."""
    name = rel.unique_name()
    sim.add_fault(method="POST", path="/api/v2/api_keys", latency=0.6, count=1)
    run = rel.run_module("api_key", rel.connection_args(sim, name=name, api_timeout=0.3))
    time.sleep(0.5)
    made = [key for key in sim.keys() if key["name"] == name]
    _record(results, "POST /api_keys answered after api_timeout", run, keys_created=len(made))
    assert len(_route(sim, "POST", "/api/v2/api_keys")) == 1 and len(made) == 1
    assert run.failed and "may still be carrying it out, so it was not asked again" in run.msg


def test_delete_after_a_dropped_connection_is_repeated_only_after_a_listing(sim, results):
    key = rel.api(sim, "POST", "/api_keys", json={"key_name": rel.unique_name()})
    sim.clear_requests()
    sim.add_fault(method="DELETE", path="/api/v2/api_keys/*", drop=True, count=1)
    run = rel.run_module("api_key", rel.connection_args(sim, id=key["id"], state="absent"))
    _record(results, "DELETE /api_keys/{id} connection dropped once", run, sequence=_shown(_sequence(sim)))
    path = "/api_keys/%d" % key["id"]
    assert _sequence(sim) == [("GET", "/api_keys", 200), ("DELETE", path, None), ("GET", "/api_keys", 200),
                              ("DELETE", path, 200)]
    assert run.rc == 0 and run.result["changed"] is True


def test_rotation_survives_a_gateway_error_on_the_revoke(sim):
    name = rel.unique_name()
    first = rel.run_module("api_key", rel.connection_args(sim, name=name))
    sim.add_fault(method="DELETE", path="/api/v2/api_keys/*", status=504, count=1)
    run = rel.run_module("api_key", rel.connection_args(sim, name=name, rotate=True))
    assert run.rc == 0, run.describe()
    assert [key["id"] for key in run.result["revoked_keys"]] == [first.result["api_key"]["id"]]
    assert [key["id"] for key in sim.keys() if key["name"] == name and not key["revoked"]] == [
        run.result["api_key"]["id"]]


# ---------------------------------------------------------------------------------------------- operation_wait

def _long_operation(sim, duration=30):
    project = sim.create_project(name=rel.unique_name("rel-project"))
    return project["id"], sim.start_operations(project["id"], action="start_compute", duration=duration)[0]["id"]


@pytest.mark.parametrize("fault", [dict(status=429, retry_after="30"), dict(latency=3.0), dict(drop=True)],
                         ids=["retry-after-30", "slow", "dropped"])
def test_wait_never_outlasts_timeout_plus_one_request(sim, results, fault):
    project_id, operation_id = _long_operation(sim)
    sim.add_fault(method="GET", path=OPS + "/*", count=1000, **fault)
    args = rel.connection_args(sim, project_id=project_id, operation_ids=[operation_id], timeout=1.2,
                               poll_interval=0.2, api_timeout=0.5, api_retry_max_delay=30, api_retries=5)
    started = time.monotonic()
    run = rel.run_module("operation_wait", args)
    wall = time.monotonic() - started
    results["other"].append(dict(check="operation_wait timeout 1.2 s, api_timeout 0.5 s, fault for good: %s" % (
        json.dumps(fault, sort_keys=True)), outcome="failed" if run.failed else "ok",
        message=rel.normalise(run.msg, timing=True), within_bound=wall <= 1.2 + 0.5 + 0.2))
    if fault.get("latency"):
        time.sleep(fault["latency"])
    assert run.failed and run.msg.startswith("Timed out after 1.2 s with 1 of 1 operations still in progress")
    assert "The last poll failed: GET /projects/" in run.msg
    assert run.result["elapsed"] <= 1.2 + 0.5 and wall <= 1.2 + 0.5 + 0.2, (run.result["elapsed"], wall)


def test_a_fault_that_outlasts_one_poll_s_retries_ends_the_wait_as_it_fails_a_read(sim, results):
    project = sim.create_project(name=rel.unique_name("rel-project"))
    operation = sim.start_operations(project["id"], action="apply_config", duration=0.3)[0]
    sim.add_fault(method="GET", path=OPS + "/*", status=503, count=6)
    run = rel.run_module("operation_wait", rel.connection_args(
        sim, project_id=project["id"], operation_ids=[operation["id"]], api_retries=1, poll_interval=0.1, timeout=10))
    polls = _route(sim, "GET", "/api/v2/projects/%s/operations/%s" % (project["id"], operation["id"]))
    _record(results, "operation_wait, 6 x 503 with api_retries 1 (the first poll's 2 attempts end the wait)", run)
    assert run.failed and run.msg.startswith("GET /projects/%s/operations/%s failed: HTTP 503: " % (
        project["id"], operation["id"])), run.describe()
    assert "; gave up after 2 attempts over " in run.msg and not run.msg.startswith("Timed out"), run.msg
    assert [entry["status"] for entry in polls] == [503, 503]  # no poll after the client's retries


def test_wait_that_ends_badly_names_the_operation(sim):
    project = sim.create_project(name=rel.unique_name("rel-project"))
    operation = sim.start_operations(project["id"], action="apply_config", duration=0.2, outcome="error",
                                     error="disk full")[0]
    run = rel.run_module("operation_wait", rel.connection_args(sim, operations=[operation], poll_interval=0.1))
    assert run.failed and run.msg == ("1 of 1 operations ended badly: %s (apply_config) error, failures_count 1, "
                                      "error: disk full" % operation["id"]), run.msg


# ---------------------------------------------------------------------------------------------- paging

def _page(ids, cursor, key="operations"):
    return json.dumps({key: [{"id": item} for item in ids], "pagination": {"cursor": cursor}})


@pytest.mark.parametrize("what, second, message", [
    ("the same cursor twice", _page(["c", "d"], "2025-01-01T00:00:00.000001Z"),
     r"answered cursor 2025-01-01T00:00:00\.000001Z twice: the list does not advance"),
    ("a page repeating items", _page(["a", "b"], "2025-01-01T00:00:00.000002Z"), r"repeated item a from an earlier page"),
    ("a full page without cursor", json.dumps({"operations": [{"id": "c"}, {"id": "d"}], "pagination": {}}),
     r"answered a full page of 2 without a pagination cursor"),
], ids=["same-cursor", "same-items", "no-cursor"])
def test_paging_that_does_not_advance_stops_with_an_error(sim, results, what, second, message):
    sim.add_fault(method="GET", path=OPS, body=_page(["a", "b"], "2025-01-01T00:00:00.000001Z"), count=1)
    sim.add_fault(method="GET", path=OPS, body=second, count=1000)
    run = rel.run_module("operation_info", rel.connection_args(sim, project_id=sim.demo_project_id, page_size=2))
    _record(results, "operation_info paging: %s" % what, run, requests=len(sim.requests()))
    assert run.failed and re.search(r"^GET /projects/shiny-river-12345678/operations failed: the service " + message,
                                    run.msg), run.msg
    assert len(sim.requests()) == 2


def test_projects_paging_with_the_same_cursor_twice_stops(sim, results):
    first = _page(["p-%d" % number for number in range(400)], "p-399", key="projects")
    second = _page(["q-%d" % number for number in range(400)], "p-399", key="projects")
    sim.add_fault(method="GET", path="/api/v2/projects", body=first, count=1)
    sim.add_fault(method="GET", path="/api/v2/projects", body=second, count=1000)
    run = rel.run_module("projects_info", rel.connection_args(sim))
    _record(results, "projects_info paging: the same cursor twice", run, requests=len(sim.requests()))
    assert run.failed and run.msg == "GET /projects failed: the service answered cursor p-399 twice: the list does not advance"


# ---------------------------------------------------------------------------------------------- unknown values

def test_unknown_fields_and_values_pass_through(sim, results):
    project = sim.create_project(name=rel.unique_name("rel-project"))
    operation = sim.start_operations(project["id"], action="apply_config", duration=0.3)[0]
    odd = dict(operation, status="hibernating", action="teleport_compute", quantum_state={"spin": "up"},
               retry_at=None, total_duration_ms="n/a")
    path = "/api/v2/projects/%s/operations/%s" % (project["id"], operation["id"])
    sim.add_fault(method="GET", path=path, body=json.dumps({"operation": odd, "debug": [1, 2]}), count=3)
    one = rel.run_module("operation_info", rel.connection_args(sim, project_id=project["id"],
                                                               operation_id=operation["id"]))
    assert one.rc == 0 and one.result["operation"]["status"] == "hibernating"
    assert one.result["operation"]["quantum_state"] == {"spin": "up"}
    waited = rel.run_module("operation_wait", rel.connection_args(
        sim, project_id=project["id"], operation_ids=[operation["id"]], poll_interval=0.1, timeout=10))
    assert waited.rc == 0 and waited.result["operations"][0]["status"] == "finished", waited.describe()
    assert waited.result["polls"] >= 3  # an unknown status counts as still in progress

    keys = json.dumps([{"id": 1, "name": "odd", "created_by": ["not", "an", "object"], "scopes": ["all"],
                        "last_used_from_addr": "10.0.0.1,10.0.0.2,10.0.0.3"}])
    sim.add_fault(method="GET", path="/api/v2/api_keys", body=keys, count=1)
    listed = rel.run_module("api_key_info", rel.connection_args(sim))
    assert listed.rc == 0 and listed.result["api_keys"][0]["scopes"] == ["all"]

    projects = json.dumps({"projects": [{"id": "new-thing-12345678", "name": "n", "region_id": "mars-north-1",
                                         "brand_new_field": {"x": 1}}],
                           "pagination": {"cursor": "new-thing-12345678", "next": "?"}, "applications": {},
                           "integrations": {}, "unavailable_project_ids": ["gone-1"], "yet_another": True})
    sim.add_fault(method="GET", path="/api/v2/projects", body=projects, count=1)
    found = rel.run_module("projects_info", rel.connection_args(sim, region_id="mars-north-1"))
    assert found.rc == 0 and found.result["projects"][0]["brand_new_field"] == {"x": 1}
    _record(results, "unknown fields, status 'hibernating', action 'teleport_compute'", waited)
