# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The decisions about roles and databases (_resources/roles_databases.py), without HTTP: what is created,
updated, refused, and which secret an answer holds."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._api.errors import UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import CREATE, NOTHING, UPDATE, decide
from ansible_collections.neon.cloud.plugins.module_utils._resources.roles_databases import (
    DATABASE,
    ROLE,
    owned_by,
    revealed_password,
    role_password,
    without_password,
)


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
    assert role_password({"role": {"name": "app", "password": "pw"}, "operations": "nonsense"}) == "pw"
    for answer in ({"role": {"name": "app"}}, {"role": {"password": ""}}, {"role": {"password": 3}}, {"role": "x"},
                   None, []):
        assert role_password(answer) is None


def test_a_revealed_password_must_be_a_non_empty_string():
    assert revealed_password({"password": "pw"}, "/p") == "pw"
    for answer in ({}, {"password": ""}, {"password": None}, ["pw"]):
        with pytest.raises(UnexpectedAnswer):
            revealed_password(answer, "/p")
