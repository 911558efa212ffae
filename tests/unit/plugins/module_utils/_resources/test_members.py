# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The decisions about an organization's people, without HTTP: invite, change a role, remove or leave alone;
the only admin kept; which key may invite, remove or change a role; what a diff shows."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._resources.members import (
    decide_member,
    find_by_email,
    key_problem,
    only_admin_problem,
    shown,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import CREATE, DELETE, NOTHING, UPDATE

ORG = "org-calm-tree-21298941"
SAM = dict(id="m-sam", user_id="u-sam", org_id=ORG, role="admin", email="sam@example.com")
RILEY = dict(id="m-riley", user_id="u-riley", org_id=ORG, role="member", email="Riley@Example.com")
INVITED = dict(id="i-1", email="new@example.com", role="member", invited_at="2026-03-02T09:00:00Z")
PERSONAL_SAM = dict(key_type="personal", auth_method="api_key_user", account_id="u-sam")
PERSONAL_RILEY = dict(key_type="personal", auth_method="api_key_user", account_id="u-riley")
ORG_KEY = dict(key_type="organization", auth_method="api_key_org", account_id=ORG)


def test_people_are_found_by_email_without_case():
    assert find_by_email([SAM, RILEY], "riley@example.COM") is RILEY
    assert find_by_email([SAM], "riley@example.com") is None


def test_someone_neither_member_nor_invited_is_invited_as_a_member_unless_a_role_is_given():
    plan = decide_member(None, None, "new@example.com", None, "present")
    assert (plan.action, plan.body) == (CREATE, {"email": "new@example.com", "role": "member"})
    assert decide_member(None, None, "new@example.com", "admin", "present").body["role"] == "admin"


def test_someone_invited_already_is_left_as_they_are_with_the_reason():
    plan = decide_member(None, INVITED, "NEW@example.com", "admin", "present")
    assert plan.action == NOTHING and "has not joined yet" in plan.reason and "2026-03-02" in plan.reason
    assert decide_member(None, INVITED, "new@example.com", None, "absent").action == NOTHING


def test_a_member_s_role_changes_only_when_given_and_different():
    plan = decide_member(RILEY, None, RILEY["email"], "admin", "present")
    assert (plan.action, plan.body, plan.changes) == (UPDATE, {"role": "admin"}, {"role": ("member", "admin")})
    assert decide_member(RILEY, None, RILEY["email"], "member", "present").action == NOTHING
    assert decide_member(RILEY, None, RILEY["email"], None, "present").action == NOTHING


def test_absent_removes_a_member_and_does_nothing_for_anyone_else():
    assert decide_member(RILEY, None, RILEY["email"], None, "absent").action == DELETE
    assert decide_member(None, None, "gone@example.com", None, "absent").action == NOTHING


@pytest.mark.parametrize("role, state", [(None, "absent"), ("member", "present")])
def test_the_only_admin_is_neither_removed_nor_made_a_member(role, state):
    plan = decide_member(SAM, None, SAM["email"], role, state)
    problem = only_admin_problem([SAM, RILEY], SAM, plan, ORG)
    assert "sam@example.com is the only admin of organization %s" % ORG in problem


def test_an_admin_among_others_may_go_and_members_are_never_held_back():
    other_admin = dict(RILEY, role="admin")
    assert only_admin_problem([SAM, other_admin], SAM, decide_member(SAM, None, SAM["email"], None, "absent"), ORG) is None
    assert only_admin_problem([SAM, RILEY], RILEY, decide_member(RILEY, None, RILEY["email"], None, "absent"), ORG) is None
    keep = decide_member(SAM, None, SAM["email"], "admin", "present")
    assert only_admin_problem([SAM], SAM, keep, ORG) is None


@pytest.mark.parametrize("action_args", [(None, None, "x@example.com", None, "present"),
                                         (RILEY, None, RILEY["email"], None, "absent")])
def test_inviting_and_removing_need_a_personal_key_an_organization_key_is_told_so(action_args):
    plan = decide_member(*action_args)
    problem = key_problem(ORG_KEY, [SAM, RILEY], plan, ORG)
    assert "needs the personal API key of an organization admin" in problem
    assert "organization key, auth_method api_key_org" in problem
    assert key_problem(PERSONAL_SAM, [SAM, RILEY], plan, ORG) is None


def test_a_member_s_personal_key_cannot_invite_remove_or_change_roles_and_says_who_it_is():
    for plan in (decide_member(None, None, "x@example.com", None, "present"),
                 decide_member(SAM, None, SAM["email"], None, "absent"),
                 decide_member(SAM, None, SAM["email"], "member", "present")):
        problem = key_problem(PERSONAL_RILEY, [SAM, RILEY], plan, ORG)
        assert "this task's key is the personal key of Riley@Example.com, who is a member there" in problem


def test_an_organization_key_may_change_roles_and_an_unknown_key_is_left_to_the_service():
    promote = decide_member(RILEY, None, RILEY["email"], "admin", "present")
    assert key_problem(ORG_KEY, [SAM, RILEY], promote, ORG) is None
    invite = decide_member(None, None, "x@example.com", None, "present")
    assert key_problem(None, [SAM, RILEY], invite, ORG) is None
    assert key_problem(dict(key_type=None, auth_method="oauth"), [SAM], invite, ORG) is None
    stranger = dict(PERSONAL_SAM, account_id="u-unknown")  # not listed: the service decides
    assert key_problem(stranger, [SAM, RILEY], invite, ORG) is None
    nothing = decide_member(SAM, None, SAM["email"], None, "present")
    assert key_problem(PERSONAL_RILEY, [SAM, RILEY], nothing, ORG) is None


def test_the_diff_shows_email_role_and_whether_member_or_invited():
    assert shown(RILEY, None) == {"email": "Riley@Example.com", "role": "member", "status": "member"}
    assert shown(None, INVITED) == {"email": "new@example.com", "role": "member", "status": "invited"}
    assert shown(None, None) == {}
