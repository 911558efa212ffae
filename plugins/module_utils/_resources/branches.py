# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Branches and their computes: descriptions, reading, the branch task, and connection details.

A branch is found by its name within its project (names are unique there), from one listing of
the project's branches, which also resolves a parent given by name and tells the default branch.
Its computes come from the branch's endpoint list. So a branch that is as asked costs two
requests. Decisions are _resource_plan.py's; requests, waiting and recovery _resources.py's.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

try:
    from urllib.parse import unquote, urlsplit
except ImportError:  # pragma: no cover - Python 2 is not supported, keeps the import sanity test quiet
    from urllib import unquote  # type: ignore
    from urlparse import urlsplit  # type: ignore

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import api_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, TaskFailure, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._api.paging import collect
from ansible_collections.neon.cloud.plugins.module_utils._resource_plan import (
    CREATE,
    NOTHING,
    READ_WRITE,
    REFUSE,
    UPDATE,
    Description,
    Field,
    Plan,
    Refusal,
    branch_settled,
    children_of,
    compute_settings_problem,
    compute_settled,
    decide,
    default_branch,
    find_branch,
    only_name,
    only_one,
    planned,
    pooled_host,
    read_write_endpoint,
    read_write_first,
    same_lsn,
    same_time,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources import Found

# GET /projects/{id}/branches: limit 1-10000 (docs/docsite/rst/api-behaviour.rst); the largest page
# keeps a project's listing to one request for every plan's branch limit.
BRANCHES_PAGE_MAX = 10000
DEFAULT_PORT = 5432

BRANCH = Description("branch", "branch", answers.BRANCH_FIELDS, [
    Field("name"),
    Field("parent", "parent_id", create_only=True),
    Field("parent_timestamp", create_only=True, same=same_time),
    Field("parent_lsn", create_only=True, same=same_lsn),
    Field("protected"),
    Field("expires_at", empty_is_null=True, same=same_time),
])
# The settings of a compute (an endpoint) a task may ask for; the same for a branch's compute and
# for a project's default compute settings (_project_resource.py maps them there).
COMPUTE = Description("compute", "endpoint", answers.ENDPOINT_FIELDS, [
    Field("min_cu", "autoscaling_limit_min_cu"),
    Field("max_cu", "autoscaling_limit_max_cu"),
    Field("suspend_timeout_seconds"),
])


def project_path(project_id, *more):
    return api_path("projects", project_id, *more)


def list_branches(client, project_id, search=None):
    """Every branch of the project (every page), each checked. A Refusal when the project does not
    exist (or the key does not reach it): the first request of every task on a project's branches."""
    try:
        return collect(client, project_path(project_id, "branches"), "branches", BRANCHES_PAGE_MAX,
                       params={"search": search}, want_cursor=False, item_fields=answers.BRANCH_FIELDS).items
    except NeonAPIError as error:
        if error.status == 404:
            raise Refusal(no_such_project(project_id, error), error)
        raise


def no_such_project(project_id, error):
    """The sentence for a project id that the service does not know (HTTP 404)."""
    said = ": %s" % error.api_message if error.api_message else ""
    return "there is no project %s that this API key reaches (HTTP 404%s%s); check project_id, or list the key's " \
        "projects with neon.cloud.projects_info" % (project_id, said,
                                                    ", request id %s" % error.request_id if error.request_id else "")


def branch_problem(after, current, branches):
    """Why the service would refuse a branch to be as ``after`` (the branch as planned), or None.

    The service's rules on expiry (docs/docsite/rst/api-behaviour.rst, "Branches"): a protected
    branch, the default branch and a branch with children cannot have an ``expires_at``.
    ``current``: the branch as it is (None when creating); ``branches``: the project's branches.
    """
    if not after.get("expires_at"):
        return None
    if after.get("protected"):
        return "a protected branch cannot have an expiry (expires_at); leave protected out or false, or remove " \
               "the expiry with expires_at: ''"
    if current is not None and (current.get("default") or current.get("primary")):
        return "it is the project's default branch, which cannot have an expiry (expires_at)"
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


def branch_endpoints(client, project_id, branch_id):
    path = project_path(project_id, "branches", branch_id, "endpoints")
    return answers.items_of(client.get(path), "GET", path, "endpoints", answers.ENDPOINT_FIELDS)


def project_endpoints(client, project_id):
    path = project_path(project_id, "endpoints")
    return answers.items_of(client.get(path), "GET", path, "endpoints", answers.ENDPOINT_FIELDS)


def with_endpoints(branch, endpoints):
    """A branch as the modules return it: the service's object plus its computes, read-write first."""
    return dict(branch, endpoints=read_write_first([item for item in endpoints if item.get("branch_id") == branch["id"]]))


def compute_body(compute):
    """The ``endpoints`` entry of a branch create for ``compute`` (true or a dict of settings)."""
    settings = compute if isinstance(compute, dict) else {}
    return dict(COMPUTE.body(settings, creating=True), type=READ_WRITE)


# ---------------------------------------------------------------------------------------------- branch task


class BranchTask:
    """One ``neon.cloud.branch`` task: make the branch named ``name`` of ``project_id`` as asked."""

    def __init__(self, task, project_id, name):
        self.task = task
        self.client = task.client
        self.project_id = project_id
        self.name = name
        self.label = "branch %r" % name
        self.found = None  # the branch an overlapping run created, after "already exists"

    def _find(self):
        branches = list_branches(self.client, self.project_id)
        named = [branch for branch in branches if branch["name"] == self.name]
        return branches, only_one(named, "branches", self.name, " in project %s" % self.project_id)

    def _find_again(self):
        current = self._find()[1]
        return Found(current, ours=True) if current is not None else None

    def _shown(self, branch, endpoint):
        if branch is None:
            return {}
        shown = BRANCH.shown(branch)
        shown["compute"] = COMPUTE.shown(endpoint) if endpoint is not None else None
        return shown

    # ------------------------------------------------------------------------------------------ absent

    def absent(self):
        return self.task.run(self._absent)

    def _absent(self):
        try:
            branches, current = self._find()
        except Refusal as refusal:
            raise self.task.refused(refusal)
        plan = decide(BRANCH, current, {}, state="absent", name=self.name)
        if plan.action == NOTHING:
            return self.task.with_diff(self.task.result(branch=None), {}, {})
        problem = None
        if current.get("default") or current.get("primary"):
            problem = "it is the project's default branch"
        elif current.get("protected"):
            problem = "it is protected; set protected=false first"
        elif children_of(branches, current["id"]):
            problem = "it is the parent of %s; delete those first" % ", ".join(
                "%r (%s)" % (child["name"], child["id"]) for child in children_of(branches, current["id"]))
        if problem:
            raise TaskFailure("Branch %r (%s) of project %s cannot be deleted: %s. Nothing was changed" % (
                self.name, current["id"], self.project_id, problem), changed=False, branch=current)
        before = self._shown(current, None)
        if self.task.check_mode:
            self.task.changed = True
            return self.task.with_diff(self.task.result(branch=current), before, {})
        path = project_path(self.project_id, "branches", current["id"])
        data = self.task.change("DELETE", path, self.project_id, None, "Deleting %s (%s)" % (self.label, current["id"]))
        if data is None:  # 204: gone meanwhile (an overlapping run deleted it)
            return self.task.with_diff(self.task.result(branch=current), before, {})
        what = "%s (%s) was deleted" % (self.label, current["id"])
        self.task.did(what)
        self.task.started(data, "DELETE", path, self.project_id, what)
        return self.task.with_diff(self.task.result(branch=current), before, {})

    # ------------------------------------------------------------------------------------------ present

    def present(self, options, compute, reset_from_parent):
        return self.task.run(self._present, options, compute, reset_from_parent)

    def _present(self, options, compute, reset_from_parent):
        """``options``: the BRANCH fields asked for; ``compute``: True, False or a dict of COMPUTE settings."""
        problem = compute_settings_problem(compute, "compute.") if isinstance(compute, dict) else None
        if problem:
            raise self.task.failure(problem)
        found = None
        for _round in range(2):
            try:
                plans = self._decide(options, compute, reset_from_parent, found)
            except Refusal as refusal:
                raise self.task.refused(refusal)
            if plans["branch"].action == REFUSE:
                raise self.task.failure(plans["branch"].reason)
            if plans["branch"].action != CREATE:
                return self._carry_out(plans, reset_from_parent)
            if self.task.check_mode:
                return self._check_mode_create(plans, compute)
            created = self._create(plans["branch"], compute)
            if created is not None:
                return created
            found = self.found
        raise AssertionError("unreachable")  # pragma: no cover - a found branch is never created again

    def _decide(self, options, compute, reset_from_parent, found):
        """The plans for the branch and its compute, from one listing (and the branch's computes)."""
        branches, current = self._find() if found is None else (None, found.item)
        wanted, parent = dict(options), None
        if options.get("parent") is not None:
            branches = branches if branches is not None else list_branches(self.client, self.project_id)
            parent = find_branch(branches, options["parent"])
            if parent is None:
                raise Refusal("parent %r is neither the name nor the id of a branch of project %s" % (
                    options["parent"], self.project_id))
            wanted["parent"] = parent["id"]
        plan = decide(BRANCH, current, wanted, name=self.name)
        plans = {"branch": plan, "current": current,
                 "endpoints": [], "endpoint": None, "compute": Plan(NOTHING, "no compute asked")}
        if plan.action in (CREATE, UPDATE):
            problem = parent_problem(parent) if current is None else None
            problem = problem or branch_problem(planned(current, plan), current, branches or [])
            if problem:
                raise Refusal("%s %s: %s" % (self.label, "cannot be created" if current is None else
                                             "(%s) cannot be changed as asked" % current["id"], problem))
        if current is None:
            return plans
        if reset_from_parent and not current.get("parent_id"):
            raise Refusal("branch %r (%s) has no parent, so it cannot be reset from one" % (self.name, current["id"]))
        plans["endpoints"] = branch_endpoints(self.client, self.project_id, current["id"])
        endpoint = read_write_endpoint(plans["endpoints"], current["id"])
        plans["endpoint"] = endpoint
        if compute is not False and compute is not None:
            settings = compute if isinstance(compute, dict) else {}
            plans["compute"] = decide(COMPUTE, endpoint, settings, name=None)
        return plans

    def _check_mode_create(self, plans, compute):
        self.task.changed = True
        # What only the service gives a new branch and compute (ids, the host) is null in check mode.
        branch = dict(plans["branch"].body, name=self.name, id=None)
        endpoint = dict(compute_body(compute), id=None, host=None) if compute else None
        return self.task.with_diff(self.task.result(branch=branch, endpoints=[endpoint] if endpoint else []),
                                   {}, self._shown(branch, endpoint))

    def _create(self, plan, compute):
        """POST the branch (with its compute). Returns the result, or None after "already exists"
        (``self.found`` is then the branch an overlapping run created, to decide again against)."""
        path = project_path(self.project_id, "branches")
        body = {"branch": plan.body}
        if compute:
            body["endpoints"] = [compute_body(compute)]
        data, found = self.task.create(path, body, self.project_id, self.label, self._find_again)
        if found is not None and not found.ours:
            self.task.warnings.append("Branch %r was created by another run at the same time (id %s); this run uses it."
                                      % (self.name, found.item["id"]))
            self.found = found
            return None
        if found is not None:  # created, but the answer was lost
            what = "%s was created (id %s)" % (self.label, found.item["id"])
            self.task.did(what)
            self.task.kept["branch"] = found.item
            self.task.wait_idle(self.project_id, what)
            endpoints = branch_endpoints(self.client, self.project_id, found.item["id"])
            return self.task.with_diff(self.task.result(branch=found.item, endpoints=read_write_first(endpoints)),
                                       {}, self._shown(found.item, read_write_endpoint(endpoints)))
        # Shown only in this answer: kept before anything else in it is checked, so that no failure loses it.
        self.task.keep_created_uri(data)
        try:
            branch = answers.item_of(data, "POST", path, "branch", answers.BRANCH_FIELDS)
            endpoints = answers.items_of(data, "POST", path, "endpoints", answers.ENDPOINT_FIELDS) \
                if data.get("endpoints") is not None else []
        except UnexpectedAnswer as error:
            self.task.did("%s was created" % self.label)
            raise self.task.failure("%s was created, but its answer cannot be used: %s" % (
                self.label, error.describe()), error)
        what = "%s was created (id %s)" % (self.label, branch["id"])
        self.task.did(what)
        self.task.kept.update(branch=branch, endpoints=read_write_first(endpoints))
        self.task.started(data, "POST", path, self.project_id, what)
        self._read_again(branch["id"])
        return self.task.with_diff(self.task.result(), {}, self._shown(branch, read_write_endpoint(endpoints)))

    def _carry_out(self, plans, reset_from_parent):
        """Update the branch, then its compute (create one when asked and missing), then reset it."""
        current, endpoint = plans["current"], plans["endpoint"]
        branch_plan, compute_plan = plans["branch"], plans["compute"]
        before = self._shown(current, endpoint)
        after = self._shown(planned(current, branch_plan), planned(endpoint, compute_plan)
                            if compute_plan.action != NOTHING or endpoint is not None else None)
        if reset_from_parent:
            # A reset takes the parent's data, roles and databases as they are now (its own are replaced).
            before["data"] = "its own (last reset: %s)" % (current.get("last_reset_at") or "never")
            after["data"] = "its parent %s's latest: its data, roles and databases" % current["parent_id"]
        self.task.kept.update(branch=current, endpoints=read_write_first(plans["endpoints"]))
        if self.task.check_mode:
            self.task.changed = branch_plan.changed or compute_plan.changed or bool(reset_from_parent)
            self.task.kept["branch"] = planned(current, branch_plan)
            if compute_plan.changed:  # the compute as it would be; one not made yet has no id or host
                made = {} if endpoint is not None else {"id": None, "host": None}
                self._replace_endpoint(dict(planned(endpoint, compute_plan), type=READ_WRITE,
                                            branch_id=current["id"], **made))
            return self.task.with_diff(self.task.result(), before, after)
        if branch_plan.action == UPDATE:
            self.task.kept["branch"] = self.task.update(
                BRANCH, project_path(self.project_id, "branches", current["id"]), self.project_id, current, branch_plan,
                "%s (%s)" % (self.label, current["id"]))
        if compute_plan.action == CREATE:
            self._add_compute(current, compute_plan)
        elif compute_plan.action == UPDATE:
            self._replace_endpoint(self.task.update(
                COMPUTE, project_path(self.project_id, "endpoints", endpoint["id"]), self.project_id, endpoint,
                compute_plan, "the compute %s of %s" % (endpoint["id"], self.label)))
        if reset_from_parent:
            path = project_path(self.project_id, "branches", current["id"], "restore")
            label = "%s (%s) from its parent %s" % (self.label, current["id"], current["parent_id"])
            data = self.task.change("POST", path, self.project_id, {"source_branch_id": current["parent_id"]},
                                    "Resetting " + label)
            self.task.did("reset " + label)
            self.task.started(data, "POST", path, self.project_id, "reset " + label)
            self.task.kept["branch"] = self.task.answered(BRANCH, data, "POST", path, current["id"])
        if self.task.changed:
            self._read_again(current["id"])
        elif self._not_ready(current, endpoint) and self.task.settle(
                self.project_id, self._not_ready(current, endpoint), unsettled=True, branch_id=current["id"]):
            self._read_again(current["id"])  # what a timed-out or an overlapping run left being made
        return self.task.with_diff(self.task.result(), before, after)

    def _not_ready(self, branch, endpoint):
        """What of a branch found as asked is still being made or changed, as a sentence; None when nothing is."""
        if not branch_settled(branch):
            return "%s (%s) is not ready yet (current_state %s)" % (self.label, branch["id"], branch.get("current_state"))
        if not compute_settled(endpoint):
            return "the compute %s of %s (%s) is not ready yet (current_state %s)" % (
                endpoint["id"], self.label, branch["id"], endpoint.get("current_state"))
        return None

    def _read_again(self, branch_id):
        """Once the operations a change started have ended, the branch and its computes as they are
        now: the answers to the changes show them while being made (``current_state`` ``init``,
        ``resetting``), and a playbook's next task wants them ready. Two GETs, only after a change
        that was waited for."""
        if not self.task.wait:
            return
        path = project_path(self.project_id, "branches", branch_id)
        branch = answers.item_of(self.client.request("GET", path), "GET", path, "branch", answers.BRANCH_FIELDS,
                                 item_id=branch_id)
        self.task.kept.update(branch=branch, endpoints=read_write_first(
            branch_endpoints(self.client, self.project_id, branch_id)))

    def _add_compute(self, branch, plan):
        path = project_path(self.project_id, "endpoints")
        body = {"endpoint": dict(plan.body, branch_id=branch["id"], type=READ_WRITE)}
        label = "a read-write compute for %s (%s)" % (self.label, branch["id"])
        data, found = self.task.create(path, body, self.project_id, label, lambda: self._compute_again(branch))
        if found is not None:
            self.task.did("created " + label)
            self._replace_endpoint(found.item)
            self.task.wait_idle(self.project_id, "created " + label)
            return
        self.task.did("created " + label)
        self.task.started(data, "POST", path, self.project_id, "created " + label)
        self._replace_endpoint(self.task.answered(COMPUTE, data, "POST", path))

    def _compute_again(self, branch):
        endpoint = read_write_endpoint(branch_endpoints(self.client, self.project_id, branch["id"]), branch["id"])
        return Found(endpoint, ours=True) if endpoint is not None else None

    def _replace_endpoint(self, endpoint):
        others = [item for item in self.task.kept.get("endpoints", []) if item["id"] != endpoint["id"]]
        self.task.kept["endpoints"] = read_write_first([endpoint] + others)


# ---------------------------------------------------------------------------------------------- reading


def branches_with_endpoints(client, project_id, name=None):
    """The project's branches (only the one named ``name`` when given), each with its computes: two requests."""
    branches = list_branches(client, project_id, search=name)
    if name is not None:
        branches = [branch for branch in branches if branch["name"] == name]
        if not branches:
            return []
    endpoints = project_endpoints(client, project_id)
    return [with_endpoints(branch, endpoints) for branch in branches]


def locate_branch(client, project_id, wanted=None):
    """The branch ``wanted`` (a name or an id) of the project, or its default branch when None: one
    request. A Refusal when there is no such branch."""
    branches = list_branches(client, project_id)
    chosen = find_branch(branches, wanted) if wanted is not None else default_branch(branches)
    if chosen is None:
        raise Refusal("project %s has no branch %r" % (project_id, wanted) if wanted is not None else
                      "project %s lists no default branch" % project_id)
    return chosen


def branch_label(branch):
    return "%r (%s)" % (branch["name"], branch["id"])


def connection_details(client, project_id, branch=None, database=None, role=None, pooled=False):
    """The connection URI of a branch's read-write compute, and its parts (the password among them).

    The compute is the branch's read-write one, passed to the service by id; the service builds the
    URI (``GET /projects/{id}/connection_uri``), and its host is checked to be that compute's (or its
    pooler's), so a URI of another branch is never returned as this one's.
    """
    chosen = locate_branch(client, project_id, branch)
    label = branch_label(chosen)
    endpoint = read_write_endpoint(branch_endpoints(client, project_id, chosen["id"]), chosen["id"])
    if endpoint is None:
        raise Refusal("branch %s has no read-write compute to connect to; create one with neon.cloud.branch "
                      "(compute: true)" % label)
    if role is None:
        roles = _catalog_of(client, project_id, chosen["id"], "roles", answers.ROLE_FIELDS)
        role = only_name([item for item in roles if not item.get("protected")], "role", label)
    if database is None:
        database = only_name(_catalog_of(client, project_id, chosen["id"], "databases", answers.DATABASE_FIELDS),
                             "database", label)
    path = project_path(project_id, "connection_uri")
    params = dict(branch_id=chosen["id"], endpoint_id=endpoint["id"], database_name=database, role_name=role,
                  pooled="true" if pooled else "false")
    try:
        uri = answers.connection_uri(client.get(path, params=params), path)
    except NeonAPIError as error:
        if error.status == 404:
            _missing_names(client, project_id, chosen, role, database, error)
        raise
    parts = uri_parts(uri, path)
    client.remember_secret(parts["password"])
    expected = endpoint.get("host")
    if expected:
        expected = pooled_host(expected) if pooled else expected
        if parts["host"] != expected:
            raise UnexpectedAnswer("GET", path, "the URI's host", "is %r, not the %s of compute %s (%r)" % (
                parts["host"], "pooler" if pooled else "host", endpoint["id"], expected))
    return dict(parts, uri=uri, pooled=pooled, branch_id=chosen["id"], endpoint_id=endpoint["id"])


def _catalog_of(client, project_id, branch_id, segment, fields):
    """A branch's roles or databases (``segment``), as listed: one request."""
    path = project_path(project_id, "branches", branch_id, segment)
    return answers.items_of(client.get(path), "GET", path, segment, fields)


def _missing_names(client, project_id, branch, role, database, error):
    """After a 404 for a connection URI: a Refusal naming the role or database the branch lacks, and
    what it has (two requests, only on this failure); returns when both exist."""
    for kind, segment, fields, name in (("role", "roles", answers.ROLE_FIELDS, role),
                                        ("database", "databases", answers.DATABASE_FIELDS, database)):
        names = sorted(item["name"] for item in _catalog_of(client, project_id, branch["id"], segment, fields))
        if name not in names:
            raise Refusal("branch %s has no %s %r (its %s: %s); create it with neon.cloud.%s" % (
                branch_label(branch), kind, name, segment, ", ".join(names) or "none", kind), error)


def uri_parts(uri, path):
    """host, port, database, role and password of a postgresql:// URI."""
    try:
        split = urlsplit(uri)
        port = split.port
    except ValueError:
        raise UnexpectedAnswer("GET", path, "uri", "is not a URI that can be read")
    if split.scheme not in ("postgres", "postgresql") or not split.hostname:
        raise UnexpectedAnswer("GET", path, "uri", "is not a postgresql:// URI with a host")
    return dict(host=split.hostname, port=port or DEFAULT_PORT, database=unquote(split.path.lstrip("/")),
                role=unquote(split.username or ""), password=unquote(split.password or ""))
