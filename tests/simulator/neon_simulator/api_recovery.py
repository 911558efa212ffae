# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The recovery routes: /api/v2 (branch restore to a point, set as default, schema and compare_schema, over each
branch's history and data stand-in (history.py)) and their control API, HTTP in, State's ``api_*`` methods
(recovery.py) out.
"""

from __future__ import annotations

from werkzeug.routing import Rule

from .web import API_PREFIX, CONTROL_PREFIX, json_body

BRANCH = API_PREFIX + "/projects/<project_id>/branches/<branch_id>"
BRANCH_CONTROL = CONTROL_PREFIX + "/projects/<project_id>/branches/<branch_id>"


def recovery_rules():
    """The /api/v2 rules (werkzeug Rule, endpoint ``x`` served by ``_api_x``)."""
    return [
        Rule(BRANCH + "/restore", methods=["POST"], endpoint="restore_branch"),
        Rule(BRANCH + "/set_as_default", methods=["POST"], endpoint="set_default_branch"),
        Rule(BRANCH + "/schema", methods=["GET"], endpoint="branch_schema"),
        Rule(BRANCH + "/compare_schema", methods=["GET"], endpoint="compare_schema"),
    ]


def recovery_control_rules():
    """The /_simulator rules (endpoint ``x`` served by ``_control_x``)."""
    return [
        Rule(BRANCH_CONTROL + "/data", methods=["GET"], endpoint="read_branch_data"),
        Rule(BRANCH_CONTROL + "/data", methods=["POST"], endpoint="write_branch_data"),
    ]


class RecoveryRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload)."""

    def _api_restore_branch(self, request, key, project_id, branch_id):
        return 200, self.state.recovery.api_restore_branch(key, project_id, branch_id, json_body(request))

    def _api_set_default_branch(self, request, key, project_id, branch_id):
        del request
        return 200, self.state.recovery.api_set_default_branch(key, project_id, branch_id)

    def _api_branch_schema(self, request, key, project_id, branch_id):
        return 200, self.state.recovery.api_branch_schema(key, project_id, branch_id, request.args)

    def _api_compare_schema(self, request, key, project_id, branch_id):
        return 200, self.state.recovery.api_compare_schema(key, project_id, branch_id, request.args)

    def _control_read_branch_data(self, request, project_id, branch_id):
        return 200, self.state.recovery.read_branch_data(project_id, branch_id, request.args.get("timestamp"),
                                                         request.args.get("lsn"))

    def _control_write_branch_data(self, request, project_id, branch_id):
        return 200, self.state.recovery.write_branch_data(project_id, branch_id, json_body(request))
