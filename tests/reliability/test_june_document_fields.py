# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What Neon's June 2026 OpenAPI document changed in what the collection already uses (issue 40), against the
simulator, in this process as a playbook task runs the modules.

What a user would notice: organization_member offers the newer roles (collaborator, editor, viewer) and takes a
member whose role it does not know yet as it comes; operations of the newer actions (and of one the service may
add) are listed and waited for; the newer fields of a role (``authentication_method``), an organization
(``require_mfa``), a snapshot (``full_size``, ``diff_size``), a branch (``recovery``) and a project listing item
(``deleted_at``, ``recoverable_until``) come back as the service answers them, and a value no document has yet never
fails the task.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import neon_reliability as rel
from neon_reliability import last_seq, ok
from test_provisioning_modules import changes_since, new_project, run

ORG = "org-calm-tree-21298941"  # the seeded organization (scale plan); the bootstrap user is its admin
CHECKOUT = "bold-glade-61830452"  # a project of ORG
UNKNOWN_ROLE = "billing_admin"  # a member role no document has (yet)


def person(sim):
    name = rel.unique_name("june")
    return sim.create_user(name=name, email="%s@example.com" % name)


def organization(sim):
    return sim.create_organization(name=rel.unique_name("june-org"), admins=["bootstrap"])["id"]


def roles_of(sim, org_id):
    return {item["user"]["email"]: item["member"]["role"]
            for item in rel.api(sim, "GET", "/organizations/%s/members" % org_id)["members"]}


def test_the_newer_member_roles_are_offered_to_join_change_and_invite(sim):
    org = organization(sim)
    user = person(sim)
    joined = ok(run(sim, "organization_member", org_id=org, email=user["email"], role="viewer"))
    assert joined["changed"] is True and joined["member"]["role"] == "viewer"
    assert roles_of(sim, org)[user["email"]] == "viewer"
    seq = last_seq(sim)
    edited = ok(run(sim, "organization_member", diff=True, org_id=org, email=user["email"], role="editor"))
    assert edited["diff"]["before"]["role"] == "viewer" and edited["diff"]["after"]["role"] == "editor"
    assert changes_since(sim, seq) == [("PATCH", "/api/v2/organizations/%s/members/%s" % (org, edited["member"]["id"]))]
    newcomer = "%s@example.com" % rel.unique_name("june-invited")  # no Neon account: a pending invitation
    invited = ok(run(sim, "organization_member", org_id=org, email=newcomer, role="collaborator"))
    assert invited["changed"] is True and invited["invitation"]["role"] == "collaborator"


def test_a_member_role_the_collection_does_not_know_yet_is_taken_as_it_comes(sim):
    org = organization(sim)
    user = person(sim)
    sim.add_member(org, user["id"], role="member")
    sim.state.shared.organizations[org].members[user["id"]] = UNKNOWN_ROLE  # a role the service adds one day
    listed = ok(run(sim, "organization_member_info", org_id=org))
    assert {item["email"]: item["role"] for item in listed["members"]}[user["email"]] == UNKNOWN_ROLE
    seq = last_seq(sim)
    kept = ok(run(sim, "organization_member", org_id=org, email=user["email"]))  # no role given: left as it is
    assert kept["changed"] is False and kept["member"]["role"] == UNKNOWN_ROLE and changes_since(sim, seq) == []
    changed = ok(run(sim, "organization_member", diff=True, org_id=org, email=user["email"], role="member"))
    assert changed["diff"]["before"]["role"] == UNKNOWN_ROLE and roles_of(sim, org)[user["email"]] == "member"


def test_operations_of_the_newer_actions_and_of_one_unknown_yet_are_listed_and_waited_for(sim):
    created = new_project(sim)
    pid = created["project"]["id"]
    actions = ["finalize_migration", "mark_migration_prepared", "swap_binding_id", "timeline_update_protected_config",
               "some_action_of_2027"]
    started = sim.start_operations(pid, [{"action": action, "duration": 5} for action in actions])
    waited = ok(run(sim, "operation_wait", project_id=pid, operation_ids=[op["id"] for op in started], timeout=120))
    assert sorted(op["action"] for op in waited["operations"]) == sorted(actions)
    assert {op["status"] for op in waited["operations"]} == {"finished"} and waited["failed_operations"] == []
    listed = ok(run(sim, "operation_info", project_id=pid, action="some_action_of_2027"))
    assert [op["id"] for op in listed["operations"]] == [started[-1]["id"]]


def test_a_role_s_authentication_method_comes_back_and_one_unknown_yet_does_not_fail_the_task(sim):
    created = new_project(sim)
    pid, main = created["project"]["id"], created["branch"]["id"]
    made = ok(run(sim, "role", project_id=pid, branch="main", name="june_app"))
    assert made["role"]["authentication_method"] == "password"
    path = "/api/v2/projects/%s/branches/%s/roles" % (pid, main)
    roles = rel.api(sim, "GET", "/projects/%s/branches/%s/roles" % (pid, main))
    for role in roles["roles"]:
        role["authentication_method"] = "passkey"  # a method no document has yet
    sim.add_fault(method="GET", path=path, status=200, body=json.dumps(roles), count=5)
    again = ok(run(sim, "role", project_id=pid, branch="main", name="june_app"))
    assert again["changed"] is False and again["role"]["authentication_method"] == "passkey"


def test_an_organization_s_require_mfa_comes_back_in_auth_info(sim):
    organizations = ok(run(sim, "auth_info"))["organizations"]
    seeded = [item for item in organizations if item["id"] == ORG]
    assert seeded and seeded[0]["require_mfa"] is False


def test_a_snapshot_s_sizes_come_back_in_snapshot_info(sim):
    created = new_project(sim, org_id=ORG)
    pid, main = created["project"]["id"], created["branch"]["id"]
    rel.api(sim, "POST", "/projects/%s/branches/%s/snapshot?name=june" % (pid, main))
    sim.advance_clock(30)
    snapshots = ok(run(sim, "snapshot_info", project_id=pid))["snapshots"]
    assert [item["name"] for item in snapshots] == ["june"]
    assert isinstance(snapshots[0]["full_size"], int) and snapshots[0]["full_size"] > 0


def test_a_deleted_branch_s_recovery_and_a_deleted_project_s_dates_come_back_as_answered(sim):
    created = new_project(sim)
    pid = created["project"]["id"]
    listing = rel.api(sim, "GET", "/projects/%s/branches" % pid)
    recovery = {"deleted_at": "2026-06-12T10:00:00Z", "recoverable_until": "2026-06-19T10:00:00Z",
                "deletion_method": "expired_by_policy"}  # a deletion method no document has yet
    listing["branches"][0]["recovery"] = recovery
    sim.add_fault(method="GET", path="/api/v2/projects/%s/branches" % pid, status=200, body=json.dumps(listing), count=5)
    branches = ok(run(sim, "branch_info", project_id=pid))["branches"]
    assert branches[0]["recovery"] == recovery

    projects = rel.api(sim, "GET", "/projects?limit=400")
    mine = next(item for item in projects["projects"] if item["id"] == pid)
    mine.update(deleted_at="2026-06-12T10:00:00Z", recoverable_until="2026-06-19T10:00:00Z")
    projects["projects"] = [mine]
    sim.add_fault(method="GET", path="/api/v2/projects", status=200, body=json.dumps(projects), count=5)
    found = ok(run(sim, "projects_info", project_id=pid))["projects"]
    assert [(item["deleted_at"], item["recoverable_until"]) for item in found] == [
        ("2026-06-12T10:00:00Z", "2026-06-19T10:00:00Z")]
