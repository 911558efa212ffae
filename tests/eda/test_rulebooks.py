# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shipped rulebooks run by the real engine: ansible-rulebook (the eda session installs it, pinned; it needs a
Java 17 runtime, JAVA_HOME) runs each of extensions/eda/rulebooks/ with the source neon.cloud.events against the
simulator. project_baseline: a project created through the API gets its baseline from the first poll after it, and
the request log says what each poll and the playbook cost. failed_operations: an operation that fails (held, then
released as failed through the simulator) gets one ticket. expiring_branches: a branch about to expire is extended
(a preview/ branch: its new expires_at read back through the API) or its owner warned (a line), once; a branch that
expires later than the window is left alone.

Time is not raced: the tests wait, bounded, for what the request log, the simulator's state and the playbooks'
files show, and count polls, never seconds. `nox -s eda` runs them (not the pytest session: the engine is not in
its virtualenv).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import datetime
import json
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
ORG_PROJECTS = ("bold-glade-61830452", "quiet-brook-72914063", "young-forest-83025174")  # the seeded organization's
ORG_PROJECT = ORG_PROJECTS[0]
DAY = 86400


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


def ops_reads(sim, project_id, since):
    """The source's reads of a project's operations since the request ``since``."""
    return [entry for entry in sim.requests(since=since)
            if entry["method"] == "GET" and entry["path"] == "/api/v2/projects/%s/operations" % project_id]


def last_seq(sim):
    log = sim.requests()
    return log[-1]["seq"] if log else 0


def lines(path):
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def plays(log_path, name):
    """How many times the engine ran the play ``name`` (its output, in the engine's log)."""
    with open(log_path, encoding="utf-8", errors="replace") as handle:
        return handle.read().count("PLAY [%s]" % name)


def rfc3339(seconds):
    return datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def api(sim, method, path, body=None):
    answer = requests.request(method, sim.url + path, headers=sim.headers, json=body, timeout=30)
    assert answer.status_code < 300, answer.text
    return answer.json() if answer.content else None


@pytest.fixture()
def sim():
    with Simulator(api_key=secrets.token_hex(32), seed=1, operation_pace=0.25) as fresh:
        yield fresh


class Engine:
    """ansible-rulebook running one shipped rulebook (``-r neon.cloud.NAME``) in ``tmp_path`` with ``variables``
    (vars.yml: the source's organization, interval and cursor file, and the playbooks' own), its output in a log."""

    def __init__(self, proc, log_path, cursor):
        self.proc, self.log_path, self.cursor = proc, log_path, cursor

    def wait_for(self, what, check):
        return wait_for(what, check, self.proc, self.log_path)


@contextlib.contextmanager
def engine(rulebook, sim, collection_parent, tmp_path, **variables):
    if shutil.which("ansible-rulebook") is None:
        pytest.fail("ansible-rulebook is not installed: run this test with `nox -s eda`")
    cursor = tmp_path / "cursor.json"
    (tmp_path / "vars.yml").write_text(yaml.safe_dump(dict({
        "neon_org_id": sim.org_id, "neon_events_interval": INTERVAL, "neon_events_cursor_file": str(cursor)},
        **variables)))
    (tmp_path / "inventory.yml").write_text(yaml.safe_dump({"all": {"hosts": {"localhost": {
        "ansible_connection": "local", "ansible_python_interpreter": sys.executable}}}}))  # the one with requests
    env = ansible_env(tmp_path, collections_path=collection_parent, NEON_API_KEY=sim.api_key, NEON_API_URL=sim.url,
                      HOME=str(tmp_path))
    log_path = tmp_path / "ansible-rulebook.log"
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(
            ["ansible-rulebook", "-r", "neon.cloud." + rulebook, "-i", "inventory.yml", "--vars", "vars.yml",
             "-v"], cwd=str(tmp_path), env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield Engine(proc, log_path, cursor)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                kill_tree(proc.pid)
                proc.wait(timeout=10)
        assert process_gone(proc.pid)


def test_a_new_project_gets_the_baseline_from_the_first_poll_after_it(sim, collection_parent, tmp_path):
    with engine("project_baseline", sim, collection_parent, tmp_path) as run:
        proc, log_path, cursor = run.proc, run.log_path, run.cursor
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


def settle(run, sim, project_id, play, runs):
    """Wait until the engine has run ``play`` ``runs`` times and finished, and the source has read the project's
    operations or branches twice since: an event emitted again would have been put on the queue by then."""
    run.wait_for("%d run(s) of %r, finished" % (runs, play), lambda: plays(run.log_path, play) >= runs and (
        recaps(run.log_path) >= plays(run.log_path, play)))
    since = last_seq(sim)
    run.wait_for("two more reads of " + project_id, lambda: len(project_reads(sim, project_id, since)) >= 2)
    run.wait_for("the playbooks started since, finished", lambda: recaps(run.log_path) >= plays(run.log_path, play))


def recaps(log_path):
    with open(log_path, encoding="utf-8", errors="replace") as handle:
        return handle.read().count("PLAY RECAP")


def project_reads(sim, project_id, since):
    """The source's reads of a project's operations or branches since the request ``since``."""
    return [entry for entry in sim.requests(since=since) if entry["method"] == "GET" and entry["path"] in (
        "/api/v2/projects/%s/operations" % project_id, "/api/v2/projects/%s/branches" % project_id)]


def test_a_failed_operation_gets_one_ticket(sim, collection_parent, tmp_path):
    tickets = tmp_path / "tickets.jsonl"
    play = "A ticket for the failed operation"
    with engine("failed_operations", sim, collection_parent, tmp_path, neon_tickets_file=str(tickets)) as run:
        run.wait_for("the source's first poll", run.cursor.exists)
        # An operation that runs until the test ends it (the simulator's hold): seen running, it is no ticket yet.
        held = sim.start_operations(ORG_PROJECT, action="apply_config", hold=True)[0]
        started = last_seq(sim)
        run.wait_for("a read of the running operation", lambda: project_reads(sim, ORG_PROJECT, started))
        assert lines(tickets) == [] and plays(run.log_path, play) == 0
        error = "failed to apply config: could not connect to compute node"
        sim.release_operations(ORG_PROJECT, held["id"], outcome="failed", error=error)
        ticket = json.loads(run.wait_for("the ticket", lambda: lines(tickets))[0])
        assert ticket["operation_id"] == held["id"] and ticket["project_id"] == ORG_PROJECT
        assert ticket["error"] == error and ticket["branch_id"] == held["branch_id"]
        assert ticket["title"] == "Neon operation apply_config failed in project " + ORG_PROJECT
        settle(run, sim, ORG_PROJECT, play, 1)
        assert len(lines(tickets)) == 1 and plays(run.log_path, play) == 1  # once, though read again since
        assert {entry["method"] for entry in sim.requests()} == {"GET"}  # the ticket is no request to Neon


def test_a_branch_about_to_expire_is_extended_or_its_owner_warned_once(sim, collection_parent, tmp_path):
    warnings = tmp_path / "warnings.txt"
    play = "Extend the branch, or warn its owner"
    with engine("expiring_branches", sim, collection_parent, tmp_path, neon_branch_expires_within=DAY,
                neon_warnings_file=str(warnings)) as run:
        run.wait_for("the source's first poll", run.cursor.exists)
        # Two branches expire in two hours (within the rulebook's day), one in three days. The source measures
        # expiry against its own host's clock, which the simulator's follows here: hours of margin against a
        # test bounded to minutes, so nothing waits for time to pass.
        made = time.time()
        soon, later = rfc3339(made + 2 * 3600), rfc3339(made + 3 * DAY)
        made_in = dict(zip(("preview/pr-7", "feature/login", "preview/pr-8"), ORG_PROJECTS))  # one a project
        preview, feature, distant = [api(sim, "POST", "/projects/%s/branches" % made_in[name], {"branch": {
            "name": name, "expires_at": expires}})["branch"] for name, expires in (
                ("preview/pr-7", soon), ("feature/login", soon), ("preview/pr-8", later))]
        created = last_seq(sim)

        def read(branch):
            return api(sim, "GET", "/projects/%s/branches/%s" % (branch["project_id"], branch["id"]))["branch"]

        warning = run.wait_for("the owner's warning", lambda: lines(warnings))
        extended = run.wait_for("the preview branch extended", lambda: read(preview)["expires_at"] != soon and read(
            preview))
        settle(run, sim, ORG_PROJECT, play, 2)
        # the preview branch: 7 more days from when the playbook ran (the rulebook's neon_extend_days default)
        new_expiry = datetime.datetime.strptime(extended["expires_at"], "%Y-%m-%dT%H:%M:%SZ").replace(
            tzinfo=datetime.timezone.utc).timestamp()
        assert made + 7 * DAY - 1 <= new_expiry <= time.time() + 7 * DAY
        # the other: left to expire, its owner warned with what they need to act
        assert warning == ["Branch feature/login (%s) of project %s expires at %s" % (
            feature["id"], feature["project_id"], soon)]
        assert read(feature)["expires_at"] == soon and read(distant)["expires_at"] == later
        # each once, though read again since; the distant one not at all
        log = sim.requests(since=created)
        assert [(entry["method"], entry["path"]) for entry in log if entry["method"] != "GET"] == [
            ("PATCH", "/api/v2/projects/%s/branches/%s" % (preview["project_id"], preview["id"]))]
        assert lines(warnings) == warning and plays(run.log_path, play) == 2
        print("\nthe preview branch's expires_at: %s -> %s; warned: %s" % (soon, extended["expires_at"],
                                                                           feature["name"]))
