# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A snapshot restored as a branch, and its finalize (``neon.cloud.snapshot_restore``).

The facts are in docs/docsite/rst/api-behaviour.rst, "Snapshots and backup schedules": a restore
(``POST /projects/{id}/snapshots/{sid}/restore``) makes a new branch from the snapshot (``restore_status:
restored``, ``restored_from``: the snapshot's id); finalizing it (at once with ``finalize_restore``, or later
with ``POST .../branches/{id}/finalize_restore``) moves the target's computes to it, gives it the target's
name and renames the target: the name and the connection string stay, the branch id changes, and the
restored branch names the branch it replaced in ``restored_as``. A rerun is not a second restore: the branch
restored from that snapshot under that name, or the one that took the target's place, is the result
(``decide_restore``, pure).

The rules are pure functions here (unit-tested without HTTP); ``SnapshotRestore`` is a Writer (writer.py) on
ResourceTask (task.py). The snapshot itself (finding it, listing them) is snapshots.py's.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.branches import branch_settled
from ansible_collections.neon.cloud.plugins.module_utils._resources.endpoints import branch_endpoints
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import BRANCH_FIELDS, branch_label, choose_branch, list_branches
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import NOTHING, REFUSE, Plan
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.resource import sentence
from ansible_collections.neon.cloud.plugins.module_utils._resources.restores import RESTORE
from ansible_collections.neon.cloud.plugins.module_utils._resources.snapshots import find_snapshot, list_snapshots
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import Found
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import Writer

_TEXT_OR_NULL = (str, type(None))
# What a restore's decisions read of a branch (SPEC Branch), checked before use.
RESTORE_FIELDS = dict(optional={"restore_status": _TEXT_OR_NULL, "restored_from": _TEXT_OR_NULL,
                                "restored_as": _TEXT_OR_NULL})
RESTORED = "restored"
FINALIZED = "finalized"
FINALIZE = "finalize"
# The name the service gives the replaced branch when a finalize names none (notes: "<branch_name> (old)").
OLD_NAME = "%s (old)"


# ---------------------------------------------------------------------------------------------- pure rules


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


class SnapshotRestorePlan(Plan):
    """What a snapshot_restore task does: restore, finalize ``branch``, nothing (``branch``: the result) or refuse."""

    def __init__(self, action, reason, branch=None):
        super(SnapshotRestorePlan, self).__init__(action, reason)
        self.branch = branch
        self.moving = []  # the computes a finalize moves, as SnapshotRestore reads them for the diff and check mode

    @property
    def changed(self):
        return self.action in (RESTORE, FINALIZE)


def decide_restore(snapshot, target, branches, name, finalize):
    """The SnapshotRestorePlan for restoring ``snapshot`` into ``target`` as branch ``name`` (finalized if ``finalize``).

    A rerun is not a second restore: a finalized branch restored from the snapshot that took the
    target's place, or the branch ``name`` restored from it, is the result (finalized now when asked
    and it is not yet). A branch ``name`` that was not restored from the snapshot is refused: the
    restored branch needs a name of its own, and only a restored branch can be finalized.
    """
    label = "snapshot %r (%s)" % (snapshot["name"], snapshot["id"])
    done = [branch for branch in branches if restored_from(branch, snapshot)
            and branch.get("restore_status") == FINALIZED and took_place_of(branch, target)]
    if done:
        return SnapshotRestorePlan(NOTHING, "%s was restored and finalized: branch %s took the place of branch %s" % (
            label, branch_label(done[0]), target["id"]), done[0])
    named = [branch for branch in branches if branch["name"] == name]
    if not named:
        return SnapshotRestorePlan(RESTORE, "%s has not been restored as branch %r" % (label, name))
    existing = named[0]
    if not restored_from(existing, snapshot):
        source = existing.get("restored_from")
        how = "restored from snapshot %s" % source if source else "not restored from a snapshot"
        if finalize:
            return SnapshotRestorePlan(REFUSE, "branch %s cannot be finalized as the restore of %s: it was %s. name is "
                                       "the restored branch's own name until its restore is finalized (then it takes "
                                       "the target's); give a name no branch has" % (branch_label(existing), label, how))
        return SnapshotRestorePlan(REFUSE, "branch %s exists and was %s, so %s cannot be restored under that name; give "
                                   "the restored branch a name no branch has" % (branch_label(existing), how, label))
    status = existing.get("restore_status")
    if not finalize or status == FINALIZED:
        return SnapshotRestorePlan(NOTHING, "%s was restored as branch %s (restore_status %s)" % (
            label, branch_label(existing), status), existing)
    if status != RESTORED:
        return SnapshotRestorePlan(REFUSE, "branch %s, restored from %s, is %s, not %s: it cannot be finalized now; run "
                                   "the task again once the service has ended that" % (
                                       branch_label(existing), label, status, RESTORED))
    return SnapshotRestorePlan(FINALIZE, "%s was restored as branch %s, not finalized yet" % (
        label, branch_label(existing)), existing)


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


def restore_facts(branches, path):
    """``branches`` with their restore fields checked (restore_status, restored_from, restored_as)."""
    return answers.Checker("GET", path).each(branches, "branches", **RESTORE_FIELDS)


# ---------------------------------------------------------------------------------------------- a restore


class SnapshotRestore(Writer):
    """Restore ``snapshot`` (name or id) of ``project_id`` as branch ``name`` into ``target`` (name or id; None:
    the snapshot's source branch), finalized when ``finalize``."""

    path_options = ("project_id", "snapshot", "target_branch")
    waits = True

    @classmethod
    def options_problem(cls, options):
        return next(("%s must not be empty" % option for option in ("snapshot", "name") if not options[option].strip()),
                    None)

    @classmethod
    def from_options(cls, task, options):
        return cls(task, options["project_id"], options["snapshot"], options["name"], options["target_branch"],
                   options["finalize"])

    def __init__(self, task, project_id, snapshot, name, target=None, finalize=False):
        super(SnapshotRestore, self).__init__(task)
        self.project_id = project_id
        self.wanted_snapshot = snapshot
        self.name = name
        self.wanted_target = target
        self.finalize = finalize
        self.snapshot = None
        self.target = None
        self.branches = []  # the project's branches, as the last decision listed them
        self.label = "snapshot %r" % snapshot

    # ------------------------------------------------------------------------------------------ the steps

    def read(self):
        """The snapshot (found once), the project's branches and the target: two requests."""
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
        return branches

    def decide(self, current):
        """The plan (a refusal fails the task), with ``moving``: the computes a finalize moves, read for the diff
        and check mode's result only."""
        plan = decide_restore(self.snapshot, self.target, current, self.name, self.finalize)
        if plan.action == REFUSE:
            raise Refusal(plan.reason)
        finalizing = plan.action == FINALIZE or (plan.action == RESTORE and self.finalize)
        if finalizing and (self.task.check_mode or self.task.diff):
            plan.moving = branch_endpoints(self.client, self.project_id, self.target["id"])
        return plan

    def diff(self, current, plan):
        return restore_shown(plan, self.snapshot, self.target, self.name, self.finalize,
                             [endpoint["id"] for endpoint in plan.moving])

    def as_planned(self, current, plan, after):
        if plan.action == NOTHING:
            self._as_it_is(plan.branch)
        else:
            self._keep_predicted(plan, after, plan.moving)
        return after

    def act(self, current, plan):
        """The restore and the finalize the plan asks for; the restored branch."""
        if plan.action == RESTORE:
            plan = self._restore()
        if plan.action == FINALIZE:
            self._finalize(plan.branch)
        elif plan.action != NOTHING:  # another run's restore, decided against again, is not one to take
            raise self.task.failure(plan.reason)
        return plan.branch

    def read_again(self, current, done, after):
        self._as_it_is(done)
        return after

    # ------------------------------------------------------------------------------------------ deciding

    def _decide(self):
        """The plan as the project is now (two requests): after a restore, or to find one again."""
        return decide_restore(self.snapshot, self.target, self.read(), self.name, self.finalize)

    def _branches(self):
        branches = list_branches(self.client, self.project_id)
        return restore_facts(branches, project_path(self.project_id, "branches"))

    def _target(self, branches):
        if self.wanted_target is not None:
            return choose_branch(branches, self.wanted_target, self.project_id, "target_branch")
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
        data, found = self.create_or_adopt(
            path, body, "the restore of %s" % self.label, self._found_again, self.project_id,
            by_another_run=lambda branch: "%s was restored by another run at the same time (branch %s); this run "
                                          "uses it." % (sentence(self.label), branch_label(branch)))
        if found is not None:
            if found.ours:  # its answer was lost: its operations are not known, so wait for all of the project's
                self.task.did(what)
                self.task.wait_idle(self.project_id, what)
            return self._decide()  # decided again against it: finalized now when asked and not yet
        try:
            branch = answers.item_of(data, "POST", path, "branch", BRANCH_FIELDS)
        except UnexpectedAnswer as error:
            self.task.did(what)
            raise self.task.failure("%s, but its answer cannot be used: %s" % (what, error.describe()), error)
        what = "%s (id %s)" % (what, branch["id"])
        self.task.did(what)
        self.task.kept["branch"] = branch
        self.task.wait_for_operations_of(data, "POST", path, self.project_id, what)
        return SnapshotRestorePlan(NOTHING, what, branch)

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

    def _as_it_is(self, branch):
        """The restored branch as it is now: found as asked, what a run that timed out left running on it (its
        create, its computes' restart) is waited for first, so that wait=true means ready on every run."""
        waited = False
        if not self.task.changed:
            waited = self.task.settle(self.project_id, "branch %s has operations still running" % branch_label(branch),
                                      unsettled=None if branch_settled(branch) else True, branch_id=branch["id"])
        self._keep_as_it_is(branch["id"], None if self.task.changed or waited else self.branches)

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
        """Check mode's result of a restore or a finalize: the restored branch, its computes and the replaced branch
        as they would be."""
        shown = after["restored_branch"]
        finalized = shown["restore_status"] == FINALIZED
        self.task.kept["branch"] = dict(plan.branch or {}, id=shown["id"], name=shown["name"],
                                        restored_from=self.snapshot["id"], restore_status=shown["restore_status"])
        self.task.kept["endpoints"] = moving if finalized else []
        self.task.kept["finalized"] = finalized
        self.task.kept["replaced_branch"] = dict(self.target, name=after["target_branch"]["name"]) if finalized else None
