# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The schema answers of _resources/schemas.py, without HTTP: what a schema and a comparison give a playbook,
and answers that cannot be used."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._api.errors import UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.schemas import (
    diff_result,
    point_params,
    schema_answer,
)

PATH = "/projects/p/branches/b/schema"
DIFF = "--- a/neondb\n+++ b/neondb\n@@ -1,3 +1,4 @@\n CREATE TABLE public.t (\n-    id bigint\n+    id bigint,\n+    x text\n );\n"


@pytest.mark.parametrize("answer, diff, differs", [
    ({"diff": DIFF}, DIFF, True),
    ({"diff": ""}, "", False),
    ({}, "", False),  # absent: the same schema
    ({"diff": None}, "", False),
    ({"diff": "\n"}, "\n", False),  # nothing but a blank line: the same schema
])
def test_diff_result(answer, diff, differs):
    assert diff_result(answer, PATH) == {"schema_diff": diff, "differs": differs}


@pytest.mark.parametrize("answer", [[], {"diff": 3}, {"diff": ["a"]}])
def test_a_comparison_that_cannot_be_used_is_an_unexpected_answer(answer):
    with pytest.raises(UnexpectedAnswer):
        diff_result(answer, PATH)


def test_schema_answers_in_both_formats():
    assert schema_answer({"sql": "CREATE TABLE public.t ();\n"}, PATH, "sql") == "CREATE TABLE public.t ();\n"
    assert schema_answer({}, PATH, "sql") == ""
    tables = [{"schema": "public", "name": "t", "columns": [{"name": "id", "type": "bigint"}]}]
    assert schema_answer({"json": {"tables": tables}}, PATH, "json") == {"tables": tables}
    assert schema_answer({}, PATH, "json") == {"tables": []}


@pytest.mark.parametrize("answer, schema_format", [
    ({"sql": 5}, "sql"),
    ({"json": {"tables": [{"schema": "public", "name": "t"}]}}, "json"),
    ({"json": {"tables": [{"schema": "public", "name": "t", "columns": [{"name": "id"}]}]}}, "json"),
    ({"json": {"tables": "t"}}, "json"),
    ("CREATE TABLE", "sql"),
])
def test_a_schema_that_cannot_be_used_is_an_unexpected_answer(answer, schema_format):
    with pytest.raises(UnexpectedAnswer):
        schema_answer(answer, PATH, schema_format)


def test_point_params():
    assert point_params("2026-05-04T02:55:00Z") == {"timestamp": "2026-05-04T02:55:00Z", "lsn": None}
    assert point_params(lsn="0/1A", prefix="base_") == {"base_timestamp": None, "base_lsn": "0/1A"}
