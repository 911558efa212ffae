# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pure rules of project_transfer (_resources/transfers.py): what the options alone get wrong, what moves, how
more than 400 projects are sent."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._resources.transfers import (
    batches,
    options_problem,
    request_ttl,
    transfer_plan,
    unique,
)

SOURCE = "org-calm-tree-21298941"
DEST = "org-quiet-lake-40817265"


def params(**given):
    base = dict(project_ids=["bold-glade-61830452"], destination_org_id=DEST, source_org_id=SOURCE,
                destination_api_key=None)
    base.update(given)
    return base


def test_options_alone():
    assert options_problem(params()) is None
    assert options_problem(params(source_org_id=None, destination_api_key="k")) is None
    assert "source_org_id is required" in options_problem(params(source_org_id=None))
    assert "leave one out" in options_problem(params(destination_api_key="k"))
    assert "same organization" in options_problem(params(source_org_id=DEST))
    assert "at least one project" in options_problem(params(project_ids=[]))
    assert "project_ids[1] is not a project id" in options_problem(params(project_ids=["a-1", "A B"]))
    assert "destination_org_id must be" in options_problem(params(destination_org_id="Org X"))
    assert options_problem(params(project_ids=[""])) is None  # an empty id: check mode's assumption, or refused then


def test_what_moves_is_what_is_not_in_the_destination_yet():
    where = {"a-1": SOURCE, "b-2": DEST, "c-3": None}
    assert transfer_plan(where, DEST) == (["a-1", "c-3"], ["b-2"])
    assert transfer_plan({"b-2": DEST}, DEST) == ([], ["b-2"])


def test_more_than_400_go_as_requests_of_400_in_order():
    ids = ["p-%d" % number for number in range(801)]
    sent = batches(ids)
    assert [len(batch) for batch in sent] == [400, 400, 1] and sum(sent, []) == ids
    assert batches([]) == []


def test_repeated_ids_count_once_in_their_order():
    assert unique(["b-2", "a-1", "b-2"]) == ["b-2", "a-1"]


def test_a_destination_key_that_cannot_be_sent_is_refused_without_its_value():
    for key in ("", "   ", "ab cd-hidden", "ab\x00hidden", u"caf\u00e9-hidden", "line\nhidden"):
        problem = options_problem(params(source_org_id=None, destination_api_key=key))
        assert problem.startswith("destination_api_key ") and "hidden" not in problem


def test_a_transfer_request_lives_as_long_as_its_accept_may_take_and_a_minute():
    assert request_ttl(dict(api_retries=5, api_timeout=30.0, api_retry_max_delay=30.0)) == 391  # the defaults
    assert request_ttl(dict(api_retries=0, api_timeout=10.0, api_retry_max_delay=30.0)) == 71
