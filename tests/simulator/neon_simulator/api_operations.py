# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The operations' routes of /api/v2 (``/projects/{project_id}/operations``, list and get): HTTP in, State's methods
(operations.py) out."""

from __future__ import annotations

from werkzeug.routing import Rule

from .clock import iso_micro, parse_timestamp
from .errors import InvalidRequest
from .web import API_PREFIX, CONTROL_PREFIX, int_arg, json_body, paginated

OPERATIONS_LIMIT = (1, 1000, 10)
CONTROL_PROJECT = CONTROL_PREFIX + "/projects/<project_id>"


def operations_rules():
    return [
        Rule(API_PREFIX + "/projects/<project_id>/operations", methods=["GET"], endpoint="list_operations"),
        Rule(API_PREFIX + "/projects/<project_id>/operations/<operation_id>", methods=["GET"],
             endpoint="get_operation"),
    ]


def operations_control_rules():
    """The /_simulator rules (endpoint ``x`` served by ``_control_x``)."""
    return [
        Rule(CONTROL_PROJECT + "/operations", methods=["POST"], endpoint="start_operations"),
        Rule(CONTROL_PROJECT + "/operations/release", methods=["POST"], endpoint="release_operations"),
        Rule(CONTROL_PROJECT + "/operations/<operation_id>/release", methods=["POST"], endpoint="release_operation"),
        Rule(CONTROL_PROJECT + "/history", methods=["POST"], endpoint="add_history"),
    ]


class OperationsRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload); /api/v2's for the authenticated key."""

    def _api_list_operations(self, request, key, project_id):
        args = request.args
        limit = int_arg(args, "limit", OPERATIONS_LIMIT)
        cursor_text = args.get("cursor") or None
        cursor_us = None
        if cursor_text is not None:
            try:
                cursor_us = parse_timestamp(cursor_text)
            except ValueError:
                raise InvalidRequest("cursor: invalid value %r, expected a timestamp like %s"
                                     % (cursor_text, iso_micro(self.state.shared.now_us()))) from None
        operations, cursor = self.state.operations.list_operations(project_id, limit, cursor_us, cursor_text, key)
        return 200, paginated({"operations": operations}, cursor)

    def _api_get_operation(self, request, key, project_id, operation_id):
        del request
        return 200, {"operation": self.state.operations.get_operation(project_id, operation_id, key)}

    def _control_start_operations(self, request, project_id):
        body = json_body(request, required=False)
        specs = body["operations"] if "operations" in body else [body]
        return 201, {"operations": self.state.operations.start_operations(project_id, specs)}

    def _control_release_operations(self, request, project_id):
        body = json_body(request, required=False)
        return 200, {"operations": self.state.operations.release_operations(project_id, None, body)}

    def _control_release_operation(self, request, project_id, operation_id):
        body = json_body(request, required=False)
        return 200, {"operation": self.state.operations.release_operations(project_id, operation_id, body)[0]}

    def _control_add_history(self, request, project_id):
        body = json_body(request)
        return 201, self.state.operations.add_history(project_id, body.get("count"), body.get("days", 30.0), body.get("seed"))
