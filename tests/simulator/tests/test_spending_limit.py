# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""An organization's spending limit (billing.py, api_billing.py): GET, PUT and DELETE
/organizations/{org_id}/billing/spending_limit as the vendor's 2026-06 document has them, and who may use them."""

from __future__ import annotations

import requests

API_KEY = "sim-selftest-key-spending"
ORG = "org-calm-tree-21298941"  # seeded, Scale plan: the bootstrap user its admin, riley a member
PATH = "/organizations/%s/billing/spending_limit"


def call(sim, method, org_id=ORG, key=API_KEY, **kwargs):
    return requests.request(method, sim.url + PATH % org_id, headers={"Authorization": "Bearer " + key},
                            timeout=10, **kwargs)


def refused(response, status, words):
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) >= {"code", "message", "request_id"} and words in body["message"], body
    return body


def user_id(sim, email):
    return next(user["id"] for user in sim.users() if user["email"] == email)


def test_none_then_set_then_removed_and_removed_again(sim):
    assert call(sim, "GET").json() == {"spending_limit_cents": None}
    answer = call(sim, "PUT", json={"spending_limit_cents": 50000})
    assert (answer.status_code, answer.json()) == (200, {"spending_limit_cents": 50000})
    assert call(sim, "GET").json() == {"spending_limit_cents": 50000}
    assert call(sim, "PUT", json={"spending_limit_cents": 1}).json() == {"spending_limit_cents": 1}
    removed = call(sim, "DELETE")
    assert (removed.status_code, removed.json()) == (200, {})  # the document's EmptyResponse
    assert removed.headers["Content-Type"].startswith("application/json")
    assert call(sim, "GET").json() == {"spending_limit_cents": None}
    again = call(sim, "DELETE")  # idempotent: removing an unset limit succeeds
    assert (again.status_code, again.json()) == (200, {})
    call(sim, "PUT", json={"spending_limit_cents": 700})
    sim.reset()
    assert call(sim, "GET").json() == {"spending_limit_cents": None}


def test_a_limit_that_is_not_a_positive_integer_is_refused(sim):
    for value in (0, None, -5, "500", 12.5, True, 2 ** 63):
        refused(call(sim, "PUT", json={"spending_limit_cents": value}), 400, "positive integer")
    refused(call(sim, "PUT", json={}), 400, "spending_limit_cents")
    refused(call(sim, "PUT"), 400, "request body")
    assert call(sim, "GET").json() == {"spending_limit_cents": None}


def test_a_plan_without_spending_limits_is_refused_and_launch_has_them(sim):
    free = sim.create_organization(name="Hobby", plan="free")["id"]
    for method, body in (("GET", None), ("PUT", {"spending_limit_cents": 100}), ("DELETE", None)):
        words = "Launch and Scale plans only (organization %s is on the free plan)" % free
        refused(call(sim, method, free, json=body), 403, words)
    launch = sim.create_organization(name="Startup", plan="launch")["id"]
    assert call(sim, "PUT", launch, json={"spending_limit_cents": 2500}).json() == {"spending_limit_cents": 2500}
    assert call(sim, "GET", ORG).json() == {"spending_limit_cents": None}  # each organization its own


def test_a_member_reads_it_and_only_an_admin_sets_or_removes_it(sim):
    call(sim, "PUT", json={"spending_limit_cents": 900})
    member = sim.create_key("personal", user_id=user_id(sim, "riley@example.com"))["key"]
    assert call(sim, "GET", key=member).json() == {"spending_limit_cents": 900}
    refused(call(sim, "PUT", key=member, json={"spending_limit_cents": 100}), 403, "only organization admins can set")
    refused(call(sim, "DELETE", key=member), 403, "only organization admins can remove")
    assert call(sim, "GET").json() == {"spending_limit_cents": 900}
    org_key = sim.create_key("organization", org_id=ORG)["key"]  # an organization key acts as an admin
    assert call(sim, "PUT", key=org_key, json={"spending_limit_cents": 300}).json() == {"spending_limit_cents": 300}


def test_keys_that_cannot_reach_the_organization_are_refused(sim):
    scoped = sim.create_key("project", project_id="bold-glade-61830452")["key"]
    refused(call(sim, "GET", key=scoped), 403, "project-scoped")
    outsider = sim.create_key("personal", user_id=user_id(sim, "alex@example.com"))["key"]
    refused(call(sim, "GET", key=outsider), 403, "not a member")
    refused(call(sim, "GET", "org-no-such-1"), 403, "not a member")
    refused(call(sim, "GET", "Not_An_Id"), 400, "org_id")
