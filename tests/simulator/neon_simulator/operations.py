# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A project's operations: ``/projects/{project_id}/operations`` (list, get) and the control API's start, release
and bulk history of operations. What an operation is (its timeline, its status from the clock) is in records.py."""

from __future__ import annotations

import random

from . import ids, seed
from .clock import iso_micro
from .errors import Conflict, InvalidRequest, NotFound
from .records import END_STATUSES
from .shared import number, optional_count

HISTORY_MAX = 100000
_DAY_US = 86400 * 1000000
_HOUR_US = 3600 * 1000000


class Operations:
    """The operations area of State (see the module's text)."""

    def __init__(self, shared):
        self.shared = shared  # the data and helpers every area uses (shared.py)

    def list_operations(self, project_id, limit, cursor_us=None, cursor_text=None, key=None):
        """(operations, cursor) for one page, newest first, strictly older than the cursor."""
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            page = project.page(limit, cursor_us)
            now_us = self.shared.now_us()
            for op in page:
                op.note_read(now_us)
            items = [op.render(now_us) for op in page]
            return items, (iso_micro(page[-1].created_us) if page else cursor_text)

    def get_operation(self, project_id, operation_id, key=None):
        with self.shared.lock:
            project = self.shared.reachable(key, project_id, "operation not found")
            op = project.ops_by_id.get(operation_id)
            if op is None:
                raise NotFound("operation not found")
            now_us = self.shared.now_us()
            op.note_read(now_us)
            return op.render(now_us)

    def operation_counts(self, project_id):
        """{status: count} of a project's operations right now (tests, docs)."""
        with self.shared.lock:
            project = self.shared.project(project_id)
            now_us = self.shared.now_us()
            counts = {}
            for op in project.ops:
                status = op.status_at(now_us)
                counts[status] = counts.get(status, 0) + 1
            return counts

    def start_operations(self, project_id, specs):
        """Start operations now (control API); answers them as a work-starting request would."""
        if not isinstance(specs, list) or not specs:
            raise InvalidRequest("operations: must be a non-empty list")
        expanded = []
        for spec in specs:
            count = spec.get("count", 1) if isinstance(spec, dict) else 1
            if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 10000:
                raise InvalidRequest("count: must be an integer between 1 and 10000")
            expanded.extend([spec] * count)
        with self.shared.lock:
            project = self.shared.project(project_id)
            created_us = self.shared.now_us()
            ops = []
            for spec in expanded:
                created_us = project.unique_time(created_us)
                ops.append(self.shared.build_operation(project, spec, created_us))
                created_us += 1
            for op in ops:
                project.add_operation(op)
            now_us = self.shared.now_us()
            return [op.render(now_us) for op in ops]

    def add_history(self, project_id, count, days=30.0, seed_value=None):
        """Add ``count`` operations in end states, spread over ``days`` days up to an hour ago.

        A quick bulk load (10,000 operations in well under a second) for paging tests and the
        benchmark; actions, outcomes and durations are drawn as in the seeded histories
        (``seed_value`` makes them repeatable). Answers ``{project_id, added, operations}``.
        """
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= HISTORY_MAX:
            raise InvalidRequest("count: must be an integer between 1 and %d" % HISTORY_MAX)
        days = number({"days": days}, "days", 30.0, 0.001, 3650.0)
        if seed_value is not None and (isinstance(seed_value, bool) or not isinstance(seed_value, int)):
            raise InvalidRequest("seed: must be an integer")
        rng = random.Random(seed_value) if seed_value is not None else random.Random()
        with self.shared.lock:
            project = self.shared.project(project_id)
            end_us = self.shared.now_us() - _HOUR_US
            start_us = end_us - int(days * _DAY_US)
            taken = set(project.op_times)
            times = sorted(rng.randint(start_us, end_us) for _index in range(count))
            added = []
            for created_us in times:
                while created_us in taken:  # creation times stay unique (the cursor relies on it)
                    created_us += 1
                taken.add(created_us)
                op = seed.history_operation(rng, project, created_us)
                while op.id in project.ops_by_id:
                    op.id = ids.random_uuid()
                added.append(op)
            project.set_operations(sorted(project.ops + added, key=lambda op: op.created_us))
            return {"project_id": project.id, "added": count, "operations": len(project.ops)}

    def release_operations(self, project_id, operation_id=None, spec=None):
        """End held operations now (control API): one by id, or every held one of the project.

        ``spec`` may set ``outcome``, ``error`` and ``failures_count`` (else those given at start)
        and ``after``: seconds from now to the end (default 0: ended when this returns).
        Answers the released operations as they are now.
        """
        spec = spec or {}
        if not isinstance(spec, dict):
            raise InvalidRequest("request body: must be a JSON object")
        unknown = set(spec) - {"outcome", "error", "failures_count", "after"}
        if unknown:
            raise InvalidRequest("unknown fields: %s" % ", ".join(sorted(unknown)))
        outcome = spec.get("outcome")
        if outcome is not None and outcome not in END_STATUSES:
            raise InvalidRequest("outcome: must be one of %s" % ", ".join(END_STATUSES))
        error = spec.get("error")
        if error is not None and not isinstance(error, str):
            raise InvalidRequest("error: must be a string or null")
        failures = optional_count(spec, "failures_count", 100)
        after = number(spec, "after", 0.0)
        with self.shared.lock:
            project = self.shared.project(project_id)
            if operation_id is not None:
                op = project.ops_by_id.get(operation_id)
                if op is None:
                    raise NotFound("operation not found")
                if not op.held:
                    raise Conflict("operation %s is not held: it has ended or ends on its own" % operation_id)
                chosen = [op]
            else:
                chosen = [op for op in project.ops if op.held]
            now_us = self.shared.now_us()
            for op in chosen:
                op.release(now_us, outcome, error, failures, int(after * 1000000))
            return [op.render(now_us) for op in chosen]
