# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The decisions about roles, databases and computes, without HTTP: what is created, updated,
refused, chosen, and which secret an answer holds."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.descriptions import (
    DATABASE,
    ROLE,
    after_state,
    choose_endpoint,
    owned_by,
    run_change,
    without_password,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import CREATE, NOTHING, UPDATE, decide
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal

READ_WRITE = {"id": "ep-rw", "type": "read_write", "current_state": "active"}
READ_ONLY_A = {"id": "ep-ro-a", "type": "read_only", "current_state": "idle"}
READ_ONLY_B = {"id": "ep-ro-b", "type": "read_only", "current_state": "active"}


def test_a_missing_role_is_created_by_name_and_an_existing_one_is_left_alone():
    plan = decide(ROLE, None, {"name": "app"}, name="app")
    assert (plan.action, plan.body) == (CREATE, {"name": "app"})
    assert decide(ROLE, {"name": "app", "protected": False}, {"name": "app"}, name="app").action == NOTHING


def test_a_database_s_owner_is_sent_at_creation_and_changed_as_an_update():
    plan = decide(DATABASE, None, {"name": "shop", "owner": "app"}, name="shop")
    assert (plan.action, plan.body) == (CREATE, {"name": "shop", "owner_name": "app"})
    current = {"id": 7, "name": "shop", "owner_name": "app"}
    moved = decide(DATABASE, current, {"name": "shop", "owner": "admin"}, name="shop")
    assert (moved.action, moved.body, moved.changes) == (UPDATE, {"owner_name": "admin"}, {"owner": ("app", "admin")})
    assert decide(DATABASE, current, {"name": "shop", "owner": None}, name="shop").action == NOTHING
    assert decide(DATABASE, current, {"name": "shop", "owner": "app"}, name="shop").action == NOTHING


def test_the_diff_of_a_database_shows_its_name_and_owner():
    assert DATABASE.shown({"id": 7, "name": "shop", "owner_name": "app"}) == {"name": "shop", "owner": "app"}
    assert ROLE.shown({"name": "app", "password": "secret"}) == {"name": "app"}


def test_databases_owned_by_a_role_are_named_in_order():
    databases = [{"name": "b", "owner_name": "app"}, {"name": "a", "owner_name": "app"}, {"name": "c", "owner_name": "x"}]
    assert owned_by(databases, "app") == ["a", "b"] and owned_by(databases, "nobody") == []


def test_a_role_is_returned_without_its_password():
    assert without_password({"name": "app", "password": "secret"}) == {"name": "app"}
    assert without_password(None) is None


def test_a_role_password_is_taken_from_its_answer_whatever_else_it_holds():
    assert answers.role_password({"role": {"name": "app", "password": "pw"}, "operations": "nonsense"}) == "pw"
    for answer in ({"role": {"name": "app"}}, {"role": {"password": ""}}, {"role": {"password": 3}}, {"role": "x"},
                   None, []):
        assert answers.role_password(answer) is None


def test_a_revealed_password_must_be_a_non_empty_string():
    assert answers.revealed_password({"password": "pw"}, "/p") == "pw"
    for answer in ({}, {"password": ""}, {"password": None}, ["pw"]):
        with pytest.raises(UnexpectedAnswer):
            answers.revealed_password(answer, "/p")


def test_the_read_write_compute_is_chosen_by_type_never_by_position():
    assert choose_endpoint([READ_ONLY_A, READ_WRITE], "read_write", None, "'main'") is READ_WRITE
    assert choose_endpoint([READ_ONLY_A], "read_write", None, "'main'") is None


def test_one_read_only_compute_is_meant_without_an_id_and_several_are_refused_naming_them():
    assert choose_endpoint([READ_WRITE, READ_ONLY_A], "read_only", None, "'main'") is READ_ONLY_A
    with pytest.raises(Refusal) as refused:
        choose_endpoint([READ_WRITE, READ_ONLY_A, READ_ONLY_B], "read_only", None, "'main'")
    assert "2 read_only computes (ep-ro-a, ep-ro-b)" in refused.value.msg and "give the id" in refused.value.msg


def test_a_compute_by_id_must_be_of_the_type_asked():
    assert choose_endpoint([READ_WRITE, READ_ONLY_B], "read_only", "ep-ro-b", "'main'") is READ_ONLY_B
    assert choose_endpoint([READ_WRITE], "read_only", "ep-gone", "'main'") is None
    with pytest.raises(Refusal) as refused:
        choose_endpoint([READ_WRITE], "read_only", "ep-rw", "'main'")
    assert "is read_write, not read_only" in refused.value.msg


@pytest.mark.parametrize("state, endpoint, action", [
    ("present", READ_WRITE, None),
    ("started", READ_WRITE, None),
    ("started", READ_ONLY_A, "start"),
    ("started", {"current_state": "idle", "pending_state": "active"}, None),  # already on its way
    ("started", None, None),  # a new compute starts by itself
    ("suspended", READ_WRITE, "suspend"),
    ("suspended", READ_ONLY_A, None),
    ("suspended", None, "suspend"),
    ("restarted", READ_WRITE, "restart"),
    ("restarted", READ_ONLY_A, "restart"),
])
def test_the_run_state_asked_gives_one_action_or_none(state, endpoint, action):
    assert run_change(state, endpoint) == action


def test_the_diff_shows_the_run_state_after_the_task():
    assert after_state("suspended", READ_WRITE) == "idle"
    assert after_state("restarted", READ_ONLY_A) == "active"
    assert after_state("present", READ_ONLY_A) == "idle"
    assert after_state("present", None) == "active"
