# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the areas of the simulated service share: the data behind one lock, and the helpers more than one area
uses, in one object (:class:`Shared`) that State passes to each area's object (keys.py, projects.py, provisioning.py,
...). An area calls ``self.shared.branch(...)``; what is not here is the area's own.

The helpers expect the lock held (``find_user`` and ``find_organization`` take it themselves, an RLock); ``now_us``
and the module's readers of a request body or a control API spec need none.
"""

from __future__ import annotations

import random
import threading

from . import access, ids, seed
from .clock import Clock, parse_rfc3339
from .errors import Conflict, InvalidRequest, Locked, NotFound, Unprocessable, with_code
from .history import lsn_of, us_of_lsn
from .records import (END_STATUSES, ENDPOINT_ACTIONS, PERSONAL_KEY, ApiKey, Branch, Database, Endpoint, Operation,
                      Project, Resources, Role, new_password)
from .work import MESSAGE_LOCKED, Limits, NextOperations, operation_spec

BOOTSTRAP_ALIAS = "bootstrap"  # names the seeded user wherever a user id goes (control API, scene files)
KEY_NAME_MAX = 64
READS_MAX = 1000
_NO_ENDPOINT_ACTIONS = ("create_branch", "create_timeline")
SEEDED_CHILD_NAMES = ("dev", "staging", "preview")
# The messages of the checks below (with provisioning.py's CHOICES: what the notes say of each)
MESSAGE_BRANCH_EXISTS = 'branch already exists; branch_name:"%s"'           # notes 1.2 (CBA #67, 2024)
MESSAGE_SUSPEND_NOT_ALLOWED = "suspend interval changing is not allowed for your account"  # notes 1.2, 400 chosen
MESSAGE_BRANCHES_LIMIT = "branches limit of %d exceeded, got %d"            # inferred (notes 3)
MESSAGE_NOT_RFC3339 = "%s: must be an RFC 3339 timestamp such as 2026-05-04T02:55:00Z, got %r"  # recovery.py's CHOICES


# readers of a control API spec
def number(spec, name, default, low=0.0, high=86400.0):
    value = spec.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise InvalidRequest("%s: must be a number between %s and %s" % (name, low, high))
    return float(value)


def optional_count(spec, name, high):
    value = spec.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high):
        raise InvalidRequest("%s: must be an integer between 0 and %d" % (name, high))
    return value


def optional_string(spec, name):
    value = spec.get(name)
    if value is not None and (not isinstance(value, str) or not value):
        raise InvalidRequest("%s: must be a non-empty string" % name)
    return value


# readers of an API request's body (the refusals the areas answer for a field of the wrong shape)
def read_object(body, name, required=True):
    value = body.get(name)
    if value is None:
        if required:
            raise InvalidRequest("invalid request: decode application/json: invalid: %s (field required)" % name)
        return {}
    if not isinstance(value, dict):
        raise InvalidRequest("%s: must be an object" % name)
    return value


def read_string(spec, name, high=256, required=False):
    value = spec.get(name)
    if value is None:
        if required:
            raise InvalidRequest("%s: field required" % name)
        return None
    if not isinstance(value, str) or not 1 <= len(value) <= high:
        raise InvalidRequest("%s: must be a string of 1 to %d characters" % (name, high))
    return value


def read_boolean(spec, name):
    value = spec.get(name)
    if value is not None and not isinstance(value, bool):
        raise InvalidRequest("%s: must be true or false" % name)
    return value


def read_integer(spec, name, low, high):
    value = spec.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high):
        raise InvalidRequest("%s: must be an integer from %d to %d" % (name, low, high))
    return value


class Shared:
    """The simulated service's data behind one lock, and the helpers the areas share (see the module's text)."""

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
        # project id -> snapshots.SnapshotBook: the snapshots area keeps them, real computes read them
        self.snapshot_books = {}
        # deleted, kept for recovery (recoverable.py): project id -> (Project, deleted_us); project id -> {branch id: ...}
        self.deleted_projects = {}
        self.deleted_branches = {}

    def load(self, seeded):
        """The seeded data (seed.build), with the lock held (State.reset, before each area's own reset)."""
        self.user = seeded.user.ref()
        self.bootstrap_user_id = seeded.user.id
        self.users = {user.id: user for user in seeded.users}
        self.organizations = {org.id: org for org in seeded.organizations}
        self.keys = {key.id: key for key in seeded.keys}
        self.keys_by_secret = {key.secret: key for key in seeded.keys}
        self.projects = {project.id: project for project in seeded.projects}
        self.project_order = []
        for project in seeded.projects:
            self.insert_in_order(project)
        self.unavailable = {}
        self.next_key_id = seeded.next_key_id
        self.limits = Limits()
        self.next_operations.clear()

    # ------------------------------------------------------------------ time and lookups
    def now_us(self):
        return self.clock.now_us()

    def project(self, project_id, message="project not found"):
        project = self.projects.get(project_id)
        if project is None:
            raise NotFound(message)
        return project

    def reachable(self, key, project_id, message="project not found"):
        if key is None:  # in-process callers: no access rule
            return self.project(project_id, message)
        return access.check_project(self, key, project_id, message)

    def find_user(self, reference, field="user_id"):
        """A User by id, or the bootstrap user for "bootstrap"; 400 for anything else."""
        with self.lock:
            if reference == BOOTSTRAP_ALIAS:
                reference = self.bootstrap_user_id
            user = self.users.get(reference) if isinstance(reference, str) else None
            if user is None:
                raise InvalidRequest("%s: unknown user %r (a user id, or \"bootstrap\")" % (field, reference))
            return user

    def find_organization(self, org_id):
        with self.lock:
            org = self.organizations.get(org_id)
            if org is None:
                raise NotFound("organization %s not found" % org_id)
            return org

    def branch(self, project, branch_id, message="branch not found"):
        branch = self.resources(project).branches.get(branch_id)
        if branch is None:
            raise NotFound(message)
        return branch

    def endpoint(self, project, endpoint_id):
        endpoint = self.resources(project).endpoints.get(endpoint_id)
        if endpoint is None:
            raise NotFound("endpoint not found")
        return endpoint

    # ------------------------------------------------------------------ keys
    def bootstrap_key(self):
        return next(key for key in self.keys.values() if key.bootstrap)

    def add_key(self, name, created_by, kind=PERSONAL_KEY, org_id=None, project_id=None):
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
    def check_key_name(name):
        if not isinstance(name, str) or not name.strip():
            raise InvalidRequest("key_name: must be a non-empty string")
        if len(name) > KEY_NAME_MAX:
            raise InvalidRequest("key_name: must be at most %d characters long" % KEY_NAME_MAX)

    # ------------------------------------------------------------------ projects
    def insert_in_order(self, project):
        """Project list order: newest first (created_at, then id, descending)."""
        order_key = (project.created_us, project.id)
        index = 0
        while index < len(self.project_order) and \
                (self.project_order[index].created_us, self.project_order[index].id) > order_key:
            index += 1
        self.project_order.insert(index, project)

    def add_project(self, rng, name, region_id, pg_version, org_id, owner_id, wanted_id=None):
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
        self.insert_in_order(project)
        return project

    # ------------------------------------------------------------------ operations
    def build_operation(self, project, spec, created_us):
        if not isinstance(spec, dict):
            raise InvalidRequest("each operation spec must be an object")
        action = spec.get("action", "apply_config")
        if not isinstance(action, str) or not action:
            raise InvalidRequest("action: must be a non-empty string")
        duration = number(spec, "duration", 2.0)
        scheduling = number(spec, "scheduling", min(0.5, duration / 4))
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
        reads = optional_count(spec, "reads_in_progress", READS_MAX)
        primary_branch, primary_endpoint = project.branches[0]
        branch_id = optional_string(spec, "branch_id")
        if branch_id is None:
            if action == "create_branch":
                branch_id = ids.branch_id(random.SystemRandom())
                project.branches.append((branch_id, None))
            else:
                branch_id = primary_branch
        if "endpoint_id" in spec:
            endpoint_id = optional_string(spec, "endpoint_id")
        elif action in _NO_ENDPOINT_ACTIONS or action not in ENDPOINT_ACTIONS:
            endpoint_id = None
        else:
            endpoint_id = dict(project.branches).get(branch_id) or primary_endpoint
        return Operation(ids.random_uuid(), project.id, branch_id, endpoint_id, action, created_us,
                         scheduling, duration, outcome, failures, error, hold=hold, reads_in_progress=reads)

    def start(self, project, items):
        """Start operations ``[(action, branch_id, endpoint_id), ...]`` now; answers the Operations."""
        created_us = self.now_us()
        ops = []
        for action, branch_id, endpoint_id in items:
            created_us = project.unique_time(created_us)
            scripted = self.next_operations.take(project.id, action)
            spec = operation_spec(action, branch_id, endpoint_id, scripted, self.operation_pace)
            op = self.build_operation(project, spec, created_us)
            project.add_operation(op)
            ops.append(op)
            created_us += 1
        return ops

    def run(self, project, items, now_us):
        """Start ``items`` unless the project is locked (nothing to start: never locked)."""
        if not items:
            return []
        self.check_unlocked(project, now_us)
        return self.start(project, items)

    def rendered(self, ops):
        now_us = self.now_us()
        return [op.render(now_us) for op in ops]

    def check_unlocked(self, project, now_us):
        """423 while any operation of the project is in progress (notes 1.3; real-api-notes "Errors")."""
        if any(not op.is_done(now_us) for op in reversed(project.ops)):
            raise Locked(MESSAGE_LOCKED)

    # ------------------------------------------------------------------ a project's branches, computes, roles and databases
    def resources(self, project):
        """The project's branches and computes, provisioned from its skeleton on first use."""
        if project.resources is not None:
            return project.resources
        resources = project.resources = Resources(self.placement())
        rng = random.Random(project.id)
        now_us = self.now_us()
        root = None
        for index, (branch_id, endpoint_id) in enumerate(project.branches):
            created_us = min(now_us, project.created_us + index * 3600 * 1000000)
            if root is None:
                branch = Branch(branch_id, project.id, "main", created_us, state="ready")
                branch.default = True
                role = Role(branch_id, "neondb_owner", new_password(), created_us)
                branch.roles[role.name] = role
                branch.databases["neondb"] = Database(self.new_database_id(), branch_id, "neondb", role.name,
                                                      created_us)
                root = branch
            else:
                name = SEEDED_CHILD_NAMES[index - 1] if index <= len(SEEDED_CHILD_NAMES) else "dev-%d" % index
                branch = Branch(branch_id, project.id, name, created_us, root, lsn_of(created_us), created_us,
                                state="ready")
                self.copy_catalog(root, branch, created_us)
            resources.branches[branch_id] = branch
            if endpoint_id:
                endpoint = Endpoint(endpoint_id, project, branch_id, "read_write", created_us, {}, state="idle")
                endpoint.suspended_us = created_us + rng.randint(60, 3600) * 1000000
                resources.add_endpoint(endpoint)
        return resources

    def new_database_id(self):
        self.next_database_id += 1
        return self.next_database_id

    def copy_catalog(self, source, branch, now_us, fresh_passwords=False):
        """``branch`` gets ``source``'s roles and databases (new passwords if ``fresh_passwords``)."""
        branch.roles = {name: role.copy_to(branch.id, now_us, new_password() if fresh_passwords else None)
                        for name, role in source.roles.items()}
        branch.databases = {name: Database(self.new_database_id(), branch.id, name, db.owner_name, now_us)
                            for name, db in source.databases.items()}

    def placement(self):
        """How a new compute gets its address: a port of its own when computes are real (--postgres)."""
        return self.real.place if self.real is not None else None

    def refuse_unreal(self, what, condition=True):
        """501 NOT_SIMULATED for what real computes cannot do honestly (real_computes.py), before any change."""
        if self.real is not None and condition:
            self.real.refuse(what)

    def compute_state(self, project, endpoint, now_us):
        """The compute's state now; an active compute suspends itself after its suspend timeout,
        with a ``suspend_compute`` operation dated then (as the control plane does)."""
        state = endpoint.state.settle(now_us)
        after_us = endpoint.suspend_after_us()
        if state == "active" and endpoint.state.op is None and after_us is not None \
                and now_us >= endpoint.state.since_us + after_us:
            when_us = project.unique_time(endpoint.state.since_us + after_us)
            scheduling, duration = 0.1, 0.5
            op = self.build_operation(project, {"action": "suspend_compute", "branch_id": endpoint.branch_id,
                                                "endpoint_id": endpoint.id, "duration": duration,
                                                "scheduling": scheduling}, when_us)
            project.add_operation(op)
            endpoint.state.start("idle", op)
            endpoint.suspended_us = op.end_us
            state = endpoint.state.settle(now_us)
        return state

    def render_endpoint(self, project, endpoint, now_us):
        self.compute_state(project, endpoint, now_us)
        return endpoint.render(now_us)

    def config_ops(self, project, branch, now_us):
        """What a change of roles, databases or compute settings starts: ``apply_config`` on the
        branch's read_write compute, then ``suspend_compute`` if it was idle (notes 1.3). None
        without a compute (inferred: the change waits for the next start)."""
        endpoint = self.resources(project).read_write_endpoint(branch.id)
        if endpoint is None:
            return []
        items = [("apply_config", branch.id, endpoint.id)]
        if self.compute_state(project, endpoint, now_us) == "idle":
            items.append(("suspend_compute", branch.id, endpoint.id))
        return items

    # ------------------------------------------------------------------ checks
    def check_suspend_timeout(self, spec):
        if spec.get("suspend_timeout_seconds") not in (None, 0) and not self.limits["suspend_timeout_changeable"]:
            raise InvalidRequest(MESSAGE_SUSPEND_NOT_ALLOWED)

    def check_branches_limit(self, resources):
        """422 BRANCHES_LIMIT_EXCEEDED when the project already has the plan's most branches (control API limits)."""
        limit = self.limits["max_branches"]
        if limit is not None and len(resources.branches) >= limit:
            raise with_code(Unprocessable(MESSAGE_BRANCHES_LIMIT % (limit, len(resources.branches))),
                            "BRANCHES_LIMIT_EXCEEDED")

    def check_branch_name(self, project, name, branch=None):
        for other in self.resources(project).branches.values():
            if other.name == name and other is not branch:
                raise Conflict(MESSAGE_BRANCH_EXISTS % name)

    # ------------------------------------------------------------------ moments
    def moment(self, timestamp, lsn, now_us, what="timestamp and lsn", parse=parse_rfc3339):
        """The moment a ``timestamp`` or an ``lsn`` names (now when neither); InvalidRequest when both or bad.
        ``parse`` reads the timestamp: strictly (RFC 3339) for /api/v2, leniently for the control API."""
        if timestamp is not None and lsn is not None:
            raise InvalidRequest("%s: give at most one" % what)
        if lsn is not None:
            try:
                return min(us_of_lsn(lsn, now_us), now_us)
            except ValueError as exc:
                raise InvalidRequest("lsn: %s" % exc) from None
        if timestamp is not None:
            try:
                return parse(timestamp)
            except (TypeError, ValueError):
                raise InvalidRequest(MESSAGE_NOT_RFC3339 % ("timestamp", timestamp)) from None
        return now_us
