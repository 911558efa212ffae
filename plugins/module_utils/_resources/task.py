# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One module run's requests, waits and record of what was done, for the walk of resource.py.

One ResourceTask serves one module run, whatever resources it touches (a project and its
default compute, a branch and its compute):

- A change request refused with HTTP 423 (the project's operations hold a lock) waits for the
  project's running operations with the collection's one waiter, then asks again, all within
  ``wait_timeout``. A 423 means nothing was carried out, so asking again is safe.
- A create whose answer was lost (network error, gateway error) is never repeated blindly: the
  resource is looked for again, and the request repeated only when that proves it was not
  carried out (the rule api_key follows). "already exists" from a create means an overlapping
  run made it: it is looked for again and used.
- Each change waits for the operations it started (unless ``wait`` is false) and they are all
  returned. A failed operation, a timeout or any later error fails the task with what was
  already changed, and with every result field that must not be lost (a connection URI shown
  only once).

Nothing here calls Ansible: failures are TaskFailure carrying the result so far.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import traceback

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import PathParameterError
from ansible_collections.neon.cloud.plugins.module_utils._api.create_once import create_once
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, TaskFailure, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._api.operations import (
    OperationWaiter,
    describe_operation,
    has_ended,
    list_operations,
)
from ansible_collections.neon.cloud.plugins.module_utils._api.redaction import one_line
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import OptionError, Refusal, assume
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import task_result

# Seconds between two polls of the operations a change started: the first after half a second,
# each next one twice as long, up to the 5 s the service suggests (docs/docsite/rst/waiting.rst).
# Creating a branch or starting a compute takes seconds, so a fixed 5 s would add seconds to every
# task, and a fixed short pause would poll a long operation needlessly often; one poll costs one
# request for all of a project's operations (_api/operations.py).
POLL_INTERVAL = 0.5
MAX_POLL_INTERVAL = 5.0
ALREADY_EXISTS = "already exists"
# How many of a project's newest operations one request reads to tell whether an object a task found
# (and leaves as it is) still has operations running: what a run that timed out, or an overlapping
# run's create, left running is among the newest (a create starts two or three).
RECENT_OPERATIONS = 20
# The options of every module that changes resources, documented once in plugins/doc_fragments/api.py (WAIT).
WAIT_ARGUMENT_SPEC = dict(
    wait=dict(type="bool", default=True),
    wait_timeout=dict(type="float", default=600.0),
)


def already_exists(error):
    """The service's duplicate-name refusal; its status is not documented (taken here as 400, 409, 412 or 422), its message is
    (docs/docsite/rst/api-behaviour.rst: 'branch already exists', 'branch with the provided name ... already exists')."""
    return error.status in (400, 409, 412, 422) and ALREADY_EXISTS in (error.api_message or "").lower()


def unforeseen(error, scrubber):
    """The sentence for an exception of the collection's own code: its type, its message (``scrubber``: every piece
    of a secret the task holds removed, before it is cut short) and the line of the collection it came from, to
    report (a traceback is not shown: it would end the task without its result)."""
    # walk_tb, not extract_tb, which obeys sys.tracebacklimit (ansible-builder sets it to 0 when imported)
    lines = [(frame.f_code.co_filename, line) for frame, line in traceback.walk_tb(error.__traceback__)]
    ours = [line for line in lines if "ansible_collections" in line[0]] or lines
    where = ", at %s line %d" % (os.path.basename(ours[-1][0]), ours[-1][1]) if ours else ""
    return "neon.cloud met a fault of its own (%s: %s%s); please report it, with this message" % (
        type(error).__name__, one_line(scrubber.scrub(str(error)), 200), where)


class Found:
    """What looking again after a create found: the object, and whether this run made it."""

    def __init__(self, item, ours):
        self.item = item
        self.ours = ours


class ResourceTask:
    """One module run's changes: their requests, the operations they started, what was done."""

    def __init__(self, client, wait=True, wait_timeout=600.0, check_mode=False, diff=False,
                 poll_interval=POLL_INTERVAL):
        self.client = client
        self.wait = wait
        self.wait_timeout = wait_timeout
        self.check_mode = check_mode
        self.diff = diff
        self.poll_interval = min(poll_interval, wait_timeout)
        self.deadline = client.clock() + wait_timeout
        self.changed = False
        self.operations = []  # every operation this run started, in its last known state
        self.done = []  # one sentence per change carried out
        self.kept = {}  # result fields a failure must still return (the resource, a secret shown once)
        self.warnings = []

    # ------------------------------------------------------------------------------------------ results

    def did(self, sentence):
        self.changed = True
        self.done.append(sentence)

    def keep_created_uri(self, data):
        """The connection URI a create answered, shown only now: in every result from here on, as
        ``connection_uri``; its password never in a message. Nothing else of the answer is needed
        for it, so nothing else in it can make it lost."""
        uris = answers.connection_uris(data)
        if uris:
            self.kept["connection_uri"] = uris[0]
            parts = answers.uri_parts(uris[0])
            self.client.remember_secret(parts["password"] if parts else None)

    def result(self, **fields):
        result = dict(self.kept, changed=self.changed, operations=self.operations)
        result.update(fields)
        return task_result(result, self.warnings)

    def with_diff(self, result, before, after):
        """``result`` with the diff of what the task changed, when Ansible asks for one (never a secret:
        ``before`` and ``after`` are a Description's compared fields)."""
        return task_result(result, diff=self.diff, before=before, after=after)

    def failure(self, msg, error=None):
        """A TaskFailure saying what was already changed, with every result kept so far."""
        if self.done:
            msg += ". Changed by this task so far: %s" % "; ".join(self.done)
        elif getattr(error, "ambiguous", False):
            # a POST, PATCH or DELETE without a clear answer (a 502, a 504, a timeout): it may have been carried out
            msg += ". Whether the service carried it out is unknown: run the task again, it finds what is there now"
        elif not self.check_mode:
            msg += ". Nothing was changed"
        fields = {"error": error.to_dict()} if error is not None else {}
        return TaskFailure(msg, cause=error, **self.result(**fields))

    def refused(self, refusal):
        """The failure for a Refusal (a choice that cannot be made, a project that does not exist)."""
        return self.failure(refusal.msg, refusal.cause)

    def assume(self, missing):
        """What the task names that does not exist yet (a refusal.Missing): in check mode its stand-in, taken as made
        by an earlier task of the play, with a warning saying so; otherwise the refusal (refusal.assume)."""
        return assume(missing, self.check_mode, self.warnings)

    def keep_on_failure(self, work, *args):
        """``work(*args)``, with any request error or refusal after a change turned into a failure that keeps
        what was done (a refusal alone says only ``changed: false``). A fault of the collection's own code (an
        exception no rule raises: an answer it did not foresee, say) fails the task too, saying so and where, with
        what was done and a secret the service showed once (a connection URI, a role's password): never a
        traceback that would lose them."""
        try:
            return work(*args)
        except NeonAPIError as error:
            if not self.changed:
                raise
            raise self.failure(error.describe(), error)
        except Refusal as refusal:
            if not self.changed:
                raise
            raise self.refused(refusal)
        except (TaskFailure, OptionError, PathParameterError):
            raise
        except Exception as error:  # pylint: disable=broad-except  # a fault of ours: what was done is kept
            raise self.fault(error)

    def fault(self, error):
        """The TaskFailure for a fault of the collection's own code (``error``), with every result kept so far. It
        says "Nothing was changed" only when no change request left; otherwise that the task may have changed more
        than it recorded (a writer of its own requests, such as the API keys', records none)."""
        msg = unforeseen(error, self.client.scrubber)
        if self.done:
            msg += ". Changed by this task so far: %s" % "; ".join(self.done)
        if self.client.changes_sent:
            msg += ". It sent %d change request(s), so it may have changed %s: run the task again, it finds what " \
                   "is there now" % (self.client.changes_sent, "more" if self.done else "something")
        elif not self.check_mode:
            msg += ". Nothing was changed"
        return TaskFailure(msg, cause=error, **self.result(changed=self.changed or bool(self.client.changes_sent)))

    # ------------------------------------------------------------------------------------------ acting

    def remaining(self):
        return self.deadline - self.client.clock()

    def send(self, method, path, project_id, body=None, no_content=False):
        """One change request. HTTP 423: wait for the project's running operations, then ask again.
        ``no_content``: its documented success has no body, so an empty one is its success (None)."""
        while True:
            try:
                return self.client.request(method, path, body=body, retry_locked=project_id is None,
                                           no_content=no_content)
            except NeonAPIError as error:
                if error.status != 423 or project_id is None:  # no project's operations to wait for: the client's retries were all
                    raise
                self._wait_unlocked(project_id, error)

    def _wait_unlocked(self, project_id, error):
        if self.remaining() <= 0:
            raise self.failure("%s; the project's running operations still held it when wait_timeout (%s s) ran out, "
                               "so it was not asked again" % (error.describe(), self.wait_timeout), error)
        outcome = self._waiter().wait_until_idle(project_id)
        if outcome.error is not None:
            raise self.failure("%s; waiting for the project's running operations failed: %s" % (
                error.describe(), outcome.error.describe()), outcome.error)
        if outcome.timed_out:
            raise self.failure("%s; the project's operations were still running when wait_timeout (%s s) ran out: %s" % (
                error.describe(), self.wait_timeout,
                "; ".join(describe_operation(item.get("id"), item) for item in outcome.pending) or "none listed"), error)
        if not outcome.operations:
            # Locked, yet nothing listed in progress (an operation the list does not show yet):
            # pause a poll's time before asking again rather than asking at once.
            self.client.sleep(max(0.0, min(self.poll_interval, self.remaining())))

    def create(self, path, body, project_id, label, find_again):
        """POST a create once (_api/create_once.py). Returns (answer, None), or (None, Found) when looking
        again found it.

        ``find_again()`` looks the resource up afresh and returns a Found or None. It is called after
        "already exists" (an overlapping run made it) and after an answer that leaves open whether the
        create was carried out; the create is repeated only when it proves it was not.
        """
        def send():
            try:
                return self.send("POST", path, project_id, body), None
            except NeonAPIError as error:
                if already_exists(error):
                    other = self._look_again(error, find_again)
                    if other is None:
                        raise self.failure("%s; yet %s was not found when looked for again" % (
                            error.describe(), label), error)
                    other.ours = False
                    return None, other
                if not error.ambiguous:
                    raise self.failure(error.describe(), error)
                raise

        def found(error, item):
            self.warnings.append("The answer to creating %s was lost (%s); looking again found it (id %s), so it was "
                                 "not created twice. What the answer alone holds (operations, a connection URI) is not "
                                 "in this result." % (label, error.problem, item.item.get("id")))
            return None, item

        def in_flight(error):
            return self.failure(
                "%s. %s was looked for again and is not there yet, but the service may still be carrying the "
                "request out, so it was not asked again (that could create it twice); run the task again in a "
                "moment" % (error.describe(not_repeated=False), label), error)

        def not_created(error, attempts, _elapsed):
            return self.failure("%s. %s was looked for again after %s and had not appeared, so it was not created" % (
                error.describe(not_repeated=False), label,
                "each of %d attempts" % attempts if attempts > 1 else "the attempt"), error)

        return create_once(self.client, send, lambda error: self._look_again(error, find_again), found, in_flight,
                           not_created)

    def _look_again(self, error, find_again):
        try:
            return find_again()
        except NeonAPIError as listing_error:
            raise self.failure("%s. Looking again to find out whether it was carried out failed too: %s" % (
                error.describe(), listing_error.describe()), listing_error)
        except Refusal as refusal:
            raise self.failure("%s. Looking again to find out whether it was carried out: %s" % (
                error.describe(), refusal.msg), error)

    def change(self, method, path, project_id, body, label, no_content=False):
        """A PATCH, DELETE or action POST; its answer (None for 204, or for an empty body with ``no_content``).
        Fails with what was done before."""
        try:
            return self.send(method, path, project_id, body, no_content)
        except NeonAPIError as error:
            raise self.failure("%s failed: %s" % (label, error.describe()), error)

    def update(self, description, path, project_id, current, plan, label, body=None, id_field="id"):
        """PATCH ``current`` (an object of ``description``) as ``plan`` says, ``body`` when given: the
        request, what was done, the operations it started (waited for); returns the object answered."""
        label = "%s: %s" % (label, ", ".join(sorted(plan.changes)))
        data = self.change("PATCH", path, project_id, {description.key: plan.body if body is None else body},
                           "Updating " + label)
        self.did("updated " + label)
        self.wait_for_operations_of(data, "PATCH", path, project_id, "updated " + label)
        return self.answered(description, data, "PATCH", path, current[id_field], id_field)

    def answered(self, description, data, method, path, item_id=None, id_field="id"):
        """The object of ``description`` a change answered, checked (the one asked for, with ``item_id``);
        an answer that cannot be used fails the task with what was done."""
        try:
            return answers.item_of(data, method, path, description.key, description.answer_fields, item_id, id_field)
        except UnexpectedAnswer as error:
            raise self.failure("its answer cannot be used: %s" % error.describe(), error)

    # ------------------------------------------------------------------------------------------ waiting

    def wait_for_operations_of(self, data, method, path, project_id, what):
        """Record the operations an answer started, and wait for them unless ``wait`` is false."""
        try:
            operations = answers.started_operations(data, method, path, project_id)
        except NeonAPIError as error:
            raise self.failure("%s, but its answer cannot be used: %s" % (what, error.describe()), error)
        first = len(self.operations)
        self.operations.extend(operations)
        if not self.wait or not operations:
            return
        outcome = self._waiter().wait_for([(project_id, operation["id"]) for operation in operations],
                                          started=[dict(operation, project_id=project_id) for operation in operations])
        finals = dict((operation.get("id"), operation) for operation in outcome.operations if "status" in operation)
        self.operations[first:] = [finals.get(operation["id"], operation) for operation in operations]
        self._judge(outcome, what)

    def settle(self, project_id, what, unsettled=None, branch_id=None, endpoint_id=None):
        """Wait for an object the task found and leaves as it is, when it is not ready yet: its own state
        says so (``unsettled``: a branch in ``init``, a compute with a ``pending_state``), or, for an
        object without a state (``unsettled`` None: a project, a role, a database), operations on it are
        among the project's newest and still running (one request). What a run that timed out or an
        overlapping run's create left running is waited for as the task's own operations are, so that
        ``wait=true`` means ready on every run. Returns whether it waited: the caller reads the object
        again. Never in check mode (it sends nothing and waits for nothing) or with ``wait=false``."""
        if not self.wait or self.check_mode:
            return False
        try:
            recent = list_operations(self.client, project_id, page_size=RECENT_OPERATIONS,
                                     max_results=RECENT_OPERATIONS).items
        except NeonAPIError as error:
            raise self.failure("%s, but reading the project's operations failed: %s" % (what, error.describe()), error)
        running = [operation for operation in recent if not has_ended(operation)
                   and (branch_id is None or operation.get("branch_id") in (branch_id, None))
                   and (endpoint_id is None or operation.get("endpoint_id") in (endpoint_id, None))]
        if running:
            outcome = self._waiter().wait_for([(project_id, operation["id"]) for operation in running],
                                              started=[dict(operation, project_id=project_id) for operation in running])
        elif unsettled:
            outcome = self._waiter().wait_until_idle(project_id)  # its operations are older than the newest
        else:
            return False
        self._judge(outcome, what)
        return True

    def wait_idle(self, project_id, what):
        """Wait for whatever the project runs (operations an answer did not show: a lost answer, another run's create)."""
        if not self.wait:
            return
        outcome = self._waiter().wait_until_idle(project_id)
        self._judge(outcome, what)

    def _waiter(self):
        """The collection's one waiter, for the time this task has left."""
        return OperationWaiter(self.client, max(0.0, self.remaining()), self.poll_interval, clock=self.client.clock,
                               sleep=self.client.sleep, max_poll_interval=MAX_POLL_INTERVAL)

    def _judge(self, outcome, what):
        if outcome.error is not None:
            message = "%s, but waiting for its operations failed: %s" % (what, outcome.error.describe())
            if outcome.interrupted:  # the API stopped answering (_api/operations.py): the change may still be under way
                message += (". The change was sent and may still be running on the service: once the API answers, "
                            "wait for %s with neon.cloud.operation_wait, or run the task again (it finds what was "
                            "made and waits for it; what runs on every run - a restart, a password reset, a reset "
                            "from the parent - is done again)" % outcome.awaited())
            raise self.failure(message, outcome.error)
        failed = outcome.failed
        if failed:
            raise self.failure("%s, but %d of its %d operations ended badly: %s" % (
                what, len(failed), len(outcome.operations),
                "; ".join(describe_operation(item.get("id"), item) for item in failed)))
        if outcome.timed_out:
            message = "%s, but %d operations were still in progress when wait_timeout (%s s) ran out: %s" % (
                what, len(outcome.pending), self.wait_timeout,
                "; ".join(describe_operation(item.get("id"), item) for item in outcome.pending))
            if outcome.last_fault is not None:
                message += ". The last poll failed: %s" % outcome.last_fault
            raise self.failure(message + ". Wait longer with neon.cloud.operation_wait", outcome.last_fault)
