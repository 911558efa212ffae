# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A project's snapshots (``neon.cloud.snapshot``, ``snapshot_info``); their restore is snapshot_restores.py's.

The facts are in docs/docsite/rst/api-behaviour.rst, "Snapshots and backup schedules": a snapshot is
found by its name among the project's (``GET /projects/{id}/snapshots``; names are unique within a
project, a listing with two is refused naming both). It is created with query parameters
(``POST .../branches/{id}/snapshot?name=...``: a JSON body is ignored by the service), only from a root
branch, and answers ``{snapshot, operations}``. Its update (``PATCH .../snapshots/{id}``) takes its expiry
(``expires_at``, null: never), so an existing snapshot whose expiry differs is updated (``expires_at: ''`` removes
it), and an answer that does not hold the expiry asked fails the task; its point differing is refused, and
so is a source branch that differs (a snapshot listed without one - the OpenAPI makes it optional - is
taken as of the branch asked), unless the branch asked took that branch's place by a finalized restore
(``replaced_by_restore``: its ``restore_status`` is ``finalized`` and its ``restored_as`` names that branch, or a
branch that one replaced in turn): the snapshot of the name is then the one asked, taken of the branch of that name
before the restore, and a rerun leaves it as it is. Its delete answers 202 with operations.

The rules are pure functions here (unit-tested without HTTP); ``Snapshot`` is a Resource of the walk
(resource.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path, query_string
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError
from ansible_collections.neon.cloud.plugins.module_utils._api.points import (
    options_as_sent,
    point_problem,
    same_lsn,
    timestamp_problem,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import (
    branch_label,
    branch_stand_in,
    choose_branch,
    default_branch,
    find_branch,
    list_branches,
    project_to_be_made,
    read_project_list,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import (
    CREATE,
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

_TEXT_OR_NULL = (str, type(None))
# What the collection reads of a snapshot (SPEC Snapshot: id, name and created_at required).
SNAPSHOT_FIELDS = dict(
    required={"id": (str,), "name": (str,)},
    optional={"created_at": _TEXT_OR_NULL, "lsn": _TEXT_OR_NULL, "timestamp": _TEXT_OR_NULL,
              "source_branch_id": _TEXT_OR_NULL, "expires_at": _TEXT_OR_NULL, "manual": (bool,)},
)
SNAPSHOT = Description("snapshot", "snapshot", SNAPSHOT_FIELDS, [
    Field("name"),
    # Sent when created, not compared by decide: other_branch_problem refuses a snapshot of another branch and
    # takes one listed without its source (source_branch_id is optional in the OpenAPI) as of the branch asked.
    Field("branch", "source_branch_id", compare=False),
    Field("timestamp", create_only=True, same=same_time),
    Field("lsn", create_only=True, same=same_lsn),
    # Sent when created, updated when it differs (an empty string: never expires, the update's null).
    Field("expires_at", empty_is_null=True, same=same_time),
])
# The query parameters a create sends (SPEC createSnapshot), by the API field they come from.
CREATE_PARAMETERS = ("name", "timestamp", "lsn", "expires_at")
# What the rerun rule reads of a branch besides finding.BRANCH_FIELDS (SPEC Branch), checked before use.
RESTORE_LINK_FIELDS = dict(optional={"restore_status": _TEXT_OR_NULL, "restored_as": _TEXT_OR_NULL})
FINALIZED = "finalized"
# The options that are points in time, and the one that is an LSN (_api/points.py).
TIME_OPTIONS = ("timestamp", "expires_at")
LSN_OPTIONS = ("lsn",)


# ---------------------------------------------------------------------------------------------- pure rules


def snapshot_input_problem(options):
    """Why ``timestamp``, ``lsn`` or ``expires_at`` of ``options`` cannot be sent, or None (_api/points.py)."""
    return point_problem("timestamp", options.get("timestamp"), "lsn", options.get("lsn")) or \
        timestamp_problem("expires_at", options.get("expires_at") or None)  # '': never expires


def snapshot_problem(branch):
    """Why the service would not take a manual snapshot of ``branch``, or None: only root branches."""
    if branch.get("parent_id"):
        return "branch %s is a child of %s, and manual snapshots are taken only of root branches (a branch " \
               "without a parent, such as the project's first one); snapshot its root branch instead" % (
                   branch_label(branch), branch["parent_id"])
    return None


def replaced_by_restore(branch, branches):
    """The ids of the branches ``branch`` took the place of by finalized restores, the latest first: the branch its
    ``restored_as`` names when its ``restore_status`` is ``finalized`` (SPEC Branch.restored_as: "ID of the target
    branch which was replaced when this branch was restored"), then the one that branch replaced in turn, and so on
    among ``branches`` (the project's). A finalize gives the restored branch the target's name, so these are the
    branches that had ``branch``'s name before."""
    replaced, current = [], branch
    while current is not None and current.get("restore_status") == FINALIZED and current.get("restored_as") \
            and current["restored_as"] not in replaced and current["restored_as"] != branch["id"]:
        replaced.append(current["restored_as"])
        current = next((item for item in branches if item["id"] == current["restored_as"]), None)
    return replaced


def other_branch_problem(current, branch, branches=()):
    """Why the snapshot ``current`` is not the one asked of ``branch``: it was taken of another branch (or None).

    A snapshot taken of a branch that ``branch`` took the place of by a finalized restore (replaced_by_restore) is
    the one asked: it was taken of the branch that had this name then, and the restore that made ``branch`` is the
    rollback a runbook did with it (a rerun of snapshot_restore's play). Any other branch's is refused."""
    source = (current or {}).get("source_branch_id")
    if source is None or source == branch["id"] or source in replaced_by_restore(branch, branches):
        return None
    return "snapshot %r (%s) exists and was taken of branch %s, not of branch %s as asked, nor of a branch that %s " \
           "replaced by a finalized restore; a snapshot's branch is set when it is taken. Give the snapshot another " \
           "name, or delete this one first" % (current["name"], current["id"], source, branch_label(branch),
                                               branch["name"])


def taken_before_restore_note(current, branch, branches):
    """What the result says of a snapshot taken of a branch that ``branch`` replaced by a finalized restore (None
    otherwise): it was left as it is, and why."""
    source = (current or {}).get("source_branch_id")
    if source is None or source == branch["id"] or source not in replaced_by_restore(branch, branches):
        return None
    old = find_branch(branches, source)
    return "snapshot %r (%s) was taken of branch %s, which had the name %r until a finalized restore put branch %s in " \
           "its place%s; it is the snapshot asked, left as it is" % (
               current["name"], current["id"], source, branch["name"], branch["id"],
               " (it is named %r now)" % old["name"] if old is not None else " (it no longer exists)")


def expiry_problem(answered, plan):
    """Why the snapshot an update ``answered`` does not hold the expiry ``plan`` asked for (None: it does, or the
    plan does not change it): the service's answer is checked, never taken on trust."""
    if "expires_at" not in plan.changes:
        return None
    wanted = plan.changes["expires_at"][1]
    if same_time(answered.get("expires_at"), wanted):
        return None
    return "the service answered the update of snapshot %r (%s) with an expiry of %s, not %s as asked" % (
        answered.get("name"), answered.get("id"), answered.get("expires_at") or "never", wanted or "never")


def as_planned(current, plan):
    """The snapshot as ``plan`` leaves it (check mode's result): an expiry removed is absent, as the service
    answers one that never expires."""
    after = planned(current, plan)
    if after.get("expires_at") is None:
        after.pop("expires_at", None)
    return after


def limit_refusal(error):
    """Whether the service's refusal ``error`` (a NeonAPIError) of a create speaks of the snapshots limit: its words
    are not documented (the live service said "HTTP 422: manual snapshots limit of 1 exceeded"), so a 4xx other
    than 429 (a rate limit) whose message or code names both a snapshot and a limit."""
    if error is None or error.status == 429 or not 400 <= (error.status or 0) < 500:
        return False
    words = ("%s %s" % (getattr(error, "api_message", None) or "", getattr(error, "code", None) or "")).lower()
    return "limit" in words and "snapshot" in words


def blocking_snapshots(snapshots, branches):
    """The sentence naming the project's manual ``snapshots`` (those the plan's limit counts), each with the branch
    it was taken of (its name now, from ``branches``) and its moment; None when there are none."""
    manual = [snapshot for snapshot in snapshots if snapshot.get("manual") is not False]
    if not manual:
        return None
    names = []
    for snapshot in manual:
        source = find_branch(branches, snapshot.get("source_branch_id")) if snapshot.get("source_branch_id") else None
        names.append("%r (%s, of branch %s%s, taken %s)" % (
            snapshot["name"], snapshot["id"], snapshot.get("source_branch_id") or "unknown",
            " %r" % source["name"] if source else "", snapshot.get("created_at") or "at an unknown time"))
    return "The project holds %d manual snapshot%s, which the plan's limit counts (1 on the Free plan, 10 on paid " \
           "plans; a backup schedule's do not count): %s. Delete one that is no longer needed (neon.cloud.snapshot " \
           "with state: absent) to take another" % (len(manual), "" if len(manual) == 1 else "s", ", ".join(names))


def find_snapshot(snapshots, wanted):
    """The snapshot whose id is ``wanted``, else the one named ``wanted`` (two of one name: refusal.only_one's
    Refusal); None."""
    by_id = [snapshot for snapshot in snapshots if snapshot["id"] == wanted]
    if by_id:
        return by_id[0]
    return only_one([snapshot for snapshot in snapshots if snapshot["name"] == wanted], "snapshots", wanted)


def chosen_snapshots(snapshots, branches, name=None, branch=None):
    """What ``snapshot_info`` lists of the project's ``snapshots``: only the one named ``name``, only those taken
    of ``branch`` (a name or an id among ``branches``; an id no branch has any more still finds the snapshots
    taken of the branch it was)."""
    if branch is not None:
        found = find_branch(branches, branch)
        source = found["id"] if found is not None else branch
        snapshots = [snapshot for snapshot in snapshots if snapshot.get("source_branch_id") == source]
    if name is not None:
        snapshots = [snapshot for snapshot in snapshots if snapshot["name"] == name]
    return snapshots


# ---------------------------------------------------------------------------------------------- reading


def list_snapshots(client, project_id):
    """The project's snapshots, each checked: one request. A Refusal when the project does not exist."""
    return read_project_list(client, project_id, "snapshots", "snapshots", SNAPSHOT_FIELDS)


def snapshot_info(client, project_id, name=None, branch=None):
    """The project's snapshots (``chosen_snapshots``): one request, two with ``branch`` (the branches too)."""
    snapshots = list_snapshots(client, project_id)
    branches = list_branches(client, project_id) if branch is not None else []
    return chosen_snapshots(snapshots, branches, name, branch)


# ---------------------------------------------------------------------------------------------- a snapshot


class Snapshot(Resource):
    """The snapshot ``name`` of ``project_id``, taken of ``branch`` (name or id; None: the default branch)."""

    description = SNAPSHOT
    path_options = ("project_id", "branch")

    def __init__(self, task, project_id, name, branch=None, locate=False):
        super(Snapshot, self).__init__(task, project_id)
        self.name = name
        self.wanted_branch = branch
        self.branch = None  # the source branch (present only)
        self.branches = []  # the project's branches, as find listed them (present only)
        self.locate = locate  # whether find looks for its source branch too (present: what it is taken of)
        self.label = "snapshot %r" % name

    @classmethod
    def options_problem(cls, options):
        return "name must not be empty" if not options["name"].strip() else None

    @classmethod
    def run(cls, task, options):
        present = options["state"] != "absent"
        snapshot = cls(task, options["project_id"], options["name"], options["branch"], locate=present)
        if not present:
            return snapshot.absent()
        # Its points in time in the form the collection sends them (_api/points.py).
        wanted = dict((option, options[option]) for option in ("timestamp", "lsn", "expires_at"))
        return snapshot.present(options_as_sent(wanted, TIME_OPTIONS, LSN_OPTIONS))

    def find(self):
        if self.locate and self.branch is None:
            if project_to_be_made(self.project_id, self.task):
                self.branch = branch_stand_in(self.wanted_branch)
            else:
                branches = answers.Checker("GET", project_path(self.project_id, "branches")).each(
                    list_branches(self.client, self.project_id), "branches", **RESTORE_LINK_FIELDS)
                self.branches = branches
                try:
                    if self.wanted_branch is not None:
                        self.branch = choose_branch(branches, self.wanted_branch, self.project_id)
                    else:
                        self.branch = default_branch(branches)
                        if self.branch is None:
                            raise Refusal("project %s lists no default branch" % self.project_id)
                except Missing as missing:  # in check mode, a branch an earlier task would make (refusal.Missing)
                    self.branch = self.task.assume(missing)
            self.task.kept["branch_id"] = self.branch["id"]
        # A project an earlier task of the play would make (check mode: refusal.Missing) has no snapshots yet.
        snapshots = [] if project_to_be_made(self.project_id, self.task) else list_snapshots(self.client, self.project_id)
        named = [snapshot for snapshot in snapshots if snapshot["name"] == self.name]
        return only_one(named, "snapshots", self.name, " in project %s" % self.project_id)

    def input_problem(self, options):
        return snapshot_input_problem(options)

    def decide(self, current, options):
        other = other_branch_problem(current, self.branch, self.branches)
        if other:
            return Plan(REFUSE, other)
        note = taken_before_restore_note(current, self.branch, self.branches)
        if note:
            old = find_branch(self.branches, current["source_branch_id"])
            self.task.kept["taken_of"] = {"id": current["source_branch_id"], "name": old["name"] if old else None,
                                          "note": note}
        plan = decide(SNAPSHOT, current, dict(options, name=self.name, branch=self.branch["id"]), name=self.name)
        problem = snapshot_problem(self.branch) if plan.action == CREATE else None  # only of a root branch
        return Plan(REFUSE, problem) if problem else plan

    def answered_instead(self, outcome):
        """A create refused for the manual snapshots limit fails naming the snapshots that hold it (one more
        request); any other refusal stands."""
        if isinstance(outcome, Found) or not limit_refusal(outcome.cause):
            return super(Snapshot, self).answered_instead(outcome)
        try:
            said = blocking_snapshots(list_snapshots(self.client, self.project_id), self.branches)
        except (NeonAPIError, Refusal):
            return None  # the refusal as the service gave it
        if said is None:
            return None
        raise self.task.failure("%s. %s" % (outcome.cause.describe(), said), outcome.cause)

    def collection_path(self):
        return project_path(self.project_id, "snapshots")

    def create_request(self, plan):
        """POST .../branches/{id}/snapshot, taken of its branch, with its settings as query parameters: the service
        reads them, never a body."""
        query = query_string(dict((field, plan.body[field]) for field in CREATE_PARAMETERS if field in plan.body))
        path = project_path(self.project_id, "branches", self.branch["id"], "snapshot") + ("?" + query if query else "")
        return path, None

    def shown(self, current, plan=None):
        """Its compared fields (its expiry among them, absent: never), and its branch, which is sent only when it is
        taken."""
        shown = SNAPSHOT.shown(current)
        if current is not None:
            shown["branch"] = current.get("source_branch_id")
            shown["expires_at"] = current.get("expires_at")
        return shown

    def preview(self, current, plan):
        """The diff; check mode's result: the snapshot as the plan leaves it (its expiry updated), or as it would be
        taken (its id null)."""
        before, after = super(Snapshot, self).preview(current, plan)[:2]
        return before, after, {"snapshot": as_planned(current, plan) if current is not None else dict(plan.body, id=None)}

    def act(self, current, plan):
        """After an update of its expiry: the answer holds the expiry asked, or the task fails saying what it holds."""
        problem = expiry_problem(current, plan) if plan.action == UPDATE else None
        if problem:
            raise self.task.failure(sentence(problem))
        return current

    def settle(self, current, plan):
        """When this run changed nothing, wait for the operations still running on its branch (only the project's
        operations tell whether its create still runs)."""
        if not self.task.changed:
            self.task.settle(self.project_id, "%s has operations still running" % self._named(current),
                             branch_id=current.get("source_branch_id"))
        return current

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
