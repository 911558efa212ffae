# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The branch restore to a point, set as default, schema and compare_schema, over each branch's history and data
stand-in (history.py): State's half (governance-recovery-api-notes.md sections 5, 7 and 8).

Mixed into State (state.py): every ``api_*`` method takes the authenticating key, holds the state's
lock and answers JSON-like data; ``_reset_recovery`` puts the seeded state back.
"""

from __future__ import annotations

import random

from . import ids
from .clock import iso_micro, parse_timestamp
from .errors import InvalidRequest
from .history import lsn_of, us_of_lsn
from .provisioning import BRANCH_NAME_MAX, MESSAGE_RESET_PROTECTED, _string
from .resources import Branch


class RecoveryMixin:
    """The recovery half of State (see the module's text)."""

    def _reset_recovery(self):
        """Back to the seeded state (called by State.reset, with the lock held)."""

    # ------------------------------------------------------------------ the data stand-in (control API)
    def _moment(self, timestamp, lsn, now_us, what="timestamp and lsn"):
        """The moment a ``timestamp`` or an ``lsn`` names (now when neither); InvalidRequest when both or bad."""
        if timestamp is not None and lsn is not None:
            raise InvalidRequest("%s: give at most one" % what)
        if lsn is not None:
            try:
                return us_of_lsn(lsn, now_us)
            except ValueError as exc:
                raise InvalidRequest("lsn: %s" % exc) from None
        if timestamp is not None:
            try:
                return parse_timestamp(timestamp)
            except (TypeError, ValueError):
                raise InvalidRequest("timestamp: must be an RFC 3339 timestamp, got %r" % (timestamp,)) from None
        return now_us

    def read_branch_data(self, project_id, branch_id, timestamp=None, lsn=None):
        """Control API: the branch's stand-in data (databases -> tables -> rows) now, or at a moment."""
        with self.lock:
            branch = self._branch(self._project(project_id), branch_id)
            now_us = self.now_us()
            moment = self._moment(timestamp, lsn, now_us)
            return {"branch_id": branch.id, "lsn": lsn_of(moment), "timestamp": iso_micro(moment),
                    "databases": branch.data.at(moment)}

    def write_branch_data(self, project_id, branch_id, spec):
        """Control API: ``{"database": "neondb", "table": "t", "rows": [{...}] | null}`` (null drops the table);
        a new version of the branch's data at the simulator's clock. Answers the moment's LSN and timestamp."""
        database = spec.get("database", "neondb")
        table = spec.get("table")
        rows = spec.get("rows")
        if not isinstance(database, str) or not database or not isinstance(table, str) or not table:
            raise InvalidRequest("database and table: must be non-empty strings")
        if rows is not None and (not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows)):
            raise InvalidRequest("rows: must be a list of objects, or null to drop the table")
        with self.lock:
            branch = self._branch(self._project(project_id), branch_id)
            if database not in branch.databases:
                raise InvalidRequest("database %r: the branch has no such database" % database)
            now_us = self.now_us()
            branch.data.write(now_us, database, table, rows)
            return {"branch_id": branch.id, "lsn": lsn_of(now_us), "timestamp": iso_micro(now_us)}

    def api_set_default_branch(self, key, project_id, branch_id):
        """POST .../branches/{id}/set_as_default (notes 3.5); no operations (inferred)."""
        with self.lock:
            project = self._reachable(key, project_id)
            branch = self._branch(project, branch_id)
            if branch.expires_us is not None:
                raise InvalidRequest("an expiring branch cannot be the default branch")
            now_us = self.now_us()
            for other in self._resources(project).branches.values():
                if other.default and other is not branch:
                    other.default, other.updated_us = False, now_us
            branch.default, branch.updated_us = True, now_us
            return {"branch": branch.render(now_us), "operations": []}

    def api_restore_branch(self, key, project_id, branch_id, body):
        """POST .../branches/{id}/restore (notes 3.5). The branch takes the source's data (roles and
        databases, with their passwords), its state is ``resetting`` until the operations end, its
        expiry restarts. Operations (inferred): ``create_timeline``, then ``start_compute`` of its
        read_write compute, which keeps its id and host."""
        source_id = _string(body, "source_branch_id", 60, required=True)
        source_lsn = _string(body, "source_lsn", 40)
        source_timestamp = body.get("source_timestamp")
        preserve = _string(body, "preserve_under_name", BRANCH_NAME_MAX)
        with self.lock:
            project = self._reachable(key, project_id)
            resources = self._resources(project)
            branch = self._branch(project, branch_id)
            source = self._branch(project, source_id)
            if branch.protected:
                raise InvalidRequest(MESSAGE_RESET_PROTECTED)
            if source is branch and source_lsn is None and source_timestamp is None:
                raise InvalidRequest("source_lsn or source_timestamp: required to restore a branch from itself")
            children = resources.children(branch.id)
            if (source is branch or children) and preserve is None:
                raise InvalidRequest("preserve_under_name: required when the branch has children or is its own source")
            now_us = self.now_us()
            if preserve is not None:
                self._check_branch_name(project, preserve)
            endpoint = resources.read_write_endpoint(branch.id)
            items = [("create_timeline", branch.id, None)]
            if endpoint is not None:
                items.append(("start_compute", branch.id, endpoint.id))
            ops = self._run(project, items, now_us)
            if preserve is not None:
                kept = Branch(ids.branch_id(random.SystemRandom()), project.id, preserve, now_us, branch,
                              lsn_of(now_us), now_us, state="ready", creation_source="api")
                kept.parent_id = branch.parent_id
                kept.roles, kept.databases = branch.roles, branch.databases
                for role in kept.roles.values():
                    role.branch_id = kept.id
                for database in kept.databases.values():
                    database.branch_id = kept.id
                resources.branches[kept.id] = kept
                for child in children:
                    child.parent_id = kept.id
            if source is not branch:
                self._copy_catalog(source, branch, now_us)
                branch.parent_id = source.id
            branch.parent_lsn = source_lsn or lsn_of(now_us)
            branch.parent_timestamp_us = parse_timestamp(source_timestamp) if isinstance(source_timestamp, str) \
                else now_us
            branch.last_reset_us = branch.updated_us = now_us
            if branch.ttl_seconds is not None:
                branch.expires_us = now_us + branch.ttl_seconds * 1000000
            branch.state.set("resetting", now_us)
            branch.state.start("ready", ops[0], fallback="ready")
            if endpoint is not None:
                endpoint.state.start("active", ops[-1], fallback="idle")
            return {"branch": branch.render(now_us), "operations": self._rendered(ops)}
