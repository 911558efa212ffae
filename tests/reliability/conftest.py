# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures of the reliability suite: one simulator and the results it records.

Run with `nox -s pytest -- tests/reliability` (the shared setup is tests/conftest.py).
The results of the fault matrix are written to tests/output/reliability/results.json (or
$NEON_RELIABILITY_RESULTS); the last test compares docs/docsite/rst/reliability.rst with what they give
(NEON_RELIABILITY_WRITE_DOC=1 rewrites it).

Under pytest-xdist (`nox -s pytest` runs the suite with `-n 3 -m "not report"`,
then the report test alone): each worker hands its share of the results to the controller as it
ends (pytest-xdist's workeroutput), and the controller writes them all to results.json, which the
report test reads when it runs alone. The
report sorts every list of results by what names each entry, so the order the tests ran in does not
matter.
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


# The shares of the pytest-xdist workers, as each worker's results reached the controller.
WORKER_SHARES = []


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """pytest-xdist, in the controller: a worker ended; its results came with it (workeroutput)."""
    share = getattr(node, "workeroutput", {}).get("neon_reliability_results")
    if share:
        WORKER_SHARES.append(json.loads(share))


def _write(results, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(results, handle, indent=1, sort_keys=True)
        handle.write("\n")


def pytest_sessionfinish(session, exitstatus):
    if hasattr(session.config, "workerinput"):
        # An xdist worker: its share goes to the controller with the worker's end (pytest-xdist sends
        # workeroutput after every pytest_sessionfinish of the worker has run), not through a file.
        session.config.workeroutput["neon_reliability_results"] = json.dumps(RESULTS)
        return
    merged = {name: list(entries) for name, entries in RESULTS.items()}
    for share in WORKER_SHARES:
        for name, entries in share.items():
            merged.setdefault(name, []).extend(entries)
    if any(merged.values()):
        _write(merged, rel.results_path())


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
    """The simulator with no faults, no barriers and an empty request log (state carries over; names are unique)."""
    sim_session.clear_faults()
    sim_session.clear_barriers()
    sim_session.clear_requests()
    yield sim_session
    sim_session.clear_faults()
    sim_session.clear_barriers()


@pytest.fixture
def fresh_sim(sim_session):
    """The simulator back to its seeded state."""
    sim_session.reset()
    yield sim_session
    sim_session.reset()


@pytest.fixture(scope="session")
def results():
    return RESULTS
