# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A branch (``neon.cloud.branch``): what is its own beyond the walk of resource.py.

Found by its name within its project (names are unique there) from one listing of the project's
branches, which also resolves a parent given by name and tells the default branch and children.
Its own: a read-write compute, made with it or added later and sized as asked; a reset from its
parent; becoming the project's default branch (``set_as_default``); a schema-only branch, whose
parent options are not compared once it exists (the service keeps no link); the expiry rules the
service holds it to; read again once its operations have ended, since the answers to its changes
show it being made (``init``, ``resetting``).

Its description (``BRANCH``), the fields its answers are checked for, and the service's rules about branches
(expiry, the default branch, a schema-only branch, when it is settled) are here, pure; which branch a name, an id or
"the default" means is finding.py's, since every resource of a project looks its branch up there.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import TaskFailure
from ansible_collections.neon.cloud.plugins.module_utils._api.points import (
    options_as_sent,
    point_problem,
    same_lsn,
    timestamp_problem,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.endpoints import (
    COMPUTE,
    ENDPOINT_FIELDS,
    READ_WRITE,
    branch_endpoints,
    compute_body,
    compute_option,
    compute_settings_problem,
    compute_settled,
    made_meanwhile,
    project_endpoints,
    read_write_endpoint,
    read_write_first,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import (
    BRANCH_FIELDS,
    branch_label,
    choose_branch,
    default_branch,
    list_branches,
    project_to_be_made,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import (
    CREATE,
    NOTHING,
    REFUSE,
    UPDATE,
    Description,
    Field,
    Plan,
    decide,
    planned,
    same_time,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Missing, Refusal, only_one
from ansible_collections.neon.cloud.plugins.module_utils._resources.resource import Resource, sentence
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import Found

# States a branch stays in until something changes it (docs/docsite/rst/api-behaviour.rst): it is ``init``
# while being made and ``resetting`` while restored.
SETTLED_BRANCH_STATES = ("ready", "archived")
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


# A branch answer as the branch rules read it: finding.BRANCH_FIELDS, and how it was made and last reset.
BRANCH_ANSWER_FIELDS = dict(required=BRANCH_FIELDS["required"],
                            optional=dict(BRANCH_FIELDS["optional"], init_source=(str, type(None)),
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
# The module's options that are the branch's own fields (its plan's options).
PLAN_OPTIONS = ("name", "parent", "parent_timestamp", "parent_lsn", "init_source", "protected", "expires_at")
# The API field of each option that says where a branch came from (SOURCE_OPTIONS).
BRANCH_API_FIELD = dict((field.option, field.api) for field in BRANCH.fields)


# ---------------------------------------------------------------------------------------------- rules


def children_of(branches, branch_id):
    return [branch for branch in branches if branch.get("parent_id") == branch_id]


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


def with_endpoint(endpoints, endpoint):
    """A branch's computes (``endpoints``, None: none read) with ``endpoint`` first, in place of the one of its id."""
    return [endpoint] + [item for item in endpoints or [] if item["id"] != endpoint["id"]]


# ---------------------------------------------------------------------------------------------- reading (branch_info)


def with_endpoints(branch, endpoints):
    """A branch as the modules return it: the service's object plus its computes, read-write first."""
    return dict(branch, endpoints=read_write_first([item for item in endpoints if item.get("branch_id") == branch["id"]]))


def branches_with_endpoints(client, project_id, name=None):
    """The project's branches (only the one named ``name`` when given), each with its computes: two requests."""
    branches = list_branches(client, project_id, search=name)
    if name is not None:
        branches = [branch for branch in branches if branch["name"] == name]
        if not branches:
            return []
    endpoints = project_endpoints(client, project_id)
    return [with_endpoints(branch, endpoints) for branch in branches]


# ---------------------------------------------------------------------------------------------- a branch


NO_COMPUTE = Plan(NOTHING, "no compute asked")


class BranchPlan(Plan):
    """What a task does to a branch: the branch's own plan (create, update these fields, nothing: ``plan``), and
    beyond it ``compute`` (the plan for its read-write compute: create, resize, nothing), ``reset`` (from its
    parent) and ``make_default`` (becoming the project's default branch: default_change)."""

    def __init__(self, plan, compute=NO_COMPUTE, reset=False, make_default=False):
        super(BranchPlan, self).__init__(plan.action, plan.reason, plan.body, plan.changes)
        self.compute = compute
        self.reset = reset
        self.make_default = make_default

    @property
    def also_changes(self):
        return self.compute.changed or self.reset or self.make_default


class Branch(Resource):
    """The branch ``name`` of ``project_id``; ``compute``: True, False or a dict of compute settings;
    ``default``: True to make it the project's default branch, False that it is not (refused on the default
    branch: default_change), None to leave it."""

    description = BRANCH
    path_options = ("project_id", "name")

    def __init__(self, task, project_id, name, compute=False, reset_from_parent=False, default=None):
        super(Branch, self).__init__(task, project_id)
        self.name = name
        self.label = "branch %r" % name
        self.compute = compute
        self.reset = reset_from_parent
        self.default = default
        self.branches = []  # the project's branches, as the last find listed them
        self.endpoints = None  # the branch's computes (present only: absent reads none)
        self.endpoint = None  # its read-write compute

    # ------------------------------------------------------------------------------------------ its module's options

    @classmethod
    def options_problem(cls, options):
        if not 1 <= len(options["name"]) <= 256:
            return "name must be 1 to 256 characters long, got %d" % len(options["name"])
        return None

    @classmethod
    def run(cls, task, options):
        if options["state"] == "absent":
            return cls(task, options["project_id"], options["name"]).absent()
        branch = cls(task, options["project_id"], options["name"], compute=compute_option("compute", options["compute"]),
                     reset_from_parent=options["reset_from_parent"], default=options["default"])
        # Its points in time in the form the collection sends them (_api/points.py: UTC ending in Z, an LSN as
        # PostgreSQL writes it).
        return branch.present(options_as_sent(dict((option, options[option]) for option in PLAN_OPTIONS),
                                              ("parent_timestamp", "expires_at"), ("parent_lsn",)))

    # ------------------------------------------------------------------------------------------ finding and deciding

    def find(self):
        # A project an earlier task of the play would make (check mode: refusal.Missing) has no branches yet.
        to_be_made = project_to_be_made(self.project_id, self.task)
        self.branches = [] if to_be_made else list_branches(self.client, self.project_id)
        named = [branch for branch in self.branches if branch["name"] == self.name]
        return only_one(named, "branches", self.name, " in project %s" % self.project_id)

    def collection_path(self):
        return project_path(self.project_id, "branches")

    def input_problem(self, options):
        problem = branch_input_problem(options)
        if problem is None and isinstance(self.compute, dict):
            problem = compute_settings_problem(self.compute, "compute.")
        return problem

    def decide(self, current, options):
        """The branch's plan (a BranchPlan), with its compute's (from the branch's computes: one more request), or
        the refusal of what the service would refuse (an expiry it does not take, an expiring parent, a size)."""
        wanted, parent = dict(options), None
        if current is not None:
            answers.Checker("GET", self.collection_path()).fields(current, "branches[%s]" % current["id"],
                                                                  **BRANCH_ANSWER_FIELDS)
            if schema_only(current, options.get("init_source")):
                wanted = without_source(wanted)  # they chose where its schema came from: no link is kept
        if wanted.get("parent") is not None:
            try:
                parent = choose_branch(self.branches, wanted["parent"], self.project_id, "parent")
            except Missing as missing:
                if current is not None:
                    raise  # a branch that exists was not made from a branch made after it
                parent = self.task.assume(missing)  # check mode: made by an earlier task (refusal.Missing)
            wanted["parent"] = parent["id"]
        plan = BranchPlan(decide(BRANCH, current, wanted, name=self.name),
                          make_default=default_change(current, self.default))
        if self.default:
            previous = default_branch(self.branches)
            self.task.kept["previous_default"] = dict(id=previous["id"], name=previous["name"]) if previous else None
        self.endpoints, self.endpoint = [], None  # none read yet: kept once read, or answered by the create
        if current is not None:
            if self.reset and not current.get("parent_id"):
                raise Refusal("branch %r (%s) has no parent, so it cannot be reset from one" % (
                    self.name, current["id"]))
            plan.reset = bool(self.reset)
            self._read_computes(current["id"])
            if self.compute is not False and self.compute is not None:
                settings = self.compute if isinstance(self.compute, dict) else {}
                plan.compute = decide(COMPUTE, self.endpoint, settings, name=None)
        if plan.action == REFUSE:
            return plan
        problem = self._problem(current, plan, parent)
        return Plan(REFUSE, problem) if problem else plan

    def _problem(self, current, plan, parent):
        """What the service would refuse of ``plan`` beyond the description: a compute size, an expiry, a parent."""
        if plan.compute.action == UPDATE:
            problem = compute_settings_problem(COMPUTE.shown(planned(self.endpoint, plan.compute)), "compute.")
            if problem:
                return "the compute %s of %s (%s) cannot be changed as asked: with its other settings, %s" % (
                    self.endpoint["id"], self.label, current["id"], problem)
        if plan.action not in (CREATE, UPDATE) and not plan.make_default:
            return None
        problem = parent_problem(parent) if current is None else None
        problem = problem or branch_problem(self._after(current, plan), current, self.branches)
        if problem:
            return "%s %s: %s" % (self.label, "cannot be created" if current is None else
                                  "(%s) cannot be changed as asked" % current["id"], problem)
        return None

    def cannot_delete(self, current):
        children = children_of(self.branches, current["id"])
        if current.get("default") or current.get("primary"):
            return "it is the project's default branch"
        if current.get("protected"):
            return "it is protected; set protected=false first"
        if children:
            return "it is the parent of %s; delete those first" % ", ".join(
                "%r (%s)" % (child["name"], child["id"]) for child in children)
        return None

    # ------------------------------------------------------------------------------------------ results and diff

    def shown(self, current, plan=None):
        return self._shown(current, self.endpoint)

    def _shown(self, branch, endpoint):
        if branch is None:
            return {}
        shown = BRANCH.shown(branch)
        shown["compute"] = COMPUTE.shown(endpoint) if endpoint is not None else None
        if self.default is not None:
            shown["default"] = is_default(branch)
        return shown

    def _after(self, current, plan):
        """The branch as the plan and its default leave it: a new schema-only branch has no parent."""
        after = planned(current, plan)
        if current is None and plan.body.get("init_source") == SCHEMA_ONLY:
            for field in SOURCE_OPTIONS:
                after.pop(BRANCH_API_FIELD[field], None)
        if plan.make_default:
            after["default"] = True
        return after

    def preview(self, current, plan):
        """The diff: the branch and its compute's settings, before and after (a reset says where its data will come
        from). Check mode's result: the branch and its computes as they would be, with what only the service gives a
        new branch or compute (ids, the host) null."""
        after = self._after(current, plan)
        if current is None:
            endpoints = [dict(compute_body(self.compute), id=None, host=None)] if self.compute else []
            return {}, self._shown(after, compute_body(self.compute) if self.compute else None), \
                {"branch": dict(after, id=None), "endpoints": read_write_first(endpoints)}
        endpoint_after = planned(self.endpoint, plan.compute) \
            if plan.compute.action != NOTHING or self.endpoint is not None else None
        before, shown_after = self._shown(current, self.endpoint), self._shown(after, endpoint_after)
        if plan.reset:
            # A reset takes the parent's data, roles and databases as they are now (its own are replaced).
            before["data"] = "its own (last reset: %s)" % (current.get("last_reset_at") or "never")
            shown_after["data"] = "its parent %s's latest: its data, roles and databases" % current["parent_id"]
        endpoints = self.endpoints
        if plan.compute.changed:
            made = {} if self.endpoint is not None else {"id": None, "host": None}
            endpoints = with_endpoint(endpoints, dict(planned(self.endpoint, plan.compute), type=READ_WRITE,
                                                      branch_id=current["id"], **made))
        return before, shown_after, {"branch": after, "endpoints": read_write_first(endpoints)}

    # ------------------------------------------------------------------------------------------ its own changes

    def create_request(self, plan):
        """The branch, with its read-write compute when one is asked: made together."""
        body = {"branch": plan.body}
        if self.compute:
            body["endpoints"] = [compute_body(self.compute)]
        return self.collection_path(), body

    def created(self, data, path):
        self.task.keep_created_uri(data)  # shown only in this answer, so kept before anything in it is checked
        branch = answers.item_of(data, "POST", path, "branch", BRANCH_FIELDS)
        self._computes_are(answers.items_of(data, "POST", path, "endpoints", ENDPOINT_FIELDS)
                           if data.get("endpoints") is not None else [])
        return branch

    def answered_instead(self, outcome):
        found = super(Branch, self).answered_instead(outcome)
        if found is not None and found.ours and not self.task.wait:
            self._read_computes(found.item["id"])  # the answer with its computes was lost, and settle reads none
        return found

    def act(self, current, plan):
        """Its compute (created when asked and missing, or resized), then the reset, then becoming the default."""
        if plan.compute.action == CREATE:
            self._add_compute(current, plan.compute)
        elif plan.compute.action == UPDATE:
            self._replace_endpoint(self.task.update(
                COMPUTE, project_path(self.project_id, "endpoints", self.endpoint["id"]), self.project_id,
                self.endpoint, plan.compute, "the compute %s of %s" % (self.endpoint["id"], self.label)))
        if plan.reset:
            path = project_path(self.project_id, "branches", current["id"], "restore")
            label = "%s (%s) from its parent %s" % (self.label, current["id"], current["parent_id"])
            data = self.task.change("POST", path, self.project_id, {"source_branch_id": current["parent_id"]},
                                    "Resetting " + label)
            self.task.did("reset " + label)
            self.task.wait_for_operations_of(data, "POST", path, self.project_id, "reset " + label)
            current = self.task.answered(BRANCH, data, "POST", path, current["id"])
            self.keep(current)
        if plan.make_default:
            current = self._make_default(current)
        return current

    def _make_default(self, current):
        """POST set_as_default: the service takes the mark from the previous default branch; waited for."""
        path = project_path(self.project_id, "branches", current["id"], "set_as_default")
        previous = self.task.kept.get("previous_default")
        label = "%s (%s) the project's default branch%s" % (
            self.label, current["id"], " in place of %s" % branch_label(previous) if previous else "")
        data = self.task.change("POST", path, self.project_id, None, "Making " + label)
        self.task.did("made " + label)
        self.task.wait_for_operations_of(data, "POST", path, self.project_id, "made " + label)
        current = self.task.answered(BRANCH, data, "POST", path, current["id"])
        self.keep(current)
        return current

    def _add_compute(self, branch, compute):
        """Its read-write compute, created once as ``compute`` (a plan) says; one another run created meanwhile is
        used (endpoints.py's rule)."""
        path = project_path(self.project_id, "endpoints")
        body = {"endpoint": dict(compute.body, branch_id=branch["id"], type=READ_WRITE)}
        label = "a read-write compute for %s (%s)" % (self.label, branch["id"])

        def look_again():
            return self._compute_again(branch)

        try:
            data, found = self.task.create(path, body, self.project_id, label, look_again)
        except TaskFailure as failure:
            data, found = None, made_meanwhile(self.task, READ_WRITE, failure, look_again)
            if found is None:
                raise
        if found is not None:
            if found.ours:
                self.task.did("created " + label)
            else:
                self.task.warnings.append("%s was created by another run at the same time (id %s); this run uses "
                                          "it." % (sentence(label), found.item["id"]))
            self._replace_endpoint(found.item)
            self.task.wait_idle(self.project_id, "created " + label)
            return
        self.task.did("created " + label)
        self.task.wait_for_operations_of(data, "POST", path, self.project_id, "created " + label)
        self._replace_endpoint(self.task.answered(COMPUTE, data, "POST", path))

    def _compute_again(self, branch):
        endpoint = read_write_endpoint(branch_endpoints(self.client, self.project_id, branch["id"]), branch["id"])
        return Found(endpoint, ours=True) if endpoint is not None else None

    def _replace_endpoint(self, endpoint):
        self._computes_are(with_endpoint(self.endpoints, endpoint), endpoint=endpoint)

    # ------------------------------------------------------------------------------------------ ready

    def settle(self, current, plan):
        """After a change of this run, the branch and its computes read again (the answers showed them being made);
        then, when its state says it is still being made or changed (by another run, or one that timed out), wait
        for that and read it again."""
        if self.task.changed:
            current = self._read_again(current)
        not_ready = self._not_ready(current)
        if not_ready and self.task.settle(self.project_id, not_ready, unsettled=True, branch_id=current["id"]):
            current = self._read_again(current)
        return current

    def _not_ready(self, current):
        if not branch_settled(current):
            return "%s (%s) is not ready yet (current_state %s)" % (
                self.label, current["id"], current.get("current_state"))
        if not compute_settled(self.endpoint):
            return "the compute %s of %s (%s) is not ready yet (current_state %s)" % (
                self.endpoint["id"], self.label, current["id"], self.endpoint.get("current_state"))
        return None

    def _read_again(self, current):
        """Once its operations have ended, the branch and its computes as they are now: two GETs, only
        after a change that was waited for (the answers showed them being made)."""
        if not self.task.wait:
            return current
        path = project_path(self.project_id, "branches", current["id"])
        current = answers.item_of(self.client.request("GET", path), "GET", path, "branch", BRANCH_FIELDS,
                                  item_id=current["id"])
        self._read_computes(current["id"])
        self.keep(current)
        return current

    def _read_computes(self, branch_id):
        """The branch's computes as listed now, and its read-write one: one request."""
        self._computes_are(branch_endpoints(self.client, self.project_id, branch_id), branch_id)

    def _computes_are(self, endpoints, branch_id=None, endpoint=None):
        """The branch's computes as last read or changed (``endpoints``), and its read-write one (``endpoint``: the one
        just made or changed; else chosen among them). Every result from then on carries them, failures included,
        beside the branch the walk keeps (state=present only: a delete reads none)."""
        self.endpoints = endpoints
        self.task.kept["endpoints"] = read_write_first(endpoints)
        self.endpoint = endpoint if endpoint is not None else read_write_endpoint(endpoints, branch_id)
