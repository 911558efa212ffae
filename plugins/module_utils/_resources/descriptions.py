# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every resource that tasks change, described once as data, with the service's rules about it. Pure.

Each resource's Description (the fields a task may ask for, how they map to the API's, which can
only be set at creation) and the rules the service holds it to (which branch is the default, when
a branch or a compute is settled, which compute a task means, which expiry or compute size the
service would refuse) are here, so that they are read in one place and unit-tested without HTTP.
The facts are in docs/docsite/rst/api-behaviour.rst; finding.py reads objects, the resource
classes (projects.py, branches.py, endpoints.py, roles_databases.py) carry the plans out.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.points import point_problem, same_lsn, timestamp_problem
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import Description, Field, same_time
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal, only_one
from ansible_collections.neon.cloud.plugins.module_utils._resources.project_settings import SETTINGS_FIELDS

READ_WRITE = "read_write"
# States an object stays in until something changes it (docs/docsite/rst/api-behaviour.rst): a branch
# is ``init`` while being made and ``resetting`` while restored; a compute ``init`` while being made.
SETTLED_BRANCH_STATES = ("ready", "archived")
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
# Names the service keeps for itself (docs/docsite/rst/api-behaviour.rst).
RESERVED_DATABASES = ("postgres", "template0", "template1")
ROLE_NAME_MAX_BYTES = 63
DATABASE_NAME_MAX_BYTES = 63

PROJECT = Description("project", "project", answers.FULL_PROJECT_FIELDS, [
    Field("name"),
    Field("region_id", create_only=True),
    Field("pg_version", create_only=True),
    Field("org_id", create_only=True),
    Field("history_retention_seconds"),
    Field("compute.min_cu", "default_endpoint_settings.autoscaling_limit_min_cu"),
    Field("compute.max_cu", "default_endpoint_settings.autoscaling_limit_max_cu"),
    Field("compute.suspend_timeout_seconds", "default_endpoint_settings.suspend_timeout_seconds"),
    # What creation provisions: sent only then (they can be renamed later, as any branch, role or database).
    Field("default_branch", "branch.name", compare=False),
    Field("database", "branch.database_name", compare=False),
    Field("role", "branch.role_name", compare=False),
    # settings, compute.pg_settings and store_passwords: their rules are project_settings.py's.
] + SETTINGS_FIELDS)
# How a branch was made (SPEC Branch, BranchCreateRequest): with its parent's data, or a root branch with
# only its parent's schema (docs/docsite/rst/api-behaviour.rst, "Restore, default branch and schema").
PARENT_DATA = "parent-data"
SCHEMA_ONLY = "schema-only"
INIT_SOURCES = (PARENT_DATA, SCHEMA_ONLY)
# The options that say where a branch's data (or, schema-only, its schema) came from.
SOURCE_OPTIONS = ("parent", "parent_timestamp", "parent_lsn")


def same_init_source(before, after):
    """How a branch was made, compared: a branch whose answer does not say (no ``init_source``) is taken as
    asked, so that a branch the service describes without it is never refused for it."""
    return before is None or before == after


# A branch answer as the branch rules read it: answers.BRANCH_FIELDS, and how it was made and last reset.
BRANCH_ANSWER_FIELDS = dict(required=answers.BRANCH_FIELDS["required"],
                            optional=dict(answers.BRANCH_FIELDS["optional"], init_source=(str, type(None)),
                                          last_reset_at=(str, type(None))))
BRANCH = Description("branch", "branch", BRANCH_ANSWER_FIELDS, [
    Field("name"),
    Field("parent", "parent_id", create_only=True),
    Field("parent_timestamp", create_only=True, same=same_time),
    Field("parent_lsn", create_only=True, same=same_lsn),
    Field("init_source", create_only=True, same=same_init_source),
    Field("protected"),
    Field("expires_at", empty_is_null=True, same=same_time),
], plural="branches")
# The settings of a compute (an endpoint) a task may ask for; the same for a branch's compute and
# for a project's default compute settings (the project resource maps them there: PROJECT above).
COMPUTE = Description("compute", "endpoint", answers.ENDPOINT_FIELDS, [
    Field("min_cu", "autoscaling_limit_min_cu"),
    Field("max_cu", "autoscaling_limit_max_cu"),
    Field("suspend_timeout_seconds"),
])
ROLE = Description("role", "role", answers.ROLE_FIELDS, [Field("name", create_only=True)])
DATABASE = Description("database", "database", answers.DATABASE_FIELDS, [
    Field("name", create_only=True),
    Field("owner", "owner_name"),
])


# ---------------------------------------------------------------------------------------------- branches


def find_branch(branches, wanted):
    """The branch whose id is ``wanted``, else the one named ``wanted``; None when neither exists.

    An id is looked for first: ids are unique and start with ``br-``; names are unique within a
    project too (docs/docsite/rst/api-behaviour.rst), but a listing that shows two is refused.
    """
    by_id = [branch for branch in branches if branch["id"] == wanted]
    if by_id:
        return by_id[0]
    return only_one([branch for branch in branches if branch["name"] == wanted], "branches", wanted)


def default_branch(branches):
    """The project's default branch (``default``, or the deprecated ``primary`` of older answers)."""
    marked = [branch for branch in branches if branch.get("default") is True]
    if not marked:
        marked = [branch for branch in branches if branch.get("primary") is True]
    if len(marked) > 1:
        raise Refusal("the service lists %d default branches (%s); cannot tell which one is meant" % (
            len(marked), ", ".join(branch["id"] for branch in marked)))
    return marked[0] if marked else None


def children_of(branches, branch_id):
    return [branch for branch in branches if branch.get("parent_id") == branch_id]


def branch_label(branch):
    """A branch's name and id; one not made yet (check mode's stand-in: finding.branch_stand_in) has no id."""
    return "%r (%s)" % (branch["name"], branch["id"] or "not made yet")


def is_default(branch):
    """Whether ``branch`` (None: not made yet) is the project's default branch (``default``, or ``primary``)."""
    return branch is not None and bool(branch.get("default") or branch.get("primary"))


def default_change(current, wanted):
    """Whether ``default: wanted`` makes the branch ``current`` (None: not created yet) the project's default
    branch: True when asked and it is not the default yet (the service's ``set_as_default``, which takes the mark
    from the previous default). ``wanted`` None or already so: False. A branch stops being the default only when
    another becomes it, so ``default: false`` asked of the default branch is a Refusal (nothing is sent)."""
    if wanted is None:
        return False
    if wanted:
        return not is_default(current)
    if is_default(current):
        raise Refusal("branch %r (%s) is the project's default branch, and a branch stops being the default only "
                      "when another branch becomes it: set default: true on the branch that is to be the default "
                      "instead" % (current["name"], current["id"]))
    return False


def schema_only(branch, asked=None):
    """Whether ``branch`` was made schema-only (``init_source``): a root branch, whose ``parent``,
    ``parent_timestamp`` and ``parent_lsn`` only chose where its schema came from, with no link kept, so they
    cannot be compared with it. A branch whose answer does not say is taken as ``asked`` when it has no parent."""
    made = branch.get("init_source")
    if made is not None:
        return made == SCHEMA_ONLY
    return asked == SCHEMA_ONLY and not branch.get("parent_id")


def branch_input_problem(options):
    """Why a branch's points in time given as options cannot be sent, or None (checked before any request): where
    it starts (``parent_timestamp`` or ``parent_lsn``: _api/points.py) and when it expires (``expires_at``, an RFC
    3339 timestamp; ``""`` removes the expiry)."""
    return point_problem("parent_timestamp", options.get("parent_timestamp"), "parent_lsn", options.get("parent_lsn")) \
        or (timestamp_problem("expires_at", options["expires_at"]) if options.get("expires_at") else None)


def without_source(options):
    """``options`` without where the branch came from (SOURCE_OPTIONS): for a schema-only branch."""
    return dict((option, value) for option, value in options.items() if option not in SOURCE_OPTIONS)


def branch_settled(branch):
    """Whether a branch is as it will stay: not being made or reset, nothing pending."""
    return branch.get("current_state") in SETTLED_BRANCH_STATES and not branch.get("pending_state")


def branch_problem(after, current, branches):
    """Why the service would refuse a branch to be as ``after`` (the branch as planned), or None.

    The service's rules on expiry (docs/docsite/rst/api-behaviour.rst, "Branches"): a protected
    branch, the default branch and a branch with children cannot have an ``expires_at``.
    ``current``: the branch as it is (None when creating); ``branches``: the project's branches.
    ``after["default"]`` is true when the task makes it the default branch.
    """
    if not after.get("expires_at"):
        return None
    if after.get("protected"):
        return "a protected branch cannot have an expiry (expires_at); leave protected out or false, or remove " \
               "the expiry with expires_at: ''"
    if is_default(current):
        return "it is the project's default branch, which cannot have an expiry (expires_at)"
    if is_default(after):
        return "the project's default branch (default: true) cannot have an expiry (expires_at); remove the " \
               "expiry with expires_at: ''"
    if current is not None:
        children = children_of(branches, current["id"])
        if children:
            return "it is the parent of %s, and a branch with children cannot have an expiry (expires_at)" % \
                ", ".join("%r (%s)" % (child["name"], child["id"]) for child in children)
    return None


def parent_problem(parent):
    """Why a branch cannot be made from ``parent``, or None: an expiring branch cannot be a parent."""
    if parent is not None and parent.get("expires_at"):
        return "its parent %r (%s) expires (expires_at %s), and an expiring branch cannot be a parent" % (
            parent.get("name"), parent["id"], parent["expires_at"])
    return None


# ---------------------------------------------------------------------------------------------- computes


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


# ---------------------------------------------------------------------------------------------- roles and databases


def without_password(role):
    """A role as the modules return it in ``role``: never with its password (that is ``password``)."""
    return dict((key, value) for key, value in role.items() if key != "password") if role is not None else None


def owned_by(databases, role_name):
    return sorted(database["name"] for database in databases if database.get("owner_name") == role_name)
