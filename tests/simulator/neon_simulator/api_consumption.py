# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The consumption routes: /api/v2 (consumption history per project and per branch (v2), and the older account and
per project ones, paged and rate limited) and
their control API, HTTP in, State's ``api_*`` methods (consumption.py) out. """

from __future__ import annotations

from werkzeug.routing import Rule

from .consumption import ACCOUNT_METRICS, BRANCHES_LIMIT, PROJECT_METRICS, PROJECTS_LIMIT, Query, QueryV2
from .web import API_PREFIX, CONTROL_PREFIX, int_arg, json_body


def consumption_rules():
    """The /api/v2 rules (werkzeug Rule, endpoint ``x`` served by ``_api_x``)."""
    return [
        Rule(API_PREFIX + "/consumption_history/account", methods=["GET"], endpoint="consumption_account"),
        Rule(API_PREFIX + "/consumption_history/projects", methods=["GET"], endpoint="consumption_projects"),
        Rule(API_PREFIX + "/consumption_history/v2/projects", methods=["GET"], endpoint="consumption_projects_v2"),
        Rule(API_PREFIX + "/consumption_history/v2/branches", methods=["GET"], endpoint="consumption_branches_v2"),
    ]


def consumption_control_rules():
    """The /_simulator rules (endpoint ``x`` served by ``_control_x``)."""
    return [
        Rule(CONTROL_PREFIX + "/consumption_rate_limit", methods=["GET"], endpoint="get_consumption_rate_limit"),
        Rule(CONTROL_PREFIX + "/consumption_rate_limit", methods=["POST"], endpoint="set_consumption_rate_limit"),
    ]


class ConsumptionRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload). Their refusals (406 outside a
    granularity's reach, 429 past the rate limit, ...) are errors.py's, answered as every refusal is."""

    def _api_consumption_account(self, request, key):
        self.state.consumption.take_consumption_token(key)
        return 200, self.state.consumption.api_consumption_account(key, Query(request.args, ACCOUNT_METRICS))

    def _api_consumption_projects(self, request, key):
        self.state.consumption.take_consumption_token(key)
        limit = int_arg(request.args, "limit", PROJECTS_LIMIT)
        query = Query(request.args, PROJECT_METRICS, per_project=True)
        return 200, self.state.consumption.api_consumption_projects(key, query, limit)

    def _api_consumption_projects_v2(self, request, key):
        self.state.consumption.take_consumption_token(key)
        limit = int_arg(request.args, "limit", PROJECTS_LIMIT)
        return 200, self.state.consumption.api_consumption_projects_v2(key, QueryV2(request.args), limit)

    def _api_consumption_branches_v2(self, request, key):
        self.state.consumption.take_consumption_token(key)
        limit = int_arg(request.args, "limit", BRANCHES_LIMIT)
        return 200, self.state.consumption.api_consumption_branches_v2(key, QueryV2(request.args, per_branch=True), limit)

    def _control_get_consumption_rate_limit(self, request):
        del request
        return 200, dict(self.state.consumption.consumption_limits)

    def _control_set_consumption_rate_limit(self, request):
        return 200, self.state.consumption.set_consumption_limits(json_body(request))
