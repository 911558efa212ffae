# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The simulator as a package of its own (tests/simulator/pyproject.toml): its wheel built, installed
into the session's new virtualenv, and tried as a user starts it: the console script's help, then a
start, one API request with the key it printed, and a stop."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

from nox_support import ROOT
from nox_support.simulator import launcher

SIMULATOR_PROJECT = ROOT / "tests" / "simulator"
DEFAULT_WHEEL_DIR = ROOT / ".build" / "simulator"  # .build/ is ignored by git


def _uv():
    """The uv installed beside nox (requirements-nox.txt), else one on PATH."""
    return shutil.which("uv", path=os.path.dirname(sys.executable)) or shutil.which("uv")


def build_simulator_wheel(session, out_dir):
    """The wheel of tests/simulator, built into ``out_dir`` (earlier neon_simulator wheels there removed)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("neon_simulator-*.whl"):
        old.unlink()
    uv = _uv()
    if uv:
        session.run(uv, "build", "--wheel", "--out-dir", str(out_dir), str(SIMULATOR_PROJECT), external=True, silent=True)
    else:  # a nox without uv: the PyPA builder
        session.install("build")
        session.run("python", "-m", "build", "--wheel", "--outdir", str(out_dir), str(SIMULATOR_PROJECT), silent=True)
    wheels = sorted(out_dir.glob("neon_simulator-*.whl"))
    if len(wheels) != 1:
        session.error("expected one neon_simulator wheel in %s, found %s" % (out_dir, [w.name for w in wheels]))
    return wheels[0]


def install_wheel(session, wheel):
    """The wheel (and Werkzeug) into the session's virtualenv; this wheel even where its version is installed."""
    again = ["--reinstall-package", "neon-simulator"] if session.venv_backend == "uv" else ["--force-reinstall"]
    session.install(*again, str(wheel))


def smoke_test(session, wheel):
    """The installed console script as a user runs it, outside the repository (nothing from the work tree
    on the import path): its help, then a start with a generated key, GET /projects with the key it
    printed, and a stop (SIGTERM: exit 0)."""
    script = shutil.which("neon-simulator", path=os.pathsep.join(session.bin_paths))
    if script is None:
        session.error("the wheel %s installs no neon-simulator command" % wheel.name)
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    with tempfile.TemporaryDirectory(prefix="neon-simulator-wheel-") as work:
        helped = subprocess.run([script, "--help"], cwd=work, env=env, capture_output=True, text=True, check=False)
        if helped.returncode != 0 or "--scene" not in helped.stdout or "usage: neon-simulator" not in helped.stdout:
            session.error("neon-simulator --help exited %d:\n%s%s" % (helped.returncode, helped.stdout, helped.stderr))
        # the installed package (source=None: no PYTHONPATH), with a key it makes up and prints
        try:
            simulator = launcher.launch(source=None, command=[script], api_key=launcher.PRINTED, env=env, cwd=work,
                                        log_path=os.path.join(work, "simulator.out"),
                                        url_file=os.path.join(work, "simulator.url"))
        except launcher.SimulatorDidNotStart as error:
            session.error("neon-simulator did not start and print its key: %s" % error)
        try:
            request = urllib.request.Request(simulator.url + "/projects?limit=2", headers=simulator.headers)
            with urllib.request.urlopen(request, timeout=10) as answer:  # nosec: the simulator on 127.0.0.1
                projects = json.load(answer)["projects"]
            if len(projects) != 2:
                session.error("GET /projects?limit=2 answered %d projects" % len(projects))
        finally:
            code = simulator.stop()
        if code != 0:
            session.error("neon-simulator exited %s on SIGTERM (0 expected):\n%s" % (code, simulator.log()[-3000:]))
    session.log("%s: neon-simulator --help, started, GET /projects with the printed key, stopped (exit 0)" % wheel.name)
