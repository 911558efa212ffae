# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The launcher of the simulator process (neon_simulator/launcher.py), as the nox sessions, the wheel's smoke
test and the benchmark use it: a simulator that cannot start is reported at once with its log, a started one
answers with its key, and a stop leaves nothing of it running, not even what it started and could not stop."""

from __future__ import annotations

import os
import re
import signal
import sys

import pytest

import requests
from neon_simulator.launcher import PRINTED, SimulatorDidNotStart, launch, process_gone, servers_under
from neon_testing import SIMULATOR_DIR, require_real_computes

# A process that behaves like the simulator on start (prints, writes its URL file) and badly on stop: it starts
# a child that never ends, then on SIGTERM either exits and leaves that child running, or goes on running.
MISBEHAVING = r"""
import os, signal, subprocess, sys, time
argv = sys.argv[1:]
url_file = argv[argv.index("--url-file") + 1]
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print("CHILD=%d" % child.pid, flush=True)
if "--ignore-sigterm" in argv:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
else:
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
with open(url_file + ".new", "w") as handle:
    handle.write("http://127.0.0.1:9/api/v2\n")
os.replace(url_file + ".new", url_file)
time.sleep(600)
"""


def test_a_simulator_that_exits_at_once_is_reported_with_its_log_and_reason(tmp_path):
    """It exits before it listens: the error says so (not a timeout: the bound is far), names the log it kept and
    ends with what the simulator said; never the key."""
    log = tmp_path / "simulator.log"
    with pytest.raises(SimulatorDidNotStart) as raised:
        launch(source=SIMULATOR_DIR, api_key="launcher-test-key", options=["--org-key-rate-limit", "-1"],
               log_path=log, url_file=tmp_path / "url", start_timeout=300)
    message = str(raised.value)
    assert "exited with status 2 before it listened" in message, message
    assert str(log) in message and message.rstrip().endswith("--org-key-rate-limit must be 0 (off) or positive")
    assert "launcher-test-key" not in message
    assert raised.value.returncode == 2 and raised.value.log_path == str(log) and log.exists()


def test_a_started_simulator_answers_with_its_key_and_its_stop_leaves_nothing():
    with launch(source=SIMULATOR_DIR, operation_pace=0.1) as sim:
        assert re.match(r"^http://127\.0\.0\.1:\d+/api/v2$", sim.url), sim.url
        assert re.match(r"^[a-z0-9]{64}$", sim.api_key)
        assert requests.get(sim.url + "/projects?limit=1", headers=sim.headers, timeout=30).json()["projects"][0][
            "id"] == sim.printed["NEON_SIM_DEMO_PROJECT"]
        assert requests.get(sim.url + "/projects", headers={"Authorization": "Bearer other"}, timeout=30).status_code == 401
        assert requests.get(sim.control_url + "/health", timeout=30).status_code == 200
        workdir = os.path.dirname(sim.log_path)
        assert os.path.exists(sim.url_file)
    assert sim.process.returncode == 0  # SIGTERM: a clean stop
    assert process_gone(sim.process.pid) and not os.path.exists(workdir)  # its URL file and log gone with it


def test_a_key_the_simulator_makes_up_is_the_one_it_prints_whatever_the_environment_says():
    env = dict(os.environ, NEON_SIMULATOR_API_KEY="a-key-from-the-environment")
    with launch(source=SIMULATOR_DIR, api_key=PRINTED, env=env) as sim:
        assert re.match(r"^[a-z0-9]{64}$", sim.api_key) and sim.printed["NEON_API_KEY"] == sim.api_key
        assert requests.get(sim.url + "/projects?limit=1", headers=sim.headers, timeout=30).status_code == 200


@pytest.mark.parametrize("sigterm", ["exits, leaving its child", "is ignored"])
def test_a_stop_leaves_no_process_behind(sigterm):
    """What it started goes with it: a child it leaves running when it exits (a server it could not stop), and
    everything when it ignores SIGTERM past the bound (its tree killed)."""
    options = ["--ignore-sigterm"] if sigterm == "is ignored" else []
    sim = launch(command=[sys.executable, "-c", MISBEHAVING], options=options, stop_timeout=2)
    child = int(re.search(r"^CHILD=(\d+)$", sim.log(), re.MULTILINE).group(1))
    try:
        code = sim.stop()
        assert code == (-signal.SIGKILL if options else 0)
        assert process_gone(sim.process.pid) and process_gone(child)
    finally:
        if not process_gone(child):
            os.kill(child, signal.SIGKILL)


def test_the_servers_of_a_simulator_that_was_killed_are_stopped_by_its_stop():
    """A simulator killed before it could stop its real computes (a crash, SIGKILL) leaves PostgreSQL servers
    with no parent: its launcher's stop finds them by their data folders and stops them, and removes the work
    folder, so a crashed test run leaves no server listening."""
    try:
        sim = launch(source=SIMULATOR_DIR, postgres=True, operation_pace=0.1, start_timeout=90, stop_timeout=30)
    except SimulatorDidNotStart as error:
        require_real_computes("no PostgreSQL for --postgres: %s" % str(error).splitlines()[0])
    workdir = sim.printed.get("NEON_SIM_PG_WORKDIR")
    servers = {}
    try:
        assert workdir and os.path.isdir(workdir), sim.printed
        made = requests.post(sim.url + "/projects", json={"project": {"name": "orphaned"}}, headers=sim.headers,
                             timeout=60)
        assert made.status_code == 201, made.text
        requests.post(sim.control_url + "/clock", json={"advance": 30}, timeout=60).raise_for_status()
        requests.get(sim.url + "/projects", headers=sim.headers, timeout=60).raise_for_status()  # starts it
        servers = servers_under(workdir)
        assert servers, "no server runs under %s" % workdir
        sim.process.kill()
        sim.process.wait(timeout=30)
        assert servers_under(workdir) == servers  # orphaned, still running
        sim.stop()
        assert all(process_gone(pid) for pid in servers)
        assert not os.path.exists(workdir)
    finally:
        sim.stop()
        for pid in servers:
            if not process_gone(pid):
                os.kill(pid, signal.SIGKILL)
