# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the platform says of itself and of the caller: ``GET /regions`` (ActiveRegionsResponse), ``GET /users/me``
(CurrentUserInfoResponse) and ``GET /projects/{project_id}/available_preload_libraries`` (AvailablePreloadLibraries),
the reads issue 32 names (governance-recovery-api-notes.md, "Regions / libraries"; the users/me shape of a
recorded answer, neon-api-python's test_me cassette, 2025-01-16).

CHOICES (the notes give no values):

- The regions: every region a project can be made in (seed.REGIONS: the static list neonctl falls back on, in
  the notes, and the few others the seeded histories use), named and placed as Neon's console names them
  (approximate coordinates of each cloud region, as text, as the schema has them); ``aws-us-east-2`` is the
  default (the default observed, provisioning-api-notes.md 2.1). So a region ``GET /regions`` does not list is
  one a create refuses. ``org_id`` (the 2026-06 document: "returns only regions available to this
  organization") must match the document's pattern (400) and be an organization the key reaches (403, as the
  organization's other reads: access.organization_role); every region is available to every organization.
- ``/users/me``: a personal key's user only (an organization or project-scoped key: 403, as for
  ``/users/me/organizations``). ``name`` is the user's first word and ``last_name`` the rest (the recorded
  answer splits them); ``login`` the email's local part; one ``keycloak`` auth account. The account is on the
  free plan, as its personal projects (``free_v2``, owner.subscription_type): ``max_autoscaling_limit`` 2 and
  ``active_seconds_limit`` 0 as recorded; ``projects_limit`` and ``branches_limit`` are the simulator's plan
  limits (POST /_simulator/limits), 5000 when none is set, as the project owner block's ``branches_limit``.
- The preload libraries: those of the project's Postgres version (the 2026-06 document: "the shared preload
  libraries available for the specified project's Postgres version"; which ones is a choice): four for Postgres
  14 to 17 (none on by default, one experimental), and on Postgres 18 all but ``timescaledb``, whose release
  listed (2.17.1) is built for Postgres 14 to 17 only. So two projects of one version list the same libraries.
"""

from __future__ import annotations

import datetime
import re

from . import access
from .clock import iso_seconds
from .errors import InvalidRequest

REGIONS = (  # region_id, name, latitude, longitude
    ("aws-us-west-2", "AWS US West 2 (Oregon)", "45.8399", "-119.7006"),
    ("aws-ap-southeast-1", "AWS Asia Pacific 1 (Singapore)", "1.3521", "103.8198"),
    ("aws-ap-southeast-2", "AWS Asia Pacific 2 (Sydney)", "-33.8688", "151.2093"),
    ("aws-eu-central-1", "AWS Europe Central 1 (Frankfurt)", "50.1109", "8.6821"),
    ("aws-us-east-2", "AWS US East 2 (Ohio)", "39.9612", "-82.9988"),
    ("aws-us-east-1", "AWS US East 1 (N. Virginia)", "39.0438", "-77.4874"),
    ("azure-eastus2", "Azure East US 2 (Virginia)", "36.6676", "-78.3875"),
    ("aws-eu-west-2", "AWS Europe West 2 (London)", "51.5072", "-0.1276"),
    ("aws-sa-east-1", "AWS South America East 1 (Sao Paulo)", "-23.5558", "-46.6396"),
    ("azure-westus3", "Azure West US 3 (Arizona)", "33.4484", "-112.0740"),
    ("azure-gwc", "Azure Germany West Central (Frankfurt)", "50.1109", "8.6821"),
)
ORG_ID_PATTERN = re.compile(r"^[a-z0-9-]{1,60}$")  # SPEC getActiveRegions' org_id
DEFAULT_REGION = "aws-us-east-2"
PRELOAD_LIBRARIES = (  # library_name, description, is_default, is_experimental, version, Postgres versions
    ("timescaledb", "Time-series data: hypertables, continuous aggregates, compression", False, False, "2.17.1",
     (14, 15, 16, 17)),
    ("pg_cron", "Job scheduler: runs SQL on a cron schedule inside the database", False, False, "1.6",
     (14, 15, 16, 17, 18)),
    ("pg_partman_bgw", "Background worker of pg_partman: keeps partition sets maintained", False, False, "5.1.0",
     (14, 15, 16, 17, 18)),
    ("anon", "PostgreSQL Anonymizer: masks or replaces personal data", False, True, "2.0.0", (14, 15, 16, 17, 18)),
)
USER_PLAN = "free_v2"
USER_MAX_AUTOSCALING_CU = 2
UNSET_LIMIT = 5000


def _month_start(now_us):
    now = datetime.datetime.fromtimestamp(now_us / 1e6, tz=datetime.timezone.utc)
    start = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    return int(start.timestamp()) * 1000000


class PlatformInfo:
    """The platform's area of State: what it says of itself and of the caller (see the module's text)."""

    def __init__(self, shared):
        self.shared = shared  # the data and helpers every area uses (shared.py)

    def regions(self, key, org_id=None):
        """GET /regions: ActiveRegionsResponse; with ``org_id``, the organization's (every region)."""
        if org_id is not None:
            if not ORG_ID_PATTERN.match(org_id):
                raise InvalidRequest("org_id: must match ^[a-z0-9-]{1,60}$")
            with self.shared.lock:
                access.organization_role(self.shared, key, org_id)
        return {"regions": [{"region_id": region_id, "name": name, "default": region_id == DEFAULT_REGION,
                             "geo_lat": lat, "geo_long": long} for region_id, name, lat, long in REGIONS]}

    def current_user(self, key):
        """CurrentUserInfoResponse of the key's user (a personal key only)."""
        with self.shared.lock:
            access.require_personal_key(key)
            user = self.shared.users[key.owner_id]
            first, _space, rest = user.name.partition(" ")
            login = user.email.split("@")[0]
            limits = self.shared.limits.values
            return {
                "id": user.id,
                "email": user.email,
                "login": login,
                "name": first,
                "last_name": rest,
                "image": user.image,
                "active_seconds_limit": 0,
                "projects_limit": limits["max_projects"] or UNSET_LIMIT,
                "branches_limit": limits["max_branches"] or UNSET_LIMIT,
                "max_autoscaling_limit": USER_MAX_AUTOSCALING_CU,
                "plan": USER_PLAN,
                "auth_accounts": [{"email": user.email, "image": user.image, "login": login, "name": user.name,
                                   "provider": "keycloak"}],
                "billing_account": {
                    "state": "active", "payment_source": {"type": ""}, "subscription_type": USER_PLAN,
                    "payment_method": "none", "quota_reset_at_last": iso_seconds(_month_start(self.shared.now_us())),
                    "name": user.name, "email": user.email, "address_city": "", "address_country": "",
                    "address_line1": "", "address_line2": "", "address_postal_code": "", "address_state": "",
                },
            }

    def preload_libraries(self, key, project_id):
        """GET /projects/{project_id}/available_preload_libraries: AvailablePreloadLibraries of a project the key
        reaches, those of its Postgres version."""
        with self.shared.lock:
            pg_version = access.check_project(self.shared, key, project_id).data["pg_version"]
        return {"libraries": [{"library_name": name, "description": description, "is_default": default,
                               "is_experimental": experimental, "version": version}
                              for name, description, default, experimental, version, pg_versions in PRELOAD_LIBRARIES
                              if pg_version in pg_versions]}
