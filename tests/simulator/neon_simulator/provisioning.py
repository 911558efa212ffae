# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The provisioning API: a project's branches (one project's create, get, update and delete are in projects.py; a
branch's computes are in computes.py, its roles and databases and the connection URI in catalog.py), as
/work/shared/spec/provisioning-api-notes.md ("the notes") describes the live service.

The area's object is state.provisioning: every method takes the authenticating key, holds the state's
lock, and answers JSON-like data. Every change that starts operations first checks the
project's lock (423 while any of its operations is in progress) and then starts them through
:meth:`Shared.start <neon_simulator.shared.Shared.start>`, which applies the scripted plans of work.py. What a
project's branches and computes are made of (``Shared.resources``) and the other helpers the areas share are in
shared.py.

Seeded projects and those made through the control API provision their branches lazily, from
their skeleton (the branch and compute ids their operations name), on first use: the default
branch ``main`` and children, each with the role ``neondb_owner`` and the database ``neondb``.

Where the notes say a status or message is unknown, the choice is in CHOICES below.
"""

from __future__ import annotations

import base64
import json
import random

from . import ids
from .clock import parse_rfc3339
from .errors import InvalidRequest, with_code
from .history import LSN_RE, us_of_lsn, lsn_of as _lsn
from .records import Branch, Endpoint, connection_details
from .recoverable import deleted_branch_items, flag, keep_branch
from .shared import read_boolean, read_integer, read_object, read_string

# ---------------------------------------------------------------------- CHOICES (inferred, one place)
# Duplicate names: the live messages are known (notes 1.2), the status is not; 409 is chosen
# for every "already exists" (branch, role, database, second read_write compute).
# MESSAGE_BRANCH_EXISTS (notes 1.2) is in shared.py, with the check every area makes.
MESSAGE_ROLE_EXISTS = 'role already exists; role_name:"%s"'                 # inferred, same pattern
MESSAGE_DATABASE_EXISTS = 'database already exists; database_name:"%s"'     # inferred, same pattern
MESSAGE_READ_WRITE_EXISTS = 'read_write endpoint already exists; branch_id:"%s"'  # notes 4 (status unknown)
# Refused deletions and changes: 400 (statuses and wording inferred from notes 3.4, 5, DOC-PROT).
MESSAGE_DELETE_DEFAULT = "cannot delete the default branch"
MESSAGE_DELETE_PROTECTED = "cannot delete a protected branch"
MESSAGE_DELETE_PARENT = "cannot delete a branch that has children"
MESSAGE_DELETE_PROTECTED_COMPUTE = "cannot delete a compute endpoint of a protected branch"
MESSAGE_ROLE_OWNS = 'role "%s" owns databases (%s): change their owner or delete them first'
MESSAGE_SAME_NAME = "cannot set branch to the same name"                    # notes 1.2 (alchemy comment)
MESSAGE_PROTECTED_EXPIRY = "Protected branch cannot have an expiration date"  # notes 3.3 (NEONCTL mock)
CODE_PROTECTED_EXPIRY = "PROTECTED_BRANCH_EXPIRATION_NOT_ALLOWED"
MESSAGE_RESET_PROTECTED = "cannot restore a protected branch"
# Not-found messages: "branch not found" is live (notes 1.2); "database owner not found" is live
# (neonctl #272) with an unknown status: 404 is chosen, as for every other "... not found".
MESSAGE_OWNER_NOT_FOUND = "database owner not found"
# reveal_password's 412 (SPEC); GET /connection_uri answers the same (notes 7: inferred).
MESSAGE_NO_STORED_PASSWORDS = "storing passwords is disabled"
# MESSAGE_SUSPEND_NOT_ALLOWED (notes 1.2, 400 chosen) and MESSAGE_BRANCHES_LIMIT (inferred, notes 3): in shared.py
# Operations each call starts (notes 1.3; the restore and endpoint start/suspend/restart ones
# are inferred): see the methods. Calls that would start none (a rename, set_as_default, a
# start of an active compute...) answer "operations": [] and are never refused with 423.

SUSPEND_TIMEOUT_RANGE = (-1, 604800)
EXPIRY_MAX_US = 30 * 86400 * 1000000
FORBIDDEN_DATABASES = ("postgres", "template0", "template1")
ROLE_NAME_MAX = 63
BRANCH_NAME_MAX = 256
BRANCHES_LIMIT = (1, 10000, None)
BRANCH_SORT_BY = ("updated_at", "created_at", "name")
ENDPOINT_TYPES = ("read_write", "read_only")

FIRST_DATABASE_ID = 39724307


class _PlanCheck:
    """A stand-in project for validating scripted operation fields."""

    id = "plan-check"
    branches = [("br-plan-check", "ep-plan-check")]


def compute_settings(spec):
    """The compute fields shared by project defaults, endpoint create/update and branch endpoints."""
    for name in ("autoscaling_limit_min_cu", "autoscaling_limit_max_cu"):
        value = spec.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0.25):
            raise InvalidRequest("%s: must be a number of at least 0.25" % name)
    low, high = spec.get("autoscaling_limit_min_cu"), spec.get("autoscaling_limit_max_cu")
    if low is not None and high is not None and low > high:
        raise InvalidRequest("autoscaling_limit_min_cu: must not exceed autoscaling_limit_max_cu")
    read_integer(spec, "suspend_timeout_seconds", *SUSPEND_TIMEOUT_RANGE)
    for name in ("settings", "pg_settings", "pgbouncer_settings"):
        if spec.get(name) is not None and not isinstance(spec[name], dict):
            raise InvalidRequest("%s: must be an object" % name)
    return spec


def _cursor(item, sort_by, sort_order):
    raw = json.dumps({"branch_id": item["id"], "sort_by": sort_by, "sort_by_value": item[sort_by],
                      "sort_order": sort_order.upper()})
    return base64.b64encode(raw.encode()).decode()


def _after_cursor(items, cursor, sort_by):
    try:
        data = json.loads(base64.b64decode(cursor.encode(), validate=True).decode())
        branch_id = data["branch_id"]
        if data["sort_by"] != sort_by:
            raise ValueError("sort_by")
    except (ValueError, KeyError, TypeError):
        raise InvalidRequest("cursor: invalid value %r" % cursor) from None
    position = next((i for i, item in enumerate(items) if item["id"] == branch_id), None)
    if position is None:
        raise InvalidRequest("cursor: unknown branch %r" % branch_id)
    return items[position + 1:]


class Provisioning:
    """The provisioning area of State (see the module's text)."""

    def __init__(self, shared):
        self.shared = shared  # the data and helpers every area uses (shared.py)

    # ------------------------------------------------------------------ plumbing
    def reset(self):
        self.shared.next_database_id = FIRST_DATABASE_ID

    def check_operation_fields(self, fields):
        """Validate the fields of a scripted operation (work.NextOperations) as start_operations does."""
        self.shared.build_operation(_PlanCheck(), dict(fields, branch_id="br-plan-check", endpoint_id=None), 0)

    # ------------------------------------------------------------------ branches
    def api_list_branches(self, key, project_id, args):
        """GET /projects/{id}/branches (notes 3.2): search, sort_by, sort_order, cursor, limit.

        As recorded (CASSETTE test_branches.yaml, a listing without ``limit`` or ``cursor``): every answer has
        ``pagination`` ``{next, sort_by, sort_order}`` and every listed branch ``created_by {name, image}``.
        Choice (the simulator keeps no creator per branch): ``created_by`` is the project owner's user."""
        sort_by = args.get("sort_by") or "updated_at"
        if sort_by not in BRANCH_SORT_BY:
            raise InvalidRequest("sort_by: must be one of %s" % ", ".join(BRANCH_SORT_BY))
        sort_order = (args.get("sort_order") or "desc").lower()
        if sort_order not in ("asc", "desc"):
            raise InvalidRequest("sort_order: must be asc or desc")
        limit, cursor, search = args.get("limit"), args.get("cursor") or None, args.get("search") or None
        include_deleted = flag(args, "include_deleted")
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            now_us = self.shared.now_us()
            owner = self.shared.users.get(project.owner_id)
            created_by = {"name": owner.name, "image": owner.image} if owner is not None else None
            items = [b.render(now_us) for b in self.shared.resources(project).branches.values()]
            if include_deleted:  # with ``recovery`` (recoverable.py)
                items += deleted_branch_items(self.shared, project, now_us)
            if created_by is not None:
                items = [dict(item, created_by=dict(created_by)) for item in items]
            if search:
                needle = search.lower()
                items = [b for b in items if needle in b["name"].lower() or needle in b["id"].lower()]
            items.sort(key=lambda item: (item[sort_by], item["id"]), reverse=sort_order == "desc")
            if cursor is not None:
                items = _after_cursor(items, cursor, sort_by)
            if limit is not None:
                items = items[:limit]
            answer = {"branches": items, "annotations": {}}
            # a cursor even on the last page, as the other listings (real-api-notes "Pagination"): inferred
            answer["pagination"] = {"sort_by": sort_by, "sort_order": sort_order.upper()}
            if items:
                answer["pagination"]["next"] = _cursor(items[-1], sort_by, sort_order)
            return answer

    def api_count_branches(self, key, project_id, search):
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            needle = (search or "").lower()
            return {"count": sum(1 for b in self.shared.resources(project).branches.values()
                                 if needle in b.name.lower() or needle in b.id.lower())}

    def api_get_branch(self, key, project_id, branch_id):
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            branch = self.shared.branch(project, branch_id)
            return {"branch": branch.render(self.shared.now_us()),
                    "annotation": {"object": {"type": "console/branch", "id": branch.id}, "value": {}}}

    def _expiry(self, spec, now_us, branch=None):
        """(present, expires_us or None) from ``expires_at`` (notes 3.1, DOC-EXP)."""
        if "expires_at" not in spec:
            return False, None
        value = spec["expires_at"]
        if value is None:
            return True, None
        try:
            # RFC 3339, strictly (clock.parse_rfc3339; tests/simulator/README.md, "Timestamps the API takes")
            expires_us = parse_rfc3339(value) if isinstance(value, str) else None
        except ValueError:
            expires_us = None
        if expires_us is None:
            raise InvalidRequest("expires_at: must be an RFC 3339 timestamp or null")
        if expires_us <= now_us or expires_us > now_us + EXPIRY_MAX_US:
            raise InvalidRequest("expires_at: must be in the future and at most 30 days ahead")
        if spec.get("protected") or (branch is not None and branch.protected and spec.get("protected") is not False):
            raise with_code(InvalidRequest(MESSAGE_PROTECTED_EXPIRY), CODE_PROTECTED_EXPIRY)
        return True, expires_us

    def _branch_endpoints_spec(self, body):
        specs = body.get("endpoints") or []
        if not isinstance(specs, list) or not all(isinstance(spec, dict) for spec in specs):
            raise InvalidRequest("endpoints: must be a list of objects")
        for spec in specs:
            if spec.get("type") not in ENDPOINT_TYPES:
                raise InvalidRequest("endpoints[].type: must be read_write or read_only")
            compute_settings(spec)
            self.shared.check_suspend_timeout(spec)
        if sum(1 for spec in specs if spec["type"] == "read_write") > 1:
            raise InvalidRequest("endpoints: a branch has at most one read_write endpoint")
        return specs

    def api_create_branch(self, key, project_id, body):
        """POST /projects/{id}/branches (notes 3.1): ``create_branch``, then ``start_compute`` per compute."""
        spec = read_object(body, "branch", required=False)
        endpoint_specs = self._branch_endpoints_spec(body)
        name = read_string(spec, "name", BRANCH_NAME_MAX)
        protected = bool(read_boolean(spec, "protected"))
        parent_lsn = read_string(spec, "parent_lsn", 40)
        if parent_lsn is not None and not LSN_RE.match(parent_lsn):
            raise InvalidRequest("parent_lsn: must look like 0/1A2B3C4")
        if parent_lsn is not None and spec.get("parent_timestamp") is not None:
            raise InvalidRequest("parent_lsn and parent_timestamp: give at most one")
        # schema-only: a root branch with the parent's schema at the point and no data (SPEC init_source)
        init_source = spec.get("init_source", "parent-data")
        if init_source not in ("parent-data", "schema-only"):
            raise InvalidRequest("init_source: must be parent-data or schema-only")
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            self.shared.refuse_unreal("a branch made at a point in the past (parent_timestamp, parent_lsn)",
                                      parent_lsn is not None or spec.get("parent_timestamp") is not None)
            self.shared.refuse_unreal("a schema-only branch (init_source: schema-only)", init_source == "schema-only")
            self.shared.refuse_unreal("a read-only compute", any(item["type"] == "read_only" for item in endpoint_specs))
            now_us = self.shared.now_us()
            resources = self.shared.resources(project)
            has_expiry, expires_us = self._expiry(spec, now_us)
            parent_id = read_string(spec, "parent_id", 60)
            parent = self.shared.branch(project, parent_id, "parent branch not found") if parent_id \
                else resources.default_branch()
            if parent.expires_us is not None:
                raise InvalidRequest("an expiring branch cannot be a parent")
            parent_us = now_us
            if spec.get("parent_timestamp") is not None or parent_lsn is not None:
                try:
                    parent_us = parse_rfc3339(spec["parent_timestamp"]) if parent_lsn is None else \
                        min(us_of_lsn(parent_lsn, now_us), now_us)
                except (TypeError, ValueError):
                    raise InvalidRequest("parent_timestamp: must be an RFC 3339 timestamp") from None
                oldest_us = now_us - project.data.get("history_retention_seconds", 86400) * 1000000
                if not max(oldest_us, parent.created_us) <= parent_us <= now_us:
                    raise InvalidRequest("%s: must be within the project's history retention" % (
                        "parent_timestamp" if parent_lsn is None else "parent_lsn"))
            if name is not None:
                self.shared.check_branch_name(project, name)
            self.shared.check_branches_limit(resources)
            self.shared.check_unlocked(project, now_us)
            rng = random.SystemRandom()
            branch_id = ids.branch_id(rng)
            branch = Branch(branch_id, project.id, name or branch_id, now_us, parent, parent_lsn or _lsn(parent_us),
                            parent_us, creation_source="api")
            branch.protected = protected
            if init_source == "schema-only":
                branch.init_source = init_source
                branch.parent_id = branch.parent_lsn = branch.parent_timestamp_us = None
                branch.data = parent.data.schema_only(parent_us, now_us)
            if has_expiry:
                branch.expires_us = expires_us
                branch.ttl_seconds = None if expires_us is None else (expires_us - now_us) // 1000000
            # a protected parent's children get fresh passwords (notes 1.4, DOC-PROT)
            self.shared.copy_catalog(parent, branch, now_us, fresh_passwords=parent.protected)
            if self.shared.real is not None:  # its data: the parent's as of now (before it joins: a failed copy leaves nothing)
                self.shared.real.fork(project.id, parent, branch, resources.branches)
            resources.branches[branch_id] = branch
            endpoints = []
            for endpoint_spec in endpoint_specs:
                endpoint = Endpoint(ids.endpoint_id(rng), project, branch_id, endpoint_spec["type"], now_us,
                                    endpoint_spec, creation_source="api")
                resources.add_endpoint(endpoint)
                endpoints.append(endpoint)
            ops = self.shared.start(project, [("create_branch", branch_id, None)]
                                    + [("start_compute", branch_id, ep.id) for ep in endpoints])
            branch.state.start("ready", ops[0])
            for endpoint, op in zip(endpoints, ops[1:]):
                endpoint.state.start("active", op, fallback="idle")
            now_us = self.shared.now_us()
            answer = {
                "branch": branch.render(now_us),
                "endpoints": [ep.render(now_us) for ep in endpoints],
                "operations": self.shared.rendered(ops),
                "roles": [role.render(now_us) for role in branch.roles.values()],
                "databases": [db.render(now_us) for db in branch.databases.values()],
            }
            read_write = resources.read_write_endpoint(branch_id)
            # omitted when the parent has more than one role or database (SPEC ConnectionDetails), or no compute
            if read_write is not None and len(branch.roles) == 1 and len(branch.databases) == 1:
                role, database = next(iter(branch.roles.values())), next(iter(branch.databases.values()))
                answer["connection_uris"] = [connection_details(role.name, role.password.settle(now_us), read_write,
                                                                database.name)]
            return answer

    def api_update_branch(self, key, project_id, branch_id, body):
        """PATCH .../branches/{id} (notes 3.3): name, protected, expires_at; no operations (inferred)."""
        spec = read_object(body, "branch")
        name = read_string(spec, "name", BRANCH_NAME_MAX)
        protected = read_boolean(spec, "protected")
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            branch = self.shared.branch(project, branch_id)
            now_us = self.shared.now_us()
            if name is not None:
                if name == branch.name:
                    raise InvalidRequest(MESSAGE_SAME_NAME)
                self.shared.check_branch_name(project, name, branch)
            has_expiry, expires_us = self._expiry(spec, now_us, branch)
            if protected and branch.expires_us is not None and not has_expiry:
                raise with_code(InvalidRequest(MESSAGE_PROTECTED_EXPIRY), CODE_PROTECTED_EXPIRY)
            if expires_us is not None:
                if branch.default:
                    raise InvalidRequest("the default branch cannot have an expiration date")
                if self.shared.resources(project).children(branch.id):
                    raise InvalidRequest("a branch with children cannot have an expiration date")
            if name is not None:
                branch.name = name
            if protected is not None:
                branch.protected = protected
            if has_expiry:
                branch.expires_us = expires_us
                branch.ttl_seconds = None if expires_us is None else (expires_us - now_us) // 1000000
            branch.updated_us = now_us
            return {"branch": branch.render(now_us), "operations": []}

    def api_delete_branch(self, key, project_id, branch_id):
        """DELETE .../branches/{id} (notes 3.4): 204 if absent; ``suspend_compute`` per active compute,
        then ``delete_timeline``. The branch and its computes are gone from the listings at once."""
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            resources = self.shared.resources(project)
            branch = resources.branches.get(branch_id)
            if branch is None:
                return None
            if branch.default:
                raise InvalidRequest(MESSAGE_DELETE_DEFAULT)
            if branch.protected:
                raise InvalidRequest(MESSAGE_DELETE_PROTECTED)
            if resources.children(branch.id):
                raise InvalidRequest(MESSAGE_DELETE_PARENT)
            now_us = self.shared.now_us()
            endpoints = resources.endpoints_of(branch.id)
            items = [("suspend_compute", branch.id, ep.id) for ep in endpoints
                     if self.shared.compute_state(project, ep, now_us) == "active"]
            ops = self.shared.run(project, items + [("delete_timeline", branch.id, None)], now_us)
            for endpoint in endpoints:
                del resources.endpoints[endpoint.id]
            del resources.branches[branch.id]
            keep_branch(self.shared, project, branch, endpoints, now_us)  # recoverable for 7 days (recoverable.py)
            return {"branch": branch.render(now_us), "operations": self.shared.rendered(ops)}
