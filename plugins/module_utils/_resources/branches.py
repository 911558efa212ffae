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
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import TaskFailure
from ansible_collections.neon.cloud.plugins.module_utils._api.points import options_as_sent
from ansible_collections.neon.cloud.plugins.module_utils._resources.descriptions import (
    BRANCH,
    BRANCH_ANSWER_FIELDS,
    COMPUTE,
    READ_WRITE,
    SCHEMA_ONLY,
    SOURCE_OPTIONS,
    branch_input_problem,
    branch_label,
    branch_problem,
    branch_settled,
    children_of,
    compute_body,
    compute_settings_problem,
    compute_settled,
    default_branch,
    default_change,
    is_default,
    parent_problem,
    read_write_endpoint,
    read_write_first,
    schema_only,
    without_source,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.endpoints import made_meanwhile
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import (
    branch_endpoints,
    choose_branch,
    list_branches,
    project_to_be_made,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import (
    CREATE,
    NOTHING,
    UPDATE,
    Plan,
    decide,
    planned,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Missing, Refusal, only_one
from ansible_collections.neon.cloud.plugins.module_utils._resources.resource import Resource, sentence
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import Found

# The API field of each option that says where a branch came from (descriptions.SOURCE_OPTIONS).
BRANCH_API_FIELD = dict((field.option, field.api) for field in BRANCH.fields)


class Branch(Resource):
    """The branch ``name`` of ``project_id``; ``compute``: True, False or a dict of compute settings;
    ``default``: True to make it the project's default branch, False that it is not (refused on the default
    branch: descriptions.default_change), None to leave it."""

    description = BRANCH

    def __init__(self, task, project_id, name, compute=False, reset_from_parent=False, default=None):
        super(Branch, self).__init__(task, project_id)
        self.name = name
        self.label = "branch %r" % name
        self.compute = compute
        self.reset = reset_from_parent
        self.default = default
        self.make_default = False  # whether this run makes it the default branch (default_change)
        self.branches = []  # the project's branches, as the last find listed them
        self.parent = None  # the parent asked for, found among them
        self.endpoints = None  # the branch's computes (present only: absent reads none)
        self.endpoint = None  # its read-write compute
        self.compute_plan = Plan(NOTHING, "no compute asked")

    # ------------------------------------------------------------------------------------------ finding and deciding

    def find(self):
        # A project an earlier task of the play would make (check mode: refusal.Missing) has no branches yet.
        to_be_made = project_to_be_made(self.project_id, self.task)
        self.branches = [] if to_be_made else list_branches(self.client, self.project_id)
        named = [branch for branch in self.branches if branch["name"] == self.name]
        return only_one(named, "branches", self.name, " in project %s" % self.project_id)

    def collection_path(self):
        return project_path(self.project_id, "branches")

    def present(self, options):
        """The walk, with its points in time (``parent_timestamp``, ``expires_at``, ``parent_lsn``) in the form the
        collection sends them (_api/points.py: UTC ending in Z, an LSN as PostgreSQL writes it)."""
        return super(Branch, self).present(options_as_sent(options, ("parent_timestamp", "expires_at"), ("parent_lsn",)))

    def input_problem(self, options):
        problem = branch_input_problem(options)
        if problem is None and isinstance(self.compute, dict):
            problem = compute_settings_problem(self.compute, "compute.")
        return problem

    def decide(self, current, options):
        """The branch's plan, and its compute's (from the branch's computes: one more request)."""
        wanted, self.parent = dict(options), None
        if current is not None:
            answers.Checker("GET", self.collection_path()).fields(current, "branches[%s]" % current["id"],
                                                                  **BRANCH_ANSWER_FIELDS)
            if schema_only(current, options.get("init_source")):
                wanted = without_source(wanted)  # they chose where its schema came from: no link is kept
        if wanted.get("parent") is not None:
            try:
                self.parent = choose_branch(self.branches, wanted["parent"], self.project_id, "parent")
            except Missing as missing:
                if current is not None:
                    raise  # a branch that exists was not made from a branch made after it
                self.parent = self.task.assume(missing)  # check mode: made by an earlier task (refusal.Missing)
            wanted["parent"] = self.parent["id"]
        plan = decide(BRANCH, current, wanted, name=self.name)
        self.make_default = default_change(current, self.default)
        if self.default:
            previous = default_branch(self.branches)
            self.task.kept["previous_default"] = dict(id=previous["id"], name=previous["name"]) if previous else None
        self.endpoints, self.endpoint, self.compute_plan = [], None, Plan(NOTHING, "no compute asked")
        if current is None:
            return plan
        if self.reset and not current.get("parent_id"):
            raise Refusal("branch %r (%s) has no parent, so it cannot be reset from one" % (self.name, current["id"]))
        self._read_computes(current["id"])
        if self.compute is not False and self.compute is not None:
            settings = self.compute if isinstance(self.compute, dict) else {}
            self.compute_plan = decide(COMPUTE, self.endpoint, settings, name=None)
        return plan

    def problem(self, plan, current):
        if self.compute_plan.action == UPDATE:
            problem = compute_settings_problem(COMPUTE.shown(planned(self.endpoint, self.compute_plan)), "compute.")
            if problem:
                return "the compute %s of %s (%s) cannot be changed as asked: with its other settings, %s" % (
                    self.endpoint["id"], self.label, current["id"], problem)
        if plan.action not in (CREATE, UPDATE) and not self.make_default:
            return None
        problem = parent_problem(self.parent) if current is None else None
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

    def keep(self, current):
        self.task.kept["branch"] = current
        if self.endpoints is not None:
            self.task.kept["endpoints"] = read_write_first(self.endpoints)

    def shown(self, current):
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
        if self.make_default:
            after["default"] = True
        return after

    def diff(self, current, plan):
        if current is None:
            return {}, self._shown(self._after(None, plan), compute_body(self.compute) if self.compute else None)
        endpoint_after = planned(self.endpoint, self.compute_plan) \
            if self.compute_plan.action != NOTHING or self.endpoint is not None else None
        before, after = self._shown(current, self.endpoint), self._shown(self._after(current, plan), endpoint_after)
        if self.reset:
            # A reset takes the parent's data, roles and databases as they are now (its own are replaced).
            before["data"] = "its own (last reset: %s)" % (current.get("last_reset_at") or "never")
            after["data"] = "its parent %s's latest: its data, roles and databases" % current["parent_id"]
        return before, after

    def pending(self, current, plan):
        return self.compute_plan.changed or (bool(self.reset) and current is not None) or self.make_default

    def predicted(self, current, plan):
        # What only the service gives a new branch and compute (ids, the host) is null in check mode.
        if current is None:
            self.endpoints = [dict(compute_body(self.compute), id=None, host=None)] if self.compute else []
            return dict(self._after(None, plan), id=None)
        if self.compute_plan.changed:
            made = {} if self.endpoint is not None else {"id": None, "host": None}
            self._replace_endpoint(dict(planned(self.endpoint, self.compute_plan), type=READ_WRITE,
                                        branch_id=current["id"], **made))
        return self._after(current, plan)

    # ------------------------------------------------------------------------------------------ its own changes

    def create_body(self, plan):
        body = {"branch": plan.body}
        if self.compute:
            body["endpoints"] = [compute_body(self.compute)]
        return body

    def take_answer(self, data):
        self.task.keep_created_uri(data)  # shown only in this answer

    def created(self, data, path):
        branch = answers.item_of(data, "POST", path, "branch", answers.BRANCH_FIELDS)
        self.endpoints = answers.items_of(data, "POST", path, "endpoints", answers.ENDPOINT_FIELDS) \
            if data.get("endpoints") is not None else []
        self.endpoint = read_write_endpoint(self.endpoints)
        return branch

    def on_found(self, found):
        super(Branch, self).on_found(found)
        if found.ours and not self.task.wait:  # the answer with its computes was lost, and read_again reads none
            self._read_computes(found.item["id"])

    def act(self, current, plan):
        """Its compute (created when asked and missing, or resized), then the reset, then becoming the default."""
        if self.compute_plan.action == CREATE:
            self._add_compute(current)
        elif self.compute_plan.action == UPDATE:
            self._replace_endpoint(self.task.update(
                COMPUTE, project_path(self.project_id, "endpoints", self.endpoint["id"]), self.project_id,
                self.endpoint, self.compute_plan, "the compute %s of %s" % (self.endpoint["id"], self.label)))
        if self.reset and plan.action != CREATE:
            path = project_path(self.project_id, "branches", current["id"], "restore")
            label = "%s (%s) from its parent %s" % (self.label, current["id"], current["parent_id"])
            data = self.task.change("POST", path, self.project_id, {"source_branch_id": current["parent_id"]},
                                    "Resetting " + label)
            self.task.did("reset " + label)
            self.task.wait_for_operations_of(data, "POST", path, self.project_id, "reset " + label)
            current = self.task.answered(BRANCH, data, "POST", path, current["id"])
            self.keep(current)
        if self.make_default:
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

    def _add_compute(self, branch):
        """Its read-write compute, created once; one another run created meanwhile is used (endpoints.py's rule)."""
        path = project_path(self.project_id, "endpoints")
        body = {"endpoint": dict(self.compute_plan.body, branch_id=branch["id"], type=READ_WRITE)}
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
        self.endpoint = endpoint
        self.endpoints = [endpoint] + [item for item in self.endpoints or [] if item["id"] != endpoint["id"]]
        self.keep(self.task.kept.get("branch"))

    # ------------------------------------------------------------------------------------------ ready

    def not_ready(self, current):
        if not branch_settled(current):
            return "%s (%s) is not ready yet (current_state %s)" % (
                self.label, current["id"], current.get("current_state"))
        if not compute_settled(self.endpoint):
            return "the compute %s of %s (%s) is not ready yet (current_state %s)" % (
                self.endpoint["id"], self.label, current["id"], self.endpoint.get("current_state"))
        return None

    def settle_scope(self, current):
        return current["id"], None

    def read_again(self, current):
        """Once its operations have ended, the branch and its computes as they are now: two GETs, only
        after a change that was waited for (the answers showed them being made)."""
        if not self.task.wait:
            return current
        path = project_path(self.project_id, "branches", current["id"])
        current = answers.item_of(self.client.request("GET", path), "GET", path, "branch", answers.BRANCH_FIELDS,
                                  item_id=current["id"])
        self._read_computes(current["id"])
        self.keep(current)
        return current

    def _read_computes(self, branch_id):
        """The branch's computes as listed now, and its read-write one: one request."""
        self.endpoints = branch_endpoints(self.client, self.project_id, branch_id)
        self.endpoint = read_write_endpoint(self.endpoints, branch_id)
