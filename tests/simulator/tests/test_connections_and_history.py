# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests: kept-alive connections (with the drop fault) and the bulk history load."""

from __future__ import annotations

import http.client

import pytest

import requests
import neon_simulator

API_KEY = "sim-selftest-key-0002"
HEADERS = {"Authorization": "Bearer " + API_KEY, "Accept": "application/json"}


def connection(sim):
    return http.client.HTTPConnection(sim.host, sim.port, timeout=10)


def get(conn, path):
    conn.request("GET", "/api/v2" + path, headers=HEADERS)
    response = conn.getresponse()
    return response, response.read()


# ---------------------------------------------------------------------- keep-alive
def test_gets_share_one_kept_alive_http11_connection(sim):
    conn = connection(sim)
    try:
        first, _body = get(conn, "/projects?limit=1")
        sock = conn.sock
        for _round in range(5):
            response, body = get(conn, "/projects/%s/operations?limit=3" % sim.demo_project_id)
            assert response.status == 200 and len(body) > 100
        assert first.version == 11 and first.getheader("Connection") is None
        assert conn.sock is sock  # never reopened
        assert len(sim.requests()) == 6
    finally:
        conn.close()


def test_a_request_with_a_body_or_connection_close_still_closes(sim):
    conn = connection(sim)
    try:
        conn.request("POST", "/api/v2/api_keys", body=b'{"key_name": "k"}',
                     headers=dict(HEADERS, **{"Content-Type": "application/json"}))
        response = conn.getresponse()
        response.read()
        assert response.status == 200 and response.getheader("Connection") == "close"
        conn.request("GET", "/api/v2/projects", headers=dict(HEADERS, Connection="close"))
        response = conn.getresponse()
        response.read()
        assert response.status == 200 and response.getheader("Connection") == "close"
    finally:
        conn.close()


def test_drop_on_a_kept_alive_connection_closes_it_with_no_answer(sim):
    conn = connection(sim)
    try:
        assert get(conn, "/projects?limit=1")[0].status == 200
        sim.add_fault(method="GET", path="/api/v2/projects", drop=True)
        conn.request("GET", "/api/v2/projects?limit=1", headers=HEADERS)
        with pytest.raises(http.client.RemoteDisconnected):  # closed without a status line
            conn.getresponse()
    finally:
        conn.close()
    assert [entry["dropped"] for entry in sim.requests()] == [False, True]
    session = requests.Session()  # and a requests client sees a ConnectionError, then recovers
    session.headers.update(HEADERS)
    assert session.get(sim.url + "/projects?limit=1", timeout=10).status_code == 200
    sim.add_fault(method="GET", path="/api/v2/projects", drop=True)
    with pytest.raises(requests.exceptions.ConnectionError):
        session.get(sim.url + "/projects?limit=1", timeout=10)
    assert session.get(sim.url + "/projects?limit=1", timeout=10).status_code == 200
    session.close()


# ---------------------------------------------------------------------- bulk history
def test_add_history_loads_10000_ended_operations_that_page_gaplessly(sim):
    pid = sim.create_project(name="bulk")["id"]
    answer = sim.add_history(pid, 10000, days=10, seed=7)
    assert answer == {"project_id": pid, "added": 10000, "operations": 10000}
    counts = sim.state.operations.operation_counts(pid)
    assert sum(counts.values()) == 10000 and set(counts) <= set(neon_simulator.END_STATUSES)
    session = requests.Session()
    session.headers.update(HEADERS)
    seen, cursor, pages = [], None, 0
    while pages < 20:
        params = {"limit": 1000}
        if cursor:
            params["cursor"] = cursor
        body = session.get(sim.url + "/projects/%s/operations" % pid, params=params, timeout=10).json()
        pages += 1
        seen.extend(op["id"] for op in body["operations"])
        if len(body["operations"]) < 1000:
            break
        cursor = body["pagination"]["cursor"]
    session.close()
    assert pages == 11 and len(seen) == len(set(seen)) == 10000


def test_add_history_merges_with_existing_operations_over_the_control_api(sim):
    pid = sim.demo_project_id
    before = sum(sim.state.operations.operation_counts(pid).values())
    answer = requests.post(sim.control_url + "/projects/%s/history" % pid, json={"count": 250, "days": 2}, timeout=10)
    assert answer.status_code == 201 and answer.json()["operations"] == before + 250
    ops = sim.state.shared.projects[pid].ops
    assert len({op.id for op in ops}) == len({op.created_us for op in ops}) == before + 250
    assert requests.post(sim.control_url + "/projects/nope-nope-1/history", json={"count": 1}, timeout=10).status_code == 404
    for bad in ({}, {"count": 0}, {"count": 100001}, {"count": 5, "days": 0}, {"count": 5, "seed": "x"}):
        assert requests.post(sim.control_url + "/projects/%s/history" % pid, json=bad, timeout=10).status_code == 400
