# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The provisioning routes of /api/v2 (a project's branches): HTTP in, State's api_* methods (provisioning.py)
out. One project's routes (create, get, update, delete) are in api_projects.py; a branch's computes are routed in
api_computes.py, its roles and databases in api_catalog.py, its restore and set_as_default in api_recovery.py.
"""

from __future__ import annotations

from werkzeug.routing import Rule

from .provisioning import BRANCHES_LIMIT
from .web import API_PREFIX, int_arg, json_body

PROJECT = API_PREFIX + "/projects/<project_id>"
BRANCH = PROJECT + "/branches/<branch_id>"


def rule(path, method, endpoint, **defaults):
    """A werkzeug Rule of one method; ``defaults`` are passed to the handler (``action``, ``kind``)."""
    return Rule(path, methods=[method], endpoint=endpoint, defaults=defaults or None)


def provisioning_rules():
    rules = [
        rule(PROJECT + "/branches", "GET", "list_branches"),
        rule(PROJECT + "/branches", "POST", "create_branch"),
        rule(PROJECT + "/branches/count", "GET", "count_branches"),
        rule(BRANCH, "GET", "get_branch"),
        rule(BRANCH, "PATCH", "update_branch"),
        rule(BRANCH, "DELETE", "delete_branch"),
    ]
    return rules


def deleted(payload):
    """200 with what was deleted, or 204 without a body when there was nothing to delete (SPEC)."""
    return (204, None) if payload is None else (200, payload)


class ProvisioningRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload); /api/v2's for the authenticated key."""

    def _api_list_branches(self, request, key, project_id):
        args = dict(request.args.items())
        args["limit"] = int_arg(request.args, "limit", BRANCHES_LIMIT)
        return 200, self.state.provisioning.api_list_branches(key, project_id, args)

    def _api_count_branches(self, request, key, project_id):
        return 200, self.state.provisioning.api_count_branches(key, project_id, request.args.get("search"))

    def _api_create_branch(self, request, key, project_id):
        return 201, self.state.provisioning.api_create_branch(key, project_id, json_body(request, required=False))

    def _api_get_branch(self, request, key, project_id, branch_id):
        del request
        return 200, self.state.provisioning.api_get_branch(key, project_id, branch_id)

    def _api_update_branch(self, request, key, project_id, branch_id):
        return 200, self.state.provisioning.api_update_branch(key, project_id, branch_id, json_body(request))

    def _api_delete_branch(self, request, key, project_id, branch_id):
        del request
        return deleted(self.state.provisioning.api_delete_branch(key, project_id, branch_id))
