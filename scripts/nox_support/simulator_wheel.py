# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The simulator as a package of its own (tests/simulator/pyproject.toml): its wheel built, installed
into the session's new virtualenv, and tried as a user starts it: the console script's help, then a
start, one API request with the key it printed, and a stop."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

from nox_support import ROOT

SIMULATOR_PROJECT = ROOT / "tests" / "simulator"
DEFAULT_WHEEL_DIR = ROOT / ".build" / "simulator"  # .build/ is ignored by git
START_TIMEOUT = 30.0
STOP_TIMEOUT = 5.0
# The last line the command line prints once it listens (see tests/simulator/README.md, "Running it").
LAST_ANNOUNCED = "NEON_SIM_ORG_ID"
ANNOUNCED = re.compile(r"^(NEON_[A-Z_]+)=(\S+)$")


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


def _tail(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()[-3000:]


def _stop(process):
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=STOP_TIMEOUT)
        return None


def _announced(process, output):
    """The NEON_* lines the started simulator prints, up to the last one."""
    values = {}
    deadline = time.monotonic() + START_TIMEOUT
    with open(output, encoding="utf-8") as stream:
        while LAST_ANNOUNCED not in values:
            line = stream.readline()
            if not line:
                if process.poll() is not None or time.monotonic() > deadline:
                    return None
                time.sleep(0.05)
                continue
            match = ANNOUNCED.match(line.strip())
            if match:
                values[match.group(1)] = match.group(2)
    return values


def smoke_test(session, wheel):
    """The installed console script as a user runs it, outside the repository (nothing from the work tree
    on the import path): its help, then a start with a generated key, GET /projects with the key it
    printed, and a stop (SIGTERM: exit 0)."""
    script = shutil.which("neon-simulator", path=os.pathsep.join(session.bin_paths))
    if script is None:
        session.error("the wheel %s installs no neon-simulator command" % wheel.name)
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("NEON_SIMULATOR_API_KEY", None)  # the key is generated and printed
    with tempfile.TemporaryDirectory(prefix="neon-simulator-wheel-") as work:
        helped = subprocess.run([script, "--help"], cwd=work, env=env, capture_output=True, text=True, check=False)
        if helped.returncode != 0 or "--scene" not in helped.stdout or "usage: neon-simulator" not in helped.stdout:
            session.error("neon-simulator --help exited %d:\n%s%s" % (helped.returncode, helped.stdout, helped.stderr))
        output = os.path.join(work, "simulator.out")
        with open(output, "w", encoding="utf-8") as sink:
            process = subprocess.Popen([script, "--port", "0"], cwd=work, env=env, stdout=sink, stderr=subprocess.STDOUT)
        try:
            values = _announced(process, output)
            if values is None or "NEON_API_KEY" not in values:
                session.error("neon-simulator did not start and print its key:\n" + _tail(output))
            request = urllib.request.Request(values["NEON_API_URL"] + "/projects?limit=2", headers={
                "Authorization": "Bearer " + values["NEON_API_KEY"], "Accept": "application/json"})
            with urllib.request.urlopen(request, timeout=10) as answer:  # nosec: the simulator on 127.0.0.1
                projects = json.load(answer)["projects"]
            if len(projects) != 2:
                session.error("GET /projects?limit=2 answered %d projects" % len(projects))
        finally:
            code = _stop(process)
        if code != 0:
            session.error("neon-simulator exited %s on SIGTERM (0 expected):\n%s" % (code, _tail(output)))
    session.log("%s: neon-simulator --help, started, GET /projects with the printed key, stopped (exit 0)" % wheel.name)
