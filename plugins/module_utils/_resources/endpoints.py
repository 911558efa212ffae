# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A compute of a branch, the API's endpoint (``neon.cloud.endpoint``): what is its own beyond the walk of resource.py.

A compute is chosen by its id, or else by its type (choose_endpoint): a branch has at
most one read-write compute, so asking for one where one exists means that one, never a second.
Its own: whether it runs (``state``: ``started``, ``suspended``, ``restarted`` on every run), a second
read-write compute refused in words the service does not document (looked for again and used),
and reading it again after a change, since the answers show it being made (``init``).

Its description (``COMPUTE``, also a branch's compute and a project's default compute settings), the fields its
answers are checked for, and the service's rules about computes (which one a task means, which sizes it takes,
which action a run state asks) are here, pure, beside the reading of a branch's or a project's computes.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math

from ansible.module_utils.common.validation import check_type_dict, check_type_float, check_type_int
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import branch_label, branch_named
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import (
    REFUSE,
    UPDATE,
    Description,
    Field,
    Plan,
    planned,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import OptionError, Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.resource import Resource
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import Found

READ_WRITE = "read_write"
# States a compute stays in until something changes it (docs/docsite/rst/api-behaviour.rst): ``init`` while being made.
UNSETTLED_COMPUTE_STATES = ("init",)
# Compute sizes and suspend timeouts the service takes (docs/docsite/rst/api-behaviour.rst, "Computes").
MIN_CU = 0.25
SUSPEND_TIMEOUT_RANGE = (60, 604800)
SUSPEND_TIMEOUT_SPECIAL = (-1, 0)
STARTED = "started"
SUSPENDED = "suspended"
RESTARTED = "restarted"
ACTIVE = "active"
IDLE = "idle"
# state -> (the action's path segment, the compute state it leads to); restarted: always
RUN_STATES = {STARTED: ("start", ACTIVE), SUSPENDED: ("suspend", IDLE), RESTARTED: ("restart", None)}
# The settings a compute option (``branch``'s ``compute``) takes, and their types.
COMPUTE_OPTIONS = {"min_cu": (int, float), "max_cu": (int, float), "suspend_timeout_seconds": (int,)}
# What the collection reads of a compute (docs/docsite/rst/api-behaviour.rst): the fields a decision compares, the
# ids it follows and the host it connects to. A number the service gives as 0.25 or as 1 is either type.
_NUMBER = (int, float)
_TEXT_OR_NULL = (str, type(None))
ENDPOINT_FIELDS = dict(
    required={"id": (str,), "type": (str,)},
    optional={"branch_id": (str,), "host": (str,), "project_id": (str,), "autoscaling_limit_min_cu": _NUMBER,
              "autoscaling_limit_max_cu": _NUMBER, "suspend_timeout_seconds": (int,), "disabled": (bool,),
              "created_at": _TEXT_OR_NULL, "current_state": (str,), "pending_state": _TEXT_OR_NULL},
)
# The settings of a compute (an endpoint) a task may ask for; the same for a branch's compute and
# for a project's default compute settings (the project resource maps them there: projects.PROJECT).
COMPUTE = Description("compute", "endpoint", ENDPOINT_FIELDS, [
    Field("min_cu", "autoscaling_limit_min_cu"),
    Field("max_cu", "autoscaling_limit_max_cu"),
    Field("suspend_timeout_seconds"),
])

# How the service may refuse a second read-write compute on a branch (the status is not documented:
# docs/docsite/rst/api-behaviour.rst, "Computes").
REFUSED_AS_SECOND = (400, 409, 412, 422)
DONE = {"start": "started", "suspend": "suspended", "restart": "restarted"}


# ---------------------------------------------------------------------------------------------- rules


def read_write_endpoint(endpoints, branch_id=None):
    """The read-write compute of a branch (of any branch when ``branch_id`` is None), or None.

    The service promises no order in an endpoint list, so the compute is chosen by its type,
    never by its position. A branch has at most one; a listing with two is refused.
    """
    found = [endpoint for endpoint in endpoints
             if endpoint["type"] == READ_WRITE and (branch_id is None or endpoint.get("branch_id") == branch_id)]
    if len(found) > 1:
        raise Refusal("the service lists %d read-write computes (%s)%s, where a branch has one; cannot tell which to "
                      "use" % (len(found), ", ".join(endpoint["id"] for endpoint in found),
                               " on branch %s" % branch_id if branch_id else ""))
    return found[0] if found else None


def read_write_first(endpoints):
    """The endpoints with the read-write one first, the others in the order listed."""
    return sorted(endpoints, key=lambda endpoint: endpoint["type"] != READ_WRITE)


def compute_settled(endpoint):
    """Whether a compute (None: none) is as it will stay: not being made, no state change pending."""
    if endpoint is None:
        return True
    pending = endpoint.get("pending_state")
    return endpoint.get("current_state") not in UNSETTLED_COMPUTE_STATES and \
        (not pending or pending == endpoint.get("current_state"))


def compute_settings_problem(settings, prefix=""):
    """Why the service would refuse these compute settings (``min_cu``, ``max_cu``,
    ``suspend_timeout_seconds``; None values are left alone), or None. ``prefix`` names the
    option they came in (``compute.``)."""
    for option in ("min_cu", "max_cu"):
        value = settings.get(option)
        if value is not None and not math.isfinite(value):
            return "%s%s must be a finite number, got %s" % (prefix, option, value)
        if value is not None and value < MIN_CU:
            return "%s%s must be %s or more, got %s" % (prefix, option, MIN_CU, value)
    low, high = settings.get("min_cu"), settings.get("max_cu")
    if low is not None and high is not None and low > high:
        return "%smin_cu (%s) must not be more than %smax_cu (%s)" % (prefix, low, prefix, high)
    timeout = settings.get("suspend_timeout_seconds")
    if timeout is not None and timeout not in SUSPEND_TIMEOUT_SPECIAL and \
            not SUSPEND_TIMEOUT_RANGE[0] <= timeout <= SUSPEND_TIMEOUT_RANGE[1]:
        return "%ssuspend_timeout_seconds must be -1 (never), 0 (the service's default) or %d to %d, got %d" % (
            prefix, SUSPEND_TIMEOUT_RANGE[0], SUSPEND_TIMEOUT_RANGE[1], timeout)
    return None


def compute_body(compute):
    """The ``endpoints`` entry of a branch create for ``compute`` (true or a dict of settings)."""
    settings = compute if isinstance(compute, dict) else {}
    return dict(COMPUTE.body(settings, creating=True), type=READ_WRITE)


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


def after_state(state, current):
    """The compute's ``current_state`` once the task has run (for the diff)."""
    if state == SUSPENDED:
        return IDLE
    if state in (STARTED, RESTARTED) or current is None:
        return ACTIVE
    return current.get("current_state")


# ---------------------------------------------------------------------------------------------- the compute option


def compute_option(name, value):
    """The ``raw`` option ``name`` (``branch``'s ``compute``) that is true, false or a dict of compute settings,
    checked (an OptionError when it is neither). A string that is no boolean (as ``-a 'compute="min_cu=0.25
    max_cu=1"'`` gives) is read as Ansible reads a dict option's string: ``k=v k2=v2``, ``k=v, k2=v2`` or a JSON
    object; a setting given as a string is read as a number."""
    if isinstance(value, str):
        flag = _as_boolean(value)
        if flag is not None:
            return flag
        problem = None
        try:
            value = check_type_dict(value)
        except TypeError as exc:
            problem = "%s must be true, false or a dict of min_cu, max_cu and suspend_timeout_seconds (in -a: " \
                      "key=value pairs such as %s=\"min_cu=0.25 max_cu=1\", or a JSON object), got %r: %s" % (
                          name, name, value, exc)
        if problem:
            raise OptionError(problem)
    if isinstance(value, dict):
        unknown = sorted(set(value) - set(COMPUTE_OPTIONS))
        if unknown:
            raise OptionError("%s takes min_cu, max_cu and suspend_timeout_seconds, not %s" % (name, ", ".join(unknown)))
        value = dict(value)
        for option, types in COMPUTE_OPTIONS.items():
            if isinstance(value.get(option), str):
                try:
                    value[option] = (check_type_float if float in types else check_type_int)(value[option])
                except TypeError:
                    pass  # refused below, with the value as given
            if value.get(option) is not None and (type(value[option]) not in types):
                raise OptionError("%s.%s must be a number, got %r" % (name, option, value[option]))
        return value
    flag = _as_boolean(value)
    if flag is None:
        raise OptionError("%s must be true, false or a dict of min_cu, max_cu and suspend_timeout_seconds" % name)
    return flag


def _as_boolean(value):
    """``value`` as Ansible reads a boolean (``yes``, ``off``, 1...), or None when it is none."""
    try:
        return boolean(value, strict=True)
    except TypeError:
        return None


# ---------------------------------------------------------------------------------------------- reading


def branch_endpoints(client, project_id, branch_id):
    path = project_path(project_id, "branches", branch_id, "endpoints")
    return answers.items_of(client.get(path), "GET", path, "endpoints", ENDPOINT_FIELDS)


def project_endpoints(client, project_id):
    path = project_path(project_id, "endpoints")
    return answers.items_of(client.get(path), "GET", path, "endpoints", ENDPOINT_FIELDS)


# ---------------------------------------------------------------------------------------------- a compute


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
    path_options = ("project_id", "branch", "id")

    def __init__(self, task, project_id, branch, endpoint_type, endpoint_id, state="present"):
        super(Endpoint, self).__init__(task, project_id)
        self.wanted_branch = branch
        self.type = endpoint_type
        self.id = endpoint_id
        self.state = state
        self.branch = None
        self.label = "the %s compute" % endpoint_type

    @classmethod
    def run(cls, task, options):
        settings = dict((option, options[option]) for option in ("min_cu", "max_cu", "suspend_timeout_seconds"))
        compute = cls(task, options["project_id"], options["branch"], options["type"], options["id"], options["state"])
        if options["state"] == "absent":
            return compute.absent()
        return compute.present(settings)

    def find(self):
        """The branch (listed once per task), then the compute among its computes as they are now."""
        if self.branch is None:
            self.branch = branch_named(self.task, self.project_id, self.wanted_branch)
            named = " %s" % self.id if self.id else ""
            self.label = "the %s compute%s of branch %s" % (self.type, named, branch_label(self.branch))
        # A branch an earlier task would make (check mode: refusal.Missing) has no compute to read yet.
        endpoints = branch_endpoints(self.client, self.project_id, self.branch["id"]) if self.branch["id"] else []
        return choose_endpoint(endpoints, self.type, self.id, branch_label(self.branch))

    def collection_path(self):
        return project_path(self.project_id, "endpoints")

    def decide(self, current, options):
        """The compute's plan, with whether its run state asks an action (``also_changes``), or the refusal of a
        size the service would refuse once the asked settings meet the compute's others."""
        if current is None and self.id is not None:
            raise Refusal("Branch %s has no compute %s" % (branch_label(self.branch), self.id))
        plan = super(Endpoint, self).decide(current, options)
        if plan.action == REFUSE:
            return plan
        problem = compute_settings_problem(COMPUTE.shown(planned(current, plan))) if plan.action == UPDATE else None
        if problem:
            return Plan(REFUSE, "%s (%s) cannot be changed as asked: with its other settings, %s" % (
                self.label, current["id"], problem))
        plan.also_changes = run_change(self.state, current) is not None
        return plan

    def create_request(self, plan):
        return self.collection_path(), {"endpoint": dict(plan.body, branch_id=self.branch["id"], type=self.type)}

    def input_problem(self, options):
        return compute_settings_problem(options)

    def answered_instead(self, outcome):
        if isinstance(outcome, Found):
            return super(Endpoint, self).answered_instead(outcome)
        return made_meanwhile(self.task, self.type, outcome, self._found_again)

    # ------------------------------------------------------------------------------------------ the diff and check mode

    def shown(self, current, plan=None):
        if current is None:
            return {}
        return dict(COMPUTE.shown(current), current_state=current.get("current_state"))

    def preview(self, current, plan):
        """The diff, with the run state the task leaves it in (``current_state``); check mode's result: the compute as
        it would be, one not made yet with no id or host."""
        before, after = super(Endpoint, self).preview(current, plan)[:2]
        after["current_state"] = after_state(self.state, current)
        return before, after, {"endpoint": self._predicted(current, plan)}

    def _predicted(self, current, plan):
        if not plan.changed and not plan.also_changes:
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
            current = self._read_again(current)
        action = run_change(self.state, current)
        if action is None:
            return current
        path = project_path(self.project_id, "endpoints", current["id"], action)
        what = "%s (%s) was %s" % (self.label, current["id"], DONE[action])
        data = self.task.change("POST", path, self.project_id, None, what)
        self.task.did(what)
        self.task.wait_for_operations_of(data, "POST", path, self.project_id, what)
        return self._read_again(self.task.answered(COMPUTE, data, "POST", path, current["id"]))

    def settle(self, current, plan):
        """When its state says it is still being made or changed (by another run, or one that timed out), wait for
        that and read it again (act read it again after each change of this run)."""
        if compute_settled(current):
            return current
        not_ready = "%s (%s) is not ready yet (current_state %s, pending_state %s)" % (
            self.label, current["id"], current.get("current_state"), current.get("pending_state"))
        if self.task.settle(self.project_id, not_ready, unsettled=True, branch_id=self.branch["id"],
                            endpoint_id=current["id"]):
            current = self._read_again(current)
        return current

    def _read_again(self, current):
        """The compute as it is now, once the operations of a change have ended: one GET, only when waited."""
        if not self.task.wait:
            return current
        path = project_path(self.project_id, "endpoints", current["id"])
        current = answers.item_of(self.client.request("GET", path), "GET", path, "endpoint", ENDPOINT_FIELDS,
                                  item_id=current["id"])
        self.keep(current)
        return current
