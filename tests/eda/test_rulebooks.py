# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A shipped rulebook run by the real engine: ansible-rulebook (the eda session installs it, pinned; it needs a
Java 17 runtime, JAVA_HOME) runs extensions/eda/rulebooks/project_baseline.yml with the source neon.cloud.events
against the simulator. A project created through the API gets its baseline from the first poll after it, and the
request log says what each poll and the playbook cost.

Time is not raced: the test waits, bounded, for what the request log and the simulator's state show, and counts
polls, never seconds. `nox -s eda` runs it (not the pytest session: the engine is not in its virtualenv).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import secrets
import shutil
import signal
import subprocess
import sys
import time

import pytest
import requests
import yaml

from neon_simulator import Simulator
from neon_simulator.launcher import kill_tree, process_gone
from neon_testing import ansible_env

INTERVAL = 2  # seconds between polls
WAIT_LIMIT = 150  # seconds at most for the engine to start, poll and run the playbook on a busy machine
BASELINE_IPS = ["198.51.100.7", "203.0.113.0/24"]


def source_listing(entry):
    """A poll of the source: its project listing (the module's own reads of projects carry a search)."""
    return entry["method"] == "GET" and entry["path"] == "/api/v2/projects" and "search=" not in (entry["query"] or "")


def wait_for(what, check, proc, log_path):
    deadline = time.monotonic() + WAIT_LIMIT
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    with open(log_path, encoding="utf-8", errors="replace") as handle:
        log = handle.read()[-6000:]
    pytest.fail("%s: not seen (ansible-rulebook %s)\n%s" % (
        what, "exited %s" % proc.returncode if proc.poll() is not None else "still running", log))


@pytest.fixture()
def sim():
    with Simulator(api_key=secrets.token_hex(32), seed=1, operation_pace=0.25) as fresh:
        yield fresh


def test_a_new_project_gets_the_baseline_from_the_first_poll_after_it(sim, collection_parent, tmp_path):
    if shutil.which("ansible-rulebook") is None:
        pytest.fail("ansible-rulebook is not installed: run this test with `nox -s eda`")
    cursor = tmp_path / "cursor.json"
    (tmp_path / "vars.yml").write_text(yaml.safe_dump({
        "neon_org_id": sim.org_id, "neon_events_interval": INTERVAL, "neon_events_cursor_file": str(cursor)}))
    (tmp_path / "inventory.yml").write_text(yaml.safe_dump({"all": {"hosts": {"localhost": {
        "ansible_connection": "local", "ansible_python_interpreter": sys.executable}}}}))  # the one with requests
    env = ansible_env(tmp_path, collections_path=collection_parent, NEON_API_KEY=sim.api_key, NEON_API_URL=sim.url,
                      HOME=str(tmp_path))
    log_path = tmp_path / "ansible-rulebook.log"
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(
            ["ansible-rulebook", "-r", "neon.cloud.project_baseline", "-i", "inventory.yml", "--vars", "vars.yml",
             "-v"], cwd=str(tmp_path), env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        # The first poll learns the fleet (and saves the cursor); then a project is made through the API.
        wait_for("the source's first poll", cursor.exists, proc, log_path)
        answer = requests.post(sim.url + "/projects", headers=sim.headers, timeout=30,
                               json={"project": {"name": "born-during-the-watch", "org_id": sim.org_id}})
        assert answer.status_code == 201, answer.text
        project_id = answer.json()["project"]["id"]
        created_seq = sim.requests()[-1]["seq"]

        def baseline_applied():
            patches = [entry for entry in sim.requests(since=created_seq)
                       if entry["method"] == "PATCH" and entry["path"] == "/api/v2/projects/" + project_id]
            return patches if patches and sorted(sim.state.projects.get_project(project_id)["settings"].get(
                "allowed_ips", {}).get("ips", [])) == BASELINE_IPS else None

        patch = wait_for("the baseline on " + project_id, baseline_applied, proc, log_path)[0]
        # two more polls: the project, known since the poll that reported it, is not reported again
        wait_for("two polls after the baseline", lambda: len(
            [entry for entry in sim.requests(since=patch["seq"]) if source_listing(entry)]) >= 2, proc, log_path)
        log = sim.requests(since=created_seq)
        polls = [entry for entry in log if source_listing(entry)]
        first_poll = polls[0]
        # The first poll after the create lists the project, so it is the one that reported it (a project is
        # reported in the poll that first lists it, or never): the playbook's requests all follow it.
        playbook = [entry for entry in log if not source_listing(entry)]
        assert playbook and all(entry["seq"] > first_poll["seq"] for entry in playbook)
        assert set(entry["path"].split("/")[4] for entry in playbook) == {project_id}  # that project only
        assert [entry["method"] for entry in playbook].count("PATCH") == 1  # once, though polled again since
        assert {entry["method"] for entry in polls} == {"GET"}
        polls_between = len([entry for entry in polls if entry["seq"] < patch["seq"]])
        print("\ninterval %d s; polls from the create to the baseline's PATCH: %d (the first reported it); "
              "the playbook's requests: %d (%s); requests of the source a poll: 1" % (
                  INTERVAL, polls_between, len(playbook),
                  ", ".join("%s %s" % (entry["method"], entry["path"]) for entry in playbook)))
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                kill_tree(proc.pid)
                proc.wait(timeout=10)
        assert process_gone(proc.pid)
