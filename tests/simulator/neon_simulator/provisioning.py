# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The provisioning API: projects (create, get, update, delete) and branches (a branch's computes are in computes.py,
its roles and databases and the connection URI in catalog.py), as /work/shared/spec/provisioning-api-notes.md ("the notes")
describes the live service.

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
import copy
import ipaddress
import json
import random
import re

from . import access, ids, seed
from .clock import iso_seconds, parse_rfc3339
from .errors import Forbidden, InvalidRequest, Unprocessable, with_code
from .history import LSN_RE, us_of_lsn, lsn_of as _lsn
from .records import (PERSONAL_KEY, PROJECT_KEY, Branch, Database, Endpoint, Resources, Role, connection_details,
                      new_password)
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
MESSAGE_DELETE_PROTECTED_PROJECT = "cannot delete a project with protected branches"
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
MESSAGE_PROJECTS_LIMIT = "user projects limit of %d exceeded, got %d"       # notes 1.2 (422)
# MESSAGE_SUSPEND_NOT_ALLOWED (notes 1.2, 400 chosen) and MESSAGE_BRANCHES_LIMIT (inferred, notes 3): in shared.py
MESSAGE_HISTORY_LIMIT = ('requested history retention seconds exceeds allowed maximum; '
                         'requested_history_retention_seconds:"%d", max:"%d"')  # notes 1.2
MESSAGE_PROJECT_REQUIRED = "invalid request: decode application/json: invalid: project (field required)"  # CASSETTE
# Project settings (governance-recovery-api-notes.md section 1, "the settings notes"). The service
# merges the top-level keys of ``settings`` (NEONCTL-mock, implied by NEONCTL) and replaces
# ``allowed_ips`` whole (TF#133): a part left out is reset (``ips`` to [], ``protected_branches_only``
# to false). How ``quota``, ``maintenance_window`` and ``preload_libraries`` merge is unknown: each is
# replaced whole, as ``allowed_ips`` is. ``maintenance_window`` needs its three parts (SPEC); the other
# checks of the body follow the SPEC's types; an unknown key of ``settings`` is 400 (inferred).
# Turning logical replication off once on is a 400 (TF acc_test: "400", words unknown: ours); HIPAA
# off is a 400 with TF's words. ``store_passwords`` in an update body (absent from the SPEC's) is a
# 400 (inferred: the service's answer is unknown).
MESSAGE_LOGICAL_REPLICATION_OFF = "logical replication cannot be disabled once it is enabled"
MESSAGE_HIPAA_OFF = "disabling HIPAA is not allowed"                        # TF acc-org_test.go
MESSAGE_STORE_PASSWORDS_UPDATE = "store_passwords: can only be set when the project is created"
# Plans (the settings notes, "Plans / limits"; the refusal's status and words are unknown): 403, the
# words below, naming the setting. A project's plan is its owner.subscription_type (subscription_type:
# personal projects are on the free plan). IP Allow needs Scale (DOCS introduction/ip-allow); the
# connection blocks are Private Networking, Scale (DOCS guides/neon-private-networking); choosing the
# maintenance window needs a paid plan (DOCS manage/updates); audit logging and HIPAA need Scale
# (inferred: the HIPAA add-on is Scale's). A setting is refused when it turns its feature on (a non-empty
# allow list or protected_branches_only, a block, a window other than the project's, a level other than
# ``base``, HIPAA) and differs from what the project holds; quota, preload libraries and logical
# replication are on every plan.
FREE_PLANS = ("free_v2", "free_v3")
LAUNCH_PLANS = ("launch", "launch_v3")
PLAN_SETTINGS = {  # setting -> (plans that refuse it, what the service calls it, the least plan that has it)
    "allowed_ips": (FREE_PLANS + LAUNCH_PLANS, "IP Allow", "Scale"),
    "block_public_connections": (FREE_PLANS + LAUNCH_PLANS, "Private Networking", "Scale"),
    "block_vpc_connections": (FREE_PLANS + LAUNCH_PLANS, "Private Networking", "Scale"),
    "maintenance_window": (FREE_PLANS, "choosing the maintenance window", "Launch"),
    "audit_log_level": (FREE_PLANS + LAUNCH_PLANS, "audit logging", "Scale"),
    "hipaa": (FREE_PLANS + LAUNCH_PLANS, "HIPAA", "Scale"),
}
MESSAGE_PLAN_SETTING = "%s (settings.%s) is not available on your plan (%s); it needs the %s plan or higher"
# Operations each call starts (notes 1.3; the restore and endpoint start/suspend/restart ones
# are inferred): see the methods. Calls that would start none (a rename, set_as_default, a
# start of an active compute...) answer "operations": [] and are never refused with 423.

HISTORY_RETENTION_MAX = 2592000
SUSPEND_TIMEOUT_RANGE = (-1, 604800)
EXPIRY_MAX_US = 30 * 86400 * 1000000
FORBIDDEN_DATABASES = ("postgres", "template0", "template1")
ROLE_NAME_MAX = 63
BRANCH_NAME_MAX = 256
BRANCHES_LIMIT = (1, 10000, None)
BRANCH_SORT_BY = ("updated_at", "created_at", "name")
ENDPOINT_TYPES = ("read_write", "read_only")
DEFAULT_BRANCHES_LIMIT = 5000  # the owner block's branches_limit when no plan limit is set
ZERO_DATE = "0001-01-01T00:00:00Z"
# owner.subscription_type is a BillingSubscriptionType (SPEC, ProjectOwnerData.subscription_type:
# required, an enum; "UNKNOWN" for users without a billing account). A free account is "free_v2"
# (in SPEC and in SPEC-JAN25, the schema the neon-api SDK validates answers against: "free" is in
# neither, and the SDK's GET /projects/{id} failed on it); an organization's plan is its
# subscription type when the enum has it, else "UNKNOWN".
SUBSCRIPTION_TYPES = ("UNKNOWN", "direct_sales", "direct_sales_v3", "aws_marketplace", "free_v2", "free_v3",
                      "launch", "launch_v3", "scale", "scale_v3", "business", "vercel_pg_legacy")
PERSONAL_SUBSCRIPTION_TYPE = "free_v2"


def subscription_type(org):
    """owner.subscription_type of a project of ``org`` (None: a personal project)."""
    if org is None:
        return PERSONAL_SUBSCRIPTION_TYPE
    if org.plan == "free":
        return PERSONAL_SUBSCRIPTION_TYPE
    return org.plan if org.plan in SUBSCRIPTION_TYPES else "UNKNOWN"


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


SETTINGS_FLAGS = ("enable_logical_replication", "block_public_connections", "block_vpc_connections", "hipaa")
SETTINGS_OBJECTS = ("quota", "allowed_ips", "maintenance_window", "preload_libraries")
QUOTA_KEYS = ("active_time_seconds", "compute_time_seconds", "written_data_bytes", "data_transfer_bytes",
              "logical_size_bytes")
AUDIT_LOG_LEVELS = ("base", "extended", "full")
_HH_MM = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")


def _ip_entry(entry):
    """Whether ``entry`` (whitespace ignored) is an IP address, a dash range or a CIDR block (settings notes:
    the accepted formats, DOCS manage/projects.md)."""
    text = "".join(entry.split())
    try:
        if "-" in text:
            first, last = (ipaddress.ip_address(part) for part in text.split("-", 1))
            return first.version == last.version and first <= last
        if "/" in text:
            ipaddress.ip_interface(text)
        else:
            ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _keys_of(value, name, allowed):
    if not isinstance(value, dict):
        raise InvalidRequest("settings.%s: must be an object" % name)
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise InvalidRequest("settings%s: unknown field %s" % ("." + name if name else "", unknown[0]))
    return dict((key, item) for key, item in value.items() if item is not None)


def _text_list(value, name):
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InvalidRequest("settings.%s: must be a list of strings" % name)
    return value


def _settings_body(settings):
    """The ``settings`` of a create or update body (SPEC ProjectSettingsData), checked: what is kept of it
    (null values left out, the allow list's whitespace dropped)."""
    checked = {}
    for name, value in _keys_of(settings, "", SETTINGS_FLAGS + SETTINGS_OBJECTS + ("audit_log_level",)).items():
        if name in SETTINGS_FLAGS and not isinstance(value, bool):
            raise InvalidRequest("settings.%s: must be true or false" % name)
        if name == "audit_log_level" and value not in AUDIT_LOG_LEVELS:
            raise InvalidRequest("settings.audit_log_level: must be one of %s" % ", ".join(AUDIT_LOG_LEVELS))
        if name == "quota":
            value = _keys_of(value, name, QUOTA_KEYS)
            for quota, count in value.items():
                if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                    raise InvalidRequest("settings.quota.%s: must be an integer of 0 or more" % quota)
        elif name == "allowed_ips":
            value = _keys_of(value, name, ("ips", "protected_branches_only"))
            if "ips" in value:
                bad = [entry for entry in _text_list(value["ips"], "allowed_ips.ips") if not _ip_entry(entry)]
                if bad:
                    raise InvalidRequest("settings.allowed_ips.ips: %r is not an IP address, a range or a CIDR block"
                                         % bad[0])
                value["ips"] = ["".join(entry.split()) for entry in value["ips"]]
            if not isinstance(value.get("protected_branches_only", False), bool):
                raise InvalidRequest("settings.allowed_ips.protected_branches_only: must be true or false")
        elif name == "maintenance_window":
            value = _keys_of(value, name, ("weekdays", "start_time", "end_time"))
            for part in ("weekdays", "start_time", "end_time"):
                if part not in value:
                    raise InvalidRequest("settings.maintenance_window.%s: field required" % part)
            days = value["weekdays"]
            if not isinstance(days, list) or not days or \
                    any(isinstance(day, bool) or not isinstance(day, int) or not 1 <= day <= 7 for day in days):
                raise InvalidRequest("settings.maintenance_window.weekdays: must be a list of days 1 (Monday) to 7 "
                                     "(Sunday)")
            for part in ("start_time", "end_time"):
                if not isinstance(value[part], str) or not _HH_MM.match(value[part]):
                    raise InvalidRequest("settings.maintenance_window.%s: must be a time HH:MM" % part)
        elif name == "preload_libraries":
            value = _keys_of(value, name, ("use_defaults", "enabled_libraries"))
            if not isinstance(value.get("use_defaults", False), bool):
                raise InvalidRequest("settings.preload_libraries.use_defaults: must be true or false")
            _text_list(value.get("enabled_libraries", []), "preload_libraries.enabled_libraries")
        checked[name] = copy.deepcopy(value)
    return checked


def _pg_settings(defaults):
    """``default_endpoint_settings.pg_settings``: a map of strings (SPEC PgSettingsData)."""
    pg_settings = defaults.get("pg_settings")
    if pg_settings is not None and not all(isinstance(value, str) for value in pg_settings.values()):
        raise InvalidRequest("default_endpoint_settings.pg_settings: every value must be a string")
    return defaults


def _turns_on(name, value, held):
    """Whether ``value`` of setting ``name`` uses its plan feature and differs from ``held`` (the project's)."""
    if value == held:
        return False
    if name == "allowed_ips":
        return bool(value.get("ips")) or bool(value.get("protected_branches_only"))
    if name == "audit_log_level":
        return value != "base"
    return name == "maintenance_window" or value is True


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

    def _check_history(self, spec):
        value = read_integer(spec, "history_retention_seconds", 0, HISTORY_RETENTION_MAX)
        limit = self.shared.limits["max_history_retention_seconds"]
        if value is not None and limit is not None and value > limit:
            raise InvalidRequest(MESSAGE_HISTORY_LIMIT % (value, limit))
        return value

    # ------------------------------------------------------------------ projects
    def _project_detail(self, project, live=False):
        """The Project object (SPEC): list fields, usage counters, consumption period; GET adds the owner."""
        item = dict(project.render())
        item["settings"] = copy.deepcopy(item.get("settings") or {})
        item.update({"data_storage_bytes_hour": 0, "data_transfer_bytes": 0, "written_data_bytes": 0,
                     "compute_time_seconds": 0, "active_time_seconds": item.get("active_time", 0),
                     "consumption_period_start": ZERO_DATE, "consumption_period_end": ZERO_DATE})
        if live:
            now_us = self.shared.now_us()
            item["consumption_period_start"] = iso_seconds(now_us - now_us % (86400 * 1000000))
            item["consumption_period_end"] = item.get("quota_reset_at", iso_seconds(now_us))
            owner = self.shared.users.get(project.owner_id)
            org = self.shared.organizations.get(project.org_id) if project.org_id else None
            if owner is not None:
                item["owner"] = {"email": owner.email, "name": owner.name,
                                 "branches_limit": self.shared.limits["max_branches"] or DEFAULT_BRANCHES_LIMIT,
                                 "subscription_type": subscription_type(org)}
        return item

    def _check_settings_plan(self, org_id, settings, held):
        """403 for the first setting (in the body's order) that the plan of a project of ``org_id`` (None:
        personal) does not include and that would turn its feature on (CHOICES)."""
        plan = subscription_type(self.shared.organizations.get(org_id) if org_id else None)
        for name, value in settings.items():
            refusing, feature, needed = PLAN_SETTINGS.get(name, ((), None, None))
            if plan in refusing and _turns_on(name, value, held.get(name)):
                raise Forbidden(MESSAGE_PLAN_SETTING % (feature, name, plan, needed))

    def _check_settings_change(self, project, settings):
        """What an update of ``project``'s settings may not do: turn a one-way setting off, or use what its
        plan does not include."""
        held = project.data.get("settings") or {}
        if settings.get("enable_logical_replication") is False and held.get("enable_logical_replication"):
            raise InvalidRequest(MESSAGE_LOGICAL_REPLICATION_OFF)
        if settings.get("hipaa") is False and held.get("hipaa"):
            raise InvalidRequest(MESSAGE_HIPAA_OFF)
        self._check_settings_plan(project.org_id, settings, held)

    @staticmethod
    def _apply_settings(project, settings, now_us):
        """Merge checked ``settings`` into the project's: top-level keys (CHOICES), ``allowed_ips`` whole with
        its defaults; HIPAA turned on dates ``hipaa_enabled_at``."""
        held = project.data.setdefault("settings", {})
        for name, value in settings.items():
            if name == "allowed_ips":
                value = {"ips": list(value.get("ips") or []),
                         "protected_branches_only": value.get("protected_branches_only", False)}
            if name == "hipaa" and value and not held.get("hipaa"):
                project.data["hipaa_enabled_at"] = iso_seconds(now_us)
            held[name] = copy.deepcopy(value)

    def api_get_project(self, key, project_id):
        with self.shared.lock:
            return {"project": self._project_detail(self.shared.reachable(key, project_id), live=True)}

    def _owner_of_new_project(self, key, org_id):
        """(owner user id, org id or None) of a project ``key`` creates, or the refusal."""
        if key.kind == PROJECT_KEY:
            raise Forbidden(access.MESSAGE_PROJECT_KEY)
        if key.kind != PERSONAL_KEY:
            if org_id is not None and org_id != key.org_id:
                raise Forbidden(access.MESSAGE_OTHER_ORG)
            org = self.shared.organizations[key.org_id]
            return (org.admins() or [key.owner_id])[0], key.org_id
        if org_id is not None:
            access.organization_role(self.shared, key, org_id)
            return key.owner_id, org_id
        if access.org_id_required(self.shared, self.shared.users[key.owner_id]):
            raise InvalidRequest(access.MESSAGE_ORG_ID_REQUIRED)
        return key.owner_id, None

    def _check_projects_limit(self, owner_id, org_id):
        limit = self.shared.limits["max_projects"]
        if limit is None:
            return
        if org_id is not None:
            count = sum(1 for p in self.shared.projects.values() if p.org_id == org_id)
        else:
            count = sum(1 for p in self.shared.projects.values() if p.org_id is None and p.owner_id == owner_id)
        if count >= limit:
            raise with_code(Unprocessable(MESSAGE_PROJECTS_LIMIT % (limit, count)), "PROJECTS_LIMIT_EXCEEDED")

    def api_create_project(self, key, body):
        """POST /projects (notes 2.1): the project, its default branch, a read_write compute, a role
        with a password and a database it owns; operations ``create_timeline`` and ``start_compute``."""
        spec = read_object(body, "project")
        name = read_string(spec, "name")
        region_id = read_string(spec, "region_id", 60) or "aws-us-east-2"
        if region_id not in seed.REGIONS:
            raise InvalidRequest("region_id: unsupported region %r" % region_id)
        pg_version = read_integer(spec, "pg_version", 14, 18) or 17
        org_id = read_string(spec, "org_id", 60)
        store_passwords = read_boolean(spec, "store_passwords")
        defaults = _pg_settings(compute_settings(dict(read_object(spec, "default_endpoint_settings", required=False))))
        for old in ("autoscaling_limit_min_cu", "autoscaling_limit_max_cu"):  # deprecated top-level aliases
            if old in spec:
                defaults.setdefault(old, spec[old])
        compute_settings(defaults)
        settings = _settings_body(read_object(spec, "settings", required=False))
        branch_spec = read_object(spec, "branch", required=False)
        branch_name = read_string(branch_spec, "name", BRANCH_NAME_MAX) or "main"
        database_name = read_string(branch_spec, "database_name", 63) or "neondb"
        role_name = read_string(branch_spec, "role_name", ROLE_NAME_MAX) or "%s_owner" % database_name
        if database_name in FORBIDDEN_DATABASES:
            raise InvalidRequest("database_name: %r is reserved" % database_name)
        with self.shared.lock:
            history = self._check_history(spec)
            if not self.shared.limits["suspend_timeout_changeable"]:
                defaults["suspend_timeout_seconds"] = 0  # silently, as on the free plan (notes 1.2)
            owner_id, org_id = self._owner_of_new_project(key, org_id)
            self._check_projects_limit(owner_id, org_id)
            self._check_settings_plan(org_id, settings, {})
            project = self.shared.add_project(random.SystemRandom(), name, region_id, pg_version, org_id, owner_id)
            data = project.data
            data["default_endpoint_settings"] = dict({"autoscaling_limit_min_cu": 0.25,
                                                      "autoscaling_limit_max_cu": 0.25,
                                                      "suspend_timeout_seconds": 0}, **defaults)
            self._apply_settings(project, settings, now_us=project.created_us)
            data.update(history_retention_seconds=86400 if history is None else history,
                        store_passwords=True if store_passwords is None else store_passwords,
                        branch_logical_size_limit=512, branch_logical_size_limit_bytes=512 * 1024 * 1024,
                        provisioner=spec.get("provisioner") or "k8s-neonvm")
            branch_id, endpoint_id = project.branches[0]
            now_us = project.created_us
            resources = project.resources = Resources(self.shared.placement())
            branch = Branch(branch_id, project.id, branch_name, now_us, creation_source="api")
            branch.default = True
            role = Role(branch_id, role_name, new_password(), now_us)
            branch.roles[role_name] = role
            database = Database(self.shared.new_database_id(), branch_id, database_name, role_name, now_us)
            branch.databases[database_name] = database
            resources.branches[branch_id] = branch
            endpoint = Endpoint(endpoint_id, project, branch_id, "read_write", now_us, {}, creation_source="api")
            resources.add_endpoint(endpoint)
            ops = self.shared.start(project, [("create_timeline", branch_id, None),
                                              ("start_compute", branch_id, endpoint_id)])
            branch.state.start("ready", ops[0])
            endpoint.state.start("active", ops[1], fallback="idle")
            now_us = self.shared.now_us()
            password = role.password.settle(now_us)
            return {
                "project": self._project_detail(project),
                "connection_uris": [connection_details(role_name, password, endpoint, database_name)],
                "roles": [role.render(now_us, password)],
                "databases": [database.render(now_us)],
                "operations": self.shared.rendered(ops),
                "branch": branch.render(now_us),
                "endpoints": [endpoint.render(now_us)],
            }

    def api_update_project(self, key, project_id, body):
        """PATCH /projects/{id} (notes 2.3): ``apply_storage_config`` when the history retention
        changes; turning logical replication on suspends the active computes (inferred)."""
        spec = read_object(body, "project")
        name = read_string(spec, "name")
        defaults = _pg_settings(compute_settings(dict(read_object(spec, "default_endpoint_settings", required=False))))
        settings = _settings_body(read_object(spec, "settings", required=False))
        if "store_passwords" in spec:
            raise InvalidRequest(MESSAGE_STORE_PASSWORDS_UPDATE)
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            history = self._check_history(spec)
            self._check_settings_change(project, settings)
            now_us = self.shared.now_us()
            resources = self.shared.resources(project)
            default = resources.default_branch()
            items = []
            if history is not None and history != project.data.get("history_retention_seconds"):
                items.append(("apply_storage_config", default.id, None))
            if settings.get("enable_logical_replication") and \
                    not project.data["settings"].get("enable_logical_replication"):
                items.extend(("suspend_compute", ep.branch_id, ep.id) for ep in resources.endpoints.values()
                             if self.shared.compute_state(project, ep, now_us) == "active")
            ops = self.shared.run(project, items, now_us)
            for op in ops:
                if op.action == "suspend_compute":
                    resources.endpoints[op.endpoint_id].state.start("idle", op)
            if name is not None:
                project.data["name"] = name
            if history is not None:
                project.data["history_retention_seconds"] = history
            if defaults:
                project.data["default_endpoint_settings"] = dict(project.data["default_endpoint_settings"],
                                                                 **defaults)
            self._apply_settings(project, settings, now_us)
            project.data["updated_at"] = iso_seconds(now_us)
            return {"project": self._project_detail(project), "operations": self.shared.rendered(ops)}

    def api_delete_project(self, key, project_id):
        """DELETE /projects/{id} (notes 2.4): 200 ``{project}`` without operations; not for a
        project-scoped key, nor for a project with protected branches."""
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            if key is not None and key.kind == PROJECT_KEY:
                raise Forbidden(access.MESSAGE_PROJECT_KEY)
            if any(b.protected for b in self.shared.resources(project).branches.values()):
                raise InvalidRequest(MESSAGE_DELETE_PROTECTED_PROJECT)
            detail = self._project_detail(project)
            del self.shared.projects[project.id]
            self.shared.project_order.remove(project)
            self.shared.unavailable.pop(project.id, None)
            return {"project": detail}

    def set_store_passwords(self, project_id, value):
        """Control API: whether the project stores role passwords (reveal_password answers 412 if not)."""
        if not isinstance(value, bool):
            raise InvalidRequest("store_passwords: must be true or false")
        with self.shared.lock:
            project = self.shared.project(project_id)
            project.data["store_passwords"] = value
            return self._project_detail(project)

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
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            now_us = self.shared.now_us()
            owner = self.shared.users.get(project.owner_id)
            created_by = {"name": owner.name, "image": owner.image} if owner is not None else None
            items = [b.render(now_us) for b in self.shared.resources(project).branches.values()]
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
            return {"branch": branch.render(now_us), "operations": self.shared.rendered(ops)}
