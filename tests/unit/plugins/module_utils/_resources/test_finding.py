# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""finding.choose_branch: the one find of "a branch by name or id, or refuse" (review finding 14), and
locate_branch, which reads the project's branches for it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import (
    branch_label,
    branch_stand_in,
    choose_branch,
    default_branch,
    find_branch,
    locate_branch,
    project_not_made,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Missing, Refusal, assume
from ansible_collections.neon.cloud.tests.unit.plugins.module_utils.neon_fakes import make_client, make_response

MAIN = {"id": "br-main-1", "name": "main", "default": True}
DEV = {"id": "br-dev-1", "name": "dev", "parent_id": "br-main-1"}
# A branch named as another's id: the id wins, ids being unique.
ODD = {"id": "br-odd-1", "name": "br-dev-1"}


def test_a_branch_is_chosen_by_id_first_then_by_name():
    assert choose_branch([MAIN, DEV, ODD], "br-dev-1", "p-1") is DEV
    assert choose_branch([MAIN, DEV, ODD], "main", "p-1") is MAIN


def test_none_is_a_refusal_naming_the_option():
    with pytest.raises(Refusal) as refused:
        choose_branch([MAIN, DEV], "nope", "p-1", "source_branch")
    assert refused.value.msg == "source_branch 'nope' is neither the name nor the id of a branch of project p-1"
    with pytest.raises(Refusal) as own:
        choose_branch([MAIN, DEV], "nope", "p-1")
    assert own.value.msg == "project p-1 has no branch 'nope'"


def test_two_of_one_name_is_plan_only_ones_refusal():
    with pytest.raises(Refusal) as refused:
        choose_branch([MAIN, DEV, dict(DEV, id="br-dev-2")], "dev", "p-1", "target_branch")
    assert "2 branches are named 'dev'" in refused.value.msg and "br-dev-1, br-dev-2" in refused.value.msg


def test_locate_branch_reads_the_branches_once_and_chooses_or_takes_the_default():
    client, adapter = make_client(lambda request: make_response(200, {"branches": [MAIN, DEV]}))
    assert locate_branch(client, "p-1", "dev")["id"] == "br-dev-1"
    assert locate_branch(client, "p-1")["id"] == "br-main-1"
    with pytest.raises(Refusal) as refused:
        locate_branch(client, "p-1", "nope")
    assert "project p-1 has no branch 'nope'" in refused.value.msg
    assert len(adapter.sent) == 3


# ---------------------------------------------------------------------------------------------- check mode (refusal.Missing)


def test_a_branch_that_is_not_there_is_a_missing_with_a_stand_in_and_the_same_words():
    with pytest.raises(Missing) as missing:
        choose_branch([MAIN], "dev", "p-1", "parent")
    assert missing.value.msg == "parent 'dev' is neither the name nor the id of a branch of project p-1"
    assert missing.value.stand_in == {"id": None, "name": "dev", "parent_id": None}
    assert missing.value.what == "branch 'dev' of project p-1"


@pytest.mark.parametrize("wanted", ["br-wispy-meadow-a5l2dqxb", "br-aged-salad-637688"])
def test_a_branch_id_of_the_service_that_is_not_there_is_refused_even_in_check_mode(wanted):
    # no task of a play makes a branch of a given id: a typo or another project's id is no branch to predict
    with pytest.raises(Refusal) as refused:
        choose_branch([MAIN], wanted, "p-1", "parent")
    assert not isinstance(refused.value, Missing)
    assert refused.value.msg == "parent %r is neither the name nor the id of a branch of project p-1" % wanted
    with pytest.raises(Missing):  # a name that merely starts so is one a task may make
        choose_branch([MAIN], "br-feature-login", "p-1")


def test_outside_check_mode_what_is_missing_is_refused_as_before():
    warnings = []
    missing = Missing("project p-1 has no branch 'dev'", "branch 'dev' of project p-1", {"id": None})
    with pytest.raises(Refusal) as refused:
        assume(missing, False, warnings)
    assert refused.value.msg == "project p-1 has no branch 'dev'" and warnings == []


def test_in_check_mode_what_is_missing_is_its_stand_in_said_once_in_a_warning():
    warnings = []
    missing = Missing("project p-1 has no branch 'dev'", "branch 'dev' of project p-1", {"id": None})
    assert assume(missing, True, warnings) == {"id": None}
    assert assume(missing, True, warnings) == {"id": None}
    assert warnings == ["Branch 'dev' of project p-1 does not exist yet; in check mode it is taken as made by an "
                        "earlier task of the play, and this result is predicted on that assumption (run for real, "
                        "the task fails unless an earlier one makes it)."]


@pytest.mark.parametrize("project_id, missing", [(None, True), ("", True), ("  ", True), ("p-1", False)])
def test_a_null_or_empty_project_id_is_a_project_not_made(project_id, missing):
    assert (project_not_made(project_id) is not None) is missing


def test_a_branch_not_made_yet_is_labelled_so():
    assert branch_label(branch_stand_in("dev")) == "'dev' (not made yet)"


BRANCHES = [
    {"id": "br-main", "name": "main", "default": True},
    {"id": "br-dev", "name": "dev", "parent_id": "br-main"},
    {"id": "br-pr-1", "name": "pr-1", "parent_id": "br-dev", "protected": False,
     "parent_timestamp": "2025-01-16T12:00:00Z", "parent_lsn": "0/1F2E3D4", "expires_at": "2025-02-01T00:00:00Z"},
]


@pytest.mark.parametrize("wanted", ["dev", "br-dev"])
def test_parent_is_found_by_name_or_by_id(wanted):
    assert find_branch(BRANCHES, wanted)["id"] == "br-dev"


def test_unknown_parent_is_not_found():
    assert find_branch(BRANCHES, "nope") is None


def test_default_branch_is_the_one_marked_default_not_the_first():
    assert default_branch(list(reversed(BRANCHES)))["id"] == "br-main"
    assert default_branch([{"id": "br-x", "name": "x", "primary": True}])["id"] == "br-x"
