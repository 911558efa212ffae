# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The sharing routes: /api/v2 (project permissions (sharing a project by email) and an organization's members
and invitations) and their control API, HTTP in, State's ``api_*`` methods (sharing.py) out. """

from __future__ import annotations

from werkzeug.routing import Rule

from .errors import InvalidRequest
from .ids import ID_RE
from .web import API_PREFIX, CONTROL_PREFIX, json_body

PROJECT = API_PREFIX + "/projects/<project_id>"
ORGANIZATION = API_PREFIX + "/organizations/<org_id>"


def _org_id(org_id):
    if not ID_RE.match(org_id):
        raise InvalidRequest("org_id: must match ^[a-z0-9-]{1,60}$, got %r" % org_id)
    return org_id


def sharing_rules():
    """The /api/v2 rules (werkzeug Rule, endpoint ``x`` served by ``_api_x``)."""
    return [
        Rule(PROJECT + "/permissions", methods=["GET"], endpoint="list_permissions"),
        Rule(PROJECT + "/permissions", methods=["POST"], endpoint="grant_permission"),
        Rule(PROJECT + "/permissions/<permission_id>", methods=["DELETE"], endpoint="revoke_permission"),
        Rule(ORGANIZATION + "/members", methods=["GET"], endpoint="list_members"),
        Rule(ORGANIZATION + "/members/<member_id>", methods=["GET"], endpoint="get_member"),
        Rule(ORGANIZATION + "/members/<member_id>", methods=["PATCH"], endpoint="update_member"),
        Rule(ORGANIZATION + "/members/<member_id>", methods=["DELETE"], endpoint="remove_member"),
        Rule(ORGANIZATION + "/invitations", methods=["GET"], endpoint="list_invitations"),
        Rule(ORGANIZATION + "/invitations", methods=["POST"], endpoint="create_invitations"),
    ]


def sharing_control_rules():
    """The /_simulator rules (endpoint ``x`` served by ``_control_x``)."""
    return [
        Rule(CONTROL_PREFIX + "/sharing", methods=["GET"], endpoint="sharing_settings"),
        Rule(CONTROL_PREFIX + "/sharing", methods=["POST"], endpoint="set_sharing_settings"),
        Rule(CONTROL_PREFIX + "/projects/<project_id>/permissions", methods=["GET"], endpoint="all_grants"),
        Rule(CONTROL_PREFIX + "/organizations/<org_id>/invitations/<invitation_id>/accept", methods=["POST"],
             endpoint="accept_invitation"),
    ]


class SharingRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload)."""

    # ------------------------------------------------------------------ permissions
    def _api_list_permissions(self, request, key, project_id):
        del request
        return 200, self.state.sharing.api_list_permissions(key, project_id)

    def _api_grant_permission(self, request, key, project_id):
        return 200, self.state.sharing.api_grant_permission(key, project_id, json_body(request))

    def _api_revoke_permission(self, request, key, project_id, permission_id):
        del request
        return 200, self.state.sharing.api_revoke_permission(key, project_id, permission_id)

    # ------------------------------------------------------------------ members and invitations
    def _api_list_members(self, request, key, org_id):
        del request
        return 200, self.state.sharing.api_list_members(key, _org_id(org_id))

    def _api_get_member(self, request, key, org_id, member_id):
        del request
        return 200, self.state.sharing.api_get_member(key, _org_id(org_id), member_id)

    def _api_update_member(self, request, key, org_id, member_id):
        return 200, self.state.sharing.api_update_member(key, _org_id(org_id), member_id, json_body(request))

    def _api_remove_member(self, request, key, org_id, member_id):
        del request
        return 200, self.state.sharing.api_remove_member(key, _org_id(org_id), member_id)

    def _api_list_invitations(self, request, key, org_id):
        del request
        return 200, self.state.sharing.api_list_invitations(key, _org_id(org_id))

    def _api_create_invitations(self, request, key, org_id):
        return 200, self.state.sharing.api_create_invitations(key, _org_id(org_id), json_body(request))

    # ------------------------------------------------------------------ control API
    def _control_sharing_settings(self, request):
        del request
        return 200, self.state.sharing.sharing_settings()

    def _control_set_sharing_settings(self, request):
        return 200, self.state.sharing.set_sharing_settings(json_body(request))

    def _control_all_grants(self, request, project_id):
        del request
        return 200, {"project_permissions": self.state.sharing.all_grants(project_id)}

    def _control_accept_invitation(self, request, org_id, invitation_id):
        del request
        return 200, self.state.sharing.accept_invitation(org_id, invitation_id)
