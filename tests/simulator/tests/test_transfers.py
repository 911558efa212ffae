# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests: projects moved between organizations (POST /organizations/{id}/projects/transfer) and the
request-and-accept transfer of one project (transfers.py): who may, what moves, what is refused and how."""

from __future__ import annotations

import re

import requests

API_KEY = "sim-selftest-key-transfers"
ORG = "org-calm-tree-21298941"  # seeded, scale; the bootstrap user is its admin
ORG_PROJECT = "bold-glade-61830452"
DEMO = "shiny-river-12345678"  # a personal project of the bootstrap user
UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def call(sim, method, path, key=API_KEY, **kwargs):
    return requests.request(method, sim.url + path, headers={"Authorization": "Bearer " + key}, timeout=10, **kwargs)


def answer(response, status=200):
    assert response.status_code == status, response.text
    return response.json() if response.content else None


def refused(response, status, words):
    body = answer(response, status)
    assert words in body["message"], body
    return body


def org_of(sim, project_id, key=API_KEY):
    return answer(call(sim, "GET", "/projects/%s" % project_id, key))["project"].get("org_id")


def destination(sim, plan="scale", admins=("bootstrap",), members=(), projects=0):
    return sim.create_organization(name="destination", plan=plan, admins=list(admins), members=list(members),
                                   projects=projects)["id"]


def transfer(sim, project_ids, to, source=ORG, key=API_KEY):
    return call(sim, "POST", "/organizations/%s/projects/transfer" % source, key,
                json={"destination_org_id": to, "project_ids": project_ids})


def test_projects_move_to_the_destination_organization_and_the_answer_is_empty(sim):
    to = destination(sim)
    made = [sim.create_project(name="move-%d" % n, org_id=ORG)["id"] for n in range(3)]
    assert answer(transfer(sim, made + [made[0]], to)) == {}
    assert [org_of(sim, pid) for pid in made] == [to] * 3
    listed = answer(call(sim, "GET", "/projects?org_id=%s&limit=400" % to))["projects"]
    assert sorted(item["id"] for item in listed) == sorted(made)


def test_the_request_is_all_or_nothing(sim):
    to = destination(sim, projects=[{"name": "there", "id": "there-already-1"}])
    mine = sim.create_project(name="mine", org_id=ORG)["id"]
    refused(transfer(sim, [mine, "there-already-1"], to), 409, "project there-already-1 is already in organization")
    refused(transfer(sim, [mine, DEMO], to), 404, "project %s not found in organization %s" % (DEMO, ORG))
    refused(transfer(sim, [mine, "no-such-project-1"], to), 404, "no-such-project-1")
    assert org_of(sim, mine) == ORG  # nothing moved


def test_more_than_400_ids_and_malformed_bodies_are_refused_before_anything_moves(sim):
    to = destination(sim)
    ids = [ORG_PROJECT] + ["p-%d" % n for n in range(400)]
    refused(transfer(sim, ids, to), 400, "a maximum of 400 a request")
    refused(transfer(sim, [], to), 400, "project_ids")
    refused(transfer(sim, ["Not Valid"], to), 400, "project_ids[0]")
    refused(call(sim, "POST", "/organizations/%s/projects/transfer" % ORG, json={"project_ids": [ORG_PROJECT]}), 400,
            "destination_org_id")
    refused(transfer(sim, [ORG_PROJECT], ORG), 400, "the destination is the source")
    assert org_of(sim, ORG_PROJECT) == ORG


def test_which_keys_may_move_projects(sim):
    member = sim.create_user(name="Mo", email="mo@example.com")
    member_key = sim.create_key("personal", user_id=member["id"], name="mo")["key"]
    sim.add_member(ORG, member["id"], "member")
    to = destination(sim, members=[member["id"]])
    stranger_org = destination(sim, admins=[member["id"]])
    org_key = sim.create_key("organization", org_id=ORG, name="org")["key"]
    project_key = sim.create_key("project", project_id=ORG_PROJECT, name="proj")["key"]
    refused(transfer(sim, [ORG_PROJECT], to, key=org_key), 403, "personal API key")
    refused(transfer(sim, [ORG_PROJECT], to, key=project_key), 403, "personal API key")
    refused(transfer(sim, [ORG_PROJECT], to, key=member_key), 403, "only an admin of organization %s" % ORG)
    refused(transfer(sim, [ORG_PROJECT], stranger_org), 403, "not a member of organization %s" % stranger_org)
    assert answer(transfer(sim, [ORG_PROJECT], to)) == {}
    # the project-scoped key of the organization the project left stops working
    assert call(sim, "GET", "/projects/%s" % ORG_PROJECT, project_key).status_code == 401


def test_a_destination_on_a_lower_plan_is_406_with_the_limit_not_met(sim):
    to = destination(sim, plan="launch")
    body = answer(transfer(sim, [ORG_PROJECT], to), 406)
    assert body["limits"] == [{"name": "subscription_type", "expected": "scale", "actual": "launch"}]
    assert org_of(sim, ORG_PROJECT) == ORG


def test_a_transfer_request_accepted_with_the_destination_key_moves_one_project(sim):
    to = destination(sim)
    org_key = sim.create_key("organization", org_id=to, name="dest")["key"]
    made = answer(call(sim, "POST", "/projects/%s/transfer_requests" % DEMO, json={"ttl_seconds": 600}), 201)
    assert set(made) == {"id", "project_id", "created_at", "expires_at"} and UUID_RE.match(made["id"])
    assert made["project_id"] == DEMO and made["expires_at"] > made["created_at"]
    assert call(sim, "GET", "/projects/%s" % DEMO, org_key).status_code == 404  # not its project yet
    accepted = call(sim, "PUT", "/projects/%s/transfer_requests/%s" % (DEMO, made["id"]), org_key, json={"org_id": to})
    assert accepted.status_code == 204 and accepted.content == b""
    assert org_of(sim, DEMO, org_key) == to
    # spent: a second accept is 404; a new request into where it is now is 409
    refused(call(sim, "PUT", "/projects/%s/transfer_requests/%s" % (DEMO, made["id"]), org_key, json={}), 404,
            "transfer request not found")
    again = answer(call(sim, "POST", "/projects/%s/transfer_requests" % DEMO, org_key), 201)
    refused(call(sim, "PUT", "/projects/%s/transfer_requests/%s" % (DEMO, again["id"]), org_key), 409,
            "already belongs")


def test_a_transfer_request_expires_and_only_a_manager_may_make_one(sim):
    to = destination(sim)
    made = answer(call(sim, "POST", "/projects/%s/transfer_requests" % ORG_PROJECT, json={"ttl_seconds": 60}), 201)
    sim.advance_clock(61)
    refused(call(sim, "PUT", "/projects/%s/transfer_requests/%s" % (ORG_PROJECT, made["id"]), json={"org_id": to}),
            404, "expired")
    project_key = sim.create_key("project", project_id=ORG_PROJECT, name="proj")["key"]
    refused(call(sim, "POST", "/projects/%s/transfer_requests" % ORG_PROJECT, project_key), 403, "project-scoped")
    member = sim.create_user(name="Mia", email="mia@example.com")
    sim.add_member(ORG, member["id"], "member")
    member_key = sim.create_key("personal", user_id=member["id"], name="mia")["key"]
    refused(call(sim, "POST", "/projects/%s/transfer_requests" % ORG_PROJECT, member_key), 403, "owner or an admin")
    refused(call(sim, "POST", "/projects/%s/transfer_requests" % ORG_PROJECT, json={"ttl_seconds": 0}), 400,
            "ttl_seconds")
    assert org_of(sim, ORG_PROJECT) == ORG


def test_accepting_into_an_organization_the_key_is_not_in_or_on_a_lower_plan_is_refused(sim):
    lower = destination(sim, plan="launch")
    made = answer(call(sim, "POST", "/projects/%s/transfer_requests" % ORG_PROJECT), 201)
    path = "/projects/%s/transfer_requests/%s" % (ORG_PROJECT, made["id"])
    body = answer(call(sim, "PUT", path, json={"org_id": lower}), 406)
    assert body["reasons"][0]["code"] == "subscription_type"
    other = sim.create_user(name="Oz", email="oz@example.com")
    other_key = sim.create_key("personal", user_id=other["id"], name="oz")["key"]
    refused(call(sim, "PUT", path, other_key, json={"org_id": lower}), 403, "not a member")
    assert org_of(sim, ORG_PROJECT) == ORG
    # without org_id: into the accepting user's personal projects
    assert call(sim, "PUT", path, other_key, json={}).status_code == 204
    assert org_of(sim, ORG_PROJECT, other_key) is None
