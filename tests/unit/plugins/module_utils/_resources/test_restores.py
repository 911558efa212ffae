# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rules of _resources/restores.py, without HTTP: what the options refuse, when a branch is restored, when a
rerun finds it restored already, which name to preserve the service requires, what the diff and failures say."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.restores import (
    NOTHING,
    RESTORE,
    describe_point,
    input_problem,
    moved_computes,
    restore_diff,
    restore_kept,
    restore_plan,
    window_hint,
)

MAIN = {"id": "br-main-1", "name": "main", "default": True, "created_at": "2026-05-01T00:00:00Z"}
DEV = {"id": "br-dev-1", "name": "dev", "parent_id": "br-main-1", "created_at": "2026-05-02T00:00:00Z"}
STAGING = {"id": "br-staging-1", "name": "staging", "parent_id": "br-main-1", "created_at": "2026-05-02T00:00:00Z"}
MOMENT = "2026-05-04T02:55:00Z"
# What a restore of main with preserve_under_name main-old left: main-old made then, main's parent, main reset then.
KEPT = {"id": "br-kept-1", "name": "main-old", "created_at": "2026-05-04T03:10:12Z"}
RESTORED = dict(MAIN, parent_id="br-kept-1", parent_timestamp=MOMENT, last_reset_at="2026-05-04T03:10:12Z")


# ---------------------------------------------------------------------------------------------- input


@pytest.mark.parametrize("args, words", [
    (dict(timestamp="yesterday"), "source_timestamp must be an RFC 3339 timestamp"),
    (dict(timestamp="2026-05-04T02:55:00"), "source_timestamp must be an RFC 3339 timestamp"),  # no time zone
    (dict(timestamp=MOMENT, lsn="0/1A"), "give source_timestamp or source_lsn, not both"),
    (dict(lsn="1A2B"), "source_lsn must be a Log Sequence Number"),
    (dict(lsn="0/1G"), "source_lsn must be a Log Sequence Number"),
    (dict(lsn="123456789/0"), "source_lsn must be a Log Sequence Number"),
    (dict(), "needs the point to go back to"),
    (dict(source_branch="main"), "needs the point to go back to"),  # the branch itself, by its name
    (dict(timestamp=MOMENT), "preserve_under_name is required to restore a branch from its own history"),
    (dict(timestamp=MOMENT, preserve_under_name="main"), "must differ from the branch's own name"),
    (dict(source_branch="dev", preserve_under_name=""), "1 to 256 characters"),
    # not RFC 3339 (issue 31 point 4): each is refused, naming the option and showing an example
    (dict(timestamp="2026-05-04 02:55:00", preserve_under_name="x"), "source_timestamp must be an RFC 3339 timestamp"),
    (dict(timestamp="2026-05-04T02:55:00+0200", preserve_under_name="x"), "such as 2026-05-04T02:55:00Z"),
    (dict(timestamp="2026-05-04T02:55:00+0200", preserve_under_name="x"), "source_timestamp must be an RFC 3339"),
    (dict(timestamp="2026-02-31T02:55:00Z", preserve_under_name="x"), "source_timestamp must be an RFC 3339"),
    (dict(timestamp="2026-05-04T02:55:60Z", preserve_under_name="x"), "seconds 00 to 59"),
])
def test_input_that_cannot_be_a_restore_is_refused_before_any_request(args, words):
    assert words in input_problem("main", **args)


@pytest.mark.parametrize("args", [
    dict(timestamp=MOMENT, preserve_under_name="main-old"),
    dict(timestamp="2026-05-04T04:55:00.123+02:00", preserve_under_name="main-old"),
    dict(lsn="0/1F2E3D4", preserve_under_name="main-old"),
    dict(source_branch="dev"),  # another branch's head: a reset, nothing to preserve
    dict(source_branch="dev", lsn="AB/CDEF0123"),
])
def test_input_of_a_restore(args):
    assert input_problem("main", **args) is None


# ---------------------------------------------------------------------------------------------- the plan


def test_a_restore_from_its_own_history_keeps_its_state_under_the_name():
    plan = restore_plan(MAIN, MAIN, [MAIN, DEV], timestamp=MOMENT, preserve_under_name="main-old")
    assert plan.action == RESTORE and plan.changed
    assert plan.body == {"source_branch_id": "br-main-1", "source_timestamp": MOMENT, "preserve_under_name": "main-old"}
    assert "its own state at %s" % MOMENT in plan.reason and "'main-old'" in plan.reason


def test_a_rerun_finds_the_preserved_branch_as_the_parent_and_restores_nothing():
    kept, restored = KEPT, RESTORED
    plan = restore_plan(restored, restored, [restored, kept, dict(DEV, parent_id="br-kept-1")], timestamp=MOMENT,
                        preserve_under_name="main-old")
    assert plan.action == NOTHING and not plan.changed and plan.preserved is kept and plan.body == {}
    assert "was restored already" in plan.reason and plan.warnings == []
    # the same name with another point: nothing again, and a warning says how to restore once more
    other = restore_plan(restored, restored, [restored, kept], timestamp="2026-05-04T01:00:00Z",
                         preserve_under_name="main-old")
    assert other.action == NOTHING and "give another preserve_under_name" in other.warnings[0]
    assert MOMENT in other.warnings[0] and "2026-05-04T01:00:00Z" in other.warnings[0]
    # the same moment written another way is the same point
    same = restore_plan(restored, restored, [restored, kept], timestamp="2026-05-04T02:55:00+00:00",
                        preserve_under_name="main-old")
    assert same.warnings == []
    # the service shows the point to the second: a moment asked with microseconds within it is that point
    to_the_second = restore_plan(restored, restored, [restored, kept], timestamp="2026-05-04T02:55:00.868470Z",
                                 preserve_under_name="main-old")
    assert to_the_second.warnings == []
    next_second = restore_plan(restored, restored, [restored, kept], timestamp="2026-05-04T02:55:01.000001Z",
                               preserve_under_name="main-old")
    assert next_second.warnings != []
    by_lsn = restore_plan(dict(restored, parent_lsn="0/1A"), restored, [restored, kept], lsn="0/01a",
                          preserve_under_name="main-old")
    assert by_lsn.action == NOTHING and by_lsn.warnings == []


def test_a_taken_name_that_is_not_what_a_restore_preserved_is_refused():
    with pytest.raises(Refusal) as refused:
        restore_plan(MAIN, MAIN, [MAIN, DEV], timestamp=MOMENT, preserve_under_name="dev")
    assert "a branch named 'dev' already exists (id br-dev-1)" in refused.value.msg
    assert "none: it is a root branch" in refused.value.msg and "Give another preserve_under_name" in refused.value.msg
    with pytest.raises(Refusal) as twice:
        restore_plan(MAIN, MAIN, [MAIN, DEV, dict(STAGING, name="dev")], timestamp=MOMENT, preserve_under_name="dev")
    assert "2 branches are named 'dev'" in twice.value.msg


# The review's case: preview was made from release-base, then is restored from staging keeping its state as
# release-base. The parent of that name is the branch preview was made from, not a state a restore kept.
RELEASE_BASE = {"id": "br-base-1", "name": "release-base", "parent_id": "br-main-1", "created_at": "2026-05-02T00:00:00Z"}
PREVIEW = {"id": "br-preview-1", "name": "preview", "parent_id": "br-base-1", "created_at": "2026-05-03T00:00:00Z"}


@pytest.mark.parametrize("preview, words", [
    (PREVIEW, "never restored or reset (it has no last_reset_at)"),
    # reset since (reset_from_parent, or a restore that kept nothing): the parent is still older than it
    (dict(PREVIEW, last_reset_at="2026-05-04T00:00:00Z"), "was made at 2026-05-02T00:00:00Z, before the branch"),
    # parent and child made in one second, the child reset later: not what that reset kept
    (dict(PREVIEW, created_at="2026-05-02T00:00:00Z", last_reset_at="2026-05-04T00:00:00Z"), "before the branch"),
    (dict(PREVIEW, last_reset_at="yesterday"), "cannot be told from"),
])
def test_an_ordinary_parent_of_the_name_to_preserve_is_refused_before_any_request(preview, words):
    with pytest.raises(Refusal) as refused:
        restore_plan(preview, STAGING, [MAIN, RELEASE_BASE, preview, STAGING], preserve_under_name="release-base")
    assert "a branch named 'release-base' already exists (id br-base-1)" in refused.value.msg
    assert words in refused.value.msg and "Give another preserve_under_name" in refused.value.msg
    assert "delete branch" not in refused.value.msg  # it is the branch's parent: deleting it is not the way


def test_a_preserved_branch_is_the_parent_made_by_a_restore_of_the_branch():
    assert restore_kept(RESTORED, KEPT) is None
    # made, restored and preserved in the branch's first second: the service gives all three to that second
    quick = dict(RESTORED, created_at="2026-05-04T03:10:12Z")
    assert restore_kept(quick, KEPT) is None
    # reset after the branch named was made: that branch is not what this reset kept
    assert restore_kept(dict(RESTORED, last_reset_at="2026-05-04T03:10:13Z"), KEPT) is not None
    assert restore_kept(dict(RESTORED, parent_id="br-other"), KEPT) is not None
    assert restore_kept(dict(RESTORED, last_reset_at=None), KEPT) is not None
    assert restore_kept(RESTORED, dict(KEPT, created_at="2026-04-30T00:00:00Z")) is not None


def test_a_branch_restored_from_without_a_name_to_preserve_is_not_taken_for_a_kept_state():
    """A restore from another branch without preserve_under_name makes that branch the parent and sets last_reset_at;
    the source, younger than the branch, was made before that restore: naming it later is no rerun."""
    base = dict(RELEASE_BASE, created_at="2026-05-03T00:00:00Z")
    restored_from_base = dict(PREVIEW, created_at="2026-05-02T00:00:00Z", parent_id="br-base-1",
                              last_reset_at="2026-05-05T00:00:00Z")
    assert "before the branch's last restore or reset" in restore_kept(restored_from_base, base)
    with pytest.raises(Refusal):
        restore_plan(restored_from_base, STAGING, [MAIN, base, restored_from_base, STAGING],
                     preserve_under_name="release-base")


def test_the_name_to_preserve_is_required_where_the_service_requires_it():
    with pytest.raises(Refusal) as children:
        restore_plan(MAIN, STAGING, [MAIN, DEV, STAGING])
    assert "preserve_under_name is required" in children.value.msg and "'dev' (br-dev-1)" in children.value.msg
    with pytest.raises(Refusal) as itself:
        restore_plan(DEV, DEV, [MAIN, DEV], lsn="0/1A")
    assert "from its own history" in itself.value.msg
    with pytest.raises(Refusal) as no_point:  # given by id where the option named it by name: still itself
        restore_plan(DEV, DEV, [MAIN, DEV], preserve_under_name="dev-old")
    assert "a point is needed" in no_point.value.msg


def test_a_restore_to_another_branchs_head_without_a_name_is_a_reset_every_run():
    plan = restore_plan(DEV, STAGING, [MAIN, DEV, STAGING])
    assert plan.action == RESTORE and plan.body == {"source_branch_id": "br-staging-1"}
    assert "restored on every run" in plan.reason and "as it is now (its head)" in plan.reason
    again = restore_plan(dict(DEV, parent_id="br-staging-1"), STAGING, [MAIN, DEV, STAGING])
    assert again.action == RESTORE  # nothing tells an earlier one apart


def test_describe_point():
    assert describe_point(MAIN, True, timestamp=MOMENT) == "its own state at %s" % MOMENT
    assert describe_point(DEV, False, lsn="0/1A") == "the state of branch 'dev' (br-dev-1) at LSN 0/1A"
    assert describe_point(DEV, False) == "the state of branch 'dev' (br-dev-1) as it is now (its head)"


# ---------------------------------------------------------------------------------------------- diff and results


def test_the_diff_says_what_is_restored_from_where_and_what_is_kept():
    plan = restore_plan(MAIN, MAIN, [MAIN, DEV], timestamp=MOMENT, preserve_under_name="main-old")
    before, after = restore_diff(MAIN, MAIN, plan, timestamp=MOMENT, children=[DEV])
    assert before == {"name": "main", "id": "br-main-1", "parent_id": None,
                      "data": "its own state, as it is now (last reset: never)"}
    assert after["data"] == "its own state at %s: its data, roles and databases" % MOMENT
    assert after["parent_id"] == "(the new branch 'main-old')"
    assert after["preserved"] == {"name": "main-old", "data": "the state of main before the restore",
                                  "parent_id": None, "children": ["dev"]}
    reset = restore_plan(DEV, STAGING, [MAIN, DEV, STAGING])
    before, after = restore_diff(DEV, STAGING, reset)
    assert after["parent_id"] == "br-staging-1" and after["preserved"] is None
    nothing = restore_plan(RESTORED, RESTORED, [RESTORED, KEPT], timestamp=MOMENT, preserve_under_name="main-old")
    before, after = restore_diff(RESTORED, RESTORED, nothing)
    assert before == after


@pytest.mark.parametrize("message, hint", [
    ("source_timestamp 2026-01-01T00:00:00Z is outside the history retention window: the point must be within the "
     "history retention window (6h0m0s) of the project", "keeps 6h0m0s of history"),
    ("restore point is beyond the retention window of 24h0m0s", "keeps 24h0m0s of history"),
    ("the history window is 30m0s", "keeps 30m0s of history"),
    ("timestamp is outside the window", None),  # no duration given: nothing made up
    ("branch not found (1h0m0s)", None),  # a duration that is not about the window
    (None, None),
])
def test_the_window_is_named_when_the_service_gives_it(message, hint):
    found = window_hint(message)
    assert (found is None) if hint is None else (hint in found)


def test_computes_that_moved_off_the_branch_are_named():
    before = [{"id": "ep-1", "branch_id": "br-main-1"}, {"id": "ep-2", "branch_id": "br-main-1"}]
    after = [{"id": "ep-1", "branch_id": "br-main-1"}, {"id": "ep-2", "branch_id": "br-kept-1"},
             {"id": "ep-3", "branch_id": "br-other"}]
    assert moved_computes(before, after, "br-main-1") == [
        "Compute ep-2 is on branch br-kept-1 after the restore, no longer on branch br-main-1"]
    assert moved_computes(before, before, "br-main-1") == []
