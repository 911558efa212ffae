# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a project provisions: branches, computes (endpoints), roles and databases, as records.

A value that an operation changes (a branch's or a compute's state, a role's password) is a
:class:`Pending`: it keeps the value in force and, while the operation runs, the value the
operation brings. Like an operation's status, it is settled from the clock when it is read:
once the operation has ended well the new value is in force, once it has ended badly the old
one stays (or a fallback). The API's rules (who may do what) are in provisioning.py.
"""

from __future__ import annotations

import secrets
import string

from .clock import iso_seconds, iso_seconds_or_none
from .history import BranchData
from .model import SUCCESS_STATUSES

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
                     "updated_at": iso_seconds(self.updated_us)})
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
