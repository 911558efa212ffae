# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests: many projects at once (POST /_simulator/projects/bulk), listed as any other."""

from __future__ import annotations

import pytest

import requests

API_KEY = "sim-selftest-key-0015"


def control(sim, method, path, **kwargs):
    return requests.request(method, sim.control_url + path, timeout=30, **kwargs)


def list_all(sim, **params):
    found, cursor = [], None
    for _page in range(100):
        answer = requests.get(sim.url + "/projects", headers=sim.headers, timeout=30,
                              params=dict(params, limit=400, cursor=cursor))
        assert answer.status_code == 200, answer.text
        projects = answer.json()["projects"]
        found.extend(projects)
        if len(projects) < 400:
            return found
        cursor = answer.json()["pagination"]["cursor"]
    raise AssertionError("more than 100 pages")


def test_bulk_projects_of_an_organization_are_listed_by_org_id(sim):
    org_id = sim.org_id
    before = len(list_all(sim, org_id=org_id))
    body = {"count": 950, "org_id": org_id, "name_prefix": "fleet", "region_id": "aws-eu-central-1"}
    answer = control(sim, "POST", "/projects/bulk", json=body)
    assert answer.status_code == 201, answer.text
    made = answer.json()
    assert made["count"] == 950
    listed = list_all(sim, org_id=org_id)
    assert len(listed) == before + 950
    fleet = [project for project in listed if project["name"].startswith("fleet-")]
    assert len(fleet) == 950 and len(set(project["id"] for project in fleet)) == 950
    assert set(project["region_id"] for project in fleet) == {"aws-eu-central-1"}
    assert set(project["org_id"] for project in fleet) == {org_id}
    assert made["first_id"] in [project["id"] for project in fleet]


def test_bulk_personal_projects_belong_to_the_owner(sim):
    before = len(list_all(sim))
    sim.create_projects(3, name_prefix="mine")
    assert len(list_all(sim)) == before + 3


@pytest.mark.parametrize("body, message", [
    ({"count": 0}, "count"),
    ({"count": 20001}, "count"),
    ({"count": "5"}, "count"),
    ({"count": 2, "name": "x"}, "name_prefix"),
    ({"count": 2, "region_id": "mars-1"}, "region_id"),
])
def test_bulk_refuses_bad_input(sim, body, message):
    answer = control(sim, "POST", "/projects/bulk", json=body)
    assert answer.status_code == 400 and message in answer.json()["message"]
