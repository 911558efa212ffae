# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The operations API calls start, and the plan the account is on.

- :data:`DURATIONS`: how long each action takes unless a test scripts it.
- :class:`NextOperations`: scripted operations for what the API starts next ("the next
  ``start_compute`` fails", "the next two ``create_branch`` are held"), with the fields of
  ``POST /_simulator/projects/{id}/operations``.
- :class:`Limits`: plan limits (projects, branches, history retention, changing the suspend
  timeout), off unless a test sets them.
- :data:`MESSAGE_LOCKED`: the 423 answer while a project runs operations.
"""

from __future__ import annotations

import threading

from .errors import InvalidRequest

# Seconds (scheduling, total) per action when nothing is scripted; short, so that a test
# moves past them with sim.advance_clock(10) rather than by waiting.
DURATIONS = {
    "create_timeline": (0.2, 2.0),
    "create_branch": (0.2, 1.5),
    "start_compute": (0.5, 2.0),
    "suspend_compute": (0.2, 1.0),
    "apply_config": (0.1, 1.0),
    "apply_storage_config": (0.1, 1.0),
    "delete_timeline": (0.2, 1.0),
}
DEFAULT_DURATION = (0.2, 1.0)

# real-api-notes.md, "Errors"
MESSAGE_LOCKED = "project already has running conflicting operations, scheduling of new ones is prohibited"

PLAN_FIELDS = ("duration", "scheduling", "outcome", "failures_count", "error", "hold", "reads_in_progress")
PLAN_COUNT_MAX = 10000


class NextOperations:
    """Scripts for the operations the API starts next, oldest first among those that match."""

    def __init__(self):
        self._lock = threading.Lock()
        self._plans = []
        self._next_id = 1

    def add(self, spec, check):
        """``{"action": name | "*", "project_id": id | null, "count": N, <operation fields>}``.

        ``check(fields)`` validates the operation fields (the control API's rules for starting operations).
        """
        if not isinstance(spec, dict):
            raise InvalidRequest("request body: must be a JSON object")
        unknown = set(spec) - set(PLAN_FIELDS) - {"action", "project_id", "count"}
        if unknown:
            raise InvalidRequest("unknown fields: %s" % ", ".join(sorted(unknown)))
        action = spec.get("action", "*")
        if not isinstance(action, str) or not action:
            raise InvalidRequest("action: must be an action name or \"*\"")
        project_id = spec.get("project_id")
        if project_id is not None and (not isinstance(project_id, str) or not project_id):
            raise InvalidRequest("project_id: must be a project id or null (any project)")
        count = spec.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= PLAN_COUNT_MAX:
            raise InvalidRequest("count: must be an integer from 1 to %d" % PLAN_COUNT_MAX)
        fields = {name: spec[name] for name in PLAN_FIELDS if name in spec}
        check(dict(fields, action=action if action != "*" else "apply_config"))
        with self._lock:
            plan = {"id": self._next_id, "action": action, "project_id": project_id, "count": count,
                    "used": 0, "operation": fields}
            self._next_id += 1
            self._plans.append(plan)
            return dict(plan)

    def take(self, project_id, action):
        """The scripted fields for the next operation ``action`` of ``project_id`` (a plan is spent), or {}."""
        with self._lock:
            for plan in self._plans:
                if plan["action"] in ("*", action) and plan["project_id"] in (None, project_id):
                    plan["used"] += 1
                    if plan["used"] >= plan["count"]:
                        self._plans.remove(plan)
                    return dict(plan["operation"])
            return {}

    def list(self):
        with self._lock:
            return [dict(plan) for plan in self._plans]

    def clear(self):
        with self._lock:
            removed = len(self._plans)
            self._plans = []
            return removed


def operation_spec(action, branch_id, endpoint_id, scripted, pace=1.0):
    """What Shared.build_operation (shared.py) takes for one operation an API call starts; ``pace`` scales the
    unscripted durations (the simulator's --operation-pace)."""
    scheduling, duration = (seconds * pace for seconds in DURATIONS.get(action, DEFAULT_DURATION))
    spec = {"action": action, "branch_id": branch_id, "endpoint_id": endpoint_id, "duration": duration,
            "scheduling": scheduling}
    if "duration" in scripted and "scheduling" not in scripted:
        spec["scheduling"] = min(scheduling, scripted["duration"] / 4)
    spec.update(scripted)
    return spec


class Limits:
    """The account's plan, as far as the simulator enforces it. None: no limit (the default).

    - ``max_projects``: projects per account (a user's personal ones, or an organization's);
      creating one more answers 422 ``PROJECTS_LIMIT_EXCEEDED`` (notes 1.2).
    - ``max_branches``: branches per project; one more answers 422 ``BRANCHES_LIMIT_EXCEEDED``
      (the code is **inferred** from the projects' one: notes section 3).
    - ``max_history_retention_seconds``: a larger ``history_retention_seconds`` answers 400 with
      the live message (notes 1.2).
    - ``suspend_timeout_changeable``: False as on the free plan: setting ``suspend_timeout_seconds``
      of a compute answers 400, and on project creation the value is silently set to 0 (notes 1.2).
    """

    FIELDS = {"max_projects": int, "max_branches": int, "max_history_retention_seconds": int,
              "suspend_timeout_changeable": bool}
    DEFAULTS = {"max_projects": None, "max_branches": None, "max_history_retention_seconds": None,
                "suspend_timeout_changeable": True}

    def __init__(self):
        self.values = dict(self.DEFAULTS)

    def update(self, spec):
        if not isinstance(spec, dict):
            raise InvalidRequest("request body: must be a JSON object")
        unknown = set(spec) - set(self.FIELDS)
        if unknown:
            raise InvalidRequest("unknown fields: %s" % ", ".join(sorted(unknown)))
        for name, value in spec.items():
            kind = self.FIELDS[name]
            if kind is bool:
                if not isinstance(value, bool):
                    raise InvalidRequest("%s: must be true or false" % name)
            elif value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise InvalidRequest("%s: must be a non-negative integer or null (no limit)" % name)
        self.values.update(spec)
        return dict(self.values)

    def __getitem__(self, name):
        return self.values[name]
