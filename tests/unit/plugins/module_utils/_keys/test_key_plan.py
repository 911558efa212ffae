# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The key decisions of api_key (_keys/plan.py): which keys to create and revoke, and why, from a
listing, the options and the time; which of the keys overlapping runs created is kept; which keys
are stale. Pure functions, so every case is exact and the properties hold for any listing."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import calendar
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.neon.cloud.plugins.module_utils._keys.plan import (
    PlanError,
    days_ago,
    interrupted_run_warning,
    kept_among_new,
    never_used,
    plan_absent,
    plan_present,
    timestamp,
    unused_for,
    with_ages,
)

NOW = calendar.timegm((2026, 11, 25, 12, 0, 0, 0, 0, 0))
DAY = 86400


def iso(days):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(NOW - days * DAY))


def key(key_id, created_days_ago, last_used_days_ago=None, name="ci"):
    return {"id": key_id, "name": name, "created_at": iso(created_days_ago),
            "last_used_at": None if last_used_days_ago is None else iso(last_used_days_ago)}


def ids(keys):
    return [item["id"] for item in keys]


# ---------------------------------------------------------------------------------------------- timestamps

@pytest.mark.parametrize("value, expected", [
    ("2026-11-25T12:00:00Z", NOW),
    ("2026-11-25T12:00:00.250Z", NOW + 0.25),
    ("2026-11-25T13:00:00+01:00", NOW),
    ("2026-11-25T11:30:00-00:30", NOW),
    ("2026-11-25T12:00:00", None),  # no zone: not what the API sends
    ("2026-13-01T00:00:00Z", None),
    ("yesterday", None),
    (None, None),
    (1764072000, None),
    ("2026-11-25T12:00:00Z" + " " * 40, None),
])
def test_timestamp_reads_the_api_format_only(value, expected):
    assert timestamp(value) == expected


def test_days_ago_counts_whole_days_and_never_goes_negative():
    assert days_ago(iso(3.9), NOW) == 3
    assert days_ago(iso(-2), NOW) == 0  # a clock ahead of ours
    assert days_ago(None, NOW) is None


# ---------------------------------------------------------------------------------------------- plan_present

def test_no_key_means_create():
    plan = plan_present([], NOW, "ci")
    assert (plan.action, plan.create, plan.revoke) == ("created", True, [])
    assert plan.reason == "no active key named 'ci' existed"


def test_an_existing_key_is_left_alone_without_options():
    existing = [key(2, 1), key(1, 100)]
    plan = plan_present(existing, NOW, "ci")
    assert (plan.action, plan.create, plan.revoke, ids(plan.kept)) == ("none", False, [], [2, 1])


def test_a_key_past_max_age_rotates_and_every_older_key_goes_without_keep():
    plan = plan_present([key(1, 31), key(0, 70)], NOW, "ci", max_age_days=30)
    assert (plan.action, plan.create, ids(plan.revoke), plan.kept) == ("rotated", True, [1, 0], [])
    assert plan.reason == "the newest key (id 1) was 31 days old, and max_age_days is 30"


def test_a_plan_changes_something_when_it_creates_or_revokes():
    assert plan_present([], NOW, "ci").changed is True
    assert plan_present([key(2, 1), key(1, 100)], NOW, "ci").changed is False
    assert plan_present([key(2, 1), key(1, 100)], NOW, "ci", keep=1).changed is True


def test_state_absent_revokes_every_key_it_names_newest_first():
    plan = plan_absent([key(1, 100), key(2, 1)])
    assert (plan.action, plan.create, ids(plan.revoke), plan.kept, plan.changed) == ("revoked", False, [2, 1], [], True)
    assert (plan_absent([]).action, plan_absent([]).changed) == ("none", False)


def test_a_key_exactly_max_age_days_old_rotates():
    assert plan_present([key(1, 30)], NOW, "ci", max_age_days=30).create is True


def test_a_younger_key_is_left_alone_and_nothing_is_created():
    plan = plan_present([key(1, 29.9)], NOW, "ci", max_age_days=30)
    assert (plan.action, plan.create, plan.revoke) == ("none", False, [])
    assert plan.reason == "the newest key (id 1) is 29 days old, younger than max_age_days (30)"


def test_keep_two_with_rotation_keeps_the_previous_key():
    plan = plan_present([key(3, 31), key(2, 61), key(1, 91)], NOW, "ci", max_age_days=30, keep=2)
    assert (plan.action, ids(plan.kept), ids(plan.revoke)) == ("rotated", [3], [2, 1])
    assert plan.reason.endswith("keep=2 leaves the newest 2 keys")


def test_keep_without_a_rotation_trims_to_the_newest():
    plan = plan_present([key(3, 1), key(2, 2), key(1, 3)], NOW, "ci", keep=1)
    assert (plan.action, plan.create, ids(plan.kept), ids(plan.revoke)) == ("trimmed", False, [3], [2, 1])


def test_keep_counts_by_created_at_not_by_id():
    plan = plan_present([key(5, 40), key(4, 2)], NOW, "ci", keep=1)
    assert ids(plan.kept) == [4] and ids(plan.revoke) == [5]


def test_rotate_ignores_age():
    plan = plan_present([key(1, 0)], NOW, "ci", rotate=True)
    assert (plan.action, ids(plan.revoke)) == ("rotated", [1])


def test_an_unreadable_created_at_stops_an_age_decision():
    broken = dict(key(1, 10), created_at="last tuesday")
    with pytest.raises(PlanError, match="API key 1 has no readable created_at"):
        plan_present([broken], NOW, "ci", max_age_days=5)
    assert plan_present([broken], NOW, "ci").action == "none"  # no age needed, no error


listings = st.lists(st.tuples(st.integers(0, 400), st.floats(0, 400)), max_size=8, unique_by=lambda item: item[0])


@settings(max_examples=300, deadline=None, database=None)
@given(listing=listings, rotate=st.booleans(), max_age=st.one_of(st.none(), st.integers(1, 100)),
       keep=st.one_of(st.none(), st.integers(1, 5)))
def test_plan_properties(listing, rotate, max_age, keep):
    if rotate and max_age is not None:
        max_age = None
    existing = [key(key_id, age) for key_id, age in listing]
    plan = plan_present(existing, NOW, "ci", rotate=rotate, max_age_days=max_age, keep=keep)
    # every existing key is either kept or revoked, never both
    assert sorted(ids(plan.kept) + ids(plan.revoke)) == sorted(ids(existing))
    after = len(plan.kept) + (1 if plan.create else 0)
    if keep is not None:
        assert after <= keep  # at most keep keys remain, the new one counted
        assert after == min(keep, len(existing) + (1 if plan.create else 0))
    else:
        assert plan.revoke == [] or plan.create  # without keep, only a rotation revokes
    if plan.kept and plan.revoke:  # the kept keys are the newest
        assert min(timestamp(item["created_at"]) for item in plan.kept) >= \
            max(timestamp(item["created_at"]) for item in plan.revoke)
    if not existing:
        assert plan.create and plan.action == "created"
    if max_age is not None and existing:
        newest_age = min((NOW - timestamp(item["created_at"])) / DAY for item in existing)
        assert plan.create == (newest_age >= max_age)
    assert plan.action == ("rotated" if plan.create and existing else "created" if plan.create
                           else "trimmed" if plan.revoke else "none")


@settings(max_examples=100, deadline=None, database=None)
@given(listing=listings, max_age=st.integers(1, 100), keep=st.one_of(st.none(), st.integers(1, 5)))
def test_running_the_task_again_right_after_changes_nothing(listing, max_age, keep):
    existing = [key(key_id, age) for key_id, age in listing]
    plan = plan_present(existing, NOW, "ci", max_age_days=max_age, keep=keep)
    after = list(plan.kept) + ([key(10_000, 0)] if plan.create else [])
    again = plan_present(after, NOW, "ci", max_age_days=max_age, keep=keep)
    assert (again.action, again.create, again.revoke) == ("none", False, [])


# ---------------------------------------------------------------------------------------------- a never-used newest key

# A run killed after the service created its key and before the task returned leaves the newest key of the name
# never used, its secret lost; the rerun creates nothing and must say so (docs/docsite/rst/key-rotation.rst).

def test_a_never_used_newest_key_left_alone_is_warned_about_with_the_way_out():
    existing = [dict(key(2, 0.01), created_by={"id": "u-1", "name": "AWX runner"}), key(1, 100, 1)]
    plan = plan_present(existing, NOW, "ci")
    assert (plan.action, plan.create, plan.revoke) == ("none", False, [])
    assert plan.warning == (
        "API key 2 ('ci'), the newest active key of that name, was created 14 minutes ago (%s) by AWX runner and "
        "has never been used, so most likely no run kept its secret: a run stopped after the service created a key "
        "and before the task returned (an AWX job cancelled, a runner lost) leaves such a key, and the service "
        "cannot show the secret again. If you did not store it, run this task once with rotate=true to replace the "
        "key with one whose secret that run returns in 'key'. If a run did return its secret (its consumers have "
        "not used the key yet, or another run of this task made it a moment ago), ignore this warning." % iso(0.01))


def test_with_max_age_days_the_warning_says_the_schedule_counts_the_key_as_new():
    plan = plan_present([key(2, 3.5), key(1, 40, 4)], NOW, "ci", max_age_days=30)
    assert (plan.action, plan.create) == ("none", False)
    assert "API key 2 ('ci')" in plan.warning and "created 3 days ago" in plan.warning
    assert "run this task once with rotate=true instead of max_age_days" in plan.warning
    assert "max_age_days counts it as a new key, 3 days old, and would not replace it for 27 more days" in plan.warning


def test_a_trim_under_a_never_used_newest_key_warns_too():
    plan = plan_present([key(3, 0.5), key(2, 31), key(1, 61)], NOW, "ci", max_age_days=30, keep=2)
    assert (plan.action, ids(plan.kept), ids(plan.revoke)) == ("trimmed", [3, 2], [1])
    assert plan.warning.startswith("API key 3 ('ci')")
    assert "would not replace it for 30 more days" in plan.warning


def test_a_trim_under_a_never_used_newest_key_leaves_the_keys_consumers_used():
    # keep=1, a rotation killed after the create: the newest key's secret is lost, the older one is what the
    # consumers hold; revoking it would leave no working key
    plan = plan_present([key(2, 0.01), key(1, 31, 0.02)], NOW, "ci", max_age_days=30, keep=1)
    assert (plan.action, plan.create, ids(plan.kept), ids(plan.revoke)) == ("none", False, [2, 1], [])
    assert "keep did not revoke the used key 1, which may be the only one whose secret your consumers hold: " \
        "rotate=true revokes it as keep says" in plan.warning
    # a never-used older key goes as keep says, a used one stays
    plan = plan_present([key(3, 0.01), key(2, 31, 0.02), key(1, 61)], NOW, "ci", keep=1)
    assert (plan.action, ids(plan.kept), ids(plan.revoke)) == ("trimmed", [3, 2], [1])
    # the rotation then revokes it
    plan = plan_present([key(3, 0.01), key(2, 31, 0.02)], NOW, "ci", rotate=True, keep=1)
    assert (plan.action, plan.create, ids(plan.kept), ids(plan.revoke)) == ("rotated", True, [], [3, 2])


def test_a_rotation_after_an_interrupted_run_keeps_the_used_key_not_the_lost_one():
    # keep=2 (each key lives two periods): the run killed after its create left key 2, never used; key 1 is what
    # the consumers hold. rotate=true, as the warning says, must keep key 1 beside the new one, and revoke key 2
    plan = plan_present([key(2, 0.01), key(1, 31, 0.02)], NOW, "ci", rotate=True, keep=2)
    assert (plan.action, plan.create, ids(plan.kept), ids(plan.revoke)) == ("rotated", True, [1], [2])
    assert "never used, key 2 revoked before the used key 1" in plan.reason
    # when the newest key was used, a rotation keeps the newest ones, as keep says
    plan = plan_present([key(2, 1, 0.5), key(1, 31, 0.02)], NOW, "ci", rotate=True, keep=2)
    assert (ids(plan.kept), ids(plan.revoke)) == ([2], [1])


@pytest.mark.parametrize("existing, options", [
    ([key(2, 1, 0.5), key(1, 5)], {}),                        # the newest was used (an older one never was)
    ([dict(key(2, 1), last_used_at="2026-11-25T11:00:00Z")], {}),
    ([], {}),                                                  # nothing existed: this run creates
    ([key(2, 1)], {"rotate": True}),                           # this run creates: it holds the new secret
    ([key(2, 31)], {"max_age_days": 30}),                      # due: this run creates
    ([{"id": 2, "name": "ci", "created_at": iso(1)}], {}),     # no last_used_at at all: nothing is known
], ids=["newest-used", "used-an-hour-ago", "none", "rotate", "max-age-due", "no-field"])
def test_no_warning_when_the_newest_key_was_used_or_this_run_creates_one(existing, options):
    assert plan_present(existing, NOW, "ci", **options).warning is None


def test_a_never_used_key_with_an_unreadable_created_at_is_warned_about_without_an_age():
    broken = dict(key(1, 10), created_at="last tuesday", created_by="a-uuid-string")
    warning = plan_present([broken], NOW, "ci").warning
    assert "was created at a time the listing does not give in a readable form and has never been used" in warning
    assert "last tuesday" not in warning and "a-uuid-string" not in warning
    assert "counts it as a new key" not in interrupted_run_warning(broken, "ci", NOW, max_age_days=30)


def test_never_used_reads_only_an_explicit_null():
    assert never_used(key(1, 1)) is True
    assert never_used(key(1, 1, 0.5)) is False
    assert never_used({"id": 1}) is False


@pytest.mark.parametrize("days, words", [(0, "0 seconds"), (1.0 / 86400, "1 second"), (59.0 / 86400, "59 seconds"),
                                         (1.0 / 24, "1 hour"), (25.0 / 24, "1 day"), (400, "400 days")])
def test_the_age_is_said_in_its_largest_whole_unit(days, words):
    assert "was created %s ago" % words in interrupted_run_warning(key(1, days), "ci", NOW)


@settings(max_examples=200, deadline=None, database=None)
@given(listing=st.lists(st.tuples(st.integers(0, 400), st.floats(0, 400), st.one_of(st.none(), st.floats(0, 1))),
                        max_size=6, unique_by=lambda item: item[0]),
       rotate=st.booleans(), max_age=st.one_of(st.none(), st.integers(1, 100)), keep=st.one_of(st.none(), st.integers(1, 3)))
def test_a_warning_exactly_when_nothing_is_created_and_the_newest_left_was_never_used(listing, rotate, max_age, keep):
    if rotate and max_age is not None:
        max_age = None
    existing = [key(key_id, age, None if used is None else age * used) for key_id, age, used in listing]
    plan = plan_present(existing, NOW, "ci", rotate=rotate, max_age_days=max_age, keep=keep)
    expected = not plan.create and plan.kept[0]["last_used_at"] is None
    assert (plan.warning is not None) == expected
    if expected:
        assert plan.warning.startswith("API key %d ('ci'), the newest active key" % plan.kept[0]["id"])


# ---------------------------------------------------------------------------------------------- convergence

def test_the_lowest_new_id_is_kept_by_every_run():
    known = set([1])
    listed = [key(1, 40), key(7, 0), key(8, 0), key(9, 0)]
    for mine in (7, 8, 9):
        kept, others = kept_among_new(listed, known, key(mine, 0))
        assert kept["id"] == 7 and mine not in ids(others)


def test_a_run_that_lists_before_the_others_created_keeps_its_own():
    kept, others = kept_among_new([key(1, 40), key(7, 0)], set([1]), key(7, 0))
    assert kept["id"] == 7 and others == []


def test_own_key_missing_from_the_listing_still_counts():
    kept, _others = kept_among_new([key(1, 40)], set([1]), key(7, 0))
    assert kept["id"] == 7


@settings(max_examples=200, deadline=None, database=None)
@given(runs=st.integers(1, 6), seen=st.data())
def test_overlapping_runs_keep_exactly_one_new_key(runs, seen):
    """Runs create ids 10, 11, ... in order; each lists after its own create and sees at least every
    lower id (created before it) and maybe some higher ones. Exactly one key is kept by everyone."""
    created = list(range(10, 10 + runs))
    kept_ids = set()
    for mine in created:
        later = seen.draw(st.lists(st.sampled_from(created), max_size=runs))
        visible = [key(i, 0) for i in created if i <= mine or i in later]
        kept, _others = kept_among_new([key(1, 40)] + visible, set([1]), key(mine, 0))
        kept_ids.add(kept["id"])
    assert kept_ids == set([10])


# ---------------------------------------------------------------------------------------------- stale keys

@pytest.mark.parametrize("created, last_used, stale", [
    (100, None, True),     # never used, created long ago
    (10, None, False),     # never used, but new
    (200, 95, True),       # used long ago
    (200, 89, False),      # used recently
    (90, None, True),      # exactly 90 days
])
def test_unused_for(created, last_used, stale):
    assert unused_for(key(1, created, last_used), NOW, 90) is stale


def test_unused_for_refuses_an_unreadable_last_use():
    with pytest.raises(PlanError, match="no readable last_used_at"):
        unused_for(dict(key(1, 100), last_used_at="soon"), NOW, 90)


def test_with_ages_adds_whole_days_and_keeps_the_fields():
    shown = with_ages(key(4, 42.5, 7.2), NOW)
    assert (shown["created_days_ago"], shown["last_used_days_ago"], shown["id"]) == (42, 7, 4)
    assert with_ages(key(4, 1), NOW)["last_used_days_ago"] is None
