# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``wait: true`` means ready on every run, not only on the run that made the change (issue 28, point 2).

A run that timed out (or the losing run of two overlapping creates) leaves a branch, a compute or a
role whose operations still run. The next run finds it as asked and changes nothing, and must still
return it ready: the branch ``ready`` with its compute ``active``, the role's ``apply_config``
ended. Time is driven through the simulator: operations that stay in progress for a number of
reads (``reads_in_progress``), so the test does not depend on how fast the machine is.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok
from test_provisioning_modules import branch_named, endpoints_of, new_project, requests_since, run

# Reads of an operation that still show it in progress. A first run with wait_timeout 1 reads it at
# most twice (its polls come after 0.5 s and at the 1 s deadline), so the rerun always finds it running.
READS_IN_PROGRESS = 3


def operation_reads(sim, seq, project_id):
    return [path for method, path in requests_since(sim, seq)
            if method == "GET" and path.startswith("/api/v2/projects/%s/operations" % project_id)]


def test_a_rerun_after_a_timed_out_create_returns_the_branch_ready_with_its_compute_active(sim):
    pid = new_project(sim)["project"]["id"]
    sim.script_operations("create_branch", project_id=pid, reads_in_progress=READS_IN_PROGRESS)
    timed_out = failed(run(sim, "branch", project_id=pid, name="pr-7", wait_timeout=1))
    assert "wait_timeout (1.0 s)" in timed_out["msg"] and timed_out["changed"] is True
    assert branch_named(sim, pid, "pr-7")["current_state"] == "init"

    seq = last_seq(sim)
    again = ok(run(sim, "branch", project_id=pid, name="pr-7"))
    assert again["changed"] is False
    assert again["branch"]["current_state"] == "ready"
    assert again["endpoints"][0]["current_state"] == "active" and again["endpoints"][0]["host"]
    assert operation_reads(sim, seq, pid), "the rerun returned without looking at the operations still running"
    assert branch_named(sim, pid, "pr-7")["current_state"] == "ready"


def test_a_branch_found_ready_costs_no_more_requests_than_before(sim):
    pid = new_project(sim)["project"]["id"]
    ok(run(sim, "branch", project_id=pid, name="pr-8"))
    seq = last_seq(sim)
    assert ok(run(sim, "branch", project_id=pid, name="pr-8"))["changed"] is False
    assert len(requests_since(sim, seq)) == 2  # the branches and the branch's computes: nothing to wait for


def test_a_compute_found_suspending_is_returned_once_it_is_idle(sim):
    created = new_project(sim)
    pid, main = created["project"]["id"], created["branch"]
    sim.script_operations("suspend_compute", project_id=pid, reads_in_progress=READS_IN_PROGRESS)
    started = ok(run(sim, "endpoint", project_id=pid, state="suspended", wait=False))
    assert started["changed"] is True

    again = ok(run(sim, "endpoint", project_id=pid, state="suspended"))
    assert again["changed"] is False and again["endpoint"]["current_state"] == "idle"
    assert endpoints_of(sim, pid, main["id"])[0]["current_state"] == "idle"


def test_a_role_found_while_its_apply_config_runs_is_returned_once_it_has_ended(sim):
    pid = new_project(sim)["project"]["id"]
    sim.script_operations("apply_config", project_id=pid, reads_in_progress=READS_IN_PROGRESS)
    first = failed(run(sim, "role", project_id=pid, name="app", wait_timeout=1))
    assert "wait_timeout (1.0 s)" in first["msg"] and first["password"]

    seq = last_seq(sim)
    again = ok(run(sim, "role", project_id=pid, name="app"))
    assert again["changed"] is False and again["role"]["name"] == "app"
    assert operation_reads(sim, seq, pid), "the rerun returned without looking at the operations still running"
    # One more read of the operations: the role's apply_config had ended when the rerun returned (a run
    # that did not wait would leave it at its third read, still in progress).
    operations = rel.api(sim, "GET", "/projects/%s/operations" % pid)["operations"]
    assert [op["status"] for op in operations if op["action"] == "apply_config"] == ["finished"]


def test_a_branch_found_being_made_and_changed_by_the_rerun_is_returned_ready(sim):
    pid = new_project(sim)["project"]["id"]
    sim.script_operations("create_branch", project_id=pid, reads_in_progress=READS_IN_PROGRESS)
    failed(run(sim, "branch", project_id=pid, name="pr-9", wait_timeout=1, compute=False))

    changed = ok(run(sim, "branch", project_id=pid, name="pr-9", protected=True, compute=False))
    assert changed["changed"] is True and changed["branch"]["protected"] is True
    assert changed["branch"]["current_state"] == "ready"
