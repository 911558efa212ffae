# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests: organizations, the three kinds of API key and what each may reach,
identity (/auth, /users/me/organizations), shared projects, partial project lists, and the
rate limit on organization key creation."""

from __future__ import annotations

import re

import pytest

import requests
from neon_simulator import ratelimit

API_KEY = "sim-selftest-key-0003"
ORG = "org-calm-tree-21298941"
ORG_PROJECTS = ["bold-glade-61830452", "quiet-brook-72914063", "young-forest-83025174"]
SHARED_PROJECT = "wild-sea-94136285"
DEMO = "shiny-river-12345678"
KEY_RE = re.compile(r"^[a-z0-9]{64}$")


def call(sim, method, path, key=API_KEY, **kwargs):
    kwargs.setdefault("timeout", 10)
    return requests.request(method, sim.url + path, headers={"Authorization": "Bearer " + key}, **kwargs)


def control(sim, method, path, **kwargs):
    kwargs.setdefault("timeout", 10)
    return requests.request(method, sim.control_url + path, **kwargs)


def refused(response, status, message=None):
    """The JSON error of a refusal; ``message`` must be part of it."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"code", "message", "request_id"} and body["code"] == ""
    if "/api/v2/" in response.url:
        assert response.headers["x-neon-ret-request-id"] == body["request_id"]
    if message is not None:
        assert message in body["message"]
    return body


def project_ids(response):
    assert response.status_code == 200, response.text
    return [project["id"] for project in response.json()["projects"]]


def ops(project_id):
    return "/projects/%s/operations" % project_id


@pytest.fixture(name="org_key")
def org_key_fixture(sim):
    return sim.create_key("organization", org_id=ORG, name="org-wide")["key"]


@pytest.fixture(name="scoped_key")
def scoped_key_fixture(sim):
    return sim.create_key("project", project_id=ORG_PROJECTS[0], name="ci-checkout")["key"]


# ---------------------------------------------------------------------- the seeded organization
def test_seeded_organization_is_found_by_the_bootstrap_user(sim):
    listed = call(sim, "GET", "/users/me/organizations").json()
    assert list(listed) == ["organizations"]
    assert [org["id"] for org in listed["organizations"]] == [ORG]
    org = listed["organizations"][0]
    assert {"id", "name", "handle", "plan", "created_at", "updated_at", "managed_by"} <= set(org)
    assert org["name"] == "Calm Tree Labs" and org["plan"] == "scale" and org["managed_by"] == "console"
    assert call(sim, "GET", "/organizations/" + ORG).json() == org
    assert project_ids(call(sim, "GET", "/projects", params={"org_id": ORG})) == ORG_PROJECTS
    in_org = call(sim, "GET", "/projects", params={"org_id": ORG}).json()["projects"]
    assert {project["org_id"] for project in in_org} == {ORG}
    info = control(sim, "GET", "/info").json()
    assert len(info["projects"]) == 37  # the personal projects, as before organizations existed
    assert [p["id"] for p in info["organizations"][0]["projects"]] == ORG_PROJECTS
    roles = {member["role"] for member in info["organizations"][0]["members"]}
    assert roles == {"admin", "member"}


def test_personal_listing_keeps_the_37_personal_projects_only(sim):
    listed = project_ids(call(sim, "GET", "/projects", params={"limit": 400}))
    assert len(listed) == 37 and listed[0] == DEMO
    assert not set(listed) & set(ORG_PROJECTS + [SHARED_PROJECT])


# ---------------------------------------------------------------------- identity
def test_auth_names_the_account_and_the_key_kind(sim, org_key, scoped_key):
    me = call(sim, "GET", "/auth").json()
    assert set(me) == {"account_id", "auth_method", "auth_data"}
    assert me["account_id"] == control(sim, "GET", "/info").json()["user_id"]
    assert me["auth_method"] == "api_key_user"
    for key in (org_key, scoped_key):
        answer = call(sim, "GET", "/auth", key=key).json()
        assert answer["account_id"] == ORG and answer["auth_method"] == "api_key_org"


def test_user_routes_refuse_organization_and_project_keys(sim, org_key, scoped_key):
    refused(call(sim, "GET", "/users/me/organizations", key=org_key), 403, "not allowed for organization API keys")
    refused(call(sim, "GET", "/users/me/organizations", key=scoped_key), 403, "project-scoped")
    for key in (org_key, scoped_key):
        refused(call(sim, "GET", "/api_keys", key=key), 403)
        refused(call(sim, "POST", "/api_keys", key=key, json={"key_name": "nope"}), 403)
    assert len(sim.keys(kind="personal")) == 3


# ---------------------------------------------------------------------- personal key
def test_personal_key_reaches_personal_org_and_shared_projects_only(sim):
    for project_id in (DEMO, ORG_PROJECTS[0], SHARED_PROJECT):
        assert call(sim, "GET", ops(project_id)).status_code == 200
    stranger = sim.create_user(name="Stranger")
    theirs = sim.create_project(name="not-yours", owner=stranger["id"])
    refused(call(sim, "GET", ops(theirs["id"])), 404, "project not found")
    other = sim.create_organization(name="Other Org", admins=[stranger["id"]], projects=1)
    refused(call(sim, "GET", ops(other["projects"][0]["id"])), 404)
    refused(call(sim, "GET", "/projects", params={"org_id": other["id"]}), 403, "not a member")
    refused(call(sim, "GET", "/organizations/" + other["id"]), 403)
    refused(call(sim, "GET", "/projects", params={"org_id": "org-no-such-org-00000000"}), 403, "not a member")
    refused(call(sim, "GET", "/projects", params={"org_id": "Not An Id"}), 400)


def test_org_id_required_for_a_user_of_organizations_without_personal_projects(sim):
    user = sim.create_user(name="Team Only")
    sim.create_organization(name="Team One", admins=[user["id"]], projects=2)
    key = sim.create_key("personal", user_id=user["id"])["key"]
    refused(call(sim, "GET", "/projects", key=key), 400, "org_id is required")
    refused(call(sim, "GET", "/projects", key=key, params={"search": "team"}), 400, "org_id is required")
    organizations = call(sim, "GET", "/users/me/organizations", key=key).json()["organizations"]
    assert [org["name"] for org in organizations] == ["Team One"]
    assert len(project_ids(call(sim, "GET", "/projects", key=key, params={"org_id": organizations[0]["id"]}))) == 2
    # a personal project of their own ends the 400
    sim.create_project(name="mine", owner=user["id"])
    assert len(project_ids(call(sim, "GET", "/projects", key=key))) == 1


def test_org_id_required_can_be_forced_on_and_off(sim):
    sim.update_user("bootstrap", org_id_required=True)
    refused(call(sim, "GET", "/projects"), 400, "org_id is required")
    assert project_ids(call(sim, "GET", "/projects", params={"org_id": ORG})) == ORG_PROJECTS
    assert control(sim, "PATCH", "/users/bootstrap", json={"org_id_required": "auto"}).status_code == 200
    assert len(project_ids(call(sim, "GET", "/projects"))) == 10
    # forced for a user of no organization: the case where asking /users/me/organizations finds none
    loner = sim.create_user(name="Loner", org_id_required=True)
    key = sim.create_key("personal", user_id=loner["id"])["key"]
    refused(call(sim, "GET", "/projects", key=key), 400, "org_id is required")
    assert call(sim, "GET", "/users/me/organizations", key=key).json() == {"organizations": []}
    sim.update_user(loner["id"], org_id_required=False)
    assert project_ids(call(sim, "GET", "/projects", key=key)) == []
    assert control(sim, "PATCH", "/users/bootstrap", json={"org_id_required": "yes"}).status_code == 400
    sim.reset()
    assert len(project_ids(call(sim, "GET", "/projects"))) == 10


# ---------------------------------------------------------------------- organization key
def test_organization_key_sees_every_project_of_its_organization_and_nothing_else(sim, org_key):
    assert project_ids(call(sim, "GET", "/projects", key=org_key)) == ORG_PROJECTS
    assert project_ids(call(sim, "GET", "/projects", key=org_key, params={"org_id": ORG})) == ORG_PROJECTS
    assert call(sim, "GET", ops(ORG_PROJECTS[1]), key=org_key).status_code == 200
    refused(call(sim, "GET", ops(DEMO), key=org_key), 404, "project not found")
    refused(call(sim, "GET", ops(SHARED_PROJECT), key=org_key), 404)
    other = sim.create_organization(name="Elsewhere", projects=1)
    refused(call(sim, "GET", "/projects", key=org_key, params={"org_id": other["id"]}), 403, "another organization")
    refused(call(sim, "GET", ops(other["projects"][0]["id"]), key=org_key), 404)
    refused(call(sim, "GET", "/organizations/" + other["id"], key=org_key), 403)
    assert call(sim, "GET", "/organizations/" + ORG, key=org_key).json()["id"] == ORG
    assert project_ids(call(sim, "GET", "/projects/shared", key=org_key)) == []


# ---------------------------------------------------------------------- project-scoped key
def test_project_scoped_key_reaches_its_project_and_is_refused_everything_else(sim, scoped_key):
    assert project_ids(call(sim, "GET", "/projects", key=scoped_key)) == [ORG_PROJECTS[0]]
    assert project_ids(call(sim, "GET", "/projects", key=scoped_key, params={"org_id": ORG})) == [ORG_PROJECTS[0]]
    listed = call(sim, "GET", ops(ORG_PROJECTS[0]), key=scoped_key, params={"limit": 1}).json()["operations"]
    assert call(sim, "GET", ops(ORG_PROJECTS[0]) + "/" + listed[0]["id"], key=scoped_key).status_code == 200
    for project_id in (ORG_PROJECTS[1], DEMO, SHARED_PROJECT, "no-such-project-1"):
        refused(call(sim, "GET", ops(project_id), key=scoped_key), 403, "scoped to another project")
        refused(call(sim, "GET", ops(project_id) + "/" + listed[0]["id"], key=scoped_key), 403)
    refused(call(sim, "GET", "/organizations/" + ORG, key=scoped_key), 403, "not allowed for project-scoped API keys")
    refused(call(sim, "GET", "/organizations/%s/api_keys" % ORG, key=scoped_key), 403)
    refused(call(sim, "POST", "/organizations/%s/api_keys" % ORG, key=scoped_key, json={"key_name": "x"}), 403)
    target = sim.create_key("organization", org_id=ORG)["id"]
    refused(call(sim, "DELETE", "/organizations/%s/api_keys/%d" % (ORG, target), key=scoped_key), 403)
    refused(call(sim, "GET", "/projects", key=scoped_key, params={"org_id": "org-other-00000000"}), 403)


def test_project_scoped_key_stops_working_when_its_project_leaves_the_organization(sim, scoped_key):
    assert call(sim, "GET", "/auth", key=scoped_key).status_code == 200
    sim.transfer_project(ORG_PROJECTS[0], None)  # back to the bootstrap user's personal projects
    refused(call(sim, "GET", "/auth", key=scoped_key), 401)
    assert ORG_PROJECTS[0] in project_ids(call(sim, "GET", "/projects", params={"limit": 400}))


# ---------------------------------------------------------------------- organization key endpoints
def test_org_keys_create_list_revoke_as_the_live_service_answers(sim):
    path = "/organizations/%s/api_keys" % ORG
    wide = call(sim, "POST", path, json={"key_name": "deploy"})
    scoped = call(sim, "POST", path, json={"key_name": "deploy", "project_id": ORG_PROJECTS[1]})
    assert wide.status_code == scoped.status_code == 200
    assert set(wide.json()) == {"id", "key", "name", "created_at", "created_by"}
    assert set(scoped.json()) == {"id", "key", "name", "created_at", "created_by", "project_id"}
    assert scoped.json()["project_id"] == ORG_PROJECTS[1] and KEY_RE.match(scoped.json()["key"])
    listed = call(sim, "GET", path).json()
    assert isinstance(listed, list)
    assert [item["id"] for item in listed] == [scoped.json()["id"], wide.json()["id"]]  # newest first
    assert listed[0]["project_id"] == ORG_PROJECTS[1] and "project_id" not in listed[1]
    assert set(listed[1]["created_by"]) == {"id", "name", "image"} and "key" not in listed[0]
    # organization keys are not personal keys
    assert wide.json()["id"] not in [item["id"] for item in call(sim, "GET", "/api_keys").json()]
    refused(call(sim, "DELETE", "/api_keys/%d" % wide.json()["id"]), 404)
    revoked = call(sim, "DELETE", "%s/%d" % (path, scoped.json()["id"]))
    assert revoked.status_code == 200
    assert revoked.json()["revoked"] is True and revoked.json()["project_id"] == ORG_PROJECTS[1]
    refused(call(sim, "DELETE", "%s/%d" % (path, scoped.json()["id"])), 404)
    refused(call(sim, "GET", "/auth", key=scoped.json()["key"]), 401)
    refused(call(sim, "DELETE", "%s/abc" % path), 400)
    assert [key["kind"] for key in sim.keys() if key["id"] == wide.json()["id"]] == ["organization"]


@pytest.mark.parametrize("body, message", [
    ({"key_name": "x", "project_id": "Bad Id!"}, "project_id"),
    ({"key_name": "x", "project_id": DEMO}, "no project"),           # a personal project
    ({"key_name": "x", "project_id": "no-such-project-1"}, "no project"),
    ({"key_name": ""}, "key_name"),
    ({"project_id": ORG_PROJECTS[0]}, "key_name"),
])
def test_org_key_creation_checks_its_body(sim, body, message):
    before = len(sim.keys())
    refused(call(sim, "POST", "/organizations/%s/api_keys" % ORG, json=body), 400, message)
    assert len(sim.keys()) == before


def test_org_members_create_scoped_keys_and_admins_manage_the_rest(sim):
    riley = [user for user in sim.users() if user["name"] == "Riley Member"][0]
    member_key = sim.create_key("personal", user_id=riley["id"])["key"]
    path = "/organizations/%s/api_keys" % ORG
    refused(call(sim, "POST", path, key=member_key, json={"key_name": "wide"}), 403, "only organization admins")
    mine = call(sim, "POST", path, key=member_key, json={"key_name": "ci", "project_id": ORG_PROJECTS[2]}).json()
    admins = call(sim, "POST", path, json={"key_name": "ci", "project_id": ORG_PROJECTS[2]}).json()
    assert len(call(sim, "GET", path, key=member_key).json()) == 2
    refused(call(sim, "DELETE", "%s/%d" % (path, admins["id"]), key=member_key), 403, "created by others")
    assert call(sim, "DELETE", "%s/%d" % (path, mine["id"]), key=member_key).status_code == 200
    # an organization key acts as an admin of its organization
    org_key = sim.create_key("organization", org_id=ORG)["key"]
    assert call(sim, "DELETE", "%s/%d" % (path, admins["id"]), key=org_key).status_code == 200
    assert call(sim, "POST", path, key=org_key, json={"key_name": "made-by-key"}).status_code == 200
    other = sim.create_organization(name="Not Mine", admins=[riley["id"]])
    refused(call(sim, "GET", "/organizations/%s/api_keys" % other["id"], key=org_key), 403)
    refused(call(sim, "GET", "/organizations/%s/api_keys" % other["id"]), 403)


def test_org_key_creation_is_rate_limited_per_organization(sim):
    assert sim.rate_limits()["org_key_create"] == {"rate": 10.0, "burst": 10.0}  # on by default
    sim.set_rate_limits(org_key_create=0.001, org_key_create_burst=2)  # no refill within the test
    path = "/organizations/%s/api_keys" % ORG
    answers = [call(sim, "POST", path, json={"key_name": "burst"}) for _number in range(3)]
    assert [answer.status_code for answer in answers] == [200, 200, 429]
    refused(answers[2], 429, "too many requests")
    assert int(answers[2].headers["Retry-After"]) >= 1
    assert len(sim.keys(kind="organization")) == 2
    other = sim.create_organization(name="Own Budget")
    assert call(sim, "POST", "/organizations/%s/api_keys" % other["id"], json={"key_name": "x"}).status_code == 200
    assert call(sim, "POST", "/api_keys", json={"key_name": "personal"}).status_code == 200
    assert control(sim, "POST", "/rate_limits", json={"org_key_create": None}).json()["org_key_create"] is None
    assert call(sim, "POST", path, json={"key_name": "unlimited"}).status_code == 200
    sim.reset()
    assert sim.rate_limits()["org_key_create"] == {"rate": 10.0, "burst": 10.0}


def test_a_limit_per_key_counts_every_route_of_that_key_only(sim):
    assert sim.rate_limits()["per_key"] is None  # off by default
    sim.set_rate_limits(per_key=0.001, per_key_burst=2)  # no refill within the test
    answers = [call(sim, "GET", path) for path in ("/projects", "/api_keys", "/auth")]
    assert [answer.status_code for answer in answers] == [200, 200, 429]
    refused(answers[2], 429, "too many requests")
    assert int(answers[2].headers["Retry-After"]) >= 1
    other_key = call(sim, "POST", "/organizations/%s/api_keys" % ORG, json={"key_name": "own budget"})
    assert other_key.status_code == 429  # the same key, another route
    sim.set_rate_limits(per_key=None)
    second = call(sim, "POST", "/api_keys", json={"key_name": "second"}).json()["key"]
    sim.set_rate_limits(per_key=0.001, per_key_burst=1)
    assert call(sim, "GET", "/auth", key=second).status_code == 200  # each key its own budget
    assert call(sim, "GET", "/auth").status_code == 200
    assert call(sim, "GET", "/auth", key=second).status_code == 429
    sim.reset()
    assert sim.rate_limits()["per_key"] is None


def test_rate_limiter_allows_ten_a_second_with_bursts_of_ten():
    now = [100.0]
    limiter = ratelimit.RateLimiter(ratelimit.ORG_KEY_CREATE_RATE, monotonic=lambda: now[0])
    assert [limiter.check("org-a") for _number in range(10)] == [None] * 10
    assert limiter.check("org-a") == 1  # Retry-After: 1 s
    assert limiter.check("org-b") is None
    now[0] += 0.1
    assert limiter.check("org-a") is None and limiter.check("org-a") == 1


# ---------------------------------------------------------------------- shared projects
def test_shared_projects_are_listed_with_the_same_paging(sim):
    shared = call(sim, "GET", "/projects/shared").json()
    assert project_ids(call(sim, "GET", "/projects/shared")) == [SHARED_PROJECT]
    assert shared["pagination"] == {"cursor": SHARED_PROJECT} and shared["unavailable_project_ids"] == []
    partner = [user for user in sim.users() if user["name"] == "Alex Partner"][0]
    extra = [sim.create_project(name="partner-extra-%d" % n, owner=partner["id"])["id"] for n in range(3)]
    for project_id in extra:
        assert control(sim, "POST", "/projects/%s/share" % project_id, json={"user_id": "bootstrap"}).status_code == 200
    first = call(sim, "GET", "/projects/shared", params={"limit": 2}).json()
    assert [p["id"] for p in first["projects"]] == extra[::-1][:2]
    rest = project_ids(call(sim, "GET", "/projects/shared", params={"limit": 2, "cursor": first["pagination"]["cursor"]}))
    assert rest == [extra[0], SHARED_PROJECT]
    assert project_ids(call(sim, "GET", "/projects/shared", params={"search": "REPORTS"})) == [SHARED_PROJECT]
    assert call(sim, "GET", ops(extra[0])).status_code == 200  # shared means reachable
    refused(call(sim, "GET", "/projects/shared", params={"limit": 401}), 400)


# ---------------------------------------------------------------------- partial lists
def test_unavailable_projects_are_named_instead_of_listed_then_listed_when_asked_again(sim):
    page = project_ids(call(sim, "GET", "/projects", params={"limit": 5}))
    marked = sim.set_unavailable([page[1], page[4]], answers=1)
    assert sorted(entry["project_id"] for entry in marked) == sorted([page[1], page[4]])
    partial = call(sim, "GET", "/projects", params={"limit": 5, "timeout": 500}).json()
    assert [p["id"] for p in partial["projects"]] == [page[0], page[2], page[3]]
    assert partial["unavailable_project_ids"] == [page[1], page[4]]
    # the page was 5 projects: the cursor is its last, so the next page skips nothing
    assert partial["pagination"]["cursor"] == page[4]
    # asked again (by id, through search), each is there: it was unavailable for one answer only
    for project_id in (page[1], page[4]):
        again = call(sim, "GET", "/projects", params={"search": project_id}).json()
        assert [p["id"] for p in again["projects"]] == [project_id] and again["unavailable_project_ids"] == []
    assert control(sim, "GET", "/unavailable").json() == {"unavailable": []}


def test_unavailable_for_good_and_for_several_answers_and_on_shared_projects(sim):
    sim.set_unavailable([DEMO], answers=None)
    for _attempt in range(3):
        answer = call(sim, "GET", "/projects", params={"search": DEMO}).json()
        assert answer["projects"] == [] and answer["unavailable_project_ids"] == [DEMO]
    assert control(sim, "DELETE", "/unavailable").json() == {"removed": 1}
    assert project_ids(call(sim, "GET", "/projects", params={"search": DEMO})) == [DEMO]
    control(sim, "POST", "/unavailable", json={"project_ids": [SHARED_PROJECT], "answers": 2})
    seen = [call(sim, "GET", "/projects/shared").json()["unavailable_project_ids"] for _attempt in range(3)]
    assert seen == [[SHARED_PROJECT], [SHARED_PROJECT], []]
    assert control(sim, "POST", "/unavailable", json={"project_ids": ["no-such-1"]}).status_code == 400
    assert control(sim, "POST", "/unavailable", json={"project_ids": [DEMO], "answers": 0}).status_code == 400


@pytest.mark.parametrize("timeout", ["99", "30001", "fast", "1.5"])
def test_projects_timeout_outside_100_to_30000_ms_is_400(sim, timeout):
    refused(call(sim, "GET", "/projects", params={"timeout": timeout}), 400, "timeout")
    refused(call(sim, "GET", "/projects/shared", params={"timeout": timeout}), 400, "timeout")


# ---------------------------------------------------------------------- control API, log, faults, reset
def test_control_api_sets_a_scene_over_http(sim):
    user = control(sim, "POST", "/users", json={"name": "Dana Ops"})
    assert user.status_code == 201 and user.json()["email"] == "dana-ops@example.com"
    org = control(sim, "POST", "/organizations", json={
        "name": "Ops Team", "admins": [user.json()["id"]], "members": ["bootstrap"],
        "projects": [{"name": "ops-db", "region_id": "aws-eu-central-1"}, {"name": "ops-cache"}]})
    assert org.status_code == 201
    body = org.json()
    assert body["id"].startswith("org-") and body["handle"].startswith("ops-team-")
    assert [p["name"] for p in body["projects"]] == ["ops-db", "ops-cache"]
    assert {p["org_id"] for p in body["projects"]} == {body["id"]}
    spec = {"kind": "project", "project_id": body["projects"][0]["id"], "user_id": "bootstrap", "name": "ops-ci"}
    made = control(sim, "POST", "/keys", json=spec)
    assert made.status_code == 201 and KEY_RE.match(made.json()["key"])
    assert made.json()["org_id"] == body["id"] and made.json()["kind"] == "project"
    assert project_ids(call(sim, "GET", "/projects", key=made.json()["key"])) == [body["projects"][0]["id"]]
    listed = control(sim, "GET", "/keys", params={"kind": "project"}).json()["keys"]
    assert [key["name"] for key in listed] == ["ops-ci"] and "key" not in listed[0]
    # a member may not own an organization-wide key
    wide = {"kind": "organization", "org_id": body["id"], "user_id": "bootstrap"}
    refused(control(sim, "POST", "/keys", json=wide), 400, "not an admin")
    refused(control(sim, "POST", "/keys", json={"kind": "admin"}), 400, "kind")
    refused(control(sim, "POST", "/organizations", json={"admins": ["nobody"]}), 400, "unknown user")
    refused(control(sim, "POST", "/organizations/org-none-00000000/members", json={"user_id": "bootstrap"}), 404)
    assert control(sim, "DELETE", "/organizations/%s/members/bootstrap" % body["id"]).status_code == 200
    refused(call(sim, "GET", "/projects", params={"org_id": body["id"]}), 403)


def test_request_log_says_which_key_and_kind_made_each_request(sim, org_key, scoped_key):
    sim.clear_requests()
    call(sim, "GET", "/auth")
    call(sim, "GET", "/auth", key=org_key)
    call(sim, "GET", "/projects", key=scoped_key)
    log = sim.requests()
    assert [(e["key_kind"], e["key_org_id"], e["key_project_id"]) for e in log] == [
        ("personal", None, None), ("organization", ORG, None), ("project", ORG, ORG_PROJECTS[0])]
    assert all(isinstance(e["key_id"], int) for e in log)


def test_faults_apply_to_the_new_routes(sim):
    sim.add_fault(method="GET", path="/api/v2/auth", body="wrongshape")
    assert isinstance(call(sim, "GET", "/auth").json(), list)
    sim.add_fault(method="POST", path="/api/v2/organizations/*/api_keys", status=503, apply=True)
    refused(call(sim, "POST", "/organizations/%s/api_keys" % ORG, json={"key_name": "ghost"}), 503)
    assert [key["name"] for key in sim.keys(kind="organization")] == ["ghost"]  # carried out all the same
    sim.add_fault(path="/api/v2/users/me/organizations", body="html")
    assert call(sim, "GET", "/users/me/organizations").status_code == 502


def test_reset_removes_the_scene(sim):
    user = sim.create_user(name="Temp")
    sim.create_organization(name="Temp Org", admins=[user["id"]], projects=1)
    sim.set_unavailable([DEMO], answers=None)
    sim.share_project(ORG_PROJECTS[0], user["id"])
    sim.reset()
    assert [org["id"] for org in sim.organizations()] == [ORG]
    assert [u["name"] for u in sim.users()] == ["Sam Simulator", "Riley Member", "Alex Partner"]
    assert control(sim, "GET", "/unavailable").json() == {"unavailable": []}
