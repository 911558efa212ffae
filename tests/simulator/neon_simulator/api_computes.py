# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The computes' routes of /api/v2 (``/projects/{project_id}/endpoints``, a branch's endpoints, start, suspend,
restart): HTTP in, State's api_* methods (computes.py) out."""

from __future__ import annotations

from .api_provisioning import BRANCH, PROJECT, deleted, rule
from .web import json_body

ENDPOINT = PROJECT + "/endpoints/<endpoint_id>"


def computes_rules():
    rules = [
        rule(BRANCH + "/endpoints", "GET", "list_branch_endpoints"),
        rule(PROJECT + "/endpoints", "GET", "list_endpoints"),
        rule(PROJECT + "/endpoints", "POST", "create_endpoint"),
        rule(ENDPOINT, "GET", "get_endpoint"),
        rule(ENDPOINT, "PATCH", "update_endpoint"),
        rule(ENDPOINT, "DELETE", "delete_endpoint"),
    ]
    for action in ("start", "suspend", "restart"):
        rules.append(rule(ENDPOINT + "/" + action, "POST", "endpoint_action", action=action))
    return rules


class ComputesRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload) for the authenticated key."""

    def _api_list_branch_endpoints(self, request, key, project_id, branch_id):
        del request
        return 200, self.state.computes.api_list_endpoints(key, project_id, branch_id)

    def _api_list_endpoints(self, request, key, project_id):
        del request
        return 200, self.state.computes.api_list_endpoints(key, project_id)

    def _api_create_endpoint(self, request, key, project_id):
        return 201, self.state.computes.api_create_endpoint(key, project_id, json_body(request))

    def _api_get_endpoint(self, request, key, project_id, endpoint_id):
        del request
        return 200, self.state.computes.api_get_endpoint(key, project_id, endpoint_id)

    def _api_update_endpoint(self, request, key, project_id, endpoint_id):
        return 200, self.state.computes.api_update_endpoint(key, project_id, endpoint_id, json_body(request))

    def _api_delete_endpoint(self, request, key, project_id, endpoint_id):
        del request
        return deleted(self.state.computes.api_delete_endpoint(key, project_id, endpoint_id))

    def _api_endpoint_action(self, request, key, project_id, endpoint_id, action):
        del request
        return 200, self.state.computes.api_endpoint_action(key, project_id, endpoint_id, action)
