# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests of what a masking rule may be with real computes (anon_sql.py), without PostgreSQL: the SQL
a rule becomes, and what is refused before anything reaches psql (pg_cluster.py). tests/test_real_computes.py masks
for real."""

from __future__ import annotations

import pytest

from neon_simulator import anon_sql
from neon_simulator.pg_cluster import Cluster, literal
from neon_simulator.real_computes import SCHEMA_JSON_QUERY

COLUMNS = {"email", "phone", "Name"}


def sql_of(**masking):
    return anon_sql.expression(masking, COLUMNS)


@pytest.mark.parametrize("function, sql", [
    ("anon.fake_email()", '"anon"."fake_email"()'),
    (" anon . fake_email ( ) ", '"anon"."fake_email"()'),
    ("anon.partial(phone, 3, '*****', 2)", '"anon"."partial"("phone", 3, \'*****\', 2)'),
    ("anon.hash(EMAIL)", '"anon"."hash"("email")'),                       # unquoted: folded, as PostgreSQL does
    ('anon.partial("Name", +1, \'it\'\'s\', -2)', '"anon"."partial"("Name", 1, \'it\'\'s\', -2)'),
    ("anon.random_string(NULL)", '"anon"."random_string"(NULL)'),
    ("anon.random_int_between(1.50, 7)", '"anon"."random_int_between"(1.50, 7)'),
])
def test_a_masking_function_is_one_call_whose_sql_is_built_from_its_parts(function, sql):
    assert sql_of(masking_function=function) == sql


@pytest.mark.parametrize("function, why", [
    ("anon.fake_email() WHERE false", "is not one call anon.<name>(<arguments>) and nothing else"),
    ("anon.fake_email() \\! id > /tmp/pwned", "is not one call anon.<name>(<arguments>) and nothing else"),
    ("anon.fake_email(); DROP TABLE customers", "is not one call anon.<name>(<arguments>) and nothing else"),
    ("anon.hash(email) || 'x'", "is not one call anon.<name>(<arguments>) and nothing else"),
    ("lower(email)", "is not one call anon.<name>(<arguments>) and nothing else"),
    ("anon.hash('a\\! id')", "argument 1 is not a number, a quoted string without backslashes, NULL or a column name"),
    ("anon.hash(anon.fake_email())", "argument 1 is not a number"),
    ("anon.partial(email, 1, '*', 1 + 1)", "argument 4 is not a number"),
    ("anon.hash(email -- )", "argument 1 is not a number"),
    ("anon.hash(\"Na\\me\")", "argument 1 is not a number"),
    ("anon.hash(password)", "password is not a column of the table"),
    ("anon.hash(name)", "name is not a column of the table"),       # the column is "Name"
    ("anon.hash(email,)", "an argument is missing after the last comma"),
    ("anon.lorem_ipsum()", "anon.lorem_ipsum is not available in the local Neon: its anon schema has"),
])
def test_anything_else_is_refused_saying_why(function, why):
    with pytest.raises(ValueError) as refused:
        sql_of(masking_function=function)
    assert why in str(refused.value)


@pytest.mark.parametrize("value, sql", [
    ("'REDACTED'", "'REDACTED'"),
    ("REDACTED", "'REDACTED'"),
    ("'O''Brien'", "'O''Brien'"),
    ("0", "'0'"),
    ("-1.5", "'-1.5'"),
    ("TRUE", "'true'"),
    ("NULL", "NULL"),
    ("x' || current_user || '", "'x'' || current_user || '''"),
    ("0; DROP TABLE customers", "'0; DROP TABLE customers'"),
])
def test_a_masking_value_reaches_sql_only_as_a_quoted_literal(value, sql):
    assert sql_of(masking_value=value) == sql


def test_a_masking_value_with_a_backslash_is_a_string_like_any_other():
    assert sql_of(masking_value="x \\! id") == "'x \\! id'"


class Programs:
    """Records what would run instead of running it."""
    def __init__(self):
        self.ran = []

    def run(self, *args, **kwargs):
        self.ran.append((args, kwargs))
        return ""


@pytest.mark.parametrize("statement", [
    "SELECT 1 \\! id",
    'CREATE ROLE "x\\! id" LOGIN',
    "SELECT E'\\' \\! id '",
    "SELECT $$ \\! id $$",
    "SELECT 'a\\b' /* ' */ \\! id '",
    "SELECT 'a\\b",
])
def test_a_statement_psql_could_read_a_command_in_never_reaches_psql(statement):
    programs = Programs()
    with pytest.raises(ValueError, match="does not send this SQL to psql: .*backslash"):
        Cluster(programs, "/nonexistent").sql(statement)
    assert not programs.ran


def test_a_backslash_inside_a_string_literal_is_sent():
    """What literal() writes (a user's name in JSON, a masking value) is text for psql and the server."""
    programs = Programs()
    statement = "INSERT INTO t VALUES (%s, %s)" % (literal('{"name": "Jos\\u00e9 \\"Q\\""}'), literal("C:\\x \\! id"))
    Cluster(programs, "/nonexistent").sql(statement)
    assert programs.ran[0][1]["stdin"] == statement + "\n"
    assert "standard_conforming_strings=on" in programs.ran[0][1]["env"]["PGOPTIONS"]


def test_the_simulators_own_sql_has_no_backslash():
    """The anon schema and the statements the simulator always sends have none at all."""
    assert "\\" not in anon_sql.SCHEMA_SQL
    assert "\\" not in SCHEMA_JSON_QUERY
