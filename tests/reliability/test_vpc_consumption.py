# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Private networking (vpc_endpoint, project_vpc_endpoint, vpc_endpoint_info) and consumption_info against the
simulator, in this process as a playbook task runs them (issue 30).

What a user would notice: input the service would refuse costs no request; check mode sends nothing; an
unchanged rerun sends no change (one read); a relabel is one POST; a removal from the organization warns that it
cannot be undone and the service then refuses the endpoint; overlapping runs converge; a lost answer is not sent
again and a rerun converges; every page of a consumption read is read from the current (v2) endpoints with their
required org_id and metrics, per project or a row per branch, project ids go 100 a request, the requests are paced
under the endpoints' rate limit (measured on an injected clock that drives the simulator's), a 429 is waited out,
the plans' 403 and another organization's 404 are the task's message, and a metric the service adds is taken as it
comes (issue 40).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import secrets
import time

import pytest
import requests

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok
from test_provisioning_modules import changes_since, requests_since, run

ORG = "org-calm-tree-21298941"
CHECKOUT = "bold-glade-61830452"  # a project of ORG in aws-eu-central-1
REGION = "aws-eu-central-1"
RUN_TIMEOUT = 120
BARRIER_TIMEOUT = 60


def new_endpoint_id():
    """An endpoint id no test used (the simulator keeps removed ones for good)."""
    return "vpce-" + secrets.token_hex(9)[:17]


def warnings_of(result):
    return json.dumps(result.get("warnings"))


def restricted(sim, vpce, project_id=CHECKOUT):
    """The label of the project's restriction to ``vpce`` as the simulator holds it, or None."""
    return {item["vpc_endpoint_id"]: item["label"]
            for item in sim.state.networking.vpc_summary()["projects"].get(project_id, [])}.get(vpce)


def org_endpoint(vpce, region=REGION):
    return dict(org_id=ORG, region_id=region, vpc_endpoint_id=vpce)


def consumption_module():
    """plugins/module_utils/_account/consumption.py, as the modules run in this process import it (the collection
    is importable once the session's fixtures have run)."""
    from ansible_collections.neon.cloud.plugins.module_utils._account import consumption

    return consumption


def team(sim, name, plan="scale", projects=0):
    """An organization of a user of its own (the bootstrap user's organizations stay as seeded, for the other tests
    of this session) and that user's key: (organization, key)."""
    owner = sim.create_user(name=rel.unique_name(name + "-owner"))
    org = sim.create_organization(name=rel.unique_name(name), plan=plan, admins=[owner["id"]], projects=projects)
    return org, sim.create_key("personal", user_id=owner["id"], name=rel.unique_name(name))["key"]


def assigned(sim, vpce, region=REGION):
    """The organization's endpoint as the simulator holds it, or None."""
    return next((item for item in sim.state.networking.vpc_summary()["organizations"].get(ORG, [])
                 if item["vpc_endpoint_id"] == vpce and item["region_id"] == region), None)


# ---------------------------------------------------------------------------------------------- vpc_endpoint


@pytest.mark.parametrize("args, words", [
    (dict(region_id="azure-eastus2"), "Azure region"),
    (dict(vpc_endpoint_id="vpce-NOT-HEX"), "vpce- and 8 or 17 hexadecimal digits"),
    (dict(org_id=".."), "org_id must not be '..'"),
])
def test_vpc_endpoint_input_the_service_refuses_costs_no_request(sim, args, words):
    seq = last_seq(sim)
    for state in ("present", "absent"):
        refused = failed(run(sim, "vpc_endpoint", state=state, **dict(org_endpoint(new_endpoint_id()), **args)))
        assert words in refused["msg"]
    assert requests_since(sim, seq) == []


def test_vpc_endpoint_check_mode_sends_nothing_then_assigns_relabels_and_reruns_with_one_read(sim):
    vpce = new_endpoint_id()
    seq = last_seq(sim)
    checked = ok(run(sim, "vpc_endpoint", check_mode=True, diff=True, label="prod", **org_endpoint(vpce)))
    assert checked["changed"] is True
    assert checked["diff"] == {"before": {}, "after": {"vpc_endpoint_id": vpce, "label": "prod"}}
    assert changes_since(sim, seq) == [] and assigned(sim, vpce) is None

    made = ok(run(sim, "vpc_endpoint", label="prod", **org_endpoint(vpce)))
    assert made["changed"] is True
    assert (made["vpc_endpoint"]["state"], made["vpc_endpoint"]["region_id"], made["vpc_endpoint"]["label"]) == (
        "new", REGION, "prod")
    assert "operations" not in made

    seq = last_seq(sim)
    again = ok(run(sim, "vpc_endpoint", label="prod", **org_endpoint(vpce)))
    assert again["changed"] is False and len(requests_since(sim, seq)) == 1 and changes_since(sim, seq) == []
    unlabelled = ok(run(sim, "vpc_endpoint", **org_endpoint(vpce)))  # no label: left as it is
    assert unlabelled["changed"] is False and unlabelled["vpc_endpoint"]["label"] == "prod"

    seq = last_seq(sim)
    relabelled = ok(run(sim, "vpc_endpoint", diff=True, label="production", **org_endpoint(vpce)))
    assert relabelled["changed"] is True and relabelled["diff"]["before"]["label"] == "prod"
    assert changes_since(sim, seq) == [("POST", "/api/v2/organizations/%s/vpc/region/%s/vpc_endpoints/%s" % (
        ORG, REGION, vpce))]
    assert assigned(sim, vpce)["label"] == "production"

    sim.advance_clock(60)  # the simulator accepts an endpoint a minute after it is assigned
    listed = ok(run(sim, "vpc_endpoint_info", org_id=ORG))["vpc_endpoints"]
    assert {item["vpc_endpoint_id"]: item["state"] for item in listed}[vpce] == "accepted"


def test_removing_an_endpoint_warns_it_is_for_good_and_the_service_then_refuses_it(sim):
    vpce = new_endpoint_id()
    ok(run(sim, "vpc_endpoint", label="old", **org_endpoint(vpce)))
    seq = last_seq(sim)
    checked = ok(run(sim, "vpc_endpoint", check_mode=True, diff=True, state="absent", **org_endpoint(vpce)))
    assert checked["changed"] is True and changes_since(sim, seq) == [] and assigned(sim, vpce) is not None
    assert "for good" in checked["diff"]["after_header"] and "for good" in warnings_of(checked)

    removed = ok(run(sim, "vpc_endpoint", diff=True, state="absent", **org_endpoint(vpce)))
    assert removed["changed"] is True and removed["vpc_endpoint"]["label"] == "old"
    assert removed["diff"]["after"] == {} and "for good" in removed["diff"]["after_header"]
    assert "does not let it be assigned to that organization again" in warnings_of(removed)
    assert assigned(sim, vpce) is None

    quiet = ok(run(sim, "vpc_endpoint", state="absent", **org_endpoint(vpce)))
    assert quiet["changed"] is False and quiet["vpc_endpoint"] is None and "warnings" not in quiet
    again = failed(run(sim, "vpc_endpoint", label="old", **org_endpoint(vpce)))
    assert "HTTP 422" in again["msg"] and "cannot be added back" in again["msg"] and again["changed"] is False


def test_a_plan_below_scale_fails_with_the_service_s_message(sim):
    launch, key = team(sim, "launch-org", plan="launch")
    refused = failed(run(sim, "vpc_endpoint", api_key=key, org_id=launch["id"], region_id=REGION,
                         vpc_endpoint_id=new_endpoint_id()))
    assert "HTTP 403" in refused["msg"] and "not available on the launch plan" in refused["msg"]
    assert "Nothing was changed" in refused["msg"]


def test_a_lost_assign_answer_is_not_sent_again_and_a_rerun_converges(sim):
    vpce = new_endpoint_id()
    path = "/api/v2/organizations/%s/vpc/region/%s/vpc_endpoints/%s" % (ORG, REGION, vpce)
    sim.add_fault(method="POST", path=path, drop=True, apply=True)
    seq = last_seq(sim)
    lost = failed(run(sim, "vpc_endpoint", label="prod", **org_endpoint(vpce)))
    assert "may have been carried out, so it was not repeated" in lost["msg"]
    assert changes_since(sim, seq) == [("POST", path)] and assigned(sim, vpce)["label"] == "prod"
    rerun = ok(run(sim, "vpc_endpoint", label="prod", **org_endpoint(vpce)))
    assert rerun["changed"] is False and rerun["vpc_endpoint"]["label"] == "prod"


def _at_once(sim, collection_parent, tmp_path, module, argsets, barrier_path):
    """Module processes of ``module`` at once, each one's first read held until every run has its answer."""
    sim.add_barrier(method="GET", path=barrier_path, parties=len(argsets), timeout=BARRIER_TIMEOUT)
    argsets = [rel.connection_args(sim, api_timeout=RUN_TIMEOUT - 10, **args) for args in argsets]
    results = rel.module_process_results(rel.start_module_processes(collection_parent, tmp_path, module, argsets),
                                         RUN_TIMEOUT)
    barrier = sim.barriers()[-1]
    assert (barrier["answered"], barrier["timed_out"]) == (len(argsets), False)  # every run read before any changed
    requests.delete(sim.control_url + "/barriers", timeout=10)
    return results


def test_overlapping_runs_assign_once_and_remove_once(sim, collection_parent, tmp_path):
    vpce = new_endpoint_id()
    details = "/api/v2/organizations/%s/vpc/region/%s/vpc_endpoints/%s" % (ORG, REGION, vpce)
    args = dict(org_endpoint(vpce), label="shared")
    runs = _at_once(sim, collection_parent, tmp_path, "vpc_endpoint", [args, args], details)
    assert [result.get("failed", False) for result in runs] == [False, False]
    assert [result["changed"] for result in runs] == [True, True]  # both found none and assigned it
    assert [item["vpc_endpoint_id"] for item in sim.state.networking.vpc_summary()["organizations"][ORG]].count(vpce) == 1

    removal = dict(org_endpoint(vpce), state="absent", _ansible_diff=True)
    runs = _at_once(sim, collection_parent, tmp_path, "vpc_endpoint", [removal, removal], details)
    assert [result.get("failed", False) for result in runs] == [False, False]
    assert sorted(result["changed"] for result in runs) == [False, True]  # the second DELETE found it gone
    assert assigned(sim, vpce) is None
    removed, = [result for result in runs if result["changed"]]
    raced, = [result for result in runs if not result["changed"]]
    assert removed["diff"]["before"]["vpc_endpoint_id"] == vpce and "for good" in removed["diff"]["after_header"]
    # The run whose DELETE met the other's removal (HTTP 404) did nothing: its diff says no change, and no warning.
    assert raced["diff"] == {"before": {}, "after": {}} and not raced.get("warnings")
    assert raced["vpc_endpoint"] is None


@pytest.mark.parametrize("state", ["present", "absent"])
def test_an_organization_the_key_cannot_reach_is_named_not_taken_for_an_endpoint_not_assigned(sim, state):
    # The service's answer for an organization the key cannot reach is not documented for these paths; a 404 (as the
    # consumption endpoints answer for an organization the account is not a member of) to both the endpoint's and
    # the region's list must not read as "not assigned", which check mode would report as a change.
    org = "org-unreached-21298941"
    sim.add_fault(method="GET", path="/api/v2/organizations/%s/vpc/*" % org, status=404, count=2)
    args = org_endpoint(new_endpoint_id())
    args["org_id"] = org
    seq = last_seq(sim)
    refused = failed(run(sim, "vpc_endpoint", check_mode=True, diff=True, state=state, label="prod", **args))
    assert refused["changed"] is False and "diff" not in refused
    assert "organization %s is not one this API key reaches (HTTP 404" % org in refused["msg"]
    assert "nothing was changed" in refused["msg"]
    assert [method for method, _path in requests_since(sim, seq)] == ["GET", "GET"] and changes_since(sim, seq) == []


# ---------------------------------------------------------------------------------------------- project_vpc_endpoint


def test_a_project_restriction_needs_the_endpoint_assigned_then_is_set_once_relabelled_and_lifted(sim):
    vpce = new_endpoint_id()
    args = dict(project_id=CHECKOUT, vpc_endpoint_id=vpce)
    seq = last_seq(sim)
    early = failed(run(sim, "project_vpc_endpoint", label="checkout", **args))
    assert "Setting the restriction of project %s to VPC endpoint %s failed" % (CHECKOUT, vpce) in early["msg"]
    assert "is not assigned to organization %s in region %s" % (ORG, REGION) in early["msg"]
    assert "assign it to the organization first" in early["msg"]
    assert len(changes_since(sim, seq)) == 1  # the service's refusal: nothing set

    ok(run(sim, "vpc_endpoint", label="prod", **org_endpoint(vpce)))
    seq = last_seq(sim)
    checked = ok(run(sim, "project_vpc_endpoint", check_mode=True, diff=True, label="checkout", **args))
    assert checked["changed"] is True and changes_since(sim, seq) == []
    assert checked["diff"]["after"] == {"vpc_endpoint_id": vpce, "label": "checkout"}

    made = ok(run(sim, "project_vpc_endpoint", label="checkout", **args))
    assert made["changed"] is True and made["vpc_endpoint"] == {"vpc_endpoint_id": vpce, "label": "checkout"}
    seq = last_seq(sim)
    again = ok(run(sim, "project_vpc_endpoint", label="checkout", **args))
    assert again["changed"] is False and requests_since(sim, seq) == [
        ("GET", "/api/v2/projects/%s/vpc_endpoints" % CHECKOUT)]
    counted = ok(run(sim, "vpc_endpoint", **org_endpoint(vpce)))["vpc_endpoint"]
    assert counted["num_restricted_projects"] >= 1 and CHECKOUT in counted["example_restricted_projects"]

    relabelled = ok(run(sim, "project_vpc_endpoint", label="checkout-prod", **args))
    assert relabelled["changed"] is True
    assert {item["vpc_endpoint_id"]: item["label"] for item in ok(run(
        sim, "vpc_endpoint_info", project_id=CHECKOUT))["vpc_endpoints"]}[vpce] == "checkout-prod"

    lifted = ok(run(sim, "project_vpc_endpoint", state="absent", **args))
    assert lifted["changed"] is True and "warnings" not in lifted
    assert ok(run(sim, "project_vpc_endpoint", state="absent", **args))["changed"] is False


def test_a_restriction_s_answers_without_a_body_set_and_lift_it_once_and_reruns_change_nothing(sim):
    """The service answers the restriction's POST and DELETE with 200 and no body, as the document has it (issue 37):
    each is the success of one request, never an error after the change was made, and reruns send nothing."""
    vpce = new_endpoint_id()
    args = dict(project_id=CHECKOUT, vpc_endpoint_id=vpce)
    path = "/api/v2/projects/%s/vpc_endpoints/%s" % (CHECKOUT, vpce)
    ok(run(sim, "vpc_endpoint", label="prod", **org_endpoint(vpce)))  # its POST is answered without a body too

    seq = last_seq(sim)
    made = ok(run(sim, "project_vpc_endpoint", label="checkout", **args))
    assert made["changed"] is True and made["vpc_endpoint"] == {"vpc_endpoint_id": vpce, "label": "checkout"}
    assert "warnings" not in made and changes_since(sim, seq) == [("POST", path)]
    assert [entry["status"] for entry in sim.requests(since=seq) if entry["method"] == "POST"] == [200]
    assert restricted(sim, vpce) == "checkout"

    seq = last_seq(sim)
    again = ok(run(sim, "project_vpc_endpoint", label="checkout", **args))
    assert again["changed"] is False and changes_since(sim, seq) == []

    seq = last_seq(sim)
    relabelled = ok(run(sim, "project_vpc_endpoint", diff=True, label="checkout-prod", **args))
    assert relabelled["changed"] is True and changes_since(sim, seq) == [("POST", path)]
    assert relabelled["diff"] == {"before": {"vpc_endpoint_id": vpce, "label": "checkout"},
                                  "after": {"vpc_endpoint_id": vpce, "label": "checkout-prod"}}

    seq = last_seq(sim)
    lifted = ok(run(sim, "project_vpc_endpoint", state="absent", **args))
    assert lifted["changed"] is True and changes_since(sim, seq) == [("DELETE", path)]
    assert lifted["vpc_endpoint"] == {"vpc_endpoint_id": vpce, "label": "checkout-prod"}
    assert restricted(sim, vpce) is None
    seq = last_seq(sim)
    assert ok(run(sim, "project_vpc_endpoint", state="absent", **args))["changed"] is False
    assert changes_since(sim, seq) == []

    # what the tasks above were answered: 200, no body, no content type
    for method in ("POST", "DELETE"):
        answer = requests.request(method, sim.url + path[len("/api/v2"):], json={"label": "x"} if method == "POST"
                                  else None, headers={"Authorization": "Bearer " + sim.api_key}, timeout=10)
        assert (answer.status_code, answer.content, answer.headers.get("Content-Type")) == (200, b"", None)


def test_a_restriction_answered_a_blank_body_is_set_and_one_that_is_not_json_fails_once_and_a_rerun_converges(sim):
    """A success without content may come as whitespace: still the success. A body that is not JSON (a CDN's page)
    is no answer the document gives: the task fails saying the POST may have been carried out, it is not sent
    again, and a rerun finds the restriction set."""
    vpce = new_endpoint_id()
    args = dict(project_id=CHECKOUT, vpc_endpoint_id=vpce)
    path = "/api/v2/projects/%s/vpc_endpoints/%s" % (CHECKOUT, vpce)
    ok(run(sim, "vpc_endpoint", label="prod", **org_endpoint(vpce)))
    sim.add_fault(method="POST", path=path, status=200, body=" \r\n", apply=True)
    seq = last_seq(sim)
    blank = ok(run(sim, "project_vpc_endpoint", label="checkout", **args))
    assert blank["changed"] is True and changes_since(sim, seq) == [("POST", path)]
    assert restricted(sim, vpce) == "checkout"

    sim.add_fault(method="POST", path=path, status=200, body="<html><body>upstream reset</body></html>", apply=True)
    seq = last_seq(sim)
    garbled = failed(run(sim, "project_vpc_endpoint", label="relabelled", **args))
    assert "HTTP 200 but the body is not valid JSON: <html><body>upstream reset</body></html>" in garbled["msg"]
    assert "may have been carried out, so it was not repeated" in garbled["msg"]
    assert changes_since(sim, seq) == [("POST", path)]
    seq = last_seq(sim)
    assert restricted(sim, vpce) == "relabelled"  # carried out, as the message says it may have been
    rerun = ok(run(sim, "project_vpc_endpoint", label="relabelled", **args))
    assert rerun["changed"] is False and changes_since(sim, seq) == []


def test_a_project_that_does_not_exist_is_named_and_nothing_is_sent(sim):
    seq = last_seq(sim)
    refused = failed(run(sim, "project_vpc_endpoint", project_id="no-such-project-1", vpc_endpoint_id=new_endpoint_id()))
    assert "there is no project no-such-project-1 that this API key reaches" in refused["msg"]
    assert changes_since(sim, seq) == []


# ---------------------------------------------------------------------------------------------- vpc_endpoint_info


def test_vpc_endpoint_info_lists_every_region_or_one_with_or_without_details(sim):
    east, central = new_endpoint_id(), new_endpoint_id()
    ok(run(sim, "vpc_endpoint", label="east", **org_endpoint(east, "aws-us-east-2")))
    ok(run(sim, "vpc_endpoint", label="central", **org_endpoint(central)))
    seq = last_seq(sim)
    every = ok(run(sim, "vpc_endpoint_info", check_mode=True, org_id=ORG))
    assert every["changed"] is False
    mine = dict((item["vpc_endpoint_id"], item) for item in every["vpc_endpoints"])
    assert (mine[east]["region_id"], mine[east]["label"], mine[east]["state"]) == ("aws-us-east-2", "east", "new")
    assert len(requests_since(sim, seq)) == 1 + len(every["vpc_endpoints"])  # the list, then each one's details

    seq = last_seq(sim)
    region = ok(run(sim, "vpc_endpoint_info", org_id=ORG, region_id="aws-us-east-2", details=False))["vpc_endpoints"]
    assert east in [item["vpc_endpoint_id"] for item in region] and central not in [
        item["vpc_endpoint_id"] for item in region]
    assert all(set(item) == {"vpc_endpoint_id", "label", "region_id"} for item in region)
    assert len(requests_since(sim, seq)) == 1
    refused = failed(run(sim, "vpc_endpoint_info", region_id=REGION))
    assert "org_id" in refused["msg"]


# ---------------------------------------------------------------------------------------------- consumption_info


class SimulatorTime:
    """The clock and the pause of the clients the modules build here (NeonClient's ``clock`` and ``sleep``): a pause
    moves the simulator's clock forward (nobody sleeps), and the clock counts the pauses; consumption.py's pacer
    takes both from the client."""

    def __init__(self, sim):
        self.sim = sim
        self.now = 0.0
        self.pauses = []

    def clock(self):
        return self.now

    def sleep(self, seconds):
        self.pauses.append(seconds)
        self.now += seconds
        self.sim.advance_clock(seconds)


@pytest.fixture
def paced(sim, monkeypatch):
    """Modules whose client runs on the simulator's clock (SimulatorTime), and a fresh consumption rate limit (30 a
    minute, bursts of 30)."""
    from ansible_collections.neon.cloud.plugins.module_utils import _module
    from ansible_collections.neon.cloud.plugins.module_utils._api.connection import make_client

    injected = SimulatorTime(sim)

    def simulated_client(options):
        return make_client(options, clock=injected.clock, sleep=injected.sleep)

    monkeypatch.setattr(_module, "make_client", simulated_client)
    sim.state.consumption.set_consumption_limits({"rate_per_minute": 30, "burst": 30})
    yield injected
    sim.state.consumption.set_consumption_limits({"rate_per_minute": 30, "burst": 30})


def iso(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def sim_now(sim):
    return sim.state.clock.time()


def last_day(sim):
    """The last day on the simulator's clock, which other tests of the session may have moved days ahead (a module's
    own ``to`` is this machine's now)."""
    now = sim_now(sim)
    return {"from": iso(now - 86400), "to": iso(now)}


def consumption_requests(sim, seq):
    return [entry for entry in sim.requests(since=seq) if entry["path"].startswith("/api/v2/consumption_history/")]


@pytest.mark.parametrize("args, words", [
    ({"granularity": "hourly", "from": -170 * 3600}, "granularity hourly reaches only the last 168 hours"),
    ({"granularity": "daily", "from": -62 * 86400}, "granularity daily reaches only the last 60 days"),
    ({"granularity": "monthly", "from": "2024-02-01"}, "the consumption history starts then"),
    ({"granularity": "daily", "from": 0, "to": -86400}, "is after to"),
    ({"from": "last tuesday"}, "from must be an ISO 8601 date-time"),
    ({"from": -86400, "scope": "branches", "project_ids": [CHECKOUT], "metrics": ["extra_branches_month"]},
     "is not read per branch"),
    ({"from": -86400, "scope": "branches"}, "scope=branches needs project_ids"),
    ({"from": -86400, "branch_ids": ["br-a-1"]}, "branch_ids needs scope=branches"),
    ({"from": -86400, "project_ids": [".."]}, "project_ids must not be '..'"),
])
def test_consumption_a_range_or_query_the_service_refuses_costs_no_request(sim, paced, args, words):
    # the module judges a range by this machine's clock, and other tests move the simulator's on: the range is
    # made from this machine's clock too
    now = time.time()
    args = dict((key, iso(now + value) if isinstance(value, int) else value) for key, value in args.items())
    seq = last_seq(sim)
    refused = failed(run(sim, "consumption_info", org_id=ORG, **args))
    assert words in refused["msg"] and requests_since(sim, seq) == []


def test_consumption_reads_every_page_of_the_current_endpoint_with_org_id_and_every_metric(sim, paced):
    usage_team, key = team(sim, "usage-team", projects=150)
    month_start = time.strftime("%Y-%m-01T00:00:00Z", time.gmtime(sim_now(sim)))
    args = {"api_key": key, "org_id": usage_team["id"], "from": iso(sim_now(sim) - 40 * 86400), "to": month_start}
    seq = last_seq(sim)
    read = ok(run(sim, "consumption_info", check_mode=True, **args))
    assert read["changed"] is False
    assert sorted(item["project_id"] for item in read["projects"]) == sorted(
        item["id"] for item in usage_team["projects"])
    pages = consumption_requests(sim, seq)
    assert {entry["path"] for entry in pages} == {"/api/v2/consumption_history/v2/projects"}  # never the account's
    assert [entry["status"] for entry in pages] == [200, 200]  # 100 and 50: the short page ends the list
    assert "limit=100" in pages[0]["query"] and "cursor=" in pages[1]["query"]
    for entry in pages:
        assert "org_id=%s" % usage_team["id"] in entry["query"]
        assert "metrics=compute_unit_seconds%2Croot_branch_bytes_month%2C" in entry["query"]  # required: all of them
    assert read["range"]["to"] == month_start and read["range"]["granularity"] == "monthly"
    assert set(read["totals"]) == {"compute_unit_seconds", "root_branch_bytes_month", "child_branch_bytes_month",
                                   "instant_restore_bytes_month", "public_network_transfer_bytes",
                                   "private_network_transfer_bytes", "extra_branches_month",
                                   "snapshot_storage_bytes_month"}
    assert read["totals"]["compute_unit_seconds"] == sum(item["totals"]["compute_unit_seconds"]
                                                         for item in read["projects"])


def test_consumption_per_branch_reads_a_row_per_branch_of_the_projects_named_every_page(sim, paced, monkeypatch):
    usage_team, key = team(sim, "usage-branches", projects=3)
    projects = [item["id"] for item in usage_team["projects"]]
    for project_id in projects[:2]:  # a second branch in two of them
        sim.state.provisioning.api_create_branch(None, project_id, {"branch": {"name": "dev"}})
    monkeypatch.setattr(consumption_module(), "BRANCH_PAGE_MAX", 2)  # 5 rows: pages of 2, 2 and 1
    seq = last_seq(sim)
    read = ok(run(sim, "consumption_info", api_key=key, org_id=usage_team["id"], scope="branches", project_ids=projects,
                  granularity="daily", metrics=["compute_unit_seconds"], **last_day(sim)))
    pages = consumption_requests(sim, seq)
    assert {entry["path"] for entry in pages} == {"/api/v2/consumption_history/v2/branches"}
    assert [entry["status"] for entry in pages] == [200, 200, 200]
    rows = [(row["project_id"], row["branch_id"]) for row in read["branches"]]
    assert len(rows) == len(set(rows)) == 5 and sorted(project for project, _branch in rows) == sorted(
        projects[:2] * 2 + projects[2:])
    assert read["totals"]["compute_unit_seconds"] == sum(row["totals"]["compute_unit_seconds"] for row in read["branches"])
    one = rows[0]
    picked = ok(run(sim, "consumption_info", api_key=key, org_id=usage_team["id"], scope="branches",
                    project_ids=[one[0]], branch_ids=[one[1]], granularity="daily",
                    **last_day(sim)))
    assert [(row["project_id"], row["branch_id"]) for row in picked["branches"]] == [one]


def test_consumption_takes_a_metric_it_does_not_know_yet_as_it_comes(sim, paced):
    # A metric the service may add: returned in the timeframes as answered and added up, never a failure.
    frames = [{"timeframe_start": "2025-05-%02dT00:00:00Z" % day, "timeframe_end": "2025-05-%02dT00:00:00Z" % (day + 1),
               "metrics": [{"metric_name": "compute_unit_seconds", "value": 10 * day},
                           {"metric_name": "gpu_unit_seconds", "value": day}]} for day in (1, 2)]
    answer = {"projects": [{"project_id": CHECKOUT, "periods": [{
        "period_id": "79ec829f-1828-4006-ac82-9f1828a0067d", "period_plan": "scale_v4",
        "period_start": "2025-05-01T00:00:00Z", "consumption": frames}]}]}
    sim.add_fault(method="GET", path="/api/v2/consumption_history/v2/projects", status=200, body=json.dumps(answer))
    read = ok(run(sim, "consumption_info", org_id=ORG, granularity="daily", metrics=["compute_unit_seconds"],
                  **last_day(sim)))
    assert read["totals"] == {"compute_unit_seconds": 30, "gpu_unit_seconds": 3}
    assert read["projects"][0]["periods"][0]["period_plan"] == "scale_v4"


def test_consumption_asks_project_ids_a_hundred_at_a_time_and_names_those_not_answered(sim, paced):
    usage_team, key = team(sim, "usage-ids", projects=150)
    ids = [item["id"] for item in usage_team["projects"]] + ["not-a-project-1"]
    seq = last_seq(sim)
    read = ok(run(sim, "consumption_info", api_key=key, org_id=usage_team["id"], granularity="daily", project_ids=ids,
                  metrics=["compute_unit_seconds", "extra_branches_month"], **last_day(sim)))
    asked = [entry["query"] for entry in consumption_requests(sim, seq)]
    assert [query.count("%2C") + 1 for query in [part for query in asked for part in query.split("&")
                                                 if part.startswith("project_ids=")]] == [100, 51]
    assert len(read["projects"]) == 150 and set(read["totals"]) == {"compute_unit_seconds", "extra_branches_month"}
    assert "not-a-project-1" in warnings_of(read)


def test_consumption_paces_its_requests_under_the_limit_on_the_injected_clock(sim, paced, monkeypatch):
    usage_team, key = team(sim, "usage-paced", projects=60)
    consumption = consumption_module()
    monkeypatch.setattr(consumption, "PAGE_MAX", 4)  # 60 projects: 15 full pages and an empty one
    sim.state.consumption.set_consumption_limits({"rate_per_minute": 30, "burst": 5})  # a tight bucket: unpaced, the 6th is a 429
    seq = last_seq(sim)
    read = ok(run(sim, "consumption_info", api_key=key, org_id=usage_team["id"], **last_day(sim)))
    entries = consumption_requests(sim, seq)
    assert len(read["projects"]) == 60 and len(entries) == 16
    assert [entry["status"] for entry in entries] == [200] * 16  # never refused for its rate
    gaps = [later["time"] - earlier["time"] for earlier, later in zip(entries[5:], entries[6:])]
    assert min(gaps) >= 60.0 / consumption.PACE_PER_MINUTE - 0.01
    for index, entry in enumerate(entries):
        assert len([other for other in entries[index:] if other["time"] < entry["time"] + 60]) <= 30
    assert sum(paced.pauses) == pytest.approx(11 * 60.0 / consumption.PACE_PER_MINUTE)  # 5 at once, then paced


def test_consumption_waits_out_a_429_and_fails_with_the_plan_s_403(sim, paced):
    sim.add_fault(method="GET", path="/api/v2/consumption_history/v2/projects", status=429, count=2)
    seq = last_seq(sim)
    read = ok(run(sim, "consumption_info", org_id=ORG, **last_day(sim)))
    assert [entry["status"] for entry in consumption_requests(sim, seq)] == [429, 429, 200]
    assert CHECKOUT in [item["project_id"] for item in read["projects"]]

    small, key = team(sim, "usage-free", plan="free", projects=1)
    refused = failed(run(sim, "consumption_info", api_key=key, org_id=small["id"], **last_day(sim)))
    assert "HTTP 403" in refused["msg"] and "requires a Launch, Scale, Agent, Business or Enterprise" in refused["msg"]
    business, key = team(sim, "usage-business", plan="business", projects=1)
    per_branch = failed(run(sim, "consumption_info", api_key=key, org_id=business["id"], scope="branches",
                            project_ids=[business["projects"][0]["id"]], **last_day(sim)))
    assert "HTTP 403" in per_branch["msg"] and "paid usage-based Launch" in per_branch["msg"]
    stranger = failed(run(sim, "consumption_info", api_key=key, org_id=ORG, **last_day(sim)))
    assert "HTTP 404" in stranger["msg"] and "not a member of organization %s" % ORG in stranger["msg"]
