# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Records held by the simulator, every one in this file: users, organizations, API keys, projects and
operations, then what a project provisions: branches, computes (endpoints), roles and databases.

An operation does not change by itself: it stores its timeline (creation,
start of running, failures, start of cancelling, end) and its status is
computed from the clock whenever it is rendered. A *held* operation has no
end yet: it stays in progress until it is released (by the control API, or
by its own count of reads), whatever the clock says.
"""

from __future__ import annotations

import bisect
import secrets
import string

from .clock import iso_micro, iso_seconds, iso_seconds_or_none, us_from_seconds
from .errors import Conflict, InvalidRequest
from .history import BranchData

SUCCESS_STATUSES = ("finished", "skipped")
FAILURE_STATUSES = ("failed", "error", "cancelled")
END_STATUSES = SUCCESS_STATUSES + FAILURE_STATUSES
IN_PROGRESS_STATUSES = ("scheduling", "running", "cancelling")
ALL_STATUSES = IN_PROGRESS_STATUSES + END_STATUSES

# Actions that concern a compute endpoint (the operation carries endpoint_id).
ENDPOINT_ACTIONS = frozenset((
    "apply_config", "check_availability", "create_compute", "start_compute", "suspend_compute",
))

DEFAULT_ERRORS = {
    "failed": "operation failed: compute node did not become ready in time",
    "error": "internal error: pageserver request failed: connection reset by peer",
}
_MAX_RETRY_WAIT_US = 1000000
_MAX_CANCELLING_US = 2000000

# The three kinds of API key (tests/simulator/README.md, "Organizations and key kinds").
PERSONAL_KEY = "personal"
ORGANIZATION_KEY = "organization"
PROJECT_KEY = "project"
KEY_KINDS = (PERSONAL_KEY, ORGANIZATION_KEY, PROJECT_KEY)
ROLES = ("admin", "member", "collaborator", "editor", "viewer")  # MemberRole of the June 2026 document


class Operation:
    """One control-plane operation and its timeline (integer microseconds).

    ``end_us`` is None while the operation is held; :meth:`release` plans its end.
    """

    __slots__ = ("id", "project_id", "branch_id", "endpoint_id", "action", "outcome", "error",
                 "created_us", "run_us", "end_us", "cancel_us", "failure_us", "created_at",
                 "given_error", "given_failures", "reads_left")

    def __init__(self, op_id, project_id, branch_id, endpoint_id, action, created_us,
                 scheduling, duration, outcome="finished", failures_count=None, error=None,
                 hold=False, reads_in_progress=None):
        if outcome not in END_STATUSES:
            raise ValueError("outcome must be one of %s" % ", ".join(END_STATUSES))
        self.id = op_id
        self.project_id = project_id
        self.branch_id = branch_id
        self.endpoint_id = endpoint_id
        self.action = action
        self.outcome = outcome
        self.given_error = error
        self.given_failures = failures_count
        duration = max(float(duration), 0.0)
        scheduling = max(float(scheduling), 0.0)
        if not hold and reads_in_progress is None:
            scheduling = min(scheduling, duration)
        self.created_us = created_us
        self.created_at = iso_seconds(created_us)
        self.run_us = created_us + us_from_seconds(scheduling)
        self.reads_left = reads_in_progress
        self.end_us = None
        self.failure_us = ()
        self.cancel_us = None
        self.error = self._error_text()
        if not hold and reads_in_progress is None:
            self._plan_end(created_us + us_from_seconds(duration))

    def _error_text(self):
        if self.given_error is not None:
            return self.given_error
        return DEFAULT_ERRORS.get(self.outcome, "transient failure, retrying")

    def _plan_end(self, end_us):
        """Fix the end, the failures and the cancelling phase of the timeline."""
        failing = self.outcome in ("failed", "error")
        failures_count = self.given_failures
        if failures_count is None:
            failures_count = 1 if failing else 0
        self.error = self._error_text()
        self.end_us = max(end_us, self.run_us)
        span = self.end_us - self.run_us
        if failing and failures_count:
            # the last failure is the final one, at the end
            self.failure_us = tuple(self.run_us + span * k // failures_count
                                    for k in range(1, failures_count + 1))
        else:
            # failures that were retried before the end
            self.failure_us = tuple(self.run_us + span * k // (failures_count + 1)
                                    for k in range(1, failures_count + 1))
        self.cancel_us = None
        if self.outcome == "cancelled":
            self.cancel_us = self.end_us - min(_MAX_CANCELLING_US, span // 3)

    @property
    def held(self):
        return self.end_us is None

    def release(self, now_us, outcome=None, error=None, failures_count=None, after_us=0):
        """End a held operation ``after_us`` from now (0: it has ended when this returns)."""
        if not self.held:
            raise Conflict("operation %s is not held (it ends on its own)" % self.id)
        if outcome is not None:
            if outcome not in END_STATUSES:
                raise InvalidRequest("outcome: must be one of %s" % ", ".join(END_STATUSES))
            self.outcome = outcome
        if error is not None:
            self.given_error = error
        if failures_count is not None:
            self.given_failures = failures_count
        self.reads_left = None
        self.run_us = min(self.run_us, now_us)
        self._plan_end(now_us + max(0, after_us))

    def note_read(self, now_us):
        """One API read of the operation: a ``reads_in_progress`` operation ends after its last one."""
        if self.reads_left is None or not self.held:
            return
        if self.reads_left > 0:
            self.reads_left -= 1
        else:
            self.release(now_us)

    @property
    def failures_count(self):
        return len(self.failure_us)

    def is_done(self, now_us):
        return self.end_us is not None and now_us >= self.end_us

    def status_at(self, now_us):
        if self.end_us is not None and now_us >= self.end_us:
            return self.outcome
        if now_us < self.run_us:
            return "scheduling"
        if self.cancel_us is not None and now_us >= self.cancel_us:
            return "cancelling"
        return "running"

    def render(self, now_us):
        """The operation object as the API shows it at ``now_us``."""
        status = self.status_at(now_us)
        failures = bisect.bisect_right(self.failure_us, now_us)
        retry_at = None
        if status == "scheduling":
            updated = self.created_us
        elif status == "running":
            updated = self.run_us
            if failures:
                last = self.failure_us[failures - 1]
                updated = max(updated, last)
                following = self.failure_us[failures] if failures < len(self.failure_us) else self.end_us
                retry_us = last + min(_MAX_RETRY_WAIT_US, (following - last) // 2)
                if now_us < retry_us:
                    retry_at = retry_us
        elif status == "cancelling":
            updated = self.cancel_us
        else:
            updated = self.end_us
        item = {
            "id": self.id,
            "project_id": self.project_id,
            "branch_id": self.branch_id,
        }
        if self.endpoint_id:
            item["endpoint_id"] = self.endpoint_id
        ended_us = now_us if self.end_us is None else min(now_us, self.end_us)
        item.update({
            "action": self.action,
            "status": status,
            "failures_count": failures,
            "created_at": self.created_at,
            "updated_at": iso_seconds(updated),
            "total_duration_ms": max(0, ended_us - self.created_us) // 1000,
        })
        if status in ("failed", "error") or (failures and status in IN_PROGRESS_STATUSES):
            item["error"] = self.error
        if retry_at is not None:
            item["retry_at"] = iso_seconds(retry_at)
        return item


class User:
    """A Neon user (an account). ``org_id_required`` is "auto", True or False (see README)."""

    __slots__ = ("id", "name", "email", "image", "created_us", "org_id_required")

    def __init__(self, user_id, name, email, created_us, image=""):
        self.id = user_id
        self.name = name
        self.email = email
        self.image = image
        self.created_us = created_us
        self.org_id_required = "auto"

    def ref(self):
        """The user as ``created_by`` of a key list item shows it."""
        return {"id": self.id, "name": self.name, "image": self.image}

    def control_item(self):
        return {"id": self.id, "name": self.name, "email": self.email, "created_at": iso_seconds(self.created_us),
                "org_id_required": self.org_id_required}


class Organization:
    """An organization and its members (user id -> role, in the order they joined)."""

    __slots__ = ("id", "name", "handle", "plan", "managed_by", "created_us", "updated_us", "members")

    def __init__(self, org_id, name, created_us, plan="scale", handle=None):
        self.id = org_id
        self.name = name
        # handles seen on the live service: the name's slug followed by the id's words and number
        self.handle = handle or "%s-%s" % (slug(name), org_id[len("org-"):] if org_id.startswith("org-") else org_id)
        self.plan = plan
        self.managed_by = "console"
        self.created_us = created_us
        self.updated_us = created_us
        self.members = {}

    def role_of(self, user_id):
        return self.members.get(user_id)

    def admins(self):
        return [user_id for user_id, role in self.members.items() if role == "admin"]

    def render(self):
        return {
            "id": self.id,
            "name": self.name,
            "handle": self.handle,
            "plan": self.plan,
            "created_at": iso_seconds(self.created_us),
            "updated_at": iso_seconds(self.updated_us),
            "managed_by": self.managed_by,
            "allow_hipaa_projects": False,
            "require_mfa": False,  # June 2026 document; no organization here requires MFA
        }


def slug(text):
    cleaned = "".join(c if c.isalnum() else "-" for c in text.lower())
    return "-".join(part for part in cleaned.split("-") if part) or "org"


class ApiKey:
    """An API key: personal (of a user), organization, or organization key scoped to one project.

    ``owner_id`` is the user a personal key belongs to, or the user who created an organization key.
    The secret never leaves the create response.
    """

    __slots__ = ("id", "name", "secret", "created_us", "created_by", "revoked", "revoked_us",
                 "last_used_us", "last_used_from_addr", "bootstrap", "kind", "org_id", "project_id")

    def __init__(self, key_id, name, secret, created_us, created_by, bootstrap=False, kind=PERSONAL_KEY,
                 org_id=None, project_id=None):
        self.id = key_id
        self.name = name
        self.secret = secret
        self.created_us = created_us
        self.created_by = created_by
        self.revoked = False
        self.revoked_us = None
        self.last_used_us = None
        self.last_used_from_addr = ""
        self.bootstrap = bootstrap
        self.kind = kind
        self.org_id = org_id
        self.project_id = project_id

    @property
    def owner_id(self):
        return self.created_by["id"]

    def _with_scope(self, item):
        if self.project_id is not None:
            item["project_id"] = self.project_id
        return item

    def create_response(self):
        return self._with_scope({
            "id": self.id,
            "key": self.secret,
            "name": self.name,
            "created_at": iso_seconds(self.created_us),
            "created_by": self.created_by["id"],
        })

    def list_item(self):
        return self._with_scope({
            "id": self.id,
            "name": self.name,
            "created_at": iso_seconds(self.created_us),
            "created_by": dict(self.created_by),
            "last_used_at": iso_seconds_or_none(self.last_used_us),
            "last_used_from_addr": self.last_used_from_addr,
        })

    def revoke_response(self):
        return self._with_scope({
            "id": self.id,
            "name": self.name,
            "created_at": iso_seconds(self.created_us),
            "created_by": self.created_by["id"],
            "last_used_at": iso_seconds_or_none(self.last_used_us),
            "last_used_from_addr": self.last_used_from_addr,
            "revoked": True,
        })

    def control_item(self):
        """What /_simulator/keys shows (no secret)."""
        return {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "user_id": self.owner_id,
            "org_id": self.org_id,
            "project_id": self.project_id,
            "revoked": self.revoked,
            "created_at": iso_seconds(self.created_us),
            "revoked_at": iso_seconds_or_none(self.revoked_us),
            "last_used_at": iso_seconds_or_none(self.last_used_us),
            "bootstrap": self.bootstrap,
        }


class Project:
    """A project: its list fields plus branches, endpoints and operations.

    Operations are kept sorted by creation time, oldest first; creation times
    are unique within a project (the microsecond cursor relies on it).
    """

    __slots__ = ("data", "created_us", "branches", "ops", "op_times", "ops_by_id", "shared_with", "resources")

    def __init__(self, data, created_us, branches):
        self.data = data
        self.created_us = created_us
        # list of (branch_id, endpoint_id or None); the first one is the primary branch
        self.branches = list(branches)
        self.ops = []
        self.op_times = []
        self.ops_by_id = {}
        self.shared_with = set()  # user ids this project is shared with (GET /projects/shared)
        self.resources = None     # its branches, computes, roles, databases (provisioning.py), made on first use

    @property
    def id(self):
        return self.data["id"]

    @property
    def name(self):
        return self.data["name"]

    @property
    def org_id(self):
        """The organization that owns the project, or None for a personal project."""
        return self.data.get("org_id")

    @property
    def owner_id(self):
        return self.data.get("owner_id")

    def render(self):
        return dict(self.data)

    def unique_time(self, created_us):
        """``created_us`` moved forward until no operation of this project has it."""
        index = bisect.bisect_left(self.op_times, created_us)
        while index < len(self.op_times) and self.op_times[index] == created_us:
            created_us += 1
            index += 1
        return created_us

    def add_operation(self, op):
        index = bisect.bisect_right(self.op_times, op.created_us)
        self.op_times.insert(index, op.created_us)
        self.ops.insert(index, op)
        self.ops_by_id[op.id] = op

    def set_operations(self, ops):
        """Bulk load (seeding): ``ops`` sorted by created_us, unique times."""
        self.ops = list(ops)
        self.op_times = [op.created_us for op in self.ops]
        self.ops_by_id = {op.id: op for op in self.ops}

    def page(self, limit, before_us=None):
        """Up to ``limit`` operations older than ``before_us``, newest first."""
        end = len(self.ops) if before_us is None else bisect.bisect_left(self.op_times, before_us)
        start = max(0, end - limit)
        return self.ops[start:end][::-1]


def pagination_cursor(op):
    return iso_micro(op.created_us)


# ------------------------------------------------------------------ what a project provisions
# What a project provisions: branches, computes (endpoints), roles and databases, as records.
#
# A value that an operation changes (a branch's or a compute's state, a role's password) is a
# :class:`Pending`: it keeps the value in force and, while the operation runs, the value the
# operation brings. Like an operation's status, it is settled from the clock when it is read:
# once the operation has ended well the new value is in force, once it has ended badly the old
# one stays (or a fallback). The API's rules (who may do what) are in provisioning.py.

LOOPBACK = "127.0.0.1"  # the host of a real compute (real_computes.py)

# suspend_timeout_seconds 0 means the service default (SPEC SuspendTimeoutSeconds; notes section 4)
DEFAULT_SUSPEND_SECONDS = 300
_PASSWORD_ALPHABET = string.ascii_letters + string.digits
PASSWORD_LENGTH = 12  # the live passwords seen were 12 characters (notes 2.1)


def new_password():
    return "".join(secrets.choice(_PASSWORD_ALPHABET) for _position in range(PASSWORD_LENGTH))


class Pending:
    """A value in force, and the one an operation in progress brings (see the module's text)."""

    __slots__ = ("value", "target", "op", "fallback", "since_us")

    def __init__(self, value, since_us):
        self.value = value
        self.target = None
        self.op = None
        self.fallback = None
        self.since_us = since_us  # when the value in force came into force

    def start(self, target, op, fallback=None):
        """``target`` comes into force when ``op`` ends well (``fallback``, if given, when it ends badly)."""
        self.target, self.op, self.fallback = target, op, fallback

    def settle(self, now_us):
        """The value in force at ``now_us``; an ended operation's result is taken in."""
        op = self.op
        if op is not None and op.is_done(now_us):
            if op.outcome in SUCCESS_STATUSES:
                self.value = self.target
            elif self.fallback is not None:
                self.value = self.fallback
            self.since_us = op.end_us
            self.target = self.op = self.fallback = None
        return self.value

    def pending(self, now_us):
        """The value the running operation brings, or None."""
        self.settle(now_us)
        return self.target if self.op is not None else None

    def set(self, value, now_us):
        self.value, self.since_us = value, now_us
        self.target = self.op = self.fallback = None


def _pending_state(item, state, now_us):
    item["current_state"] = state.settle(now_us)
    pending = state.pending(now_us)
    if pending is not None:
        item["pending_state"] = pending
    return item


class Branch:
    """A branch; its roles and databases by name (in creation order)."""

    __slots__ = ("id", "project_id", "name", "parent_id", "parent_lsn", "parent_timestamp_us", "created_us",
                 "updated_us", "protected", "default", "expires_us", "ttl_seconds", "last_reset_us", "state",
                 "creation_source", "roles", "databases", "logical_size", "data", "init_source", "restore_status",
                 "restored_from", "restored_as")

    def __init__(self, branch_id, project_id, name, created_us, parent=None, parent_lsn=None,
                 parent_timestamp_us=None, state="init", creation_source="console"):
        self.id = branch_id
        self.project_id = project_id
        self.name = name
        self.parent_id = parent.id if parent is not None else None
        self.parent_lsn = parent_lsn
        self.parent_timestamp_us = parent_timestamp_us
        self.created_us = created_us
        self.updated_us = created_us
        self.protected = False
        self.default = False
        self.expires_us = None
        self.ttl_seconds = None
        self.last_reset_us = None
        self.state = Pending(state, created_us)
        self.creation_source = creation_source
        self.roles = {}
        self.databases = {}
        self.logical_size = 30785536
        # its data stand-in (history.py): a child starts with its parent's data at the branch point
        self.data = parent.data.forked(created_us if parent_timestamp_us is None else parent_timestamp_us) \
            if parent is not None else BranchData(created_us)
        self.init_source = "parent-data"  # or "schema-only": a root branch with its source's schema, no data
        self.restore_status = None  # a snapshot restore's: "restored", "finalized" (SPEC Branch)
        self.restored_from = None   # the snapshot id it was restored from
        self.restored_as = None     # set on the restored branch at finalize: the id of the branch it replaced (SPEC)

    def render(self, now_us):
        item = {
            "id": self.id,
            "project_id": self.project_id,
        }
        if self.parent_id is not None:
            item.update(parent_id=self.parent_id, parent_lsn=self.parent_lsn,
                        parent_timestamp=iso_seconds(self.parent_timestamp_us))
        item["name"] = self.name
        _pending_state(item, self.state, now_us)
        item.update({
            "state_changed_at": iso_seconds(self.state.since_us),
            "logical_size": self.logical_size,
            "creation_source": self.creation_source,
            "primary": self.default,
            "default": self.default,
            "protected": self.protected,
            "cpu_used_sec": 0,
            "compute_time_seconds": 0,
            "active_time_seconds": 0,
            "written_data_bytes": 0,
            "data_transfer_bytes": 0,
            "created_at": iso_seconds(self.created_us),
            "updated_at": iso_seconds(self.updated_us),
            "init_source": self.init_source,
        })
        for field in ("restore_status", "restored_from", "restored_as"):
            if getattr(self, field) is not None:
                item[field] = getattr(self, field)
        if self.expires_us is not None:
            item["expires_at"] = iso_seconds(self.expires_us)
            item["ttl_interval_seconds"] = self.ttl_seconds
        if self.last_reset_us is not None:
            item["last_reset_at"] = iso_seconds(self.last_reset_us)
        return item


class Endpoint:
    """A compute endpoint of a branch. ``state`` is ``init``, ``active`` or ``idle``."""

    __slots__ = ("id", "project_id", "branch_id", "type", "region_id", "proxy_host", "min_cu", "max_cu",
                 "suspend_timeout", "settings", "pooler_enabled", "disabled", "name", "provisioner",
                 "created_us", "updated_us", "state", "creation_source", "started_us", "suspended_us", "port")

    def __init__(self, endpoint_id, project, branch_id, endpoint_type, created_us, settings, state="init",
                 creation_source="console"):
        defaults = project.data.get("default_endpoint_settings") or {}
        self.id = endpoint_id
        self.project_id = project.id
        self.branch_id = branch_id
        self.type = endpoint_type
        self.region_id = project.data["region_id"]
        self.proxy_host = project.data["proxy_host"]
        self.min_cu = settings.get("autoscaling_limit_min_cu", defaults.get("autoscaling_limit_min_cu", 0.25))
        self.max_cu = settings.get("autoscaling_limit_max_cu", defaults.get("autoscaling_limit_max_cu", 0.25))
        self.suspend_timeout = settings.get("suspend_timeout_seconds", defaults.get("suspend_timeout_seconds", 0))
        self.settings = {"pg_settings": dict(defaults.get("pg_settings") or {})}
        self.settings.update(settings.get("settings") or {})
        self.pooler_enabled = bool(settings.get("pooler_enabled", False))
        self.disabled = bool(settings.get("disabled", False))
        self.name = settings.get("name")
        self.provisioner = settings.get("provisioner", project.data.get("provisioner", "k8s-neonvm"))
        self.created_us = created_us
        self.updated_us = created_us
        self.state = Pending(state, created_us)
        self.creation_source = creation_source
        self.started_us = None
        self.suspended_us = None
        self.port = None  # a real compute's port (real_computes.py); its host is then 127.0.0.1

    @property
    def host(self):
        """``ep-cool-darkness-123456ab.us-east-2.aws.neon.tech`` (notes section 4); ``127.0.0.1`` when real."""
        return "%s.%s" % (self.id, self.proxy_host) if self.port is None else LOOPBACK

    @property
    def pooler_host(self):
        """The pooled host: ``-pooler`` after the endpoint id (notes section 4); a real compute has no pooler
        of its own (the same server answers)."""
        return "%s-pooler.%s" % (self.id, self.proxy_host) if self.port is None else LOOPBACK

    def suspend_after_us(self):
        """Seconds of inactivity before the compute suspends itself (None: never), in microseconds."""
        if self.suspend_timeout == -1:
            return None
        return (self.suspend_timeout or DEFAULT_SUSPEND_SECONDS) * 1000000

    def render(self, now_us):
        item = {
            "host": self.host,
            "id": self.id,
            "project_id": self.project_id,
            "branch_id": self.branch_id,
            "autoscaling_limit_min_cu": self.min_cu,
            "autoscaling_limit_max_cu": self.max_cu,
            "region_id": self.region_id,
            "type": self.type,
        }
        _pending_state(item, self.state, now_us)
        item.update({
            "settings": self.settings,
            "pooler_enabled": self.pooler_enabled,
            "pooler_mode": "transaction",
            "disabled": self.disabled,
            "passwordless_access": True,
            "last_active": iso_seconds(self.state.since_us) if self.state.value == "active" else
            iso_seconds_or_none(self.suspended_us) or "2000-01-01T00:00:00Z",
            "creation_source": self.creation_source,
            "created_at": iso_seconds(self.created_us),
            "updated_at": iso_seconds(self.updated_us),
            "proxy_host": self.proxy_host,
            "suspend_timeout_seconds": self.suspend_timeout,
            "provisioner": self.provisioner,
        })
        if self.name is not None:
            item["name"] = self.name
        if self.started_us is not None:
            item["started_at"] = iso_seconds(self.started_us)
        if self.suspended_us is not None:
            item["suspended_at"] = iso_seconds(self.suspended_us)
        return item


class Role:
    """A Postgres role of a branch. Its password is a :class:`Pending`: a reset's new password is in
    force once the reset's operation has ended, the old one until then (notes 1.4, section 5)."""

    __slots__ = ("branch_id", "name", "password", "protected", "created_us", "updated_us")

    def __init__(self, branch_id, name, password, created_us):
        self.branch_id = branch_id
        self.name = name
        self.password = Pending(password, created_us)
        self.protected = False
        self.created_us = created_us
        self.updated_us = created_us

    def copy_to(self, branch_id, now_us, password=None):
        """The role as a child branch gets it (the same password unless ``password`` is given)."""
        return Role(branch_id, self.name, password or self.password.settle(now_us), now_us)

    def render(self, now_us, password=None):
        """The role; ``password`` only in the answers that carry it (create, reset, project create)."""
        del now_us
        item = {"branch_id": self.branch_id, "name": self.name}
        if password is not None:
            item["password"] = password
        item.update({"protected": self.protected, "created_at": iso_seconds(self.created_us),
                     "updated_at": iso_seconds(self.updated_us),
                     "authentication_method": "password"})  # June 2026 document; every role here has a password
        return item


class Database:
    """A database of a branch, owned by one of its roles."""

    __slots__ = ("id", "branch_id", "name", "owner_name", "created_us", "updated_us")

    def __init__(self, database_id, branch_id, name, owner_name, created_us):
        self.id = database_id
        self.branch_id = branch_id
        self.name = name
        self.owner_name = owner_name
        self.created_us = created_us
        self.updated_us = created_us

    def render(self, now_us):
        del now_us
        return {"id": self.id, "branch_id": self.branch_id, "name": self.name, "owner_name": self.owner_name,
                "created_at": iso_seconds(self.created_us), "updated_at": iso_seconds(self.updated_us)}


class Resources:
    """A project's branches and endpoints by id, in creation order."""

    __slots__ = ("branches", "endpoints", "place")

    def __init__(self, place=None):
        self.branches = {}
        self.endpoints = {}
        self.place = place  # gives a new compute its address (real_computes.py), or None

    def add_endpoint(self, endpoint):
        if self.place is not None:
            self.place(endpoint)
        self.endpoints[endpoint.id] = endpoint

    def default_branch(self):
        return next((b for b in self.branches.values() if b.default), None)

    def endpoints_of(self, branch_id):
        return [ep for ep in self.endpoints.values() if ep.branch_id == branch_id]

    def read_write_endpoint(self, branch_id):
        return next((ep for ep in self.endpoints_of(branch_id) if ep.type == "read_write"), None)

    def children(self, branch_id):
        return [b for b in self.branches.values() if b.parent_id == branch_id]


def connection_uri(role_name, password, host, database_name, port=None):
    """``postgresql://role:pw@host/db?sslmode=require`` (notes section 7, CASSETTE); a real compute's names its
    port, without TLS (its server has none)."""
    if port is not None:
        return "postgresql://%s:%s@%s:%d/%s?sslmode=disable" % (role_name, password, host, port, database_name)
    return "postgresql://%s:%s@%s/%s?sslmode=require" % (role_name, password, host, database_name)


def connection_details(role_name, password, endpoint, database_name):
    """One item of ``connection_uris`` (SPEC ConnectionDetails)."""
    return {
        "connection_uri": connection_uri(role_name, password, endpoint.host, database_name, endpoint.port),
        "connection_parameters": {"database": database_name, "password": password, "role": role_name,
                                  "host": endpoint.host, "pooler_host": endpoint.pooler_host},
    }
