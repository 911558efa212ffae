# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The billing routes of /api/v2 (an organization's spending limit, ``/organizations/{org_id}/billing/spending_limit``):
HTTP in, State's methods (billing.py) out."""

from __future__ import annotations

from werkzeug.routing import Rule

from .api_organizations import ORGANIZATION, org_id_of
from .web import json_body

SPENDING_LIMIT = ORGANIZATION + "/billing/spending_limit"


def billing_rules():
    return [
        Rule(SPENDING_LIMIT, methods=["GET"], endpoint="get_spending_limit"),
        Rule(SPENDING_LIMIT, methods=["PUT"], endpoint="set_spending_limit"),
        Rule(SPENDING_LIMIT, methods=["DELETE"], endpoint="delete_spending_limit"),
    ]


class BillingRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload) for the authenticated key."""

    def _api_get_spending_limit(self, request, key, org_id):
        del request
        return 200, self.state.billing.api_get_spending_limit(key, org_id_of(org_id))

    def _api_set_spending_limit(self, request, key, org_id):
        return 200, self.state.billing.api_set_spending_limit(key, org_id_of(org_id), json_body(request))

    def _api_delete_spending_limit(self, request, key, org_id):
        del request
        return 200, self.state.billing.api_delete_spending_limit(key, org_id_of(org_id))
