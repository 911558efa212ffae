# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pure rules of project_member (_resources/project_members.py): what changes, what the diff predicts."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._resources.project_members import (
    options_problem,
    predicted,
    role_plan,
)

MEMBER = dict(member_id="m", user_id="u", email="riley@example.com", org_role="member", project_role="editor",
              org_default_project_permission="EDITOR", explicit_project_permission=None,
              effective_project_permission="EDITOR", grant_source="org_role_default")


def test_options_alone():
    assert "role is required" in options_problem(dict(state="present", role=None))
    assert "role is not used" in options_problem(dict(state="absent", role="viewer"))
    assert options_problem(dict(state="present", role="viewer")) is None


def test_the_explicit_role_is_what_is_compared():
    assert role_plan(MEMBER, dict(state="present", role="editor")) == "set"  # editor by default only
    assert role_plan(dict(MEMBER, explicit_project_permission="EDITOR"), dict(state="present", role="editor")) == "none"
    assert role_plan(dict(MEMBER, explicit_project_permission="Viewer"), dict(state="present", role="viewer")) == "none"
    assert role_plan(MEMBER, dict(state="absent")) == "none"
    assert role_plan(dict(MEMBER, explicit_project_permission="ADMIN"), dict(state="absent")) == "remove"
    # a level the service adds later is compared as it comes, never a failure
    assert role_plan(dict(MEMBER, explicit_project_permission="OWNER"), dict(state="present", role="admin")) == "set"


def test_the_prediction_follows_the_organization_role():
    assert predicted(MEMBER, dict(state="present", role="viewer"))["project_role"] == "viewer"
    admin = dict(MEMBER, org_role="admin", org_default_project_permission="ADMIN")
    assert predicted(admin, dict(state="present", role="viewer"))["project_role"] == "admin"
    removed = predicted(dict(MEMBER, explicit_project_permission="VIEWER", project_role="viewer"), dict(state="absent"))
    assert removed["project_role"] == "editor" and removed["explicit_project_permission"] is None
    unassigned = dict(MEMBER, org_role="collaborator", org_default_project_permission=None)
    assert predicted(unassigned, dict(state="absent"))["project_role"] is None
    assert "grant_source" not in predicted(MEMBER, dict(state="present", role="viewer"))
