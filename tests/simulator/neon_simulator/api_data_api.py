# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Data API and JWKS routes, HTTP in, State's ``api_*`` methods (data_api.py) out. Statuses as the June 2026
document gives them: a Data API's create 201 ``{url}``, its update 201 and delete 200 with an empty object; a
JWKS URL's add 201 with its operations, its delete 200 with the JWKS removed."""

from __future__ import annotations

from werkzeug.routing import Rule

from .web import API_PREFIX, json_body

PROJECT = API_PREFIX + "/projects/<project_id>"
DATA_API = PROJECT + "/branches/<branch_id>/data-api/<database>"


def data_api_rules():
    """The /api/v2 rules (werkzeug Rule, endpoint ``x`` served by ``_api_x``)."""
    return [
        Rule(DATA_API, methods=["POST"], endpoint="create_data_api"),
        Rule(DATA_API, methods=["GET"], endpoint="get_data_api"),
        Rule(DATA_API, methods=["PATCH"], endpoint="update_data_api"),
        Rule(DATA_API, methods=["DELETE"], endpoint="delete_data_api"),
        Rule(PROJECT + "/jwks", methods=["GET"], endpoint="list_jwks"),
        Rule(PROJECT + "/jwks", methods=["POST"], endpoint="add_jwks"),
        Rule(PROJECT + "/jwks/<jwks_id>", methods=["DELETE"], endpoint="delete_jwks"),
    ]


class DataApiRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload)."""

    def _api_create_data_api(self, request, key, project_id, branch_id, database):
        return 201, self.state.data_api.api_create(key, project_id, branch_id, database,
                                                   json_body(request, required=False))

    def _api_get_data_api(self, request, key, project_id, branch_id, database):
        del request
        return 200, self.state.data_api.api_get(key, project_id, branch_id, database)

    def _api_update_data_api(self, request, key, project_id, branch_id, database):
        return 201, self.state.data_api.api_update(key, project_id, branch_id, database,
                                                   json_body(request, required=False))

    def _api_delete_data_api(self, request, key, project_id, branch_id, database):
        del request
        return 200, self.state.data_api.api_delete(key, project_id, branch_id, database)

    def _api_list_jwks(self, request, key, project_id):
        del request
        return 200, self.state.data_api.api_list_jwks(key, project_id)

    def _api_add_jwks(self, request, key, project_id):
        return 201, self.state.data_api.api_add_jwks(key, project_id, json_body(request))

    def _api_delete_jwks(self, request, key, project_id, jwks_id):
        del request
        return 200, self.state.data_api.api_delete_jwks(key, project_id, jwks_id)
