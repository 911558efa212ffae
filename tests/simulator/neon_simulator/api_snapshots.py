# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The snapshots routes: /api/v2 (snapshots (create, list, rename, delete, restore, finalize) and a branch's
backup schedule) and their control API, HTTP in, State's ``api_*`` methods (snapshots.py) out. """

from __future__ import annotations

from werkzeug.routing import Rule

from .web import API_PREFIX, CONTROL_PREFIX, json_body

PROJECT = API_PREFIX + "/projects/<project_id>"
BRANCH = PROJECT + "/branches/<branch_id>"
SNAPSHOT = PROJECT + "/snapshots/<snapshot_id>"
# the query parameters a create reads (a JSON body is ignored, notes section 6)
CREATE_PARAMETERS = ("name", "timestamp", "lsn", "expires_at")


def snapshots_rules():
    """The /api/v2 rules (werkzeug Rule, endpoint ``x`` served by ``_api_x``)."""
    return [
        Rule(BRANCH + "/snapshot", methods=["POST"], endpoint="create_snapshot"),
        Rule(PROJECT + "/snapshots", methods=["GET"], endpoint="list_snapshots"),
        Rule(SNAPSHOT, methods=["PATCH"], endpoint="update_snapshot"),
        Rule(SNAPSHOT, methods=["DELETE"], endpoint="delete_snapshot"),
        Rule(SNAPSHOT + "/restore", methods=["POST"], endpoint="restore_snapshot"),
        Rule(BRANCH + "/finalize_restore", methods=["POST"], endpoint="finalize_restore"),
        Rule(BRANCH + "/backup_schedule", methods=["GET"], endpoint="get_backup_schedule"),
        Rule(BRANCH + "/backup_schedule", methods=["PUT"], endpoint="set_backup_schedule"),
    ]


def snapshots_control_rules():
    """The /_simulator rules (endpoint ``x`` served by ``_control_x``)."""
    return [
        Rule(CONTROL_PREFIX + "/projects/<project_id>/branches/<branch_id>/scheduled_snapshot", methods=["POST"],
             endpoint="take_scheduled_snapshot"),
    ]


class SnapshotsRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload)."""

    def _api_create_snapshot(self, request, key, project_id, branch_id):
        args = {name: request.args.get(name) for name in CREATE_PARAMETERS}
        return 200, self.state.snapshots.api_create_snapshot(key, project_id, branch_id, args)

    def _api_list_snapshots(self, request, key, project_id):
        del request
        return 200, self.state.snapshots.api_list_snapshots(key, project_id)

    def _api_update_snapshot(self, request, key, project_id, snapshot_id):
        return 200, self.state.snapshots.api_update_snapshot(key, project_id, snapshot_id, json_body(request))

    def _api_delete_snapshot(self, request, key, project_id, snapshot_id):
        del request
        return 202, self.state.snapshots.api_delete_snapshot(key, project_id, snapshot_id)

    def _api_restore_snapshot(self, request, key, project_id, snapshot_id):
        return 200, self.state.snapshots.api_restore_snapshot(key, project_id, snapshot_id, json_body(request, required=False),
                                                              request.args.get("name") or None)

    def _api_finalize_restore(self, request, key, project_id, branch_id):
        return 200, self.state.snapshots.api_finalize_restore(key, project_id, branch_id, json_body(request, required=False))

    def _api_get_backup_schedule(self, request, key, project_id, branch_id):
        del request
        return 200, self.state.snapshots.api_get_backup_schedule(key, project_id, branch_id)

    def _api_set_backup_schedule(self, request, key, project_id, branch_id):
        return 200, self.state.snapshots.api_set_backup_schedule(key, project_id, branch_id, json_body(request))

    def _control_take_scheduled_snapshot(self, request, project_id, branch_id):
        return 200, self.state.snapshots.take_scheduled_snapshot(project_id, branch_id, json_body(request, required=False))
