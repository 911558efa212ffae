# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""neon.cloud.project and what the account may use (issue 40): a region or a preload library the service does not
offer fails the task before any change, naming those it offers, in check mode too; read only when the task would
send them, so an unchanged run costs no request more.

Each test runs the module in this process, as a playbook task would, against the simulator, and checks what a user
would notice: the message, that nothing was created or changed (the request log), and the requests a run cost.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok
from test_provisioning_modules import changes_since, new_project, requests_since, run

REGIONS = "/api/v2/regions"


def listed(sim, name):
    return rel.api(sim, "GET", "/projects", params={"search": name, "org_id": rel.ORG_ID})["projects"]


def region_reads(sim, seq):
    return [entry["query"] for entry in sim.requests(since=seq) if entry["path"] == REGIONS]


@pytest.mark.parametrize("check_mode", [False, True], ids=["run", "check_mode"])
def test_a_region_the_account_may_not_use_fails_before_the_create_naming_those_it_may(sim, check_mode):
    name = rel.unique_name("region")
    seq = last_seq(sim)
    refused = failed(run(sim, "project", check_mode=check_mode, name=name, org_id=rel.ORG_ID, region_id="aws-mars-1"))
    assert "region_id 'aws-mars-1' is not a region organization %s may use" % rel.ORG_ID in refused["msg"]
    assert "aws-us-east-2" in refused["msg"] and "aws-eu-central-1" in refused["msg"]  # those there are
    assert refused["changed"] is False
    assert changes_since(sim, seq) == [] and listed(sim, name) == []
    assert region_reads(sim, seq) == ["org_id=%s" % rel.ORG_ID]  # the organization's regions


def test_a_region_offered_is_read_once_before_the_create_and_never_on_a_rerun(sim):
    name = rel.unique_name("region-ok")
    seq = last_seq(sim)
    created = ok(run(sim, "project", name=name, region_id="aws-eu-central-1"))
    assert created["changed"] is True and created["project"]["region_id"] == "aws-eu-central-1"
    assert region_reads(sim, seq) == [""]  # a personal account's: no organization to name
    assert [request for request in requests_since(sim, seq) if request[0] == "POST"] == [("POST", "/api/v2/projects")]
    seq = last_seq(sim)
    again = ok(run(sim, "project", name=name, region_id="aws-eu-central-1"))
    assert again["changed"] is False and region_reads(sim, seq) == []
    # an unchanged run costs what it did before: finding the project, and one read of its operations
    assert len(requests_since(sim, seq)) == 2 and changes_since(sim, seq) == []


@pytest.mark.parametrize("check_mode", [False, True], ids=["run", "check_mode"])
def test_a_preload_library_not_offered_fails_before_the_update_naming_those_that_are(sim, check_mode):
    pid = new_project(sim, org_id=rel.ORG_ID, settings={"preload_libraries": {"enabled_libraries": ["pg_cron"]}})[
        "project"]["id"]
    seq = last_seq(sim)
    wanted = {"preload_libraries": {"enabled_libraries": ["pg_cron", "pg_bogus"]}}
    refused = failed(run(sim, "project", check_mode=check_mode, id=pid, settings=wanted))
    assert "'pg_bogus' is not offered for project %s" % pid in refused["msg"]
    assert "timescaledb, pg_cron, pg_partman_bgw, anon" in refused["msg"] and refused["changed"] is False
    assert changes_since(sim, seq) == []
    held = rel.api(sim, "GET", "/projects/%s" % pid)["project"]["settings"]["preload_libraries"]
    assert held["enabled_libraries"] == ["pg_cron"]


def test_a_preload_library_offered_is_added_and_a_rerun_reads_no_libraries(sim):
    pid = new_project(sim, org_id=rel.ORG_ID)["project"]["id"]
    libraries = "/api/v2/projects/%s/available_preload_libraries" % pid
    wanted = {"preload_libraries": {"enabled_libraries": ["timescaledb"]}}
    seq = last_seq(sim)
    added = ok(run(sim, "project", id=pid, settings=wanted))
    assert added["changed"] is True and added["project"]["settings"]["preload_libraries"]["enabled_libraries"] == [
        "timescaledb"]
    assert [path for method, path in requests_since(sim, seq) if path == libraries] == [libraries]
    seq = last_seq(sim)
    assert ok(run(sim, "project", id=pid, settings=wanted))["changed"] is False
    assert [path for method, path in requests_since(sim, seq) if path == libraries] == []
    assert changes_since(sim, seq) == []
