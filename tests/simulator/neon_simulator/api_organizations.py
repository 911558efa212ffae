# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The organizations' routes of /api/v2 (``/users/me/organizations``, ``/organizations/{org_id}``): HTTP in, State's
methods (organizations.py) out. Members and invitations are routed in api_sharing.py, VPC endpoints in
api_networking.py."""

from __future__ import annotations

from werkzeug.routing import Rule

from .errors import InvalidRequest
from .ids import ID_RE
from .web import API_PREFIX

ORGANIZATION = API_PREFIX + "/organizations/<org_id>"


def organizations_rules():
    return [
        Rule(API_PREFIX + "/users/me/organizations", methods=["GET"], endpoint="user_organizations"),
        Rule(ORGANIZATION, methods=["GET"], endpoint="get_organization"),
    ]


def org_id_of(org_id):
    if not ID_RE.match(org_id):
        raise InvalidRequest("org_id: must match ^[a-z0-9-]{1,60}$, got %r" % org_id)
    return org_id


class OrganizationsRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload) for the authenticated key."""

    def _api_user_organizations(self, request, key):
        del request
        return 200, {"organizations": self.state.organizations.user_organizations(key)}

    def _api_get_organization(self, request, key, org_id):
        del request
        return 200, self.state.organizations.get_organization(key, org_id_of(org_id))
