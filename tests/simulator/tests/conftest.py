# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The simulator's self-tests (run by `nox -s pytest`): one simulator per test module."""

from __future__ import annotations

import neon_simulator
import pytest


@pytest.fixture(scope="module", name="server")
def server_fixture(request):
    """One simulator per test module, its bootstrap key the module's API_KEY."""
    with neon_simulator.Simulator(api_key=request.module.API_KEY, seed=1) as simulator:
        yield simulator


@pytest.fixture(name="sim")
def sim_fixture(server):
    """The module's simulator, back to its seeded state (no faults, empty request log)."""
    server.reset()
    return server
