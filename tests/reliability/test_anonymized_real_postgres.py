# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""An anonymized branch made by the module against a simulator whose computes are real PostgreSQL servers
(``--postgres``): the module checks its rules against the parent's real schema (``format=json``), and the branch's
rows are its parent's with the masked column rewritten - checked with psql, not with the API's word."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

import neon_reliability as rel
from neon_reliability import failed, ok
from neon_testing import psql_rows as rows
from neon_testing import real_computes_simulator

CUSTOMERS = 40


@pytest.fixture(scope="module", name="pg_sim")
def pg_sim_fixture(auth_key):
    with real_computes_simulator(api_key=auth_key, operation_pace=0.1) as simulator:
        yield simulator


def run(sim, module, **args):
    return rel.task(sim, module, api_timeout=60, **args)


def rule(column, **masking):
    return dict(database_name="neondb", schema_name="public", table_name="customers", column_name=column, **masking)


def test_the_module_masks_a_parents_emails_for_real_and_refuses_a_column_the_parent_lacks(pg_sim):
    made = ok(run(pg_sim, "project", name=rel.unique_name("anon")))
    project_id, uri = made["project"]["id"], made["connection_uri"]
    rows(pg_sim, uri, "CREATE TABLE customers (id int PRIMARY KEY, email text, plan text); "
                      "INSERT INTO customers SELECT i, 'person' || i || '@example.com', 'plan-' || (i %% 3) "
                      "FROM generate_series(1, %d) i" % CUSTOMERS)

    refused = failed(run(pg_sim, "branch_anonymized", project_id=project_id, name="pr-1-anon", parent="main",
                         masking_rules=[rule("e_mail", masking_function="anon.fake_email()")]))
    assert "email" in refused["msg"] and "plan" in refused["msg"], refused["msg"]  # names the columns there are

    done = ok(run(pg_sim, "branch_anonymized", project_id=project_id, name="pr-1-anon", parent="main",
                  masking_rules=[rule("email", masking_function="anon.fake_email()")]))
    assert done["anonymized_status"]["state"] == "anonymized", done["anonymized_status"]
    branch_uri = ok(run(pg_sim, "connection_info", project_id=project_id, branch="pr-1-anon"))["uri"]

    parent = rows(pg_sim, uri, "SELECT id, email, plan FROM customers ORDER BY id")
    masked = rows(pg_sim, branch_uri, "SELECT id, email, plan FROM customers ORDER BY id")
    assert len(masked) == len(parent) == CUSTOMERS
    parent_emails = {line.split("|")[1] for line in parent}
    masked_emails = [line.split("|")[1] for line in masked]
    assert not parent_emails & set(masked_emails), "the branch still holds a parent's email"
    assert all("@" in email for email in masked_emails), masked_emails[:3]  # fake emails, not blanks
    assert [(line.split("|")[0], line.split("|")[2]) for line in masked] == \
        [(line.split("|")[0], line.split("|")[2]) for line in parent]  # ids and the unmasked column unchanged
