# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""OperationWaiter against a fake operations service, on a simulated clock.

The waiter runs on a real NeonClient (retries, deadlines) whose transport is the fake
service; every request costs ``cost`` simulated seconds.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from urllib.parse import parse_qs, unquote, urlsplit

import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.neon.cloud.plugins.module_utils._api.operations import (
    END_STATUSES,
    FAILURE_STATUSES,
    OperationWaiter,
    has_ended,
)
from ansible_collections.neon.cloud.tests.unit.plugins.module_utils.neon_fakes import FakeClock, make_client, make_response, operation

# The client's pauses between its attempts are at most 0.5, 1, 2, 4, 8 s (api_retries 5, _client.backoff_delay).
BACKOFF_CEILINGS = (0.5, 1, 2, 4, 8)


def connection_refused():
    return requests.exceptions.ConnectionError("NewConnectionError('[Errno 111] Connection refused')")


def connection_reset():
    return requests.exceptions.ConnectionError("('Connection aborted.', RemoteDisconnected('Remote end closed connection'))")


class OpsService:
    """Projects' operations whose status follows a timeline of (seconds after start, status)."""

    def __init__(self, clock):
        self.clock = clock
        self.start = clock()
        self.operations = {}  # project_id -> [(number, timeline, hidden)]
        self.faults = []  # answers (or exceptions) given before the service answers again
        self.down_after = None  # requests answered before the service stops: every later one is refused
        self.log = []  # ("list" | "get" | "fault" | "refused", project_id, operation_id or params)

    def add(self, project_id, number, timeline, hidden=False):
        """``timeline``: a status, or [(t, status)] where status None means "not started yet"."""
        if isinstance(timeline, str):
            timeline = [(0.0, timeline)]
        self.operations.setdefault(project_id, []).append((number, timeline, hidden))
        return (project_id, "op-%04d" % number)

    def add_finished(self, project_id, first, count):
        for number in range(first, first + count):
            self.add(project_id, number, "finished")

    def _now_status(self, timeline):
        elapsed = self.clock() - self.start
        status = None
        for moment, value in timeline:
            if moment <= elapsed:
                status = value
        return status

    def _current(self, project_id, listed):
        found = []
        for number, timeline, hidden in self.operations.get(project_id, []):
            status = self._now_status(timeline)
            if status is None or (listed and hidden):
                continue
            found.append(operation(number, status=status, project_id=project_id))
        return sorted(found, key=lambda item: item["created_at"], reverse=True)

    def handler(self, request):
        parts = urlsplit(request.url)
        segments = [unquote(segment) for segment in parts.path.split("/")[3:]]
        query = dict((key, values[0]) for key, values in parse_qs(parts.query).items())
        if self.down_after is not None and len(self.log) >= self.down_after:
            self.log.append(("refused", segments, query))
            return connection_refused()
        if self.faults:
            self.log.append(("fault", segments, query))
            return self.faults.pop(0)
        project_id = segments[1]
        if len(segments) == 3:
            self.log.append(("list", project_id, query))
            items = self._current(project_id, listed=True)
            start = 0
            if "cursor" in query:
                start = [item["created_at"] for item in items].index(query["cursor"]) + 1
            page = items[start:start + int(query["limit"])]
            return make_response(200, {"operations": page,
                                       "pagination": {"cursor": page[-1]["created_at"] if page else query.get("cursor")}})
        self.log.append(("get", project_id, segments[3]))
        for item in self._current(project_id, listed=False):
            if item["id"] == segments[3]:
                return make_response(200, {"operation": item})
        return make_response(404, {"code": "", "message": "operation not found"})

    def kinds(self):
        return [entry[0] for entry in self.log]


def setup(cost=0.1, retries=5, retry_max_delay=30.0, timeout=30.0):
    clock = FakeClock()
    service = OpsService(clock)
    client, _adapter = make_client(service.handler, clock=clock, cost=cost, retries=retries,
                                   retry_max_delay=retry_max_delay, timeout=timeout)
    return clock, service, client


def requests_per_poll(service, clock):
    """Wrap the clock's sleep to note how many requests each poll made."""
    marks = []
    sleep = clock.sleep

    def noting_sleep(seconds):
        marks.append(len(service.log))
        sleep(seconds)

    def per_poll():
        bounds = [0] + marks + [len(service.log)]
        return [service.log[start:end] for start, end in zip(bounds, bounds[1:]) if end > start]

    return noting_sleep, per_poll


def test_one_pending_operation_costs_one_get_per_poll():
    clock, service, client = setup(cost=0.1)
    target = service.add("p-1", 1, [(0, "running"), (12, "finished")])
    service.add_finished("p-1", 2, 30)
    outcome = OperationWaiter(client, timeout=60, poll_interval=5, clock=clock, sleep=clock.sleep).wait_for([target])
    assert outcome.error is None and not outcome.timed_out
    assert outcome.operations[0]["id"] == "op-0001"
    assert outcome.operations[0]["status"] == "finished"
    # polls end at 0.1, 5.2, 10.3 and 15.4 s
    assert outcome.polls == 4
    assert service.kinds() == ["get"] * 4
    assert outcome.requests == 4
    assert clock.sleeps == [5, 5, 5]
    assert outcome.elapsed == 15.4


def test_pauses_double_after_each_poll_up_to_the_max_poll_interval():
    clock, service, client = setup(cost=0.1)
    target = service.add("p-1", 1, [(0, "running"), (20, "finished")])
    outcome = OperationWaiter(client, timeout=60, poll_interval=0.5, clock=clock, sleep=clock.sleep,
                              max_poll_interval=5).wait_for([target])
    assert outcome.operations[0]["status"] == "finished"
    # 0.5, 1, 2, 4, then 5 s apart: quick for a short operation, few requests for a long one
    assert clock.sleeps == [0.5, 1, 2, 4, 5, 5, 5]
    assert outcome.requests == 8


def test_operations_an_answer_just_showed_in_progress_are_polled_after_a_pause_not_at_once():
    clock, service, client = setup(cost=0.1)
    target = service.add("p-1", 1, [(0, "running"), (0.4, "finished")])
    shown = {"id": target[1], "project_id": "p-1", "status": "running"}
    outcome = OperationWaiter(client, timeout=60, poll_interval=0.5, clock=clock, sleep=clock.sleep,
                              max_poll_interval=5).wait_for([target], started=[shown])
    assert outcome.operations[0]["status"] == "finished"
    # no request at once: the first (and only) poll after the first pause
    assert clock.sleeps == [0.5] and outcome.requests == outcome.polls == 1


def test_operations_an_answer_showed_ended_need_no_request():
    clock, service, client = setup(cost=0.1)
    target = service.add("p-1", 1, [(0, "finished")])
    shown = {"id": target[1], "project_id": "p-1", "status": "finished"}
    outcome = OperationWaiter(client, timeout=60, poll_interval=0.5, clock=clock, sleep=clock.sleep).wait_for(
        [target], started=[shown])
    assert outcome.operations == [shown] and outcome.requests == 0 and clock.sleeps == []


def test_wait_until_idle_backs_off_too():
    clock, service, client = setup(cost=0.1)
    service.add("p-1", 1, [(0, "running"), (6, "finished")])
    outcome = OperationWaiter(client, timeout=60, poll_interval=0.5, clock=clock, sleep=clock.sleep,
                              max_poll_interval=5).wait_until_idle("p-1")
    assert [operation["status"] for operation in outcome.operations] == ["finished"]
    assert clock.sleeps == [0.5, 1, 2, 4]


def test_several_operations_of_one_project_cost_one_list_request_per_poll():
    clock, service, client = setup(cost=0.1)
    targets = [service.add("p-1", number, [(0, "running"), (3 + 6 * number, "finished")]) for number in range(1, 6)]
    service.add_finished("p-1", 6, 150)  # newer operations in front of them in the list
    sleep, per_poll = requests_per_poll(service, clock)
    outcome = OperationWaiter(client, timeout=120, poll_interval=5, clock=clock, sleep=sleep).wait_for(targets)
    assert outcome.error is None and not outcome.timed_out
    assert [item["status"] for item in outcome.operations] == ["finished"] * 5
    polls = per_poll()
    assert len(polls) == outcome.polls
    # the first poll does not know how deep they are: at most ceil(pending/page) + 1 pages
    assert [entry[0] for entry in polls[0]] == ["list", "list"]
    assert all(len(poll) == 1 for poll in polls[1:])
    # one list request per poll while several are pending; op-0005, the last one, alone costs one GET
    assert all(poll[0][0] == "list" for poll in polls[:-1])
    assert polls[-1] == [("get", "p-1", "op-0005")]
    assert outcome.requests == sum(len(poll) for poll in polls)


def test_operations_missing_from_the_list_fall_back_to_single_gets():
    clock, service, client = setup()
    shown = [service.add("p-1", number, [(0, "running"), (11, "finished")]) for number in (1, 2)]
    hidden = service.add("p-1", 3, [(0, "running"), (11, "finished")], hidden=True)
    sleep, per_poll = requests_per_poll(service, clock)
    outcome = OperationWaiter(client, timeout=60, poll_interval=5, clock=clock, sleep=sleep).wait_for(shown + [hidden])
    assert outcome.error is None and not outcome.timed_out
    assert [item["status"] for item in outcome.operations] == ["finished"] * 3
    for poll in per_poll():
        assert [entry[0] for entry in poll] == ["list", "get"]
        assert poll[1][2] == "op-0003"


def test_operations_of_different_projects_are_read_per_project():
    clock, service, client = setup()
    targets = [service.add("p-1", 1, [(0, "running"), (4, "finished")]), service.add("p-1", 2, [(0, "running"), (4, "finished")]),
               service.add("p-2", 3, [(0, "running"), (4, "skipped")])]
    outcome = OperationWaiter(client, timeout=60, poll_interval=5, clock=clock, sleep=clock.sleep).wait_for(targets)
    assert outcome.error is None and not outcome.timed_out
    assert outcome.polls == 2
    assert sorted(entry[:2] for entry in service.log) == [("get", "p-2"), ("get", "p-2"), ("list", "p-1"), ("list", "p-1")]


@pytest.mark.parametrize("status", ["finished", "skipped", "failed", "error", "cancelled"])
def test_every_end_status_ends_the_wait(status):
    clock, service, client = setup()
    target = service.add("p-1", 1, status)
    outcome = OperationWaiter(client, timeout=60, poll_interval=5, clock=clock, sleep=clock.sleep).wait_for([target])
    assert outcome.polls == 1 and not outcome.timed_out and outcome.error is None
    assert clock.sleeps == []
    assert [item["id"] for item in outcome.failed] == (["op-0001"] if status in FAILURE_STATUSES else [])


@pytest.mark.parametrize("status", ["finished", "skipped", "failed", "error", "cancelled"])
def test_every_end_status_ends_the_wait_for_listed_operations(status):
    clock, service, client = setup()
    targets = [service.add("p-1", 1, status), service.add("p-1", 2, "finished")]
    outcome = OperationWaiter(client, timeout=60, poll_interval=5, clock=clock, sleep=clock.sleep).wait_for(targets)
    assert outcome.polls == 1 and not outcome.timed_out
    assert service.kinds() == ["list"]
    assert len(outcome.failed) == (1 if status in FAILURE_STATUSES else 0)


@pytest.mark.parametrize("status", ["scheduling", "running", "cancelling", "paused", "FINISHED", ""])
def test_other_statuses_count_as_in_progress(status):
    clock, service, client = setup(cost=0.5)
    target = service.add("p-1", 1, status)
    outcome = OperationWaiter(client, timeout=20, poll_interval=5, clock=clock, sleep=clock.sleep).wait_for([target])
    assert outcome.timed_out
    assert outcome.error is None
    assert outcome.operations == [operation(1, status=status)]
    assert outcome.pending == outcome.operations
    assert 20 <= clock() - service.start <= 20 + 0.5 + 1e-9


def test_timeout_returns_the_last_known_operations():
    clock, service, client = setup(cost=1.0)
    targets = [service.add("p-1", 1, [(0, "scheduling"), (4, "running")]), service.add("p-1", 2, [(0, "running"), (8, "finished")])]
    outcome = OperationWaiter(client, timeout=30, poll_interval=5, clock=clock, sleep=clock.sleep).wait_for(targets)
    assert outcome.timed_out
    assert [(item["id"], item["status"]) for item in outcome.operations] == [("op-0001", "running"), ("op-0002", "finished")]
    assert [item["id"] for item in outcome.pending] == ["op-0001"]
    assert outcome.elapsed <= 30 + 1.0
    assert outcome.last_fault is None


@pytest.mark.parametrize("fault", [
    make_response(503, raw=b""),
    make_response(429, {"message": "rate limited"}, headers={"Retry-After": "3"}),
    make_response(423, {"message": "project already has running conflicting operations"}),
    make_response(502, raw=b"<html>bad gateway</html>"),
    requests.exceptions.ReadTimeout("read timed out"),
    connection_refused(),
])
def test_transient_faults_are_survived_within_the_client_s_retries(fault):
    clock, service, client = setup(retries=3)
    target = service.add("p-1", 1, [(0, "running"), (7, "finished")])
    service.faults = [fault, fault, fault]
    outcome = OperationWaiter(client, timeout=60, poll_interval=5, clock=clock, sleep=clock.sleep).wait_for([target])
    assert outcome.error is None and not outcome.timed_out
    assert outcome.operations[0]["status"] == "finished"
    assert service.kinds()[:3] == ["fault"] * 3


@pytest.mark.parametrize("how, down_after, answered", [
    ("wait_for", 1, ["get"]),  # the first poll saw it running, then the API stopped
    ("wait_for_started", 0, []),  # as a change waits: the answer showed it running, the first poll is refused
    ("wait_until_idle", 1, ["list"]),  # listed in progress, then the API stopped
    ("wait_until_idle", 0, []),  # not even listed
], ids=["wait_for", "wait_for-started", "wait_until_idle-listed", "wait_until_idle-unlisted"])
def test_an_api_that_stops_answering_ends_the_wait_after_the_client_s_retries_not_at_the_timeout(how, down_after, answered):
    clock, service, client = setup(cost=0.1, retries=5, retry_max_delay=30.0)
    target = service.add("p-1", 1, "running")  # never ends
    service.down_after = down_after
    waiter = OperationWaiter(client, timeout=600, poll_interval=0.5, clock=clock, sleep=clock.sleep, max_poll_interval=5)
    if how == "wait_until_idle":
        outcome = waiter.wait_until_idle("p-1")
    elif how == "wait_for_started":
        outcome = waiter.wait_for([target], started=[operation(1, status="running")])
    else:
        outcome = waiter.wait_for([target])
    assert outcome.error is not None and not outcome.timed_out
    # as a read fails: the client's own 1 + 5 attempts, then the error; no further poll
    assert service.kinds() == answered + ["refused"] * 6
    assert outcome.error.status is None and outcome.error.problem.startswith("could not connect (")
    assert "Connection refused" in outcome.error.problem
    assert outcome.error.attempts == 6 and outcome.requests == len(answered) + 6
    assert outcome.interrupted
    # the last known state comes back: still running (or, never listed, nothing known)
    assert [(item["id"], item.get("status")) for item in outcome.pending] == (
        [] if how == "wait_until_idle" and not answered else [("op-0001", "running")])
    # one pause and the client's backoff: seconds, where the timeout was 600
    assert outcome.elapsed <= 0.5 + sum(BACKOFF_CEILINGS) + outcome.requests * 0.1 + 1e-9


@pytest.mark.parametrize("fault", [
    make_response(503, raw=b""),
    make_response(429, {"message": "rate limited"}, headers={"Retry-After": "3"}),
    make_response(502, raw=b"<html>bad gateway</html>"),
    make_response(504, {"message": "gateway timeout"}),
    requests.exceptions.ReadTimeout("read timed out"),
    connection_reset(),
], ids=["503", "429-retry-after", "502-html", "504", "read-timeout", "reset"])
@pytest.mark.parametrize("idle", [False, True], ids=["wait_for", "wait_until_idle"])
def test_a_poll_that_spends_the_client_s_retries_on_a_transient_fault_ends_the_wait_as_a_read_would(fault, idle):
    clock, service, client = setup(retries=2, retry_max_delay=2.0)
    target = service.add("p-1", 1, [(0, "running"), (40, "finished")])
    service.faults = [fault] * 3
    waiter = OperationWaiter(client, timeout=60, poll_interval=5, clock=clock, sleep=clock.sleep)
    outcome = waiter.wait_until_idle("p-1") if idle else waiter.wait_for([target])
    assert outcome.error is not None and not outcome.timed_out
    assert outcome.error.attempts == 3 and service.kinds() == ["fault"] * 3
    assert outcome.interrupted and outcome.last_fault is None
    assert clock() - service.start < 10  # the client's backoff, not the 60 s timeout


def test_a_lock_past_the_client_s_retries_is_waited_out():
    """423: the project's operations hold it, which is what the wait waits for: the next poll asks again."""
    clock, service, client = setup(retries=0)
    target = service.add("p-1", 1, [(0, "running"), (7, "finished")])
    service.faults = [make_response(423, {"message": "project already has running conflicting operations"})] * 3
    outcome = OperationWaiter(client, timeout=60, poll_interval=5, clock=clock, sleep=clock.sleep).wait_for([target])
    assert outcome.error is None and not outcome.timed_out
    assert outcome.operations[0]["status"] == "finished"
    assert service.kinds() == ["fault"] * 3 + ["get"]


@pytest.mark.parametrize("fault, retries", [
    (make_response(423, {"message": "project already has running conflicting operations"}), 2),
    # 5 retries 8 s apart cannot fit in 20 s: the deadline, not the client's retries, ends each poll
    (make_response(503, {"message": "unavailable"}, headers={"Retry-After": "8"}), 5),
], ids=["423", "503-cut-by-the-deadline"])
def test_faults_until_the_timeout_are_reported_as_the_last_fault(fault, retries):
    clock, service, client = setup(retries=retries, retry_max_delay=30.0)
    target = service.add("p-1", 1, "running")
    service.faults = [fault] * 1000
    outcome = OperationWaiter(client, timeout=20, poll_interval=5, clock=clock, sleep=clock.sleep).wait_for([target])
    assert outcome.timed_out
    assert outcome.error is None
    assert "HTTP %s: " % fault.status_code in str(outcome.last_fault)
    assert outcome.operations == [{"id": "op-0001", "project_id": "p-1"}]
    assert clock() - service.start <= 20 + 0.1 + 1e-9


@pytest.mark.parametrize("status", [404, 401])
def test_a_fault_that_does_not_heal_ends_the_wait(status):
    clock, service, client = setup()
    target = ("p-1", "op-0042")
    if status == 401:
        service.faults = [make_response(401, {"message": "authentication required"})]
    outcome = OperationWaiter(client, timeout=60, poll_interval=5, clock=clock, sleep=clock.sleep).wait_for([target])
    assert outcome.error is not None and outcome.error.status == status
    assert not outcome.timed_out
    assert len(service.log) == 1
    assert clock.sleeps == []


def test_duplicate_targets_are_waited_for_once():
    clock, service, client = setup()
    target = service.add("p-1", 1, "finished")
    outcome = OperationWaiter(client, timeout=60, poll_interval=5, clock=clock, sleep=clock.sleep).wait_for([target, target])
    assert len(outcome.operations) == 1
    assert service.kinds() == ["get"]


def test_no_targets_means_no_request():
    clock, service, client = setup()
    outcome = OperationWaiter(client, timeout=60, poll_interval=5, clock=clock, sleep=clock.sleep).wait_for([])
    assert outcome.operations == [] and outcome.polls == 0 and service.log == []


def test_wait_until_idle_waits_for_operations_in_progress():
    clock, service, client = setup()
    service.add_finished("p-1", 1, 40)
    service.add("p-1", 41, [(0, "running"), (7, "finished")])
    service.add("p-1", 42, [(0, "scheduling"), (3, "running"), (12, "failed")])
    outcome = OperationWaiter(client, timeout=60, poll_interval=5, clock=clock, sleep=clock.sleep).wait_until_idle("p-1")
    assert outcome.error is None and not outcome.timed_out
    assert sorted((item["id"], item["status"]) for item in outcome.operations) == [("op-0041", "finished"), ("op-0042", "failed")]
    assert [item["id"] for item in outcome.failed] == ["op-0042"]
    # the last request is a list that found nothing left in progress
    assert service.log[-1][0] == "list"


def test_wait_until_idle_also_waits_for_operations_started_meanwhile():
    clock, service, client = setup()
    service.add("p-1", 1, [(0, "running"), (6, "finished")])
    service.add("p-1", 2, [(0, None), (4, "running"), (14, "finished")])
    outcome = OperationWaiter(client, timeout=60, poll_interval=5, clock=clock, sleep=clock.sleep).wait_until_idle("p-1")
    assert outcome.error is None and not outcome.timed_out
    assert sorted(item["id"] for item in outcome.operations) == ["op-0001", "op-0002"]
    assert all(has_ended(item) for item in outcome.operations)


def test_wait_until_idle_on_an_idle_project_is_one_request():
    clock, service, client = setup()
    service.add_finished("p-1", 1, 5)
    outcome = OperationWaiter(client, timeout=60, poll_interval=5, clock=clock, sleep=clock.sleep).wait_until_idle("p-1")
    assert outcome.operations == [] and outcome.error is None and not outcome.timed_out
    assert service.kinds() == ["list"]
    assert outcome.requests == 1


def test_wait_until_idle_times_out():
    clock, service, client = setup(cost=0.5)
    service.add("p-1", 1, "running")
    outcome = OperationWaiter(client, timeout=20, poll_interval=5, clock=clock, sleep=clock.sleep).wait_until_idle("p-1")
    assert outcome.timed_out
    assert [item["id"] for item in outcome.pending] == ["op-0001"]
    assert clock() - service.start <= 20 + 0.5 + 1e-9


def test_wait_until_idle_on_an_unknown_project_ends_with_the_error():
    clock, service, client = setup()
    service.faults = [make_response(404, {"message": "project not found"})]
    outcome = OperationWaiter(client, timeout=60, poll_interval=5, clock=clock, sleep=clock.sleep).wait_until_idle("p-404")
    assert outcome.error is not None and outcome.error.status == 404
    assert len(service.log) == 1


def test_wait_until_idle_survives_faults_and_keeps_the_time_limit():
    clock, service, client = setup(cost=1.0, retries=5, retry_max_delay=30.0)
    service.add("p-1", 1, "running")
    service.faults = [make_response(429, {"message": "slow down"}, headers={"Retry-After": "30"})] * 1000
    outcome = OperationWaiter(client, timeout=20, poll_interval=5, clock=clock, sleep=clock.sleep).wait_until_idle("p-1")
    assert outcome.error is not None or outcome.timed_out
    assert clock() - service.start <= 20 + 1.0 + 1e-9


fault_answers = st.sampled_from([
    None,
    make_response(503, raw=b""),
    make_response(429, headers={"Retry-After": "4"}),
    make_response(502, raw=b"<html></html>"),
    requests.exceptions.ReadTimeout("read timed out"),
])


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    plan=st.lists(st.tuples(st.sampled_from(["p-1", "p-2", "p-3"]), st.floats(0, 40), st.sampled_from(END_STATUSES)),
                  min_size=1, max_size=6),
    cost=st.floats(0.01, 3.0),
    timeout=st.floats(1.0, 30.0),
    interval=st.floats(0.5, 10.0),
    retries=st.integers(0, 4),
    faults=st.lists(fault_answers, max_size=8),
    idle=st.booleans(),
)
def test_the_wait_never_outlasts_its_timeout_by_more_than_one_request(plan, cost, timeout, interval, retries, faults, idle):
    clock, service, client = setup(cost=cost, retries=retries, retry_max_delay=10.0)
    targets = [service.add(project_id, number, [(0, "running"), (ends, status)])
               for number, (project_id, ends, status) in enumerate(plan, 1)]
    service.faults = [fault for fault in faults if fault is not None]
    waiter = OperationWaiter(client, timeout=timeout, poll_interval=interval, clock=clock, sleep=clock.sleep)
    outcome = waiter.wait_until_idle("p-1") if idle else waiter.wait_for(targets)
    assert clock() - service.start <= timeout + cost + 1e-6
    if outcome.error is None and not outcome.timed_out:
        assert all(has_ended(item) for item in outcome.operations)
    if not idle:
        assert [(item["project_id"], item["id"]) for item in outcome.operations] == targets
