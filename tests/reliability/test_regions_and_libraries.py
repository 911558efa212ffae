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

import collections
import re

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


# ------------------------------------------------------------------------ preload libraries at a create

PROJECTS = "/api/v2/projects"


def library_reads(sim, seq):
    return [entry["path"] for entry in sim.requests(since=seq) if entry["path"].endswith("/available_preload_libraries")]


def version_searches(sim, seq):
    """The listings a create read to find a project of its Postgres version (no name searched)."""
    return [entry["query"] for entry in sim.requests(since=seq)
            if entry["method"] == "GET" and entry["path"] == PROJECTS and "search=" not in entry["query"]]


def warning_texts(result):
    """The warning texts of a result (ansible-core 2.19+ hands them back as objects with the text in event.msg)."""
    return [warning if isinstance(warning, str) else (warning.get("event") or {}).get("msg", "")
            for warning in result.get("warnings") or []]


def libraries(names, **more):
    return {"preload_libraries": dict(more, enabled_libraries=names)}


@pytest.mark.parametrize("check_mode", [False, True], ids=["run", "check_mode"])
def test_a_preload_library_its_postgres_version_does_not_offer_fails_the_create_before_any_post(sim, check_mode):
    new_project(sim, org_id=rel.ORG_ID, pg_version=18)  # a Postgres 18 project the key sees: timescaledb is not offered
    name = rel.unique_name("libs-create")
    seq = last_seq(sim)
    refused = failed(run(sim, "project", check_mode=check_mode, name=name, org_id=rel.ORG_ID, pg_version=18,
                         settings=libraries(["pg_cron", "timescaledb"])))
    assert ("settings.preload_libraries.enabled_libraries: 'timescaledb' is not offered for Postgres 18; the service "
            "offers: pg_cron, pg_partman_bgw, anon (what Postgres 18 offers, as project ") in refused["msg"]
    told = re.search(r"as project (\S+) lists them", refused["msg"]).group(1)
    project = rel.api(sim, "GET", "/projects/%s" % told)["project"]
    assert project["pg_version"] == 18 and project["org_id"] == rel.ORG_ID  # the list is that version's
    assert refused["changed"] is False
    assert changes_since(sim, seq) == [] and listed(sim, name) == []  # no POST /projects
    assert library_reads(sim, seq) == ["%s/%s/available_preload_libraries" % (PROJECTS, told)]
    assert version_searches(sim, seq) and all("org_id=%s" % rel.ORG_ID in query and "limit=400" in query
                                              for query in version_searches(sim, seq))


def test_a_preload_library_its_postgres_version_offers_is_created_with_the_project(sim):
    new_project(sim, org_id=rel.ORG_ID)  # a Postgres 17 project (the document's default) the key sees
    name = rel.unique_name("libs-ok")
    seq = last_seq(sim)
    created = ok(run(sim, "project", name=name, org_id=rel.ORG_ID, settings=libraries(["timescaledb"])))
    assert created["changed"] is True and created["project"]["pg_version"] == 17
    assert created["project"]["settings"]["preload_libraries"]["enabled_libraries"] == ["timescaledb"]
    assert not [warning for warning in warning_texts(created) if "could not be checked" in warning]
    assert len(library_reads(sim, seq)) == 1
    assert [request for request in requests_since(sim, seq) if request[0] == "POST"] == [("POST", PROJECTS)]
    seq = last_seq(sim)
    assert ok(run(sim, "project", name=name, org_id=rel.ORG_ID, settings=libraries(["timescaledb"])))["changed"] is False
    assert library_reads(sim, seq) == [] and version_searches(sim, seq) == [] and changes_since(sim, seq) == []


@pytest.mark.parametrize("check_mode", [False, True], ids=["run", "check_mode"])
def test_a_create_whose_postgres_version_no_project_runs_is_sent_as_asked_with_a_warning(fresh_sim, check_mode):
    sim = fresh_sim  # the seeded projects run Postgres 15 to 17
    seen = rel.api(sim, "GET", "/projects", params={"org_id": rel.ORG_ID, "limit": 400})["projects"]
    assert len(seen) < 400 and not [project for project in seen if project["pg_version"] == 14]
    name = rel.unique_name("libs-unchecked")
    seq = last_seq(sim)
    created = ok(run(sim, "project", check_mode=check_mode, name=name, org_id=rel.ORG_ID, pg_version=14,
                     settings=libraries(["pg_cron"])))
    assert created["changed"] is True
    warned = [warning for warning in warning_texts(created) if "could not be checked" in warning]
    assert len(warned) == 1, created.get("warnings")
    assert "no project of organization %s this key sees runs Postgres 14" % rel.ORG_ID in warned[0]
    assert "the service decides" in warned[0]
    assert library_reads(sim, seq) == []
    posts = [request for request in requests_since(sim, seq) if request[0] == "POST"]
    assert posts == ([] if check_mode else [("POST", PROJECTS)])
    if not check_mode:
        assert created["project"]["settings"]["preload_libraries"]["enabled_libraries"] == ["pg_cron"]


def test_a_create_without_libraries_costs_no_request_more_and_one_with_them_two(sim):
    new_project(sim, org_id=rel.ORG_ID)  # a Postgres 17 project the key sees
    costs = []
    for settings in (libraries([], use_defaults=True), libraries(["pg_cron"], use_defaults=True)):
        seq = last_seq(sim)
        ok(run(sim, "project", name=rel.unique_name("libs-cost"), org_id=rel.ORG_ID, wait=False, settings=settings))
        costs.append(collections.Counter(
            (method, "<libraries>" if path.endswith("/available_preload_libraries") else path)
            for method, path in requests_since(sim, seq)))
    without, with_libraries = costs
    assert without[("GET", PROJECTS)] == 1 and without[("GET", "<libraries>")] == 0  # the name's search only
    assert with_libraries - without == collections.Counter({("GET", PROJECTS): 1, ("GET", "<libraries>"): 1})
    assert without - with_libraries == collections.Counter()


def test_a_project_of_the_version_whose_list_cannot_be_read_leaves_the_libraries_unchecked_not_the_create_failed(
        fresh_sim):
    sim = fresh_sim
    new_project(sim, org_id=rel.ORG_ID, pg_version=18)  # the only Postgres 18 project: deleted meanwhile, say (404)
    sim.add_fault(method="GET", path="/api/v2/projects/*/available_preload_libraries", status=404, count=1)
    name = rel.unique_name("libs-gone")
    seq = last_seq(sim)
    created = ok(run(sim, "project", name=name, org_id=rel.ORG_ID, pg_version=18, settings=libraries(["pg_cron"])))
    assert created["changed"] is True and listed(sim, name) != []
    warned = [warning for warning in warning_texts(created) if "could not be checked" in warning]
    assert len(warned) == 1 and "could not be read" in warned[0] and "HTTP 404" in warned[0], warned
    assert len(library_reads(sim, seq)) == 1


def test_a_project_of_the_version_in_another_region_is_not_taken_for_the_list_of_a_create_in_a_region(fresh_sim):
    sim = fresh_sim
    new_project(sim, org_id=rel.ORG_ID, pg_version=18, region_id="aws-us-east-2")  # timescaledb not offered there
    name = rel.unique_name("libs-region")
    seq = last_seq(sim)
    created = ok(run(sim, "project", name=name, org_id=rel.ORG_ID, pg_version=18, region_id="aws-eu-central-1",
                     settings=libraries(["timescaledb"])))
    assert created["changed"] is True and created["project"]["region_id"] == "aws-eu-central-1"
    warned = [warning for warning in warning_texts(created) if "could not be checked" in warning]
    assert len(warned) == 1 and "in region aws-eu-central-1 this key sees runs Postgres 18" in warned[0], warned
    assert library_reads(sim, seq) == []


def test_a_create_without_pg_version_is_checked_against_the_default_version_and_says_so(sim):
    new_project(sim, org_id=rel.ORG_ID)  # a Postgres 17 project (the document's default) the key sees
    name = rel.unique_name("libs-default")
    seq = last_seq(sim)
    refused = failed(run(sim, "project", name=name, org_id=rel.ORG_ID, settings=libraries(["pg_bogus"])))
    assert "'pg_bogus' is not offered for Postgres 17 (pg_version is not given: the service's default version)" in \
        refused["msg"]
    assert changes_since(sim, seq) == [] and listed(sim, name) == []
