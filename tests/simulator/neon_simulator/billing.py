# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""An organization's monthly spending limit: ``/organizations/{org_id}/billing/spending_limit`` (beta in the vendor's
OpenAPI document of 2026-06: getOrganizationSpendingLimit, setOrganizationSpendingLimit,
deleteOrganizationSpendingLimit).

What the document says: GET answers ``{"spending_limit_cents": <int64 or null>}`` (null: no limit set), to the
organization's members with read access; PUT ``{"spending_limit_cents": n}`` (n at least 1: ``0`` and ``null`` are
refused; removing is a DELETE) answers the limit as set; DELETE answers the EmptyResponse ``{}``, also when no limit
was set (idempotent). PUT and DELETE are for the organization's admins. All three on the Launch and Scale plans only.
The limit is alert-only: e-mails at 80 % and 100 %, computes never suspended (nothing the simulator shows).

CHOICES (the document gives every refusal only as ``default``, GeneralError):

- Another plan (free, business, agent, enterprise, ...): **403** with the words below, naming the plan, once the key
  is known to be a member (a non-member learns nothing of the organization's plan).
- A key that may not reach the organization: as every organization route (access.organization_role): 403 for a
  project-scoped key, another organization's key, or a user who is no member (also of an organization that does
  not exist).
- PUT and DELETE by a member who is not an admin: **403** ``only organization admins can ...``; an organization API
  key acts as an admin of its organization.
- A PUT body without an integer of at least 1 (0, null, a string, a boolean, a fraction, more than int64): **400**.
"""

from __future__ import annotations

from . import access
from .errors import Forbidden, InvalidRequest

PLANS = ("launch", "scale")  # the document: "on Launch and Scale plans only"
INT64_MAX = 2 ** 63 - 1
MESSAGE_PLAN = ("spending limits are available on the Launch and Scale plans only (organization %s is on the %s "
                "plan)")
MESSAGE_ADMIN = "only organization admins can %s the spending limit"
MESSAGE_CENTS = ("spending_limit_cents: must be a positive integer (cents); to remove the limit, send a DELETE "
                 "request")


def cents_of(body):
    """The PUT body's ``spending_limit_cents``, or InvalidRequest."""
    value = body.get("spending_limit_cents")
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= INT64_MAX:
        raise InvalidRequest(MESSAGE_CENTS)
    return value


class Billing:
    """The billing area of State (see the module's text): each organization's spending limit in cents."""

    def __init__(self, shared):
        self.shared = shared
        self.limits = {}  # org id -> cents

    def reset(self):
        self.limits = {}

    def _organization(self, key, org_id, change=None):
        """The organization, once the key may read (``change`` None) or set and remove its limit, on a plan with one."""
        role = access.organization_role(self.shared, key, org_id)
        org = self.shared.organizations[org_id]
        if org.plan not in PLANS:
            raise Forbidden(MESSAGE_PLAN % (org_id, org.plan))
        if change is not None and role != "admin":
            raise Forbidden(MESSAGE_ADMIN % change)
        return org

    def api_get_spending_limit(self, key, org_id):
        """GET: ``{"spending_limit_cents": n or None}``."""
        with self.shared.lock:
            org = self._organization(key, org_id)
            return {"spending_limit_cents": self.limits.get(org.id)}

    def api_set_spending_limit(self, key, org_id, body):
        """PUT: the limit set, answered as GET answers it."""
        cents = cents_of(body)
        with self.shared.lock:
            org = self._organization(key, org_id, "set")
            self.limits[org.id] = cents
            return {"spending_limit_cents": cents}

    def api_delete_spending_limit(self, key, org_id):
        """DELETE: the limit removed (none set is no refusal); the EmptyResponse ``{}``."""
        with self.shared.lock:
            org = self._organization(key, org_id, "remove")
            self.limits.pop(org.id, None)
            return {}
