# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A branch's computes (the API's endpoints): which one a task means, and the task that makes it as asked.

A compute is chosen by its id, or else by its type: a branch has at most one read-write compute
(the service's rule), so asking for a read-write compute where one exists means that one, never a
second. Read-only computes can be several; without an id the task means the branch's only one.

Its settings (``min_cu``, ``max_cu``, ``suspend_timeout_seconds``) are _branches.COMPUTE, decided
by _resource_plan.decide; its running state is asked with ``state``: ``started``, ``suspended`` or
``restarted`` (a restart on every run). A compute that is as asked costs two requests: the
project's branches and the branch's computes.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._branches import (
    COMPUTE,
    branch_endpoints,
    branch_label,
    locate_branch,
    project_path,
)
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, TaskFailure
from ansible_collections.neon.cloud.plugins.module_utils._resource_plan import (
    CREATE,
    NOTHING,
    READ_WRITE,
    REFUSE,
    UPDATE,
    Refusal,
    compute_settled,
    decide,
    planned,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources import Found

STARTED = "started"
SUSPENDED = "suspended"
RESTARTED = "restarted"
ACTIVE = "active"
IDLE = "idle"
# state -> (the action's path segment, the compute state it leads to); restarted: always
RUN_STATES = {STARTED: ("start", ACTIVE), SUSPENDED: ("suspend", IDLE), RESTARTED: ("restart", None)}
# How the service may refuse a second read-write compute on a branch (the status is not documented:
# docs/docsite/rst/api-behaviour.rst, "Computes").
REFUSED_AS_SECOND = (400, 409, 412, 422)


def choose_endpoint(endpoints, endpoint_type, endpoint_id, label):
    """The compute a task means among a branch's ``endpoints``, or None when it has none of that kind.

    By ``endpoint_id`` when given (one of another type is refused); else the branch's one
    read-write compute; else its only read-only one (several are refused, naming their ids).
    """
    if endpoint_id is not None:
        found = [endpoint for endpoint in endpoints if endpoint["id"] == endpoint_id]
        if not found:
            return None
        if endpoint_type is not None and found[0]["type"] != endpoint_type:
            raise Refusal("compute %s of branch %s is %s, not %s as asked" % (
                endpoint_id, label, found[0]["type"], endpoint_type))
        return found[0]
    same_type = [endpoint for endpoint in endpoints if endpoint["type"] == endpoint_type]
    if len(same_type) > 1:
        raise Refusal("branch %s has %d %s computes (%s)%s; give the id of the one you mean" % (
            label, len(same_type), endpoint_type, ", ".join(endpoint["id"] for endpoint in same_type),
            " where a branch has one read-write compute" if endpoint_type == READ_WRITE else ""))
    return same_type[0] if same_type else None


def run_change(state, endpoint):
    """The action (``start``, ``suspend``, ``restart``) ``state`` asks of ``endpoint`` (None: absent,
    as it will be once created), or None when it is already so. A compute on its way to the state
    asked (``pending_state``) is left to get there."""
    if state not in RUN_STATES:
        return None
    segment, target = RUN_STATES[state]
    if target is None:
        return segment
    if endpoint is None:
        return segment if target == IDLE else None  # a new compute starts by itself
    if endpoint.get("current_state") == target or endpoint.get("pending_state") == target:
        return None
    return segment


class ComputeTask:
    """One ``neon.cloud.endpoint`` task: one compute of one branch."""

    def __init__(self, task, project_id, branch, endpoint_type, endpoint_id):
        self.task = task
        self.client = task.client
        self.project_id = project_id
        self.wanted_branch = branch
        self.type = endpoint_type
        self.id = endpoint_id
        self.branch = None
        self.label = "the %s compute" % endpoint_type

    def _find(self):
        try:
            self.branch = locate_branch(self.client, self.project_id, self.wanted_branch)
            named = " %s" % self.id if self.id else ""
            self.label = "the %s compute%s of branch %s" % (self.type, named, branch_label(self.branch))
            return self._chosen()
        except Refusal as refusal:
            raise self.task.refused(refusal)

    def _chosen(self):
        """The compute the task means among the branch's computes as listed now, or None."""
        endpoints = branch_endpoints(self.client, self.project_id, self.branch["id"])
        return choose_endpoint(endpoints, self.type, self.id, branch_label(self.branch))

    def _find_again(self):
        current = self._chosen()
        return Found(current, ours=True) if current is not None else None

    # ------------------------------------------------------------------------------------------ absent

    def absent(self):
        return self.task.run(self._absent)

    def _absent(self):
        current = self._find()
        before = COMPUTE.shown(current)
        if current is None:
            return self.task.with_diff(self.task.result(endpoint=None), {}, {})
        if self.task.check_mode:
            self.task.changed = True
            return self.task.with_diff(self.task.result(endpoint=current), before, {})
        path = project_path(self.project_id, "endpoints", current["id"])
        data = self.task.change("DELETE", path, self.project_id, None, "Deleting %s (%s)" % (self.label, current["id"]))
        if data is not None:  # 204: gone meanwhile (an overlapping run deleted it)
            what = "%s (%s) was deleted" % (self.label, current["id"])
            self.task.did(what)
            self.task.started(data, "DELETE", path, self.project_id, what)
        return self.task.with_diff(self.task.result(endpoint=current), before, {})

    # ------------------------------------------------------------------------------------------ present

    def present(self, settings, state):
        return self.task.run(self._present, settings, state)

    def _present(self, settings, state):
        current = self._find()
        if current is None and self.id is not None:
            raise self.task.failure("Branch %s has no compute %s" % (branch_label(self.branch), self.id))
        plan = decide(COMPUTE, current, settings, name=None)
        if plan.action == REFUSE:
            raise self.task.failure(plan.reason)
        action = run_change(state, current)
        before, after = COMPUTE.shown(current), COMPUTE.shown(planned(current, plan))
        if current is not None:
            before["current_state"] = current.get("current_state")
        after["current_state"] = after_state(state, current)
        self.task.kept["endpoint"] = current
        if self.task.check_mode:
            self.task.changed = plan.changed or action is not None
            if self.task.changed:  # the compute as it would be; one not made yet has no id or host
                endpoint = dict(planned(current, plan), type=self.type, branch_id=self.branch["id"],
                                current_state=after["current_state"])
                endpoint.pop("pending_state", None)
                if current is None:
                    endpoint.update(id=None, host=None)
                self.task.kept["endpoint"] = endpoint
            return self.task.with_diff(self.task.result(), before, after)
        if plan.action == CREATE:
            current = self._create(plan)
        elif plan.action == UPDATE:
            current = self.task.update(COMPUTE, project_path(self.project_id, "endpoints", current["id"]),
                                       self.project_id, current, plan, "%s (%s)" % (self.label, current["id"]))
            self.task.kept["endpoint"] = current
        if plan.action != NOTHING:
            current = self._read_again(current)  # the run state the change left decides the action
        action = run_change(state, current)
        if action is not None:
            path = project_path(self.project_id, "endpoints", current["id"], action)
            what = "%s (%s) was %s" % (self.label, current["id"], {"start": "started", "suspend": "suspended",
                                                                   "restart": "restarted"}[action])
            data = self.task.change("POST", path, self.project_id, None, what)
            self.task.did(what)
            self.task.started(data, "POST", path, self.project_id, what)
            self._read_again(self.task.answered(COMPUTE, data, "POST", path, current["id"]))
        elif not self.task.changed and not compute_settled(current) and self.task.settle(
                self.project_id, "%s (%s) is not ready yet (current_state %s, pending_state %s)" % (
                    self.label, current["id"], current.get("current_state"), current.get("pending_state")),
                unsettled=True, branch_id=self.branch["id"], endpoint_id=current["id"]):
            self._read_again(current)  # what a timed-out or an overlapping run left starting or suspending
        return self.task.with_diff(self.task.result(), before, after)

    def _create(self, plan):
        path = project_path(self.project_id, "endpoints")
        body = {"endpoint": dict(plan.body, branch_id=self.branch["id"], type=self.type)}
        try:
            data, found = self.task.create(path, body, self.project_id, self.label, self._find_again)
        except TaskFailure as failure:
            data, found = None, self._made_meanwhile(failure)
            if found is None:
                raise
        if found is not None:
            self.task.kept["endpoint"] = found.item
            if found.ours:
                self.task.did("%s was created (id %s)" % (self.label, found.item["id"]))
            else:
                self.task.warnings.append("%s was created by another run at the same time (id %s); this run uses "
                                          "it." % (self.label[0].upper() + self.label[1:], found.item["id"]))
            self.task.wait_idle(self.project_id, "%s was created" % self.label)
            return found.item
        what = "%s was created" % self.label
        self.task.did(what)
        endpoint = self.task.answered(COMPUTE, data, "POST", path)
        self.task.kept["endpoint"] = endpoint
        self.task.started(data, "POST", path, self.project_id, "%s (id %s)" % (what, endpoint["id"]))
        return endpoint

    def _made_meanwhile(self, failure):
        """The read-write compute another run created meanwhile, when the service refused this run's
        create as a second one (its message for that is not documented, so any refusal of a
        read-write create is checked by looking again); None otherwise."""
        error = failure.cause
        if self.type != READ_WRITE or self.task.done or not isinstance(error, NeonAPIError) \
                or error.status not in REFUSED_AS_SECOND:
            return None
        try:
            found = self._find_again()
        except (NeonAPIError, Refusal):
            return None
        if found is not None:
            found.ours = False
        return found

    def _read_again(self, endpoint):
        """The compute as it is now, once the operations of a change have ended (its answer shows it
        while being made, ``init``); one GET, only after a change that was waited for."""
        if not self.task.wait:
            return endpoint
        path = project_path(self.project_id, "endpoints", endpoint["id"])
        endpoint = answers.item_of(self.client.request("GET", path), "GET", path, "endpoint", answers.ENDPOINT_FIELDS,
                                   item_id=endpoint["id"])
        self.task.kept["endpoint"] = endpoint
        return endpoint


def after_state(state, current):
    """The compute's ``current_state`` once the task has run (for the diff)."""
    if state == SUSPENDED:
        return IDLE
    if state in (STARTED, RESTARTED) or current is None:
        return ACTIVE
    return current.get("current_state")
