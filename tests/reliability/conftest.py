# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures of the reliability suite: the collection, one simulator, the results it records.

Run from the repository root with a Python that has ansible-core, requests, werkzeug, pytest:
    python -m pytest tests/reliability -q
The results of the fault matrix are written to tests/output/reliability/results.json (or
$NEON_RELIABILITY_RESULTS); the last test compares docs/reliability.md with what they give
(NEON_RELIABILITY_WRITE_DOC=1 rewrites it).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import secrets
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import neon_reliability as rel  # noqa: E402  pylint: disable=wrong-import-position

# NEON_RELIABILITY_COLLECTION: a directory holding ansible_collections/neon/cloud to test instead
# of this work tree (for example .build, or a copy with an older plugins/).
_PARENT = os.environ.get("NEON_RELIABILITY_COLLECTION") or rel.collection_parent(
    tempfile.mkdtemp(prefix="neon-reliability-"))
rel.make_importable(_PARENT)

# A recognisable auth key, searched for in every output of the suite.
AUTH_KEY = "relauth" + secrets.token_hex(20)

RESULTS = {"matrix": [], "bad_input": [], "secrets": [], "other": [], "hostile": []}


def pytest_collection_modifyitems(session, config, items):
    """The report test runs last, after every result it reads was recorded."""
    last = [item for item in items if item.get_closest_marker("report")]
    items[:] = [item for item in items if not item.get_closest_marker("report")] + last


def pytest_configure(config):
    config.addinivalue_line("markers", "report: compares docs/reliability.md with this run's results (runs last)")


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


@pytest.fixture(scope="session")
def collection_parent():
    """The directory holding ansible_collections/neon/cloud, for ANSIBLE_COLLECTIONS_PATH."""
    return _PARENT


@pytest.fixture(scope="session")
def auth_key():
    return AUTH_KEY


@pytest.fixture(scope="session")
def sim_session():
    from neon_simulator import Simulator

    simulator = Simulator(api_key=AUTH_KEY, seed=1, host="127.0.0.1", port=0)
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
