# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The provisioning routes of /api/v2 (projects, branches, computes, roles, databases,
connection URI): HTTP in, State's api_* methods (provisioning.py, computes.py, catalog.py) out.
"""

from __future__ import annotations

from werkzeug.routing import Rule

from .provisioning import BRANCHES_LIMIT
from .web import API_PREFIX, int_arg, json_body

PROJECT = API_PREFIX + "/projects/<project_id>"
BRANCH = PROJECT + "/branches/<branch_id>"
ENDPOINT = PROJECT + "/endpoints/<endpoint_id>"
# roles and databases have one shape: <kind> is "roles" or "databases"
NAMED_KINDS = {"roles": "role", "databases": "database"}


def provisioning_rules():
    def rule(path, method, endpoint, **defaults):
        return Rule(path, methods=[method], endpoint=endpoint, defaults=defaults or None)

    rules = [
        rule(API_PREFIX + "/projects", "POST", "create_project"),
        rule(PROJECT, "GET", "get_project"),
        rule(PROJECT, "PATCH", "update_project"),
        rule(PROJECT, "DELETE", "delete_project"),
        rule(PROJECT + "/connection_uri", "GET", "connection_uri"),
        rule(PROJECT + "/branches", "GET", "list_branches"),
        rule(PROJECT + "/branches", "POST", "create_branch"),
        rule(PROJECT + "/branches/count", "GET", "count_branches"),
        rule(BRANCH, "GET", "get_branch"),
        rule(BRANCH, "PATCH", "update_branch"),
        rule(BRANCH, "DELETE", "delete_branch"),
        rule(BRANCH + "/restore", "POST", "restore_branch"),
        rule(BRANCH + "/set_as_default", "POST", "set_default_branch"),
        rule(BRANCH + "/endpoints", "GET", "list_branch_endpoints"),
        rule(PROJECT + "/endpoints", "GET", "list_endpoints"),
        rule(PROJECT + "/endpoints", "POST", "create_endpoint"),
        rule(ENDPOINT, "GET", "get_endpoint"),
        rule(ENDPOINT, "PATCH", "update_endpoint"),
        rule(ENDPOINT, "DELETE", "delete_endpoint"),
        rule(BRANCH + "/roles/<name>/reveal_password", "GET", "reveal_password"),
        rule(BRANCH + "/roles/<name>/reset_password", "POST", "reset_password"),
        rule(BRANCH + "/roles", "POST", "create_role"),
        rule(BRANCH + "/databases", "POST", "create_database"),
        rule(BRANCH + "/databases/<name>", "PATCH", "update_database"),
    ]
    for action in ("start", "suspend", "restart"):
        rules.append(rule(ENDPOINT + "/" + action, "POST", "endpoint_action", action=action))
    for plural, kind in NAMED_KINDS.items():
        rules.append(rule(BRANCH + "/" + plural, "GET", "list_named", kind=kind))
        rules.append(rule(BRANCH + "/%s/<name>" % plural, "GET", "get_named", kind=kind))
        rules.append(rule(BRANCH + "/%s/<name>" % plural, "DELETE", "delete_named", kind=kind))
    return rules


def _deleted(payload):
    """200 with what was deleted, or 204 without a body when there was nothing to delete (SPEC)."""
    return (204, None) if payload is None else (200, payload)


class ProvisioningRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload) for the authenticated key."""

    def _api_create_project(self, request, key):
        return 201, self.state.api_create_project(key, json_body(request))

    def _api_get_project(self, request, key, project_id):
        del request
        return 200, self.state.api_get_project(key, project_id)

    def _api_update_project(self, request, key, project_id):
        return 200, self.state.api_update_project(key, project_id, json_body(request))

    def _api_delete_project(self, request, key, project_id):
        del request
        return 200, self.state.api_delete_project(key, project_id)

    def _api_connection_uri(self, request, key, project_id):
        return 200, self.state.api_connection_uri(key, project_id, request.args)

    def _api_list_branches(self, request, key, project_id):
        args = dict(request.args.items())
        args["limit"] = int_arg(request.args, "limit", BRANCHES_LIMIT)
        return 200, self.state.api_list_branches(key, project_id, args)

    def _api_count_branches(self, request, key, project_id):
        return 200, self.state.api_count_branches(key, project_id, request.args.get("search"))

    def _api_create_branch(self, request, key, project_id):
        return 201, self.state.api_create_branch(key, project_id, json_body(request, required=False))

    def _api_get_branch(self, request, key, project_id, branch_id):
        del request
        return 200, self.state.api_get_branch(key, project_id, branch_id)

    def _api_update_branch(self, request, key, project_id, branch_id):
        return 200, self.state.api_update_branch(key, project_id, branch_id, json_body(request))

    def _api_delete_branch(self, request, key, project_id, branch_id):
        del request
        return _deleted(self.state.api_delete_branch(key, project_id, branch_id))

    def _api_restore_branch(self, request, key, project_id, branch_id):
        return 200, self.state.api_restore_branch(key, project_id, branch_id, json_body(request))

    def _api_set_default_branch(self, request, key, project_id, branch_id):
        del request
        return 200, self.state.api_set_default_branch(key, project_id, branch_id)

    def _api_list_branch_endpoints(self, request, key, project_id, branch_id):
        del request
        return 200, self.state.api_list_endpoints(key, project_id, branch_id)

    def _api_list_endpoints(self, request, key, project_id):
        del request
        return 200, self.state.api_list_endpoints(key, project_id)

    def _api_create_endpoint(self, request, key, project_id):
        return 201, self.state.api_create_endpoint(key, project_id, json_body(request))

    def _api_get_endpoint(self, request, key, project_id, endpoint_id):
        del request
        return 200, self.state.api_get_endpoint(key, project_id, endpoint_id)

    def _api_update_endpoint(self, request, key, project_id, endpoint_id):
        return 200, self.state.api_update_endpoint(key, project_id, endpoint_id, json_body(request))

    def _api_delete_endpoint(self, request, key, project_id, endpoint_id):
        del request
        return _deleted(self.state.api_delete_endpoint(key, project_id, endpoint_id))

    def _api_endpoint_action(self, request, key, project_id, endpoint_id, action):
        del request
        return 200, self.state.api_endpoint_action(key, project_id, endpoint_id, action)

    def _api_list_named(self, request, key, project_id, branch_id, kind):
        del request
        return 200, self.state.api_list_named(key, project_id, branch_id, kind)

    def _api_get_named(self, request, key, project_id, branch_id, kind, name):
        del request
        return 200, self.state.api_get_named(key, project_id, branch_id, kind, name)

    def _api_delete_named(self, request, key, project_id, branch_id, kind, name):
        del request
        return _deleted(self.state.api_delete_named(key, project_id, branch_id, kind, name))

    def _api_create_role(self, request, key, project_id, branch_id):
        return 201, self.state.api_create_role(key, project_id, branch_id, json_body(request))

    def _api_reveal_password(self, request, key, project_id, branch_id, name):
        del request
        return 200, self.state.api_reveal_password(key, project_id, branch_id, name)

    def _api_reset_password(self, request, key, project_id, branch_id, name):
        del request
        return 200, self.state.api_reset_password(key, project_id, branch_id, name)

    def _api_create_database(self, request, key, project_id, branch_id):
        return 201, self.state.api_create_database(key, project_id, branch_id, json_body(request))

    def _api_update_database(self, request, key, project_id, branch_id, name):
        return 200, self.state.api_update_database(key, project_id, branch_id, name, json_body(request))
