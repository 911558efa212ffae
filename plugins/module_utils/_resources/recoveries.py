# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A deleted branch or project recovered within the service's 7-day window (``neon.cloud.branch_recover``,
``neon.cloud.project_recover``).

The service (docs/docsite/rst/api-behaviour.rst, "Recovering a deleted branch or project") keeps a deleted branch or
project for 7 days: ``GET /projects/{id}/branches?include_deleted=true`` lists deleted branches beside the others,
each with ``recovery`` (``deleted_at``, ``recoverable_until``, ``deletion_method``: ``user`` or ``ttl``), and
``GET /projects?recoverable=true`` lists deleted projects with ``deleted_at`` and ``recoverable_until``.
``POST .../recover`` brings one back (its answer names no operations); a branch deleted with a TTL comes back without
it, permanent. Past the window it is gone.

Two parts, the rules first:

- **The rules** (pure, unit-tested): which deleted object a name or an id means, and the plan (``recovery_plan``):
  recover it, nothing (it is live: an earlier run recovered it), or a refusal before anything is sent - no deleted
  object of that name or id in the window, several deleted of one name (their ids and deletion times named), a live
  one of the same name beside a deleted one (what the user must decide, said), a branch whose parent is deleted too.
- **Carrying it out** (``BranchRecovery``, ``ProjectRecovery``, Writers: writer.py): one listing of what is live and
  what is deleted; in check mode the diff; else the recovery (ResourceTask: a 423 waited out, never sent twice), then
  the object waited for until what the recovery runs on it has ended (the service's answer names no operations, so
  the project's are read), and read again. A recovery refused with 404 or 409 is looked at again: found live, another
  run recovered it at the same time (a warning, nothing changed by this run); else the task fails with the status
  and the service's words.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.neon.cloud.plugins.module_utils._account.projects import PROJECT_FIELDS, ProjectReader
from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError
from ansible_collections.neon.cloud.plugins.module_utils._api.paging import PROJECTS_PAGE_MAX, collect
from ansible_collections.neon.cloud.plugins.module_utils._resources.branches import BRANCH_ANSWER_FIELDS, branch_settled
from ansible_collections.neon.cloud.plugins.module_utils._resources.endpoints import (
    ENDPOINT_FIELDS,
    branch_endpoints,
    read_write_first,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import (
    BRANCH_FIELDS,
    BRANCHES_PAGE_MAX,
    list_branches,
    reaching_project,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import NOTHING
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import Writer

RECOVER = "recover"
ID_PATTERN = re.compile(r"^[a-z0-9-]{1,60}$")
NOT_FOUND, CONFLICT = 404, 409
WINDOW = "the service keeps a deleted %s for 7 days"
PLURAL = {"branch": "branches", "project": "projects"}
ID_OPTION = {"branch": "branch: its id", "project": "project_id"}
_TEXT_OR_NULL = (str, type(None))
# What is read of every branch listed with include_deleted=true, and of its ``recovery`` (SPEC BranchRecoveryInfo:
# all three required); a ``deletion_method`` the collection does not know yet is passed through.
DELETED_BRANCH_FIELDS = dict(required=BRANCH_FIELDS["required"],
                             optional=dict(BRANCH_FIELDS["optional"], recovery=(dict,), ttl_interval_seconds=(int,)))
RECOVERY_FIELDS = dict(required={"deleted_at": (str,), "recoverable_until": (str,), "deletion_method": (str,)})
# What is read of every project listed with recoverable=true (SPEC ProjectListItem: both optional; a deleted project
# listed without them is shown without them).
DELETED_PROJECT_FIELDS = dict(required=PROJECT_FIELDS["required"],
                              optional=dict(PROJECT_FIELDS["optional"], deleted_at=_TEXT_OR_NULL,
                                            recoverable_until=_TEXT_OR_NULL))
PROJECT_ANSWER_FIELDS = dict(required={"id": (str,)}, optional=dict(PROJECT_FIELDS["optional"]))


# ---------------------------------------------------------------------------------------------- the rules (pure)


def input_problem(project_id=None, wanted=None, option="branch"):
    """Why the options alone cannot name what to recover (checked before any request), or None: a project id the
    service would not take (SPEC: ``^[a-z0-9-]{1,60}$``), an empty name or id."""
    if project_id is not None and not ID_PATTERN.match(project_id):
        return "project_id must be a project id such as shiny-river-12345678 (lower-case letters, digits and " \
               "dashes, 1 to 60 of them), got %r" % project_id
    if wanted is not None and not wanted.strip():
        return "%s must not be empty" % option
    return None


class RecoveryPlan:
    """What a recover task does: ``action`` RECOVER (``deleted``: the deleted object as listed) or NOTHING (``live``:
    the object as it is, already back); ``reason``: one sentence; ``warnings``: what the user should know;
    ``ttl_removed``: a branch that had a TTL and comes back (or came back) permanent."""

    def __init__(self, action, reason, deleted=None, live=None, warnings=None, ttl_removed=False):
        self.action = action
        self.reason = reason
        self.deleted = deleted
        self.live = live
        self.warnings = warnings or []
        self.ttl_removed = ttl_removed

    @property
    def changed(self):
        return self.action == RECOVER

    def __repr__(self):
        return "RecoveryPlan(%s, %r)" % (self.action, self.reason)


def deletion_of(item):
    """``{deleted_at, recoverable_until, deletion_method}`` of a deleted branch (its ``recovery``) or project (its own
    fields); a field the service leaves out is None."""
    source = item.get("recovery") if "recovery" in item else item
    source = source or {}
    return {"deleted_at": source.get("deleted_at"), "recoverable_until": source.get("recoverable_until"),
            "deletion_method": source.get("deletion_method")}


def describe_deleted(item):
    """``id br-x (deleted at T, recoverable until U)``."""
    deletion = deletion_of(item)
    return "id %s (deleted at %s, recoverable until %s%s)" % (
        item["id"], deletion["deleted_at"] or "a time the service does not give",
        deletion["recoverable_until"] or "a time the service does not give",
        ", by its TTL" if deletion["deletion_method"] == "ttl" else "")


def had_ttl(item):
    """Whether a deleted branch was deleted by its TTL or had one (``expires_at``): recovered, it is permanent."""
    return deletion_of(item)["deletion_method"] == "ttl" or bool(item.get("expires_at"))


def ttl_warning(item):
    deletion = deletion_of(item)
    why = "was deleted by its TTL" if deletion["deletion_method"] == "ttl" else \
        "had a TTL (expires_at %s)" % item.get("expires_at")
    return "Branch %r (%s) %s; the service makes a recovered branch permanent: it no longer expires. Set expires_at " \
           "again with neon.cloud.branch if it should" % (item["name"], item["id"], why)


def recovery_plan(kind, wanted, live, deleted, where, same_name_allowed=False):
    """The plan to recover the ``kind`` (``branch`` or ``project``) ``wanted`` (an id, else a name) given what is
    ``live`` and what is ``deleted`` (each as listed); ``where``: ``of project x`` or ``that this API key reaches``.
    ``same_name_allowed``: whether the service lets two live objects share a name (projects), else recovering one
    beside a live one of its name is refused by the service (branches). A Refusal when nothing can be recovered."""
    by_id = [item for item in deleted if item["id"] == wanted]
    live_by_id = [item for item in live if item["id"] == wanted]
    if live_by_id:
        found = live_by_id[0]
        return RecoveryPlan(NOTHING, "%s %r (%s) is not deleted: an earlier run recovered it, or it was never deleted; "
                            "it is not recovered again" % (kind, found.get("name"), found["id"]), live=found)
    if by_id:
        return _recover(kind, by_id[0], live, deleted, same_name_allowed)
    named = [item for item in deleted if item.get("name") == wanted]
    live_named = [item for item in live if item.get("name") == wanted]
    if len(named) > 1:
        raise Refusal("%d deleted %s %s are named %r: %s. Give the id of the one to recover (%s)" % (
            len(named), PLURAL[kind], where, wanted, "; ".join(describe_deleted(item) for item in named),
            ID_OPTION[kind]))
    if named:
        if live_named:
            raise Refusal(_live_beside_deleted(kind, wanted, live_named, named[0], same_name_allowed))
        return _recover(kind, named[0], live, deleted, same_name_allowed)
    if len(live_named) == 1:
        found = live_named[0]
        return RecoveryPlan(NOTHING, "%s %r is live (%s) and no deleted %s %s has that name: an earlier run recovered "
                            "it, or it was never deleted; nothing is recovered" % (kind, wanted, found["id"], kind, where),
                            live=found)
    if live_named:
        raise Refusal("no deleted %s %s is named %r, and %d live ones are (%s): nothing to recover" % (
            kind, where, wanted, len(live_named), ", ".join(item["id"] for item in live_named)))
    raise Refusal("there is no deleted %s %s whose name or id is %r: it was never deleted, or was deleted more than 7 "
                  "days ago (%s; past that it is gone for good), or the name is wrong" % (
                      kind, where, wanted, WINDOW % kind))


def _live_beside_deleted(kind, wanted, live_named, deleted, same_name_allowed):
    live_ids = ", ".join(item["id"] for item in live_named)
    if same_name_allowed:
        return ("a live %s named %r exists (%s) beside a deleted one (%s): which one the task means is not clear. To "
                "bring the deleted one back as well (two %s of that name then), give its id (%s); to keep only the live "
                "one, there is nothing to recover" % (kind, wanted, live_ids, describe_deleted(deleted), PLURAL[kind],
                                                      ID_OPTION[kind]))
    return ("a live %s named %r exists (%s) beside a deleted one (%s), and the service keeps one %s of a name. Decide "
            "which one you want: to get the deleted one back, rename or delete the live one first, then recover it by "
            "its id (%s); to keep the live one, there is nothing to recover" % (
                kind, wanted, live_ids, describe_deleted(deleted), kind, ID_OPTION[kind]))


def _recover(kind, item, live, deleted, same_name_allowed):
    """The RECOVER plan for the deleted ``item``, or a Refusal for what the service would refuse."""
    warnings = []
    same_name = [other for other in live if other.get("name") == item.get("name")]
    if same_name and not same_name_allowed:
        raise Refusal(_live_beside_deleted(kind, item.get("name"), same_name, item, same_name_allowed))
    if same_name:
        warnings.append("A live %s named %r exists too (%s): after the recovery two %s have that name" % (
            kind, item.get("name"), ", ".join(other["id"] for other in same_name), PLURAL[kind]))
    parent_id = item.get("parent_id")
    deleted_parent = [other for other in deleted if parent_id and other["id"] == parent_id]
    if kind == "branch" and deleted_parent:
        parent = deleted_parent[0]
        raise Refusal("branch %r (%s) was made from branch %r, which is deleted too (%s): recover the parent first" % (
            item["name"], item["id"], parent["name"], describe_deleted(parent)))
    ttl = kind == "branch" and had_ttl(item)
    if ttl:
        warnings.append(ttl_warning(item))
    return RecoveryPlan(RECOVER, "%s %r %s is deleted and within its recovery window: it is recovered" % (
        kind, item.get("name"), describe_deleted(item)), deleted=item, warnings=warnings, ttl_removed=ttl)


def recovery_diff(kind, plan):
    """(before, after) of a recovery ``plan`` for the diff: deleted, then live (a branch's TTL gone)."""
    item = plan.deleted if plan.action == RECOVER else plan.live
    shown = {"id": item["id"], "name": item.get("name")}
    if kind == "branch":
        shown["expires_at"] = item.get("expires_at")
    if plan.action != RECOVER:
        shown["state"] = "live"
        return shown, dict(shown)
    before = dict(shown, state="deleted", **deletion_of(item))
    after = dict(shown, state="live")
    if kind == "branch":
        after["expires_at"] = None
    return before, after


def lost_or_refused(error):
    """Whether a recover request's failure may mean that another run recovered it meanwhile (or that this run's was
    carried out and its answer lost): 404, 409, or an answer that leaves open whether it was carried out."""
    return error.status in (NOT_FOUND, CONFLICT) or getattr(error, "ambiguous", False)


def refusal_hint(kind, error, deleted):
    """What a refused recovery's status means, for the failure's sentence."""
    if error.status == NOT_FOUND:
        until = deletion_of(deleted)["recoverable_until"]
        return "the service no longer has it: its recovery window %s, and past it the %s is gone for good" % (
            "ended at %s" % until if until else "has ended", kind)
    if error.status == CONFLICT:
        return "the service refuses to recover it as things are now (a live %s of its name, a deleted parent, or it is " \
               "not deleted); list the %s again and decide" % (kind, "branches" if kind == "branch" else "projects")
    return None


# ---------------------------------------------------------------------------------------------- carrying it out


class _Recovery(Writer):
    """The steps both recoveries share; a subclass reads and sends its own."""

    kind = None
    wanted_option = None  # the module's option that names what to recover (a name, or an id)
    waits = True
    # The service's answer names no operations, so ``operations`` stays empty; what runs is waited for (settle).

    @classmethod
    def options_problem(cls, options):
        return input_problem(options["project_id"], options[cls.wanted_option], cls.wanted_option)

    def decide(self, current):
        live, deleted = current
        plan = recovery_plan(self.kind, self.wanted, live, deleted, self.where(), self.kind == "project")
        self.task.warnings.extend(plan.warnings)
        recovered_from = deletion_of(plan.deleted) if plan.deleted else None
        if recovered_from and self.kind == "project":
            del recovered_from["deletion_method"]
        self.task.kept.update(recovered_from=recovered_from, ttl_removed=plan.ttl_removed)
        return plan

    def diff(self, current, plan):
        return recovery_diff(self.kind, plan)

    def act(self, current, plan):
        """Send the recovery; True when this run's was carried out, False when another run's was found."""
        item = plan.deleted
        path = self.recover_path(item["id"])
        label = "%s %r (%s)" % (self.kind, item.get("name"), item["id"])
        try:
            data = self.task.send("POST", path, self.operations_project(item))
        except NeonAPIError as error:
            if lost_or_refused(error) and self.recovered_meanwhile(item, error):
                return False
            hint = refusal_hint(self.kind, error, item)
            raise self.task.failure("Recovering %s failed: %s%s" % (label, error.describe(),
                                                                    ". " + hint if hint else ""), error)
        self.task.did("recovered %s" % label)
        self.took(data, path, item)
        return True

    def recovered_meanwhile(self, item, error):
        """After a refused or lost recovery: whether the object is live now (another run recovered it, or this run's
        answer was lost); then it is kept, with a warning, and waited for."""
        found = self.live_now(item["id"])
        if found is None:
            return False
        if getattr(error, "ambiguous", False):
            self.task.warnings.append("The answer to recovering %s %r (%s) was lost (%s); looking again found it "
                                      "live, so it was not asked again" % (self.kind, item.get("name"), item["id"],
                                                                           error.problem))
            self.task.changed = True
        else:
            self.task.warnings.append("%s %r (%s) was recovered by another run at the same time (the service answered "
                                      "HTTP %s: %s); this run did not recover it again" % (
                                          self.kind.capitalize(), item.get("name"), item["id"], error.status,
                                          error.api_message or "no message"))
        self.keep_live(found)
        return True


class BranchRecovery(_Recovery):
    """The deleted branch ``branch`` (a name or an id) of ``project_id`` recovered, with the requests and waits of
    ``task`` (a ResourceTask)."""

    kind = "branch"
    wanted_option = "branch"
    path_options = ("project_id", "branch")

    @classmethod
    def from_options(cls, task, options):
        return cls(task, options["project_id"], options["branch"])

    def __init__(self, task, project_id, branch):
        super(BranchRecovery, self).__init__(task)
        self.project_id = project_id
        self.wanted = branch

    def where(self):
        return "of project %s" % self.project_id

    def recover_path(self, branch_id):
        return project_path(self.project_id, "branches", branch_id, "recover")

    def operations_project(self, _item):
        return self.project_id

    def read(self):
        """The project's branches, the deleted ones too: (live, deleted)."""
        path = project_path(self.project_id, "branches")
        try:
            with reaching_project(self.project_id):
                branches = collect(self.client, path, "branches", BRANCHES_PAGE_MAX,
                                   params={"include_deleted": "true"}, want_cursor=False,
                                   item_fields=DELETED_BRANCH_FIELDS).items
        except Refusal as refusal:
            raise Refusal(refusal.msg + ". If the project itself was deleted, recover it first with "
                          "neon.cloud.project_recover", refusal.cause)
        check = answers.Checker("GET", path)
        live, deleted = [], []
        for item in branches:
            if "recovery" in item:
                check.fields(item["recovery"], "branches[id=%s].recovery" % item["id"], **RECOVERY_FIELDS)
                deleted.append(item)
            else:
                live.append(item)
        return live, deleted

    def as_planned(self, current, plan, after):
        if plan.action == NOTHING:
            self._settle(plan.live)
            return after
        self.task.kept.update(branch=dict(((key, value) for key, value in plan.deleted.items() if key != "recovery"),
                                          expires_at=None), endpoints=[])
        return after

    def took(self, data, path, item):
        """The branch and its computes as the recovery answered them (checked), then waited for."""
        try:
            branch = answers.item_of(data, "POST", path, "branch", BRANCH_ANSWER_FIELDS, item["id"])
            if isinstance(data, dict) and data.get("endpoints") is not None:  # SPEC: optional
                self.task.kept["endpoints"] = read_write_first(answers.items_of(data, "POST", path, "endpoints",
                                                                                ENDPOINT_FIELDS))
        except NeonAPIError as error:
            raise self.task.failure("Recovered branch %s, but its answer cannot be used: %s" % (
                item["id"], error.describe()), error)
        self.task.kept.update(branch=branch)
        self._settle(branch)

    def live_now(self, branch_id):
        return self._get(branch_id)

    def keep_live(self, found):
        self.task.kept["branch"] = found
        self._settle(found)

    def _get(self, branch_id):
        path = project_path(self.project_id, "branches", branch_id)
        try:
            data = self.client.get(path)
        except NeonAPIError as error:
            if error.status == NOT_FOUND:
                return None
            raise
        return answers.item_of(data, "GET", path, "branch", BRANCH_ANSWER_FIELDS, branch_id)

    def _settle(self, branch):
        """Wait until what runs on the branch has ended (the recovery's operations, or an earlier run's), then read it
        again with its computes."""
        what = "branch %r (%s) was recovered" % (branch.get("name"), branch["id"])
        waited = self.task.settle(self.project_id, what, unsettled=not branch_settled(branch), branch_id=branch["id"])
        current = self._get(branch["id"]) if waited else branch
        self.task.kept.update(branch=current or branch,
                              endpoints=read_write_first(branch_endpoints(self.client, self.project_id, branch["id"])))


class ProjectRecovery(_Recovery):
    """The deleted project ``project`` (its id, or ``name``) recovered, looked for in ``org_id`` (None: where the key's
    projects are listed), with the requests and waits of ``task`` (a ResourceTask)."""

    kind = "project"
    wanted_option = "name"
    path_options = ("project_id",)

    @classmethod
    def from_options(cls, task, options):
        return cls(task, options["project_id"], options["name"], options["org_id"])

    def __init__(self, task, project_id=None, name=None, org_id=None):
        super(ProjectRecovery, self).__init__(task)
        self.project_id = project_id
        self.name = name
        self.org_id = org_id
        self.wanted = project_id if project_id is not None else name

    def where(self):
        return "in organization %s" % self.org_id if self.org_id else "that this API key reaches"

    def recover_path(self, project_id):
        return project_path(project_id, "recover")

    def operations_project(self, item):
        return item["id"]

    def read(self):
        """The projects of that id or name, live and deleted: (live, deleted)."""
        found = ProjectReader(self.client, project_id=self.project_id, name=self.name, org_id=self.org_id).read()
        self.org_id = self.org_id or found.org_id
        self.task.warnings.extend(found.warnings)
        keep = (lambda item: item["id"] == self.project_id) if self.project_id is not None else \
            (lambda item: item.get("name") == self.name)
        deleted = collect(self.client, "/projects", "projects", PROJECTS_PAGE_MAX,
                          params={"recoverable": "true", "search": self.wanted, "org_id": self.org_id}, keep=keep,
                          want_cursor=False, item_fields=DELETED_PROJECT_FIELDS).items
        live = found.projects
        live_ids = set(item["id"] for item in live)
        deleted = [item for item in deleted if item["id"] not in live_ids]
        if self.project_id is not None and deleted and deleted[0].get("name") and not live:
            # live projects of the deleted one's name: the user is told two will have it (names need not be unique)
            live = ProjectReader(self.client, name=deleted[0]["name"], org_id=self.org_id).read().projects
        return live, deleted

    def as_planned(self, current, plan, after):
        if plan.action == NOTHING:
            self.keep_live(plan.live)
            return after
        self.task.kept.update(project=dict((key, value) for key, value in plan.deleted.items()
                                           if key not in ("deleted_at", "recoverable_until")), branches=[])
        return after

    def took(self, data, path, item):
        try:
            project = answers.item_of(data, "POST", path, "project", PROJECT_ANSWER_FIELDS, item["id"])
        except NeonAPIError as error:
            raise self.task.failure("Recovered project %s, but its answer cannot be used: %s" % (
                item["id"], error.describe()), error)
        self.task.kept.update(project=project)
        self._settle(project)

    def live_now(self, project_id):
        path = project_path(project_id)
        try:
            data = self.client.get(path)
        except NeonAPIError as error:
            if error.status == NOT_FOUND:
                return None
            raise
        return answers.item_of(data, "GET", path, "project", PROJECT_ANSWER_FIELDS, project_id)

    def keep_live(self, found):
        self.task.kept["project"] = found
        self._settle(found)

    def _settle(self, project):
        """Wait until what the recovery runs on the project has ended, then read it again with its branches."""
        what = "project %r (%s) was recovered" % (project.get("name"), project["id"])
        branches = list_branches(self.client, project["id"])
        unsettled = any(not branch_settled(branch) for branch in branches)
        if self.task.settle(project["id"], what, unsettled=unsettled or None):
            project = self.live_now(project["id"]) or project
            branches = list_branches(self.client, project["id"])
        self.task.kept.update(project=project, branches=branches)
