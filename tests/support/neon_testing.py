# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Helpers shared by the plain-pytest suites (tests/ecosystem, tests/reliability): where things
are, the collection as ansible finds it, and the environment every ansible command of a test
runs with. tests/conftest.py builds the shared fixtures from them; pyproject.toml puts this
folder and tests/simulator on the suites' import path.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIMULATOR_DIR = os.path.join(ROOT, "tests", "simulator")
# The tools (ansible-playbook, ansible-galaxy, ...) of the Python that runs pytest.
BIN_DIR = os.path.dirname(sys.executable)
# What a copy of the work tree leaves out when a symlink cannot be made.
COPY_IGNORE = shutil.ignore_patterns(".git", ".nox", ".venv", ".venvs", ".build", ".ansible", ".pytest_cache",
                                     ".hypothesis", "__pycache__", "output")


def tool(name):
    """An executable of the venv that runs pytest (ansible-galaxy, ansible-builder, ...)."""
    path = os.path.join(BIN_DIR, name)
    if not os.path.exists(path):
        found = shutil.which(name)
        if not found:
            pytest.fail("%s is not installed beside %s: run the tests with `nox -s pytest`" % (name, sys.executable))
        path = found
    return path


def ansible_env(tmp_path, collections_path=None, **extra):
    """The environment of an ansible command in a test: this Python's tools first, no ANSIBLE_* or
    NEON_* setting of the caller's, no user configuration, no colour, no chatter; ``extra`` last."""
    env = dict(os.environ)
    for name in list(env):
        if name.startswith(("ANSIBLE_", "NEON_")):
            del env[name]
    env.update({
        "PATH": BIN_DIR + os.pathsep + env.get("PATH", ""),
        "ANSIBLE_HOME": str(tmp_path / "ansible-home"),
        "ANSIBLE_LOCAL_TEMP": str(tmp_path / "ansible-tmp"),
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_FORCE_COLOR": "0",
        "ANSIBLE_COLLECTIONS_SCAN_SYS_PATH": "false",
        "ANSIBLE_GALAXY_DISABLE_GPG_VERIFY": "true",
        "ANSIBLE_DEPRECATION_WARNINGS": "false",
        "ANSIBLE_RETRY_FILES_ENABLED": "false",
        "ANSIBLE_INVENTORY_UNPARSED_WARNING": "false",
        "ANSIBLE_LOCALHOST_WARNING": "false",
    })
    if collections_path is not None:
        env["ANSIBLE_COLLECTIONS_PATH"] = str(collections_path)
    env.update({key: str(value) for key, value in extra.items()})
    return env


# The two ways an API module runs (docs/docsite/rst/performance.rst): in the controller's process, the default
# for a task on the controller, or shipped as AnsiballZ (neon_cloud_in_controller false).
MODULE_WAYS = ("in_controller", "shipped")


def way_args(way):
    """The ansible / ansible-playbook arguments that make the API modules run ``way``."""
    return [] if way == "in_controller" else ["-e", "neon_cloud_in_controller=false"]


def ran_as(text, way):
    """Whether the -vvv output ``text`` shows the API modules' tasks ran ``way``, and no other way."""
    here = "neon.cloud: the module runs in the controller's process" in text
    shipped = "neon.cloud: the module is shipped: neon_cloud_in_controller is false" in text
    return (here, shipped) == ((True, False) if way == "in_controller" else (False, True))


def localhost_inventory(tmp_path):
    """An inventory of localhost that runs modules with this Python (it has requests)."""
    path = tmp_path / "inventory.ini"
    path.write_text("localhost ansible_connection=local ansible_python_interpreter=%s\n" % sys.executable)
    return str(path)


def run(command, timeout=120, **kwargs):
    """Run a command, failing the test with its output when it does not exit 0."""
    proc = subprocess.run([str(part) for part in command], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=timeout, check=False, **kwargs)
    if proc.returncode != 0:
        pytest.fail("%s exited %d\n--- stdout\n%s\n--- stderr\n%s" % (
            " ".join(str(part) for part in command), proc.returncode, proc.stdout[-6000:], proc.stderr[-6000:]))
    return proc


def galaxy_meta():
    """namespace, name and version from galaxy.yml."""
    values = {}
    with open(os.path.join(ROOT, "galaxy.yml"), encoding="utf-8") as handle:
        for line in handle:
            match = re.match(r"^(namespace|name|version):\s*['\"]?([A-Za-z0-9_.+-]+)['\"]?\s*$", line)
            if match:
                values[match.group(1)] = match.group(2)
    return values


def link_collection(base_dir):
    """``base_dir`` made a collections path holding this work tree as neon.cloud (a symlink, else a
    copy); returns it. ansible finds a collection only below .../ansible_collections/NS/NAME."""
    meta = galaxy_meta()
    namespace_dir = os.path.join(str(base_dir), "ansible_collections", meta["namespace"])
    os.makedirs(namespace_dir, exist_ok=True)
    link = os.path.join(namespace_dir, meta["name"])
    if not os.path.exists(link):
        try:
            os.symlink(ROOT, link)
        except OSError:
            shutil.copytree(ROOT, link, ignore=COPY_IGNORE)
    return str(base_dir)


# ---------------------------------------------------------------------------------------------- real computes

def real_computes_simulator(**kwargs):
    """A started simulator whose computes are real PostgreSQL servers (``--postgres``), stopped by the caller's
    ``with``. Without PostgreSQL programs (the pgserver wheel of requirements-test.txt) the test is skipped on a
    workstation and fails in CI (``CI`` set): CI must test the real computes."""
    from neon_simulator import Simulator
    from neon_simulator.pg_binaries import PostgresUnavailable

    try:
        return Simulator(postgres=True, **kwargs)
    except PostgresUnavailable as error:
        require_real_computes(str(error))
        raise  # not reached: skip and fail raise


def require_real_computes(reason):
    """A test of the real computes that cannot have them (``reason``): skipped on a workstation, failed in CI
    (``CI`` set)."""
    if os.environ.get("CI"):
        pytest.fail("CI must test the real computes: %s" % reason)
    pytest.skip(reason)


def psql(sim, uri, sql):
    """``sql`` run with the simulator's psql over the connection string ``uri``: (exit status, output or error)."""
    done = subprocess.run([os.path.join(sim.state.real.bin_folder, "psql"), "-X", "-q", "-A", "-t",
                           "-v", "ON_ERROR_STOP=1", "-d", uri, "-c", sql],
                          capture_output=True, text=True, timeout=60, check=False)
    return done.returncode, (done.stdout if done.returncode == 0 else done.stderr).strip()


def psql_rows(sim, uri, sql):
    """The rows ``sql`` reads over ``uri`` (unaligned, ``|`` between columns); the test fails when psql does."""
    status, text = psql(sim, uri, sql)
    assert status == 0, text
    return text.splitlines()


def psql_session(sim, uri):
    """An open psql session over ``uri`` (its standard input a pipe: write to it, close it to end the session)."""
    return subprocess.Popen([os.path.join(sim.state.real.bin_folder, "psql"), "-X", "-q", "-d", uri],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
