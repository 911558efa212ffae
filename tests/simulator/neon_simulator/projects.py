# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Projects: the listings (``GET /projects``, ``GET /projects/shared``, the projects left out as unavailable), one
project (``POST /projects``, get, update, delete: section 2 of the notes provisioning.py names) with its settings and
their plans, and the control API's making of projects. A project's branches are
in provisioning.py."""

from __future__ import annotations

import copy
import ipaddress
import random
import re

from . import access, ids, seed
from .clock import iso_seconds
from .errors import Forbidden, InvalidRequest, NotFound, Unprocessable, with_code
from .provisioning import BRANCH_NAME_MAX, FORBIDDEN_DATABASES, ROLE_NAME_MAX, compute_settings
from .records import PERSONAL_KEY, PROJECT_KEY, Branch, Database, Endpoint, Resources, Role, connection_details, new_password
from .recoverable import keep_project
from .shared import optional_string, read_boolean, read_integer, read_object, read_string

BULK_PROJECTS_MAX = 20000
ID_RE = ids.ID_RE

# ---------------------------------------------------------------------- CHOICES (inferred, one place)
MESSAGE_DELETE_PROTECTED_PROJECT = "cannot delete a project with protected branches"
MESSAGE_PROJECTS_LIMIT = "user projects limit of %d exceeded, got %d"       # notes 1.2 (422)
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

HISTORY_RETENTION_MAX = 2592000
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


class Projects:
    """The projects area of State (see the module's text)."""

    def __init__(self, shared):
        self.shared = shared  # the data and helpers every area uses (shared.py)

    def _take_unavailable(self, page):
        """Split a page into (available, unavailable ids), spending one answer of each unavailable one."""
        available, missing = [], []
        for project in page:
            if project.id not in self.shared.unavailable:
                available.append(project)
                continue
            missing.append(project.id)
            left = self.shared.unavailable[project.id]
            if left is not None:
                if left <= 1:
                    del self.shared.unavailable[project.id]
                else:
                    self.shared.unavailable[project.id] = left - 1
        return available, missing

    def _list(self, selected, limit, cursor, search):
        """(projects, cursor, unavailable ids): one page of the projects ``selected`` lets through.

        The page is chosen first (``limit`` projects after ``cursor``); projects marked unavailable
        are then left out of ``projects`` and named in ``unavailable_project_ids``, as the live
        service does when fetching their details runs out of time. The cursor is the page's last
        project id either way, so the next page starts after the whole page.
        """
        candidates = [p for p in self.shared.project_order if selected(p)]
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
        with self.shared.lock:
            key = key or self.shared.bootstrap_key()
            return self._list(access.project_listing(self.shared, key, org_id), limit, cursor, search)

    def list_shared_projects(self, key, limit, cursor=None, search=None):
        """GET /projects/shared: (projects, cursor, unavailable ids)."""
        with self.shared.lock:
            return self._list(access.shared_listing(key), limit, cursor, search)

    def get_project(self, project_id):
        with self.shared.lock:
            project = self.shared.projects.get(project_id)
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
        prefix = optional_string(spec, "name_prefix") or "bulk"
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
        name = optional_string(spec, "name")
        region_id = optional_string(spec, "region_id") or "aws-us-east-2"
        if region_id not in seed.REGIONS:
            raise InvalidRequest("region_id: unknown region, one of %s" % ", ".join(seed.REGIONS))
        pg_version = spec.get("pg_version", 17)
        if pg_version not in (14, 15, 16, 17, 18):
            raise InvalidRequest("pg_version: must be one of 14, 15, 16, 17, 18")
        wanted_id = optional_string(spec, "id")
        if wanted_id is not None and not ID_RE.match(wanted_id):
            raise InvalidRequest("id: must match ^[a-z0-9-]{1,60}$")
        org_id = optional_string(spec, "org_id")
        rng = random.SystemRandom()
        with self.shared.lock:
            owner = self.shared.find_user(spec.get("owner", "bootstrap"), "owner")
            if org_id is not None:
                org = self.shared.find_organization(org_id)
                if "owner" not in spec and org.admins():
                    owner = self.shared.users[org.admins()[0]]
            if wanted_id and wanted_id in self.shared.projects:
                raise InvalidRequest("id: project %s already exists" % wanted_id)
            project = self.shared.add_project(rng, name, region_id, pg_version, org_id, owner.id, wanted_id)
            return project.render()

    # ------------------------------------------------------------------ one project (the API)
    def _check_history(self, spec):
        value = read_integer(spec, "history_retention_seconds", 0, HISTORY_RETENTION_MAX)
        limit = self.shared.limits["max_history_retention_seconds"]
        if value is not None and limit is not None and value > limit:
            raise InvalidRequest(MESSAGE_HISTORY_LIMIT % (value, limit))
        return value

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
            keep_project(self.shared, project, self.shared.now_us())  # recoverable for 7 days (recoverable.py)
            return {"project": detail}

    def set_store_passwords(self, project_id, value):
        """Control API: whether the project stores role passwords (reveal_password answers 412 if not)."""
        if not isinstance(value, bool):
            raise InvalidRequest("store_passwords: must be true or false")
        with self.shared.lock:
            project = self.shared.project(project_id)
            project.data["store_passwords"] = value
            return self._project_detail(project)
