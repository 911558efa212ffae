# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The decisions about a project's grants, without HTTP: which emails are granted and which grants revoked,
how emails compare, what check mode shows, and which of a run's grants repeat an earlier one."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._api.errors import UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.permissions import (
    answered_grant,
    email_problem,
    emails_of,
    plan_grants,
    planned_grants,
    surplus_grants,
    unique_emails,
)


def grant(email, grant_id=None, at="2026-03-02T09:00:00Z", **more):
    return dict(id=grant_id or "g-" + email, granted_to_email=email, granted_at=at, **more)


ANA = grant("Ana@Example.com")
BO = grant("bo@example.com")


@pytest.mark.parametrize("email", ["ana@example.com", "a@b", " ana@example.com ", "first.last+tag@sub.example.org"])
def test_an_email_address_is_taken(email):
    assert email_problem(email) is None


@pytest.mark.parametrize("email", ["", "   ", "ana.example.com", "@example.com", "ana@", "ana @example.com", None,
                                   "a@" + "b" * 256])
def test_anything_else_is_refused_naming_the_option(email):
    problem = email_problem(email, "each of emails")
    assert problem.startswith("each of emails must be")


def test_repeated_emails_count_once_as_first_given():
    assert unique_emails(["Ana@Example.com", "ana@example.com ", " bo@example.com", "ANA@EXAMPLE.COM"]) == [
        "Ana@Example.com", "bo@example.com"]


def test_present_grants_only_the_emails_without_a_grant_whatever_their_case():
    plan = plan_grants([ANA], ["ana@example.com", "Cy@example.com"], "present")
    assert (plan.grant, plan.revoke, plan.changed) == (["Cy@example.com"], [], True)
    assert plan_grants([ANA, BO], ["BO@example.com", "ANA@example.com"], "present").changed is False


def test_present_leaves_other_grants_unless_exclusive_revokes_them():
    assert plan_grants([ANA, BO], ["ana@example.com"], "present").revoke == []
    plan = plan_grants([ANA, BO], ["ana@example.com"], "present", exclusive=True)
    assert (plan.grant, plan.revoke) == ([], [BO])
    everyone = plan_grants([ANA, BO], [], "present", exclusive=True)
    assert everyone.revoke == [ANA, BO] and everyone.grant == []


def test_absent_revokes_every_grant_to_a_listed_email_even_two_and_grants_nothing():
    twice = grant("bo@example.com", "g-second")
    plan = plan_grants([ANA, BO, twice], ["BO@EXAMPLE.COM", "nobody@example.com"], "absent")
    assert (plan.grant, plan.revoke) == ([], [BO, twice])
    assert plan_grants([ANA], ["bo@example.com"], "absent").changed is False


def test_a_revoked_grant_listed_is_not_in_force():
    old = grant("bo@example.com", revoked_at="2026-03-03T00:00:00Z")
    plan = plan_grants([ANA, old], ["bo@example.com"], "present")
    assert plan.grant == ["bo@example.com"]
    assert plan_grants([old], ["bo@example.com"], "absent").revoke == []


def test_check_mode_shows_the_grants_as_they_would_be_and_the_diff_sorts_emails_without_case():
    plan = plan_grants([ANA, BO], ["bo@example.com", "cy@example.com"], "present", exclusive=True)
    after = planned_grants([ANA, BO], plan)
    assert after == [BO, {"id": None, "granted_to_email": "cy@example.com", "granted_at": None}]
    assert emails_of([BO, ANA]) == ["Ana@Example.com", "bo@example.com"]


def test_of_two_grants_to_one_email_the_run_that_made_the_later_one_revokes_it():
    first = grant("ana@example.com", "g-1", at="2026-03-02T09:00:00Z")
    second = grant("ANA@example.com", "g-2", at="2026-03-02T09:00:01Z")
    listed = [second, first, BO]  # in no particular order
    assert surplus_grants(listed, {"g-2"}) == [second]
    assert surplus_grants(listed, {"g-1"}) == []  # the earlier one is kept by the run that made it


def test_grants_of_one_second_are_ordered_as_listed_so_every_run_agrees():
    first, second = grant("ana@example.com", "g-z"), grant("ana@example.com", "g-a")
    assert surplus_grants([first, second], {"g-z", "g-a"}) == [second]
    assert surplus_grants([first, second], {"g-z"}) == []


def test_a_grant_answer_is_checked_and_must_be_for_the_email_asked():
    assert answered_grant(grant("Ana@example.com"), "POST", "/p", "ana@EXAMPLE.com")["id"] == "g-Ana@example.com"
    with pytest.raises(UnexpectedAnswer, match="granted_to_email"):
        answered_grant(grant("bo@example.com"), "POST", "/p", "ana@example.com")
    with pytest.raises(UnexpectedAnswer, match="id is missing"):
        answered_grant({"granted_to_email": "ana@example.com"}, "POST", "/p")
    with pytest.raises(UnexpectedAnswer):
        answered_grant({"project_permission": grant("ana@example.com")}, "POST", "/p")
