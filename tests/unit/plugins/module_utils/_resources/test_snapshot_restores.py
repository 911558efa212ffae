# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The decisions of a snapshot's restore (_resources/snapshot_restores.py): pure. What a restore's rerun finds
(restored, finalized, a name taken by another branch), which branch a finalize replaced, what the diff says."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import NOTHING, REFUSE
from ansible_collections.neon.cloud.plugins.module_utils._resources.snapshot_restores import (
    FINALIZE,
    RESTORE,
    SnapshotRestorePlan,
    decide_restore,
    replaced_branch,
    restore_shown,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.restores import BranchRestorePlan

SNAP = {"id": "snap-1", "name": "before", "timestamp": "2026-01-31T22:00:00Z"}
TARGET = {"id": "br-main", "name": "main"}


def test_the_two_restores_plans_are_told_apart():
    plan = decide_restore(SNAP, TARGET, [TARGET], "main-restored", finalize=False)
    assert isinstance(plan, SnapshotRestorePlan) and not isinstance(plan, BranchRestorePlan)
    assert SnapshotRestorePlan.__name__ != BranchRestorePlan.__name__


def restored(branch_id="br-new", name="main-restored", status="restored", **fields):
    return dict(dict(id=branch_id, name=name, restored_from="snap-1", restore_status=status), **fields)


def test_a_snapshot_never_restored_is_restored():
    plan = decide_restore(SNAP, TARGET, [TARGET], "main-restored", finalize=True)
    assert plan.action == RESTORE and plan.changed and plan.branch is None


def test_a_rerun_finds_the_branch_restored_under_that_name():
    branches = [TARGET, restored()]
    plan = decide_restore(SNAP, TARGET, branches, "main-restored", finalize=False)
    assert plan.action == NOTHING and plan.branch["id"] == "br-new" and not plan.changed


def test_a_rerun_with_finalize_finalizes_the_branch_restored_before():
    plan = decide_restore(SNAP, TARGET, [TARGET, restored()], "main-restored", finalize=True)
    assert plan.action == FINALIZE and plan.branch["id"] == "br-new"


FINALIZED_MAIN = restored("br-new", "main", "finalized", restored_as="br-main")


@pytest.mark.parametrize("target, done", [
    (FINALIZED_MAIN, FINALIZED_MAIN),
    (dict(TARGET, name="main (old)"), FINALIZED_MAIN),
    (dict(TARGET, name="main (old)", restored_as="br-new"), restored("br-new", "main", "finalized")),
])
def test_a_finalized_restore_that_took_the_targets_place_is_the_result(target, done):
    """The target asked for by name is the restored branch now; by id (the snapshot's source), the replaced one,
    which either branch names in restored_as."""
    branches = [done] + ([target] if target["id"] != done["id"] else [])
    plan = decide_restore(SNAP, target, branches, "main-restored", finalize=True)
    assert plan.action == NOTHING and plan.branch["id"] == "br-new"
    assert replaced_branch(done, branches + [dict(TARGET, name="main (old)")], "br-main")["id"] == "br-main"


def test_a_name_taken_by_a_branch_not_restored_from_the_snapshot_is_refused():
    refused = decide_restore(SNAP, TARGET, [TARGET, {"id": "br-dev", "name": "dev"}], "dev", finalize=False)
    assert refused.action == REFUSE and "'dev' (br-dev) exists and was not restored from a snapshot" in refused.reason
    finalize = decide_restore(SNAP, TARGET, [TARGET], "main", finalize=True)
    assert finalize.action == REFUSE and "'main' (br-main) cannot be finalized" in finalize.reason
    assert "not restored from a snapshot" in finalize.reason
    other = decide_restore(SNAP, TARGET, [TARGET, restored(restored_from="snap-9")], "main-restored", finalize=True)
    assert other.action == REFUSE and "restored from snapshot snap-9" in other.reason


def test_a_restore_the_service_is_still_detaching_is_not_finalized():
    plan = decide_restore(SNAP, TARGET, [TARGET, restored(status="detaching")], "main-restored", finalize=True)
    assert plan.action == REFUSE and "detaching" in plan.reason


def test_the_diff_says_what_is_restored_and_what_finalized():
    plan = decide_restore(SNAP, TARGET, [TARGET], "main-restored", finalize=True)
    before, after = restore_shown(plan, SNAP, TARGET, "main-restored", True, ["ep-2", "ep-1"])
    assert before == {"target_branch": {"id": "br-main", "name": "main"}, "restored_branch": None}
    assert after["target_branch"] == {"id": "br-main", "name": "main (old)"}
    assert after["restored_branch"] == {"id": None, "name": "main", "restored_from": "before (snap-1)",
                                        "snapshot_timestamp": "2026-01-31T22:00:00Z", "restore_status": "finalized",
                                        "computes": ["ep-1", "ep-2"]}
    look = decide_restore(SNAP, TARGET, [TARGET], "main-restored", finalize=False)
    after = restore_shown(look, SNAP, TARGET, "main-restored", False, [])[1]
    assert after["target_branch"]["name"] == "main" and after["restored_branch"]["name"] == "main-restored"
    same = decide_restore(SNAP, TARGET, [TARGET, restored()], "main-restored", finalize=False)
    before, after = restore_shown(same, SNAP, TARGET, "main-restored", False, [])
    assert before == after
