# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Check mode returns the result as it would be, as RETURN promises (issue 28, point 5).

What a task returns in check mode is what a playbook's later tasks read: a suspend returns the
compute ``idle``, a protect the branch protected, a new branch a compute whose ``host`` is there
(null: the service gives it only when the compute is made), and a reset a diff that says what
the reset replaces. Check mode sends nothing.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from neon_reliability import last_seq, ok
from test_provisioning_modules import changes_since, new_project, run


def test_a_suspend_in_check_mode_returns_the_compute_idle(sim):
    pid = new_project(sim)["project"]["id"]
    seq = last_seq(sim)
    predicted = ok(run(sim, "endpoint", check_mode=True, project_id=pid, state="suspended"))
    assert predicted["changed"] is True and predicted["endpoint"]["current_state"] == "idle"
    assert predicted["endpoint"]["host"]  # an existing compute keeps what it has
    assert changes_since(sim, seq) == []


def test_protecting_in_check_mode_returns_the_branch_protected(sim):
    pid = new_project(sim)["project"]["id"]
    ok(run(sim, "branch", project_id=pid, name="release", compute=False))
    seq = last_seq(sim)
    predicted = ok(run(sim, "branch", check_mode=True, project_id=pid, name="release", protected=True, compute=False))
    assert predicted["changed"] is True and predicted["branch"]["protected"] is True
    assert changes_since(sim, seq) == []


def test_a_new_branch_in_check_mode_returns_its_compute_with_a_null_host(sim):
    pid = new_project(sim)["project"]["id"]
    seq = last_seq(sim)
    predicted = ok(run(sim, "branch", check_mode=True, project_id=pid, name="pr-12"))
    assert predicted["changed"] is True and predicted["branch"]["name"] == "pr-12"
    compute = predicted["endpoints"][0]
    assert compute["type"] == "read_write" and "host" in compute and compute["host"] is None
    assert "id" in compute and compute["id"] is None
    assert changes_since(sim, seq) == []


def test_a_reset_from_the_parent_shows_in_the_diff_what_it_replaces(sim):
    pid = new_project(sim)["project"]["id"]
    child = ok(run(sim, "branch", project_id=pid, name="pr-13", compute=False))["branch"]
    seq = last_seq(sim)
    predicted = ok(run(sim, "branch", check_mode=True, diff=True, project_id=pid, name="pr-13", compute=False,
                       reset_from_parent=True))
    assert predicted["changed"] is True
    assert predicted["diff"]["before"]["data"] == "its own (last reset: never)"
    assert predicted["diff"]["after"]["data"] == "its parent %s's latest: its data, roles and databases" % (
        child["parent_id"])
    assert changes_since(sim, seq) == []

    done = ok(run(sim, "branch", diff=True, project_id=pid, name="pr-13", compute=False, reset_from_parent=True))
    assert done["diff"] == predicted["diff"]  # the real run's diff is the one check mode predicted


def test_a_compute_s_diff_says_its_running_state_in_check_mode_and_when_made(sim):
    pid = new_project(sim)["project"]["id"]
    ok(run(sim, "branch", project_id=pid, name="pr-14", compute=False))
    predicted = ok(run(sim, "endpoint", check_mode=True, diff=True, project_id=pid, branch="pr-14"))
    made = ok(run(sim, "endpoint", diff=True, project_id=pid, branch="pr-14"))
    assert predicted["diff"]["after"]["current_state"] == made["diff"]["after"]["current_state"] == "active"
    assert made["endpoint"]["current_state"] == "active"
