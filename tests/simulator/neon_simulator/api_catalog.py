# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The catalog's routes of /api/v2 (a branch's roles and databases, a role's password, the project's connection
URI): HTTP in, State's api_* methods (catalog.py) out."""

from __future__ import annotations

from werkzeug.routing import Rule

from .api_provisioning import BRANCH, PROJECT, deleted, rule
from .errors import InvalidRequest
from .web import CONTROL_PREFIX, json_body

# roles and databases have one shape: <kind> is "roles" or "databases"
NAMED_KINDS = {"roles": "role", "databases": "database"}
CONTROL_PROJECT = CONTROL_PREFIX + "/projects/<project_id>"


def catalog_rules():
    rules = [
        rule(PROJECT + "/connection_uri", "GET", "connection_uri"),
        rule(BRANCH + "/roles/<name>/reveal_password", "GET", "reveal_password"),
        rule(BRANCH + "/roles/<name>/reset_password", "POST", "reset_password"),
        rule(BRANCH + "/roles", "POST", "create_role"),
        rule(BRANCH + "/databases", "POST", "create_database"),
        rule(BRANCH + "/databases/<name>", "PATCH", "update_database"),
    ]
    for plural, kind in NAMED_KINDS.items():
        rules.append(rule(BRANCH + "/" + plural, "GET", "list_named", kind=kind))
        rules.append(rule(BRANCH + "/%s/<name>" % plural, "GET", "get_named", kind=kind))
        rules.append(rule(BRANCH + "/%s/<name>" % plural, "DELETE", "delete_named", kind=kind))
    return rules


def catalog_control_rules():
    """The /_simulator rules (endpoint ``x`` served by ``_control_x``)."""
    return [
        Rule(CONTROL_PROJECT + "/check_password", methods=["POST"], endpoint="check_password"),
    ]


class CatalogRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload); /api/v2's for the authenticated key."""

    def _api_connection_uri(self, request, key, project_id):
        return 200, self.state.catalog.api_connection_uri(key, project_id, request.args)

    def _api_list_named(self, request, key, project_id, branch_id, kind):
        del request
        return 200, self.state.catalog.api_list_named(key, project_id, branch_id, kind)

    def _api_get_named(self, request, key, project_id, branch_id, kind, name):
        del request
        return 200, self.state.catalog.api_get_named(key, project_id, branch_id, kind, name)

    def _api_delete_named(self, request, key, project_id, branch_id, kind, name):
        del request
        return deleted(self.state.catalog.api_delete_named(key, project_id, branch_id, kind, name))

    def _api_create_role(self, request, key, project_id, branch_id):
        return 201, self.state.catalog.api_create_role(key, project_id, branch_id, json_body(request))

    def _api_reveal_password(self, request, key, project_id, branch_id, name):
        del request
        return 200, self.state.catalog.api_reveal_password(key, project_id, branch_id, name)

    def _api_reset_password(self, request, key, project_id, branch_id, name):
        del request
        return 200, self.state.catalog.api_reset_password(key, project_id, branch_id, name)

    def _api_create_database(self, request, key, project_id, branch_id):
        return 201, self.state.catalog.api_create_database(key, project_id, branch_id, json_body(request))

    def _api_update_database(self, request, key, project_id, branch_id, name):
        return 200, self.state.catalog.api_update_database(key, project_id, branch_id, name, json_body(request))

    def _control_check_password(self, request, project_id):
        body = json_body(request)
        for name in ("branch_id", "role_name", "password"):
            if not isinstance(body.get(name), str):
                raise InvalidRequest("%s: required string" % name)
        return 200, {"valid": self.state.catalog.password_valid(project_id, body["branch_id"], body["role_name"],
                                                                body["password"])}
