# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The real computes (``--postgres``) from a clone in a folder only its owner can enter: as root (a container,
a CI runner's job) the PostgreSQL programs run as ``nobody``, who cannot pass that folder; the simulator finds
them a work folder ``nobody`` can reach and a copy of the programs there, or says at once what to set.

The first test is a new user's situation as it is: a copy of the simulator and of the pgserver wheel's programs
(a virtualenv's site-packages) inside a 0700 folder, the simulator started from there with ``--postgres`` in a
subprocess, TMPDIR private (as nox sets it inside the clone) or the system's; a project made through the API and
psql over the connection string it answers. The others check the path check and the choice of the work folder
(pg_binaries.py) without PostgreSQL.
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import re
import shutil
import stat
import subprocess
import sys
import tempfile

import pytest

import requests
from neon_simulator.launcher import SimulatorDidNotStart, launch
from neon_simulator.pg_binaries import ENV_WORKDIR, RUN_AS_WHEN_ROOT, PostgresUnavailable, blocked_at, make_workdir
from neon_testing import SIMULATOR_DIR, require_real_computes

START_TIMEOUT = 90.0
STOP_TIMEOUT = 60.0
API_KEY = "sim-selftest-key-private-folders"


def private_folder(path):
    """``path`` made a folder only its owner can enter (as ``mktemp -d`` makes one)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.chmod(0o700)
    return path


def pgserver_into(site_packages):
    """The pgserver wheel as installed (its package and the libraries auditwheel put beside it) copied into
    ``site_packages``, as a virtualenv of the private clone has it; its programs' folder."""
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        require_real_computes("the pgserver wheel (requirements-test.txt) is not installed")
    package = list(spec.submodule_search_locations)[0]
    installed = os.path.dirname(package)
    site_packages.mkdir(parents=True)
    for name in os.listdir(installed):
        if name == "pgserver" or (name.startswith("pgserver") and name.endswith(".libs")):
            shutil.copytree(os.path.join(installed, name), site_packages / name, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__"))
    return site_packages / "pgserver" / "pginstall" / "bin"


def owner_only(tree):
    """Every file and folder of ``tree`` without the group's and others' bits, as an install under umask 077."""
    for folder, _folders, files in os.walk(tree):
        for path in [folder] + [os.path.join(folder, name) for name in files]:
            if not os.path.islink(path):
                os.chmod(path, stat.S_IMODE(os.stat(path).st_mode) & 0o700)


@pytest.mark.parametrize("tmpdir, umask_077", [("private", False), ("system", False), ("private", True)],
                         ids=["private TMPDIR", "system TMPDIR", "programs installed under umask 077"])
def test_real_computes_run_from_a_clone_in_a_private_folder(tmp_path, tmpdir, umask_077):
    private = private_folder(tmp_path / "private")
    clone = private / "clone"
    shutil.copytree(os.path.join(SIMULATOR_DIR, "neon_simulator"), clone / "tests" / "simulator" / "neon_simulator",
                    ignore=shutil.ignore_patterns("__pycache__"))
    programs = pgserver_into(clone / ".venv" / "lib" / "site-packages")
    if umask_077:
        owner_only(clone / ".venv")
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("NEON_", "PG", "TMP", "TEMP"))}
    env.update(HOME=str(private_folder(private / "home")))  # PYTHONPATH: the clone's (source=)
    if tmpdir == "private":  # as nox sets it, inside the clone
        env["TMPDIR"] = str(private_folder(clone / ".nox" / "pytest" / "tmp"))
    try:
        simulator = launch(source=clone / "tests" / "simulator", api_key=API_KEY, operation_pace=0.1, postgres=True,
                           options=["--postgres-bin", programs], env=env, cwd=clone,
                           log_path=private / "simulator.log", url_file=private / "url",
                           start_timeout=START_TIMEOUT, stop_timeout=STOP_TIMEOUT)
    except SimulatorDidNotStart as error:
        pytest.fail(str(error))
    with simulator:
        url, variables = simulator.url, simulator.printed
        headers = {"Authorization": "Bearer " + API_KEY}
        made = requests.post(url + "/projects", json={"project": {"name": "private"}}, headers=headers, timeout=60)
        assert made.status_code == 201, made.text
        uri = made.json()["connection_uris"][0]["connection_uri"]
        assert "@127.0.0.1:" in uri, uri
        # the operations end (the simulator's clock moved on), and the next request starts the compute's server
        clock = requests.post(variables["NEON_SIM_CONTROL_URL"] + "/clock", json={"advance": 30}, timeout=60)
        assert clock.status_code == 200, clock.text
        requests.get(url + "/projects", headers=headers, timeout=60).raise_for_status()
        done = subprocess.run([os.path.join(variables["NEON_SIM_PG_BIN"], "psql"), "-X", "-q", "-A", "-t",
                               "-v", "ON_ERROR_STOP=1", "-d", uri, "-c",
                               "CREATE TABLE orders (id int); INSERT INTO orders VALUES (1), (2); "
                               "SELECT current_user, count(*) FROM orders GROUP BY 1"],
                              capture_output=True, text=True, timeout=60, check=False, env=env)
        real = requests.get(variables["NEON_SIM_CONTROL_URL"] + "/postgres", timeout=60).json()
        assert (done.returncode, done.stdout.strip()) == (0, "neondb_owner|2"), (done.stderr, real["errors"])
        assert real["errors"] == []
        assert not real["workdir"].startswith(str(private) + os.sep)


def test_a_private_work_folder_stops_the_simulator_at_once_saying_what_to_set(tmp_path):
    """As root, a work folder ``nobody`` cannot reach is refused at the start (exit 2, the reason on stderr), not
    at the first compute."""
    if os.geteuid() != 0:
        pytest.skip("only root runs PostgreSQL as another user")
    private = private_folder(tmp_path / "private") / "work"
    private.mkdir()
    done = subprocess.run([sys.executable, "-m", "neon_simulator", "--postgres", "--postgres-workdir", str(private),
                           "--port", "0", "--api-key", API_KEY],
                          capture_output=True, text=True, timeout=60, check=False,
                          env=dict(os.environ, PYTHONPATH=SIMULATOR_DIR))
    if "no PostgreSQL server programs found" in done.stderr:
        require_real_computes(done.stderr)
    assert done.returncode == 2, done.stdout + done.stderr
    assert str(tmp_path / "private") in done.stderr and "has mode 0700" in done.stderr
    assert "--postgres-workdir" in done.stderr and ENV_WORKDIR in done.stderr


# ---------------------------------------------------------------------------------------------- the path check

def nobody():
    try:
        entry = pwd.getpwnam(RUN_AS_WHEN_ROOT)
        return entry.pw_uid, entry.pw_gid
    except KeyError:
        return 65534, 65534


@pytest.fixture(name="reachable")
def reachable_fixture():
    """A new folder in /tmp, which everyone may pass (the test's own tmp_path may lie in a private one)."""
    base = tempfile.mkdtemp(prefix="neon-sim-test-", dir="/tmp")
    os.chmod(base, 0o755)
    assert blocked_at(base, nobody()) is None, "this test needs /tmp, mode 1777"
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_the_path_check_names_the_first_folder_nobody_cannot_pass(reachable):
    deep = os.path.join(reachable, "open", "private", "inner")
    os.makedirs(deep)
    os.chmod(os.path.dirname(deep), 0o700)
    found = blocked_at(deep, nobody())
    assert found is not None and found[0] == os.path.join(reachable, "open", "private")
    assert "has mode 0700" in found[1] and RUN_AS_WHEN_ROOT in found[1]
    os.chmod(os.path.dirname(deep), 0o711)  # searchable, not listable: enough
    assert blocked_at(deep, nobody()) is None
    assert blocked_at(deep, None) is None  # not root: the programs run as this process's user


def test_the_path_check_follows_a_link_into_a_private_folder(reachable):
    hidden = os.path.join(reachable, "private", "bin")
    os.makedirs(hidden)
    os.chmod(os.path.dirname(hidden), 0o700)
    os.symlink(hidden, os.path.join(reachable, "bin"))
    assert blocked_at(os.path.join(reachable, "bin"), nobody())[0] == os.path.join(reachable, "private")


def test_the_work_folder_goes_to_the_first_place_nobody_can_reach(reachable, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("only root can give the work folder to another user")
    private = str(private_folder(tmp_path / "private"))
    workdir = make_workdir(nobody(), candidates=[private, reachable])
    assert os.path.dirname(workdir) == reachable
    assert (os.stat(workdir).st_uid, stat.S_IMODE(os.stat(workdir).st_mode)) == (nobody()[0], 0o755)


def test_without_a_place_nobody_can_reach_the_error_says_what_was_checked_and_what_to_set(reachable):
    private = os.path.join(reachable, "private")
    os.mkdir(private, 0o700)
    beneath = os.path.join(private, "tmp")
    os.mkdir(beneath)
    with pytest.raises(PostgresUnavailable) as raised:
        make_workdir(nobody(), candidates=[private, beneath])
    message = str(raised.value)
    assert private + ": has mode 0700" in message and beneath + ": " + private + " has mode 0700" in message
    assert "--postgres-workdir" in message and ENV_WORKDIR in message and "TMPDIR" in message
    assert os.listdir(private) == ["tmp"] and os.listdir(beneath) == []


def test_a_work_folder_given_is_the_only_one_tried(reachable, monkeypatch):
    private = os.path.join(reachable, "private")
    os.mkdir(private, 0o700)
    monkeypatch.setenv(ENV_WORKDIR, private)
    with pytest.raises(PostgresUnavailable, match=re.escape(private)):
        make_workdir(nobody(), candidates=[reachable])
    assert os.listdir(reachable) == ["private"]


def test_a_place_too_deep_for_the_servers_sockets_is_passed_over(reachable):
    deep = os.path.join(reachable, *["d" * 20] * 4)
    os.makedirs(deep)
    with pytest.raises(PostgresUnavailable, match="too long a path"):
        make_workdir(nobody(), candidates=[deep])
