# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The branch restore to a point, set as default, schema and compare_schema, over each branch's history and data
stand-in (history.py): State's area (governance-recovery-api-notes.md sections 5, 7 and 8).

The area's object (state.recovery, given the shared data and helpers of shared.py): every ``api_*`` method takes the
authenticating key, holds the state's lock and answers JSON-like data; ``reset`` puts the seeded state back.

- Restore (``POST .../branches/{id}/restore``): the branch takes the source's data as it was at the
  point (``source_timestamp``, ``source_lsn``, or the source's head), and, from another branch, its
  roles and databases; it keeps its id, name and computes (the connection string stays the same:
  notes 5, DOCS). With ``preserve_under_name`` a new branch of that name keeps the state it had (its
  data and their history, roles and databases, its old parent), takes its children, and becomes
  its parent (notes 5, NEONCTL's "Backup branch"); without it the source becomes its parent.
- Set as default: the branch becomes the default, the previous one is no longer (notes 7).
- Schema and compare_schema: history.schema_of at the moments asked; compare_schema's ``diff`` is a
  unified diff of the two schemas' SQL (history.schema_diff).
"""

from __future__ import annotations

import copy
import random

from . import ids
from .clock import iso_micro, parse_rfc3339, parse_timestamp
from .errors import InvalidRequest, NotFound
from .history import go_duration, lsn_of, parse_lsn, schema_diff, schema_sql
from .provisioning import BRANCH_NAME_MAX, MESSAGE_RESET_PROTECTED
from .records import Branch
from .shared import MESSAGE_NOT_RFC3339, read_string

# ---------------------------------------------------------------------- CHOICES (inferred, one place)
# A point outside the history window answers 400 (notes 5: the status is known, dyad reads the window
# from the message as a Go duration such as 6h0m0s; the words are not known). The window is the
# project's history_retention_seconds back from now; schema reads at a point are held to it too.
MESSAGE_OUTSIDE_WINDOW = "%s %s is outside the history retention window: the point must be within the history " \
                         "retention window (%s) of the project"
MESSAGE_BEFORE_BRANCH = "%s %s is before branch %s was created (%s): it has no history there"
MESSAGE_IN_FUTURE = "%s %s is in the future"
MESSAGE_SELF_NEEDS_POINT = "source_lsn or source_timestamp: required when source_branch_id is the branch itself"
MESSAGE_PRESERVE_REQUIRED = "preserve_under_name: required when the branch has children or is its own source"
MESSAGE_EXPIRING_DEFAULT = "an expiring branch cannot be the default branch"
MESSAGE_NO_BASE = "base_branch_id: required for a branch without a parent"
MESSAGE_DATABASE_NOT_FOUND = "database not found"
# The restore's operations (inferred): create_timeline, then start_compute of the branch's read_write
# compute, which keeps its id and host. The answer's branch leaves out parent_lsn and parent_timestamp,
# which the SPEC says are final only once those operations have ended: GET the branch then.
# set_as_default starts no operations (the SPEC answer has the list; what it holds is not known).
# compare_schema: without base_branch_id, the base is the branch's parent (what schema-diff-action and
# the vendor CLI do; the service's default is not known); equal schemas answer {"diff": ""}.
# schema: format=sql answers {"sql"}, format=json {"json"}; a database the branch does not have: 404.
# Timestamps the API takes (source_timestamp, a schema's timestamp and base_timestamp) are strict RFC 3339
# (clock.parse_rfc3339): anything else is a 400 naming the parameter (the notes give the format, not what the
# service does with looser text, nor its words). The control API's data read takes any ISO 8601 moment (clock.parse_timestamp).
# MESSAGE_NOT_RFC3339 is in shared.py, with the reading of a moment every area makes (Shared.moment).
SCHEMA_FORMATS = ("sql", "json")


class Recovery:
    """The recovery area of State (see the module's text)."""

    def __init__(self, shared):
        self.shared = shared  # the data and helpers every area uses (shared.py)

    def reset(self):
        """Back to the seeded state (called by State.reset, with the lock held)."""

    # ------------------------------------------------------------------ moments

    def _point(self, project, branch, timestamp, lsn, now_us, prefix=""):
        """The moment of a point on ``branch`` (now when neither is given), held to the project's history window
        and the branch's own history. ``prefix`` names the parameters (``source_``, ``base_``)."""
        for name, value in ((prefix + "timestamp", timestamp), (prefix + "lsn", lsn)):
            if value is not None and (not isinstance(value, str) or not value):
                raise InvalidRequest("%s: must be a non-empty string" % name)
        if lsn is not None:
            try:
                parse_lsn(lsn)
            except ValueError as exc:
                raise InvalidRequest("%slsn: %s" % (prefix, exc)) from None
        if timestamp is not None:
            try:
                parse_rfc3339(timestamp)
            except ValueError:
                raise InvalidRequest(MESSAGE_NOT_RFC3339 % (prefix + "timestamp", timestamp)) from None
        moment = self.shared.moment(timestamp, lsn, now_us, "%slsn and %stimestamp" % (prefix, prefix))
        if timestamp is None and lsn is None:
            return moment
        name, value = (prefix + "timestamp", timestamp) if timestamp is not None else (prefix + "lsn", lsn)
        if moment > now_us:
            raise InvalidRequest(MESSAGE_IN_FUTURE % (name, value))
        retention = project.data.get("history_retention_seconds", 86400)
        if moment < now_us - retention * 1000000:
            raise InvalidRequest(MESSAGE_OUTSIDE_WINDOW % (name, value, go_duration(retention)))
        if moment < branch.data.start_us:
            raise InvalidRequest(MESSAGE_BEFORE_BRANCH % (name, value, branch.id, iso_micro(branch.data.start_us)))
        return moment

    # ------------------------------------------------------------------ the data stand-in (control API)
    def read_branch_data(self, project_id, branch_id, timestamp=None, lsn=None):
        """Control API: the branch's stand-in data (databases -> tables -> rows) now, or at a moment, and the
        tables' columns (``columns``: database -> table -> column -> type)."""
        with self.shared.lock:
            branch = self.shared.branch(self.shared.project(project_id), branch_id)
            now_us = self.shared.now_us()
            moment = self.shared.moment(timestamp, lsn, now_us, parse=parse_timestamp)
            return {"branch_id": branch.id, "lsn": lsn_of(moment), "timestamp": iso_micro(moment),
                    "databases": branch.data.at(moment), "columns": branch.data.layout_at(moment)}

    def write_branch_data(self, project_id, branch_id, spec):
        """Control API: ``{"database": "neondb", "table": "t", "rows": [{...}] | null, "columns": {name: type}}``
        (null rows drop the table; ``columns``, optional, are the table's columns: a migration); a new version
        of the branch's data at the simulator's clock. Answers the moment's LSN and timestamp."""
        database = spec.get("database", "neondb")
        table = spec.get("table")
        rows = spec.get("rows")
        columns = spec.get("columns")
        if not isinstance(database, str) or not database or not isinstance(table, str) or not table:
            raise InvalidRequest("database and table: must be non-empty strings")
        if rows is not None and (not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows)):
            raise InvalidRequest("rows: must be a list of objects, or null to drop the table")
        if columns is not None and (not isinstance(columns, dict) or not all(
                isinstance(kind, str) and kind for kind in columns.values())):
            raise InvalidRequest("columns: must be an object of column names and their types")
        with self.shared.lock:
            branch = self.shared.branch(self.shared.project(project_id), branch_id)
            if database not in branch.databases:
                raise InvalidRequest("database %r: the branch has no such database" % database)
            now_us = self.shared.now_us()
            branch.data.write(now_us, database, table, rows, columns)
            return {"branch_id": branch.id, "lsn": lsn_of(now_us), "timestamp": iso_micro(now_us)}

    # ------------------------------------------------------------------ set as default
    def api_set_default_branch(self, key, project_id, branch_id):
        """POST .../branches/{id}/set_as_default (notes 7): ``{branch, operations}``; no operations (CHOICES)."""
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            branch = self.shared.branch(project, branch_id)
            if branch.expires_us is not None:
                raise InvalidRequest(MESSAGE_EXPIRING_DEFAULT)
            now_us = self.shared.now_us()
            for other in self.shared.resources(project).branches.values():
                if other.default and other is not branch:
                    other.default, other.updated_us = False, now_us
            branch.default, branch.updated_us = True, now_us
            return {"branch": branch.render(now_us), "operations": []}

    # ------------------------------------------------------------------ restore
    def api_restore_branch(self, key, project_id, branch_id, body):
        """POST .../branches/{id}/restore (notes 5; see the module's text). Its state is ``resetting`` until its
        operations end (CHOICES); its expiry restarts; its computes stay with it and restart."""
        source_id = read_string(body, "source_branch_id", 60, required=True)
        source_lsn = body.get("source_lsn")
        source_timestamp = body.get("source_timestamp")
        preserve = read_string(body, "preserve_under_name", BRANCH_NAME_MAX)
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            self.shared.refuse_unreal("a restore to a point in the past (source_timestamp, source_lsn)",
                                      source_lsn is not None or source_timestamp is not None)
            resources = self.shared.resources(project)
            branch = self.shared.branch(project, branch_id)
            source = self.shared.branch(project, source_id, "source branch not found")
            if branch.protected:
                raise InvalidRequest(MESSAGE_RESET_PROTECTED)
            now_us = self.shared.now_us()
            moment = self._point(project, source, source_timestamp, source_lsn, now_us, "source_")
            if source is branch and source_lsn is None and source_timestamp is None:
                raise InvalidRequest(MESSAGE_SELF_NEEDS_POINT)
            children = resources.children(branch.id)
            if (source is branch or children) and preserve is None:
                raise InvalidRequest(MESSAGE_PRESERVE_REQUIRED)
            if preserve is not None:
                self.shared.check_branch_name(project, preserve)
            endpoint = resources.read_write_endpoint(branch.id)
            items = [("create_timeline", branch.id, None)]
            if endpoint is not None:
                items.append(("start_compute", branch.id, endpoint.id))
            ops = self.shared.run(project, items, now_us)
            databases, layout = source.data.at(moment), source.data.layout_at(moment)
            kept = self._preserved(project, branch, preserve, now_us) if preserve is not None else None
            if self.shared.real is not None and kept is not None:  # the kept branch takes the branch's data as they are
                self.shared.real.keep(project.id, branch, kept, resources.branches)
            if kept is not None:
                for child in children:
                    child.parent_id = kept.id
                branch.parent_id = kept.id
            elif source is not branch:
                branch.parent_id = source.id
            if source is not branch:
                self.shared.copy_catalog(source, branch, now_us)
            if self.shared.real is not None:  # the branch gets the source's data as of now (under its new catalog's ids)
                self.shared.real.fork(project.id, source, branch, resources.branches)
            branch.data.replace(now_us, databases, layout)
            branch.parent_lsn = lsn_of(moment)
            branch.parent_timestamp_us = moment
            branch.last_reset_us = branch.updated_us = now_us
            if branch.ttl_seconds is not None:
                branch.expires_us = now_us + branch.ttl_seconds * 1000000
            branch.state.set("resetting", now_us)
            branch.state.start("ready", ops[0], fallback="ready")
            if endpoint is not None:
                endpoint.state.start("active", ops[-1], fallback="idle")
            answer = branch.render(now_us)
            for field in ("parent_lsn", "parent_timestamp"):  # final once the operations have ended (SPEC)
                answer.pop(field, None)
            return {"branch": answer, "operations": self.shared.rendered(ops)}

    def _preserved(self, project, branch, name, now_us):
        """The branch that keeps ``branch``'s state before a restore: its data with their history, its roles
        (same passwords) and databases, its parent; no computes (they stay with the restored branch)."""
        kept = Branch(ids.branch_id(random.SystemRandom()), project.id, name, now_us, state="ready",
                      creation_source="api")
        kept.parent_id, kept.parent_lsn = branch.parent_id, branch.parent_lsn
        kept.parent_timestamp_us = branch.parent_timestamp_us
        kept.init_source = branch.init_source
        kept.data = copy.deepcopy(branch.data)
        self.shared.copy_catalog(branch, kept, now_us)
        self.shared.resources(project).branches[kept.id] = kept
        return kept

    # ------------------------------------------------------------------ schema
    def _schema_args(self, args):
        database = args.get("db_name")
        if not database:
            raise InvalidRequest("db_name: field required")
        return database

    def _database_of(self, branch, database):
        if database not in branch.databases:
            raise NotFound(MESSAGE_DATABASE_NOT_FOUND)

    def api_branch_schema(self, key, project_id, branch_id, args):
        """GET .../branches/{id}/schema (notes 8): ``db_name`` required, ``lsn`` or ``timestamp``, ``format``."""
        database = self._schema_args(args)
        schema_format = args.get("format") or "sql"
        if schema_format not in SCHEMA_FORMATS:
            raise InvalidRequest("format: must be sql or json")
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            branch = self.shared.branch(project, branch_id)
            self._database_of(branch, database)
            if self.shared.real is not None:
                self.shared.refuse_unreal("a schema at a point in the past (lsn, timestamp)",
                                          bool(args.get("timestamp") or args.get("lsn")))
                if schema_format == "json":
                    return {"json": self.shared.real.schema_json(project.id, branch, database,
                                                                 self.shared.resources(project).branches,
                                                                 self.shared.now_us())}
                return {"sql": self.shared.real.schema_sql(project.id, branch, database, self.shared.resources(project).branches,
                                                           self.shared.now_us())}
            moment = self._point(project, branch, args.get("timestamp"), args.get("lsn"), self.shared.now_us())
            schema = branch.data.schema(moment, database)
            return {"json": schema} if schema_format == "json" else {"sql": schema_sql(schema)}

    def api_compare_schema(self, key, project_id, branch_id, args):
        """GET .../branches/{id}/compare_schema (notes 8): the unified diff from the base's schema (``base_branch_id``,
        default the branch's parent: CHOICES; ``base_lsn``, ``base_timestamp``) to the branch's (``lsn``,
        ``timestamp``)."""
        database = self._schema_args(args)
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            branch = self.shared.branch(project, branch_id)
            base_id = args.get("base_branch_id") or branch.parent_id
            if base_id is None:
                raise InvalidRequest(MESSAGE_NO_BASE)
            base = self.shared.branch(project, base_id, "base branch not found")
            self._database_of(branch, database)
            self._database_of(base, database)
            if self.shared.real is not None:
                self.shared.refuse_unreal("a schema at a point in the past (lsn, timestamp)", any(
                    args.get(name) for name in ("timestamp", "lsn", "base_timestamp", "base_lsn")))
                branches, now_us = self.shared.resources(project).branches, self.shared.now_us()
                return {"diff": schema_diff(self.shared.real.schema_sql(project.id, base, database, branches, now_us),
                                            self.shared.real.schema_sql(project.id, branch, database, branches, now_us),
                                            database)}
            now_us = self.shared.now_us()
            moment = self._point(project, branch, args.get("timestamp"), args.get("lsn"), now_us)
            base_moment = self._point(project, base, args.get("base_timestamp"), args.get("base_lsn"), now_us, "base_")
            return {"diff": schema_diff(schema_sql(base.data.schema(base_moment, database)),
                                        schema_sql(branch.data.schema(moment, database)), database)}
