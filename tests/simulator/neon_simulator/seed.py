# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Deterministic seed data: the account user, its keys, projects and operation histories,
one organization the user administers, and a project another account shares with the user.

Everything but absolute times depends only on the seed: ids, names, counts,
actions, outcomes and the offsets of timestamps from the moment of seeding.
The personal account is drawn first, from its own random sequence, so adding the
organization changed none of its ids; the organization's part is drawn from a second one.
"""

from __future__ import annotations

import calendar
import random
import time

from . import ids
from .clock import iso_seconds, us_from_seconds
from .records import ENDPOINT_ACTIONS, ApiKey, Operation, Organization, Project, User

DEMO_PROJECT_ID = "shiny-river-12345678"
DEMO_PROJECT_NAME = "demo-project"
DEMO_HISTORY_OPERATIONS = 500
PROJECT_COUNT = 37
MAX_OTHER_OPERATIONS = 120
BOOTSTRAP_KEY_NAME = "bootstrap"
FIRST_KEY_ID = 184310

# The seeded organization: the same ids for every seed. The bootstrap user is its admin,
# "Riley Member" a member. (id, name, region, number of ended operations), newest first.
ORG_ID = "org-calm-tree-21298941"
ORG_NAME = "Calm Tree Labs"
ORG_PROJECTS = (
    ("bold-glade-61830452", "checkout-api", "aws-eu-central-1", 20),
    ("quiet-brook-72914063", "checkout-api-staging", "aws-eu-central-1", 12),
    ("young-forest-83025174", "ledger", "aws-us-east-2", 0),
)
# A personal project of another account ("Alex Partner"), shared with the bootstrap user.
SHARED_PROJECT = ("wild-sea-94136285", "partner-reports", "aws-us-west-2", 6)

# region id -> (platform id, proxy host)
REGIONS = {
    "aws-us-east-2": ("aws", "us-east-2.aws.neon.tech"),
    "aws-us-east-1": ("aws", "us-east-1.aws.neon.tech"),
    "aws-us-west-2": ("aws", "us-west-2.aws.neon.tech"),
    "aws-eu-central-1": ("aws", "eu-central-1.aws.neon.tech"),
    "aws-eu-west-2": ("aws", "eu-west-2.aws.neon.tech"),
    "aws-ap-southeast-1": ("aws", "ap-southeast-1.aws.neon.tech"),
    "aws-ap-southeast-2": ("aws", "ap-southeast-2.aws.neon.tech"),
    "aws-sa-east-1": ("aws", "sa-east-1.aws.neon.tech"),
    "azure-eastus2": ("azure", "eastus2.azure.neon.tech"),
    "azure-westus3": ("azure", "westus3.azure.neon.tech"),
    "azure-gwc": ("azure", "gwc.azure.neon.tech"),
}
_REGION_WEIGHTS = (30, 10, 10, 15, 5, 5, 3, 2, 10, 5, 5)

# action -> (weight in histories, min seconds, max seconds)
ACTIONS = {
    "check_availability": (24, 3.0, 40.0),
    "start_compute": (20, 0.3, 4.0),
    "suspend_compute": (18, 0.2, 2.0),
    "apply_config": (12, 0.1, 1.5),
    "create_branch": (5, 0.5, 4.0),
    "apply_storage_config": (4, 0.2, 2.0),
    "create_compute": (4, 0.5, 3.0),
    "delete_timeline": (3, 0.3, 3.0),
    "import_data": (2, 20.0, 600.0),
    "tenant_attach": (2, 0.5, 5.0),
    "delete_tenant": (1, 0.5, 5.0),
    "create_timeline": (1, 1.0, 6.0),
}
_ACTION_NAMES = tuple(ACTIONS)
_ACTION_WEIGHTS = tuple(value[0] for value in ACTIONS.values())

OUTCOMES = ("finished", "skipped", "failed", "error", "cancelled")
_OUTCOME_WEIGHTS = (82, 5, 5, 4, 4)
ERRORS = {
    "failed": (
        "compute node did not become ready in time",
        "failed to apply config: could not connect to compute node",
        "storage controller rejected the request: tenant is being detached",
    ),
    "error": (
        "internal error: pageserver request failed: connection reset by peer",
        "internal error: unexpected response from compute: 500 Internal Server Error",
    ),
}
_RETRIED_ERROR = "transient failure, operation will be retried"

_APP_NAMES = (
    "acme-web", "billing", "analytics", "auth-service", "inventory", "payments", "search-index",
    "blog", "crm", "etl-jobs", "mobile-backend", "reporting", "ml-features", "Marketing Site",
    "support-desk", "notifications", "catalog", "orders", "Customer Portal", "geo-tiles",
)
_ENVIRONMENTS = ("", "-staging", "-dev")
_DAY_US = 86400 * 1000000


class Seeded:
    """The result of seeding (plain data, handed over to State)."""

    def __init__(self, user, users, organizations, keys, projects, next_key_id):
        self.user = user              # the bootstrap user (a User)
        self.users = users            # every User, the bootstrap user first
        self.organizations = organizations
        self.keys = keys
        self.projects = projects
        self.next_key_id = next_key_id


def _quota_reset_at(now_us):
    year, month = time.gmtime(now_us // 1000000)[:2]
    year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return iso_seconds(calendar.timegm((year, month, 1, 0, 0, 0, 0, 0, 0)) * 1000000)


def _branches(rng, count):
    branches = [(ids.branch_id(rng), ids.endpoint_id(rng))]
    for _index in range(count - 1):
        branches.append((ids.branch_id(rng), ids.endpoint_id(rng) if rng.random() < 0.6 else None))
    return branches


def project_data(rng, project_id, name, region_id, created_us, now_us, org_id, owner_id):
    """A project's list fields. ``org_id`` None: a personal project, without the field (as live)."""
    platform_id, proxy_host = REGIONS[region_id]
    active_time = rng.randint(0, 3000000)
    size_limit = rng.choice((3072, 3072, 3072, 204800))
    data = {
        "id": project_id,
        "platform_id": platform_id,
        "region_id": region_id,
        "name": name,
        "provisioner": "k8s-neonvm",
        "default_endpoint_settings": {
            "autoscaling_limit_min_cu": 0.25,
            "autoscaling_limit_max_cu": rng.choice((0.25, 1, 2, 4)),
            "suspend_timeout_seconds": 0,
        },
        "settings": {
            "allowed_ips": {"ips": [], "protected_branches_only": False},
            "enable_logical_replication": False,
            "maintenance_window": {"weekdays": [rng.randint(1, 7)], "start_time": "06:00", "end_time": "07:00"},
            "block_public_connections": False,
            "block_vpc_connections": False,
            "hipaa": False,
        },
        "pg_version": rng.choice((15, 16, 16, 17, 17, 17)),
        "proxy_host": proxy_host,
        "branch_logical_size_limit": size_limit,
        "branch_logical_size_limit_bytes": size_limit * 1024 * 1024,
        "store_passwords": True,
        "active_time": active_time,
        "cpu_used_sec": int(active_time * rng.uniform(0.05, 0.6)),
        "creation_source": rng.choice(("console", "console", "console", "neonctl", "api")),
        "created_at": iso_seconds(created_us),
        "updated_at": iso_seconds(created_us + (now_us - created_us) * rng.randint(50, 99) // 100),
        "synthetic_storage_size": rng.randint(20000000, 9000000000),
        "quota_reset_at": _quota_reset_at(now_us),
        "owner_id": owner_id,
        "compute_last_active_at": iso_seconds(now_us - rng.randint(60, 14 * 86400) * 1000000),
        "org_id": org_id,
        "history_retention_seconds": rng.choice((86400, 86400, 21600, 604800)),
        "locked": False,
    }
    if org_id is None:
        del data["org_id"]
    return data


def _history_operation(rng, project, created_us, action=None, outcome=None):
    action = action or rng.choices(_ACTION_NAMES, _ACTION_WEIGHTS)[0]
    outcome = outcome or rng.choices(OUTCOMES, _OUTCOME_WEIGHTS)[0]
    if action in ENDPOINT_ACTIONS:
        branch_id, endpoint_id = rng.choice([b for b in project.branches if b[1]])
    else:
        branch_id, endpoint_id = rng.choice(project.branches)[0], None
    _weight, low, high = ACTIONS.get(action, (0, 0.2, 5.0))
    duration = rng.uniform(low, high)
    scheduling = rng.uniform(0.0, min(0.5, duration / 4))
    if outcome in ("failed", "error"):
        failures = rng.choice((1, 1, 1, 2, 3))
        error = rng.choice(ERRORS[outcome])
    else:
        failures = 1 if (outcome == "finished" and rng.random() < 0.03) else 0
        error = _RETRIED_ERROR
    return Operation(ids.seeded_uuid(rng), project.id, branch_id, endpoint_id, action, created_us,
                     scheduling, duration, outcome, failures, error)


history_operation = _history_operation  # State.add_history


def _history(rng, project, count, start_us, end_us, guaranteed=()):
    """``count`` finished-by-now operations spread over [start_us, end_us].

    ``guaranteed`` lists (action, outcome) pairs that must appear. When the
    history starts at the project's creation, the oldest operation creates
    the project's timeline.
    """
    if count <= 0:
        return []
    times = sorted(rng.randint(start_us, end_us) for _index in range(count))
    for index in range(1, count):
        if times[index] <= times[index - 1]:
            times[index] = times[index - 1] + 1
    slots = list(range(1, count))
    rng.shuffle(slots)
    forced = dict(zip(slots, guaranteed))
    ops = []
    for index, created_us in enumerate(times):
        if index == 0 and start_us == project.created_us:
            ops.append(_history_operation(rng, project, created_us, "create_timeline", "finished"))
        else:
            action, outcome = forced.get(index, (None, None))
            ops.append(_history_operation(rng, project, created_us, action, outcome))
    return ops


def _names(rng, count):
    names = ["%s%s" % (app, env) for app in _APP_NAMES for env in _ENVIRONMENTS]
    return rng.sample(names, count)


def build(seed, now_us, bootstrap_secret, extra_keys=True):
    """Build the seeded account state at ``now_us``."""
    rng = random.Random(seed)
    user = User(ids.seeded_uuid(rng), "Sam Simulator", "sam@example.com", now_us - 400 * _DAY_US)
    ids.org_id(rng)  # drawn before organizations existed; still drawn so that every later id stays the same

    # ----- API keys: bootstrap is the newest; extras show duplicate names,
    # a never-used key and a comma-separated last_used_from_addr.
    keys = []
    key_id = FIRST_KEY_ID
    if extra_keys:
        ci_key = ApiKey(key_id, "ci-pipeline", ids.api_key_secret(), now_us - 41 * _DAY_US, user.ref())
        ci_key.last_used_us = now_us - 3 * 3600 * 1000000
        ci_key.last_used_from_addr = "113.203.180.132,35.160.120.126"
        keys.append(ci_key)
        keys.append(ApiKey(key_id + 1, "ci-pipeline", ids.api_key_secret(), now_us - 12 * _DAY_US, user.ref()))
        key_id += 2
    keys.append(ApiKey(key_id, BOOTSTRAP_KEY_NAME, bootstrap_secret, now_us - us_from_seconds(60), user.ref(),
                       bootstrap=True))
    key_id += 1

    # ----- personal projects: the demo project is the most recently created one, so it
    # comes first in the project list.
    projects = []
    demo_created = now_us - 30 * _DAY_US
    demo_data = project_data(rng, DEMO_PROJECT_ID, DEMO_PROJECT_NAME, "aws-us-east-2", demo_created, now_us,
                             None, user.id)
    demo = Project(demo_data, demo_created, _branches(rng, 4))
    demo.data["pg_version"] = 17
    guaranteed = [(action, outcome) for outcome in OUTCOMES for action in _ACTION_NAMES]
    history = _history(rng, demo, DEMO_HISTORY_OPERATIONS, demo_created, now_us - 120 * 1000000, guaranteed)
    # two operations in progress right after seeding, finished a few seconds later
    primary_branch, primary_endpoint = demo.branches[0]
    history.append(Operation(ids.seeded_uuid(rng), demo.id, primary_branch, primary_endpoint, "start_compute",
                             now_us - 100000, 0.4, 3.0))
    history.append(Operation(ids.seeded_uuid(rng), demo.id, primary_branch, primary_endpoint, "apply_config",
                             now_us, 0.2, 5.0))
    demo.set_operations(history)
    projects.append(demo)

    used_ids = {DEMO_PROJECT_ID}
    names = _names(rng, PROJECT_COUNT - 1)
    regions = list(REGIONS)
    for index, name in enumerate(names):
        project_id = ids.project_id(rng)
        while project_id in used_ids:
            project_id = ids.project_id(rng)
        used_ids.add(project_id)
        created_us = now_us - 31 * _DAY_US - rng.randint(0, 400 * _DAY_US)
        region_id = rng.choices(regions, _REGION_WEIGHTS)[0]
        project = Project(project_data(rng, project_id, name, region_id, created_us, now_us, None, user.id),
                          created_us, _branches(rng, rng.randint(1, 4)))
        if index == 5:
            project.data["locked"] = True
        count = 0 if index < 2 else (MAX_OTHER_OPERATIONS if index == 2 else rng.randint(0, MAX_OTHER_OPERATIONS))
        start_us = max(created_us, now_us - 45 * _DAY_US)
        project.set_operations(_history(rng, project, count, start_us, now_us - 600 * 1000000))
        projects.append(project)

    users, organizations, more_projects = _organization_and_partner(seed, now_us, user)
    return Seeded(user, users, organizations, keys, projects + more_projects, key_id)


def _seeded_project(rng, spec, created_us, now_us, org_id, owner_id):
    project_id, name, region_id, operations = spec
    project = Project(project_data(rng, project_id, name, region_id, created_us, now_us, org_id, owner_id),
                      created_us, _branches(rng, 2))
    start_us = max(created_us, now_us - 45 * _DAY_US)
    project.set_operations(_history(rng, project, operations, start_us, now_us - 600 * 1000000))
    return project


def _organization_and_partner(seed, now_us, user):
    """The seeded organization (admin: the bootstrap user) and a project shared with that user."""
    rng = random.Random("neon-simulator-organizations-%d" % seed)
    member = User(ids.seeded_uuid(rng), "Riley Member", "riley@example.com", now_us - 300 * _DAY_US)
    partner = User(ids.seeded_uuid(rng), "Alex Partner", "alex@example.com", now_us - 500 * _DAY_US)
    org = Organization(ORG_ID, ORG_NAME, now_us - 200 * _DAY_US)
    org.updated_us = now_us - 7 * _DAY_US
    org.members[user.id] = "admin"
    org.members[member.id] = "member"
    projects = []
    for index, spec in enumerate(ORG_PROJECTS):
        created_us = now_us - (35 + 40 * index) * _DAY_US  # older than the demo project, the newest of all
        projects.append(_seeded_project(rng, spec, created_us, now_us, org.id, user.id))
    shared = _seeded_project(rng, SHARED_PROJECT, now_us - 90 * _DAY_US, now_us, None, partner.id)
    shared.shared_with.add(user.id)
    projects.append(shared)
    return [user, member, partner], [org], projects
