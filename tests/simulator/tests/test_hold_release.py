# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests: operations held in progress until released, or until read N times.

None of these waits for wall time: a held operation ignores the clock (the tests jump it
forward by hours to show it), and ends only when released or read often enough.
"""

from __future__ import annotations

import pytest

import requests

API_KEY = "sim-selftest-key-0004"
HOUR = 3600


@pytest.fixture(name="project")
def project_fixture(sim):
    return sim.create_project(name="hold-tests")["id"]


def read(sim, project_id, operation_id):
    response = requests.get("%s/projects/%s/operations/%s" % (sim.url, project_id, operation_id),
                            headers=sim.headers, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()["operation"]


def listed(sim, project_id):
    response = requests.get("%s/projects/%s/operations" % (sim.url, project_id), headers=sim.headers, timeout=10)
    return {op["id"]: op for op in response.json()["operations"]}


def control(sim, method, path, **kwargs):
    return requests.request(method, sim.control_url + path, timeout=10, **kwargs)


def test_held_operation_stays_in_progress_whatever_the_clock_until_released(sim, project):
    op = sim.start_operations(project, action="create_branch", hold=True, scheduling=0)[0]
    assert op["status"] == "running"
    sim.advance_clock(24 * HOUR)
    held = read(sim, project, op["id"])
    assert held["status"] == "running" and held["total_duration_ms"] >= 24 * HOUR * 1000
    released = sim.release_operations(project, op["id"])
    assert [item["status"] for item in released] == ["finished"]
    after = read(sim, project, op["id"])
    assert after["status"] == "finished" and after["total_duration_ms"] == released[0]["total_duration_ms"]
    sim.advance_clock(HOUR)
    assert read(sim, project, op["id"]) == after  # an ended operation no longer changes


def test_held_operation_in_scheduling_moves_to_running_on_the_clock_and_stays(sim, project):
    op = sim.start_operations(project, action="start_compute", hold=True, scheduling=1.0)[0]
    assert op["status"] == "scheduling"
    sim.advance_clock(2 * HOUR)
    assert read(sim, project, op["id"])["status"] == "running"


@pytest.mark.parametrize("outcome", ["finished", "skipped", "failed", "error", "cancelled"])
def test_release_ends_with_the_outcome_given_at_start(sim, project, outcome):
    op = sim.start_operations(project, action="apply_config", hold=True, outcome=outcome, error="disk full")[0]
    ended = sim.release_operations(project, op["id"])[0]
    assert ended["status"] == outcome
    assert ended["failures_count"] == (1 if outcome in ("failed", "error") else 0)
    assert ("error" in ended) == (outcome in ("failed", "error"))
    if outcome in ("failed", "error"):
        assert ended["error"] == "disk full"


def test_release_may_choose_the_outcome_error_and_failures(sim, project):
    op = sim.start_operations(project, action="apply_config", hold=True)[0]
    answer = control(sim, "POST", "/projects/%s/operations/%s/release" % (project, op["id"]),
                     json={"outcome": "error", "error": "pageserver gone", "failures_count": 3})
    assert answer.status_code == 200
    ended = answer.json()["operation"]
    assert (ended["status"], ended["error"], ended["failures_count"]) == ("error", "pageserver gone", 3)
    assert read(sim, project, op["id"]) == ended


def test_release_after_seconds_of_the_simulated_clock(sim, project):
    op = sim.start_operations(project, action="create_branch", hold=True, scheduling=0)[0]
    sim.release_operations(project, op["id"], after=60)
    assert read(sim, project, op["id"])["status"] == "running"
    sim.advance_clock(61)
    assert read(sim, project, op["id"])["status"] == "finished"


def test_release_all_ends_only_the_held_operations_of_the_project(sim, project):
    held = sim.start_operations(project, [{"action": "create_branch", "hold": True},
                                          {"action": "start_compute", "hold": True, "outcome": "failed"}])
    timed = sim.start_operations(project, action="apply_config", duration=HOUR)[0]
    other = sim.start_operations(sim.demo_project_id, action="apply_config", hold=True)[0]
    answer = control(sim, "POST", "/projects/%s/operations/release" % project, json={})
    assert answer.status_code == 200
    assert [(op["id"], op["status"]) for op in answer.json()["operations"]] == [
        (held[0]["id"], "finished"), (held[1]["id"], "failed")]
    assert listed(sim, project)[timed["id"]]["status"] in ("scheduling", "running")
    assert read(sim, sim.demo_project_id, other["id"])["status"] in ("scheduling", "running")
    assert control(sim, "POST", "/projects/%s/operations/release" % project).json() == {"operations": []}


def test_release_refusals(sim, project):
    timed = sim.start_operations(project, action="apply_config", duration=HOUR)[0]
    path = "/projects/%s/operations/%s/release"
    not_held = control(sim, "POST", path % (project, timed["id"]))
    assert not_held.status_code == 409 and "not held" in not_held.json()["message"]
    held = sim.start_operations(project, action="apply_config", hold=True)[0]
    assert control(sim, "POST", path % (project, held["id"])).status_code == 200
    assert control(sim, "POST", path % (project, held["id"])).status_code == 409  # released already
    assert control(sim, "POST", path % (project, "00000000-0000-4000-8000-000000000000")).status_code == 404
    assert control(sim, "POST", path % ("no-such-project-1", held["id"])).status_code == 404
    again = sim.start_operations(project, action="apply_config", hold=True)[0]
    for body in ({"outcome": "done"}, {"after": -1}, {"failures_count": "2"}, {"colour": "red"}):
        assert control(sim, "POST", path % (project, again["id"]), json=body).status_code == 400
    assert read(sim, project, again["id"])["status"] in ("scheduling", "running")
    assert control(sim, "POST", "/projects/%s/operations" % project, json={"hold": "yes"}).status_code == 400


def test_reads_in_progress_counts_single_reads_and_list_pages(sim, project):
    op = control(sim, "POST", "/projects/%s/operations" % project,
                 json={"action": "create_branch", "reads_in_progress": 2, "scheduling": 0}).json()["operations"][0]
    assert op["status"] == "running"  # the answer of the starting request is not a read
    sim.advance_clock(HOUR)
    assert read(sim, project, op["id"])["status"] == "running"   # read 1
    assert listed(sim, project)[op["id"]]["status"] == "running"  # read 2, as part of a page
    assert read(sim, project, op["id"])["status"] == "finished"  # read 3: it has ended
    assert read(sim, project, op["id"])["status"] == "finished"


def test_reads_in_progress_zero_ends_at_the_first_read_with_the_outcome_given(sim, project):
    op = sim.start_operations(project, action="suspend_compute", reads_in_progress=0, outcome="cancelled")[0]
    assert op["status"] in ("scheduling", "running")
    assert read(sim, project, op["id"])["status"] == "cancelled"


def test_an_operation_held_by_reads_can_also_be_released(sim, project):
    op = sim.start_operations(project, action="create_branch", reads_in_progress=100)[0]
    assert sim.release_operations(project, op["id"], outcome="skipped")[0]["status"] == "skipped"
    assert sim.state.operations.operation_counts(project) == {"skipped": 1}


def test_held_operations_keep_the_idle_check_busy_and_never_end_on_their_own(sim, project):
    sim.start_operations(project, action="create_branch", hold=True, count=3)
    sim.advance_clock(30 * 24 * HOUR)
    assert sim.state.operations.operation_counts(project) == {"running": 3}
    assert [op["status"] for op in listed(sim, project).values()] == ["running"] * 3
