# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The decisions of _resources/plan.py and descriptions.py, without HTTP: what is created, updated, refused, chosen."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._resources.connections import only_name, pooled_host
from ansible_collections.neon.cloud.plugins.module_utils._resources.descriptions import (
    BRANCH,
    COMPUTE,
    PROJECT,
    branch_problem,
    branch_settled,
    compute_body,
    compute_settings_problem,
    compute_settled,
    default_branch,
    find_branch,
    parent_problem,
    read_write_endpoint,
    read_write_first,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import (
    CREATE,
    DELETE,
    NOTHING,
    REFUSE,
    UPDATE,
    decide,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal, only_one

PROJECT_NOW = {"id": "p-1", "name": "shop", "region_id": "aws-eu-central-1", "pg_version": 17, "org_id": None,
               "history_retention_seconds": 86400,
               "default_endpoint_settings": {"autoscaling_limit_min_cu": 0.25, "autoscaling_limit_max_cu": 1,
                                             "suspend_timeout_seconds": 0}}


def project_options(**given):
    options = dict.fromkeys(("name", "org_id", "region_id", "pg_version", "history_retention_seconds", "compute",
                             "default_branch", "database", "role"))
    options.update(given)
    return options


def test_absent_project_is_created_with_compute_settings_under_their_api_names():
    plan = decide(PROJECT, None, project_options(name="shop", region_id="aws-eu-central-1",
                                                 compute={"min_cu": 0.5, "max_cu": 2, "suspend_timeout_seconds": None},
                                                 default_branch="production", role="app"))
    assert plan.action == CREATE
    assert plan.body == {"name": "shop", "region_id": "aws-eu-central-1",
                         "default_endpoint_settings": {"autoscaling_limit_min_cu": 0.5, "autoscaling_limit_max_cu": 2},
                         "branch": {"name": "production", "role_name": "app"}}


def test_project_as_asked_is_left_alone_even_when_creation_names_differ():
    plan = decide(PROJECT, PROJECT_NOW, project_options(name="shop", region_id="aws-eu-central-1", pg_version=17,
                                                        compute={"max_cu": 1.0}, default_branch="other", database="x"))
    assert plan.action == NOTHING
    assert not plan.changed


def test_updatable_project_fields_are_updated_and_only_those():
    plan = decide(PROJECT, PROJECT_NOW, project_options(name="shop", history_retention_seconds=3600,
                                                        compute={"min_cu": 0.5}))
    assert plan.action == UPDATE
    assert plan.body == {"history_retention_seconds": 3600,
                         "default_endpoint_settings": {"autoscaling_limit_min_cu": 0.5}}
    assert plan.changes == {"history_retention_seconds": (86400, 3600), "compute.min_cu": (0.25, 0.5)}


@pytest.mark.parametrize("option, value, shown", [
    ("region_id", "aws-us-east-2", "region_id is 'aws-eu-central-1', not 'aws-us-east-2'"),
    ("pg_version", 16, "pg_version is 17, not 16"),
    ("org_id", "org-a", "org_id is unset, not 'org-a'"),
])
def test_create_only_project_field_that_differs_is_refused_and_changes_nothing(option, value, shown):
    plan = decide(PROJECT, PROJECT_NOW, project_options(name="renamed", **{option: value}))
    assert plan.action == REFUSE
    assert not plan.changed
    assert shown in plan.reason
    assert "can only be set when it is created" in plan.reason
    assert plan.body == {}  # the rename is not carried out beside a refusal


def test_two_projects_of_one_name_are_refused_naming_both_ids():
    with pytest.raises(Refusal) as caught:
        only_one([{"id": "p-1", "name": "shop"}, {"id": "p-2", "name": "shop"}], "projects", "shop")
    assert "p-1" in caught.value.msg and "p-2" in caught.value.msg
    assert caught.value.result == {"changed": False}


def test_absent_state_deletes_what_exists_and_nothing_else():
    assert decide(BRANCH, {"id": "br-1", "name": "pr-1"}, {}, state="absent").action == DELETE
    assert decide(BRANCH, None, {}, state="absent").action == NOTHING


BRANCHES = [
    {"id": "br-main", "name": "main", "default": True},
    {"id": "br-dev", "name": "dev", "parent_id": "br-main"},
    {"id": "br-pr-1", "name": "pr-1", "parent_id": "br-dev", "protected": False,
     "parent_timestamp": "2025-01-16T12:00:00Z", "parent_lsn": "0/1F2E3D4", "expires_at": "2025-02-01T00:00:00Z"},
]


def branch_options(**given):
    options = dict.fromkeys(("name", "parent", "parent_timestamp", "parent_lsn", "protected", "expires_at"))
    options.update(given)
    return options


@pytest.mark.parametrize("wanted", ["dev", "br-dev"])
def test_parent_is_found_by_name_or_by_id(wanted):
    assert find_branch(BRANCHES, wanted)["id"] == "br-dev"


def test_unknown_parent_is_not_found():
    assert find_branch(BRANCHES, "nope") is None


def test_default_branch_is_the_one_marked_default_not_the_first():
    assert default_branch(list(reversed(BRANCHES)))["id"] == "br-main"
    assert default_branch([{"id": "br-x", "name": "x", "primary": True}])["id"] == "br-x"


def test_branch_parent_that_differs_is_refused():
    plan = decide(BRANCH, BRANCHES[2], branch_options(name="pr-1", parent="br-main"))
    assert plan.action == REFUSE
    assert "parent is 'br-dev', not 'br-main'" in plan.reason


def test_branch_point_in_time_compares_moments_not_spellings():
    same = branch_options(name="pr-1", parent="br-dev", parent_timestamp="2025-01-16T12:00:00.000+00:00",
                          parent_lsn="0/1f2e3d4", expires_at="2025-02-01T00:00:00+00:00")
    assert decide(BRANCH, BRANCHES[2], same).action == NOTHING
    other = decide(BRANCH, BRANCHES[2], branch_options(name="pr-1", parent_timestamp="2025-01-16T12:00:01Z"))
    assert other.action == REFUSE


def test_branch_protection_and_expiry_are_updated_and_empty_expiry_removes_it():
    plan = decide(BRANCH, BRANCHES[2], branch_options(name="pr-1", protected=True, expires_at=""))
    assert plan.action == UPDATE
    assert plan.body == {"protected": True, "expires_at": None}


def test_new_branch_body_has_only_what_was_asked():
    plan = decide(BRANCH, None, branch_options(name="pr-2", parent="br-dev", expires_at="2025-02-01T00:00:00Z"))
    assert plan.action == CREATE
    assert plan.body == {"name": "pr-2", "parent_id": "br-dev", "expires_at": "2025-02-01T00:00:00Z"}


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


def test_pooled_host_inserts_pooler_after_the_endpoint_id():
    assert pooled_host("ep-jolly-frost-a57qv4wh.us-east-2.aws.neon.tech") == \
        "ep-jolly-frost-a57qv4wh-pooler.us-east-2.aws.neon.tech"
    assert pooled_host("ep-a-pooler.us-east-2.aws.neon.tech") == "ep-a-pooler.us-east-2.aws.neon.tech"


def test_a_compute_reached_by_its_address_is_its_own_pooler():
    """The simulator's real computes answer 127.0.0.1 for both (a URI's host is checked against it)."""
    assert pooled_host("127.0.0.1") == "127.0.0.1"
    assert pooled_host("::1") == "::1"
    assert pooled_host("ep-1.2.3.neon.tech") == "ep-1-pooler.2.3.neon.tech"


def test_role_or_database_left_out_needs_exactly_one():
    assert only_name([{"name": "app"}], "role", "'main'") == "app"
    with pytest.raises(Refusal) as caught:
        only_name([{"name": "b"}, {"name": "a"}], "database", "'main'")
    assert "2 databases (a, b)" in caught.value.msg


# ---------------------------------------------------------------------------------------------- ready or not


@pytest.mark.parametrize("branch,settled", [
    ({"current_state": "ready"}, True),
    ({"current_state": "archived"}, True),
    ({"current_state": "ready", "pending_state": None}, True),
    ({"current_state": "init", "pending_state": "ready"}, False),
    ({"current_state": "resetting"}, False),
    ({"current_state": "ready", "pending_state": "archived"}, False),
    ({}, False),
])
def test_a_branch_is_settled_only_when_ready_or_archived_with_nothing_pending(branch, settled):
    assert branch_settled(branch) is settled


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


# ---------------------------------------------------------------------------------------------- refused before sending


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


EXPIRY = "2030-01-01T00:00:00Z"
ROOT = {"id": "br-root", "name": "main", "default": True, "protected": False}
CHILD = {"id": "br-child", "name": "dev", "parent_id": "br-root", "default": False, "protected": False}
GRANDCHILD = {"id": "br-grand", "name": "pr-1", "parent_id": "br-child", "default": False, "protected": False}


@pytest.mark.parametrize("after,current,problem", [
    (dict(CHILD, expires_at=None, protected=True), CHILD, None),
    (dict(GRANDCHILD, expires_at=EXPIRY), GRANDCHILD, None),
    ({"name": "new", "expires_at": EXPIRY}, None, None),
    ({"name": "new", "expires_at": EXPIRY, "protected": True}, None, "a protected branch cannot have an expiry"),
    (dict(GRANDCHILD, expires_at=EXPIRY, protected=True), GRANDCHILD, "a protected branch cannot have an expiry"),
    (dict(ROOT, expires_at=EXPIRY), ROOT, "it is the project's default branch, which cannot have an expiry"),
    (dict(CHILD, expires_at=EXPIRY), CHILD, "it is the parent of 'pr-1' (br-grand), and a branch with children "
                                            "cannot have an expiry"),
])
def test_expiries_the_service_refuses_are_named_before_sending(after, current, problem):
    found = branch_problem(after, current, [ROOT, CHILD, GRANDCHILD])
    assert (found is None) if problem is None else found.startswith(problem)


def test_a_branch_cannot_be_made_from_an_expiring_parent():
    assert parent_problem(None) is None and parent_problem(CHILD) is None
    assert parent_problem(dict(CHILD, expires_at=EXPIRY)) == (
        "its parent 'dev' (br-child) expires (expires_at %s), and an expiring branch cannot be a parent" % EXPIRY)
