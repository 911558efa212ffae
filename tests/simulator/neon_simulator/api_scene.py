# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The scene's routes of the control API (/_simulator: users, organizations and their members, keys of each kind,
shared and transferred projects, projects the listings leave out): HTTP in, State's methods (scene.py) out."""

from __future__ import annotations

from werkzeug.routing import Rule

from .web import CONTROL_PREFIX, json_body

CONTROL_PROJECT = CONTROL_PREFIX + "/projects/<project_id>"


def scene_control_rules():
    """The /_simulator rules (endpoint ``x`` served by ``_control_x``)."""
    return [
        Rule(CONTROL_PREFIX + "/keys", methods=["POST"], endpoint="create_key"),
        Rule(CONTROL_PREFIX + "/users", methods=["GET"], endpoint="list_users"),
        Rule(CONTROL_PREFIX + "/users", methods=["POST"], endpoint="create_user"),
        Rule(CONTROL_PREFIX + "/users/<user_id>", methods=["PATCH"], endpoint="update_user"),
        Rule(CONTROL_PREFIX + "/organizations", methods=["GET"], endpoint="list_organizations"),
        Rule(CONTROL_PREFIX + "/organizations", methods=["POST"], endpoint="create_organization"),
        Rule(CONTROL_PREFIX + "/organizations/<org_id>/members", methods=["POST"], endpoint="add_member"),
        Rule(CONTROL_PREFIX + "/organizations/<org_id>/members/<user_id>", methods=["DELETE"],
             endpoint="remove_member"),
        Rule(CONTROL_PROJECT + "/share", methods=["POST"], endpoint="share_project"),
        Rule(CONTROL_PROJECT + "/transfer", methods=["POST"], endpoint="transfer_project"),
        Rule(CONTROL_PREFIX + "/unavailable", methods=["GET"], endpoint="list_unavailable"),
        Rule(CONTROL_PREFIX + "/unavailable", methods=["POST"], endpoint="set_unavailable"),
        Rule(CONTROL_PREFIX + "/unavailable", methods=["DELETE"], endpoint="clear_unavailable"),
    ]


class SceneRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload)."""

    def _control_create_key(self, request):
        return 201, self.state.scene.control_create_key(json_body(request, required=False))

    def _control_list_users(self, request):
        del request
        return 200, {"users": self.state.scene.list_users()}

    def _control_create_user(self, request):
        return 201, self.state.scene.create_user(json_body(request, required=False))

    def _control_update_user(self, request, user_id):
        return 200, self.state.scene.update_user(user_id, json_body(request))

    def _control_list_organizations(self, request):
        del request
        return 200, {"organizations": self.state.scene.list_organizations()}

    def _control_create_organization(self, request):
        return 201, self.state.scene.create_organization(json_body(request, required=False))

    def _control_add_member(self, request, org_id):
        return 200, self.state.scene.add_member(org_id, json_body(request))

    def _control_remove_member(self, request, org_id, user_id):
        del request
        return 200, self.state.scene.remove_member(org_id, user_id)

    def _control_share_project(self, request, project_id):
        return 200, self.state.scene.share_project(project_id, json_body(request, required=False))

    def _control_transfer_project(self, request, project_id):
        return 200, self.state.scene.transfer_project(project_id, json_body(request))

    def _control_list_unavailable(self, request):
        del request
        return 200, {"unavailable": self.state.scene.list_unavailable()}

    def _control_set_unavailable(self, request):
        return 200, {"unavailable": self.state.scene.set_unavailable(json_body(request))}

    def _control_clear_unavailable(self, request):
        del request
        return 200, {"removed": self.state.scene.clear_unavailable()}
