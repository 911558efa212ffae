# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The projects' routes of /api/v2 (``GET /projects``, ``GET /projects/shared``, one project's create, get, update and
delete): HTTP in, State's methods (projects.py) out. A project's branches are routed in api_provisioning.py."""

from __future__ import annotations

from werkzeug.routing import Rule

from .api_organizations import org_id_of
from .recoverable import flag
from .web import API_PREFIX, CONTROL_PREFIX, int_arg, json_body, paginated

PROJECT = API_PREFIX + "/projects/<project_id>"
CONTROL_PROJECT = CONTROL_PREFIX + "/projects/<project_id>"
PROJECTS_LIMIT = (1, 400, 10)
PROJECTS_TIMEOUT_MS = (100, 30000, None)


def projects_rules():
    return [
        Rule(API_PREFIX + "/projects", methods=["GET"], endpoint="list_projects"),
        Rule(API_PREFIX + "/projects/shared", methods=["GET"], endpoint="list_shared_projects"),
        Rule(API_PREFIX + "/projects", methods=["POST"], endpoint="create_project"),
        Rule(PROJECT, methods=["GET"], endpoint="get_project"),
        Rule(PROJECT, methods=["PATCH"], endpoint="update_project"),
        Rule(PROJECT, methods=["DELETE"], endpoint="delete_project"),
    ]


def _projects_page(args):
    """(limit, cursor, search) of a project listing; ``timeout`` is checked (see README)."""
    limit = int_arg(args, "limit", PROJECTS_LIMIT)
    int_arg(args, "timeout", PROJECTS_TIMEOUT_MS)
    return limit, args.get("cursor") or None, args.get("search") or None


def projects_control_rules():
    """The /_simulator rules (endpoint ``x`` served by ``_control_x``)."""
    return [
        Rule(CONTROL_PREFIX + "/projects", methods=["POST"], endpoint="create_project"),
        Rule(CONTROL_PREFIX + "/projects/bulk", methods=["POST"], endpoint="create_projects"),
        Rule(CONTROL_PROJECT + "/store_passwords", methods=["POST"], endpoint="set_store_passwords"),
    ]


class ProjectsRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload); /api/v2's for the authenticated key."""

    def _api_list_projects(self, request, key):
        args = request.args
        limit, cursor, search = _projects_page(args)
        org_id = args.get("org_id") or None
        if org_id is not None:
            org_id_of(org_id)
        if flag(args, "recoverable"):  # the deleted ones still in their recovery window (recoverable.py)
            projects, cursor = self.state.recoverable.list_projects(key, limit, cursor, search, org_id)
            return 200, paginated({"projects": projects, "applications": {}, "integrations": {}}, cursor)
        projects, cursor, unavailable = self.state.projects.list_projects(limit, cursor, search, org_id, key)
        return 200, paginated({
            "projects": projects,
            "applications": {},
            "integrations": {},
            "unavailable_project_ids": unavailable,
        }, cursor)

    def _api_list_shared_projects(self, request, key):
        limit, cursor, search = _projects_page(request.args)
        projects, cursor, unavailable = self.state.projects.list_shared_projects(key, limit, cursor, search)
        return 200, paginated({"projects": projects, "unavailable_project_ids": unavailable}, cursor)

    def _api_create_project(self, request, key):
        return 201, self.state.projects.api_create_project(key, json_body(request))

    def _api_get_project(self, request, key, project_id):
        del request
        return 200, self.state.projects.api_get_project(key, project_id)

    def _api_update_project(self, request, key, project_id):
        return 200, self.state.projects.api_update_project(key, project_id, json_body(request))

    def _api_delete_project(self, request, key, project_id):
        del request
        return 200, self.state.projects.api_delete_project(key, project_id)

    def _control_create_project(self, request):
        return 201, self.state.projects.create_project(json_body(request, required=False))

    def _control_create_projects(self, request):
        return 201, self.state.projects.create_projects(json_body(request))

    def _control_set_store_passwords(self, request, project_id):
        body = json_body(request)
        return 200, {"project": self.state.projects.set_store_passwords(project_id, body.get("store_passwords"))}
