# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests: project permissions (sharing by email), an organization's members and invitations,
who may do what with which key, and the answers' shapes (the OpenAPI schemas ProjectPermission(s),
OrganizationMembersResponse/MemberWithUser/Member, OrganizationInvitationsResponse/Invitation)."""

from __future__ import annotations

import re

import pytest

import requests

API_KEY = "sim-selftest-key-0030"
ORG = "org-calm-tree-21298941"
DEMO = "shiny-river-12345678"
SHARED_PROJECT = "wild-sea-94136285"
ORG_PROJECT = "bold-glade-61830452"
UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
TIME_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def call(sim, method, path, key=API_KEY, **kwargs):
    kwargs.setdefault("timeout", 10)
    return requests.request(method, sim.url + path, headers={"Authorization": "Bearer " + key}, **kwargs)


def control(sim, method, path, **kwargs):
    kwargs.setdefault("timeout", 10)
    return requests.request(method, sim.control_url + path, **kwargs)


def answer(response, status=200):
    assert response.status_code == status, response.text
    return response.json()


def refused(response, status, message):
    body = answer(response, status)
    assert set(body) == {"code", "message", "request_id"} and message in body["message"]
    return body


def user(sim, name, email=None):
    return sim.create_user(name=name, email=email or "%s@example.com" % name.lower())


def key_of(sim, user_id):
    return sim.create_key("personal", user_id=user_id, name="key-of-%s" % user_id[:8])["key"]


def permissions(sim, project_id, key=API_KEY):
    return answer(call(sim, "GET", "/projects/%s/permissions" % project_id, key))["project_permissions"]


def grant(sim, project_id, email, key=API_KEY):
    return call(sim, "POST", "/projects/%s/permissions" % project_id, key, json={"email": email})


def shared_ids(sim, key):
    return [project["id"] for project in answer(call(sim, "GET", "/projects/shared", key))["projects"]]


def members(sim, org_id=ORG, key=API_KEY):
    return answer(call(sim, "GET", "/organizations/%s/members" % org_id, key))["members"]


def member_id(sim, email, org_id=ORG):
    return next(item["member"]["id"] for item in members(sim, org_id) if item["user"]["email"] == email)


def invite(sim, items, org_id=ORG, key=API_KEY):
    return call(sim, "POST", "/organizations/%s/invitations" % org_id, key, json={"invitations": items})


def check_permission(item):
    assert {"id", "granted_to_email", "granted_at"} <= set(item) <= {"id", "granted_to_email", "granted_at", "revoked_at"}
    assert isinstance(item["id"], str) and TIME_RE.match(item["granted_at"])


def check_member(item):
    assert set(item) == {"id", "user_id", "org_id", "role", "joined_at"}
    assert UUID_RE.match(item["id"]) and UUID_RE.match(item["user_id"]) and item["role"] in ("admin", "member")
    assert TIME_RE.match(item["joined_at"])


def check_invitation(item):
    assert set(item) == {"id", "email", "org_id", "invited_by", "invited_at", "role"}
    assert UUID_RE.match(item["id"]) and UUID_RE.match(item["invited_by"]) and TIME_RE.match(item["invited_at"])


# ---------------------------------------------------------------------- permissions
def test_a_grant_shares_the_project_with_the_user_of_that_email_until_it_is_revoked(sim):
    riley = next(item for item in sim.users() if item["email"] == "riley@example.com")
    riley_key = key_of(sim, riley["id"])
    assert permissions(sim, DEMO) == [] and shared_ids(sim, riley_key) == []
    made = answer(grant(sim, DEMO, "Riley@Example.com"))
    check_permission(made)
    assert made["granted_to_email"] == "Riley@Example.com" and "revoked_at" not in made  # kept as given
    assert permissions(sim, DEMO) == [made]
    assert shared_ids(sim, riley_key) == [DEMO]
    assert answer(call(sim, "GET", "/projects/%s/branches" % DEMO, riley_key))["branches"]

    revoked = answer(call(sim, "DELETE", "/projects/%s/permissions/%s" % (DEMO, made["id"])))
    check_permission(revoked)
    assert revoked["id"] == made["id"] and TIME_RE.match(revoked["revoked_at"])
    assert permissions(sim, DEMO) == [] and shared_ids(sim, riley_key) == []  # revoked grants are not listed
    assert call(sim, "GET", "/projects/%s/branches" % DEMO, riley_key).status_code == 404
    refused(call(sim, "DELETE", "/projects/%s/permissions/%s" % (DEMO, made["id"])), 404, "project permission not found")
    assert [item["id"] for item in answer(control(sim, "GET", "/projects/%s/permissions" % DEMO))["project_permissions"]] \
        == [made["id"]]


def test_an_email_of_no_user_is_granted_and_reaches_nobody(sim):
    made = answer(grant(sim, DEMO, "someone@elsewhere.example"))
    assert permissions(sim, DEMO) == [made]


def test_the_seeded_shared_project_lists_its_grant_and_revoking_it_unshares_it(sim):
    listed = permissions(sim, SHARED_PROJECT)
    assert [item["granted_to_email"] for item in listed] == ["sam@example.com"]
    assert shared_ids(sim, API_KEY) == [SHARED_PROJECT]
    answer(call(sim, "DELETE", "/projects/%s/permissions/%s" % (SHARED_PROJECT, listed[0]["id"])))
    assert shared_ids(sim, API_KEY) == [] and permissions(sim, DEMO) == []
    refused(call(sim, "GET", "/projects/%s/permissions" % SHARED_PROJECT), 404, "project not found")


@pytest.mark.parametrize("body", [{}, {"email": "no-at-sign"}, {"email": ""}, {"email": "a@b" + "c" * 256},
                                  {"email": 5}])
def test_a_grant_needs_an_email(sim, body):
    refused(call(sim, "POST", "/projects/%s/permissions" % DEMO, json=body), 400, "email")
    assert permissions(sim, DEMO) == []


def test_a_second_grant_to_one_email_is_refused_by_default_and_answered_as_the_settings_say(sim):
    first = answer(grant(sim, DEMO, "dup@example.com"))
    refused(grant(sim, DEMO, "DUP@example.com"), 409, "already exists")
    assert answer(control(sim, "POST", "/sharing", json={"duplicate_grant": "existing"})) == {"duplicate_grant": "existing"}
    assert answer(grant(sim, DEMO, "dup@example.com")) == first and len(permissions(sim, DEMO)) == 1
    answer(control(sim, "POST", "/sharing", json={"duplicate_grant": "new"}))
    second = answer(grant(sim, DEMO, "dup@example.com"))
    assert second["id"] != first["id"] and [item["id"] for item in permissions(sim, DEMO)] == [first["id"], second["id"]]
    refused(control(sim, "POST", "/sharing", json={"duplicate_grant": "maybe"}), 400, "duplicate_grant")
    refused(control(sim, "POST", "/sharing", json={"other": 1}), 400, "unknown fields")
    sim.reset()
    assert answer(control(sim, "GET", "/sharing")) == {"duplicate_grant": "conflict"} and permissions(sim, DEMO) == []


def test_who_may_grant_a_project_key_on_its_project_an_organization_key_not_on_a_personal_one(sim):
    scoped = sim.create_key("project", project_id=ORG_PROJECT)["key"]
    answer(grant(sim, ORG_PROJECT, "a@example.com", key=scoped))
    refused(grant(sim, DEMO, "a@example.com", key=scoped), 403, "scoped to another project")
    org_key = sim.create_key("organization", org_id=ORG)["key"]
    assert [item["granted_to_email"] for item in permissions(sim, ORG_PROJECT, key=org_key)] == ["a@example.com"]
    refused(call(sim, "GET", "/projects/%s/permissions" % DEMO, org_key), 404, "project not found")


# ---------------------------------------------------------------------- members
def test_members_are_listed_with_their_email_and_each_can_be_read_by_its_own_id(sim):
    listed = members(sim)
    assert [(item["user"]["email"], item["member"]["role"]) for item in listed] == [
        ("sam@example.com", "admin"), ("riley@example.com", "member")]
    for item in listed:
        assert set(item) == {"member", "user"} and set(item["user"]) == {"email"}
        check_member(item["member"])
        assert item["member"]["org_id"] == ORG and item["member"]["id"] != item["member"]["user_id"]
        assert answer(call(sim, "GET", "/organizations/%s/members/%s" % (ORG, item["member"]["id"]))) == item["member"]
    assert members(sim) == listed  # ids are stable
    refused(call(sim, "GET", "/organizations/%s/members/%s" % (ORG, "0" * 8 + "-0000-4000-8000-" + "0" * 12)), 404,
            "member not found")


def test_only_admins_change_roles_and_the_only_admin_stays_one(sim):
    riley = member_id(sim, "riley@example.com")
    sam = member_id(sim, "sam@example.com")
    riley_user = next(item for item in sim.users() if item["email"] == "riley@example.com")
    riley_key = key_of(sim, riley_user["id"])
    path = "/organizations/%s/members/%%s" % ORG
    refused(call(sim, "PATCH", path % sam, riley_key, json={"role": "member"}), 403, "only an admin")
    refused(call(sim, "PATCH", path % sam, json={"role": "member"}), 409, "only admin")
    refused(call(sim, "PATCH", path % riley, json={"role": "owner"}), 400, "role")
    promoted = answer(call(sim, "PATCH", path % riley, json={"role": "admin"}))
    check_member(promoted)
    assert promoted["role"] == "admin" and promoted["id"] == riley
    demoted = answer(call(sim, "PATCH", path % sam, json={"role": "member"}))  # another admin is left now
    assert demoted["role"] == "member"
    org_key = sim.create_key("organization", org_id=ORG)["key"]
    assert answer(call(sim, "PATCH", path % sam, org_key, json={"role": "admin"}))["role"] == "admin"


def test_removing_takes_an_admin_s_personal_key_and_never_removes_the_only_admin(sim):
    riley = member_id(sim, "riley@example.com")
    sam = member_id(sim, "sam@example.com")
    path = "/organizations/%s/members/%%s" % ORG
    org_key = sim.create_key("organization", org_id=ORG)["key"]
    refused(call(sim, "DELETE", path % riley, org_key), 403, "personal API key of an organization admin")
    scoped = sim.create_key("project", project_id=ORG_PROJECT)["key"]
    refused(call(sim, "DELETE", path % riley, scoped), 403, "project-scoped")
    refused(call(sim, "GET", "/organizations/%s/members" % ORG, scoped), 403, "project-scoped")
    refused(call(sim, "DELETE", path % sam), 409, "only admin")
    riley_user = next(item for item in sim.users() if item["email"] == "riley@example.com")
    riley_key = key_of(sim, riley_user["id"])
    refused(call(sim, "DELETE", path % sam, riley_key), 403, "only an admin")
    assert answer(call(sim, "DELETE", path % riley)) == {}
    assert [item["user"]["email"] for item in members(sim)] == ["sam@example.com"]
    refused(call(sim, "DELETE", path % riley), 404, "member not found")
    refused(call(sim, "GET", "/projects", riley_key, params={"org_id": ORG}), 403, "not a member")


# ---------------------------------------------------------------------- invitations
def test_an_invitation_stays_pending_without_an_account_and_an_existing_user_joins_at_once(sim):
    alex = next(item for item in sim.users() if item["email"] == "alex@example.com")
    made = answer(invite(sim, [{"email": "new.hire@example.com", "role": "member"},
                               {"email": "Alex@Example.com", "role": "admin"}]))
    assert list(made) == ["invitations"] and [item["email"] for item in made["invitations"]] == [
        "new.hire@example.com", "Alex@Example.com"]
    for item in made["invitations"]:
        check_invitation(item)
        assert item["org_id"] == ORG and item["invited_by"] == sim.state.shared.bootstrap_user_id
    pending = answer(call(sim, "GET", "/organizations/%s/invitations" % ORG))
    assert pending == {"invitations": [made["invitations"][0]]}  # the user with an account joined instead
    joined = next(item for item in members(sim) if item["user"]["email"] == "alex@example.com")
    assert (joined["member"]["user_id"], joined["member"]["role"]) == (alex["id"], "admin")

    accepted = answer(control(sim, "POST", "/organizations/%s/invitations/%s/accept" % (ORG, made["invitations"][0]["id"])))
    assert accepted["user"]["email"] == "new.hire@example.com" and accepted["member"]["role"] == "member"
    assert answer(call(sim, "GET", "/organizations/%s/invitations" % ORG)) == {"invitations": []}
    assert "new.hire@example.com" in [item["user"]["email"] for item in members(sim)]
    refused(control(sim, "POST", "/organizations/%s/invitations/%s/accept" % (ORG, made["invitations"][0]["id"])), 404,
            "invitation not found")


@pytest.mark.parametrize("items, status, words", [
    ([{"email": "riley@EXAMPLE.com", "role": "member"}], 409, "already a member"),
    ([{"email": "x@example.com", "role": "member"}, {"email": "X@example.com", "role": "admin"}], 400,
     "more than once"),
    ([{"email": "x.example.com", "role": "member"}], 400, "invitations[1].email"),
    ([{"email": "x@example.com", "role": "owner"}], 400, "invitations[1].role"),
    ([{"email": "x@example.com"}], 400, "invitations[1].role"),
])
def test_an_invitation_request_with_a_bad_item_makes_none(sim, items, status, words):
    refused(invite(sim, [{"email": "fine@example.com", "role": "member"}] + items), status, words)
    refused(invite(sim, []), 400, "non-empty list")
    assert answer(call(sim, "GET", "/organizations/%s/invitations" % ORG)) == {"invitations": []}


def test_inviting_a_pending_email_again_is_refused_and_only_an_admin_s_personal_key_invites(sim):
    answer(invite(sim, [{"email": "pending@example.com", "role": "member"}]))
    refused(invite(sim, [{"email": "PENDING@example.com", "role": "admin"}]), 409, "already exists")
    org_key = sim.create_key("organization", org_id=ORG)["key"]
    refused(invite(sim, [{"email": "y@example.com", "role": "member"}], key=org_key), 403, "personal API key")
    assert len(answer(call(sim, "GET", "/organizations/%s/invitations" % ORG, org_key))["invitations"]) == 1
    riley_user = next(item for item in sim.users() if item["email"] == "riley@example.com")
    refused(invite(sim, [{"email": "y@example.com", "role": "member"}], key=key_of(sim, riley_user["id"])), 403,
            "only an admin")
    outsider = key_of(sim, user(sim, "Outsider")["id"])
    refused(invite(sim, [{"email": "y@example.com", "role": "member"}], key=outsider), 403, "not a member")
    sim.reset()
    assert answer(call(sim, "GET", "/organizations/%s/invitations" % ORG)) == {"invitations": []}
