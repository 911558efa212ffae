# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The simulated account: keys, projects and operations, behind one lock."""

from __future__ import annotations

import random
import threading

from . import ids, seed
from .clock import Clock, iso_micro
from .model import END_STATUSES, ENDPOINT_ACTIONS, ApiKey, Operation, Project

KEY_NAME_MAX = 64
HISTORY_MAX = 100000
_DAY_US = 86400 * 1000000
_HOUR_US = 3600 * 1000000
_NO_ENDPOINT_ACTIONS = ("create_branch", "create_timeline")


class NotFound(LookupError):
    """A project, operation or key that does not exist."""


class InvalidRequest(ValueError):
    """A request the API answers with 400."""


def _number(spec, name, default, low=0.0, high=86400.0):
    value = spec.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise InvalidRequest("%s: must be a number between %s and %s" % (name, low, high))
    return float(value)


def _optional_string(spec, name):
    value = spec.get(name)
    if value is not None and (not isinstance(value, str) or not value):
        raise InvalidRequest("%s: must be a non-empty string" % name)
    return value


class State:
    """Thread-safe in-memory state of one simulated Neon account."""

    def __init__(self, api_key, seed_value=1, clock=None, extra_keys=True):
        if not api_key or not isinstance(api_key, str) or any(c.isspace() for c in api_key):
            raise ValueError("the bootstrap API key must be a non-empty string without spaces")
        self.lock = threading.RLock()
        self.clock = clock or Clock()
        self.seed = seed_value
        self.bootstrap_secret = api_key
        self.extra_keys = extra_keys
        self.user = None
        self.org_id = None
        self.keys = {}
        self.keys_by_secret = {}
        self.projects = {}
        self.project_order = []
        self.next_key_id = 0
        self.reset()

    # ------------------------------------------------------------------ general
    def now_us(self):
        return self.clock.now_us()

    def reset(self):
        """Back to the seeded state (the bootstrap key is active again)."""
        seeded = seed.build(self.seed, self.now_us(), self.bootstrap_secret, self.extra_keys)
        with self.lock:
            self.user = seeded.user
            self.org_id = seeded.org_id
            self.keys = {key.id: key for key in seeded.keys}
            self.keys_by_secret = {key.secret: key for key in seeded.keys}
            self.projects = {project.id: project for project in seeded.projects}
            self.project_order = []
            for project in seeded.projects:
                self._insert_in_order(project)
            self.next_key_id = seeded.next_key_id

    @property
    def demo_project_id(self):
        return seed.DEMO_PROJECT_ID

    def summary(self):
        with self.lock:
            return {
                "seed": self.seed,
                "demo_project_id": seed.DEMO_PROJECT_ID,
                "demo_project_name": seed.DEMO_PROJECT_NAME,
                "org_id": self.org_id,
                "user_id": self.user["id"],
                "projects": [{"id": p.id, "name": p.name, "operations": len(p.ops)} for p in self.project_order],
            }

    # ------------------------------------------------------------------ keys
    def authenticate(self, secret, address):
        """The active key with this secret (its last use recorded), or None."""
        with self.lock:
            key = self.keys_by_secret.get(secret)
            if key is None or key.revoked:
                return None
            key.last_used_us = self.now_us()
            key.last_used_from_addr = address
            return key

    def create_key(self, name):
        if not isinstance(name, str) or not name.strip():
            raise InvalidRequest("key_name: must be a non-empty string")
        if len(name) > KEY_NAME_MAX:
            raise InvalidRequest("key_name: must be at most %d characters long" % KEY_NAME_MAX)
        with self.lock:
            secret = ids.api_key_secret()
            while secret in self.keys_by_secret:
                secret = ids.api_key_secret()
            key = ApiKey(self.next_key_id, name, secret, self.now_us(), self.user)
            self.next_key_id += 1
            self.keys[key.id] = key
            self.keys_by_secret[secret] = key
            return key.create_response()

    def list_keys(self):
        with self.lock:
            active = [key for key in self.keys.values() if not key.revoked]
            active.sort(key=lambda key: (key.created_us, key.id), reverse=True)
            return [key.list_item() for key in active]

    def revoke_key(self, key_id):
        with self.lock:
            key = self.keys.get(key_id)
            if key is None or key.revoked:
                raise NotFound("API key not found")
            key.revoked = True
            key.revoked_us = self.now_us()
            return key.revoke_response()

    def all_keys(self):
        with self.lock:
            return [key.control_item() for key in sorted(self.keys.values(), key=lambda key: key.id)]

    # ------------------------------------------------------------------ projects
    def _insert_in_order(self, project):
        """Project list order: newest first (created_at, then id, descending)."""
        order_key = (project.created_us, project.id)
        index = 0
        while index < len(self.project_order) and \
                (self.project_order[index].created_us, self.project_order[index].id) > order_key:
            index += 1
        self.project_order.insert(index, project)

    def list_projects(self, limit, cursor=None, search=None, org_id=None):
        """(projects, cursor): the page after the project ``cursor``."""
        with self.lock:
            candidates = self.project_order
            if cursor:
                position = next((i for i, p in enumerate(candidates) if p.id == cursor), None)
                if position is None:
                    raise InvalidRequest("cursor: unknown project id %r" % cursor)
                candidates = candidates[position + 1:]
            if search:
                needle = search.lower()
                candidates = [p for p in candidates if needle in p.name.lower() or needle in p.id.lower()]
            if org_id:
                candidates = [p for p in candidates if p.data.get("org_id") == org_id]
            page = candidates[:limit]
            return [p.render() for p in page], (page[-1].id if page else cursor)

    def get_project(self, project_id):
        with self.lock:
            project = self.projects.get(project_id)
            if project is None:
                raise NotFound("project not found")
            return project.render()

    def create_project(self, spec):
        """Create a project (control API); answers the project object."""
        name = _optional_string(spec, "name")
        region_id = _optional_string(spec, "region_id") or "aws-us-east-2"
        if region_id not in seed.REGIONS:
            raise InvalidRequest("region_id: unknown region, one of %s" % ", ".join(seed.REGIONS))
        pg_version = spec.get("pg_version", 17)
        if pg_version not in (14, 15, 16, 17, 18):
            raise InvalidRequest("pg_version: must be one of 14, 15, 16, 17, 18")
        wanted_id = _optional_string(spec, "id")
        rng = random.SystemRandom()
        with self.lock:
            if wanted_id and wanted_id in self.projects:
                raise InvalidRequest("id: project %s already exists" % wanted_id)
            project_id = wanted_id or ids.project_id(rng)
            while project_id in self.projects:
                project_id = ids.project_id(rng)
            now_us = self.now_us()
            data = seed.project_data(rng, project_id, name or project_id, region_id, now_us, now_us,
                                     self.org_id, self.user["id"])
            data.update({"pg_version": pg_version, "active_time": 0, "cpu_used_sec": 0,
                         "synthetic_storage_size": 0, "updated_at": data["created_at"],
                         "compute_last_active_at": data["created_at"], "creation_source": "api"})
            project = Project(data, now_us, [(ids.branch_id(rng), ids.endpoint_id(rng))])
            self.projects[project_id] = project
            self._insert_in_order(project)
            return project.render()

    # ------------------------------------------------------------------ operations
    def _project(self, project_id, message="project not found"):
        project = self.projects.get(project_id)
        if project is None:
            raise NotFound(message)
        return project

    def list_operations(self, project_id, limit, cursor_us=None, cursor_text=None):
        """(operations, cursor) for one page, newest first, strictly older than the cursor."""
        with self.lock:
            project = self._project(project_id)
            page = project.page(limit, cursor_us)
            now_us = self.now_us()
            items = [op.render(now_us) for op in page]
            return items, (iso_micro(page[-1].created_us) if page else cursor_text)

    def get_operation(self, project_id, operation_id):
        with self.lock:
            project = self._project(project_id, "operation not found")
            op = project.ops_by_id.get(operation_id)
            if op is None:
                raise NotFound("operation not found")
            return op.render(self.now_us())

    def operation_counts(self, project_id):
        """{status: count} of a project's operations right now (tests, docs)."""
        with self.lock:
            project = self._project(project_id)
            now_us = self.now_us()
            counts = {}
            for op in project.ops:
                status = op.status_at(now_us)
                counts[status] = counts.get(status, 0) + 1
            return counts

    def _build_operation(self, project, spec, created_us):
        if not isinstance(spec, dict):
            raise InvalidRequest("each operation spec must be an object")
        action = spec.get("action", "apply_config")
        if not isinstance(action, str) or not action:
            raise InvalidRequest("action: must be a non-empty string")
        duration = _number(spec, "duration", 2.0)
        scheduling = _number(spec, "scheduling", min(0.5, duration / 4))
        outcome = spec.get("outcome") or "finished"
        if outcome not in END_STATUSES:
            raise InvalidRequest("outcome: must be one of %s" % ", ".join(END_STATUSES))
        failures = spec.get("failures_count")
        if failures is not None and (isinstance(failures, bool) or not isinstance(failures, int)
                                     or not 0 <= failures <= 100):
            raise InvalidRequest("failures_count: must be an integer between 0 and 100")
        error = spec.get("error")
        if error is not None and not isinstance(error, str):
            raise InvalidRequest("error: must be a string or null")
        primary_branch, primary_endpoint = project.branches[0]
        branch_id = _optional_string(spec, "branch_id")
        if branch_id is None:
            if action == "create_branch":
                branch_id = ids.branch_id(random.SystemRandom())
                project.branches.append((branch_id, None))
            else:
                branch_id = primary_branch
        if "endpoint_id" in spec:
            endpoint_id = _optional_string(spec, "endpoint_id")
        elif action in _NO_ENDPOINT_ACTIONS or action not in ENDPOINT_ACTIONS:
            endpoint_id = None
        else:
            endpoint_id = dict(project.branches).get(branch_id) or primary_endpoint
        return Operation(ids.random_uuid(), project.id, branch_id, endpoint_id, action, created_us,
                         scheduling, duration, outcome, failures, error)

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
        with self.lock:
            project = self._project(project_id)
            created_us = self.now_us()
            ops = []
            for spec in expanded:
                created_us = project.unique_time(created_us)
                ops.append(self._build_operation(project, spec, created_us))
                created_us += 1
            for op in ops:
                project.add_operation(op)
            now_us = self.now_us()
            return [op.render(now_us) for op in ops]

    def add_history(self, project_id, count, days=30.0, seed_value=None):
        """Add ``count`` operations in end states, spread over ``days`` days up to an hour ago.

        A quick bulk load (10,000 operations in well under a second) for paging tests and the
        benchmark; actions, outcomes and durations are drawn as in the seeded histories
        (``seed_value`` makes them repeatable). Answers ``{project_id, added, operations}``.
        """
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= HISTORY_MAX:
            raise InvalidRequest("count: must be an integer between 1 and %d" % HISTORY_MAX)
        days = _number({"days": days}, "days", 30.0, 0.001, 3650.0)
        if seed_value is not None and (isinstance(seed_value, bool) or not isinstance(seed_value, int)):
            raise InvalidRequest("seed: must be an integer")
        rng = random.Random(seed_value) if seed_value is not None else random.Random()
        with self.lock:
            project = self._project(project_id)
            end_us = self.now_us() - _HOUR_US
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
