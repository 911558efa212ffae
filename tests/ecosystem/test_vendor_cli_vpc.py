# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The vendor's CLI's private networking (`neonctl vpc endpoint list/assign/remove/status` and `neonctl vpc project
list/restrict/remove`) against the simulator, as a user runs it against the live service (issue 30, point 6: "the
vendor's CLI works against it for what it has (`ip-allow`, `vpc`)").

What the CLI does (governance-recovery-api-notes.md, section 3, NEONCTL vpc_endpoints.ts): `assign` (and its
aliases `update`, `add`) POSTs `{label}` (an empty label without `--label`) and prints the answer; `status` GETs
the endpoint's details; `list` prints the region's endpoints; `remove` DELETEs; `vpc project restrict` POSTs the
project's restriction. The simulator answers the POSTs and DELETEs 200 with no body, as the document has it (the
CLI's fixtures answer `{}`); the CLI prints `{}` for either. Its refusals
(an endpoint not assigned to the project's organization, one removed for good) reach the user as the CLI prints
errors.

The CLI is installed and run by test_vendor_cli.py's fixtures (imported here; see that file).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# The CLI's fixtures (the installed CLI, and a run of it), used by name
from test_vendor_cli import cli, neonctl  # noqa: F401  pylint: disable=unused-import

ORG = "org-calm-tree-21298941"
CHECKOUT = "bold-glade-61830452"  # checkout-api, of ORG, in aws-eu-central-1
LEDGER = "young-forest-83025174"  # ledger, of ORG, in aws-us-east-2
REGION = "aws-eu-central-1"
VPCE = "vpce-0a1b2c3d4e5f67890"
RETIRED = "vpce-0fedcba9876543210"


def requests_since(simulator, seq):
    return [(entry["method"], entry["path"], entry["status"]) for entry in simulator.requests() if entry["seq"] > seq]


def last_seq(simulator):
    entries = simulator.requests()
    return entries[-1]["seq"] if entries else 0


def endpoint(cli, *args, **kwargs):  # noqa: F811
    return cli("vpc", "endpoint", *args, "--org-id", ORG, "--region-id", REGION, **kwargs)


def test_endpoint_assign_status_list_relabel_and_remove_for_good(simulator, cli):  # noqa: F811
    region_path = "/api/v2/organizations/%s/vpc/region/%s/vpc_endpoints" % (ORG, REGION)
    assert endpoint(cli, "list").json == []
    seq = last_seq(simulator)
    assigned = endpoint(cli, "assign", VPCE, "--label", "production-vpc")
    assert assigned.json == {}  # what the CLI prints for the answer without a body
    assert requests_since(simulator, seq) == [("POST", region_path + "/" + VPCE, 200)]
    status = endpoint(cli, "status", VPCE).json
    assert (status["vpc_endpoint_id"], status["label"], status["state"], status["num_restricted_projects"]) == (
        VPCE, "production-vpc", "new", 0)
    simulator.advance_clock(60)
    assert endpoint(cli, "status", VPCE).json["state"] == "accepted"

    endpoint(cli, "update", VPCE, "--label", "prod")
    endpoint(cli, "add", RETIRED)  # without --label the CLI sends an empty one
    assert endpoint(cli, "list").json == [{"vpc_endpoint_id": VPCE, "label": "prod"},
                                          {"vpc_endpoint_id": RETIRED, "label": ""}]

    seq = last_seq(simulator)
    assert endpoint(cli, "remove", RETIRED).json == {}
    assert requests_since(simulator, seq) == [("DELETE", region_path + "/" + RETIRED, 200)]
    again = endpoint(cli, "assign", RETIRED, check=False)
    assert again.returncode != 0 and "cannot be added back" in again.stdout + again.stderr
    assert [item["vpc_endpoint_id"] for item in endpoint(cli, "list").json] == [VPCE]


def test_project_restrict_list_relabel_and_remove(simulator, cli):  # noqa: F811
    endpoint(cli, "assign", VPCE, "--label", "production-vpc")
    refused = cli("vpc", "project", "restrict", VPCE, "--project-id", LEDGER, check=False)
    assert refused.returncode != 0 and "is not assigned to organization %s in region aws-us-east-2" % ORG in (
        refused.stdout + refused.stderr)

    assert cli("vpc", "project", "list", "--project-id", CHECKOUT).json == []
    seq = last_seq(simulator)
    assert cli("vpc", "project", "restrict", VPCE, "--project-id", CHECKOUT, "--label", "checkout").json == {}
    assert requests_since(simulator, seq) == [
        ("POST", "/api/v2/projects/%s/vpc_endpoints/%s" % (CHECKOUT, VPCE), 200)]
    cli("vpc", "project", "update", VPCE, "--project-id", CHECKOUT, "--label", "checkout-prod")
    assert cli("vpc", "project", "list", "--project-id", CHECKOUT).json == [
        {"vpc_endpoint_id": VPCE, "label": "checkout-prod"}]
    status = endpoint(cli, "status", VPCE).json
    assert (status["num_restricted_projects"], status["example_restricted_projects"]) == (1, [CHECKOUT])

    assert cli("vpc", "project", "remove", VPCE, "--project-id", CHECKOUT).json == {}
    assert cli("vpc", "project", "list", "--project-id", CHECKOUT).json == []
