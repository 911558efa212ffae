# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The branch rules of _resources/branches.py, without HTTP: what is created, updated or refused, when a branch is
settled, the expiries the service refuses; making a branch the default, a schema-only branch's options on a rerun,
and a point of a branch's history given as options (issue 31)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._resources.branches import (
    BRANCH,
    branch_settled,
    branch_input_problem,
    branch_problem,
    default_change,
    parent_problem,
    same_init_source,
    schema_only,
    without_source,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import CREATE, DELETE, NOTHING, REFUSE, UPDATE, decide
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal

MAIN = {"id": "br-main-1", "name": "main", "default": True}
DEV = {"id": "br-dev-1", "name": "dev", "parent_id": "br-main-1", "default": False}
SCHEMA_COPY = {"id": "br-copy-1", "name": "copy", "default": False, "init_source": "schema-only"}


def branch_options(**given):
    options = dict.fromkeys(("name", "parent", "parent_timestamp", "parent_lsn", "init_source", "protected",
                             "expires_at"))
    options.update(given)
    return options


# ---------------------------------------------------------------------------------------------- default


@pytest.mark.parametrize("current, wanted, change", [
    (DEV, True, True),
    (None, True, True),  # made, then made the default
    (MAIN, True, False),  # already so: nothing sent
    ({"id": "br-old", "name": "old", "primary": True}, True, False),  # older answers say primary
    (DEV, None, False),
    (DEV, False, False),  # not the default: nothing to do
    (None, False, False),
])
def test_default_change(current, wanted, change):
    assert default_change(current, wanted) is change


def test_default_false_on_the_default_branch_is_refused_and_says_what_to_do():
    with pytest.raises(Refusal) as refused:
        default_change(MAIN, False)
    assert "'main' (br-main-1) is the project's default branch" in refused.value.msg
    assert "set default: true on the branch that is to be the default instead" in refused.value.msg


def test_a_branch_that_becomes_the_default_cannot_expire():
    expiring = dict(DEV, expires_at="2026-06-01T00:00:00Z")
    assert "default: true" in branch_problem(dict(expiring, default=True), expiring, [MAIN, expiring])
    assert "remove the expiry with expires_at: ''" in branch_problem(dict(expiring, default=True), expiring, [])
    assert branch_problem(dict(DEV, default=True), DEV, [MAIN, DEV]) is None
    assert "it is the project's default branch" in branch_problem(dict(MAIN, expires_at="2026-06-01T00:00:00Z"),
                                                                  MAIN, [MAIN])


# ---------------------------------------------------------------------------------------------- init_source


def test_init_source_is_create_only_and_an_answer_without_it_is_taken_as_asked():
    assert same_init_source(None, "schema-only") and same_init_source("schema-only", "schema-only")
    assert not same_init_source("parent-data", "schema-only")
    created = decide(BRANCH, None, branch_options(name="copy", parent="br-main-1", init_source="schema-only"))
    assert created.action == CREATE and created.body["init_source"] == "schema-only"
    assert decide(BRANCH, DEV, branch_options(name="dev", init_source="schema-only")).action == NOTHING  # DEV does not say
    refused = decide(BRANCH, dict(DEV, init_source="parent-data"), branch_options(name="dev", init_source="schema-only"))
    assert refused.action == REFUSE and "init_source is 'parent-data', not 'schema-only'" in refused.reason


def test_a_schema_only_branch_is_not_compared_with_where_its_schema_came_from():
    options = branch_options(name="copy", parent="br-main-1", parent_lsn="0/1A", init_source="schema-only")
    assert schema_only(SCHEMA_COPY) and schema_only(SCHEMA_COPY, "parent-data")  # the service says so
    assert not schema_only(DEV, "schema-only")  # a child: not schema-only, whatever is asked
    assert schema_only({"id": "br-x", "name": "x"}, "schema-only")  # a root that does not say: as asked
    assert not schema_only({"id": "br-x", "name": "x"})
    # as the rerun decides: without the source options the branch is as asked, no refusal on parent
    assert decide(BRANCH, SCHEMA_COPY, options).action == REFUSE  # what the rule prevents
    assert decide(BRANCH, SCHEMA_COPY, without_source(options)).action == NOTHING
    assert without_source(options) == dict((key, value) for key, value in options.items()
                                           if key not in ("parent", "parent_timestamp", "parent_lsn"))


# ---------------------------------------------------------------------------------------------- points


@pytest.mark.parametrize("given, words", [
    (dict(parent_timestamp="2026-05-04T02:55:00Z"), None),
    (dict(parent_timestamp="2026-05-04T04:55:00.5+02:00"), None),
    (dict(parent_lsn="0/1F2E3D4", expires_at="2026-06-01T00:00:00Z"), None),
    (dict(expires_at=""), None),  # removes the expiry
    (dict(), None),
    (dict(parent_timestamp="2026-05-04"), "parent_timestamp must be an RFC 3339 timestamp"),
    (dict(parent_timestamp="2026-05-04 02:55:00.5+2:00"), "parent_timestamp must be an RFC 3339 timestamp"),
    (dict(parent_timestamp="2026-05-04T02:55:00+0200"), "such as 2026-05-04T02:55:00Z"),
    (dict(parent_lsn="0x1F"), "parent_lsn must be a Log Sequence Number"),
    (dict(parent_timestamp="2026-05-04T02:55:00Z", parent_lsn="0/1"), "give parent_timestamp or parent_lsn, not both"),
    (dict(expires_at="2026-06-31T00:00:00Z"), "expires_at must be an RFC 3339 timestamp"),
    (dict(expires_at="next week"), "expires_at must be an RFC 3339 timestamp"),
])
def test_a_branchs_points_in_time_that_cannot_be_sent_are_refused(given, words):
    problem = branch_input_problem(branch_options(**given))
    assert (problem is None) if words is None else (words in problem)


def test_absent_state_deletes_what_exists_and_nothing_else():
    assert decide(BRANCH, {"id": "br-1", "name": "pr-1"}, {}, state="absent").action == DELETE
    assert decide(BRANCH, None, {}, state="absent").action == NOTHING


BRANCHES = [
    {"id": "br-main", "name": "main", "default": True},
    {"id": "br-dev", "name": "dev", "parent_id": "br-main"},
    {"id": "br-pr-1", "name": "pr-1", "parent_id": "br-dev", "protected": False,
     "parent_timestamp": "2025-01-16T12:00:00Z", "parent_lsn": "0/1F2E3D4", "expires_at": "2025-02-01T00:00:00Z"},
]


def test_branch_parent_that_differs_is_refused():
    plan = decide(BRANCH, BRANCHES[2], branch_options(name="pr-1", parent="br-main"))
    assert plan.action == REFUSE
    assert "parent is 'br-dev', not 'br-main'" in plan.reason


def test_branch_point_in_time_compares_moments_not_spellings():
    same = branch_options(name="pr-1", parent="br-dev", parent_timestamp="2025-01-16T12:00:00.000+00:00",
                          parent_lsn="0/1f2e3d4", expires_at="2025-02-01T00:00:00+00:00")
    assert decide(BRANCH, BRANCHES[2], same).action == NOTHING
    other = decide(BRANCH, BRANCHES[2], branch_options(name="pr-1", parent_timestamp="2025-01-16T12:00:01Z"))
    assert other.action == REFUSE


def test_branch_protection_and_expiry_are_updated_and_empty_expiry_removes_it():
    plan = decide(BRANCH, BRANCHES[2], branch_options(name="pr-1", protected=True, expires_at=""))
    assert plan.action == UPDATE
    assert plan.body == {"protected": True, "expires_at": None}


def test_new_branch_body_has_only_what_was_asked():
    plan = decide(BRANCH, None, branch_options(name="pr-2", parent="br-dev", expires_at="2025-02-01T00:00:00Z"))
    assert plan.action == CREATE
    assert plan.body == {"name": "pr-2", "parent_id": "br-dev", "expires_at": "2025-02-01T00:00:00Z"}


# ---------------------------------------------------------------------------------------------- ready or not


@pytest.mark.parametrize("branch,settled", [
    ({"current_state": "ready"}, True),
    ({"current_state": "archived"}, True),
    ({"current_state": "ready", "pending_state": None}, True),
    ({"current_state": "init", "pending_state": "ready"}, False),
    ({"current_state": "resetting"}, False),
    ({"current_state": "ready", "pending_state": "archived"}, False),
    ({}, False),
])
def test_a_branch_is_settled_only_when_ready_or_archived_with_nothing_pending(branch, settled):
    assert branch_settled(branch) is settled


EXPIRY = "2030-01-01T00:00:00Z"
ROOT = {"id": "br-root", "name": "main", "default": True, "protected": False}
CHILD = {"id": "br-child", "name": "dev", "parent_id": "br-root", "default": False, "protected": False}
GRANDCHILD = {"id": "br-grand", "name": "pr-1", "parent_id": "br-child", "default": False, "protected": False}


@pytest.mark.parametrize("after,current,problem", [
    (dict(CHILD, expires_at=None, protected=True), CHILD, None),
    (dict(GRANDCHILD, expires_at=EXPIRY), GRANDCHILD, None),
    ({"name": "new", "expires_at": EXPIRY}, None, None),
    ({"name": "new", "expires_at": EXPIRY, "protected": True}, None, "a protected branch cannot have an expiry"),
    (dict(GRANDCHILD, expires_at=EXPIRY, protected=True), GRANDCHILD, "a protected branch cannot have an expiry"),
    (dict(ROOT, expires_at=EXPIRY), ROOT, "it is the project's default branch, which cannot have an expiry"),
    (dict(CHILD, expires_at=EXPIRY), CHILD, "it is the parent of 'pr-1' (br-grand), and a branch with children "
                                            "cannot have an expiry"),
])
def test_expiries_the_service_refuses_are_named_before_sending(after, current, problem):
    found = branch_problem(after, current, [ROOT, CHILD, GRANDCHILD])
    assert (found is None) if problem is None else found.startswith(problem)


def test_a_branch_cannot_be_made_from_an_expiring_parent():
    assert parent_problem(None) is None and parent_problem(CHILD) is None
    assert parent_problem(dict(CHILD, expires_at=EXPIRY)) == (
        "its parent 'dev' (br-child) expires (expires_at %s), and an expiring branch cannot be a parent" % EXPIRY)
