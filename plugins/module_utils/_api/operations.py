# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Operation status sets and the loop that waits for operations to end.

Polling cost matters: the live service allows about 700 requests a minute per account,
shared with everything else the user runs. One operation costs one GET per poll; several
operations of one project cost one page of the operations list per poll (newest first, the
page sized to reach the oldest one still pending), with single GETs only for operations the
list did not show.

Faults during a wait. Each poll is a read through the client, which retries a transient fault
itself (api_retries, api_retry_max_delay). What the poll raises then decides:

- A fault that does not heal (401, 404, an answer of the wrong shape) ends the wait at once.
- A transient fault that outlasted the client's retries ends the wait at once too, where a read
  would have failed: no answer at all (connection refused or reset, no answer within api_timeout),
  and equally an answered one (429 after Retry-After, 500, 502, 503, 504): the client has spent
  its retry budget on it, and the service that stopped answering usefully may not come back
  within the wait's timeout, which is meant for operations that take long, not for a dead API
  (issue 28: a stopped API held a task for the whole 600 s). How long a fault is tolerated is
  therefore the same for a read and a wait, set by api_retries and api_retry_max_delay.
  ``WaitOutcome.interrupted`` tells such an end apart: the operations may still be running.
- HTTP 423 is the exception: the project's operations hold it, which is what the wait waits for,
  so the next poll asks again until the deadline.
- A poll whose retries the deadline cut short (the client does not pause past it) is the
  deadline's doing: the wait times out, naming that fault as ``last_fault``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import api_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError
from ansible_collections.neon.cloud.plugins.module_utils._api.paging import OPERATIONS_PAGE_MAX, PageReader, collect
from ansible_collections.neon.cloud.plugins.module_utils._api.redaction import one_line
from ansible_collections.neon.cloud.plugins.module_utils._api.timestamps import timestamp

# docs/docsite/rst/api-behaviour.rst: the live service has more statuses than the contract's four.
SUCCESS_STATUSES = ("finished", "skipped")
FAILURE_STATUSES = ("failed", "error", "cancelled")
IN_PROGRESS_STATUSES = ("scheduling", "running", "cancelling")  # and any status not known yet
END_STATUSES = SUCCESS_STATUSES + FAILURE_STATUSES

# Items asked beyond the oldest pending operation's last seen position, for operations the
# service started meanwhile; and the first page when positions are not known yet.
LIST_MARGIN = 20
FIRST_PAGE_MIN = 100


def has_ended(operation):
    return isinstance(operation, dict) and operation.get("status") in END_STATUSES


def has_failed(operation):
    return isinstance(operation, dict) and operation.get("status") in FAILURE_STATUSES


def operations_path(project_id, operation_id=None):
    if operation_id is None:
        return api_path("projects", project_id, "operations")
    return api_path("projects", project_id, "operations", operation_id)


def describe_operation(operation_id, operation):
    """One line a user can act on: id, action, status, failures_count and the error text."""
    if not isinstance(operation, dict) or "status" not in operation:  # never read (a wait ends with {id, project_id})
        return "%s (status not read yet)" % operation_id
    text = "%s (%s) %s, failures_count %s" % (
        operation_id, one_line(operation.get("action") or "unknown action", 60), one_line(operation["status"], 40),
        operation.get("failures_count", "unknown"))
    if operation.get("error"):
        text += ", error: %s" % one_line(operation["error"], 200)
    return text


def get_operation(client, project_id, operation_id, deadline=None):
    """The operation, checked to be the one asked for."""
    path = operations_path(project_id, operation_id)
    return answers.operation(client.get(path, deadline=deadline), "GET", path, project_id, operation_id)


def list_operations(client, project_id, page_size=OPERATIONS_PAGE_MAX, cursor=None, max_results=None, keep=None):
    """The project's operations, newest first, as a ListResult (see _paging.collect)."""
    return collect(client, operations_path(project_id), "operations", page_size, cursor=cursor,
                   max_results=max_results, keep=keep, item_fields=answers.LISTED_OPERATION_FIELDS)


def list_in_progress(client, project_id, deadline=None):
    """Every operation of the project that has not ended, newest first (reads the whole list)."""
    return collect(client, operations_path(project_id), "operations", OPERATIONS_PAGE_MAX,
                   keep=lambda operation: not has_ended(operation), want_cursor=False, deadline=deadline,
                   item_fields=answers.OPERATION_FIELDS).items


class WaitOutcome:
    """What a wait saw: final (or last known) operations, time, polls and requests spent."""

    def __init__(self):
        self.operations = []
        self.elapsed = 0.0
        self.polls = 0
        self.requests = 0
        self.timed_out = False
        self.error = None  # a NeonAPIError that ended the wait early
        self.last_fault = None  # a transient NeonAPIError of the last poll, kept for the timeout message
        self.project_id = None  # the project wait_until_idle waited for
        self.targets = []  # (project_id, operation_id) of each operation, in the order of ``operations``

    @property
    def failed(self):
        return [operation for operation in self.operations if has_failed(operation)]

    @property
    def pending(self):
        return [operation for operation in self.operations if not has_ended(operation)]

    @property
    def interrupted(self):
        """Whether the wait ended because the service stopped answering (a transient fault outlasted
        the client's retries), not because of what it said: the operations may still be running."""
        return self.error is not None and bool(self.error.retryable)

    def awaited(self):
        """What the wait still waited for, for a message: ``operations A, B of project P`` (as
        neon.cloud.operation_wait takes them up again), or ``the operations of project P``."""
        by_project = {}
        for (project_id, _id), operation in zip(self.targets, self.operations):
            if not has_ended(operation):
                by_project.setdefault(project_id, []).append(str(operation.get("id")))
        if not by_project:
            return "the operations of project %s" % self.project_id if self.project_id else "the project's operations"
        return "; ".join("operation%s %s of project %s" % ("s" if len(ids) > 1 else "", ", ".join(ids), project_id)
                         for project_id, ids in by_project.items())


class OperationWaiter:
    """Polls until every target operation has ended or ``timeout`` seconds have passed.

    Deadlines use a monotonic clock. A poll's fault ends the wait as it would end a read: one that
    does not heal at once, a transient one (network, rate limit, gateway error) once the client
    has spent its retries on it; only HTTP 423 (a lock: operations running) is asked again by the
    next poll, until the deadline (the module docstring says why).
    """

    def __init__(self, client, timeout, poll_interval, clock=time.monotonic, sleep=time.sleep, max_poll_interval=None):
        self.client = client
        self.timeout = timeout
        self.poll_interval = poll_interval
        # With max_poll_interval, the pause doubles after each poll up to it: the operations of a
        # change usually end within seconds, and a long one is not polled every half second.
        self.max_poll_interval = max_poll_interval
        self.next_pause = poll_interval
        self.clock = clock
        self.sleep = sleep
        self.started = None
        self.deadline = None
        self.outcome = WaitOutcome()
        self.known = {}  # (project_id, operation_id) -> latest operation object
        self.depth = {}  # project_id -> list position of its oldest pending operation at the last poll
        self.last_error = None  # the transient fault of the latest poll
        self.requests_before = client.requests_made

    def _start(self):
        if self.started is None:
            self.started = self.clock()
            self.deadline = self.started + self.timeout

    def _ends_wait(self, error):
        """Whether a poll's NeonAPIError ends the wait now (see the module docstring)."""
        if not error.retryable or error.ambiguous:
            return True
        if error.status == 423:
            return False  # the project's operations hold it: what the wait waits for
        # The client stops short of its retries only when the next pause would pass the deadline:
        # then the deadline ends the wait (a timeout); otherwise its retries were spent, as by a read.
        return error.attempts > self.client.retries

    def _finish(self, targets):
        self.outcome.targets = list(targets)
        self.outcome.operations = [self.known.get(target, {"id": target[1], "project_id": target[0]})
                                   for target in targets]
        self.outcome.elapsed = round(self.clock() - self.started, 3)
        self.outcome.requests = self.client.requests_made - self.requests_before
        return self.outcome

    def wait_for(self, targets, started=None):
        """Wait for ``targets``, a list of (project_id, operation_id) pairs. Returns a WaitOutcome.

        ``started``: the operations (dicts with ``project_id``) as the answer that started them has
        just shown them; the first poll then comes after a pause, not at once."""
        self._start()
        targets = list(dict.fromkeys(targets))
        for operation in started or ():
            self.known[(operation["project_id"], operation["id"])] = operation
        fresh = bool(started)
        while True:
            pending = [target for target in targets if not has_ended(self.known.get(target))]
            if pending and not fresh:
                self.outcome.polls += 1
                try:
                    self._poll(pending)
                    self.last_error = None
                except NeonAPIError as exc:
                    if self._ends_wait(exc):
                        self.outcome.error = exc
                        return self._finish(targets)
                    self.last_error = exc
                pending = [target for target in targets if not has_ended(self.known.get(target))]
            fresh = False
            if not pending:
                return self._finish(targets)
            now = self.clock()
            if now >= self.deadline:
                self.outcome.timed_out = True
                self.outcome.last_fault = self.last_error
                return self._finish(targets)
            self.sleep(min(self._pause(), self.deadline - now))

    def _pause(self):
        """Seconds until the next poll."""
        pause = self.next_pause
        if self.max_poll_interval is not None:
            self.next_pause = min(self.next_pause * 2, max(self.max_poll_interval, self.poll_interval))
        return pause

    def wait_until_idle(self, project_id):
        """Wait until the project has no operation in progress; returns those it waited for."""
        self._start()
        self.outcome.project_id = project_id
        waited = []
        while True:
            if waited and self.clock() >= self.deadline:
                return self._finish(waited)  # what it waited for has ended; no time left to list again
            try:
                found = list_in_progress(self.client, project_id, self.deadline)
            except NeonAPIError as exc:
                if self._ends_wait(exc):
                    self.outcome.error = exc
                    return self._finish(waited)
                if self.clock() >= self.deadline:
                    self.outcome.timed_out = True  # transient faults until the end: a timeout, like wait_for's
                    self.outcome.last_fault = exc
                    return self._finish(waited)
                self.sleep(min(self._pause(), max(0.0, self.deadline - self.clock())))
                continue
            self.outcome.polls += 1
            for operation in found:
                self.known[(project_id, operation["id"])] = operation
            fresh = [(project_id, operation["id"]) for operation in found]
            waited.extend(target for target in fresh if target not in waited)
            if not fresh:
                return self._finish(waited)
            if self.clock() >= self.deadline:
                self.outcome.timed_out = True  # listing took the time left: no poll may start now
                return self._finish(waited)
            outcome = self.wait_for(fresh)
            if outcome.error is not None or outcome.timed_out:
                return self._finish(waited)

    def _poll(self, pending):
        by_project = {}
        for project_id, operation_id in pending:
            by_project.setdefault(project_id, []).append(operation_id)
        for index, (project_id, operation_ids) in enumerate(by_project.items()):
            if index and self.clock() >= self.deadline:
                return  # past the deadline only the poll's first request may still start
            if len(operation_ids) == 1:
                self._read_one(project_id, operation_ids[0])
            else:
                self._read_list(project_id, operation_ids)

    def _read_one(self, project_id, operation_id):
        self.known[(project_id, operation_id)] = get_operation(self.client, project_id, operation_id, self.deadline)

    def _read_list(self, project_id, operation_ids):
        """One pass over the newest operations, deep enough to reach the oldest pending one."""
        wanted = set(operation_ids)
        oldest = None
        for operation_id in operation_ids:
            stamp = timestamp((self.known.get((project_id, operation_id)) or {}).get("created_at"))
            if stamp is None:
                oldest = None
                break
            oldest = stamp if oldest is None or stamp < oldest else oldest
        depth = self.depth.get(project_id)
        if depth is None:
            limit = min(OPERATIONS_PAGE_MAX, max(FIRST_PAGE_MIN, 2 * len(wanted)))
        else:
            limit = min(OPERATIONS_PAGE_MAX, depth + 1 + LIST_MARGIN)
        max_pages = -(-len(wanted) // limit) + 1
        reader = PageReader(self.client, operations_path(project_id), "operations", answers.OPERATION_FIELDS,
                            max_pages=max_pages, deadline=self.deadline)
        position = 0
        deepest = 0
        full_page = False
        while reader.has_next and reader.requests < max_pages:
            if reader.requests and self.clock() >= self.deadline:
                break
            page = reader.read(limit).items
            full_page = len(page) == limit
            for operation in page:
                if operation["id"] in wanted:
                    self.known[(project_id, operation["id"])] = operation
                    wanted.discard(operation["id"])
                    if not has_ended(operation):
                        deepest = position
                position += 1
            if not wanted or not page:
                break
            last = timestamp(page[-1].get("created_at"))
            if oldest is not None and last is not None and last < oldest:
                break  # older than every operation still wanted: they are not in this list
        if wanted and full_page:
            deepest = max(deepest, position)  # look deeper next time before falling back to GETs
        self.depth[project_id] = deepest
        for operation_id in operation_ids:
            if operation_id in wanted and self.clock() < self.deadline:
                self._read_one(project_id, operation_id)
