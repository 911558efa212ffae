# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Neon Auth against a simulator whose computes are real PostgreSQL servers (``--postgres``): enabling it makes the
``neon_auth`` schema in the branch's database, its users are rows there, and disabling with ``delete_data`` drops
it - checked with psql, not with the API's word."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

import neon_reliability as rel
from neon_reliability import ok
from neon_testing import psql_rows as rows
from neon_testing import real_computes_simulator


@pytest.fixture(scope="module", name="pg_sim")
def pg_sim_fixture(auth_key):
    with real_computes_simulator(api_key=auth_key, operation_pace=0.1) as simulator:
        yield simulator


def run(sim, module, **args):
    return rel.task(sim, module, api_timeout=60, **args)


def test_neon_auth_makes_its_schema_and_users_rows_in_the_branch_database(pg_sim):
    made = ok(run(pg_sim, "project", name=rel.unique_name("auth")))
    project_id, uri = made["project"]["id"], made["connection_uri"]
    schemas = "SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'neon_auth'"
    assert rows(pg_sim, uri, schemas) == ["0"]
    ok(run(pg_sim, "neon_auth", project_id=project_id))
    assert rows(pg_sim, uri, schemas) == ["1"]

    user = ok(run(pg_sim, "neon_auth_user", project_id=project_id, email="ada@example.com", name="Ada",
                  roles=["admin"]))
    assert rows(pg_sim, uri, "SELECT id, email, name, raw_json->>'role' FROM neon_auth.users_sync") == [
        "%s|ada@example.com|Ada|admin" % user["user_id"]]
    ok(run(pg_sim, "neon_auth_user", project_id=project_id, id=user["user_id"], state="absent"))
    assert rows(pg_sim, uri, "SELECT count(*) FROM neon_auth.users_sync") == ["0"]

    ok(run(pg_sim, "neon_auth", project_id=project_id, state="absent", delete_data=True))
    assert rows(pg_sim, uri, schemas) == ["0"]
