# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""project_member against the simulator: a member's role on one project of an organization (August 2026).

Each test runs the module in this process (rel.run_module), as a playbook task would, and checks what a user would
notice: the member's role as the project's member list shows it afterwards, the result and the diff, which requests
were sent; that a rerun, check mode and refused input send no change; two runs at once are module processes.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok
from test_provisioning_modules import RUN_TIMEOUT, changes_since, requests_since, run

ORG = "org-calm-tree-21298941"
ORG_PROJECT = "bold-glade-61830452"
MEMBERS = "/api/v2/projects/%s/members" % ORG_PROJECT


def person(sim, role="member"):
    name = rel.unique_name("pm")
    user = sim.create_user(name=name, email="%s@example.com" % name)
    sim.add_member(ORG, user["id"], role)
    return user, sim.create_key("personal", user_id=user["id"], name=name)["key"]


def listed(sim, email):
    members = rel.api(sim, "GET", "/projects/%s/members?limit=500" % ORG_PROJECT)["project_members"]
    return next(member for member in members if member["email"] == email)


def member(sim, check_mode=False, diff=False, **args):
    args.setdefault("project_id", ORG_PROJECT)
    return run(sim, "project_member", check_mode=check_mode, diff=diff, **args)


def test_a_role_is_set_and_a_rerun_reads_once_and_changes_nothing(sim):
    user, _key = person(sim, "collaborator")
    seq = last_seq(sim)
    checked = ok(member(sim, check_mode=True, diff=True, email=user["email"].upper(), role="editor"))
    assert checked["changed"] is True and checked["member"]["project_role"] == "editor"
    assert checked["diff"]["before"]["project_role"] is None and checked["diff"]["after"]["project_role"] == "editor"
    assert changes_since(sim, seq) == [] and listed(sim, user["email"])["project_role"] is None

    made = ok(member(sim, diff=True, email=user["email"], role="editor"))
    assert made["changed"] is True and made["diff"] == checked["diff"]
    assert made["member"]["explicit_project_permission"] == "EDITOR" and "operations" not in made
    assert listed(sim, user["email"])["project_role"] == "editor"
    assert any(item["email"] == user["email"] and item["project_role"] == "editor" for item in made["project_members"])

    seq = last_seq(sim)
    again = ok(member(sim, email=user["email"], role="editor"))
    assert again["changed"] is False
    assert requests_since(sim, seq) == [("GET", MEMBERS)]


def test_absent_removes_the_explicit_role_and_the_organization_default_applies(sim):
    user, _key = person(sim, "member")
    ok(member(sim, email=user["email"], role="viewer"))
    lowered = listed(sim, user["email"])
    assert lowered["project_role"] == "viewer"
    removed = ok(member(sim, diff=True, member_id=lowered["member_id"], state="absent"))
    assert removed["changed"] is True and removed["member"]["explicit_project_permission"] is None
    assert removed["diff"]["after"]["project_role"] == "editor"  # a member's default
    assert listed(sim, user["email"])["project_role"] == "editor"
    seq = last_seq(sim)
    assert ok(member(sim, member_id=lowered["member_id"], state="absent"))["changed"] is False
    assert changes_since(sim, seq) == []


def test_lowering_a_role_warns_of_the_rotation_the_service_recommends(sim):
    user, _key = person(sim, "member")
    ok(member(sim, email=user["email"], role="admin"))
    result = ok(member(sim, email=user["email"], role="viewer"))
    assert "rotating the database passwords" in json.dumps(result["warnings"])


def test_ones_own_access_is_lowered_only_when_confirmed(sim):
    user, key = person(sim, "member")
    ok(member(sim, email=user["email"], role="admin"))
    refused = failed(member(sim, api_key=key, email=user["email"], role="viewer"))
    assert "confirm_self_change=true" in refused["msg"] and "HTTP 409" in refused["msg"]
    assert listed(sim, user["email"])["project_role"] == "admin"
    assert ok(member(sim, api_key=key, email=user["email"], role="viewer", confirm_self_change=True))["changed"] is True
    assert listed(sim, user["email"])["project_role"] == "viewer"


def test_403_and_404_are_explained_and_change_nothing(sim):
    _viewer, viewer_key = person(sim, "viewer")
    other, _other_key = person(sim, "member")
    seq = last_seq(sim)
    forbidden = failed(member(sim, api_key=viewer_key, email=other["email"], role="admin"))
    assert "HTTP 403" in forbidden["msg"] and "the project's admin role" in forbidden["msg"]
    personal = failed(member(sim, project_id="shiny-river-12345678", email=other["email"], role="viewer"))
    assert "is not an organization's" in personal["msg"] and "neon.cloud.project_permission" in personal["msg"]
    nobody = failed(member(sim, email="nobody-%s@example.com" % rel.unique_name(), role="viewer"))
    assert "is not among the members" in nobody["msg"] and "neon.cloud.organization_member" in nobody["msg"]
    # the one change sent is the refused one
    assert [(entry["method"], entry["status"]) for entry in sim.requests(since=seq) if entry["method"] != "GET"] == \
        [("PUT", 403)]
    assert listed(sim, other["email"])["explicit_project_permission"] is None


def test_bad_input_fails_before_any_request(sim):
    seq = last_seq(sim)
    assert "role is required" in failed(member(sim, email="a@example.com"))["msg"]
    assert "role is not used" in failed(member(sim, email="a@example.com", role="viewer", state="absent"))["msg"]
    assert "one of the following is required" in failed(member(sim, role="viewer"))["msg"]
    assert "value of role must be one of" in failed(member(sim, email="a@example.com", role="owner"))["msg"]
    assert sim.requests(since=seq) == []


def test_two_runs_at_once_both_succeed_and_the_role_is_set_once(sim, collection_parent, tmp_path):
    user, _key = person(sim, "collaborator")
    sim.add_barrier(method="GET", path=MEMBERS, parties=2)
    args = rel.connection_args(sim, project_id=ORG_PROJECT, email=user["email"], role="editor")
    results = rel.module_process_results(
        rel.start_module_processes(collection_parent, tmp_path, "project_member", [args, args]), RUN_TIMEOUT)
    assert all(not result.get("failed") for result in results), results
    assert all(result["member"]["project_role"] == "editor" for result in results)
    assert listed(sim, user["email"])["explicit_project_permission"] == "EDITOR"


def test_a_refusal_ends_its_message_once(sim):
    user, key = person(sim, "member")
    ok(member(sim, email=user["email"], role="admin"))
    lowered = failed(member(sim, api_key=key, email=user["email"], role="viewer"))  # its own role: 409
    assert "confirm_self_change=true" in lowered["msg"]
    _viewer, viewer_key = person(sim, "viewer")
    other, _key = person(sim, "member")
    refused = failed(member(sim, api_key=viewer_key, email=other["email"], role="admin"))  # 403
    for msg in (lowered["msg"], refused["msg"]):
        assert msg.count("Nothing was changed") == 1 and msg.endswith("Nothing was changed")
