# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The advisors' routes: ``GET /api/v2/projects/{project_id}/advisors`` and its control route
``POST /_simulator/projects/{project_id}/advisors``: HTTP in, State's methods (advisors.py) out."""

from __future__ import annotations

from werkzeug.routing import Rule

from .web import API_PREFIX, CONTROL_PREFIX, json_body


def advisors_rules():
    return [Rule(API_PREFIX + "/projects/<project_id>/advisors", methods=["GET"], endpoint="list_advisor_issues")]


def advisors_control_rules():
    return [Rule(CONTROL_PREFIX + "/projects/<project_id>/advisors", methods=["POST"], endpoint="set_advisor_issues")]


class AdvisorsRoutes:
    """The handlers, mixed into SimulatorApp."""

    def _api_list_advisor_issues(self, request, key, project_id):
        args = request.args
        return 200, self.state.advisors.api_list_issues(key, project_id, branch_id=args.get("branch_id"),
                                                        category=args.get("category"),
                                                        min_severity=args.get("min_severity"))

    def _control_set_advisor_issues(self, request, project_id):
        return 200, self.state.advisors.set_issues(project_id, json_body(request).get("issues"))
