# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The routes of projects moved between accounts (transfers.py): ``POST
/organizations/{source_org_id}/projects/transfer``, ``POST /projects/{project_id}/transfer_requests`` and ``PUT
/projects/{project_id}/transfer_requests/{request_id}``: HTTP in, State's methods out."""

from __future__ import annotations

from werkzeug.routing import Rule

from .errors import InvalidRequest
from .ids import ID_RE
from .web import API_PREFIX, json_body


def _path_id(name, value):
    if not ID_RE.match(value):
        raise InvalidRequest("%s: must match ^[a-z0-9-]{1,60}$, got %r" % (name, value))
    return value


def transfers_rules():
    """The /api/v2 rules (endpoint ``x`` served by ``_api_x``)."""
    return [
        Rule(API_PREFIX + "/organizations/<source_org_id>/projects/transfer", methods=["POST"],
             endpoint="transfer_projects"),
        Rule(API_PREFIX + "/projects/<project_id>/transfer_requests", methods=["POST"],
             endpoint="create_transfer_request"),
        Rule(API_PREFIX + "/projects/<project_id>/transfer_requests/<request_id>", methods=["PUT"],
             endpoint="accept_transfer_request"),
    ]


class TransfersRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload)."""

    def _api_transfer_projects(self, request, key, source_org_id):
        source = _path_id("source_org_id", source_org_id)
        return self.state.transfers.api_transfer_projects(key, source, json_body(request))

    def _api_create_transfer_request(self, request, key, project_id):
        return 201, self.state.transfers.api_create_request(key, project_id, json_body(request, required=False))

    def _api_accept_transfer_request(self, request, key, project_id, request_id):
        request_id = _path_id("request_id", request_id)
        return self.state.transfers.api_accept_request(key, project_id, request_id, json_body(request, required=False))
