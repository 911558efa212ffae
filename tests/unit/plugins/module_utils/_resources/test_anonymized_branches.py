# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""_resources/anonymized_branches.py: the pure rules of an anonymized branch - which rules are refused before any
request, a rule naming what the branch does not have, the set comparison, when a rerun masks again, the rules as the
diff shows them (each column, and a fingerprint of its masking), and a masking that ended badly."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._resources.anonymized_branches import (
    ALWAYS,
    WHEN_CHANGED,
    diff_rules,
    ended_badly,
    masking_forms,
    masking_plan,
    options_problem,
    rules_problem,
    same_rules,
    schema_problem,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal

EMAIL = dict(database_name="shop", schema_name="public", table_name="customers", column_name="email",
             masking_function="anon.fake_email()")
# A literal in no name, message or id of these tests: any piece of it in a message is a leak.
VALUE = "Masked-Person-5e1a"
NAME = dict(database_name="shop", schema_name="public", table_name="customers", column_name="name",
            masking_value=VALUE)
BRANCH = {"id": "br-quiet-leaf-a1b2c3d4", "name": "pr-1-anon", "parent_id": "br-main-main-a1b2c3d4"}
TABLES = {"shop": [{"schema": "public", "name": "customers",
                    "columns": [{"name": "id", "type": "bigint"}, {"name": "email", "type": "text"},
                                {"name": "name", "type": "text"}]},
                   {"schema": "public", "name": "orders", "columns": [{"name": "id", "type": "bigint"}]},
                   {"schema": "billing", "name": "invoices", "columns": [{"name": "id", "type": "bigint"}]}]}


# ---------------------------------------------------------------------------------------------- refused before any request

def test_rules_as_documented_pass():
    assert rules_problem([EMAIL, NAME]) is None


@pytest.mark.parametrize("rules, words", [
    ([], "at least one rule"),
    ([dict(EMAIL, masking_function=None)], "rule 1 of masking_rules has neither a masking_function nor a masking_value"),
    ([NAME, dict(EMAIL, masking_function="")], "rule 2 of masking_rules has neither"),
    ([dict(EMAIL, masking_value="x")], "rule 1 of masking_rules has both"),
    ([dict(EMAIL, column_name=" ")], "rule 1 of masking_rules has no column_name"),
    ([EMAIL, dict(EMAIL, masking_function="anon.hash(email)")],
     "rules 1 and 2 of masking_rules mask the same column, shop.public.customers.email: give one rule per column"),
])
def test_rules_that_cannot_be_sent_are_refused_by_their_place_never_their_masking(rules, words):
    problem = rules_problem(rules)
    assert words in problem
    for value in ("fake_email", "anon.hash", "Masked", "5e1a"):
        assert value not in problem


def test_the_options_check_the_name_and_the_parent_too():
    options = dict(name="pr-1", parent=None, masking_rules=[EMAIL])
    assert options_problem(options) is None
    assert "name must be 1 to 256" in options_problem(dict(options, name=""))
    assert "parent must not be empty" in options_problem(dict(options, parent=" "))
    assert "neither" in options_problem(dict(options, masking_rules=[dict(EMAIL, masking_function=None)]))


# ---------------------------------------------------------------------------------------------- the branch's schema

def tables_of(database):
    return TABLES[database]


def test_rules_naming_what_the_parent_has_pass():
    assert schema_problem([EMAIL, NAME], ["shop", "neondb"], tables_of, "the parent 'main'") is None


@pytest.mark.parametrize("rule, words", [
    (dict(EMAIL, database_name="shopp"), "rule 2 of masking_rules: the parent 'main' has no database 'shopp'; its "
                                         "databases are: neondb, shop"),
    (dict(EMAIL, schema_name="sales"), "rule 2 of masking_rules: database 'shop' of the parent 'main' has no schema "
                                       "'sales' with tables; its schemas with tables are: billing, public"),
    (dict(EMAIL, table_name="customer"), "rule 2 of masking_rules: schema 'public' (database shop) of the parent 'main' "
                                         "has no table 'customer'; its tables there are: customers, orders"),
    (dict(EMAIL, column_name="emial"), "rule 2 of masking_rules: table 'customers' (schema public, database shop) of "
                                       "the parent 'main' has no column 'emial'; its columns are: id, email, name"),
])
def test_a_rule_naming_what_the_parent_has_not_is_refused_naming_what_it_asked_for_and_what_there_is(rule, words):
    assert schema_problem([NAME, rule], ["shop", "neondb"], tables_of, "the parent 'main'") == words


def test_a_schema_problem_names_what_the_rule_asked_for_and_nothing_of_its_masking():
    problem = schema_problem([NAME, dict(EMAIL, table_name="clients", column_name="mail")], ["shop"], tables_of,
                             "the parent")
    assert problem == "rule 2 of masking_rules: schema 'public' (database shop) of the parent has no table " \
                      "'clients'; its tables there are: customers, orders"
    for value in ("fake_email", "Masked", "5e1a"):
        assert value not in problem


def test_a_schema_problem_says_none_when_there_is_nothing_there():
    problem = schema_problem([EMAIL], ["shop"], lambda database: [], "the branch 'pr-1' (br-x)")
    assert problem == "rule 1 of masking_rules: database 'shop' of the branch 'pr-1' (br-x) has no schema 'public' " \
                      "with tables; its schemas with tables are: none"


# ---------------------------------------------------------------------------------------------- comparing and deciding

def test_rules_compare_as_a_set():
    assert same_rules([EMAIL, NAME], [NAME, EMAIL])
    assert same_rules([EMAIL, NAME], [NAME, EMAIL, dict(EMAIL)])
    assert same_rules([dict(NAME, masking_function=None)], [NAME])  # the service's null for the one not given
    assert not same_rules([EMAIL, NAME], [EMAIL])
    assert not same_rules([EMAIL], [dict(EMAIL, masking_function="anon.hash(email)")])


@pytest.mark.parametrize("echoed, asked", [
    ("anon.fake_email( )", "anon.fake_email()"),
    ("anon.random_string( 10 )", "anon.random_string(10)"),
    ("anon.partial(email, 2, '***', 3)", "anon.partial( email,2,'***',3 )"),
    ("  anon.hash(email)\n", "anon.hash(email)"),
])
def test_masking_functions_that_differ_only_in_whitespace_are_the_same_rule(echoed, asked):
    assert same_rules([dict(EMAIL, masking_function=echoed)], [dict(EMAIL, masking_function=asked)])
    salt = b"0123456789abcdef"
    assert diff_rules([dict(EMAIL, masking_function=echoed)], salt) == \
        diff_rules([dict(EMAIL, masking_function=asked)], salt)  # the diff shows no change either
    assert not masking_plan(BRANCH, [dict(EMAIL, masking_function=echoed)], "anonymized",
                            [dict(EMAIL, masking_function=asked)], WHEN_CHANGED).changed


@pytest.mark.parametrize("one, other", [
    ("anon.partial(email, 2, '* *', 3)", "anon.partial(email, 2, '**', 3)"),  # within a string: another value
    ('anon.hash("e mail")', 'anon.hash("email")'),  # within a quoted identifier: another column
    ("anon.lorem_ipsum(words := 3)", "anon.lorem_ipsum(words := 4)"),
])
def test_masking_functions_that_differ_otherwise_are_other_rules(one, other):
    assert not same_rules([dict(EMAIL, masking_function=one)], [dict(EMAIL, masking_function=other)])


def test_names_and_values_are_compared_exactly():
    assert not same_rules([dict(EMAIL, column_name="Email")], [EMAIL])  # a quoted identifier is case-sensitive
    assert not same_rules([dict(NAME, masking_value=VALUE + " ")], [NAME])  # a literal's spaces are its value


def test_a_new_branch_is_made_and_masked():
    plan = masking_plan(None, [], None, [EMAIL], WHEN_CHANGED)
    assert (plan.create, plan.set_rules, plan.anonymize, plan.changed) == (True, False, True, True)


def test_a_rerun_with_the_rules_in_another_order_masks_nothing_again():
    plan = masking_plan(BRANCH, [NAME, EMAIL], "anonymized", [EMAIL, NAME], WHEN_CHANGED)
    assert not plan.changed


def test_other_rules_are_replaced_whole_and_masked_again():
    plan = masking_plan(BRANCH, [EMAIL], "anonymized", [EMAIL, NAME], WHEN_CHANGED)
    assert (plan.create, plan.set_rules, plan.anonymize) == (False, True, True)
    assert plan.why == "its masking rules changed"


@pytest.mark.parametrize("state", ["initialized", "error"])
def test_a_branch_whose_last_masking_did_not_end_masked_is_masked_again(state):
    plan = masking_plan(BRANCH, [EMAIL], state, [EMAIL], WHEN_CHANGED)
    assert (plan.set_rules, plan.anonymize) == (False, True)
    assert state in plan.why


def test_always_masks_again_on_every_run():
    plan = masking_plan(BRANCH, [EMAIL], "anonymized", [EMAIL], ALWAYS)
    assert (plan.set_rules, plan.anonymize, plan.why) == (False, True, "anonymize is always")


def test_a_branch_that_failed_to_initialize_is_refused_with_its_id():
    with pytest.raises(Refusal) as refused:
        masking_plan(BRANCH, [EMAIL], "initialization_error", [EMAIL], ALWAYS)
    assert "'pr-1-anon' (br-quiet-leaf-a1b2c3d4)" in refused.value.msg
    assert "delete it" in refused.value.msg


# ---------------------------------------------------------------------------------------------- diff and failures

def test_the_diff_shows_each_rules_column_and_a_fingerprint_of_its_masking_never_the_masking():
    salt = b"0123456789abcdef"
    before, after = diff_rules([EMAIL], salt), diff_rules([NAME, EMAIL], salt)
    assert len(after) == 2 and before[0] in after  # the rule that stays is the same line
    assert diff_rules([NAME, EMAIL], salt) == diff_rules([EMAIL, NAME], salt)
    assert [line.split(" (fingerprint ")[0] for line in after] == [
        "shop.public.customers.email: masking_function", "shop.public.customers.name: masking_value"]
    for line in after:
        assert re.match(r"^.*: masking_(function|value) \(fingerprint [0-9a-f]{12}\)$", line), line
    shown = " ".join(after)
    for value in ("anon", "fake_email", "Masked", "5e1a"):
        assert value not in shown
    # another function on the same column: the same column, another fingerprint
    changed = diff_rules([dict(EMAIL, masking_function="anon.hash(email)")], salt)
    assert changed != before and changed[0].split(" (")[0] == before[0].split(" (")[0]
    assert diff_rules([EMAIL], b"another run's salt") != before  # not guessable from one run to the next
    # a rule the service holds with neither (the module sends none so) is still a line of the diff
    assert diff_rules([dict(EMAIL, masking_function=None)], salt) == ["shop.public.customers.email: no masking"]


@pytest.mark.parametrize("state, words", [
    ("error", "a rerun masks it again"),
    ("initialization_error", "delete it (neon.cloud.branch, state: absent)"),
])
def test_a_masking_that_ended_badly_names_the_message_and_the_branch(state, words):
    message = ended_badly(BRANCH, {"state": state, "status_message": "function anon.nope() does not exist"})
    assert "ended in state %s: function anon.nope() does not exist" % state in message
    assert "The branch exists (id br-quiet-leaf-a1b2c3d4)" in message
    assert words in message


def test_the_forms_hidden_of_a_rules_masking_are_those_the_service_may_echo():
    spaced = dict(EMAIL, masking_function="anon.partial(email,  2, '*' , 3)")
    whole = [(form, False) for form in (
        "anon.partial(email,  2, '*' , 3)", "anon.partial(email,  2, ''*'' , 3)",  # as given; SQL-quoted
        "anon.partial(email,2,'*',3)", "anon.partial(email,2,''*'',3)",  # as function_key reads it
        "anon.partial(email, 2, '*' , 3)", "anon.partial(email, 2, ''*'' , 3)")]  # its spaces made one
    assert masking_forms(spaced) == sorted(set(whole + [("*", True)]))  # its quoted literal, piece by piece
    salted = masking_forms(dict(EMAIL, masking_function="anon.hash(email, 'It''s-salt')"))
    assert ("It's-salt", True) in salted and ("It''s-salt", True) in salted
    assert ("anon.hash(email, 'It''s-salt')", False) in salted
    assert masking_forms(dict(NAME, masking_value="O'Brien")) == [("O''Brien", True), ("O'Brien", True)]
    assert masking_forms(dict(EMAIL, masking_function=None)) == []
