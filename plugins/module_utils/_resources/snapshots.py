# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A project's snapshots (``neon.cloud.snapshot``, ``snapshot_info``) and their restore (``snapshot_restore``).

The facts are in docs/docsite/rst/api-behaviour.rst, "Snapshots and backup schedules":

- A snapshot is found by its name among the project's (``GET /projects/{id}/snapshots``; names are
  unique within a project, a listing with two is refused naming both). It is created with query
  parameters (``POST .../branches/{id}/snapshot?name=...``: a JSON body is ignored by the service),
  only from a root branch, and answers ``{snapshot, operations}``. The service's update takes only a
  name, so an existing snapshot whose expiry differs is said in a warning and left as it is; its source
  branch or point differing is refused. Its delete answers 202 with operations.
- A restore (``POST /projects/{id}/snapshots/{sid}/restore``) makes a new branch from the snapshot
  (``restore_status: restored``, ``restored_from``: the snapshot's id); finalizing it (at once with
  ``finalize_restore``, or later with ``POST .../branches/{id}/finalize_restore``) moves the target's
  computes to it, gives it the target's name and renames the target: the name and the connection string
  stay, the branch id changes. A rerun is not a second restore: the branch restored from that snapshot
  under that name, or the one that took the target's place, is the result (``decide_restore``, pure).

The rules are pure functions here (unit-tested without HTTP); ``Snapshot`` is a Resource of the walk
(resource.py), ``SnapshotRestore`` an action of its own on ResourceTask (task.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path, query_string
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._api.timestamps import timestamp
from ansible_collections.neon.cloud.plugins.module_utils._resources.descriptions import (
    branch_label,
    branch_settled,
    find_branch,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import (
    branch_endpoints,
    list_branches,
    locate_branch,
    no_such_project,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import (
    CREATE,
    NOTHING,
    REFUSE,
    Description,
    Field,
    Plan,
    Refusal,
    decide,
    same_time,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.resource import Resource, sentence
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import Found

_TEXT_OR_NULL = (str, type(None))
# What the collection reads of a snapshot (SPEC Snapshot: id, name and created_at required).
SNAPSHOT_FIELDS = dict(
    required={"id": (str,), "name": (str,)},
    optional={"created_at": _TEXT_OR_NULL, "lsn": _TEXT_OR_NULL, "timestamp": _TEXT_OR_NULL,
              "source_branch_id": _TEXT_OR_NULL, "expires_at": _TEXT_OR_NULL, "manual": (bool,)},
)
# What a restore's decisions read of a branch (SPEC Branch), checked before use.
RESTORE_FIELDS = dict(optional={"restore_status": _TEXT_OR_NULL, "restored_from": _TEXT_OR_NULL,
                                "restored_as": _TEXT_OR_NULL})
# An LSN as the service and the vendor CLI write it: two hexadecimal numbers (0/1A2B3C4).
LSN_PATTERN = re.compile(r"^([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})$")
RESTORED = "restored"
FINALIZED = "finalized"
RESTORE = "restore"
FINALIZE = "finalize"
# The name the service gives the replaced branch when a finalize names none (notes: "<branch_name> (old)").
OLD_NAME = "%s (old)"


# ---------------------------------------------------------------------------------------------- pure rules


def lsn_position(value):
    """An LSN's position (an integer), or None when ``value`` is not an LSN."""
    match = LSN_PATTERN.match(value) if isinstance(value, str) else None
    return (int(match.group(1), 16) << 32 | int(match.group(2), 16)) if match else None


def same_lsn_position(before, after):
    """Two LSNs of one position (``0/1a`` and ``0/0000001A`` are one)."""
    first, second = lsn_position(before), lsn_position(after)
    if first is None or second is None:
        return before == after
    return first == second


SNAPSHOT = Description("snapshot", "snapshot", SNAPSHOT_FIELDS, [
    Field("name"),
    Field("branch", "source_branch_id", create_only=True),
    Field("timestamp", create_only=True, same=same_time),
    Field("lsn", create_only=True, same=same_lsn_position),
    # Sent when created; the service's update cannot change it (expiry_warning says so, never silently).
    Field("expires_at", compare=False, same=same_time),
])
# The query parameters a create sends (SPEC createSnapshot), by the API field they come from.
CREATE_PARAMETERS = ("name", "timestamp", "lsn", "expires_at")


def point_problem(options):
    """Why ``timestamp``, ``lsn`` or ``expires_at`` of ``options`` cannot be sent, or None."""
    for option in ("timestamp", "expires_at"):
        value = options.get(option)
        if value is not None and timestamp(value) is None:
            return "%s must be an RFC 3339 timestamp such as 2026-01-31T22:00:00Z, got %r" % (option, value)
    if options.get("lsn") is not None and lsn_position(options["lsn"]) is None:
        return "lsn must be an LSN such as 0/1A2B3C4 (two hexadecimal numbers), got %r" % options["lsn"]
    if options.get("timestamp") is not None and options.get("lsn") is not None:
        return "give timestamp or lsn, not both"
    return None


def snapshot_problem(branch):
    """Why the service would not take a manual snapshot of ``branch``, or None: only root branches."""
    if branch.get("parent_id"):
        return "branch %s is a child of %s, and manual snapshots are taken only of root branches (a branch " \
               "without a parent, such as the project's first one); snapshot its root branch instead" % (
                   branch_label(branch), branch["parent_id"])
    return None


def other_branch_problem(current, branch):
    """Why the snapshot ``current`` is not the one asked of ``branch``: it was taken of another branch (or None)."""
    source = (current or {}).get("source_branch_id")
    if source is None or source == branch["id"]:
        return None
    return "snapshot %r (%s) exists and was taken of branch %s, not of branch %s as asked; a snapshot's branch is " \
           "set when it is taken (after a finalized restore, the branch of a name is a new branch, with a new id). " \
           "Give the snapshot another name, or delete this one first" % (
               current["name"], current["id"], source, branch_label(branch))


def expiry_warning(current, wanted):
    """The warning for an existing snapshot whose expiry is not ``wanted`` (None when it is, or none was asked)."""
    if current is None or wanted is None or same_time(current.get("expires_at"), wanted):
        return None
    return "Snapshot %r (%s) expires %s, not at %s as asked. The service's update takes only a name, so its expiry " \
           "was left as it is; delete the snapshot and create it again to change it." % (
               current["name"], current["id"],
               "at %s" % current["expires_at"] if current.get("expires_at") else "never", wanted)


def find_snapshot(snapshots, wanted):
    """The snapshot whose id is ``wanted``, else the one named ``wanted`` (two of one name: a Refusal); None."""
    by_id = [snapshot for snapshot in snapshots if snapshot["id"] == wanted]
    if by_id:
        return by_id[0]
    named = [snapshot for snapshot in snapshots if snapshot["name"] == wanted]
    if len(named) > 1:
        raise Refusal("%d snapshots are named %r (ids %s); a name that does not identify one cannot be used, so "
                      "nothing was changed. Give the id of the one you mean." % (
                          len(named), wanted, ", ".join(snapshot["id"] for snapshot in named)))
    return named[0] if named else None


def restored_from(branch, snapshot):
    return branch.get("restored_from") == snapshot["id"]


def took_place_of(branch, target):
    """Whether ``branch`` (a finalized restore) replaced ``target``: it is the target as named now, or one of
    them names the other in ``restored_as`` (SPEC: the restored branch names the target it replaced)."""
    return branch["id"] == target["id"] or branch.get("restored_as") == target["id"] or \
        target.get("restored_as") == branch["id"]


def replaced_branch(restored, branches, target_id=None):
    """The branch ``restored`` took the place of when its restore was finalized, or None."""
    for branch in branches:
        named = branch["id"] == restored.get("restored_as") or branch.get("restored_as") == restored["id"]
        if named and branch["id"] != restored["id"]:
            return branch
    if target_id is not None and target_id != restored["id"]:
        return next((branch for branch in branches if branch["id"] == target_id), None)
    return None


class RestorePlan(Plan):
    """What a snapshot_restore task does: restore, finalize ``branch``, nothing (``branch``: the result) or refuse."""

    def __init__(self, action, reason, branch=None):
        super(RestorePlan, self).__init__(action, reason)
        self.branch = branch

    @property
    def changed(self):
        return self.action in (RESTORE, FINALIZE)


def decide_restore(snapshot, target, branches, name, finalize):
    """The RestorePlan for restoring ``snapshot`` into ``target`` as branch ``name`` (finalized if ``finalize``).

    A rerun is not a second restore: a finalized branch restored from the snapshot that took the
    target's place, or the branch ``name`` restored from it, is the result (finalized now when asked
    and it is not yet). A branch ``name`` that was not restored from the snapshot is refused: the
    restored branch needs a name of its own, and only a restored branch can be finalized.
    """
    label = "snapshot %r (%s)" % (snapshot["name"], snapshot["id"])
    done = [branch for branch in branches if restored_from(branch, snapshot)
            and branch.get("restore_status") == FINALIZED and took_place_of(branch, target)]
    if done:
        return RestorePlan(NOTHING, "%s was restored and finalized: branch %s took the place of branch %s" % (
            label, branch_label(done[0]), target["id"]), done[0])
    named = [branch for branch in branches if branch["name"] == name]
    if not named:
        return RestorePlan(RESTORE, "%s has not been restored as branch %r" % (label, name))
    existing = named[0]
    if not restored_from(existing, snapshot):
        source = existing.get("restored_from")
        how = "restored from snapshot %s" % source if source else "not restored from a snapshot"
        if finalize:
            return RestorePlan(REFUSE, "branch %s cannot be finalized as the restore of %s: it was %s. name is the "
                                       "restored branch's own name until its restore is finalized (then it takes "
                                       "the target's); give a name no branch has" % (branch_label(existing), label, how))
        return RestorePlan(REFUSE, "branch %s exists and was %s, so %s cannot be restored under that name; give the "
                                   "restored branch a name no branch has" % (branch_label(existing), how, label))
    status = existing.get("restore_status")
    if not finalize or status == FINALIZED:
        return RestorePlan(NOTHING, "%s was restored as branch %s (restore_status %s)" % (
            label, branch_label(existing), status), existing)
    if status != RESTORED:
        return RestorePlan(REFUSE, "branch %s, restored from %s, is %s, not %s: it cannot be finalized now; run the "
                                   "task again once the service has ended that" % (
                                       branch_label(existing), label, status, RESTORED))
    return RestorePlan(FINALIZE, "%s was restored as branch %s, not finalized yet" % (label, branch_label(existing)),
                       existing)


def restore_shown(plan, snapshot, target, name, finalize, moved):
    """The diff's (before, after) of a restore plan: the target and the restored branch, as they are and will be.
    ``moved``: the ids of the computes a finalize moves from the target to the restored branch."""
    restored = plan.branch
    before = {"target_branch": {"id": target["id"], "name": target["name"]},
              "restored_branch": None if restored is None else {
                  "id": restored["id"], "name": restored["name"], "restore_status": restored.get("restore_status")}}
    if plan.action not in (RESTORE, FINALIZE):
        return before, before
    finalizing = plan.action == FINALIZE or finalize
    after = {"target_branch": {"id": target["id"], "name": OLD_NAME % target["name"] if finalizing else target["name"]},
             "restored_branch": {
                 "id": restored["id"] if restored is not None else None,
                 "name": target["name"] if finalizing else name,
                 "restored_from": "%s (%s)" % (snapshot["name"], snapshot["id"]),
                 "snapshot_timestamp": snapshot.get("timestamp"),
                 "restore_status": FINALIZED if finalizing else RESTORED,
                 "computes": sorted(moved) if finalizing else []}}
    return before, after


# ---------------------------------------------------------------------------------------------- reading


def list_snapshots(client, project_id):
    """The project's snapshots, each checked: one request. A Refusal when the project does not exist."""
    path = project_path(project_id, "snapshots")
    try:
        data = client.get(path)
    except NeonAPIError as error:
        if error.status == 404:
            raise Refusal(no_such_project(project_id, error), error)
        raise
    return answers.items_of(data, "GET", path, "snapshots", SNAPSHOT_FIELDS)


def restore_facts(branches, path):
    """``branches`` with their restore fields checked (restore_status, restored_from, restored_as)."""
    return answers.Checker("GET", path).each(branches, "branches", **RESTORE_FIELDS)


# ---------------------------------------------------------------------------------------------- a snapshot


class Snapshot(Resource):
    """The snapshot ``name`` of ``project_id``, taken of ``branch`` (name or id; None: the default branch)."""

    description = SNAPSHOT

    def __init__(self, task, project_id, name, branch=None):
        super(Snapshot, self).__init__(task, project_id)
        self.name = name
        self.wanted_branch = branch
        self.branch = None  # the source branch (present only)
        self.locate = False
        self.query = {}  # the query parameters of the create this run plans
        self.label = "snapshot %r" % name

    def present(self, options):
        self.locate = True
        return super(Snapshot, self).present(options)

    def find(self):
        if self.locate and self.branch is None:
            self.branch = locate_branch(self.client, self.project_id, self.wanted_branch)
            self.task.kept["branch_id"] = self.branch["id"]
        named = [snapshot for snapshot in list_snapshots(self.client, self.project_id) if snapshot["name"] == self.name]
        if len(named) > 1:
            raise Refusal("%d snapshots are named %r in project %s (ids %s); a name that does not identify one "
                          "cannot be used, so nothing was changed. Delete the ones you do not mean." % (
                              len(named), self.name, self.project_id, ", ".join(item["id"] for item in named)))
        return named[0] if named else None

    def input_problem(self, options):
        return point_problem(options)

    def decide(self, current, options):
        other = other_branch_problem(current, self.branch)
        if other:
            return Plan(REFUSE, other)
        plan = decide(SNAPSHOT, current, dict(options, name=self.name, branch=self.branch["id"]), name=self.name)
        self.query = dict((field, plan.body[field]) for field in CREATE_PARAMETERS
                          if plan.action == CREATE and field in plan.body)
        warning = expiry_warning(current, options.get("expires_at"))
        if warning and plan.action != REFUSE and warning not in self.task.warnings:
            self.task.warnings.append(warning)
        return plan

    def problem(self, plan, current):
        return snapshot_problem(self.branch) if plan.action == CREATE else None

    def collection_path(self):
        """The create's path with its query parameters: the service reads them, never a body."""
        query = query_string(self.query)
        return project_path(self.project_id, "branches", self.branch["id"], "snapshot") + ("?" + query if query else "")

    def item_path(self, current):
        return project_path(self.project_id, "snapshots", current["id"])

    def create_body(self, plan):
        return None

    def shown(self, current):
        shown = SNAPSHOT.shown(current)
        if current is not None:
            shown["expires_at"] = current.get("expires_at")
        return shown

    def predicted(self, current, plan):
        return current if current is not None else dict(plan.body, id=None)

    def stateless(self):
        return True  # only the project's operations tell whether its create still runs

    def settle_scope(self, current):
        return current.get("source_branch_id"), None

    def delete(self, current):
        """DELETE it (202 with operations) and wait; a 404 means another run deleted it meanwhile."""
        path = self.item_path(current)
        named = self._named(current)
        try:
            data = self.task.send("DELETE", path, self.project_id)
        except NeonAPIError as error:
            if error.status == 404:
                self.task.warnings.append("%s was deleted by another run meanwhile." % sentence(named))
                return
            raise self.task.failure("Deleting %s failed: %s" % (named, error.describe()), error)
        what = "%s was deleted" % named
        self.task.did(what)
        self.task.wait_for_operations_of(data, "DELETE", path, self.project_id, what)


# ---------------------------------------------------------------------------------------------- a restore


class SnapshotRestore:
    """Restore ``snapshot`` (name or id) of ``project_id`` as branch ``name`` into ``target`` (name or id; None:
    the snapshot's source branch), finalized when ``finalize``."""

    def __init__(self, task, project_id, snapshot, name, target=None, finalize=False):
        self.task = task
        self.client = task.client
        self.project_id = project_id
        self.wanted_snapshot = snapshot
        self.name = name
        self.wanted_target = target
        self.finalize = finalize
        self.snapshot = None
        self.target = None
        self.branches = []  # the project's branches, as the last decision listed them
        self.label = "snapshot %r" % snapshot

    def run(self):
        return self.task.keep_on_failure(self._run)

    def _run(self):
        try:
            plan = self._decide()
        except Refusal as refusal:
            raise self.task.refused(refusal)
        if plan.action == REFUSE:
            raise self.task.failure(plan.reason)
        finalizing = plan.action == FINALIZE or (plan.action == RESTORE and self.finalize)
        # The computes a finalize moves: read for the diff and check mode's result only.
        shows = self.task.check_mode or self.task.diff
        moving = branch_endpoints(self.client, self.project_id, self.target["id"]) if finalizing and shows else []
        before, after = restore_shown(plan, self.snapshot, self.target, self.name, self.finalize,
                                      [endpoint["id"] for endpoint in moving])
        if self.task.check_mode:
            self.task.changed = plan.changed
            self._keep_predicted(plan, after, moving)
            return self.task.with_diff(self.task.result(), before, after)
        if plan.action == RESTORE:
            plan = self._restore()
        if plan.action == FINALIZE:
            self._finalize(plan.branch)
        elif plan.action != NOTHING:  # another run's restore, decided against again, is not one to take
            raise self.task.failure(plan.reason)
        branch = plan.branch
        waited = False
        if not self.task.changed:
            # Found as asked: what a run that timed out left running on it (its create, its computes' restart)
            # is waited for, so that wait=true means ready on every run.
            waited = self.task.settle(self.project_id, "branch %s has operations still running" % branch_label(branch),
                                      unsettled=None if branch_settled(branch) else True, branch_id=branch["id"])
        self._keep_as_it_is(branch["id"], None if self.task.changed or waited else self.branches)
        return self.task.with_diff(self.task.result(), before, after)

    # ------------------------------------------------------------------------------------------ deciding

    def _decide(self):
        """The snapshot, the target and the plan, from the project's snapshots and branches: two requests."""
        if self.snapshot is None:
            self.snapshot = find_snapshot(list_snapshots(self.client, self.project_id), self.wanted_snapshot)
            if self.snapshot is None:
                raise Refusal("project %s has no snapshot %r (by id or name); list them with "
                              "neon.cloud.snapshot_info" % (self.project_id, self.wanted_snapshot))
            self.label = "snapshot %r (%s)" % (self.snapshot["name"], self.snapshot["id"])
            self.task.kept["snapshot"] = self.snapshot
        branches = self.branches = self._branches()
        if self.target is None:
            self.target = self._target(branches)
        else:
            self.target = next((branch for branch in branches if branch["id"] == self.target["id"]), self.target)
        return decide_restore(self.snapshot, self.target, branches, self.name, self.finalize)

    def _branches(self):
        branches = list_branches(self.client, self.project_id)
        return restore_facts(branches, project_path(self.project_id, "branches"))

    def _target(self, branches):
        if self.wanted_target is not None:
            target = find_branch(branches, self.wanted_target)
            if target is None:
                raise Refusal("project %s has no branch %r to restore %s into" % (
                    self.project_id, self.wanted_target, self.label))
            return target
        source = self.snapshot.get("source_branch_id")
        target = next((branch for branch in branches if branch["id"] == source), None)
        if target is None:
            raise Refusal("the source branch of %s (%s) no longer exists; give target_branch, the branch to restore "
                          "it into" % (self.label, source))
        return target

    # ------------------------------------------------------------------------------------------ acting

    def _restore(self):
        """POST the restore once (a lost answer is looked for, never posted blindly); the plan after it."""
        path = project_path(self.project_id, "snapshots", self.snapshot["id"], "restore")
        body = {"name": self.name, "target_branch_id": self.target["id"], "finalize_restore": bool(self.finalize)}
        what = "%s was restored as branch %r%s" % (self.label, self.name,
                                                   " and finalized into branch %s" % branch_label(self.target)
                                                   if self.finalize else "")
        data, found = self.task.create(path, body, self.project_id, "the restore of %s" % self.label, self._found_again)
        if found is not None:
            if found.ours:  # its answer was lost: its operations are not known, so wait for all of the project's
                self.task.did(what)
                self.task.wait_idle(self.project_id, what)
            else:
                self.task.warnings.append("%s was restored by another run at the same time (branch %s); this run "
                                          "uses it." % (sentence(self.label), branch_label(found.item)))
            return self._decide()  # decided again against it: finalized now when asked and not yet
        try:
            branch = answers.item_of(data, "POST", path, "branch", answers.BRANCH_FIELDS)
        except UnexpectedAnswer as error:
            self.task.did(what)
            raise self.task.failure("%s, but its answer cannot be used: %s" % (what, error.describe()), error)
        what = "%s (id %s)" % (what, branch["id"])
        self.task.did(what)
        self.task.kept["branch"] = branch
        self.task.wait_for_operations_of(data, "POST", path, self.project_id, what)
        return RestorePlan(NOTHING, what, branch)

    def _found_again(self):
        plan = self._decide()
        return Found(plan.branch, ours=True) if plan.branch is not None and plan.action != REFUSE else None

    def _finalize(self, branch):
        path = project_path(self.project_id, "branches", branch["id"], "finalize_restore")
        restore = "the restore of %s as branch %s" % (self.label, branch_label(branch))
        what = "%s was finalized into branch %s" % (restore, branch_label(self.target))
        data = self.task.change("POST", path, self.project_id, None, "Finalizing %s" % restore)
        self.task.did(what)
        self.task.wait_for_operations_of(data, "POST", path, self.project_id, what)

    # ------------------------------------------------------------------------------------------ the result

    def _keep_as_it_is(self, branch_id, branches=None):
        """The restored branch, its computes and the branch it replaced, as they are now: two requests (one when
        ``branches``, the listing the decision read, is still as it is)."""
        branches = branches if branches is not None else self._branches()
        branch = next((item for item in branches if item["id"] == branch_id), None)
        if branch is None:
            raise self.task.failure("branch %s, the restore of %s, is no longer listed" % (branch_id, self.label))
        self.task.kept["branch"] = branch
        self.task.kept["endpoints"] = branch_endpoints(self.client, self.project_id, branch_id)
        finalized = branch.get("restore_status") == FINALIZED
        self.task.kept["finalized"] = finalized
        self.task.kept["replaced_branch"] = replaced_branch(branch, branches, self.target["id"]) if finalized else None

    def _keep_predicted(self, plan, after, moving):
        """Check mode's result: the restored branch, its computes and the replaced branch as they would be."""
        if plan.action == NOTHING:
            self._keep_as_it_is(plan.branch["id"], self.branches)
            return
        shown = after["restored_branch"]
        finalized = shown["restore_status"] == FINALIZED
        self.task.kept["branch"] = dict(plan.branch or {}, id=shown["id"], name=shown["name"],
                                        restored_from=self.snapshot["id"], restore_status=shown["restore_status"])
        self.task.kept["endpoints"] = moving if finalized else []
        self.task.kept["finalized"] = finalized
        self.task.kept["replaced_branch"] = dict(self.target, name=after["target_branch"]["name"]) if finalized else None
