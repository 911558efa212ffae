# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The branch rules of descriptions.py for issue 31, without HTTP: making a branch the default, a schema-only
branch's options on a rerun, and a point of a branch's history given as options."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._resources.descriptions import (
    BRANCH,
    branch_input_problem,
    branch_problem,
    default_change,
    same_init_source,
    schema_only,
    without_source,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import CREATE, NOTHING, REFUSE, decide
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
