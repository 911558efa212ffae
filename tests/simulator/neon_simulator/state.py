# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The simulated service: users, organizations, keys, projects and operations, behind one lock.

The methods the API calls take the authenticating key and apply access.py's rules; the
methods that set a scene (control API) are in scene.py.
"""

from __future__ import annotations

import random
import threading

from . import access, ids, seed
from .clock import Clock, iso_micro
from .errors import Conflict, Forbidden, InvalidRequest, NotFound
from .records import (END_STATUSES, ENDPOINT_ACTIONS, ORGANIZATION_KEY, PERSONAL_KEY, PROJECT_KEY, ApiKey, Operation,
                    Project)
from .catalog import CatalogMixin
from .computes import ComputesMixin
from .consumption import ConsumptionMixin
from .networking import NetworkingMixin
from .provisioning import ProvisioningMixin
from .recovery import RecoveryMixin
from .scene import SceneMixin
from .sharing import SharingMixin
from .snapshots import SnapshotsMixin
from .work import Limits, NextOperations

__all__ = ["Conflict", "Forbidden", "InvalidRequest", "NotFound", "State"]

BULK_PROJECTS_MAX = 20000

KEY_NAME_MAX = 64
HISTORY_MAX = 100000
_DAY_US = 86400 * 1000000
_HOUR_US = 3600 * 1000000
_NO_ENDPOINT_ACTIONS = ("create_branch", "create_timeline")
READS_MAX = 1000
ID_RE = ids.ID_RE


def _number(spec, name, default, low=0.0, high=86400.0):
    value = spec.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise InvalidRequest("%s: must be a number between %s and %s" % (name, low, high))
    return float(value)


def _optional_count(spec, name, high):
    value = spec.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high):
        raise InvalidRequest("%s: must be an integer between 0 and %d" % (name, high))
    return value


def _optional_string(spec, name):
    value = spec.get(name)
    if value is not None and (not isinstance(value, str) or not value):
        raise InvalidRequest("%s: must be a non-empty string" % name)
    return value


class State(SceneMixin, ProvisioningMixin, ComputesMixin, CatalogMixin, SharingMixin, NetworkingMixin, ConsumptionMixin,
            RecoveryMixin, SnapshotsMixin):
    """Thread-safe in-memory state of the simulated service."""

    def __init__(self, api_key, seed_value=1, clock=None, extra_keys=True, operation_pace=1.0, real=None):
        if not api_key or not isinstance(api_key, str) or any(c.isspace() for c in api_key):
            raise ValueError("the bootstrap API key must be a non-empty string without spaces")
        self.lock = threading.RLock()
        self.clock = clock or Clock()
        self.seed = seed_value
        self.bootstrap_secret = api_key
        self.extra_keys = extra_keys
        # How long the operations the API starts take, as a share of work.DURATIONS (kept by reset)
        self.operation_pace = operation_pace
        self.user = None              # the bootstrap user as keys show it: {id, name, image}
        self.bootstrap_user_id = None
        self.org_id = seed.ORG_ID     # the seeded organization
        self.users = {}
        self.organizations = {}
        self.keys = {}
        self.keys_by_secret = {}
        self.projects = {}
        self.project_order = []
        self.unavailable = {}         # project id -> answers left that leave it out (None: every answer)
        self.next_key_id = 0
        self.limits = Limits()
        self.next_operations = NextOperations()
        self.next_database_id = 0
        # computes that are real PostgreSQL servers (real_computes.RealComputes, --postgres), or None
        self.real = real
        self.reset()

    # ------------------------------------------------------------------ general
    def now_us(self):
        return self.clock.now_us()

    def before_request(self):
        """Called before a request is answered (app.py): a real compute with a client session open counts as
        in use now, so its answer does not find it suspended by its timeout (real_computes.py)."""
        real = self.real
        if real is not None:
            real.keep_busy_active(self)

    def after_request(self):
        """Called once a request's answer is made, before it is sent (app.py): real computes are made to match
        what it said (real_computes.py)."""
        real = self.real
        if real is not None:
            real.reconcile(self)

    def reset(self):
        """Back to the seeded state (the bootstrap key is active again)."""
        seeded = seed.build(self.seed, self.now_us(), self.bootstrap_secret, self.extra_keys)
        with self.lock:
            self.user = seeded.user.ref()
            self.bootstrap_user_id = seeded.user.id
            self.users = {user.id: user for user in seeded.users}
            self.organizations = {org.id: org for org in seeded.organizations}
            self.keys = {key.id: key for key in seeded.keys}
            self.keys_by_secret = {key.secret: key for key in seeded.keys}
            self.projects = {project.id: project for project in seeded.projects}
            self.project_order = []
            for project in seeded.projects:
                self._insert_in_order(project)
            self.unavailable = {}
            self.next_key_id = seeded.next_key_id
            self.limits = Limits()
            self.next_operations.clear()
            self._reset_provisioning()
            self._reset_sharing()
            self._reset_networking()
            self._reset_consumption()
            self._reset_recovery()
            self._reset_snapshots()
            if self.real is not None:  # every server and all data go: the seeded projects start empty again
                self.real.clear()

    @property
    def demo_project_id(self):
        return seed.DEMO_PROJECT_ID

    def _personal_projects(self, user_id):
        return [p for p in self.project_order if p.org_id is None and p.owner_id == user_id]

    def summary(self):
        def brief(project):
            return {"id": project.id, "name": project.name, "operations": len(project.ops)}

        with self.lock:
            me = self.bootstrap_user_id
            return {
                "seed": self.seed,
                "demo_project_id": seed.DEMO_PROJECT_ID,
                "demo_project_name": seed.DEMO_PROJECT_NAME,
                "org_id": self.org_id,
                "user_id": me,
                # the bootstrap user's personal projects: what GET /projects lists with the bootstrap key
                "projects": [brief(p) for p in self._personal_projects(me)],
                "shared_projects": [brief(p) for p in self.project_order if me in p.shared_with],
                "organizations": [dict(org.render(),
                                       members=[{"user_id": uid, "role": role} for uid, role in org.members.items()],
                                       projects=[brief(p) for p in self.project_order if p.org_id == org.id])
                                  for org in self.organizations.values()],
                "users": [dict(user.control_item(), bootstrap=user.id == me,
                               personal_projects=len(self._personal_projects(user.id)))
                          for user in self.users.values()],
            }

    # ------------------------------------------------------------------ keys
    def authenticate(self, secret, address):
        """The active, usable key with this secret (its last use recorded), or None."""
        with self.lock:
            key = self.keys_by_secret.get(secret)
            if key is None or key.revoked or not access.key_is_usable(self, key):
                return None
            key.last_used_us = self.now_us()
            key.last_used_from_addr = address
            return key

    def _bootstrap_key(self):
        return next(key for key in self.keys.values() if key.bootstrap)

    def _add_key(self, name, created_by, kind=PERSONAL_KEY, org_id=None, project_id=None):
        """A new active key (lock held); answers the ApiKey."""
        secret = ids.api_key_secret()
        while secret in self.keys_by_secret:
            secret = ids.api_key_secret()
        key = ApiKey(self.next_key_id, name, secret, self.now_us(), created_by, kind=kind, org_id=org_id,
                     project_id=project_id)
        self.next_key_id += 1
        self.keys[key.id] = key
        self.keys_by_secret[secret] = key
        return key

    @staticmethod
    def _check_key_name(name):
        if not isinstance(name, str) or not name.strip():
            raise InvalidRequest("key_name: must be a non-empty string")
        if len(name) > KEY_NAME_MAX:
            raise InvalidRequest("key_name: must be at most %d characters long" % KEY_NAME_MAX)

    def create_key(self, name, key=None):
        """POST /api_keys: a personal key of the authenticating key's user (default: the bootstrap user)."""
        self._check_key_name(name)
        with self.lock:
            key = key or self._bootstrap_key()
            access.require_personal_key(key)
            return self._add_key(name, dict(key.created_by)).create_response()

    @staticmethod
    def _newest_first(keys):
        return sorted(keys, key=lambda key: (key.created_us, key.id), reverse=True)

    def list_keys(self, key=None):
        """GET /api_keys: the user's active personal keys, newest first."""
        with self.lock:
            key = key or self._bootstrap_key()
            access.require_personal_key(key)
            mine = [k for k in self.keys.values()
                    if k.kind == PERSONAL_KEY and not k.revoked and k.owner_id == key.owner_id]
            return [k.list_item() for k in self._newest_first(mine)]

    def revoke_key(self, key_id, key=None):
        """DELETE /api_keys/{id}: one of the user's personal keys."""
        with self.lock:
            key = key or self._bootstrap_key()
            access.require_personal_key(key)
            target = self.keys.get(key_id)
            if target is None or target.revoked or target.kind != PERSONAL_KEY or target.owner_id != key.owner_id:
                raise NotFound("API key not found")
            return self._revoke(target)

    def _revoke(self, target):
        target.revoked = True
        target.revoked_us = self.now_us()
        return target.revoke_response()

    def all_keys(self, kind=None):
        with self.lock:
            return [key.control_item() for key in sorted(self.keys.values(), key=lambda key: key.id)
                    if kind is None or key.kind == kind]

    def age_key(self, key_id, spec):
        """Move a key's creation and last use into the past: ``{"created_days_ago": D, "last_used_days_ago":
        D | null}`` (days before the simulator's now; null: never used). Answers the key as /_simulator/keys."""
        unknown = set(spec) - {"created_days_ago", "last_used_days_ago"}
        if unknown:
            raise InvalidRequest("unknown fields: %s" % ", ".join(sorted(unknown)))

        def days(field):
            value = spec[field]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 36500:
                raise InvalidRequest("%s: must be a number of days from 0 to 36500" % field)
            return int(round(value * 86400e6))

        with self.lock:
            key = self.keys.get(key_id)
            if key is None:
                raise NotFound("no key %s" % key_id)
            now = self.now_us()
            created_us = now - days("created_days_ago") if "created_days_ago" in spec else key.created_us
            last_used_us = key.last_used_us
            if "last_used_days_ago" in spec:
                last_used_us = None if spec["last_used_days_ago"] is None else now - days("last_used_days_ago")
            if last_used_us is not None and last_used_us < created_us:
                raise InvalidRequest("a key cannot be last used before it was created")
            key.created_us, key.last_used_us = created_us, last_used_us
            key.last_used_from_addr = "" if last_used_us is None else (key.last_used_from_addr or "127.0.0.1")
            return key.control_item()

    # ------------------------------------------------------------------ organizations
    def _org_keys(self, org_id):
        return [k for k in self.keys.values() if k.org_id == org_id and not k.revoked]

    def list_org_keys(self, key, org_id):
        """GET /organizations/{org_id}/api_keys: the organization's active keys, newest first."""
        with self.lock:
            access.organization_role(self, key, org_id)
            return [k.list_item() for k in self._newest_first(self._org_keys(org_id))]

    def create_org_key(self, key, org_id, name, project_id=None):
        """POST /organizations/{org_id}/api_keys: an organization key, or one scoped to ``project_id``."""
        self._check_key_name(name)
        if project_id is not None and (not isinstance(project_id, str) or not ID_RE.match(project_id)):
            raise InvalidRequest("project_id: must match ^[a-z0-9-]{1,60}$")
        with self.lock:
            access.check_org_key_create(self, key, org_id, project_id)
            if project_id is not None:
                project = self.projects.get(project_id)
                if project is None or project.org_id != org_id:
                    raise InvalidRequest("project_id: no project %s in organization %s" % (project_id, org_id))
            kind = ORGANIZATION_KEY if project_id is None else PROJECT_KEY
            created = self._add_key(name, dict(key.created_by), kind, org_id, project_id)
            return created.create_response()

    def revoke_org_key(self, key, org_id, key_id):
        with self.lock:
            access.organization_role(self, key, org_id)
            target = self.keys.get(key_id)
            if target is None or target.revoked or target.org_id != org_id:
                raise NotFound("API key not found")
            access.check_org_key_revoke(self, key, org_id, target)
            return self._revoke(target)

    def auth_details(self, key):
        return access.auth_details(key)

    def user_organizations(self, key):
        """GET /users/me/organizations."""
        with self.lock:
            access.require_personal_key(key)
            return [org.render() for org in access.user_organizations(self, key.owner_id)]

    def get_organization(self, key, org_id):
        with self.lock:
            access.organization_role(self, key, org_id)
            return self.organizations[org_id].render()

    # ------------------------------------------------------------------ projects
    def _insert_in_order(self, project):
        """Project list order: newest first (created_at, then id, descending)."""
        order_key = (project.created_us, project.id)
        index = 0
        while index < len(self.project_order) and \
                (self.project_order[index].created_us, self.project_order[index].id) > order_key:
            index += 1
        self.project_order.insert(index, project)

    def _take_unavailable(self, page):
        """Split a page into (available, unavailable ids), spending one answer of each unavailable one."""
        available, missing = [], []
        for project in page:
            if project.id not in self.unavailable:
                available.append(project)
                continue
            missing.append(project.id)
            left = self.unavailable[project.id]
            if left is not None:
                if left <= 1:
                    del self.unavailable[project.id]
                else:
                    self.unavailable[project.id] = left - 1
        return available, missing

    def _list(self, selected, limit, cursor, search):
        """(projects, cursor, unavailable ids): one page of the projects ``selected`` lets through.

        The page is chosen first (``limit`` projects after ``cursor``); projects marked unavailable
        are then left out of ``projects`` and named in ``unavailable_project_ids``, as the live
        service does when fetching their details runs out of time. The cursor is the page's last
        project id either way, so the next page starts after the whole page.
        """
        candidates = [p for p in self.project_order if selected(p)]
        if cursor:
            position = next((i for i, p in enumerate(candidates) if p.id == cursor), None)
            if position is None:
                raise InvalidRequest("cursor: unknown project id %r" % cursor)
            candidates = candidates[position + 1:]
        if search:
            needle = search.lower()
            candidates = [p for p in candidates if needle in p.name.lower() or needle in p.id.lower()]
        page = candidates[:limit]
        available, missing = self._take_unavailable(page)
        return [p.render() for p in available], (page[-1].id if page else cursor), missing

    def list_projects(self, limit, cursor=None, search=None, org_id=None, key=None):
        """GET /projects for ``key`` (default: the bootstrap key): (projects, cursor, unavailable ids)."""
        with self.lock:
            key = key or self._bootstrap_key()
            return self._list(access.project_listing(self, key, org_id), limit, cursor, search)

    def list_shared_projects(self, key, limit, cursor=None, search=None):
        """GET /projects/shared: (projects, cursor, unavailable ids)."""
        with self.lock:
            return self._list(access.shared_listing(key), limit, cursor, search)

    def get_project(self, project_id):
        with self.lock:
            project = self.projects.get(project_id)
            if project is None:
                raise NotFound("project not found")
            return project.render()

    def create_projects(self, spec):
        """Many projects at once (control API): ``{"count": N, "name_prefix", "org_id", "owner", "region_id",
        "pg_version"}``; answers ``{"count": N, "first_id", "last_id"}``. For large inventories in tests and
        the benchmark; each project is made as ``create_project`` makes one."""
        spec = dict(spec)
        count = spec.pop("count", None)
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= BULK_PROJECTS_MAX:
            raise InvalidRequest("count: must be an integer from 1 to %d" % BULK_PROJECTS_MAX)
        prefix = _optional_string(spec, "name_prefix") or "bulk"
        spec.pop("name_prefix", None)
        if "name" in spec or "id" in spec:
            raise InvalidRequest("name and id are made per project: use name_prefix")
        made = [self.create_project(dict(spec, name="%s-%d" % (prefix, number))) for number in range(1, count + 1)]
        return {"count": len(made), "first_id": made[0]["id"], "last_id": made[-1]["id"]}

    def create_project(self, spec):
        """Create a project (control API); answers the project object.

        ``org_id``: a project of that organization (owner: ``owner``, else its first admin);
        otherwise a personal project of ``owner`` (a user id or "bootstrap", the default).
        """
        name = _optional_string(spec, "name")
        region_id = _optional_string(spec, "region_id") or "aws-us-east-2"
        if region_id not in seed.REGIONS:
            raise InvalidRequest("region_id: unknown region, one of %s" % ", ".join(seed.REGIONS))
        pg_version = spec.get("pg_version", 17)
        if pg_version not in (14, 15, 16, 17, 18):
            raise InvalidRequest("pg_version: must be one of 14, 15, 16, 17, 18")
        wanted_id = _optional_string(spec, "id")
        if wanted_id is not None and not ID_RE.match(wanted_id):
            raise InvalidRequest("id: must match ^[a-z0-9-]{1,60}$")
        org_id = _optional_string(spec, "org_id")
        rng = random.SystemRandom()
        with self.lock:
            owner = self.find_user(spec.get("owner", "bootstrap"), "owner")
            if org_id is not None:
                org = self.find_organization(org_id)
                if "owner" not in spec and org.admins():
                    owner = self.users[org.admins()[0]]
            if wanted_id and wanted_id in self.projects:
                raise InvalidRequest("id: project %s already exists" % wanted_id)
            project = self._add_project(rng, name, region_id, pg_version, org_id, owner.id, wanted_id)
            return project.render()

    def _add_project(self, rng, name, region_id, pg_version, org_id, owner_id, wanted_id=None):
        """A new project (lock held), listed first; its skeleton: one branch with one compute."""
        project_id = wanted_id or ids.project_id(rng)
        while project_id in self.projects:
            project_id = ids.project_id(rng)
        now_us = self.now_us()
        data = seed.project_data(rng, project_id, name or project_id, region_id, now_us, now_us, org_id, owner_id)
        data.update({"pg_version": pg_version, "active_time": 0, "cpu_used_sec": 0,
                     "synthetic_storage_size": 0, "updated_at": data["created_at"],
                     "compute_last_active_at": data["created_at"], "creation_source": "api"})
        project = Project(data, now_us, [(ids.branch_id(rng), ids.endpoint_id(rng))])
        self.projects[project_id] = project
        self._insert_in_order(project)
        return project

    # ------------------------------------------------------------------ operations
    def _project(self, project_id, message="project not found"):
        project = self.projects.get(project_id)
        if project is None:
            raise NotFound(message)
        return project

    def _reachable(self, key, project_id, message="project not found"):
        if key is None:  # in-process callers: no access rule
            return self._project(project_id, message)
        return access.check_project(self, key, project_id, message)

    def list_operations(self, project_id, limit, cursor_us=None, cursor_text=None, key=None):
        """(operations, cursor) for one page, newest first, strictly older than the cursor."""
        with self.lock:
            project = self._reachable(key, project_id)
            page = project.page(limit, cursor_us)
            now_us = self.now_us()
            for op in page:
                op.note_read(now_us)
            items = [op.render(now_us) for op in page]
            return items, (iso_micro(page[-1].created_us) if page else cursor_text)

    def get_operation(self, project_id, operation_id, key=None):
        with self.lock:
            project = self._reachable(key, project_id, "operation not found")
            op = project.ops_by_id.get(operation_id)
            if op is None:
                raise NotFound("operation not found")
            now_us = self.now_us()
            op.note_read(now_us)
            return op.render(now_us)

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
        hold = spec.get("hold", False)
        if not isinstance(hold, bool):
            raise InvalidRequest("hold: must be true or false")
        reads = _optional_count(spec, "reads_in_progress", READS_MAX)
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
                         scheduling, duration, outcome, failures, error, hold=hold, reads_in_progress=reads)

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
        failures = _optional_count(spec, "failures_count", 100)
        after = _number(spec, "after", 0.0)
        with self.lock:
            project = self._project(project_id)
            if operation_id is not None:
                op = project.ops_by_id.get(operation_id)
                if op is None:
                    raise NotFound("operation not found")
                if not op.held:
                    raise Conflict("operation %s is not held: it has ended or ends on its own" % operation_id)
                chosen = [op]
            else:
                chosen = [op for op in project.ops if op.held]
            now_us = self.now_us()
            for op in chosen:
                op.release(now_us, outcome, error, failures, int(after * 1000000))
            return [op.render(now_us) for op in chosen]
