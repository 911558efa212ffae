# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures of the ecosystem tests: a local API simulator and a built collection tarball.

Run with `nox -s pytest -- tests/ecosystem` (the shared setup is tests/conftest.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import secrets

import pytest

from neon_simulator import Simulator
from neon_testing import ROOT, ansible_env, galaxy_meta, real_computes_simulator, run, tool


ECOSYSTEM_OPERATION_PACE = 0.25


@pytest.fixture(scope="module")
def simulator():
    """A fresh API simulator on 127.0.0.1 for each test module (served from this process to the
    ansible commands the tests start), its key shaped like a real one: 64 characters of [a-z0-9].
    Operations end in a quarter of their usual time, as in the integration targets: the tools and
    playbooks here wait for them all the same (what a test needs in progress it holds)."""
    with Simulator(api_key=secrets.token_hex(32), seed=1, operation_pace=ECOSYSTEM_OPERATION_PACE) as fresh:
        yield fresh


@pytest.fixture(scope="module")
def postgres_simulator():
    """A simulator like ``simulator`` whose computes are real PostgreSQL servers (--postgres), for the blocks
    that connect to a branch. Without PostgreSQL programs (the pgserver wheel of requirements-test.txt): skipped
    on a workstation, a failure in CI."""
    with real_computes_simulator(api_key=secrets.token_hex(32), seed=1,
                                 operation_pace=ECOSYSTEM_OPERATION_PACE) as fresh:
        yield fresh


@pytest.fixture(scope="session")
def collection_tarball(tmp_path_factory):
    """The collection built by `ansible-galaxy collection build`, once per session."""
    out = tmp_path_factory.mktemp("build")
    run([tool("ansible-galaxy"), "collection", "build", "--output-path", out, ROOT],
        cwd=str(out), env=ansible_env(out))
    meta = galaxy_meta()
    tarball = out / ("%s-%s-%s.tar.gz" % (meta["namespace"], meta["name"], meta["version"]))
    assert tarball.exists(), sorted(os.listdir(str(out)))
    return tarball
