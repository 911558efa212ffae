# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""project_permission, organization_member and organization_member_info against the simulator.

Each test runs a module in this process (rel.run_module), as a playbook task would, and checks what
a user would notice: who reaches a project afterwards (the person's own key), who belongs to an
organization, what the result and the diff say, which requests were sent (the simulator's request
log), and that refused input, a key that cannot make a change and check mode send no change.
Overlapping runs are module processes whose first listings a barrier holds until all have theirs.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest
import requests

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok
from test_provisioning_modules import changes_since, requests_since, run

RUN_TIMEOUT = 120  # seconds for the module processes of an overlap test
BARRIER_TIMEOUT = 60


# ---------------------------------------------------------------------------------------------- scenes


def person(sim, prefix="person"):
    """A new simulated user and a personal key of theirs: (user, key secret)."""
    name = rel.unique_name(prefix)
    user = sim.create_user(name=name, email="%s@example.com" % name)
    return user, sim.create_key("personal", user_id=user["id"], name=name)["key"]


def organization(sim, admins=("bootstrap",), members=()):
    return sim.create_organization(name=rel.unique_name("org"), admins=list(admins), members=list(members))


def project(sim):
    return sim.create_project(name=rel.unique_name("share"))["id"]


def as_user(sim, key, method, path, **kwargs):
    """A request to the API with someone else's key: (status, body)."""
    response = requests.request(method, sim.url + path, headers={"Authorization": "Bearer " + key}, timeout=10,
                                **kwargs)
    return response.status_code, response.json()


def shared_with(sim, key):
    """The ids of the projects shared with a key's user, as that user sees them."""
    status, body = as_user(sim, key, "GET", "/projects/shared")
    assert status == 200, body
    return [item["id"] for item in body["projects"]]


def grants(sim, project_id):
    return rel.api(sim, "GET", "/projects/%s/permissions" % project_id)["project_permissions"]


def members(sim, org_id):
    return {item["user"]["email"]: item["member"]["role"]
            for item in rel.api(sim, "GET", "/organizations/%s/members" % org_id)["members"]}


def invited(sim, org_id):
    return [item["email"] for item in rel.api(sim, "GET", "/organizations/%s/invitations" % org_id)["invitations"]]


def warnings(result):
    return json.dumps(result.get("warnings"))


# ---------------------------------------------------------------------------------------------- project_permission


def test_sharing_reaches_the_person_and_an_unchanged_rerun_costs_one_read(sim):
    pid = project(sim)
    user, key = person(sim)
    outsider = rel.unique_name("outsider") + "@elsewhere.example"
    shared = ok(run(sim, "project_permission", project_id=pid, emails=[user["email"].upper(), outsider]))
    assert shared["changed"] is True and shared["granted"] == [user["email"].upper(), outsider]
    assert shared["revoked"] == [] and "operations" not in shared
    assert sorted(item["granted_to_email"] for item in shared["permissions"]) == sorted([user["email"].upper(), outsider])
    assert all(item["id"] and item["granted_at"] for item in shared["permissions"])
    assert shared_with(sim, key) == [pid]  # the person finds it among their shared projects
    assert as_user(sim, key, "GET", "/projects/%s/branches" % pid)[0] == 200

    seq = last_seq(sim)
    again = ok(run(sim, "project_permission", project_id=pid, emails=[outsider.upper(), user["email"]]))
    assert again["changed"] is False and again["granted"] == [] and again["revoked"] == []
    assert requests_since(sim, seq) == [("GET", "/api/v2/projects/%s/permissions" % pid)]


def test_check_mode_shows_the_drift_and_sends_no_change_then_the_run_changes_exactly_that(sim):
    pid = project(sim)
    keep, leave = "keep-%s@example.com" % rel.unique_name(), "leave-%s@example.com" % rel.unique_name()
    ok(run(sim, "project_permission", project_id=pid, emails=[keep, leave]))
    new = "new-%s@example.com" % rel.unique_name()

    seq = last_seq(sim)
    checked = ok(run(sim, "project_permission", check_mode=True, diff=True, project_id=pid, emails=[keep, new],
                     exclusive=True))
    assert checked["changed"] is True and checked["granted"] == [new] and checked["revoked"] == [leave]
    assert checked["diff"] == {"before": {"emails": sorted([keep, leave])}, "after": {"emails": sorted([keep, new])}}
    assert changes_since(sim, seq) == []
    assert sorted(item["granted_to_email"] for item in grants(sim, pid)) == sorted([keep, leave])

    applied = ok(run(sim, "project_permission", diff=True, project_id=pid, emails=[keep, new], exclusive=True))
    assert applied["diff"] == checked["diff"] and (applied["granted"], applied["revoked"]) == ([new], [leave])
    assert sorted(item["granted_to_email"] for item in grants(sim, pid)) == sorted([keep, new])
    assert ok(run(sim, "project_permission", check_mode=True, project_id=pid, emails=[keep, new],
                  exclusive=True))["changed"] is False


def test_absent_and_exclusive_revoke_and_the_person_loses_the_project(sim):
    pid = project(sim)
    user, key = person(sim)
    other, other_key = person(sim)
    ok(run(sim, "project_permission", project_id=pid, emails=[user["email"], other["email"]]))
    assert shared_with(sim, key) == [pid] and shared_with(sim, other_key) == [pid]

    revoked = ok(run(sim, "project_permission", project_id=pid, emails=[user["email"].title()], state="absent"))
    assert revoked["changed"] is True and revoked["revoked"] == [user["email"]]
    assert shared_with(sim, key) == [] and as_user(sim, key, "GET", "/projects/%s/branches" % pid)[0] == 404
    assert ok(run(sim, "project_permission", project_id=pid, emails=[user["email"]], state="absent"))["changed"] is False

    nobody = ok(run(sim, "project_permission", project_id=pid, emails=[], exclusive=True))
    assert nobody["revoked"] == [other["email"]] and nobody["permissions"] == [] and grants(sim, pid) == []
    assert shared_with(sim, other_key) == []


def test_a_project_the_key_does_not_reach_is_a_sentence(sim):
    result = failed(run(sim, "project_permission", project_id="no-such-project-00000000", emails=["a@example.com"]))
    assert "there is no project no-such-project-00000000 that this API key reaches" in result["msg"]
    assert result["changed"] is False


@pytest.mark.parametrize("module, args, words", [
    ("project_permission", dict(project_id="p-1", emails=["ana@example.com", "no-at-sign"]), "each of emails must be"),
    ("project_permission", dict(project_id="p-1", emails=["ana@example.com"], state="absent", exclusive=True),
     "exclusive applies to state=present only"),
    ("organization_member", dict(org_id="org-x", email="ana.example.com"), "email must be an email address"),
    ("organization_member", dict(org_id="org-x", email="ana@example.com", role="owner"), "role must be one of"),
    ("organization_member", dict(org_id="org-x", email="ana@example.com", role="member", state="absent"),
     "role applies to state=present only"),
])
def test_refused_input_sends_no_request(sim, module, args, words):
    seq = last_seq(sim)
    result = failed(run(sim, module, **args))
    assert words in result["msg"] and requests_since(sim, seq) == []


def test_a_lost_grant_answer_is_looked_for_and_not_granted_twice(sim):
    pid = project(sim)
    email = "lost-%s@example.com" % rel.unique_name()
    sim.add_fault(method="POST", path="/api/v2/projects/%s/permissions" % pid, count=1, status=502, apply=True)
    result = ok(run(sim, "project_permission", project_id=pid, emails=[email]))
    assert result["changed"] is True and result["granted"] == [email]
    assert "was lost" in warnings(result) and "not created twice" in warnings(result)
    assert [item["granted_to_email"] for item in grants(sim, pid)] == [email]
    posts = [entry["status"] for entry in sim.requests() if entry["method"] == "POST" and entry["path"].endswith(pid + "/permissions")]
    assert posts == [502]


@pytest.mark.parametrize("duplicate_grant", ["conflict", "existing", "new"])
def test_overlapping_grants_of_one_email_leave_one_grant_whatever_the_service_does_with_a_second(
        sim, collection_parent, tmp_path, duplicate_grant):
    pid = project(sim)
    email = "both-%s@example.com" % rel.unique_name()
    sim.state.sharing.set_sharing_settings({"duplicate_grant": duplicate_grant})
    try:
        sim.add_barrier(method="GET", path="/api/v2/projects/%s/permissions" % pid, parties=2, timeout=BARRIER_TIMEOUT)
        args = rel.connection_args(sim, project_id=pid, emails=[email], api_timeout=RUN_TIMEOUT - 10)
        runs = rel.module_process_results(
            rel.start_module_processes(collection_parent, tmp_path, "project_permission", [args, args]), RUN_TIMEOUT)
    finally:
        sim.state.sharing.set_sharing_settings({"duplicate_grant": "conflict"})
    assert [barrier["timed_out"] for barrier in sim.barriers()][-1] is False
    posts = [entry for entry in sim.requests() if entry["method"] == "POST" and entry["path"].endswith(pid + "/permissions")]
    assert len(posts) == 2  # both runs listed before either granted: they overlapped
    assert [item["granted_to_email"] for item in grants(sim, pid)] == [email]
    for result in runs:
        assert not result.get("failed"), result
        assert [item["granted_to_email"] for item in result["permissions"]] == [email]
    made = sim.state.sharing.all_grants(pid)
    if duplicate_grant == "new":
        assert len(made) == 2 and len([item for item in made if "revoked_at" in item]) == 1
        assert "revoked again, leaving the earlier one" in json.dumps([result.get("warnings") for result in runs])
    else:
        assert len(made) == 1
    if duplicate_grant == "conflict":
        assert sorted(result["granted"] for result in runs) == [[], [email]]
        assert "granted by another run at the same time" in json.dumps([result.get("warnings") for result in runs])


# ---------------------------------------------------------------------------------------------- organization_member


def test_inviting_someone_without_an_account_leaves_a_pending_invitation_and_a_rerun_changes_nothing(sim):
    org = organization(sim)["id"]
    email = "%s@newcomers.example" % rel.unique_name("hire")
    result = ok(run(sim, "organization_member", diff=True, org_id=org, email=email))
    assert result["changed"] is True and result["member"] is None
    assert (result["invitation"]["email"], result["invitation"]["role"]) == (email, "member")
    assert result["diff"] == {"before": {}, "after": {"email": email, "role": "member", "status": "invited"}}
    assert invited(sim, org) == [email] and email not in members(sim, org)

    seq = last_seq(sim)
    again = ok(run(sim, "organization_member", org_id=org, email=email.upper()))
    assert again["changed"] is False and again["invitation"]["email"] == email
    assert "has not joined yet" in warnings(again) and changes_since(sim, seq) == []
    assert len(requests_since(sim, seq)) == 2  # the members and the invitations

    gone = ok(run(sim, "organization_member", org_id=org, email=email, state="absent"))
    assert gone["changed"] is False and "cannot cancel an invitation" in warnings(gone)


def test_someone_with_an_account_joins_at_once_and_a_role_change_is_one_patch(sim):
    org = organization(sim)["id"]
    user, key = person(sim)
    joined = ok(run(sim, "organization_member", org_id=org, email=user["email"], role="member"))
    assert joined["changed"] is True and joined["member"]["user_id"] == user["id"]
    assert joined["member"]["role"] == "member" and joined["invitation"]["email"] == user["email"]
    assert members(sim, org)[user["email"]] == "member" and invited(sim, org) == []
    assert as_user(sim, key, "GET", "/organizations/%s" % org)[0] == 200  # the person reaches it now

    seq = last_seq(sim)
    promoted = ok(run(sim, "organization_member", diff=True, org_id=org, email=user["email"], role="admin"))
    assert promoted["changed"] is True and promoted["member"]["role"] == "admin"
    assert promoted["diff"]["before"]["role"] == "member" and promoted["diff"]["after"]["role"] == "admin"
    assert changes_since(sim, seq) == [("PATCH", "/api/v2/organizations/%s/members/%s" % (org, promoted["member"]["id"]))]
    assert members(sim, org)[user["email"]] == "admin"

    seq = last_seq(sim)
    assert ok(run(sim, "organization_member", org_id=org, email=user["email"], role="admin"))["changed"] is False
    assert ok(run(sim, "organization_member", org_id=org, email=user["email"]))["changed"] is False
    assert requests_since(sim, seq) == [("GET", "/api/v2/organizations/%s/members" % org)] * 2


def test_check_mode_sends_no_change_for_an_invitation_a_role_or_a_removal(sim):
    user, _key = person(sim)
    org = organization(sim, members=[user["id"]])["id"]
    seq = last_seq(sim)
    newcomer = "%s@example.com" % rel.unique_name("check")
    invite = ok(run(sim, "organization_member", check_mode=True, org_id=org, email=newcomer, role="admin"))
    assert invite["changed"] is True and invite["invitation"]["role"] == "admin"
    promote = ok(run(sim, "organization_member", check_mode=True, org_id=org, email=user["email"], role="admin"))
    assert promote["changed"] is True and promote["member"]["role"] == "admin"
    remove = ok(run(sim, "organization_member", check_mode=True, diff=True, org_id=org, email=user["email"],
                    state="absent"))
    assert remove["changed"] is True and remove["member"] is None and remove["diff"]["after"] == {}
    assert changes_since(sim, seq) == []
    assert members(sim, org)[user["email"]] == "member" and invited(sim, org) == []


def test_removing_a_member_takes_away_the_organization_and_again_is_unchanged(sim):
    user, key = person(sim)
    org = organization(sim, members=[user["id"]])["id"]
    removed = ok(run(sim, "organization_member", org_id=org, email=user["email"], state="absent"))
    assert removed["changed"] is True and removed["member"] is None
    assert user["email"] not in members(sim, org)
    assert as_user(sim, key, "GET", "/projects", params={"org_id": org})[0] == 403
    assert ok(run(sim, "organization_member", org_id=org, email=user["email"], state="absent"))["changed"] is False


def test_a_removal_answered_200_without_a_body_is_done_once(sim):
    """The removal's documented answer is an empty object; an empty body says the same and is the success (issue 37),
    not an error after the member was removed."""
    user, _key = person(sim)
    org = organization(sim, members=[user["id"]])["id"]
    sim.add_fault(method="DELETE", path="/api/v2/organizations/%s/members/*" % org, status=200, body="empty",
                  apply=True)
    seq = last_seq(sim)
    removed = ok(run(sim, "organization_member", org_id=org, email=user["email"], state="absent"))
    assert removed["changed"] is True and removed["member"] is None and "warnings" not in removed
    assert [method for method, _path in changes_since(sim, seq)] == ["DELETE"]
    assert user["email"] not in members(sim, org)


def test_the_only_admin_is_neither_removed_nor_demoted_and_nothing_is_sent(sim):
    admin, admin_key = person(sim, "admin")
    org = organization(sim, admins=[admin["id"]], members=["bootstrap"])["id"]
    for args in (dict(state="absent"), dict(role="member")):
        seq = last_seq(sim)
        result = failed(run(sim, "organization_member", api_key=admin_key, org_id=org, email=admin["email"], **args))
        assert "is the only admin of organization %s" % org in result["msg"] and "Nothing was changed" in result["msg"]
        assert changes_since(sim, seq) == []
    assert members(sim, org)[admin["email"]] == "admin"


def test_an_organization_key_cannot_invite_or_remove_and_says_which_key_it_needs_but_changes_roles(sim):
    user, _key = person(sim)
    org = organization(sim, members=[user["id"]])["id"]
    org_key = sim.create_key("organization", org_id=org, name=rel.unique_name("orgkey"))["key"]
    for args in (dict(email="%s@example.com" % rel.unique_name("via-org-key")), dict(email=user["email"], state="absent")):
        seq = last_seq(sim)
        result = failed(run(sim, "organization_member", api_key=org_key, org_id=org, **args))
        assert "needs the personal API key of an organization admin" in result["msg"]
        assert "organization key" in result["msg"] and "Nothing was changed" in result["msg"]
        assert changes_since(sim, seq) == [] and ("GET", "/api/v2/auth") in requests_since(sim, seq)
    assert members(sim, org)[user["email"]] == "member"
    promoted = ok(run(sim, "organization_member", api_key=org_key, org_id=org, email=user["email"], role="admin"))
    assert promoted["changed"] is True and members(sim, org)[user["email"]] == "admin"


def test_a_member_s_own_key_cannot_invite_and_a_project_key_cannot_even_read(sim):
    user, key = person(sim)
    org = sim.create_organization(name=rel.unique_name("org"), admins=["bootstrap"], members=[user["id"]], projects=1)
    seq = last_seq(sim)
    result = failed(run(sim, "organization_member", api_key=key, org_id=org["id"], email="x-%s@example.com" % rel.unique_name()))
    assert "needs an organization admin's personal API key" in result["msg"] and "who is a member there" in result["msg"]
    assert changes_since(sim, seq) == []

    scoped = sim.create_key("project", project_id=org["projects"][0]["id"], name=rel.unique_name("scoped"))["key"]
    refused = failed(run(sim, "organization_member_info", api_key=scoped, org_id=org["id"]))
    assert "a project-scoped key cannot" in refused["msg"] and "HTTP 403" in refused["msg"]


def test_info_lists_members_with_emails_and_pending_invitations(sim):
    user, _key = person(sim)
    org = organization(sim, members=[user["id"]])["id"]
    newcomer = "%s@example.com" % rel.unique_name("pending")
    ok(run(sim, "organization_member", org_id=org, email=newcomer, role="admin"))
    seq = last_seq(sim)
    info = ok(run(sim, "organization_member_info", check_mode=True, org_id=org))
    assert info["changed"] is False
    expected = [("sam@example.com", "admin"), (user["email"], "member")]
    assert [(item["email"], item["role"]) for item in info["members"]] == expected
    assert all(item["id"] and item["user_id"] and item["org_id"] == org and item["joined_at"] for item in info["members"])
    assert [(item["email"], item["role"]) for item in info["invitations"]] == [(newcomer, "admin")]
    assert changes_since(sim, seq) == [] and len(requests_since(sim, seq)) == 2


def test_overlapping_invitations_of_one_email_send_one_and_both_runs_succeed(sim, collection_parent, tmp_path):
    org = organization(sim)["id"]
    email = "%s@example.com" % rel.unique_name("twice")
    sim.add_barrier(method="GET", path="/api/v2/organizations/%s/invitations" % org, parties=2, timeout=BARRIER_TIMEOUT)
    args = rel.connection_args(sim, org_id=org, email=email, api_timeout=RUN_TIMEOUT - 10)
    runs = rel.module_process_results(
        rel.start_module_processes(collection_parent, tmp_path, "organization_member", [args, args]), RUN_TIMEOUT)
    posts = [entry["status"] for entry in sim.requests() if entry["method"] == "POST" and entry["path"].endswith("/invitations")]
    assert sorted(posts) == [200, 409]  # both listed before either invited: they overlapped
    assert invited(sim, org) == [email]
    assert sorted(result["changed"] for result in runs) == [False, True]
    assert all(not result.get("failed") and result["invitation"]["email"] == email for result in runs)
    assert "invited by another run at the same time" in json.dumps([result.get("warnings") for result in runs])


def test_a_lost_invitation_answer_is_looked_for_and_not_sent_twice(sim):
    org = organization(sim)["id"]
    email = "%s@example.com" % rel.unique_name("lost")
    sim.add_fault(method="POST", path="/api/v2/organizations/%s/invitations" % org, count=1, status=502, apply=True)
    result = ok(run(sim, "organization_member", org_id=org, email=email))
    assert result["changed"] is True and result["invitation"]["email"] == email
    assert "was lost" in warnings(result) and invited(sim, org) == [email]
    posts = [entry["status"] for entry in sim.requests() if entry["method"] == "POST" and entry["path"].endswith("/invitations")]
    assert posts == [502]


def test_an_answer_of_the_wrong_shape_is_a_clear_failure(sim):
    org = organization(sim)["id"]
    sim.add_fault(method="GET", path="/api/v2/organizations/%s/members" % org, count=1, body='{"members": "oops"}')
    result = failed(run(sim, "organization_member_info", org_id=org))
    assert "GET /organizations/%s/members failed: unexpected answer" % org in result["msg"]
    assert "members must be a list" in result["msg"] and result["changed"] is False
    pid = project(sim)
    sim.add_fault(method="GET", path="/api/v2/projects/%s/permissions" % pid, count=1,
                  body='{"project_permissions": [{"granted_to_email": "a@example.com"}]}')
    result = failed(run(sim, "project_permission", project_id=pid, emails=["a@example.com"]))
    assert "project_permissions[0].id is missing" in result["msg"] and result["changed"] is False


# ---------------------------------------------------------------------------------------------- offboarding


def test_offboarding_removes_the_person_from_the_organization_and_every_project_shared_with_them(sim):
    user, key = person(sim, "leaver")
    org = sim.create_organization(name=rel.unique_name("org"), admins=["bootstrap"], members=[user["id"]], projects=1)
    personal = [project(sim), project(sim)]
    for pid in personal:
        ok(run(sim, "project_permission", project_id=pid, emails=[user["email"]]))
    assert sorted(shared_with(sim, key)) == sorted(personal)
    assert as_user(sim, key, "GET", "/projects", params={"org_id": org["id"]})[0] == 200

    # The play: out of the organization, then out of every project the key reaches.
    assert ok(run(sim, "organization_member", org_id=org["id"], email=user["email"], state="absent"))["changed"] is True
    reached = [item["id"] for item in ok(run(sim, "projects_info"))["projects"]]
    changed = [pid for pid in reached
               if ok(run(sim, "project_permission", project_id=pid, emails=[user["email"]], state="absent"))["changed"]]
    assert sorted(changed) == sorted(personal)

    assert shared_with(sim, key) == []
    assert as_user(sim, key, "GET", "/projects", params={"org_id": org["id"]})[0] == 403
    assert all(as_user(sim, key, "GET", "/projects/%s/branches" % pid)[0] == 404 for pid in personal)
