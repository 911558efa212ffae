# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The scenarios of neon.cloud.projects_info (filters, names that are not unique, unknown values,
retries, lists longer than a page, organizations, key kinds, lists the service could not complete,
its "org_id is required" answer) against the simulator's seeded projects.

Each test runs the module in this process (rel.run_module), as a playbook task would, and checks
what a user would notice: the projects listed, the requests it took (the simulator's request log),
messages and warnings. Tests that count projects start from the seeded state (fresh_sim). The
projects_info integration target keeps one representative playbook task per behaviour; the
scenarios live here (CONTRIBUTING.md, "Integration targets and ansible-core").
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json


import neon_reliability as rel
from neon_reliability import failed, last_seq, ok

SEEDED_PROJECTS = 37
DEMO_NAME = "demo-project"
# the seeded organization's projects, newest first, and the project shared with the account (tests/simulator/README.md)
ORG_PROJECTS = ["bold-glade-61830452", "quiet-brook-72914063", "young-forest-83025174"]
SHARED_PROJECT = ("wild-sea-94136285", "partner-reports")


# ---------------------------------------------------------------------------------------------- helpers


def run(sim, check_mode=False, **args):
    """One projects_info task; ``api_key`` in ``args`` replaces the bootstrap key."""
    return rel.task(sim, "projects_info", check_mode=check_mode, **args)


def ids(projects):
    return [project["id"] for project in projects]


def warnings(data):
    """The warning texts of a result (ansible-core 2.19+ may hand them back as objects)."""
    texts = []
    for warning in data.get("warnings") or []:
        texts.append(warning if isinstance(warning, str) else json.dumps(warning))
    return texts


def every_project(sim):
    found = ok(run(sim))["projects"]
    assert len(found) >= SEEDED_PROJECTS
    return found


# ---------------------------------------------------------------------------------------------- the list and its filters


def test_every_seeded_project_in_one_request_of_the_largest_page_newest_first(fresh_sim):
    sim = fresh_sim
    seq = last_seq(sim)
    data = ok(run(sim))
    projects = data["projects"]
    assert data["changed"] is False
    assert len(projects) == SEEDED_PROJECTS and len(set(ids(projects))) == SEEDED_PROJECTS
    assert sorted(ids(projects)) == sorted(project["id"] for project in sim.state.summary()["projects"])
    assert (projects[0]["id"], projects[0]["name"]) == (sim.demo_project_id, DEMO_NAME)  # the newest seeded one
    assert all("region_id" in project and "created_at" in project for project in projects)
    log = sim.requests(since=seq)
    assert [(entry["method"], entry["path"], entry["status"]) for entry in log] == [("GET", "/api/v2/projects", 200)]
    assert "limit=400" in log[0]["query"]  # ceil(37 / 400) = 1 request

    check = ok(run(sim, check_mode=True))
    assert check["changed"] is False and ids(check["projects"]) == ids(projects)


def test_the_filters_select_exact_matches(fresh_sim):
    sim = fresh_sim
    every = every_project(sim)
    by_id = ok(run(sim, project_id=sim.demo_project_id))["projects"]
    assert [(p["id"], p["name"], p["region_id"], p["pg_version"]) for p in by_id] == [
        (sim.demo_project_id, DEMO_NAME, "aws-us-east-2", 17)]
    assert ids(ok(run(sim, project_id=every[20]["id"]))["projects"]) == [every[20]["id"]]
    name = every[5]["name"]
    assert ids(ok(run(sim, name=name))["projects"]) == [p["id"] for p in every if p["name"] == name]
    by_region = ok(run(sim, region_id="aws-eu-central-1"))["projects"]
    assert by_region and ids(by_region) == [p["id"] for p in every if p["region_id"] == "aws-eu-central-1"]
    assert ok(run(sim, name=DEMO_NAME, region_id="aws-eu-central-1"))["projects"] == []
    all_filters = ok(run(sim, project_id=sim.demo_project_id, name=DEMO_NAME, region_id="aws-us-east-2"))
    assert ids(all_filters["projects"]) == [sim.demo_project_id]


def test_names_match_exactly_and_are_not_unique(fresh_sim):
    sim = fresh_sim
    added = [sim.create_project(name=name, region_id="aws-eu-central-1")["id"]
             for name in (DEMO_NAME, DEMO_NAME + "-copy", DEMO_NAME.upper())]
    assert sorted(ids(ok(run(sim, name=DEMO_NAME))["projects"])) == sorted([sim.demo_project_id, added[0]])
    assert ids(ok(run(sim, name=DEMO_NAME, region_id="aws-eu-central-1"))["projects"]) == [added[0]]


def test_unknown_filter_values_give_an_empty_list_not_an_error(sim):
    for args in (dict(project_id="no-such-project-00000000"), dict(name="no such project"), dict(region_id="mars-north-1")):
        assert ok(run(sim, **args))["projects"] == [], args


def test_a_500_fails_the_task_with_the_request_without_retries_and_heals_with_them(fresh_sim):
    sim = fresh_sim
    sim.add_fault(method="GET", path="/api/v2/projects", status=500, count=3)
    no_retries = failed(run(sim, api_retries=0))
    error = no_retries["error"]
    assert "projects" not in no_retries
    assert (error["status"], error["method"], error["attempts"]) == (500, "GET", 1)
    assert error["path"].startswith("/projects?") and "limit=400" in error["path"] and error["request_id"]
    assert no_retries["msg"].startswith("GET /projects?") and " failed: HTTP 500" in no_retries["msg"]
    with_retries = ok(run(sim, api_retries=2, api_retry_max_delay=0.2))  # two 500s are left
    assert len(with_retries["projects"]) == SEEDED_PROJECTS


def test_more_projects_than_a_page_take_two_requests_the_second_at_the_first_page_s_cursor(fresh_sim):
    sim = fresh_sim
    oldest = every_project(sim)[-1]["id"]
    for number in range(401 - SEEDED_PROJECTS):
        sim.create_project(name="bulk-%03d" % number)
    seq = last_seq(sim)
    everything = ok(run(sim))["projects"]
    log = sim.requests(since=seq)
    assert len(everything) == 401 and len(set(ids(everything))) == 401
    assert everything[0]["name"] == "bulk-363" and everything[-1]["id"] == oldest
    assert [entry["query"] for entry in log] == ["limit=400", "limit=400&cursor=" + everything[399]["id"]]

    seq = last_seq(sim)
    assert [p["name"] for p in ok(run(sim, name="bulk-007"))["projects"]] == ["bulk-007"]
    # the name is also sent as the service's search, so one short page answers it
    log = sim.requests(since=seq)
    assert len(log) == 1 and "search=bulk-007" in log[0]["query"]


# ---------------------------------------------------------------------------------------------- organizations


def test_an_organization_s_projects_carry_its_org_id_and_shared_ones_are_listed_apart(fresh_sim):
    sim = fresh_sim  # it counts the organization's projects: other tests add some to it
    org = ok(run(sim, org_id=sim.org_id))
    assert ids(org["projects"]) == ORG_PROJECTS
    assert {p["org_id"] for p in org["projects"]} == {sim.org_id} and org["org_id"] == sim.org_id
    assert org["unavailable_project_ids"] == [] and warnings(org) == []
    shared = ok(run(sim, shared=True))
    assert [(p["id"], p["name"]) for p in shared["projects"]] == [SHARED_PROJECT] and shared["org_id"] is None
    both = failed(run(sim, org_id=sim.org_id, shared=True))
    assert "mutually exclusive" in both["msg"]


def test_an_organization_key_lists_its_organization_and_a_project_scoped_key_its_one_project(fresh_sim):
    sim = fresh_sim  # it counts the organization's projects: other tests add some to it
    org_key = sim.create_key(kind="organization", org_id=sim.org_id, name=rel.unique_name("projects-org"))["key"]
    project_key = sim.create_key(kind="project", project_id=ORG_PROJECTS[0], user_id="bootstrap",
                                 name=rel.unique_name("projects-project"))["key"]
    assert ids(ok(run(sim, api_key=org_key))["projects"]) == ORG_PROJECTS
    assert ids(ok(run(sim, api_key=project_key))["projects"]) == ORG_PROJECTS[:1]
    other = failed(run(sim, api_key=org_key, org_id="org-other-00000000"))
    assert other["error"]["status"] == 403
    assert other["msg"].startswith("GET /projects?org_id=org-other-00000000") and " failed: HTTP 403" in other["msg"]


def test_a_project_the_service_could_not_fetch_in_time_is_asked_again_or_reported_missing(fresh_sim):
    sim = fresh_sim  # it counts the organization's projects: other tests add some to it
    try:
        sim.set_unavailable([ORG_PROJECTS[1]], answers=1)
        seq = last_seq(sim)
        healed = ok(run(sim, org_id=sim.org_id))
        assert sorted(ids(healed["projects"])) == sorted(ORG_PROJECTS)
        assert healed["unavailable_project_ids"] == [] and warnings(healed) == []
        log = sim.requests(since=seq)
        assert len(log) == 2 and "search=" + ORG_PROJECTS[1] in log[1]["query"]

        sim.set_unavailable([ORG_PROJECTS[2]], answers=None)
        partial = ok(run(sim, org_id=sim.org_id))
        assert ids(partial["projects"]) == ORG_PROJECTS[:2]
        assert partial["unavailable_project_ids"] == [ORG_PROJECTS[2]]
        assert len(warnings(partial)) == 1
        assert "could not fetch 1 project(s) in time" in warnings(partial)[0] and ORG_PROJECTS[2] in warnings(partial)[0]
    finally:
        sim.clear_unavailable()


def test_org_id_is_required_with_one_organization_it_is_used_with_several_or_none_the_task_fails(sim):
    user = sim.create_user(name=rel.unique_name("team-only"))
    team_one = sim.create_organization(name=rel.unique_name("team-one"), admins=[user["id"]], projects=2)
    key = sim.create_key(kind="personal", user_id=user["id"], name=rel.unique_name("team-only"))["key"]

    def listed(**args):
        return run(sim, api_key=key, **args)

    one_org = ok(listed())
    assert one_org["org_id"] == team_one["id"]
    assert sorted(ids(one_org["projects"])) == sorted(ids(team_one["projects"]))
    assert len(warnings(one_org)) == 1
    assert "org_id is required" in warnings(one_org)[0] and team_one["id"] in warnings(one_org)[0]

    team_two = sim.create_organization(name=rel.unique_name("team-two"), admins=["bootstrap"], members=[user["id"]])
    two_orgs = failed(listed())
    assert two_orgs["msg"].startswith("GET /projects?limit=400 failed: HTTP 400: org_id is required")
    assert "belongs to 2 organizations; set org_id to one of them" in two_orgs["msg"]
    assert "%s (%s)" % (team_one["id"], team_one["name"]) in two_orgs["msg"]
    assert "%s (%s)" % (team_two["id"], team_two["name"]) in two_orgs["msg"]
    assert sorted(org["id"] for org in two_orgs["organizations"]) == sorted([team_one["id"], team_two["id"]])
    assert "projects" not in two_orgs
    chosen = ok(listed(org_id=team_one["id"]))
    assert len(chosen["projects"]) == 2 and warnings(chosen) == []

    loner = sim.create_user(name=rel.unique_name("loner"), org_id_required=True)
    loner_key = sim.create_key(kind="personal", user_id=loner["id"], name=rel.unique_name("loner"))["key"]
    no_org = failed(run(sim, api_key=loner_key))
    assert "org_id is required" in no_org["msg"] and "belongs to no organization" in no_org["msg"]
