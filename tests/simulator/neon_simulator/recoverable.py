# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Deleted projects and branches kept for recovery, as the June 2026 document says (``recoverProject``,
``recoverProjectBranch``; ``GET /projects?recoverable=true``, ``GET .../branches?include_deleted=true``):

- A deleted project or branch is kept for 7 days on the simulator's clock (``RECOVERY_WINDOW_US``): invisible
  everywhere as before (404, left out of listings), listed only by ``recoverable=true`` (a project, with
  ``deleted_at`` and ``recoverable_until``) or ``include_deleted=true`` (a branch, with ``recovery``: ``deleted_at``,
  ``recoverable_until``, ``deletion_method``). Past the window it is gone: not listed, its recovery a 404.
- ``POST /projects/{id}/recover`` answers ``{project, branches}`` and ``POST .../branches/{id}/recover``
  ``{branch, endpoints}`` (SPEC ProjectRecoverResponse, BranchRecoverResponse: no ``operations``). A recovered
  branch comes back with its computes idle and without its TTL (SPEC: "TTL branches become non-TTL branches").
- ``POST /_simulator/projects/{id}/branches/{branch_id}/expire`` deletes a branch as its TTL would
  (``deletion_method`` ``ttl``), without waiting for its ``expires_at``.

The deleted things are kept in ``Shared.deleted_projects`` and ``Shared.deleted_branches`` (provisioning.py's
deletes put them there through ``keep_project`` and ``keep_branch``); the area's object (``state.recoverable``)
lists and recovers them.
"""

from __future__ import annotations

import types

from . import access
from .clock import iso_seconds
from .errors import Conflict, InvalidRequest, NotFound

RECOVERY_WINDOW_US = 7 * 86400 * 1000000
# ------------------------------------------------------------------ CHOICES (the document leaves these open)
# What the recovery starts: the document's answers carry no operations, and the recovered branch is "idle". The
# simulator starts one ``timeline_unarchive`` per recovered branch (an action of the June OperationAction enum),
# seen in the project's operations only, the branch ``init`` until it ends; a project's recovery starts one for its
# default branch. Both are refused with 423 while the project's operations run, as every change is.
RECOVER_ACTION = "timeline_unarchive"
# Recovering what is not deleted (a live branch or project): 409 with these words. A branch whose name a live branch
# took since: 409 with the words of a duplicate name (shared.MESSAGE_BRANCH_EXISTS). A branch whose parent is deleted:
# 409 (the parent first). A branch or project past its window, or never deleted: 404.
MESSAGE_BRANCH_NOT_DELETED = "branch is not deleted"
MESSAGE_PROJECT_NOT_DELETED = "project is not deleted"
MESSAGE_PARENT_DELETED = "the branch's parent %s is deleted: recover it first"
MESSAGE_NOT_TTL = "branch has no expiration date"
TRUE_FALSE = ("true", "false")


def flag(args, name):
    """A boolean query parameter (``true`` or ``false``; absent: false); 400 for anything else."""
    raw = args.get(name)
    if raw is None or raw == "":
        return False
    if raw.lower() not in TRUE_FALSE:
        raise InvalidRequest("%s: must be true or false, got %r" % (name, raw))
    return raw.lower() == "true"


class DeletedBranch:
    """A deleted branch, its computes, when and how it was deleted."""

    __slots__ = ("branch", "endpoints", "deleted_us", "method")

    def __init__(self, branch, endpoints, deleted_us, method):
        self.branch, self.endpoints, self.deleted_us, self.method = branch, endpoints, deleted_us, method

    def render(self, now_us):
        return dict(self.branch.render(now_us), recovery={
            "deleted_at": iso_seconds(self.deleted_us),
            "recoverable_until": iso_seconds(self.deleted_us + RECOVERY_WINDOW_US),
            "deletion_method": self.method})


def _purge(shared, now_us):
    """Forget what is past its recovery window (lock held)."""
    for project_id, kept in list(shared.deleted_projects.items()):
        if now_us >= kept[1] + RECOVERY_WINDOW_US:
            del shared.deleted_projects[project_id]
    for project_id, book in list(shared.deleted_branches.items()):
        for branch_id, kept in list(book.items()):
            if now_us >= kept.deleted_us + RECOVERY_WINDOW_US:
                del book[branch_id]


def keep_project(shared, project, now_us):
    """A deleted project kept for its window (provisioning.py's delete, lock held)."""
    shared.deleted_projects[project.id] = (project, now_us)


def keep_branch(shared, project, branch, endpoints, now_us, method="user"):
    """A deleted branch and its computes kept for their window (lock held)."""
    shared.deleted_branches.setdefault(project.id, {})[branch.id] = DeletedBranch(branch, endpoints, now_us, method)


def deleted_branch_items(shared, project, now_us):
    """The project's deleted branches still in their window, as ``include_deleted=true`` lists them (lock held)."""
    _purge(shared, now_us)
    return [kept.render(now_us) for kept in shared.deleted_branches.get(project.id, {}).values()]


class Recoverable:
    """The recoverable area of State (see the module's text). ``detail(project, live)`` is the project's answer."""

    def __init__(self, shared, detail):
        self.shared = shared
        self.detail = detail

    def reset(self):
        self.shared.deleted_projects = {}
        self.shared.deleted_branches = {}

    # ------------------------------------------------------------------ projects
    def _deleted_view(self):
        """What access.py reads to tell whether a key reaches a deleted project (lock held)."""
        return types.SimpleNamespace(projects={pid: kept[0] for pid, kept in self.shared.deleted_projects.items()},
                                     organizations=self.shared.organizations, users=self.shared.users)

    def list_projects(self, key, limit, cursor=None, search=None, org_id=None):
        """GET /projects?recoverable=true: (projects, cursor), the deleted ones the key's listing would have held,
        the latest deleted first, each with ``deleted_at`` and ``recoverable_until``."""
        with self.shared.lock:
            now_us = self.shared.now_us()
            _purge(self.shared, now_us)
            selected = access.project_listing(self.shared, key, org_id)
            kept = sorted(self.shared.deleted_projects.values(), key=lambda item: (item[1], item[0].id), reverse=True)
            candidates = [(project, deleted_us) for project, deleted_us in kept if selected(project)]
            if cursor:
                position = next((i for i, item in enumerate(candidates) if item[0].id == cursor), None)
                if position is None:
                    raise InvalidRequest("cursor: unknown project id %r" % cursor)
                candidates = candidates[position + 1:]
            if search:
                needle = search.lower()
                candidates = [item for item in candidates
                              if needle in item[0].name.lower() or needle in item[0].id.lower()]
            page = candidates[:limit]
            items = [dict(project.render(), deleted_at=iso_seconds(deleted_us),
                          recoverable_until=iso_seconds(deleted_us + RECOVERY_WINDOW_US)) for project, deleted_us in page]
            return items, (page[-1][0].id if page else cursor)

    def api_recover_project(self, key, project_id):
        """POST /projects/{id}/recover: the project back, listed again; ``{project, branches}``."""
        with self.shared.lock:
            now_us = self.shared.now_us()
            _purge(self.shared, now_us)
            if project_id in self.shared.projects:
                self.shared.reachable(key, project_id)
                raise Conflict(MESSAGE_PROJECT_NOT_DELETED)
            view = self._deleted_view()
            if key is not None:
                access.check_project(view, key, project_id)
            if project_id not in view.projects:
                raise NotFound("project not found")
            project = view.projects[project_id]
            self.shared.refuse_unreal("recovering a deleted project")
            resources = self.shared.resources(project)
            default = resources.default_branch()
            ops = self.shared.run(project, [(RECOVER_ACTION, default.id, None)] if default is not None else [], now_us)
            if ops:
                default.state.set("init", now_us)
                default.state.start("ready", ops[0])
            del self.shared.deleted_projects[project_id]
            self.shared.projects[project.id] = project
            self.shared.insert_in_order(project)
            now_us = self.shared.now_us()
            return {"project": self.detail(project, live=True),
                    "branches": [branch.render(now_us) for branch in resources.branches.values()]}

    # ------------------------------------------------------------------ branches
    def api_recover_branch(self, key, project_id, branch_id):
        """POST .../branches/{id}/recover: the branch and its computes back (idle), without its TTL."""
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            now_us = self.shared.now_us()
            _purge(self.shared, now_us)
            resources = self.shared.resources(project)
            if branch_id in resources.branches:
                raise Conflict(MESSAGE_BRANCH_NOT_DELETED)
            book = self.shared.deleted_branches.get(project.id, {})
            kept = book.get(branch_id)
            if kept is None:
                raise NotFound("branch not found")
            branch = kept.branch
            self.shared.refuse_unreal("recovering a deleted branch")
            if branch.parent_id is not None and branch.parent_id not in resources.branches:
                raise Conflict(MESSAGE_PARENT_DELETED % branch.parent_id)
            self.shared.check_branch_name(project, branch.name)
            ops = self.shared.run(project, [(RECOVER_ACTION, branch.id, None)], now_us)
            del book[branch_id]
            branch.expires_us = branch.ttl_seconds = None
            branch.updated_us = now_us
            branch.state.set("init", now_us)
            branch.state.start("ready", ops[0])
            resources.branches[branch.id] = branch
            for endpoint in kept.endpoints:
                endpoint.state.set("idle", now_us)
                resources.add_endpoint(endpoint)
            now_us = self.shared.now_us()
            return {"branch": branch.render(now_us),
                    "endpoints": [endpoint.render(now_us) for endpoint in kept.endpoints]}

    def expire_branch(self, project_id, branch_id):
        """Control API: delete the branch as its TTL does (``deletion_method`` ``ttl``); answers what
        ``include_deleted=true`` lists of it."""
        with self.shared.lock:
            project = self.shared.project(project_id)
            branch = self.shared.branch(project, branch_id)
            if branch.expires_us is None:
                raise InvalidRequest(MESSAGE_NOT_TTL)
            resources = self.shared.resources(project)
            now_us = self.shared.now_us()
            endpoints = resources.endpoints_of(branch.id)
            for endpoint in endpoints:
                del resources.endpoints[endpoint.id]
            del resources.branches[branch.id]
            keep_branch(self.shared, project, branch, endpoints, now_us, method="ttl")
            return self.shared.deleted_branches[project.id][branch.id].render(now_us)
