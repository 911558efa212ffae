# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Several runs of one api_key task at once, as an AWX job template that allows simultaneous runs
starts them: each run is a module process of its own. A barrier in the simulator takes the first
key listing of each run when it arrives and holds the answers until all runs have theirs, so every
run lists before any creates: they provably overlap, whatever the speed of the machine.

What overlapping runs leave behind is our logic (module_utils/_keys/plan.py), not ansible-core's:
it is tested here, once. The api_key integration target keeps one representative overlap (four
`present` runs as async tasks) on the oldest and the newest ansible-core.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import neon_reliability as rel

RUNS = 4
RUN_TIMEOUT = 120  # seconds; a barrier holds each listing until the last run has its answer
BARRIER_TIMEOUT = 60


def _overlapping(sim, collection_parent, tmp_path, **args):
    """RUNS runs of one api_key task at once, every listing taken before any run creates."""
    sim.add_barrier(method="GET", path="/api/v2/api_keys", parties=RUNS, timeout=BARRIER_TIMEOUT)
    args = rel.connection_args(sim, api_timeout=RUN_TIMEOUT - 10, **args)
    results = rel.module_process_results(
        rel.start_module_processes(collection_parent, tmp_path, "api_key", [args] * RUNS), RUN_TIMEOUT)
    assert [barrier["timed_out"] for barrier in sim.barriers()] == [False]
    for result in results:
        assert sim.api_key not in json.dumps(result)
    return results


def _keys_named(sim, name):
    return sorted((key for key in sim.keys() if key["name"] == name), key=lambda key: key["id"])


def test_overlapping_present_runs_leave_one_key_and_one_secret(fresh_sim, collection_parent, tmp_path):
    name = rel.unique_name("overlap")
    runs = _overlapping(fresh_sim, collection_parent, tmp_path, name=name)
    created = [key["id"] for key in _keys_named(fresh_sim, name)]
    active = [key["id"] for key in _keys_named(fresh_sim, name) if not key["revoked"]]

    assert len(created) == RUNS  # every run created a key: they overlapped
    assert active == [min(created)]  # the lowest id is kept, every other run revoked its own
    assert [run["changed"] for run in runs] == [True] * RUNS
    assert {run["api_key"]["id"] for run in runs} == {min(created)}
    holders = [run for run in runs if "key" in run]
    assert len(holders) == 1 and holders[0]["action"] == "created"
    converged = [run for run in runs if run["action"] == "converged"]
    assert len(converged) == RUNS - 1
    for run in converged:
        assert "another run created key %d" % min(created) in run["reason"]
        assert [key["id"] for key in run["revoked_keys"]] != [] and len(run["revoked_keys"]) == 1
        # a warning says which run holds the secret (ansible-core 2.19+ wraps warnings in objects)
        assert "Another run created API key %d" % min(created) in json.dumps(run.get("warnings"))


def test_overlapping_rotations_with_keep_two_leave_the_previous_key_and_one_new(fresh_sim, collection_parent, tmp_path):
    name = rel.unique_name("overlap-rotate")
    previous = rel.run_module("api_key", rel.connection_args(fresh_sim, name=name))
    assert previous.result["changed"], previous.describe()
    previous_id = previous.result["api_key"]["id"]
    fresh_sim.age_key(previous_id, created_days_ago=40)

    runs = _overlapping(fresh_sim, collection_parent, tmp_path, name=name, max_age_days=30, keep=2)
    rotated = [key["id"] for key in _keys_named(fresh_sim, name) if key["id"] != previous_id]
    active = [key["id"] for key in _keys_named(fresh_sim, name) if not key["revoked"]]

    assert len(rotated) == RUNS
    assert active == [previous_id, min(rotated)]  # keep: 2 is the previous key and one new key
    assert {run["api_key"]["id"] for run in runs} == {min(rotated)}
    holders = [run for run in runs if "key" in run]
    assert len(holders) == 1 and holders[0]["action"] == "rotated"
    assert len([run for run in runs if run["action"] == "converged"]) == RUNS - 1
    assert previous_id not in [key["id"] for run in runs for key in run["revoked_keys"]]
