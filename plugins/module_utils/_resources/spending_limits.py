# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""An organization's monthly spending limit (``neon.cloud.organization_spending_limit``).

``GET /organizations/{org_id}/billing/spending_limit`` answers ``{"spending_limit_cents": n}`` (null: none set);
``PUT`` of it with ``{"spending_limit_cents": n}`` (n at least 1: ``0`` and ``null`` are refused there) sets it and
answers it; ``DELETE`` removes it and answers the document's empty object, also when none was set. The limit is
alert-only (e-mails at 80 % and 100 %, no compute is suspended); it is on the Launch and Scale plans only, read by the
organization's members and set or removed by its admins (docs/docsite/rst/api-behaviour.rst, "An organization's
spending limit").

The rules (``wanted_cents``, ``dollars_to_cents``, ``spending_limit_plan``) are pure and unit-tested;
``OrganizationSpendingLimit`` is a Writer (writer.py). None of its requests starts an operation.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from decimal import Decimal, InvalidOperation

from ansible_collections.neon.cloud.plugins.module_utils._account.identity import get_organization
from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import api_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import Writer

PLANS = ("launch", "scale")  # the plans that have a spending limit (the June 2026 document)
INT64_MAX = 2 ** 63 - 1  # the document's int64
LIMIT_FIELDS = dict(required={"spending_limit_cents": (int, type(None))})
SET, REMOVE, NOTHING = "set", "remove", "nothing"
FORBIDDEN, NOT_FOUND = 403, 404
WHO_READS = ("A spending limit is read with the key of one of the organization's members (a member's personal API key, "
             "or the organization's API key; a project-scoped key cannot reach it), on the Launch or Scale plan")
WHO_CHANGES = ("Setting or removing a spending limit takes an organization admin's personal API key or the "
               "organization's API key: a member who is not an admin may only read it")


# ---------------------------------------------------------------------------------------------- the options (pure)


def dollars_to_cents(value):
    """(cents, None) for an amount of US dollars given as a number or a string such as ``500`` or ``"499.99"``;
    (None, why) when it is not one (more than two decimal places included: a cent is the smallest amount)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None, "spending_limit_dollars must be an amount of US dollars such as 500 or 499.99, got %r" % (value,)
    try:
        amount = Decimal(str(value).strip())
    except InvalidOperation:
        amount = None
    if amount is None or not amount.is_finite():
        return None, "spending_limit_dollars must be an amount of US dollars such as 500 or 499.99, got %r" % (value,)
    cents = amount * 100
    if cents != cents.to_integral_value():
        return None, ("spending_limit_dollars has more than two decimal places (%s): the limit is set in whole cents; "
                      "give at most two, or give spending_limit_cents" % (value,))
    return int(cents), None


def wanted_cents(params):
    """(the limit asked for in cents or None, None) or (None, why the options cannot be used): checked before any
    request."""
    cents, dollars, state = params.get("spending_limit_cents"), params.get("spending_limit_dollars"), params["state"]
    if state == "absent":
        if cents is not None or dollars is not None:
            return None, ("state=absent removes the spending limit: leave out spending_limit_cents and "
                          "spending_limit_dollars")
        return None, None
    if cents is not None and dollars is not None:
        return None, "give the limit once: spending_limit_cents or spending_limit_dollars, not both"
    if cents is None and dollars is None:
        return None, ("state=present needs the limit: spending_limit_cents (such as 50000) or spending_limit_dollars "
                      "(such as 500); state=absent removes it")
    given = "spending_limit_cents"
    if dollars is not None:
        cents, why = dollars_to_cents(dollars)
        if why:
            return None, why
        given = "spending_limit_dollars"
    if cents < 1:
        return None, ("%s must be at least one cent, got %r: the service refuses 0; to remove the limit, use "
                      "state=absent" % (given, dollars if dollars is not None else cents))
    if cents > INT64_MAX:
        return None, "%s is more than the service takes (%d cents at most)" % (given, INT64_MAX)
    return cents, None


def dollars_text(cents):
    """``"500.00"`` for 50000 cents; None for None (no limit)."""
    if cents is None:
        return None
    sign = "-" if cents < 0 else ""
    return "%s%d.%02d" % ((sign,) + divmod(abs(cents), 100))


def shown(cents):
    """What the result and the diff show of a limit (None: none set)."""
    return {"spending_limit_cents": cents, "spending_limit_dollars": dollars_text(cents)}


# ---------------------------------------------------------------------------------------------- the decision (pure)


class SpendingLimitPlan:
    def __init__(self, action, cents):
        self.action = action
        self.cents = cents  # the limit once the plan is carried out (None: none)

    @property
    def changed(self):
        return self.action != NOTHING


def spending_limit_plan(current, wanted, state):
    """SET (to ``wanted``), REMOVE or NOTHING, for the limit ``current`` (cents or None)."""
    if state == "absent":
        return SpendingLimitPlan(REMOVE if current is not None else NOTHING, None)
    return SpendingLimitPlan(SET if current != wanted else NOTHING, wanted)


def limit_of(data, method, path):
    """The limit in cents (None: none) of a SpendingLimitResponse, checked."""
    check = answers.Checker(method, path)
    return check.fields(data, "the answer", **LIMIT_FIELDS)["spending_limit_cents"]


# ---------------------------------------------------------------------------------------------- the writer


class OrganizationSpendingLimit(Writer):
    """The spending limit of organization ``org_id``: ``cents`` (state present) or none (absent)."""

    path_options = ("org_id",)
    starts_operations = False

    def __init__(self, task, org_id, cents, state):
        super(OrganizationSpendingLimit, self).__init__(task)
        self.org_id = org_id
        self.cents = cents
        self.state = state
        self.path = api_path("organizations", org_id, "billing", "spending_limit")

    @classmethod
    def options_problem(cls, options):
        return wanted_cents(options)[1]

    @classmethod
    def from_options(cls, task, options):
        return cls(task, options["org_id"], wanted_cents(options)[0], options["state"])

    def _keep(self, cents):
        self.task.kept.update(shown(cents))

    # ------------------------------------------------------------------------------------------ the steps

    def read(self):
        try:
            data = self.client.get(self.path)
        except NeonAPIError as error:
            if error.status in (FORBIDDEN, NOT_FOUND):
                raise Refusal("Reading the spending limit of organization %s was refused: %s. %s" % (
                    self.org_id, error.describe(), self._why_not_read()), error)
            raise
        current = limit_of(data, "GET", self.path)
        self._keep(current)
        return current

    def _why_not_read(self):
        """Why the service refused the read, as far as the organization's plan tells (read when the key may)."""
        try:
            plan = get_organization(self.client, self.org_id).get("plan")
        except (NeonAPIError, UnexpectedAnswer):
            plan = None
        if plan is not None and plan.lower() not in PLANS:
            return ("Organization %s is on the %s plan: spending limits are available on the Launch and Scale plans "
                    "only" % (self.org_id, plan))
        return WHO_READS

    def decide(self, current):
        return spending_limit_plan(current, self.cents, self.state)

    def diff(self, current, plan):
        return shown(current), shown(plan.cents)

    def as_planned(self, current, plan, after):
        self._keep(plan.cents)
        return after

    def act(self, current, plan):
        if plan.action == SET:
            doing = "Setting the spending limit of organization %s to %s US dollars (%d cents)" % (
                self.org_id, dollars_text(plan.cents), plan.cents)
            data = self._send(doing, "PUT", {"spending_limit_cents": plan.cents})
            self.task.did("the spending limit of organization %s was set to %s US dollars" % (
                self.org_id, dollars_text(plan.cents)))
            try:
                return limit_of(data, "PUT", self.path)
            except UnexpectedAnswer as error:
                raise self.task.failure("the spending limit was set, but its answer cannot be used: %s" %
                                        error.describe(), error)
        # Its success is the document's empty object; an empty body says the same (api-behaviour.rst).
        self._send("Removing the spending limit of organization %s" % self.org_id, "DELETE", None)
        self.task.did("the spending limit of organization %s (%s US dollars) was removed" % (
            self.org_id, dollars_text(current)))
        return None

    def _send(self, doing, method, body):
        """The change's request (no operation to wait for: a 423 is the client's to retry), a refusal explained."""
        try:
            if method == "DELETE":
                return self.task.send("DELETE", self.path, None, no_content=True)
            return self.task.send(method, self.path, None, body)
        except NeonAPIError as error:
            why = ". " + WHO_CHANGES if error.status in (FORBIDDEN, NOT_FOUND) else ""
            raise self.task.failure("%s failed: %s%s" % (doing, error.describe(), why), error)

    def read_again(self, current, done, after):
        if done != self.cents:
            self.task.warnings.append("the service answered a spending limit of %s cents, not %s as sent" % (
                done, self.cents))
        self._keep(done)
        return shown(done)
