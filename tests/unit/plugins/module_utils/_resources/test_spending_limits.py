# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rules of _resources/spending_limits.py, without HTTP: the amount asked for (cents, or US dollars turned into
cents exactly, never rounded), what is refused before any request, the plan, and what the result and diff show."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._api.errors import UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.spending_limits import (
    INT64_MAX,
    NOTHING,
    REMOVE,
    SET,
    dollars_to_cents,
    dollars_text,
    limit_of,
    shown,
    spending_limit_plan,
    wanted_cents,
)


def options(cents=None, dollars=None, state="present"):
    return dict(org_id="org-a-1", spending_limit_cents=cents, spending_limit_dollars=dollars, state=state)


@pytest.mark.parametrize("given, cents", [
    (500, 50000), (499.99, 49999), ("499.99", 49999), (" 12.5 ", 1250), (0.01, 1), ("1e3", 100000), (19.99, 1999),
    (1234567.89, 123456789)])
def test_dollars_are_whole_cents_exactly(given, cents):
    assert dollars_to_cents(given) == (cents, None)


@pytest.mark.parametrize("given, words", [
    (12.345, "more than two decimal places"), ("0.001", "more than two decimal places"),
    (0.1 + 0.2, "more than two decimal places"), ("$500", "an amount of US dollars"), ("1,500", "an amount"),
    ("", "an amount"), ("nan", "an amount"), ("inf", "an amount"), (True, "an amount"), ([5], "an amount")])
def test_dollars_that_are_no_exact_amount_are_refused_never_rounded(given, words):
    cents, why = dollars_to_cents(given)
    assert cents is None and words in why


def test_the_amount_asked_for():
    assert wanted_cents(options(cents=150000)) == (150000, None)
    assert wanted_cents(options(dollars="1500")) == (150000, None)
    assert wanted_cents(options(state="absent")) == (None, None)
    assert wanted_cents(options(cents=INT64_MAX)) == (INT64_MAX, None)


@pytest.mark.parametrize("given, words", [
    (options(), "state=present needs the limit"),
    (options(cents=100, dollars=1), "not both"),
    (options(cents=0), "at least one cent, got 0: the service refuses 0; to remove the limit, use state=absent"),
    (options(cents=-100), "at least one cent"),
    (options(dollars=0), "spending_limit_dollars must be at least one cent"),
    (options(dollars="0.00"), "at least one cent"),
    (options(cents=INT64_MAX + 1), "more than the service takes"),
    (options(dollars=10 ** 18), "more than the service takes"),
    (options(cents=100, state="absent"), "state=absent removes the spending limit"),
    (options(dollars=5, state="absent"), "leave out spending_limit_cents and spending_limit_dollars"),
])
def test_options_refused_before_any_request(given, words):
    cents, why = wanted_cents(given)
    assert cents is None and words in why


def test_the_plan():
    assert spending_limit_plan(None, 5000, "present").action == SET
    assert spending_limit_plan(4000, 5000, "present").action == SET
    same = spending_limit_plan(5000, 5000, "present")
    assert (same.action, same.changed, same.cents) == (NOTHING, False, 5000)
    removed = spending_limit_plan(5000, None, "absent")
    assert (removed.action, removed.changed, removed.cents) == (REMOVE, True, None)
    assert spending_limit_plan(None, None, "absent").changed is False  # no limit: nothing to remove


def test_what_the_result_and_diff_show():
    assert shown(150000) == {"spending_limit_cents": 150000, "spending_limit_dollars": "1500.00"}
    assert shown(None) == {"spending_limit_cents": None, "spending_limit_dollars": None}
    assert [dollars_text(value) for value in (1, 99, 100, 123456789)] == ["0.01", "0.99", "1.00", "1234567.89"]


def test_the_answer_is_checked():
    assert limit_of({"spending_limit_cents": None}, "GET", "/x") is None
    assert limit_of({"spending_limit_cents": 7}, "GET", "/x") == 7
    for bad in ({}, {"spending_limit_cents": "7"}, {"spending_limit_cents": True}, {"spending_limit_cents": 7.5}, []):
        with pytest.raises(UnexpectedAnswer):
            limit_of(bad, "GET", "/x")
