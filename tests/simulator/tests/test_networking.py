# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests: private networking (governance-recovery-api-notes.md section 3) - an organization's VPC
endpoints per region, their state on the simulator's clock, the one-way removal, and project restrictions, with
answers shaped as the OpenAPI schemas say (VPCEndpointsResponse, VPCEndpointsWithRegionResponse,
VPCEndpointDetails)."""

from __future__ import annotations

import requests

API_KEY = "sim-selftest-key-networking"
ORG = "org-calm-tree-21298941"
CHECKOUT = "bold-glade-61830452"        # aws-eu-central-1, of ORG
LEDGER = "young-forest-83025174"        # aws-us-east-2, of ORG
DEMO = "shiny-river-12345678"           # a personal project
REGION = "aws-eu-central-1"
VPCE = "vpce-0a1b2c3d4e5f67890"
OTHER = "vpce-0fedcba9876543210"

# The OpenAPI document's schemas (kislerdm/neon-sdk-go openAPIDefinition.json): required fields and their types.
VPC_ENDPOINT = {"vpc_endpoint_id": str, "label": str}
VPC_ENDPOINT_WITH_REGION = dict(VPC_ENDPOINT, region_id=str)
VPC_ENDPOINT_DETAILS = dict(VPC_ENDPOINT, state=str, num_restricted_projects=int, example_restricted_projects=list)


def conforms(item, schema):
    assert isinstance(item, dict), item
    for field, kind in schema.items():
        assert isinstance(item.get(field), kind), (field, item)
    return item


def endpoints(response, schema=None):
    schema = schema or VPC_ENDPOINT
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"endpoints"}
    return [conforms(item, schema) for item in body["endpoints"]]


def call(sim, method, path, key=API_KEY, **kwargs):
    kwargs.setdefault("timeout", 10)
    return requests.request(method, sim.url + path, headers={"Authorization": "Bearer " + key}, **kwargs)


def refused(response, status, message):
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"code", "message", "request_id"} and message in body["message"], body
    return body


def no_body(response):
    """A success the document gives no content: 200, no body, no content type (as the service answers it)."""
    assert response.status_code == 200, response.text
    assert response.content == b"" and response.headers.get("Content-Length") == "0", response.content
    assert "Content-Type" not in response.headers, response.headers
    return True


def region_path(region=REGION, org=ORG):
    return "/organizations/%s/vpc/region/%s/vpc_endpoints" % (org, region)


def assign(sim, vpce=VPCE, label="prod", region=REGION, org=ORG, key=API_KEY):
    return call(sim, "POST", region_path(region, org) + "/" + vpce, key=key, json={"label": label})


def restrict(sim, project, vpce=VPCE, label="checkout", key=API_KEY):
    return call(sim, "POST", "/projects/%s/vpc_endpoints/%s" % (project, vpce), key=key, json={"label": label})


def test_an_assigned_endpoint_is_listed_in_its_region_and_every_region_and_relabelled_by_the_same_post(sim):
    assert endpoints(call(sim, "GET", region_path())) == []
    assert no_body(assign(sim))
    assert endpoints(call(sim, "GET", region_path())) == [{"vpc_endpoint_id": VPCE, "label": "prod"}]
    assert endpoints(call(sim, "GET", region_path("aws-us-east-2"))) == []
    assert endpoints(call(sim, "GET", "/organizations/%s/vpc/vpc_endpoints" % ORG), VPC_ENDPOINT_WITH_REGION) == [
        {"vpc_endpoint_id": VPCE, "label": "prod", "region_id": REGION}]
    assert no_body(assign(sim, label="production"))
    assert endpoints(call(sim, "GET", region_path())) == [{"vpc_endpoint_id": VPCE, "label": "production"}]


def test_details_turn_from_new_to_accepted_on_the_simulator_clock_and_count_restricted_projects(sim):
    assign(sim)
    details = call(sim, "GET", region_path() + "/" + VPCE)
    assert details.status_code == 200
    assert conforms(details.json(), VPC_ENDPOINT_DETAILS) == {
        "vpc_endpoint_id": VPCE, "label": "prod", "state": "new", "num_restricted_projects": 0,
        "example_restricted_projects": []}
    assert restrict(sim, CHECKOUT).status_code == 200
    sim.advance_clock(59)
    assert call(sim, "GET", region_path() + "/" + VPCE).json()["state"] == "new"
    sim.advance_clock(1)
    later = call(sim, "GET", region_path() + "/" + VPCE).json()
    assert (later["state"], later["num_restricted_projects"], later["example_restricted_projects"]) == (
        "accepted", 1, [CHECKOUT])
    assign(sim, label="renamed")  # a label change does not start the acceptance again
    assert call(sim, "GET", region_path() + "/" + VPCE).json()["state"] == "accepted"


def test_removal_is_one_way_and_another_endpoint_can_still_be_assigned(sim):
    assign(sim)
    assert no_body(call(sim, "DELETE", region_path() + "/" + VPCE))
    refused(call(sim, "GET", region_path() + "/" + VPCE), 404, "is not assigned to organization")
    refused(call(sim, "DELETE", region_path() + "/" + VPCE), 404, "is not assigned")
    refused(assign(sim), 422, "cannot be added back")
    refused(assign(sim, region="aws-us-east-2"), 422, "cannot be added back")  # to the organization, any region
    assert assign(sim, OTHER).status_code == 200
    summary = requests.get(sim.control_url + "/vpc_endpoints", timeout=10).json()
    assert summary["deleted"] == [{"org_id": ORG, "vpc_endpoint_id": VPCE}]
    assert [item["vpc_endpoint_id"] for item in summary["organizations"][ORG]] == [OTHER]


def test_assignments_are_refused_for_azure_bad_ids_members_and_plans_below_scale(sim):
    refused(assign(sim, region="azure-eastus2"), 400, "not supported in Azure regions")
    refused(assign(sim, region="mars-north-1"), 400, "unknown region")
    refused(assign(sim, vpce="vpce-XYZ"), 400, "must be an AWS VPC endpoint id")
    refused(call(sim, "POST", region_path() + "/" + VPCE, json={}), 400, "label: field is required")
    refused(call(sim, "POST", region_path() + "/" + VPCE, json={"label": 7}), 400, "label: must be a string")
    member = sim.create_user(name="Morgan")
    sim.add_member(ORG, member["id"], role="member")
    member_key = sim.create_key("personal", user_id=member["id"])["key"]
    refused(assign(sim, key=member_key), 403, "only organization admins")
    assert endpoints(call(sim, "GET", region_path(), key=member_key)) == []  # members read
    launch = sim.create_organization(name="Small Team", plan="launch")
    refused(assign(sim, org=launch["id"]), 403, "not available on the launch plan")
    outsider = sim.create_organization(name="Elsewhere", admins=[member["id"]])
    refused(call(sim, "GET", region_path(org=outsider["id"])), 403, "not a member")
    assert requests.get(sim.control_url + "/vpc_endpoints", timeout=10).json()["organizations"] == {}


def test_a_project_is_restricted_only_to_an_endpoint_of_its_organization_in_its_region(sim):
    refused(restrict(sim, CHECKOUT), 400, "is not assigned to organization %s in region %s" % (ORG, REGION))
    assign(sim)
    refused(restrict(sim, LEDGER), 400, "in region aws-us-east-2 (the project's region)")
    refused(restrict(sim, DEMO), 400, "belongs to no organization")
    refused(restrict(sim, "no-such-project-1"), 404, "project not found")
    assert no_body(restrict(sim, CHECKOUT))
    assert no_body(restrict(sim, CHECKOUT, label="relabelled"))
    assert endpoints(call(sim, "GET", "/projects/%s/vpc_endpoints" % CHECKOUT)) == [
        {"vpc_endpoint_id": VPCE, "label": "relabelled"}]
    assert no_body(call(sim, "DELETE", "/projects/%s/vpc_endpoints/%s" % (CHECKOUT, VPCE)))
    refused(call(sim, "DELETE", "/projects/%s/vpc_endpoints/%s" % (CHECKOUT, VPCE)), 404, "has no VPC endpoint")
    assert endpoints(call(sim, "GET", "/projects/%s/vpc_endpoints" % CHECKOUT)) == []


def test_a_project_scoped_key_restricts_its_project_and_the_restriction_outlives_the_endpoint(sim):
    assign(sim)
    scoped = sim.create_key("project", project_id=CHECKOUT)["key"]
    assert restrict(sim, CHECKOUT, key=scoped).status_code == 200
    refused(call(sim, "GET", region_path(), key=scoped), 403, "project-scoped")
    call(sim, "DELETE", region_path() + "/" + VPCE)
    assert endpoints(call(sim, "GET", "/projects/%s/vpc_endpoints" % CHECKOUT)) == [
        {"vpc_endpoint_id": VPCE, "label": "checkout"}]


def test_reset_forgets_every_assignment_removal_and_restriction(sim):
    assign(sim)
    restrict(sim, CHECKOUT)
    call(sim, "DELETE", region_path() + "/" + VPCE)
    sim.reset()
    assert requests.get(sim.control_url + "/vpc_endpoints", timeout=10).json() == {
        "organizations": {}, "deleted": [], "projects": {}}
    assert assign(sim).status_code == 200
