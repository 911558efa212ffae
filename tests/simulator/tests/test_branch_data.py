# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests: a branch's data stand-in and its history (history.py), through the control API."""

from __future__ import annotations

import pytest

import requests
from neon_simulator.history import BranchData, lsn_of, parse_lsn, schema_of, us_of_lsn

API_KEY = "sim-selftest-key-0031"


def main_branch(sim):
    answer = requests.get("%s/projects/%s/branches" % (sim.url, sim.demo_project_id), headers=sim.headers, timeout=10)
    return next(branch for branch in answer.json()["branches"] if branch["default"])


def data_url(sim, branch_id):
    return "%s/projects/%s/branches/%s/data" % (sim.control_url, sim.demo_project_id, branch_id)


def test_every_write_is_kept_and_each_moment_reads_its_own_rows(sim):
    branch = main_branch(sim)
    first = requests.post(data_url(sim, branch["id"]), json={"table": "orders", "rows": [{"id": 1}]}, timeout=10)
    sim.advance_clock(60)
    second = requests.post(data_url(sim, branch["id"]), json={"table": "orders", "rows": [{"id": 1}, {"id": 2}]},
                           timeout=10)
    assert first.status_code == second.status_code == 200
    now = requests.get(data_url(sim, branch["id"]), timeout=10).json()
    then = requests.get(data_url(sim, branch["id"]), params={"timestamp": first.json()["timestamp"]}, timeout=10).json()
    by_lsn = requests.get(data_url(sim, branch["id"]), params={"lsn": first.json()["lsn"]}, timeout=10).json()
    assert now["databases"]["neondb"]["orders"] == [{"id": 1}, {"id": 2}]
    assert then["databases"]["neondb"]["orders"] == [{"id": 1}]
    assert by_lsn["databases"] == then["databases"]


def test_a_child_starts_with_its_parents_data_at_the_branch_point(sim):
    branch = main_branch(sim)
    requests.post(data_url(sim, branch["id"]), json={"table": "orders", "rows": [{"id": 1}]}, timeout=10)
    sim.advance_clock(5)
    answer = requests.post("%s/projects/%s/branches" % (sim.url, sim.demo_project_id), headers=sim.headers,
                           json={"branch": {"name": "child"}}, timeout=10)
    child = answer.json()["branch"]
    requests.post(data_url(sim, branch["id"]), json={"table": "orders", "rows": []}, timeout=10)
    assert requests.get(data_url(sim, child["id"]), timeout=10).json()["databases"]["neondb"]["orders"] == [{"id": 1}]


def test_the_control_api_reads_a_moment_in_any_iso_8601_spelling(sim):
    """Only /api/v2 is held to RFC 3339 as the service reads it: a test's own read of the data stand-in takes a
    space or an offset without its colon (clock.parse_timestamp)."""
    branch = main_branch(sim)
    first = requests.post(data_url(sim, branch["id"]), json={"table": "orders", "rows": [{"id": 1}]}, timeout=10)
    sim.advance_clock(60)
    requests.post(data_url(sim, branch["id"]), json={"table": "orders", "rows": []}, timeout=10)
    moment = first.json()["timestamp"]
    for spelled in (moment.replace("T", " "), moment.replace("Z", "+0000")):
        then = requests.get(data_url(sim, branch["id"]), params={"timestamp": spelled}, timeout=10)
        assert then.status_code == 200, then.text
        assert then.json()["databases"]["neondb"]["orders"] == [{"id": 1}]


@pytest.mark.parametrize("body", [{"table": ""}, {"table": "t", "rows": "x"}, {"table": "t", "database": "nope"}])
def test_a_bad_write_is_refused(sim, body):
    answer = requests.post(data_url(sim, main_branch(sim)["id"]), json=dict({"rows": []}, **body), timeout=10)
    assert answer.status_code == 400


def test_lsns_name_moments_and_the_schema_follows_the_rows():
    assert us_of_lsn(lsn_of(1764139000123456), 1764139999000000) == 1764139000123999
    assert parse_lsn("0/1A") == 26
    with pytest.raises(ValueError):
        parse_lsn("1A")
    data = BranchData(0, {"neondb": {"t": [{"id": 1, "note": "x", "ok": True}]}})
    assert schema_of(data.head(), "neondb")["tables"][0]["columns"] == [
        {"name": "id", "type": "bigint"}, {"name": "note", "type": "text"}, {"name": "ok", "type": "boolean"}]
    assert data.forked(5).at(10) == data.head()
