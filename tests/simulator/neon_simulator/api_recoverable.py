# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The routes of deleted things recovered (recoverable.py): ``POST /projects/{id}/recover``,
``POST /projects/{id}/branches/{branch_id}/recover``, and the control route that deletes a branch as its TTL does.
The listings' ``recoverable=true`` (api_projects.py) and ``include_deleted=true`` (provisioning.py) read the same
area."""

from __future__ import annotations

from werkzeug.routing import Rule

from .web import API_PREFIX, CONTROL_PREFIX


def recoverable_rules():
    """The /api/v2 rules (endpoint ``x`` served by ``_api_x``)."""
    return [
        Rule(API_PREFIX + "/projects/<project_id>/recover", methods=["POST"], endpoint="recover_project"),
        Rule(API_PREFIX + "/projects/<project_id>/branches/<branch_id>/recover", methods=["POST"],
             endpoint="recover_branch"),
    ]


def recoverable_control_rules():
    """The /_simulator rules (endpoint ``x`` served by ``_control_x``)."""
    return [
        Rule(CONTROL_PREFIX + "/projects/<project_id>/branches/<branch_id>/expire", methods=["POST"],
             endpoint="expire_branch"),
    ]


class RecoverableRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload)."""

    def _api_recover_project(self, request, key, project_id):
        del request
        return 200, self.state.recoverable.api_recover_project(key, project_id)

    def _api_recover_branch(self, request, key, project_id, branch_id):
        del request
        return 200, self.state.recoverable.api_recover_branch(key, project_id, branch_id)

    def _control_expire_branch(self, request, project_id, branch_id):
        del request
        return 200, self.state.recoverable.expire_branch(project_id, branch_id)
