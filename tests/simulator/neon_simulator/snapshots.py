# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The snapshots (create, list, rename, delete, restore, finalize) and a branch's backup schedule: State's area
(governance-recovery-api-notes.md section 6, "the notes").

The area's object (state.snapshots, given the shared data and helpers of shared.py): every ``api_*`` method takes the
authenticating key, holds the state's lock and answers JSON-like data; ``reset`` puts the seeded state back.

A snapshot keeps its source branch's data stand-in (history.py) as it was at the snapshot's moment,
and the branch's roles (with their passwords) and databases. A restore makes a new root branch
holding them (``restore_status: restored``, ``restored_from``: the snapshot); finalizing it moves the
target branch's computes to it (they restart: operations), gives it the target's name (and its
default flag, protection and backup schedule) and renames the target, so that the target's connection
string (same compute host, same roles) now reaches the snapshot's data.

Each project's snapshots, pending restores and schedules are a ``SnapshotBook`` in ``Shared.snapshot_books`` (shared.py)
(keyed by project id): the Project record (records.py) has fixed slots.

CHOICES (the notes say "unknown" or nothing; tests/simulator/README.md, "Snapshots and backup schedules"):

- Operations (actions from SPEC's OperationAction): a snapshot's create ``create_timeline`` and its delete
  ``delete_timeline`` (on the source branch); a restore ``create_branch`` (on the new branch); a finalize
  restarts each moved compute (``suspend_compute`` when it is not idle, then ``start_compute``). Every one of
  them is refused with 423 while the project runs operations, as the other changes are.
- A manual snapshot of a child branch: 400 ``MESSAGE_ROOT_ONLY``. Past the plan's manual snapshot limit
  (1 on a free plan, 10 on a paid one; scheduled snapshots do not count): 422 ``SNAPSHOTS_LIMIT_EXCEEDED``.
  A name taken in the project: 409 ``MESSAGE_SNAPSHOT_EXISTS`` ("already exists", like the other duplicates).
  A point outside the restore window (the project's ``history_retention_seconds`` back from now, not before the
  branch was made, not in the future): 400 naming the window as a Go duration (``24h0m0s``, ``30m0s``:
  history.go_duration), as the out-of-window restore message is read by tools (notes section 5).
- ``timestamp`` and ``expires_at`` are read as strict RFC 3339 (clock.parse_rfc3339: an upper-case T, Z or
  +hh:mm, a real date, seconds 0-59; the notes say "ISO 8601 (e.g. 2025-08-05T22:00:00Z)"); anything else is a
  400 naming the parameter.
- A snapshot without a name is named ``<branch name>-<its moment, to the second>``. Its ``lsn`` is the LSN of
  its moment (history.py); its ``timestamp`` is the moment, to the second unless it has a fraction.
- ``expires_at`` must be in the future (400); an expired snapshot disappears from the list. PATCH takes
  ``snapshot.name`` and ``snapshot.expires_at`` (null: never expires), as the live service has since 2026-07
  (Neon's SDK gained it then, neon-pkgs #292; the CLI's update of it live-verified, #329); the 2026-06 document's
  request has only ``name``. Anything else in it is ignored.
- Roles and databases: a snapshot keeps the branch's roles and databases as they are when it is taken (only
  the data stand-in follows its moment).
- Restore: the new branch is a root branch (no parent; so it can be snapshotted in turn), named as asked
  (body ``name``, else the deprecated query ``name``, else its id, as a branch created without a name).
  ``target_branch_id`` defaults to the snapshot's source; when that branch is gone, 400 asking for one.
  With ``finalize_restore: true`` the finalize below happens in the same request.
- Finalize: only for a branch whose ``restore_status`` is ``restored`` (400 otherwise, two messages). The
  target is renamed to the body's ``name`` (409 when taken) or ``<name> (old)``, ``<name> (old 2)``... (the
  first free one: a generated name never fails). The restored branch gets ``restore_status: finalized`` and
  ``restored_as``: the id of the target it replaced (SPEC Branch.restored_as: "ID of the target branch which
  was replaced when this branch was restored"). The target keeps its snapshots and children.
- Backup schedules: a branch has none until one is set (``{"schedule": []}``). PUT answers 200 with an empty
  body (notes: "200 empty"). Only daily, weekly and monthly items; ``hour`` (0-23) always required, ``day``
  required for weekly (1-7, 1 is Monday) and monthly (1-31) and refused on daily; ``month`` refused (unused);
  ``retention_seconds`` 3600 to 35 days (the most a scheduled snapshot is kept), left out when not given. A
  non-empty schedule on a free plan: 403 ``MESSAGE_SCHEDULE_PLAN`` (notes: schedules on paid plans).
"""

from __future__ import annotations

import random

from . import ids
from .clock import iso_micro, iso_seconds, parse_rfc3339
from .errors import Conflict, Forbidden, InvalidRequest, NotFound, Unprocessable, with_code
from .history import BranchData, go_duration, lsn_of
from .projects import subscription_type
from .provisioning import BRANCH_NAME_MAX
from .records import Branch, Database
from .shared import read_boolean, read_object, read_string

MESSAGE_ROOT_ONLY = "manual snapshots can only be created from root branches; branch %s has a parent (%s)"
MESSAGE_SNAPSHOT_EXISTS = 'snapshot already exists; snapshot_name:"%s"'
MESSAGE_SNAPSHOTS_LIMIT = "manual snapshots limit of %d exceeded"
CODE_SNAPSHOTS_LIMIT = "SNAPSHOTS_LIMIT_EXCEEDED"
MESSAGE_OUT_OF_WINDOW = "%s is outside the restore window: the branch's history is kept for %s, from %s to %s"
MESSAGE_NOT_RESTORED = "branch %s was not restored from a snapshot"
MESSAGE_ALREADY_FINALIZED = "the restore of branch %s is already finalized"
MESSAGE_TARGET_GONE = "the branch this restore would replace (%s) no longer exists"
MESSAGE_SCHEDULE_PLAN = "backup schedules are available on paid plans only"
FREE_SUBSCRIPTIONS = ("free_v2", "free_v3")
MANUAL_LIMITS = {"free": 1, "paid": 10}
SNAPSHOT_NAME_MAX = 256
FREQUENCIES = ("daily", "weekly", "monthly")
SPEC_ONLY_FREQUENCIES = ("hourly", "yearly")  # in SPEC's BackupScheduleItem, refused by the service (notes)
DAY_RANGES = {"weekly": (1, 7), "monthly": (1, 31)}
RETENTION_RANGE = (3600, 35 * 86400)
SCHEDULE_FIELDS = ("frequency", "hour", "day", "month", "retention_seconds")
_US = 1000000


def iso_moment(us):
    """A moment to the second, or to the microsecond when it has a fraction."""
    return iso_seconds(us) if us % _US == 0 else iso_micro(us)


def snapshot_id(rng):
    """``snap-quiet-meadow-a5l2dqxb`` (SPEC: ``^[a-z0-9-]{1,60}$``)."""
    return "snap-%s-%s-%s" % (rng.choice(ids.ADJECTIVES), rng.choice(ids.NOUNS),
                              "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _position in range(8)))


class Snapshot:
    """A snapshot: its source branch's data at its moment, and that branch's roles and databases."""

    __slots__ = ("id", "name", "source_branch_id", "moment_us", "created_us", "expires_us", "manual", "databases",
                 "roles", "owners")

    def __init__(self, snapshot_id_, name, branch, moment_us, created_us, expires_us, manual):
        self.id = snapshot_id_
        self.name = name
        self.source_branch_id = branch.id
        self.moment_us = moment_us
        self.created_us = created_us
        self.expires_us = expires_us
        self.manual = manual
        self.databases = branch.data.at(moment_us)
        self.roles = {role_name: role.copy_to(None, created_us) for role_name, role in branch.roles.items()}
        self.owners = {db_name: database.owner_name for db_name, database in branch.databases.items()}

    def full_size(self):
        """The logical size at the snapshot's moment (a stand-in: 8 MiB and the size of its data as text)."""
        return 8 * 1024 * 1024 + len(repr(self.databases))

    def render(self):
        """SPEC Snapshot: id, name, created_at required; lsn, timestamp, source_branch_id, expires_at, manual; and the
        June 2026 document's sizes: ``full_size`` always (the simulator's sizes are known at once), ``diff_size`` (the
        growth since the previous scheduled snapshot, billed as such) for a scheduled one, a tenth of its size."""
        item = {"id": self.id, "name": self.name, "lsn": lsn_of(self.moment_us),
                "timestamp": iso_moment(self.moment_us), "source_branch_id": self.source_branch_id,
                "created_at": iso_seconds(self.created_us), "manual": self.manual, "full_size": self.full_size()}
        if not self.manual:
            item["diff_size"] = item["full_size"] // 10
        if self.expires_us is not None:
            item["expires_at"] = iso_moment(self.expires_us)
        return item


class SnapshotBook:
    """One project's snapshots (in creation order), restores waiting for their finalize, backup schedules."""

    __slots__ = ("snapshots", "restores", "schedules")

    def __init__(self):
        self.snapshots = {}  # id -> Snapshot
        self.restores = {}   # restored branch id -> the target branch id its finalize replaces
        self.schedules = {}  # branch id -> [item, ...]

    def live(self, now_us):
        """The snapshots not expired at ``now_us`` (an expired one is deleted as it is seen)."""
        for snapshot in list(self.snapshots.values()):
            if snapshot.expires_us is not None and snapshot.expires_us <= now_us:
                del self.snapshots[snapshot.id]
        return list(self.snapshots.values())


def _timestamp_arg(value, name):
    """A query parameter's timestamp in microseconds (None when not given): strict RFC 3339 (clock.parse_rfc3339;
    CHOICES)."""
    if value is None or value == "":
        return None
    try:
        return parse_rfc3339(value)
    except (TypeError, ValueError):
        raise InvalidRequest("%s: must be an RFC 3339 timestamp such as 2025-08-05T22:00:00Z, got %r"
                             % (name, value)) from None


def check_schedule(body):
    """The items of a PUT .../backup_schedule body, checked (see CHOICES); InvalidRequest naming the first fault."""
    items = body.get("schedule")
    if not isinstance(items, list):
        raise InvalidRequest("schedule: must be a list of schedule items")
    checked = []
    for index, item in enumerate(items):
        where = "schedule[%d]" % index
        if not isinstance(item, dict):
            raise InvalidRequest("%s: must be an object" % where)
        unknown = sorted(set(item) - set(SCHEDULE_FIELDS))
        if unknown:
            raise InvalidRequest("%s: unknown fields %s" % (where, ", ".join(unknown)))
        frequency = item.get("frequency")
        if frequency in SPEC_ONLY_FREQUENCIES:
            raise InvalidRequest("%s.frequency: %s is not supported; use daily, weekly or monthly" % (where, frequency))
        if frequency not in FREQUENCIES:
            raise InvalidRequest("%s.frequency: must be daily, weekly or monthly" % where)
        if item.get("month") is not None:
            raise InvalidRequest("%s.month: is not used; leave it out" % where)
        hour = item.get("hour")
        if isinstance(hour, bool) or not isinstance(hour, int) or not 0 <= hour <= 23:
            raise InvalidRequest("%s.hour: required for %s, an integer from 0 to 23" % (where, frequency))
        day = item.get("day")
        if frequency == "daily":
            if day is not None:
                raise InvalidRequest("%s.day: not used by a daily item; leave it out" % where)
        else:
            low, high = DAY_RANGES[frequency]
            if isinstance(day, bool) or not isinstance(day, int) or not low <= day <= high:
                raise InvalidRequest("%s.day: required for %s, an integer from %d to %d" % (where, frequency, low, high))
        retention = item.get("retention_seconds")
        if retention is not None and (isinstance(retention, bool) or not isinstance(retention, int)
                                      or not RETENTION_RANGE[0] <= retention <= RETENTION_RANGE[1]):
            raise InvalidRequest("%s.retention_seconds: must be an integer from %d to %d" % ((where,) + RETENTION_RANGE))
        kept = {"frequency": frequency, "hour": hour}
        if day is not None:
            kept["day"] = day
        if retention is not None:
            kept["retention_seconds"] = retention
        checked.append(kept)
    return checked


class Snapshots:
    """The snapshots area of State (see the module's text)."""

    def __init__(self, shared):
        self.shared = shared  # the data and helpers every area uses (shared.py)

    def reset(self):
        """Back to the seeded state (called by State.reset, with the lock held)."""
        self.shared.snapshot_books = {}

    # ------------------------------------------------------------------ plumbing
    def _book(self, project):
        book = self.shared.snapshot_books.get(project.id)
        if book is None:
            book = self.shared.snapshot_books[project.id] = SnapshotBook()
        return book

    def _paid(self, project):
        org = self.shared.organizations.get(project.org_id) if project.org_id else None
        return subscription_type(org) not in FREE_SUBSCRIPTIONS

    def _snapshot(self, project, snapshot_id_):
        for snapshot in self._book(project).live(self.shared.now_us()):
            if snapshot.id == snapshot_id_:
                return snapshot
        raise NotFound("snapshot not found")

    def _check_snapshot_name(self, project, name, snapshot=None):
        if not isinstance(name, str) or not 1 <= len(name) <= SNAPSHOT_NAME_MAX:
            raise InvalidRequest("name: must be a string of 1 to %d characters" % SNAPSHOT_NAME_MAX)
        for other in self._book(project).live(self.shared.now_us()):
            if other.name == name and other is not snapshot:
                raise Conflict(MESSAGE_SNAPSHOT_EXISTS % name)

    def _snapshot_moment(self, project, branch, timestamp, lsn, now_us):
        """The moment a snapshot's ``timestamp`` or ``lsn`` names (now when neither), inside the restore window."""
        moment = self.shared.moment(timestamp or None, lsn or None, now_us)  # recovery.py: one reading of a point
        window = int(project.data.get("history_retention_seconds", 86400))
        oldest = max(now_us - window * _US, branch.created_us)
        if not oldest <= moment <= now_us:
            raise InvalidRequest(MESSAGE_OUT_OF_WINDOW % ("lsn %s" % lsn if lsn else "timestamp %s" % timestamp,
                                                          go_duration(window), iso_seconds(oldest), iso_seconds(now_us)))
        return moment

    # ------------------------------------------------------------------ snapshots
    def api_create_snapshot(self, key, project_id, branch_id, args):
        """POST .../branches/{id}/snapshot: query parameters ``name``, ``timestamp`` | ``lsn``, ``expires_at`` (a JSON
        body is ignored, as the live service does). 200 ``{snapshot, operations}``."""
        name = args.get("name") or None
        expires_us = _timestamp_arg(args.get("expires_at"), "expires_at")
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            self.shared.refuse_unreal("a snapshot at a point in the past (timestamp, lsn)",
                                      bool(args.get("timestamp") or args.get("lsn")))
            branch = self.shared.branch(project, branch_id)
            now_us = self.shared.now_us()
            if branch.parent_id is not None:
                raise InvalidRequest(MESSAGE_ROOT_ONLY % (branch.id, branch.parent_id))
            moment = self._snapshot_moment(project, branch, args.get("timestamp"), args.get("lsn"), now_us)
            if expires_us is not None and expires_us <= now_us:
                raise InvalidRequest("expires_at: must be in the future")
            name = name or "%s-%s" % (branch.name, iso_seconds(moment))
            self._check_snapshot_name(project, name)
            book = self._book(project)
            limit = MANUAL_LIMITS["paid" if self._paid(project) else "free"]
            if sum(1 for snapshot in book.live(now_us) if snapshot.manual) >= limit:
                raise with_code(Unprocessable(MESSAGE_SNAPSHOTS_LIMIT % limit), CODE_SNAPSHOTS_LIMIT)
            ops = self.shared.run(project, [("create_timeline", branch.id, None)], now_us)
            snapshot = Snapshot(snapshot_id(random.SystemRandom()), name, branch, moment, now_us, expires_us, True)
            if self.shared.real is not None:  # its data: the branch's as of now
                self.shared.real.take_snapshot(project.id, branch, snapshot.id, self.shared.resources(project).branches)
            book.snapshots[snapshot.id] = snapshot
            return {"snapshot": snapshot.render(), "operations": self.shared.rendered(ops)}

    def take_scheduled_snapshot(self, project_id, branch_id, spec):
        """Control API: a scheduled snapshot of the branch now (``manual: false``), as a backup schedule takes one;
        ``{"name": ..., "retention_seconds": ...}`` both optional (default: ``<branch>-scheduled-<moment>``, 35
        days). Root and plan rules do not apply to it, nor does the manual limit."""
        name = spec.get("name")
        retention = spec.get("retention_seconds", RETENTION_RANGE[1])
        if isinstance(retention, bool) or not isinstance(retention, int) or retention <= 0:
            raise InvalidRequest("retention_seconds: must be a positive integer")
        with self.shared.lock:
            project = self.shared.project(project_id)
            branch = self.shared.branch(project, branch_id)
            now_us = self.shared.now_us()
            name = name or "%s-scheduled-%s" % (branch.name, iso_seconds(now_us))
            self._check_snapshot_name(project, name)
            snapshot = Snapshot(snapshot_id(random.SystemRandom()), name, branch, now_us, now_us,
                                now_us + retention * _US, False)
            if self.shared.real is not None:
                self.shared.real.take_snapshot(project.id, branch, snapshot.id, self.shared.resources(project).branches)
            self._book(project).snapshots[snapshot.id] = snapshot
            return {"snapshot": snapshot.render()}

    def api_list_snapshots(self, key, project_id):
        """GET /projects/{id}/snapshots: ``{snapshots}``, oldest first."""
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            return {"snapshots": [snapshot.render() for snapshot in self._book(project).live(self.shared.now_us())]}

    def api_update_snapshot(self, key, project_id, snapshot_id_, body):
        """PATCH /projects/{id}/snapshots/{sid}: ``{snapshot: {name, expires_at}}`` (``expires_at`` null: never);
        200 ``{snapshot}``, no operations."""
        spec = read_object(body, "snapshot")
        name = spec.get("name")
        expires = "expires_at" in spec
        if expires and spec["expires_at"] is not None and not isinstance(spec["expires_at"], str):
            raise InvalidRequest("expires_at: must be an RFC 3339 timestamp or null")
        expires_us = _timestamp_arg(spec["expires_at"], "expires_at") if expires else None
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            snapshot = self._snapshot(project, snapshot_id_)
            if expires_us is not None and expires_us <= self.shared.now_us():
                raise InvalidRequest("expires_at: must be in the future")
            if name is not None:
                self._check_snapshot_name(project, name, snapshot)
                snapshot.name = name
            if expires:
                snapshot.expires_us = expires_us
            return {"snapshot": snapshot.render()}

    def api_delete_snapshot(self, key, project_id, snapshot_id_):
        """DELETE /projects/{id}/snapshots/{sid}: 202 ``{operations}``; gone from the list at once."""
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            snapshot = self._snapshot(project, snapshot_id_)
            now_us = self.shared.now_us()
            branch_id = snapshot.source_branch_id if snapshot.source_branch_id in self.shared.resources(project).branches \
                else None
            ops = self.shared.run(project, [("delete_timeline", branch_id, None)], now_us)
            del self._book(project).snapshots[snapshot.id]
            return {"operations": self.shared.rendered(ops)}

    # ------------------------------------------------------------------ restore and finalize
    def api_restore_snapshot(self, key, project_id, snapshot_id_, body, query_name=None):
        """POST /projects/{id}/snapshots/{sid}/restore: body ``name``, ``target_branch_id``, ``finalize_restore``
        (all optional; the query ``name`` is the deprecated way to name it). 200 ``{branch, endpoints, operations}``."""
        name = read_string(body, "name", BRANCH_NAME_MAX) or query_name or None
        target_id = read_string(body, "target_branch_id", 60)
        finalize = bool(read_boolean(body, "finalize_restore"))
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            snapshot = self._snapshot(project, snapshot_id_)
            resources = self.shared.resources(project)
            if target_id is None:
                target_id = snapshot.source_branch_id
                if target_id not in resources.branches:
                    raise InvalidRequest("target_branch_id: required, the snapshot's source branch %s no longer "
                                         "exists" % target_id)
            target = self.shared.branch(project, target_id, "target branch not found")
            if name is not None:
                self.shared.check_branch_name(project, name)
            self.shared.check_branches_limit(resources)
            now_us = self.shared.now_us()
            self.shared.check_unlocked(project, now_us)
            branch = Branch(ids.branch_id(random.SystemRandom()), project.id, name or "", now_us,
                            creation_source="api")
            branch.name = name or branch.id
            branch.data = BranchData(now_us, snapshot.databases)
            branch.roles = {role_name: role.copy_to(branch.id, now_us) for role_name, role in snapshot.roles.items()}
            branch.databases = {db_name: Database(self.shared.new_database_id(), branch.id, db_name, owner, now_us)
                                for db_name, owner in snapshot.owners.items()}
            branch.restore_status, branch.restored_from = "restored", snapshot.id
            if self.shared.real is not None:
                self.shared.real.from_snapshot(project.id, snapshot.id, branch)
            resources.branches[branch.id] = branch
            self._book(project).restores[branch.id] = target.id
            ops = self.shared.start(project, [("create_branch", branch.id, None)])
            branch.state.start("ready", ops[0])
            if finalize:
                ops += self._finalize(project, branch, None, now_us)
            now_us = self.shared.now_us()
            return {"branch": branch.render(now_us),
                    "endpoints": [self.shared.render_endpoint(project, ep, now_us) for ep in resources.endpoints_of(branch.id)],
                    "operations": self.shared.rendered(ops)}

    def api_finalize_restore(self, key, project_id, branch_id, body):
        """POST .../branches/{id}/finalize_restore: body ``name`` (optional) for the replaced branch. 200 ``{operations}``."""
        old_name = read_string(body, "name", BRANCH_NAME_MAX)
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            branch = self.shared.branch(project, branch_id)
            now_us = self.shared.now_us()
            if branch.restore_status == "finalized":
                raise InvalidRequest(MESSAGE_ALREADY_FINALIZED % branch.id)
            if branch.restore_status != "restored" or branch.id not in self._book(project).restores:
                raise InvalidRequest(MESSAGE_NOT_RESTORED % branch.id)
            self.shared.check_unlocked(project, now_us)
            return {"operations": self.shared.rendered(self._finalize(project, branch, old_name, now_us))}

    def _finalize(self, project, branch, old_name, now_us):
        """``branch`` (restored) takes its target's place (see CHOICES); answers the operations started."""
        resources = self.shared.resources(project)
        book = self._book(project)
        target = resources.branches.get(book.restores.get(branch.id))
        if target is None:
            raise InvalidRequest(MESSAGE_TARGET_GONE % book.restores.get(branch.id))
        if old_name is not None:
            self.shared.check_branch_name(project, old_name)
        else:
            old_name, number = "%s (old)" % target.name, 1
            while any(other.name == old_name for other in resources.branches.values()):
                number += 1
                old_name = "%s (old %d)" % (target.name, number)
        items, moved = [], resources.endpoints_of(target.id)
        for endpoint in moved:
            if self.shared.compute_state(project, endpoint, now_us) != "idle":
                items.append(("suspend_compute", branch.id, endpoint.id))
            items.append(("start_compute", branch.id, endpoint.id))
        ops = self.shared.start(project, items)
        for endpoint in moved:
            endpoint.branch_id = branch.id
            endpoint.updated_us = endpoint.started_us = now_us
            last = [op for op in ops if op.endpoint_id == endpoint.id][-1]
            endpoint.state.start("active", last, fallback="idle")
        branch.name, target.name = target.name, old_name
        branch.default, target.default = target.default, False
        branch.protected, target.protected = target.protected, False
        branch.restore_status, branch.restored_as = "finalized", target.id
        branch.updated_us = target.updated_us = now_us
        if target.id in book.schedules:
            book.schedules[branch.id] = book.schedules.pop(target.id)
        del book.restores[branch.id]
        return ops

    # ------------------------------------------------------------------ backup schedules
    def api_get_backup_schedule(self, key, project_id, branch_id):
        """GET .../branches/{id}/backup_schedule: ``{schedule: [...]}`` ([] until one is set)."""
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            branch = self.shared.branch(project, branch_id)
            return {"schedule": [dict(item) for item in self._book(project).schedules.get(branch.id, [])]}

    def api_set_backup_schedule(self, key, project_id, branch_id, body):
        """PUT .../branches/{id}/backup_schedule: ``{schedule: [...]}``, the whole schedule; 200 with the document's
        EmptyResponse, ``{}`` (neon-v2-openapi 2026-06, setSnapshotSchedule)."""
        items = check_schedule(body)
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            branch = self.shared.branch(project, branch_id)
            if items and not self._paid(project):
                raise Forbidden(MESSAGE_SCHEDULE_PLAN)
            self._book(project).schedules[branch.id] = items
            return {}
