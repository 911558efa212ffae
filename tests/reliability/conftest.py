# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures of the reliability suite: one simulator and the results it records.

Run with `nox -s pytest -- tests/reliability` (the shared setup is tests/conftest.py).
The results of the fault matrix are written to tests/output/reliability/results.json (or
$NEON_RELIABILITY_RESULTS); the last test compares docs/docsite/rst/reliability.rst with what they give
(NEON_RELIABILITY_WRITE_DOC=1 rewrites it).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import secrets

import pytest

import neon_reliability as rel

# A recognisable auth key, searched for in every output of the suite.
AUTH_KEY = "relauth" + secrets.token_hex(20)

RESULTS = {"matrix": [], "bad_input": [], "secrets": [], "other": [], "hostile": []}


def pytest_collection_modifyitems(session, config, items):
    """The report test runs last, after every result it reads was recorded."""
    last = [item for item in items if item.get_closest_marker("report")]
    items[:] = [item for item in items if not item.get_closest_marker("report")] + last


def pytest_configure(config):
    config.addinivalue_line("markers", "report: compares docs/docsite/rst/reliability.rst with this run's results (runs last)")


def results_path():
    return os.environ.get(rel.RESULTS_ENV) or rel.DEFAULT_RESULTS


def pytest_sessionfinish(session, exitstatus):
    if not any(RESULTS.values()):
        return
    path = results_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(RESULTS, handle, indent=1, sort_keys=True)
        handle.write("\n")


@pytest.fixture(scope="session", autouse=True)
def importable_collection(collection_parent):
    """Every test here may run a module in this process (rel.run_module imports it)."""
    return collection_parent


@pytest.fixture(scope="session")
def auth_key():
    return AUTH_KEY


@pytest.fixture(scope="session")
def sim_session():
    from neon_simulator import Simulator

    # Operations the API starts take 0.1-0.2 s instead of 1-2 s: what a test needs to see in
    # progress it holds (sim.script_operations(..., hold=True)), never races.
    simulator = Simulator(api_key=AUTH_KEY, seed=1, host="127.0.0.1", port=0, operation_pace=0.1)
    simulator.start()
    yield simulator
    simulator.stop()


@pytest.fixture
def sim(sim_session):
    """The simulator with no faults and an empty request log (state carries over; names are unique)."""
    sim_session.clear_faults()
    sim_session.clear_requests()
    yield sim_session
    sim_session.clear_faults()


@pytest.fixture
def fresh_sim(sim_session):
    """The simulator back to its seeded state."""
    sim_session.reset()
    yield sim_session
    sim_session.reset()


@pytest.fixture(scope="session")
def results():
    return RESULTS
