# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The API simulator (tests/simulator) for the length of a session's run: started on loopback with
a random key, its announced variables handed to the session, stopped afterwards."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import os
import re
import secrets
import shutil
import subprocess
import time
from pathlib import Path

from nox_support import ROOT

SIMULATOR_START_TIMEOUT = 30.0
SIMULATOR_STOP_TIMEOUT = 30.0  # with --postgres it stops each server first
LOOPBACK_URL = re.compile(r"^http://(127\.0\.0\.1|localhost|\[::1\]):\d+/")


@contextlib.contextmanager
def running_simulator(session, operation_pace=1.0, postgres=False):
    """The API simulator (tests/simulator) on 127.0.0.1 with a random key, stopped afterwards;
    ``operation_pace`` scales how long the operations API calls start take (1: 1-2 s each);
    ``postgres``: its computes are real PostgreSQL servers (--postgres).

    Yields the variables it announces: NEON_API_URL, NEON_API_KEY, NEON_SIM_DEMO_PROJECT,
    NEON_SIM_CONTROL_URL, NEON_SIM_ORG_ID (and NEON_SIM_PG_BIN with ``postgres``).
    """
    tmp = Path(session.create_tmp()).resolve()
    name = "simulator-postgres" if postgres else "simulator"
    url_file = tmp / (name + ".url")
    log_path = tmp / (name + ".log")
    url_file.unlink(missing_ok=True)
    key = secrets.token_hex(32)  # 64 characters of [a-z0-9], like a real key
    python = shutil.which("python", path=os.pathsep.join(session.bin_paths))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "tests" / "simulator"))
    with open(log_path, "w") as log:
        process = subprocess.Popen([python, "-m", "neon_simulator", "--port", "0", "--api-key", key,
                                    "--url-file", str(url_file), "--operation-pace", str(operation_pace)]
                                   + (["--postgres"] if postgres else []),
                                   stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + SIMULATOR_START_TIMEOUT
        while not (url_file.exists() and url_file.read_text().strip()):
            if process.poll() is not None or time.monotonic() > deadline:
                session.error("the simulator did not start:\n" + log_path.read_text())
            time.sleep(0.1)
        announced = dict(re.findall(r"^(NEON_[A-Z_]+)=(\S+)$", log_path.read_text(), re.MULTILINE))
        announced.update(NEON_API_URL=url_file.read_text().strip(), NEON_API_KEY=key)
        if not LOOPBACK_URL.match(announced["NEON_API_URL"] + "/"):
            session.error("the simulator does not listen on loopback: %s" % announced["NEON_API_URL"])
        session.log("simulator up at %s" % announced["NEON_API_URL"])
        yield announced
    finally:
        process.terminate()
        try:
            process.wait(timeout=SIMULATOR_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=SIMULATOR_STOP_TIMEOUT)
        if process.returncode not in (0, -15):
            session.warn("the simulator exited with %s:\n%s" % (process.returncode, log_path.read_text()[-3000:]))
