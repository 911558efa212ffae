# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The decisions about VPC endpoints, without HTTP: the plan of an assignment (assign, relabel, leave, remove),
what is refused before sending, and what an answer must hold."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import CREATE, DELETE, NOTHING, UPDATE
from ansible_collections.neon.cloud.plugins.module_utils._resources.vpc_endpoints import (
    one_way_note,
    unreachable_organization,
    vpc_assignment_plan,
    vpc_endpoint_details,
    vpc_endpoint_id_problem,
    vpc_endpoint_list,
    vpc_region_problem,
)

VPCE = "vpce-0a1b2c3d4e5f67890"
ASSIGNED = {"vpc_endpoint_id": VPCE, "label": "prod", "state": "accepted", "num_restricted_projects": 0,
            "example_restricted_projects": []}


def test_a_missing_assignment_is_made_with_the_label_or_an_empty_one():
    plan = vpc_assignment_plan(None, "prod", "present", "it")
    assert (plan.action, plan.body) == (CREATE, {"label": "prod"})
    plan = vpc_assignment_plan(None, None, "present", "it")
    assert (plan.action, plan.body) == (CREATE, {"label": ""})  # the service requires a label


def test_a_different_label_is_an_update_and_no_label_or_the_same_one_changes_nothing():
    plan = vpc_assignment_plan(ASSIGNED, "production", "present", "it")
    assert (plan.action, plan.body, plan.changes) == (UPDATE, {"label": "production"}, {"label": ("prod", "production")})
    assert vpc_assignment_plan(ASSIGNED, "prod", "present", "it").action == NOTHING
    assert vpc_assignment_plan(ASSIGNED, None, "present", "it").action == NOTHING
    assert vpc_assignment_plan(dict(ASSIGNED, label=""), "", "present", "it").action == NOTHING


def test_absent_removes_an_assignment_and_leaves_a_missing_one_alone():
    assert vpc_assignment_plan(ASSIGNED, None, "absent", "it").action == DELETE
    assert vpc_assignment_plan(None, "prod", "absent", "it").action == NOTHING


@pytest.mark.parametrize("good", ["vpce-0a1b2c3d", "vpce-0a1b2c3d4e5f67890"])
def test_aws_endpoint_ids_are_taken(good):
    assert vpc_endpoint_id_problem(good) is None


@pytest.mark.parametrize("bad", ["", "vpce-", "vpce-0A1B2C3D", "vpce-0a1b2c3", "vpce-0a1b2c3d4e5f678901",
                                 "vpc-0a1b2c3d", "vpce-0a1b2c3d/../x", " vpce-0a1b2c3d"])
def test_anything_else_is_refused_naming_the_form(bad):
    assert "vpce- and 8 or 17 hexadecimal digits" in vpc_endpoint_id_problem(bad)


def test_azure_regions_are_refused_and_aws_ones_taken():
    assert "Azure region" in vpc_region_problem("azure-eastus2")
    assert vpc_region_problem("aws-eu-central-1") is None


def test_the_one_way_note_names_the_endpoint_and_the_organization():
    note = one_way_note(VPCE, "org-x")
    assert VPCE in note and "org-x" in note and "again" in note


def test_lists_and_details_are_checked_before_use():
    assert vpc_endpoint_list({"endpoints": [{"vpc_endpoint_id": VPCE, "label": ""}]}, "/p") == [
        {"vpc_endpoint_id": VPCE, "label": ""}]
    with pytest.raises(UnexpectedAnswer, match="region_id is missing"):
        vpc_endpoint_list({"endpoints": [{"vpc_endpoint_id": VPCE, "label": ""}]}, "/p", with_region=True)
    with pytest.raises(UnexpectedAnswer, match="endpoints is missing"):
        vpc_endpoint_list({}, "/p")
    with pytest.raises(UnexpectedAnswer, match="label must be a string"):
        vpc_endpoint_list({"endpoints": [{"vpc_endpoint_id": VPCE, "label": None}]}, "/p")
    assert vpc_endpoint_details(ASSIGNED, "/p", VPCE) == ASSIGNED
    with pytest.raises(UnexpectedAnswer, match="not 'vpce-0000000000000000a' as asked"):
        vpc_endpoint_details(ASSIGNED, "/p", "vpce-0000000000000000a")
    with pytest.raises(UnexpectedAnswer, match="num_restricted_projects must be an integer"):
        vpc_endpoint_details(dict(ASSIGNED, num_restricted_projects="1"), "/p", VPCE)
    with pytest.raises(UnexpectedAnswer, match=r"example_restricted_projects\[0\] must be a string"):
        vpc_endpoint_details(dict(ASSIGNED, example_restricted_projects=[7]), "/p", VPCE)


def test_an_organization_out_of_reach_is_named_with_the_service_s_words_and_nothing_changed():
    error = NeonAPIError("GET", "/organizations/org-x/vpc/region/aws-eu-central-1/vpc_endpoints", "HTTP 404",
                         status=404, api_message="not a member", request_id="r-1")
    said = unreachable_organization("org-x", error)
    assert said.startswith("organization org-x is not one this API key reaches (HTTP 404: not a member, request id "
                           "r-1)") and "nothing was changed" in said and "neon.cloud.auth_info" in said
