# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A branch restored to a point in time or to another branch's state (``neon.cloud.branch_restore``).

The service's restore (``POST /projects/{id}/branches/{branch_id}/restore``; docs/docsite/rst/api-behaviour.rst,
"Restore, default branch and schema") replaces the branch's data, roles and databases with the source's
as they were at the point (its own history, or another branch's), keeps its id, name and computes, and
with ``preserve_under_name`` keeps the state it replaces as a new branch of that name, which becomes its
parent and takes its children. The service requires that name when a branch is restored from itself or
has children.

Two parts, the rules first:

- **The rules** (pure, unit-tested): what the options alone refuse (``input_problem``), and the plan
  against what the project holds (``restore_plan``): restore, or nothing because an earlier run did it
  (``restore_kept``: the branch's parent is the branch of that name, which the restore made - younger than
  the branch, which has been reset since), or a refusal. A restore without a
  name to preserve cannot be told from an earlier one, so it is carried out on every run - a reset,
  as ``reset_from_parent`` of ``neon.cloud.branch`` is.
- **Carrying it out** (``BranchRestore``, a Writer: writer.py): one listing of the project's branches and the branch's
  computes; in check mode the diff of what would be restored from where to which point and preserved
  under which name; else the restore (ResourceTask: a 423 waited out, never sent twice), its
  operations waited for, and the branches and computes read again once they have ended (the restored
  branch's ``parent_lsn`` and ``parent_timestamp`` are final only then). A refused restore (a point
  outside the history window) fails with the service's words and nothing else is sent.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError
from ansible_collections.neon.cloud.plugins.module_utils._api.points import (
    lsn_as_sent,
    point_problem,
    same_lsn,
    timestamp_as_sent,
)
from ansible_collections.neon.cloud.plugins.module_utils._api.timestamps import timestamp as seconds_of
from ansible_collections.neon.cloud.plugins.module_utils._resources.branches import BRANCH, branch_settled, children_of
from ansible_collections.neon.cloud.plugins.module_utils._resources.endpoints import branch_endpoints, project_endpoints, read_write_first
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import branch_label, choose_branch, find_branch, list_branches
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import NOTHING, same_time
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal, only_one
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import already_exists
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import Writer

RESTORE = "restore"
BRANCH_NAME_MAX = 256
# What the restore rules read of each listed branch besides finding.BRANCH_FIELDS (SPEC Branch), checked first.
RESTORE_READ_FIELDS = dict(optional={"created_at": (str, type(None)), "last_reset_at": (str, type(None))})
# A Go duration as the service writes a history window in its messages (6h0m0s, 24h0m0s, 30m0s).
_GO_DURATION = re.compile(r"\b(\d+h\d+m\d+(?:\.\d+)?s|\d+m\d+(?:\.\d+)?s)\b")


# ---------------------------------------------------------------------------------------------- the rules (pure)


def input_problem(branch, source_branch=None, timestamp=None, lsn=None, preserve_under_name=None):
    """Why the options alone cannot be a restore (checked before any request), or None. ``branch`` and
    ``source_branch`` are as given (a name or an id; ``source_branch`` None: the branch itself)."""
    problem = point_problem("source_timestamp", timestamp, "source_lsn", lsn)
    if problem:
        return problem
    from_itself = source_branch is None or source_branch == branch
    if from_itself and timestamp is None and lsn is None:
        return "a branch restored from its own history needs the point to go back to: give source_timestamp or " \
               "source_lsn (or source_branch, to take another branch's state)"
    if from_itself and preserve_under_name is None:
        return "preserve_under_name is required to restore a branch from its own history: the service keeps the " \
               "state it replaces as a branch of that name"
    if preserve_under_name is not None:
        if not 1 <= len(preserve_under_name) <= BRANCH_NAME_MAX:
            return "preserve_under_name must be 1 to %d characters long" % BRANCH_NAME_MAX
        if preserve_under_name == branch:
            return "preserve_under_name must differ from the branch's own name: the branch keeps its name"
    return None


class BranchRestorePlan:
    """What a branch_restore task does: ``action`` RESTORE (``body`` is the request, ``point`` what the branch takes) or
    NOTHING (``preserved``: the branch an earlier restore preserved); ``reason``: one sentence; ``warnings``: what
    the user should know; ``endpoints``: the branch's computes, which BranchRestore reads once the plan is made."""

    def __init__(self, action, reason, body=None, point=None, preserved=None, warnings=None):
        self.action = action
        self.reason = reason
        self.body = body or {}
        self.point = point
        self.preserved = preserved
        self.warnings = warnings or []
        self.endpoints = []

    @property
    def changed(self):
        return self.action == RESTORE

    def __repr__(self):
        return "BranchRestorePlan(%s, %r, %r)" % (self.action, self.body, self.reason)


def describe_point(source, itself, timestamp=None, lsn=None):
    """The state a restore takes: ``its own state at 2025-...``, ``branch 'main' (br-...) at LSN 0/1A``, ``... as it
    is now (its head)``."""
    whose = "its own state" if itself else "the state of branch %s" % branch_label(source)
    if timestamp is not None:
        return "%s at %s" % (whose, timestamp)
    if lsn is not None:
        return "%s at LSN %s" % (whose, lsn)
    return "%s as it is now (its head)" % whose


def restore_plan(branch, source, branches, timestamp=None, lsn=None, preserve_under_name=None):
    """The plan to restore ``branch`` from ``source`` (itself or another branch, both as listed) at ``timestamp`` or
    ``lsn`` (None: the source's head), given the project's ``branches``. A Refusal when the service would refuse it
    or when a branch of the name to preserve is not what an earlier restore of this branch left."""
    label = "branch %s" % branch_label(branch)
    itself = source["id"] == branch["id"]
    if itself and timestamp is None and lsn is None:
        raise Refusal("%s is its own source (source_branch names it too), so a point is needed: give "
                      "source_timestamp or source_lsn" % label)
    children = children_of(branches, branch["id"])
    if preserve_under_name is None:
        if itself:
            raise Refusal("preserve_under_name is required to restore %s from its own history" % label)
        if children:
            raise Refusal("preserve_under_name is required: %s has children (%s), which the service moves to the "
                          "branch that keeps its state" % (label, ", ".join(branch_label(child) for child in children)))
    else:
        found = only_one([item for item in branches if item["name"] == preserve_under_name], "branches",
                         preserve_under_name)
        if found is not None:
            return _restored_before(branch, found, label, timestamp, lsn)
    body = {"source_branch_id": source["id"]}
    if timestamp is not None:
        body["source_timestamp"] = timestamp
    if lsn is not None:
        body["source_lsn"] = lsn
    if preserve_under_name is not None:
        body["preserve_under_name"] = preserve_under_name
    what = describe_point(source, itself, timestamp, lsn)
    if preserve_under_name is None:
        return BranchRestorePlan(RESTORE, "%s takes %s; nothing is preserved, so it is restored on every run" % (
            label, what), body, what)
    return BranchRestorePlan(RESTORE, "%s takes %s; its state now is kept as branch %r" % (
        label, what, preserve_under_name), body, what)


def same_point(shown, asked):
    """Whether a branch point the service shows (``parent_timestamp``, given to the second) is the moment asked: a
    moment asked with fractions of a second is the point shown within that second."""
    first, second = seconds_of(shown), seconds_of(asked)
    if first is None or second is None or first != int(first):
        return same_time(shown, asked)
    return int(first) == int(second // 1)


def restore_kept(branch, found):
    """Why ``found``, the branch named ``preserve_under_name``, is not the state an earlier restore of ``branch``
    kept, or None when it is.

    A restore with ``preserve_under_name`` makes the branch of that name at that moment, makes it the restored
    branch's parent and sets the restored branch's ``last_reset_at`` (docs/docsite/rst/api-behaviour.rst, "Restore,
    default branch and schema"). So ``found`` is what a restore kept when it is the branch's parent, the branch has
    a ``last_reset_at``, and ``found`` was made by that reset: its ``created_at`` is not before the reset (both
    to the second). An ordinary parent is older than its child, and a branch the branch was restored from (without
    a name to preserve: it becomes the parent too) was made before that restore. Should the service stamp the
    reset after the branch it kept, a rerun is refused, naming both times, rather than taken as done: it never
    restores twice and never skips a restore."""
    if branch.get("parent_id") != found["id"]:
        return "a restore of the branch would have made it the branch's parent, which is %s" % (
            branch.get("parent_id") or "none: it is a root branch")
    if not branch.get("last_reset_at"):
        return "it is the branch's parent, but the branch was never restored or reset (it has no last_reset_at), " \
               "so it is the branch it was made from"
    made, reset = seconds_of(found.get("created_at")), seconds_of(branch.get("last_reset_at"))
    if made is None or reset is None:
        return "the service does not give when it was made and the branch reset (created_at %r, last_reset_at %r), " \
               "so it cannot be told from the branch's ordinary parent" % (
                   found.get("created_at"), branch.get("last_reset_at"))
    if int(made) < int(reset):
        return "it is the branch's parent and was made at %s, before the branch's last restore or reset (%s): it is " \
               "a branch the branch was made or restored from, not the state a restore kept (made by the restore)" % (
                   found.get("created_at"), branch.get("last_reset_at"))
    return None


def _restored_before(branch, found, label, timestamp, lsn):
    """The plan when a branch of the name to preserve exists: nothing when an earlier restore of this branch made
    it (restore_kept), else a refusal (before any request)."""
    if found["id"] == branch["id"]:
        raise Refusal("preserve_under_name %r is the name of the branch restored; give another name" % found["name"])
    problem = restore_kept(branch, found)
    if problem is not None:
        parent = branch.get("parent_id") == found["id"]
        raise Refusal("a branch named %r already exists (id %s), and it is not what a restore of %s preserved: %s. "
                      "Give another preserve_under_name%s" % (
                          found["name"], found["id"], label, problem,
                          "" if parent else ", or delete branch %r if it is no longer needed" % found["name"]))
    warnings = []
    earlier_timestamp, earlier_lsn = branch.get("parent_timestamp"), branch.get("parent_lsn")
    if (timestamp is not None and earlier_timestamp and not same_point(earlier_timestamp, timestamp)) or \
            (lsn is not None and earlier_lsn and not same_lsn(earlier_lsn, lsn)):
        warnings.append("%s was restored before to %s, not to %s as asked now, and keeps that state: the branch %r "
                        "(id %s) that restore preserved exists. To restore it again, give another preserve_under_name"
                        % (label, earlier_timestamp if timestamp is not None else "LSN %s" % earlier_lsn,
                           timestamp if timestamp is not None else "LSN %s" % lsn, found["name"], found["id"]))
    return BranchRestorePlan(NOTHING, "%s was restored already: its parent is branch %s, the state a restore kept "
                             "under that name; it is not restored again" % (label, branch_label(found)),
                             preserved=found, warnings=warnings)


def restored_to(branch, timestamp=None, lsn=None):
    """The point the restored ``branch`` holds, as the service shows it (its ``parent_timestamp`` and ``parent_lsn``,
    final once the restore's operations have ended): ``{"timestamp", "lsn"}``. ``timestamp`` and ``lsn``, the point
    this run restored to, come first for their kind (what the service shows of it may lag), the service's filling in
    the other (the LSN of a restored moment), or what it leaves out (SPEC: ``parent_timestamp`` "might stay empty");
    a rerun that restored nothing gives none, so that it returns the earlier restore's point, never the one asked."""
    return {"timestamp": timestamp or branch.get("parent_timestamp"), "lsn": lsn or branch.get("parent_lsn")}


def restore_diff(branch, source, plan, timestamp=None, lsn=None, children=()):
    """(before, after) of a restore ``plan`` for the diff: the data it takes from where, and what is preserved."""
    before = {"name": branch["name"], "id": branch["id"], "parent_id": branch.get("parent_id"),
              "data": "its own state, as it is now (last reset: %s)" % (branch.get("last_reset_at") or "never")}
    if plan.action != RESTORE:
        return before, dict(before)
    itself = source["id"] == branch["id"]
    preserve = plan.body.get("preserve_under_name")
    after = dict(before, data="%s: its data, roles and databases" % describe_point(source, itself, timestamp, lsn))
    if preserve is None:
        after["parent_id"] = source["id"] if not itself else branch.get("parent_id")
        after["preserved"] = None
    else:
        after["parent_id"] = "(the new branch %r)" % preserve
        after["preserved"] = {"name": preserve, "data": "the state of %s before the restore" % branch["name"],
                              "parent_id": branch.get("parent_id"),
                              "children": [child["name"] for child in children]}
    return before, after


def window_hint(message):
    """A sentence naming the history window when a refusal's words give it (a Go duration such as ``6h0m0s``
    next to "window" or "retention"), else None."""
    text = message or ""
    if "window" not in text.lower() and "retention" not in text.lower():
        return None
    found = _GO_DURATION.search(text)
    if found is None:
        return None
    return "The project keeps %s of history (its history_retention_seconds, bounded by the plan): a restore point " \
           "must be within it" % found.group(1)


def moved_computes(before, after, branch_id):
    """Warnings for the computes that were the branch's before a restore (``before``) and are on another branch
    after it (``after``: the project's computes now)."""
    ids = set(endpoint["id"] for endpoint in before)
    return ["Compute %s is on branch %s after the restore, no longer on branch %s" % (
        endpoint["id"], endpoint.get("branch_id"), branch_id)
        for endpoint in after if endpoint["id"] in ids and endpoint.get("branch_id") != branch_id]


# ---------------------------------------------------------------------------------------------- carrying it out


class BranchRestore(Writer):
    """``branch`` of ``project_id`` (a name or an id) restored from ``source_branch`` (None: itself) at ``timestamp``
    or ``lsn``, its state kept as ``preserve_under_name``, with the requests and waits of ``task``
    (a ResourceTask)."""

    path_options = ("project_id", "branch", "source_branch")
    waits = True

    @classmethod
    def options_problem(cls, options):
        return input_problem(options["branch"], options["source_branch"], options["source_timestamp"],
                             options["source_lsn"], options["preserve_under_name"])

    @classmethod
    def from_options(cls, task, options):
        return cls(task, options["project_id"], options["branch"], options["source_branch"],
                   options["source_timestamp"], options["source_lsn"], options["preserve_under_name"])

    def __init__(self, task, project_id, branch, source_branch=None, timestamp=None, lsn=None,
                 preserve_under_name=None):
        super(BranchRestore, self).__init__(task)
        self.project_id = project_id
        self.wanted = branch
        self.wanted_source = source_branch
        # In the form the collection sends them (_api/points.py); input_problem refused any that is not one.
        self.timestamp = timestamp_as_sent(timestamp)
        self.lsn = lsn_as_sent(lsn)
        self.preserve = preserve_under_name

    def _branches(self):
        """The project's branches, with what the restore rules read of them checked: one request."""
        branches = list_branches(self.client, self.project_id)
        check = answers.Checker("GET", project_path(self.project_id, "branches"))
        return check.each(branches, "branches", **RESTORE_READ_FIELDS)

    def _keep(self, branch, preserved, endpoints):
        self.task.kept.update(branch=branch, preserved_branch=preserved, endpoints=read_write_first(endpoints))

    # ------------------------------------------------------------------------------------------ the steps

    def read(self):
        """The project's branches, the branch and its source."""
        branches = self._branches()
        branch = choose_branch(branches, self.wanted, self.project_id, "branch")
        source = branch if self.wanted_source is None else \
            choose_branch(branches, self.wanted_source, self.project_id, "source_branch")
        return branches, branch, source

    def decide(self, current):
        """The plan (restore_plan), with ``endpoints``: the branch's computes, read once it is known (one request),
        which the result returns from here on, failures included."""
        branches, branch, source = current
        plan = restore_plan(branch, source, branches, self.timestamp, self.lsn, self.preserve)
        plan.endpoints = branch_endpoints(self.client, self.project_id, branch["id"])
        self.task.kept["restore"] = {"source_branch_id": source["id"], "source_branch_name": source["name"],
                                     "source_timestamp": self.timestamp, "source_lsn": self.lsn,
                                     "preserve_under_name": self.preserve}
        self._keep(branch, plan.preserved, plan.endpoints)
        self.task.warnings.extend(plan.warnings)
        return plan

    def diff(self, current, plan):
        branches, branch, source = current
        return restore_diff(branch, source, plan, self.timestamp, self.lsn, children_of(branches, branch["id"]))

    def as_planned(self, current, plan, after):
        branch = current[1]
        if plan.action == NOTHING:
            self._settle(branch)
            # What the branch holds: the earlier restore's point, not the one asked now (the warning says both).
            self.task.kept["restored_to"] = restored_to(self.task.kept["branch"])
            return after
        preserved = None if self.preserve is None else {"id": None, "name": self.preserve,
                                                        "parent_id": branch.get("parent_id")}
        self._keep(branch, preserved, plan.endpoints)
        self.task.kept["restored_to"] = {"timestamp": self.timestamp, "lsn": self.lsn}
        return after

    def act(self, current, plan):
        """Send the restore and wait for it: (True, the branch's computes before it); False when another run's
        restore was found instead."""
        branch, endpoints = current[1], plan.endpoints
        path = project_path(self.project_id, "branches", branch["id"], "restore")
        label = "branch %s to %s%s" % (branch_label(branch), plan.point, "" if self.preserve is None else
                                       ", its state kept as branch %r" % self.preserve)
        try:
            data = self.task.send("POST", path, self.project_id, plan.body)
        except NeonAPIError as error:
            if self.preserve is not None and already_exists(error):
                self._restored_meanwhile(branch, error, endpoints)
                return False, endpoints
            hint = window_hint(error.api_message)
            raise self.task.failure("Restoring %s failed: %s%s" % (label, error.describe(),
                                                                   ". " + hint if hint else ""), error)
        what = "restored %s" % label
        self.task.did(what)
        self.task.wait_for_operations_of(data, "POST", path, self.project_id, what)
        self._keep(self.task.answered(BRANCH, data, "POST", path, branch["id"]), None, endpoints)
        return True, endpoints

    def read_again(self, current, done, after):
        ours, endpoints = done
        self._read_again(current[1], endpoints)
        if ours:
            self.task.kept["restored_to"] = restored_to(self.task.kept["branch"], self.timestamp, self.lsn)
        else:  # another run's restore, which may have taken another point
            self.task.kept["restored_to"] = restored_to(self.task.kept["branch"])
        return after

    def _restored_meanwhile(self, branch, error, endpoints):
        """The name to preserve was taken while this run sent its restore: another run restored the branch (its
        parent is now that branch, made by that restore: restore_kept), which this run waits for (and returns, read
        again); anything else fails."""
        branches = self._branches()
        current = find_branch(branches, branch["id"])
        preserved = only_one([item for item in branches if item["name"] == self.preserve], "branches", self.preserve)
        if current is None or preserved is None or restore_kept(current, preserved) is not None:
            raise self.task.failure("Restoring branch %s failed: %s" % (branch_label(branch), error.describe()), error)
        self.task.warnings.append("Branch %s was restored by another run at the same time (its state was kept as "
                                  "branch %s); this run did not restore it again" % (
                                      branch_label(branch), branch_label(preserved)))
        self._keep(current, preserved, endpoints)
        self.task.wait_idle(self.project_id, "branch %s was restored by another run" % branch_label(branch))

    def _read_again(self, branch, endpoints):
        """The branch, the preserved branch and the computes as they are once the operations have ended (as they
        are now, with ``wait`` false): two requests."""
        branches = list_branches(self.client, self.project_id)
        current = find_branch(branches, branch["id"]) or branch
        preserved = only_one([item for item in branches if item["name"] == self.preserve], "branches",
                             self.preserve) if self.preserve is not None else None
        now = project_endpoints(self.client, self.project_id)
        ids = set(endpoint["id"] for endpoint in endpoints)
        self.task.warnings.extend(moved_computes(endpoints, now, branch["id"]))
        self._keep(current, preserved, [endpoint for endpoint in now
                                        if endpoint["id"] in ids or endpoint.get("branch_id") == branch["id"]])

    def _settle(self, branch):
        """A branch found restored but not ready yet (an earlier run timed out) is waited for, then read again."""
        if branch_settled(branch):
            return
        what = "branch %s is not ready yet (current_state %s)" % (branch_label(branch), branch.get("current_state"))
        if self.task.settle(self.project_id, what, unsettled=True, branch_id=branch["id"]):
            self._read_again(branch, branch_endpoints(self.client, self.project_id, branch["id"]))
