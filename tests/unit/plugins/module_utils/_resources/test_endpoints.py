# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rules of _resources/endpoints.py (a compute), without HTTP: which compute is meant, its body and
settings, when it is settled, and what a run state asks."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._resources.endpoints import (
    COMPUTE,
    after_state,
    choose_endpoint,
    compute_body,
    compute_settings_problem,
    compute_settled,
    read_write_endpoint,
    read_write_first,
    run_change,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import NOTHING, UPDATE, decide
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal

READ_WRITE = {"id": "ep-rw", "type": "read_write", "current_state": "active"}
READ_ONLY_A = {"id": "ep-ro-a", "type": "read_only", "current_state": "idle"}
READ_ONLY_B = {"id": "ep-ro-b", "type": "read_only", "current_state": "active"}


def test_compute_dict_maps_to_the_endpoint_fields_with_the_read_write_type():
    assert compute_body({"min_cu": 0.25, "max_cu": 4, "suspend_timeout_seconds": None}) == {
        "type": "read_write", "autoscaling_limit_min_cu": 0.25, "autoscaling_limit_max_cu": 4}
    assert compute_body(True) == {"type": "read_write"}


def test_compute_that_differs_is_updated_by_its_api_names():
    endpoint = {"id": "ep-1", "type": "read_write", "autoscaling_limit_min_cu": 0.25, "autoscaling_limit_max_cu": 1,
                "suspend_timeout_seconds": 0}
    plan = decide(COMPUTE, endpoint, {"min_cu": 0.25, "max_cu": 2, "suspend_timeout_seconds": None})
    assert plan.action == UPDATE
    assert plan.body == {"autoscaling_limit_max_cu": 2}
    assert decide(COMPUTE, endpoint, {"max_cu": 1.0}).action == NOTHING


ENDPOINTS = [
    {"id": "ep-ro", "type": "read_only", "branch_id": "br-1", "host": "ep-ro.eu-central-1.aws.neon.tech"},
    {"id": "ep-other", "type": "read_write", "branch_id": "br-2", "host": "ep-other.eu-central-1.aws.neon.tech"},
    {"id": "ep-rw", "type": "read_write", "branch_id": "br-1", "host": "ep-rw.eu-central-1.aws.neon.tech"},
]


def test_read_write_endpoint_is_chosen_by_type_and_branch_never_by_position():
    assert read_write_endpoint(ENDPOINTS, "br-1")["id"] == "ep-rw"
    assert read_write_endpoint(ENDPOINTS[:1], "br-1") is None
    assert [item["id"] for item in read_write_first([ENDPOINTS[0], ENDPOINTS[2]])] == ["ep-rw", "ep-ro"]


def test_two_read_write_computes_on_one_branch_are_refused():
    with pytest.raises(Refusal):
        read_write_endpoint(ENDPOINTS + [dict(ENDPOINTS[2], id="ep-rw2")], "br-1")


@pytest.mark.parametrize("endpoint,settled", [
    (None, True),
    ({"current_state": "active"}, True),
    ({"current_state": "idle", "pending_state": "idle"}, True),
    ({"current_state": "init", "pending_state": "active"}, False),
    ({"current_state": "init"}, False),
    ({"current_state": "active", "pending_state": "idle"}, False),
])
def test_a_compute_is_settled_unless_being_made_or_on_its_way_to_another_state(endpoint, settled):
    assert compute_settled(endpoint) is settled


@pytest.mark.parametrize("settings,problem", [
    ({}, None),
    ({"min_cu": 0.25, "max_cu": 0.25, "suspend_timeout_seconds": -1}, None),
    ({"min_cu": 1, "max_cu": None}, None),
    ({"suspend_timeout_seconds": 0}, None),
    ({"suspend_timeout_seconds": 604800}, None),
    ({"min_cu": 2, "max_cu": 1}, "compute.min_cu (2) must not be more than compute.max_cu (1)"),
    ({"min_cu": 0.1}, "compute.min_cu must be 0.25 or more, got 0.1"),
    ({"min_cu": float("nan")}, "compute.min_cu must be a finite number, got nan"),
    ({"max_cu": float("inf")}, "compute.max_cu must be a finite number, got inf"),
    ({"max_cu": 0}, "compute.max_cu must be 0.25 or more, got 0"),
    ({"suspend_timeout_seconds": 59}, "compute.suspend_timeout_seconds must be -1 (never), 0 (the service's "
                                      "default) or 60 to 604800, got 59"),
    ({"suspend_timeout_seconds": 604801}, "compute.suspend_timeout_seconds must be -1 (never), 0 (the service's "
                                          "default) or 60 to 604800, got 604801"),
])
def test_compute_settings_the_service_refuses_are_named(settings, problem):
    assert compute_settings_problem(settings, "compute.") == problem


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
