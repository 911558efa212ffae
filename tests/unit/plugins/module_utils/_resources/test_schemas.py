# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""_resources/schemas.py: what a schema and a comparison give a playbook, answers that cannot be used, points that
cannot be sent, and the requests a schema read and a comparison make (against neon_fakes' scripted transport)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._api.errors import UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.schemas import (
    diff_result,
    schema_answer,
    schema_info,
    schema_input_problem,
)
from ansible_collections.neon.cloud.tests.unit.plugins.module_utils.neon_fakes import make_client, make_response

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


BRANCHES = {"branches": [{"id": "br-main-1", "name": "main", "default": True},
                         {"id": "br-staging-1", "name": "staging", "parent_id": "br-main-1"}]}


def serving(answer):
    """A client whose GET .../branches answers BRANCHES and any other request ``answer``; and what was sent."""
    return make_client(lambda request: make_response(200, BRANCHES) if request.url.split("?")[0].endswith("/branches")
                       else make_response(200, answer))


def test_a_schema_at_a_point_asks_for_that_point_in_utc_ending_in_z():
    client, adapter = serving({"sql": "CREATE TABLE public.t ();\n"})
    result = schema_info(client, "p-1", "main", "neondb", timestamp="2026-05-04T04:55:00.5+02:00")
    assert result == {"changed": False, "branch_id": "br-main-1", "sql": "CREATE TABLE public.t ();\n"}
    read = adapter.sent[1]
    assert read.url.endswith("/projects/p-1/branches/br-main-1/schema?timestamp=2026-05-04T02%3A55%3A00.5Z"
                             "&db_name=neondb&format=sql")
    client, adapter = serving({"json": {"tables": []}})
    assert schema_info(client, "p-1", "br-main-1", "neondb", lsn="0/01a", schema_format="json")["json"] == {"tables": []}
    assert adapter.sent[1].url.endswith("/schema?lsn=0%2F1A&db_name=neondb&format=json")  # no timestamp: none sent


def test_a_comparison_sends_each_branchs_point_and_returns_the_diff():
    client, adapter = serving({"diff": DIFF})
    result = schema_info(client, "p-1", "staging", "neondb", compare_to={
        "branch": "main", "timestamp": "2026-05-04T02:55:00+00:00", "lsn": None})
    assert result == {"changed": False, "branch_id": "br-staging-1", "compare_to_branch_id": "br-main-1",
                      "schema_diff": DIFF, "differs": True}
    assert adapter.sent[1].url.endswith("/branches/br-staging-1/compare_schema?db_name=neondb&base_branch_id=br-main-1"
                                        "&base_timestamp=2026-05-04T02%3A55%3A00Z")


def test_a_branch_that_is_not_there_is_refused_naming_the_option():
    client, adapter = serving({})
    with pytest.raises(Refusal) as refused:
        schema_info(client, "p-1", "staging", "neondb", compare_to={"branch": "prod", "timestamp": None, "lsn": None})
    assert "compare_to.branch 'prod' is neither the name nor the id of a branch of project p-1" in refused.value.msg
    assert len(adapter.sent) == 1  # only the listing


@pytest.mark.parametrize("args, words", [
    (dict(timestamp="2026-05-04 02:55:00"), "timestamp must be an RFC 3339 timestamp"),
    (dict(timestamp="2026-05-04T02:55:00Z", lsn="0/1"), "give timestamp or lsn, not both"),
    (dict(lsn="zz/1"), "lsn must be a Log Sequence Number"),
    (dict(compare_to={"branch": "main", "timestamp": "2026-02-30T00:00:00Z", "lsn": None}),
     "compare_to.timestamp must be an RFC 3339 timestamp"),
    (dict(compare_to={"branch": "main", "timestamp": None, "lsn": "1"}), "compare_to.lsn must be a Log Sequence"),
])
def test_points_that_cannot_be_sent_are_refused_before_any_request(args, words):
    assert words in schema_input_problem(**args)
    assert schema_input_problem("2026-05-04T02:55:00Z", None, {"branch": "main", "timestamp": None,
                                                               "lsn": "0/1A"}) is None
