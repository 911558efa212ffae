# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rules of _resources/recoveries.py, without HTTP: which deleted object a name or an id means, when nothing is
recovered (a rerun), what is refused before sending and what it tells the user to decide, a TTL branch's warning, the
diff and what a refused recovery's status means."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError
from ansible_collections.neon.cloud.plugins.module_utils._resources.recoveries import (
    NOTHING,
    RECOVER,
    input_problem,
    lost_or_refused,
    recovery_diff,
    recovery_plan,
    refusal_hint,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal

WHERE = "of project p-1"
MAIN = {"id": "br-main-1", "name": "main", "default": True}


def deleted(branch_id, name, when="2026-11-27T09:00:00Z", method="user", until="2026-12-04T09:00:00Z", **fields):
    return dict(fields, id=branch_id, name=name, recovery={
        "deleted_at": when, "recoverable_until": until, "deletion_method": method})


DEV_OLD = deleted("br-dev-1", "dev", "2026-11-23T09:00:00Z", until="2026-11-30T09:00:00Z", parent_id="br-main-1")
DEV_NEW = deleted("br-dev-2", "dev", "2026-11-24T10:00:00Z", parent_id="br-main-1")


def branch_plan(wanted, live, gone):
    return recovery_plan("branch", wanted, live, gone, WHERE)


def test_a_deleted_branch_by_name_or_id_is_recovered():
    for wanted in ("dev", "br-dev-1"):
        plan = branch_plan(wanted, [MAIN], [DEV_OLD])
        assert plan.action == RECOVER and plan.changed and plan.deleted is DEV_OLD
        assert not plan.ttl_removed and plan.warnings == []


def test_a_live_branch_is_not_recovered_again():
    recovered = dict(DEV_OLD)
    del recovered["recovery"]
    for wanted in ("dev", "br-dev-1"):
        plan = branch_plan(wanted, [MAIN, recovered], [])
        assert plan.action == NOTHING and not plan.changed and plan.live is recovered


def test_several_deleted_of_one_name_are_refused_naming_each_id_and_deletion_time():
    with pytest.raises(Refusal) as refused:
        branch_plan("dev", [MAIN], [DEV_OLD, DEV_NEW])
    assert "2 deleted branches of project p-1 are named 'dev'" in refused.value.msg
    assert "id br-dev-1 (deleted at 2026-11-23T09:00:00Z" in refused.value.msg
    assert "id br-dev-2 (deleted at 2026-11-24T10:00:00Z" in refused.value.msg
    assert branch_plan("br-dev-2", [MAIN], [DEV_OLD, DEV_NEW]).deleted is DEV_NEW  # an id chooses


def test_a_live_branch_of_the_name_beside_a_deleted_one_is_refused_saying_what_to_decide():
    live = {"id": "br-dev-9", "name": "dev"}
    for wanted in ("dev", "br-dev-1"):
        with pytest.raises(Refusal) as refused:
            branch_plan(wanted, [MAIN, live], [DEV_OLD])
        assert "br-dev-9" in refused.value.msg and "br-dev-1" in refused.value.msg
        assert "rename or delete the live one first" in refused.value.msg
        assert "to keep the live one, there is nothing to recover" in refused.value.msg


def test_a_project_of_a_live_name_is_recovered_by_id_with_a_warning_and_refused_by_name():
    live = {"id": "p-live", "name": "shop"}
    gone = {"id": "p-gone", "name": "shop", "deleted_at": "2026-11-27T09:00:00Z"}
    plan = recovery_plan("project", "p-gone", [live], [gone], "that this API key reaches", same_name_allowed=True)
    assert plan.action == RECOVER and "two projects have that name" in plan.warnings[0]
    with pytest.raises(Refusal) as refused:
        recovery_plan("project", "shop", [live], [gone], "that this API key reaches", same_name_allowed=True)
    assert "give its id (project_id)" in refused.value.msg and "p-live" in refused.value.msg


def test_a_branch_whose_parent_is_deleted_too_is_refused():
    parent = deleted("br-parent-1", "feature", parent_id="br-main-1")
    child = deleted("br-child-1", "feature-fix", parent_id="br-parent-1")
    with pytest.raises(Refusal) as refused:
        branch_plan("feature-fix", [MAIN], [parent, child])
    assert "recover the parent first" in refused.value.msg and "br-parent-1" in refused.value.msg


def test_nothing_deleted_of_that_name_is_refused_naming_the_window():
    with pytest.raises(Refusal) as refused:
        branch_plan("gone-long-ago", [MAIN], [DEV_OLD])
    assert "no deleted branch of project p-1 whose name or id is 'gone-long-ago'" in refused.value.msg
    assert "more than 7 days ago" in refused.value.msg


@pytest.mark.parametrize("gone", [
    deleted("br-pr-1", "pr-1", method="ttl"),
    deleted("br-pr-1", "pr-1", expires_at="2026-12-01T00:00:00Z"),
])
def test_a_ttl_branch_is_recovered_permanent_with_a_warning(gone):
    plan = branch_plan("pr-1", [MAIN], [gone])
    assert plan.ttl_removed is True
    assert "no longer expires" in plan.warnings[0] and "expires_at" in plan.warnings[0]
    before, after = recovery_diff("branch", plan)
    assert before["state"] == "deleted" and after == {"id": "br-pr-1", "name": "pr-1", "expires_at": None,
                                                      "state": "live"}


def test_an_unknown_deletion_method_is_passed_through():
    plan = branch_plan("pr-2", [MAIN], [deleted("br-pr-2", "pr-2", method="policy")])
    assert plan.action == RECOVER and not plan.ttl_removed
    assert recovery_diff("branch", plan)[0]["deletion_method"] == "policy"


def test_the_diff_of_a_rerun_is_the_live_object_twice():
    plan = branch_plan("main", [MAIN], [])
    before, after = recovery_diff("branch", plan)
    assert before == after and before["state"] == "live"


@pytest.mark.parametrize("args, problem", [
    (("Not_An_Id", "dev"), "project_id must be a project id"),
    (("p" * 61, "dev"), "project_id must be a project id"),
    (("shiny-river-12345678", "  "), "branch must not be empty"),
    ((None, ""), "branch must not be empty"),
    (("shiny-river-12345678", "dev"), None),
])
def test_input_problem(args, problem):
    found = input_problem(*args)
    assert (found is None) if problem is None else (problem in found)


def test_a_refused_recovery_says_what_its_status_means():
    def error(status, ambiguous=False):
        return NeonAPIError("POST", "/projects/p/recover", status=status, problem="HTTP %s" % status, ambiguous=ambiguous)

    assert "ended at 2026-11-30T09:00:00Z" in refusal_hint("branch", error(404), DEV_OLD)
    assert "refuses to recover it as things are now" in refusal_hint("branch", error(409), DEV_OLD)
    assert refusal_hint("branch", error(403), DEV_OLD) is None
    assert [lost_or_refused(error(status)) for status in (404, 409, 403, 400)] == [True, True, False, False]
    assert lost_or_refused(error(None, ambiguous=True)) is True
