# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pytest plugin of the installed package (entry point ``pytest11``): a running simulator for
tests.

``neon_simulator``: a :class:`~neon_simulator.Simulator` on 127.0.0.1, started once per test
session (per worker with pytest-xdist) and set back to its seed before each test that uses it: no
project, key, fault, script or request log of an earlier test is left. ``sim.url``, ``sim.api_key``,
``sim.control_url`` and the in-process methods (``sim.requests()``, ``sim.add_fault(...)``) are there.

``neon_simulator_env``: the variables the command line prints (``NEON_API_URL``, ``NEON_API_KEY``,
``NEON_SIM_CONTROL_URL``, ``NEON_SIM_DEMO_PROJECT``, ``NEON_SIM_ORG_ID``), for a tool a test starts
(``subprocess.run([...], env=dict(os.environ, **neon_simulator_env))``).

Settings (pytest.ini, pyproject.toml's ``[tool.pytest.ini_options]``, or ``-o NAME=VALUE``):
``neon_simulator_scene`` a scene file set after each reset (relative to the settings' file),
``neon_simulator_seed`` (1), ``neon_simulator_operation_pace`` (1: the operations the API starts
take 1-2 s; 0.1 a tenth of that) and ``neon_simulator_postgres`` (false; true: computes that are real
PostgreSQL servers, their connection strings reach them: ``pip install 'neon-simulator[postgres]'``).
Nothing is imported or started until a test asks for a fixture. A simulator in a process of its own (for what
must not share the tests' interpreter) comes from :func:`neon_simulator.launcher.launch`.
"""

from __future__ import annotations

import os

import pytest

SCENE_INI = "neon_simulator_scene"
SEED_INI = "neon_simulator_seed"
PACE_INI = "neon_simulator_operation_pace"
POSTGRES_INI = "neon_simulator_postgres"


def pytest_addoption(parser):
    parser.addini(SCENE_INI, "neon_simulator fixture: a scene file (JSON, or YAML with PyYAML) set after each reset",
                  default="")
    parser.addini(SEED_INI, "neon_simulator fixture: the seed of the generated data", default="1")
    parser.addini(PACE_INI, "neon_simulator fixture: how long the operations the API starts take (1: 1-2 s)",
                  default="1")
    parser.addini(POSTGRES_INI, "neon_simulator fixture: computes that are real PostgreSQL servers",
                  type="bool", default=False)


def _number(config, name, kind, low):
    text = config.getini(name)
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or value < low:
        pytest.fail("%s: %r is not a number of at least %s" % (name, text, low), pytrace=False)
    return value


class _Session:
    """The session's simulator and the scene it is set back to."""

    def __init__(self, config):
        from neon_simulator import Simulator
        from neon_simulator.launcher import new_api_key
        from neon_simulator.scene_file import SceneError, read_scene

        scene_path = config.getini(SCENE_INI)
        self.scene = None
        if scene_path:
            base = config.inipath.parent if config.inipath else config.rootpath  # the settings' file's folder
            path = os.path.join(str(base), scene_path)
            try:
                self.scene = read_scene(path)
            except SceneError as error:
                pytest.fail("%s: %s" % (SCENE_INI, error), pytrace=False)
        try:
            self.simulator = Simulator(api_key=new_api_key(), seed=_number(config, SEED_INI, int, 0),
                                       operation_pace=_number(config, PACE_INI, float, 0.001),
                                       postgres=config.getini(POSTGRES_INI))
        except RuntimeError as error:  # pg_binaries.PostgresUnavailable (imported only with real computes)
            if not config.getini(POSTGRES_INI):
                raise
            pytest.fail("%s: %s" % (POSTGRES_INI, error), pytrace=False)

    def fresh(self):
        """The simulator back to its seed, with the scene set."""
        from neon_simulator.scene_file import SceneError, apply_scene

        # what an earlier test's advance_clock added goes too: a test that dates something with now() finds
        # the simulator at that time, whatever ran before it
        self.simulator.clock.back_to_real_time()
        self.simulator.reset()
        if self.scene is not None:
            try:
                apply_scene(self.simulator, self.scene)
            except SceneError as error:
                pytest.fail("%s: %s" % (SCENE_INI, error), pytrace=False)
        return self.simulator


@pytest.fixture(scope="session")
def neon_simulator_session(pytestconfig):
    """The session's running simulator (as the last test left it); use ``neon_simulator`` in tests."""
    session = _Session(pytestconfig)
    session.simulator.start()
    try:
        yield session
    finally:
        session.simulator.stop()


@pytest.fixture
def neon_simulator(neon_simulator_session):
    """A running simulator on 127.0.0.1, back to its seed (and the configured scene) and to the real time for
    this test."""
    return neon_simulator_session.fresh()


@pytest.fixture
def neon_simulator_env(neon_simulator):
    """What the command line prints, for the tools a test starts: NEON_API_URL, NEON_API_KEY, NEON_SIM_*."""
    return {
        "NEON_API_URL": neon_simulator.url,
        "NEON_API_KEY": neon_simulator.api_key,
        "NEON_SIM_CONTROL_URL": neon_simulator.control_url,
        "NEON_SIM_DEMO_PROJECT": neon_simulator.demo_project_id,
        "NEON_SIM_ORG_ID": neon_simulator.org_id,
        **({"NEON_SIM_PG_BIN": neon_simulator.state.real.bin_folder} if neon_simulator.state.real is not None else {}),
    }
