# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the account may use (_account/availability.py), without HTTP: the answers checked before use, and the
sentences that name what the service offers."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._account.availability import (
    available_libraries,
    available_regions,
    libraries_at_create,
    libraries_problem,
    project_of_version,
    region_problem,
)
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import UnexpectedAnswer

REGIONS = [{"region_id": "aws-us-east-2", "name": "AWS US East 2 (Ohio)", "default": True, "geo_lat": "", "geo_long": ""},
           {"region_id": "aws-eu-central-1", "name": "AWS Europe Central 1", "default": False, "geo_lat": "",
            "geo_long": ""}]
LIBRARIES = [{"library_name": "timescaledb", "description": "", "is_default": False, "is_experimental": False,
              "version": "2.17.1"}, {"library_name": "pg_cron", "description": "", "is_default": False,
                                     "is_experimental": False, "version": "1.6"}]


class Service:
    """A client whose GET answers ``answer``, keeping what was asked."""

    def __init__(self, answer):
        self.answer = answer
        self.asked = []

    def get(self, path, params=None, deadline=None):  # pylint: disable=unused-argument
        self.asked.append((path, params))
        return self.answer


class Answers:
    """A client whose GETs answer ``answers`` one after another, keeping what was asked."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.asked = []

    def get(self, path, params=None, deadline=None):  # pylint: disable=unused-argument
        self.asked.append((path, params))
        return self.answers.pop(0)


def projects(first, count, pg_version):
    return [{"id": "p-%d" % number, "name": "p%d" % number, "pg_version": pg_version}
            for number in range(first, first + count)]


def test_the_regions_are_read_with_the_organization_and_checked():
    service = Service({"regions": REGIONS})
    assert [region["region_id"] for region in available_regions(service, "org-a-1")] == ["aws-us-east-2",
                                                                                         "aws-eu-central-1"]
    assert service.asked == [("/regions", {"org_id": "org-a-1"})]
    available_regions(service)
    assert service.asked[-1] == ("/regions", None)


@pytest.mark.parametrize("answer", [{"regions": [{"name": "no id"}]}, {"regions": "aws-us-east-2"}, ["aws-us-east-2"],
                                    {}])
def test_a_regions_answer_that_cannot_be_used_is_refused(answer):
    with pytest.raises(UnexpectedAnswer):
        available_regions(Service(answer))


def test_the_libraries_are_the_projects_and_an_answer_without_them_offers_none():
    service = Service({"libraries": LIBRARIES})
    assert [library["library_name"] for library in available_libraries(service, "p-1")] == ["timescaledb", "pg_cron"]
    assert service.asked == [("/projects/p-1/available_preload_libraries", None)]
    assert available_libraries(Service({}), "p-1") == []
    with pytest.raises(UnexpectedAnswer):
        available_libraries(Service({"libraries": [{"library_name": 7}]}), "p-1")


def test_a_region_not_listed_is_a_problem_naming_those_that_are():
    assert region_problem("aws-us-east-2", REGIONS) is None and region_problem(None, REGIONS) is None
    said = region_problem("aws-mars-1", REGIONS, "org-a-1")
    assert said == ("region_id 'aws-mars-1' is not a region organization org-a-1 may use; the service lists: "
                    "aws-us-east-2, aws-eu-central-1")
    assert "a region this account may use; the service lists: none" in region_problem("aws-mars-1", [])


def test_libraries_not_offered_are_a_problem_naming_those_that_are():
    assert libraries_problem(["pg_cron"], LIBRARIES, "p-1") is None
    said = libraries_problem(["pg_cron", "pg_bogus", "anon"], LIBRARIES, "p-1")
    assert said == ("settings.preload_libraries.enabled_libraries: 'pg_bogus', 'anon' are not offered for project "
                    "p-1; the service offers: timescaledb, pg_cron")
    assert "'x' is not offered" in libraries_problem(["x"], [], "p-1") and "offers: none" in \
        libraries_problem(["x"], [], "p-1")


def test_the_project_of_a_version_is_the_first_listed_and_no_page_is_read_after_it():
    service = Answers({"projects": projects(0, 400, 16), "pagination": {"cursor": "c1"}},
                      {"projects": projects(400, 3, 16) + projects(403, 2, 18) + projects(405, 395, 16),
                       "pagination": {"cursor": "c2"}})
    assert project_of_version(service, 18, "org-a-1")["id"] == "p-403"
    assert service.asked == [("/projects", {"org_id": "org-a-1", "limit": 400, "cursor": None}),
                             ("/projects", {"org_id": "org-a-1", "limit": 400, "cursor": "c1"})]
    assert service.answers == []  # a third page was never asked for


def test_no_project_of_a_version_is_none_after_the_last_page():
    service = Answers({"projects": projects(0, 2, 17), "pagination": {"cursor": "c1"}})
    assert project_of_version(service, 14) is None
    assert service.asked == [("/projects", {"org_id": None, "limit": 400, "cursor": None})]


@pytest.mark.parametrize("answer", [{"projects": [{"id": "p-1"}]}, {"projects": [{"id": "p-1", "pg_version": "17"}]},
                                    {"projects": [{"id": "p-1", "pg_version": True}]}, {"projects": "p-1"}, {},
                                    {"projects": [], "unavailable_project_ids": "p-2"}])
def test_a_project_list_that_cannot_be_used_is_refused(answer):
    with pytest.raises(UnexpectedAnswer):
        project_of_version(Answers(answer), 17)


def test_a_library_a_version_does_not_offer_is_a_problem_saying_whose_list_it_is():
    offered = {"libraries": LIBRARIES}
    service = Answers({"projects": projects(0, 1, 17)}, offered)
    assert libraries_at_create(service, ["pg_cron"], 17, "org-a-1") == (None, None)
    assert service.asked[-1] == ("/projects/p-0/available_preload_libraries", None)
    problem, warning = libraries_at_create(Answers({"projects": projects(0, 1, 17)}, offered), ["pg_bogus"], 17)
    assert warning is None
    assert problem == ("settings.preload_libraries.enabled_libraries: 'pg_bogus' is not offered for Postgres 17; the "
                       "service offers: timescaledb, pg_cron (what Postgres 17 offers, as project p-0 lists them)")


def test_libraries_no_project_of_the_version_tells_are_a_warning_not_a_problem():
    problem, warning = libraries_at_create(Answers({"projects": projects(0, 1, 17)}), ["pg_cron", "anon"], 18, "org-a-1")
    assert problem is None
    assert warning.startswith("settings.preload_libraries.enabled_libraries (pg_cron, anon) could not be checked before "
                              "the create")
    assert "no project of organization org-a-1 this key sees runs Postgres 18" in warning
    assert "this account" in libraries_at_create(Answers({"projects": []}), ["x"], 14)[1]
