# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The routes of project members' roles (project_roles.py; August 2026, in no document the simulator is judged by):
``GET /projects/{project_id}/members``, ``PUT`` and ``DELETE /projects/{project_id}/members/{member_id}/role``."""

from __future__ import annotations

from werkzeug.routing import Rule

from .web import API_PREFIX, json_body


def project_roles_rules():
    """The /api/v2 rules (endpoint ``x`` served by ``_api_x``)."""
    return [
        Rule(API_PREFIX + "/projects/<project_id>/members", methods=["GET"], endpoint="list_project_members"),
        Rule(API_PREFIX + "/projects/<project_id>/members/<member_id>/role", methods=["PUT"],
             endpoint="set_project_member_role"),
        Rule(API_PREFIX + "/projects/<project_id>/members/<member_id>/role", methods=["DELETE"],
             endpoint="remove_project_member_role"),
    ]


class ProjectRolesRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload)."""

    def _api_list_project_members(self, request, key, project_id):
        args = request.args
        return 200, self.state.project_roles.api_list_members(key, project_id, args.get("limit"), args.get("cursor"))

    def _api_set_project_member_role(self, request, key, project_id, member_id):
        confirm = request.args.get("confirm_self_demotion")
        return 200, self.state.project_roles.api_set_role(key, project_id, member_id, json_body(request), confirm)

    def _api_remove_project_member_role(self, request, key, project_id, member_id):
        confirm = request.args.get("confirm_self_lockout")
        return 200, self.state.project_roles.api_remove_role(key, project_id, member_id, confirm)
