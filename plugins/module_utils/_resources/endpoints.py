# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A compute of a branch, the API's endpoint (``neon.cloud.endpoint``): what is its own beyond the walk of resource.py.

A compute is chosen by its id, or else by its type (descriptions.choose_endpoint): a branch has at
most one read-write compute, so asking for one where one exists means that one, never a second.
Its own: whether it runs (``state``: ``started``, ``suspended``, ``restarted`` on every run), a second
read-write compute refused in words the service does not document (looked for again and used),
and reading it again after a change, since the answers show it being made (``init``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError
from ansible_collections.neon.cloud.plugins.module_utils._resources.descriptions import (
    COMPUTE,
    READ_WRITE,
    after_state,
    branch_label,
    choose_endpoint,
    compute_settings_problem,
    compute_settled,
    run_change,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import branch_endpoints
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import UPDATE, planned
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.resource import Resource

# How the service may refuse a second read-write compute on a branch (the status is not documented:
# docs/docsite/rst/api-behaviour.rst, "Computes").
REFUSED_AS_SECOND = (400, 409, 412, 422)
DONE = {"start": "started", "suspend": "suspended", "restart": "restarted"}


def made_meanwhile(task, endpoint_type, failure, look_again):
    """The read-write compute another run created meanwhile (a Found, not ours), when the service refused
    this run's create of one as a second (its words for that are not documented, so any refusal of a
    read-write create is checked by looking again); None otherwise. ``look_again()``: a Found or None."""
    error = failure.cause
    if endpoint_type != READ_WRITE or task.done or not isinstance(error, NeonAPIError) \
            or error.status not in REFUSED_AS_SECOND:
        return None
    try:
        found = look_again()
    except (NeonAPIError, Refusal):
        return None
    if found is not None:
        found.ours = False
    return found


class Endpoint(Resource):
    """The compute of ``branch`` (its default branch when None) of type ``endpoint_type`` or with id ``endpoint_id``."""

    description = COMPUTE

    def __init__(self, task, project_id, branch, endpoint_type, endpoint_id, state="present"):
        super(Endpoint, self).__init__(task, project_id)
        self.wanted_branch = branch
        self.type = endpoint_type
        self.id = endpoint_id
        self.state = state
        self.branch = None
        self.label = "the %s compute" % endpoint_type

    def find(self):
        """The branch (listed once per task), then the compute among its computes as they are now."""
        if self.branch is None:
            self.branch = self.branch_named(self.wanted_branch)
            named = " %s" % self.id if self.id else ""
            self.label = "the %s compute%s of branch %s" % (self.type, named, branch_label(self.branch))
        # A branch an earlier task would make (check mode: refusal.Missing) has no compute to read yet.
        endpoints = branch_endpoints(self.client, self.project_id, self.branch["id"]) if self.branch["id"] else []
        return choose_endpoint(endpoints, self.type, self.id, branch_label(self.branch))

    def collection_path(self):
        return project_path(self.project_id, "endpoints")

    def decide(self, current, options):
        if current is None and self.id is not None:
            raise Refusal("Branch %s has no compute %s" % (branch_label(self.branch), self.id))
        return super(Endpoint, self).decide(current, options)

    def create_body(self, plan):
        return {"endpoint": dict(plan.body, branch_id=self.branch["id"], type=self.type)}

    def input_problem(self, options):
        return compute_settings_problem(options)

    def problem(self, plan, current):
        """A size the service would refuse once the asked settings meet the compute's others."""
        problem = compute_settings_problem(COMPUTE.shown(planned(current, plan))) if plan.action == UPDATE else None
        if problem:
            return "%s (%s) cannot be changed as asked: with its other settings, %s" % (
                self.label, current["id"], problem)
        return None

    def create_refused(self, failure):
        return made_meanwhile(self.task, self.type, failure, self._found_again)

    # ------------------------------------------------------------------------------------------ diff and check mode

    def shown(self, current):
        if current is None:
            return {}
        return dict(COMPUTE.shown(current), current_state=current.get("current_state"))

    def diff(self, current, plan):
        before, after = super(Endpoint, self).diff(current, plan)
        after["current_state"] = after_state(self.state, current)
        return before, after

    def pending(self, current, plan):
        return run_change(self.state, current) is not None

    def predicted(self, current, plan):
        """The compute as it would be; one not made yet has no id or host."""
        if not plan.changed and not self.pending(current, plan):
            return current
        endpoint = dict(planned(current, plan), type=self.type, branch_id=self.branch["id"],
                        current_state=after_state(self.state, current))
        endpoint.pop("pending_state", None)
        if current is None:
            endpoint.update(id=None, host=None)
        return endpoint

    # ------------------------------------------------------------------------------------------ its own changes

    def act(self, current, plan):
        """Start, suspend or restart it, as the run state a change left decides."""
        if plan.changed:
            current = self.read_again(current)
        action = run_change(self.state, current)
        if action is None:
            return current
        path = project_path(self.project_id, "endpoints", current["id"], action)
        what = "%s (%s) was %s" % (self.label, current["id"], DONE[action])
        data = self.task.change("POST", path, self.project_id, None, what)
        self.task.did(what)
        self.task.wait_for_operations_of(data, "POST", path, self.project_id, what)
        return self.read_again(self.task.answered(COMPUTE, data, "POST", path, current["id"]))

    def after_change(self, current):
        return current  # act read it again after each change

    def not_ready(self, current):
        if compute_settled(current):
            return None
        return "%s (%s) is not ready yet (current_state %s, pending_state %s)" % (
            self.label, current["id"], current.get("current_state"), current.get("pending_state"))

    def settle_scope(self, current):
        return self.branch["id"], current["id"]

    def read_again(self, current):
        """The compute as it is now, once the operations of a change have ended: one GET, only when waited."""
        if not self.task.wait:
            return current
        path = project_path(self.project_id, "endpoints", current["id"])
        current = answers.item_of(self.client.request("GET", path), "GET", path, "endpoint", answers.ENDPOINT_FIELDS,
                                  item_id=current["id"])
        self.keep(current)
        return current
