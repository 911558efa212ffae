# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The API stops answering while a task waits for operations (issue 28): the wait gives up as a read
does, after the client's own retries, not at wait_timeout, and the task says what it changed and how
to take up the wait again.

Each task runs as a module process of its own, as a playbook task would, so that a wait that does not
give up fails the test after RUN_TIMEOUT instead of holding it for the whole wait_timeout. The API dies
for real: a simulator of the test's own stops listening (connections are refused) while the operations
the task started are held in progress, so the wait is certainly under way when it dies, however fast
the machine is.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import socket
import subprocess
import time

import pytest

import neon_reliability as rel

WAIT_TIMEOUT = 600  # what the task may wait in all; it must give up long before
RUN_TIMEOUT = 60  # seconds for a module process to return (a few on an idle machine)
LOG_TIMEOUT = 60  # seconds to see the module's first poll in the log (it comes at once on an idle machine)
ATTEMPTS = rel.RETRIES + 1
# The client's retry budget: every attempt up to api_timeout, and a pause of at most api_retry_max_delay between two
RETRY_BUDGET = ATTEMPTS * rel.API_TIMEOUT + rel.RETRIES * rel.MAX_DELAY
PROJECT = "dead-api-00000000"
OPERATION = "0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10"


@pytest.fixture
def own_sim(auth_key):
    """A simulator of this test alone: the test stops it."""
    from neon_simulator import Simulator

    simulator = Simulator(api_key=auth_key, seed=1, host="127.0.0.1", port=0, operation_pace=0.1)
    simulator.start()
    yield simulator
    simulator.stop()


@pytest.fixture
def dead_api_url():
    """The URL of an API that is not running: a port bound on 127.0.0.1 that never listens refuses every connection."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", 0))
        yield "http://127.0.0.1:%d/api/v2" % sock.getsockname()[1]
    finally:
        sock.close()


def stop_api(sim):
    """The API stops: the listener closes, so every new connection is refused, and the connection the module keeps
    alive is closed without an answer at its next request (the simulator's handler would still serve it)."""
    sim.stop()
    sim.add_fault(drop=True, count=1000)


def wait_for_poll(sim, seq, process):
    """Until the log shows the change sent and the module polling its operations (driven by what the module
    did, not by time)."""
    deadline = time.monotonic() + LOG_TIMEOUT
    while time.monotonic() < deadline and process.poll() is None:
        entries = sim.requests(since=seq)
        sent = [index for index, entry in enumerate(entries) if entry["method"] == "POST"]
        if sent and [entry for entry in entries[sent[0]:] if entry["method"] == "GET" and "/operations" in entry["path"]]:
            return
        time.sleep(0.05)
    raise AssertionError("no change followed by a poll of its operations in the log: %s" % [
        (entry["method"], entry["path"], entry["status"]) for entry in sim.requests(since=seq)])


def returned(process, auth_key):
    """The module's result; the test fails if it is still waiting after RUN_TIMEOUT."""
    try:
        stdout, stderr = process.communicate(timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail("the task was still waiting %d s after the API stopped (wait_timeout %d)" % (RUN_TIMEOUT, WAIT_TIMEOUT))
    assert "Traceback" not in stdout + stderr, stdout + stderr
    assert auth_key not in stdout + stderr, "the API key is in the output"
    return json.loads(stdout)


def test_a_restart_whose_wait_loses_the_api_fails_at_once_saying_what_changed_and_how_to_resume(
        own_sim, collection_parent, tmp_path, auth_key):
    sim = own_sim
    created = rel.api(sim, "POST", "/projects", json={"project": {"name": rel.unique_name("dead-api")}})
    pid, endpoint_id = created["project"]["id"], created["endpoints"][0]["id"]
    sim.advance_clock(30)  # its creation ended
    sim.script_operations("*", project_id=pid, hold=True, count=2)  # the restart's two operations never end
    seq = rel.last_seq(sim)
    process, = rel.start_module_processes(collection_parent, tmp_path, "endpoint", [
        rel.connection_args(sim, project_id=pid, state="restarted", wait_timeout=WAIT_TIMEOUT)])
    try:
        wait_for_poll(sim, seq, process)  # the restart was sent and its operations are being waited for
        stop_api(sim)
        result = returned(process, auth_key)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()

    msg = result["msg"]
    assert result["failed"] is True and result["changed"] is True, result
    restarted = "(%s) was restarted" % endpoint_id
    assert "%s, but waiting for its operations failed: GET /projects/%s/operations" % (restarted, pid) in msg, msg
    # as a read fails: the client's own attempts, the last one refused
    assert "failed: could not connect (" in msg and "; gave up after %d attempts over " % ATTEMPTS in msg, msg
    assert result["error"]["status"] is None and result["error"]["attempts"] == ATTEMPTS, result["error"]
    assert not msg.startswith("Timed out") and "wait_timeout" not in msg, msg
    # how to take it up again: the task itself, or operation_wait on the operations still in progress
    operations = result["operations"]
    assert [operation["action"] for operation in operations] == ["suspend_compute", "start_compute"]
    assert [operation["status"] for operation in operations if operation["status"] in ("finished", "skipped")] == []
    for part in ["may still be running on the service", "once the API answers, wait for", "or run the task again",
                 "a restart, a password reset, a reset from the parent - is done again", "neon.cloud.operation_wait",
                 pid] + [operation["id"] for operation in operations]:
        assert part in msg, (part, msg)
    head, sep, done = msg.partition(". Changed by this task so far: ")
    assert sep and restarted in done and "neon.cloud.operation_wait" in head, msg
    assert "\n" not in msg.strip() and len(msg) < 2000, msg


@pytest.mark.parametrize("idle", [False, True], ids=["operation_ids", "project-idle"])
def test_operation_wait_on_a_dead_api_fails_naming_the_error_not_a_timeout(
        dead_api_url, collection_parent, tmp_path, auth_key, idle):
    args = dict(api_key=auth_key, api_url=dead_api_url, api_retries=rel.RETRIES, api_retry_max_delay=rel.MAX_DELAY,
                api_timeout=rel.API_TIMEOUT, project_id=PROJECT, timeout=WAIT_TIMEOUT)
    if not idle:
        args["operation_ids"] = [OPERATION]
    process, = rel.start_module_processes(collection_parent, tmp_path, "operation_wait", [args])
    result = returned(process, auth_key)

    msg = result["msg"]
    assert result["failed"] is True and result["changed"] is False, result
    assert not msg.startswith("Timed out"), msg
    path = "/projects/%s/operations" % PROJECT + ("?limit=" if idle else "/%s" % OPERATION)
    assert msg.startswith("GET %s" % path), msg
    assert "failed: could not connect (" in msg and "Connection refused" in msg, msg
    assert "; gave up after %d attempts over " % ATTEMPTS in msg, msg
    assert result["error"]["status"] is None and result["error"]["attempts"] == ATTEMPTS, result["error"]
    assert result["requests"] == ATTEMPTS and result["polls"] == (0 if idle else 1), result
    assert result["elapsed"] <= RETRY_BUDGET, result["elapsed"]  # the client's retries, not the wait's timeout
