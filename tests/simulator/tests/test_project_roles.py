# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests: project members' roles (August 2026, project_roles.py). Not in the June document, so the
conformance test cannot check their shapes: the fields and types of the generated client they come from
(ProjectMember, ProjectMembers, ProjectMemberRoleResponse; docs/docsite/rst/api-behaviour.rst) are checked here."""

from __future__ import annotations

import requests

API_KEY = "sim-selftest-key-project-roles"
ORG = "org-calm-tree-21298941"
ORG_PROJECT = "bold-glade-61830452"
DEMO = "shiny-river-12345678"  # personal

MEMBER_REQUIRED = {"member_id", "user_id", "org_role"}
MEMBER_FIELDS = MEMBER_REQUIRED | {"email", "name", "project_role", "org_default_project_permission",
                                   "explicit_project_permission", "effective_project_permission", "grant_source"}
ROLE_RESPONSE_FIELDS = (MEMBER_FIELDS - {"grant_source"}) | {"project_id", "credential_rotation_recommended",
                                                             "org_api_key_rotation_recommended"}
LEVELS = (None, "VIEWER", "EDITOR", "ADMIN")


def call(sim, method, path, key=API_KEY, **kwargs):
    return requests.request(method, sim.url + path, headers={"Authorization": "Bearer " + key}, timeout=10, **kwargs)


def answer(response, status=200):
    assert response.status_code == status, response.text
    return response.json()


def members(sim, project_id=ORG_PROJECT, key=API_KEY, **params):
    return answer(call(sim, "GET", "/projects/%s/members" % project_id, key, params=params))


def person(sim, name, role):
    user = sim.create_user(name=name, email="%s@example.com" % name.lower())
    sim.add_member(ORG, user["id"], role)
    key = sim.create_key("personal", user_id=user["id"], name=name)["key"]
    return user, key


def member_of(sim, email, key=API_KEY):
    return next(m for m in members(sim, key=key)["project_members"] if m["email"] == email)


def set_role(sim, member_id, role, key=API_KEY, **params):
    return call(sim, "PUT", "/projects/%s/members/%s/role" % (ORG_PROJECT, member_id), key, json={"role": role},
                params=params)


def remove_role(sim, member_id, key=API_KEY, **params):
    return call(sim, "DELETE", "/projects/%s/members/%s/role" % (ORG_PROJECT, member_id), key, params=params)


def test_the_list_has_the_generated_clients_shape_and_the_organizations_member_ids(sim):
    body = members(sim)
    assert set(body) <= {"project_members", "pagination"}
    org_members = answer(call(sim, "GET", "/organizations/%s/members" % ORG))["members"]
    assert sorted(m["member_id"] for m in body["project_members"]) == sorted(m["member"]["id"] for m in org_members)
    for item in body["project_members"]:
        assert MEMBER_REQUIRED <= set(item) <= MEMBER_FIELDS
        assert item["effective_project_permission"] in LEVELS
    admin = next(m for m in body["project_members"] if m["org_role"] == "admin")
    assert admin["grant_source"] == "org_admin_override" and admin["project_role"] == "admin"


def test_a_role_is_set_replaced_and_removed_idempotently(sim):
    user, _key = person(sim, "Vera", "collaborator")
    found = member_of(sim, "vera@example.com")
    assert found["grant_source"] == "unassigned" and found["project_role"] is None
    first = answer(set_role(sim, found["member_id"], "editor"))
    assert set(first) == ROLE_RESPONSE_FIELDS and first["project_id"] == ORG_PROJECT
    assert first["user_id"] == user["id"] and first["explicit_project_permission"] == "EDITOR"
    assert first["project_role"] == "editor" and first["credential_rotation_recommended"] is False
    assert answer(set_role(sim, found["member_id"], "editor")) == first  # idempotent
    lowered = answer(set_role(sim, found["member_id"], "viewer"))
    assert lowered["effective_project_permission"] == "VIEWER" and lowered["credential_rotation_recommended"] is True
    assert member_of(sim, "vera@example.com")["grant_source"] == "explicit"
    removed = answer(remove_role(sim, found["member_id"]))
    assert removed["explicit_project_permission"] is None and removed["project_role"] is None
    assert answer(remove_role(sim, found["member_id"]))["explicit_project_permission"] is None  # idempotent


def test_who_may_read_and_change_roles(sim):
    _viewer, viewer_key = person(sim, "Vic", "viewer")
    person(sim, "Cal", "collaborator")
    seen = [m["email"] for m in members(sim, key=viewer_key)["project_members"]]
    assert "cal@example.com" not in seen and "vic@example.com" in seen  # the unassigned only for admins
    assert "cal@example.com" in [m["email"] for m in members(sim)["project_members"]]
    cal = member_of(sim, "cal@example.com")
    refused = answer(set_role(sim, cal["member_id"], "viewer", key=viewer_key), 403)
    assert "only a project admin" in refused["message"]
    org_key = sim.create_key("organization", org_id=ORG, name="org")["key"]
    assert answer(set_role(sim, cal["member_id"], "viewer", key=org_key))["project_role"] == "viewer"
    assert call(sim, "GET", "/projects/%s/members" % DEMO).status_code == 404  # a personal project
    assert set_role(sim, "00000000-0000-4000-8000-000000000000", "viewer").status_code == 404
    assert set_role(sim, "not-a-uuid", "viewer").status_code == 400
    assert set_role(sim, cal["member_id"], "owner").status_code == 400


def test_lowering_ones_own_access_needs_the_confirmation(sim):
    _user, key = person(sim, "Sid", "member")
    sid = member_of(sim, "sid@example.com")
    assert answer(set_role(sim, sid["member_id"], "admin"))["project_role"] == "admin"
    assert set_role(sim, sid["member_id"], "viewer", key=key).status_code == 409
    assert remove_role(sim, sid["member_id"], key=key).status_code == 409
    assert answer(remove_role(sim, sid["member_id"], key=key, confirm_self_lockout="true"))["project_role"] == "editor"


def test_pages_follow_the_next_cursor(sim):
    for number in range(4):
        person(sim, "Page%d" % number, "member")
    first = members(sim, limit=2)
    assert len(first["project_members"]) == 2 and first["pagination"]["next"]
    seen = [m["member_id"] for m in first["project_members"]]
    cursor = first["pagination"]["next"]
    while cursor:
        page = members(sim, limit=2, cursor=cursor)
        seen += [m["member_id"] for m in page["project_members"]]
        cursor = (page.get("pagination") or {}).get("next")
    assert sorted(seen) == sorted(m["member_id"] for m in members(sim, limit=500)["project_members"])
    assert len(set(seen)) == len(seen)
    assert call(sim, "GET", "/projects/%s/members?limit=501" % ORG_PROJECT).status_code == 400


def test_roles_given_in_an_organization_do_not_follow_the_project_out_of_it(sim):
    user, _key = person(sim, "Tom", "collaborator")
    tom = member_of(sim, "tom@example.com")
    assert answer(set_role(sim, tom["member_id"], "admin"))["project_role"] == "admin"
    other = sim.create_organization(name="other", admins=["bootstrap"], members=[user["id"]])["id"]
    assert call(sim, "POST", "/organizations/%s/projects/transfer" % ORG,
                json={"destination_org_id": other, "project_ids": [ORG_PROJECT]}).status_code == 200
    moved = member_of(sim, "tom@example.com")
    assert moved["explicit_project_permission"] is None and moved["grant_source"] == "org_role_default"
    assert moved["project_role"] == "editor"  # a member of the new organization, by its default
