# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Self-tests of the Neon API v2 simulator (tests/simulator/neon_simulator)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid

import pytest

import requests
import neon_simulator
from neon_simulator import state as state_module
from neon_simulator.clock import Clock

Simulator = neon_simulator.Simulator
SIMULATOR_DIR = os.path.dirname(os.path.dirname(os.path.abspath(neon_simulator.__file__)))
API_KEY = "sim-selftest-key-0001"
PERSONAL_PROJECTS = 37  # the seeded personal projects of the bootstrap user (GET /projects with its key)
KEY_RE = re.compile(r"^[a-z0-9]{64}$")
SECONDS_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
MICRO_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
PROJECT_FIELDS = {
    "id": str, "name": str, "platform_id": str, "region_id": str, "provisioner": str, "pg_version": int,
    "locked": bool, "cpu_used_sec": int, "proxy_host": str, "branch_logical_size_limit": int,
    "created_at": str, "updated_at": str,
}


def call(sim, method, path, key=API_KEY, headers=None, **kwargs):
    headers = dict(headers or {})
    if key is not None:
        headers["Authorization"] = "Bearer " + key
    kwargs.setdefault("timeout", 10)
    return requests.request(method, sim.url + path, headers=headers, **kwargs)


def control(sim, method, path, **kwargs):
    kwargs.setdefault("timeout", 10)
    return requests.request(method, sim.control_url + path, **kwargs)


def assert_error(response, status):
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"code", "message", "request_id"}
    assert body["code"] == "" and body["message"]
    assert response.headers["x-neon-ret-request-id"] == body["request_id"]
    return body


def ops_path(project_id):
    return "/projects/%s/operations" % project_id


# ---------------------------------------------------------------------- basics and auth
def test_start_gives_loopback_api_url_and_health(sim):
    assert re.match(r"^http://127\.0\.0\.1:\d+/api/v2$", sim.url)
    assert control(sim, "GET", "/health").json() == {"ok": True}
    info = control(sim, "GET", "/info").json()
    assert info["demo_project_id"] == sim.demo_project_id == "shiny-river-12345678"
    assert info["api_url"] == sim.url


@pytest.mark.parametrize("headers", [
    {},
    {"Authorization": "Bearer not-a-real-key"},
    {"Authorization": "Basic c2ltOnNpbQ=="},
    {"Authorization": API_KEY},
])
def test_bad_or_missing_key_gets_401_json_with_request_id(sim, headers):
    response = call(sim, "GET", "/projects", key=None, headers=headers)
    body = assert_error(response, 401)
    assert str(uuid.UUID(body["request_id"])) == body["request_id"]


def test_client_request_id_is_echoed_on_success_and_error(sim):
    ok = call(sim, "GET", "/api_keys", headers={"X-Request-ID": "req-ok-42"})
    assert ok.status_code == 200 and ok.headers["x-neon-ret-request-id"] == "req-ok-42"
    denied = call(sim, "GET", "/api_keys", key="wrong", headers={"X-Request-ID": "req-denied-43"})
    assert assert_error(denied, 401)["request_id"] == "req-denied-43"


def test_unknown_route_is_404_and_wrong_method_is_405(sim):
    assert_error(call(sim, "GET", "/branches"), 404)
    response = call(sim, "PUT", "/projects")
    assert_error(response, 405)
    assert "GET" in response.headers["Allow"]


# ---------------------------------------------------------------------- API keys
def test_create_key_answers_200_with_secret_name_and_creator(sim):
    first = call(sim, "POST", "/api_keys", json={"key_name": "deploy"})
    second = call(sim, "POST", "/api_keys", json={"key_name": "deploy"})
    assert first.status_code == second.status_code == 200
    one, two = first.json(), second.json()
    assert set(one) == {"id", "key", "name", "created_at", "created_by"}
    assert isinstance(one["id"], int) and two["id"] > one["id"]
    assert KEY_RE.match(one["key"]) and one["key"] != two["key"]
    assert one["name"] == two["name"] == "deploy"  # names are not unique
    assert SECONDS_RE.match(one["created_at"])
    assert str(uuid.UUID(one["created_by"])) == one["created_by"]
    assert call(sim, "GET", "/projects", key=one["key"]).status_code == 200


def test_list_keys_is_a_bare_array_newest_first_of_active_keys(sim):
    older = call(sim, "POST", "/api_keys", json={"key_name": "older"}).json()
    newer = call(sim, "POST", "/api_keys", json={"key_name": "newer"}).json()
    listed = call(sim, "GET", "/api_keys").json()
    assert isinstance(listed, list)
    assert [item["id"] for item in listed[:2]] == [newer["id"], older["id"]]
    assert "bootstrap" in [item["name"] for item in listed]
    item = listed[0]
    assert set(item) == {"id", "name", "created_at", "created_by", "last_used_at", "last_used_from_addr"}
    assert set(item["created_by"]) == {"id", "name", "image"}
    assert call(sim, "DELETE", "/api_keys/%d" % older["id"]).status_code == 200
    assert older["id"] not in [item["id"] for item in call(sim, "GET", "/api_keys").json()]


def test_revoke_then_the_key_is_rejected_and_a_second_revoke_is_404(sim):
    created = call(sim, "POST", "/api_keys", json={"key_name": "short-lived"}).json()
    call(sim, "GET", "/projects", key=created["key"])
    revoked = call(sim, "DELETE", "/api_keys/%d" % created["id"])
    assert revoked.status_code == 200
    body = revoked.json()
    assert body["revoked"] is True and body["id"] == created["id"] and body["name"] == "short-lived"
    assert SECONDS_RE.match(body["last_used_at"]) and body["last_used_from_addr"] == "127.0.0.1"
    assert isinstance(body["created_by"], str)
    assert_error(call(sim, "GET", "/projects", key=created["key"]), 401)
    assert_error(call(sim, "DELETE", "/api_keys/%d" % created["id"]), 404)
    assert_error(call(sim, "DELETE", "/api_keys/99999999"), 404)
    assert_error(call(sim, "DELETE", "/api_keys/abc"), 400)
    everything = {key["id"]: key for key in control(sim, "GET", "/keys").json()["keys"]}
    assert everything[created["id"]]["revoked"] is True
    assert all("key" not in key and "secret" not in key for key in everything.values())


def test_revoking_the_key_in_use_is_allowed_and_reset_restores_it(sim):
    bootstrap = [key for key in sim.keys() if key["bootstrap"]][0]
    assert call(sim, "DELETE", "/api_keys/%d" % bootstrap["id"]).status_code == 200
    assert_error(call(sim, "GET", "/api_keys"), 401)
    assert control(sim, "POST", "/reset").status_code == 200
    assert call(sim, "GET", "/api_keys").status_code == 200


@pytest.mark.parametrize("body", [
    {"key_name": "x" * 65}, {"key_name": ""}, {"key_name": 12}, {}, {"name": "wrong-field"},
])
def test_invalid_key_name_is_400_and_creates_nothing(sim, body):
    before = len(sim.keys())
    assert_error(call(sim, "POST", "/api_keys", json=body), 400)
    assert len(sim.keys()) == before


def test_key_name_of_64_characters_is_accepted_and_bad_json_is_400(sim):
    assert call(sim, "POST", "/api_keys", json={"key_name": "y" * 64}).status_code == 200
    assert_error(call(sim, "POST", "/api_keys", data="{not json", headers={"Content-Type": "application/json"}),
                 400)


def test_last_used_is_recorded_per_key(sim):
    created = call(sim, "POST", "/api_keys", json={"key_name": "tracked"}).json()

    def listed():
        return {item["id"]: item for item in call(sim, "GET", "/api_keys").json()}

    fresh = listed()[created["id"]]
    assert fresh["last_used_at"] is None and fresh["last_used_from_addr"] == ""
    call(sim, "GET", "/projects", key=created["key"])
    used = listed()[created["id"]]
    assert SECONDS_RE.match(used["last_used_at"]) and used["last_used_from_addr"] == "127.0.0.1"
    call(sim, "GET", "/projects", key=created["key"], headers={"X-Forwarded-For": "203.0.113.7"})
    assert listed()[created["id"]]["last_used_from_addr"] == "203.0.113.7,127.0.0.1"
    assert "113.203.180.132,35.160.120.126" in [item["last_used_from_addr"] for item in listed().values()]


# ---------------------------------------------------------------------- projects
def test_projects_default_page_is_10_and_cursor_walks_all_projects(sim):
    first = call(sim, "GET", "/projects").json()
    assert len(first["projects"]) == 10
    assert first["pagination"]["cursor"] == first["projects"][-1]["id"]
    assert first["projects"][0]["id"] == sim.demo_project_id
    assert {"applications", "integrations", "unavailable_project_ids"} <= set(first)
    for project in first["projects"]:
        for field, kind in PROJECT_FIELDS.items():
            assert isinstance(project[field], kind), field
    seen, page = [], first
    while True:
        seen.extend(project["id"] for project in page["projects"])
        assert page["pagination"]["cursor"] == page["projects"][-1]["id"]  # even on the last, short page
        if len(page["projects"]) < 10:
            break
        page = call(sim, "GET", "/projects", params={"cursor": page["pagination"]["cursor"]}).json()
    assert len(seen) == len(set(seen)) == PERSONAL_PROJECTS
    assert all("org_id" not in project for project in first["projects"])  # personal projects, as live


def test_projects_limit_400_bounds_and_search(sim):
    everything = call(sim, "GET", "/projects", params={"limit": 400}).json()
    assert len(everything["projects"]) == PERSONAL_PROJECTS
    assert everything["pagination"]["cursor"] == everything["projects"][-1]["id"]
    for bad in ("401", "0", "ten"):
        assert_error(call(sim, "GET", "/projects", params={"limit": bad}), 400)
    found = call(sim, "GET", "/projects", params={"search": "DEMO-proj"}).json()["projects"]
    assert [project["id"] for project in found] == [sim.demo_project_id]
    assert len(call(sim, "GET", "/projects", params={"search": "river-1234"}).json()["projects"]) == 1
    assert_error(call(sim, "GET", "/projects", params={"cursor": "no-such-project-1"}), 400)


# ---------------------------------------------------------------------- operations
def test_operations_paging_is_gapless_with_urlencoded_microsecond_cursors(sim):
    pid = sim.demo_project_id
    sim.clear_requests()
    everything = call(sim, "GET", ops_path(pid), params={"limit": 1000}).json()["operations"]
    assert len(everything) == len(sim.state.shared.projects[pid].ops) >= 500
    walked, cursor, pages = [], None, 0
    while True:
        params = {"limit": 37}
        if cursor:
            params["cursor"] = cursor
        page = call(sim, "GET", ops_path(pid), params=params).json()
        pages += 1
        walked.extend(op["id"] for op in page["operations"])
        if page["operations"]:
            assert MICRO_RE.match(page["pagination"]["cursor"])
        cursor = page["pagination"].get("cursor")
        if len(page["operations"]) < 37:
            break
    assert walked == [op["id"] for op in everything]  # no gap, no overlap, newest first
    assert pages == len(everything) // 37 + 1
    assert cursor and MICRO_RE.match(cursor)  # the final short page still has a cursor
    queries = [entry["query"] for entry in sim.requests()[2:]]
    assert queries and all("%3A" in query for query in queries)
    empty = call(sim, "GET", ops_path(pid), params={"limit": 10, "cursor": "2000-01-01T00:00:00.000000Z"}).json()
    assert empty == {"operations": [], "pagination": {"cursor": "2000-01-01T00:00:00.000000Z"}}


def test_operations_newest_first_and_default_limit_10(sim):
    page = call(sim, "GET", ops_path(sim.demo_project_id)).json()
    assert len(page["operations"]) == 10
    stamps = [op["created_at"] for op in page["operations"]]
    assert stamps == sorted(stamps, reverse=True)
    op = page["operations"][-1]
    assert {"id", "project_id", "branch_id", "action", "status", "failures_count", "created_at", "updated_at",
            "total_duration_ms"} <= set(op)
    assert SECONDS_RE.match(op["created_at"]) and SECONDS_RE.match(op["updated_at"])


def test_operations_bad_parameters_and_unknown_ids(sim):
    pid = sim.demo_project_id
    for params in ({"limit": 1001}, {"limit": 0}, {"limit": "x"}, {"cursor": "yesterday"}):
        assert_error(call(sim, "GET", ops_path(pid), params=params), 400)
    assert assert_error(call(sim, "GET", ops_path("no-such-project-123")), 404)["message"] == "project not found"
    missing = call(sim, "GET", ops_path(pid) + "/" + str(uuid.uuid4()))
    assert assert_error(missing, 404)["message"] == "operation not found"
    assert_error(call(sim, "GET", ops_path("no-such-project-123") + "/" + str(uuid.uuid4())), 404)


def test_seeded_history_covers_every_end_status_and_many_actions(sim):
    ops = call(sim, "GET", ops_path(sim.demo_project_id), params={"limit": 1000}).json()["operations"]
    statuses = {op["status"] for op in ops}
    assert {"finished", "skipped", "failed", "error", "cancelled"} <= statuses
    assert len({op["action"] for op in ops}) >= 12
    failed = [op for op in ops if op["status"] in ("failed", "error")]
    assert all(op["error"] and op["failures_count"] >= 1 for op in failed)
    assert all("endpoint_id" not in op for op in ops if op["action"] == "create_branch")


def test_started_operation_goes_scheduling_running_finished_in_real_time(sim):
    """The default clock follows real time. A busy machine may hide a phase from the polls,
    so the test checks the order of the phases seen, not that each was seen."""
    started = sim.start_operations(sim.demo_project_id, action="start_compute", scheduling=0.2, duration=0.8)
    assert [op["status"] for op in started] == ["scheduling"]
    path = ops_path(sim.demo_project_id) + "/" + started[0]["id"]
    seen, deadline = ["scheduling"], time.monotonic() + 60
    while time.monotonic() < deadline:
        op = call(sim, "GET", path).json()["operation"]
        if seen[-1] != op["status"]:
            seen.append(op["status"])
        if op["status"] == "finished":
            break
        time.sleep(0.03)
    assert seen in (["scheduling", "running", "finished"], ["scheduling", "finished"])
    assert op["total_duration_ms"] == 800 and op["failures_count"] == 0
    assert op["updated_at"] >= op["created_at"]


@pytest.mark.parametrize("outcome", ["finished", "skipped", "failed", "error", "cancelled"])
def test_each_outcome_is_reached_through_its_phases(sim, outcome):
    failures = 2 if outcome in ("finished", "failed") else None
    op = sim.start_operations(sim.demo_project_id, action="apply_config", scheduling=1.0, duration=10.0,
                              outcome=outcome, failures_count=failures, error="boom" if outcome == "error" else None)[0]
    path = ops_path(sim.demo_project_id) + "/" + op["id"]

    def now():
        return call(sim, "GET", path).json()["operation"]

    assert now()["status"] == "scheduling"
    sim.advance_clock(1.5)
    assert now()["status"] == "running"
    if outcome == "finished":  # failures at 4 s and 7 s after creation, each retried within a second
        sim.advance_clock(2.8)
        retrying = now()
        assert retrying["status"] == "running" and retrying["failures_count"] == 1
        assert retrying["error"] and SECONDS_RE.match(retrying["retry_at"])
    if outcome == "cancelled":
        sim.advance_clock(8.2 - 1.5)
        assert now()["status"] == "cancelling"
    sim.advance_clock(10)
    final = now()
    assert final["status"] == outcome
    assert final["failures_count"] == {"finished": 2, "failed": 2, "error": 1}.get(outcome, 0)
    assert ("error" in final) == (outcome in ("failed", "error"))
    assert "retry_at" not in final
    if outcome == "error":
        assert final["error"] == "boom"


def test_control_api_starts_operations_and_creates_projects(sim):
    created = control(sim, "POST", "/projects", json={"name": "sim-made", "region_id": "azure-eastus2"})
    assert created.status_code == 201
    project = created.json()
    assert project["region_id"] == "azure-eastus2" and project["name"] == "sim-made"
    assert call(sim, "GET", "/projects", params={"limit": 1}).json()["projects"][0]["id"] == project["id"]
    started = control(sim, "POST", "/projects/%s/operations" % project["id"], json={"operations": [
        {"action": "create_branch", "duration": 3}, {"action": "start_compute", "duration": 3, "scheduling": 0},
    ]})
    assert started.status_code == 201
    ops = started.json()["operations"]
    assert [op["action"] for op in ops] == ["create_branch", "start_compute"]
    assert [op["status"] for op in ops] == ["scheduling", "running"]
    assert "endpoint_id" not in ops[0] and ops[1]["endpoint_id"].startswith("ep-")
    listed = call(sim, "GET", ops_path(project["id"])).json()["operations"]
    assert [op["id"] for op in listed] == [ops[1]["id"], ops[0]["id"]]
    many = control(sim, "POST", "/projects/%s/operations" % project["id"], json={"action": "import_data", "count": 3})
    assert len(many.json()["operations"]) == 3
    assert control(sim, "POST", "/projects/nope-nope-1/operations", json={}).status_code == 404
    assert control(sim, "POST", "/projects/%s/operations" % project["id"], json={"outcome": "maybe"}).status_code == 400


# ---------------------------------------------------------------------- faults
def test_fault_status_with_retry_after_for_count_requests_then_normal(sim):
    pid = sim.demo_project_id
    added = control(sim, "POST", "/faults", json={"method": "GET", "path": "/api/v2/projects/*/operations*",
                                                  "count": 2, "status": 429, "retry_after": "2"})
    assert added.status_code == 201
    for _attempt in range(2):
        response = call(sim, "GET", ops_path(pid))
        assert response.headers["Retry-After"] == "2"
        assert_error(response, 429)
    assert call(sim, "GET", ops_path(pid)).status_code == 200
    assert control(sim, "GET", "/faults").json()["faults"] == []
    faults = [entry["fault"] for entry in sim.requests()]
    assert faults == [added.json()["id"]] * 2 + [None]


def test_a_fault_id_is_never_given_again_after_a_clear_or_a_reset(sim):
    """A test counts its own fault's answers in the log by the fault's id (the guide's fault-injection play):
    a fault added after the faults were cleared, or after a reset, has an id of its own."""
    first = sim.add_fault(method="GET", path="/api/v2/projects", status=503)["id"]
    assert call(sim, "GET", "/projects").status_code == 503
    sim.clear_faults()
    second = sim.add_fault(method="GET", path="/api/v2/projects", status=503)["id"]
    sim.reset()
    third = sim.add_fault(method="GET", path="/api/v2/projects", status=503)["id"]
    assert len({first, second, third}) == 3, (first, second, third)


def test_fault_locked_423_then_success(sim):
    sim.add_fault(method="*", path="/api/v2/projects", status=423)
    body = assert_error(call(sim, "GET", "/projects"), 423)
    assert "conflicting operations" in body["message"]
    assert call(sim, "GET", "/projects").status_code == 200


def test_fault_latency_delays_then_answers_normally(sim):
    sim.add_fault(path="/api/v2/projects", latency=0.4)
    started = time.monotonic()
    response = call(sim, "GET", "/projects")
    assert time.monotonic() - started >= 0.4
    assert response.status_code == 200 and len(response.json()["projects"]) == 10
    sim.add_fault(path="/api/v2/projects", latency=1.0)
    with pytest.raises(requests.exceptions.ReadTimeout):
        call(sim, "GET", "/projects", timeout=0.3)
    deadline = time.monotonic() + 10  # let the slow answer finish before the next test resets
    while len(sim.requests()) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [entry["status"] for entry in sim.requests()] == [200, 200]


def test_fault_html_and_empty_bodies_like_a_cdn(sim):
    sim.add_fault(path="/api/v2/api_keys", body="html")
    sim.add_fault(path="/api/v2/api_keys", body="empty", status=503)
    html = call(sim, "GET", "/api_keys")
    assert html.status_code == 502 and html.headers["Content-Type"].startswith("text/html")
    assert "<h1>502 Bad Gateway</h1>" in html.text
    empty = call(sim, "GET", "/api_keys")
    assert empty.status_code == 503 and empty.content == b""


def test_fault_truncated_malformed_wrongshape_and_literal_bodies(sim):
    full = call(sim, "GET", "/projects").content
    sim.add_fault(path="/api/v2/projects", body="truncated")
    truncated = call(sim, "GET", "/projects")
    assert truncated.status_code == 200 and full.startswith(truncated.content)
    assert len(truncated.content) == len(full) // 2
    with pytest.raises(ValueError):
        truncated.json()
    sim.add_fault(path="/api/v2/projects/*/operations", body="malformed")
    malformed = call(sim, "GET", ops_path(sim.demo_project_id))
    assert malformed.status_code == 200 and malformed.text.startswith('{"operations": ')
    with pytest.raises(ValueError):
        malformed.json()
    sim.add_fault(path="/api/v2/projects/*/operations", body="wrongshape")
    assert isinstance(call(sim, "GET", ops_path(sim.demo_project_id)).json()["operations"], str)
    sim.add_fault(method="GET", path="/api/v2/api_keys", body="wrongshape")
    assert isinstance(call(sim, "GET", "/api_keys").json(), dict)
    sim.add_fault(path="/api/v2/projects", body="upstream connect error", status=503)
    literal = call(sim, "GET", "/projects")
    assert literal.status_code == 503 and literal.text == "upstream connect error"


def test_fault_drop_closes_the_connection_and_creates_no_key(sim):
    before = len(sim.keys())
    sim.add_fault(method="POST", path="/api/v2/api_keys", drop=True)
    with pytest.raises(requests.exceptions.ConnectionError):
        call(sim, "POST", "/api_keys", json={"key_name": "lost"})
    assert len(sim.keys()) == before
    entry = sim.requests()[-1]
    assert entry["dropped"] is True and entry["status"] is None and entry["fault"] is not None


def test_fault_drop_with_apply_carries_out_the_request_first(sim):
    before = len(sim.keys())
    sim.add_fault(method="POST", path="/api/v2/api_keys", drop=True, apply=True)
    with pytest.raises(requests.exceptions.ConnectionError):
        call(sim, "POST", "/api_keys", json={"key_name": "applied"})
    keys = sim.keys()
    assert len(keys) == before + 1 and keys[-1]["name"] == "applied"
    call(sim, "POST", "/api_keys", json={"key_name": "applied"})  # a blind retry makes a duplicate
    assert [key["name"] for key in sim.keys()].count("applied") == 2


def test_faults_are_fifo_filtered_by_method_and_clearable(sim):
    sim.add_fault(method="GET", path="/api/v2/api_keys", status=500)
    sim.add_fault(method="GET", path="/api/v2/api_keys", status=503)
    assert call(sim, "POST", "/api_keys", json={"key_name": "unaffected"}).status_code == 200
    assert call(sim, "GET", "/api_keys").status_code == 500
    assert call(sim, "GET", "/api_keys").status_code == 503
    sim.add_fault(path="/api/v2/*", status=500, count=5)
    assert len(control(sim, "GET", "/faults").json()["faults"]) == 1
    assert control(sim, "DELETE", "/faults").json() == {"removed": 1}
    assert call(sim, "GET", "/api_keys").status_code == 200
    assert control(sim, "POST", "/faults", json={"path": "/api/v2/*"}).status_code == 400
    assert control(sim, "POST", "/faults", json={"status": 429, "colour": "red"}).status_code == 400


# ---------------------------------------------------------------------- request log, rate limit, CLI
def test_request_log_records_api_requests_only(sim):
    call(sim, "GET", "/projects", params={"limit": 3})
    call(sim, "GET", "/projects", key="bad")
    control(sim, "GET", "/health")
    log = control(sim, "GET", "/requests").json()["requests"]
    assert [(e["method"], e["path"], e["query"], e["status"]) for e in log] == [
        ("GET", "/api/v2/projects", "limit=3", 200), ("GET", "/api/v2/projects", "", 401)]
    bootstrap_id = [key["id"] for key in sim.keys() if key["bootstrap"]][0]
    assert [e["key_id"] for e in log] == [bootstrap_id, None]
    assert log[1]["seq"] == log[0]["seq"] + 1 and log[1]["time"] >= log[0]["time"]
    since = control(sim, "GET", "/requests", params={"since": log[0]["seq"]}).json()["requests"]
    assert [e["seq"] for e in since] == [log[1]["seq"]]
    assert control(sim, "DELETE", "/requests").json() == {"removed": 2}
    assert sim.requests() == []


def test_rate_limit_answers_429_with_retry_after():
    with Simulator(api_key=API_KEY, rate_limit=3) as limited:
        responses = [call(limited, "GET", "/projects") for _attempt in range(12)]
        assert [response.status_code for response in responses[:3]] == [200] * 3  # the burst
        limited_responses = [response for response in responses if response.status_code == 429]
        assert limited_responses
        assert_error(limited_responses[0], 429)
        assert int(limited_responses[0].headers["Retry-After"]) >= 1
        assert call(limited, "GET", "/api_keys").status_code == 200  # another route has its own budget


def test_seed_is_deterministic():
    # the clock stands still (its monotonic source frozen): the seeded running operations stay running however long
    # a busy machine takes to build three states
    one = state_module.State("k1", 1, clock=Clock(monotonic=lambda: 1000.0))
    again, other = state_module.State("k2", 1), state_module.State("k3", 2)
    assert [p.id for p in one.shared.project_order] == [p.id for p in again.shared.project_order]
    demo = one.demo_project_id
    assert [op.id for op in one.shared.projects[demo].ops] == [op.id for op in again.shared.projects[demo].ops]
    assert [p.id for p in one.shared.project_order][1:] != [p.id for p in other.shared.project_order][1:]
    counts = [len(p.ops) for p in one.shared.project_order[1:]]
    assert len(one.shared.projects) >= 30 and min(counts) == 0 and max(counts) <= 120
    assert one.operations.operation_counts(demo).get("scheduling", 0) + one.operations.operation_counts(demo).get("running", 0) == 2


def test_cli_prints_the_url_serves_and_stops_on_sigterm(tmp_path):
    url_file = tmp_path / "url"
    env = dict(os.environ, PYTHONPATH=SIMULATOR_DIR, NEON_SIMULATOR_API_KEY="cli-key")
    command = [sys.executable, "-m", "neon_simulator", "--port", "0", "--url-file", str(url_file),
               "--org-key-rate-limit", "0"]
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        try:
            first = process.stdout.readline().strip()
            assert first.startswith("NEON_API_URL=http://127.0.0.1:")
            url = first.split("=", 1)[1]
            assert process.stdout.readline().strip() == "NEON_SIM_DEMO_PROJECT=shiny-river-12345678"
            deadline = time.monotonic() + 5
            while not url_file.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            assert url_file.read_text().strip() == url
            response = requests.get(url + "/api_keys", headers={"Authorization": "Bearer cli-key"}, timeout=5)
            assert response.status_code == 200
            control_url = url[:-len("/api/v2")] + "/_simulator"
            assert requests.get(control_url + "/rate_limits", timeout=5).json()["org_key_create"] is None
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=10) == 0
            assert not url_file.exists()
        finally:
            if process.poll() is None:
                process.kill()
    refused = subprocess.run([sys.executable, "-m", "neon_simulator", "--host", "0.0.0.0"], env=env,
                             capture_output=True, text=True, timeout=30, check=False)
    assert refused.returncode == 2 and "non-loopback" in refused.stderr
