# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The scenarios of neon.cloud.auth_info (what a key is, for each kind of key, a result without the
parts a key may not read, a revoked key) against the simulator.

Each test runs the module in this process (rel.run_module), as a playbook task would, and checks
what a user would notice: the result, the requests it took (the simulator's request log), the
message of a failure and that no secret shows in it. The auth_info integration target keeps one
representative playbook task per behaviour; the scenarios live here (CONTRIBUTING.md, "Integration
targets and ansible-core").
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok

ORG_ID = "org-calm-tree-21298941"
ORG_PROJECT = "bold-glade-61830452"


# ---------------------------------------------------------------------------------------------- helpers


def run(sim, module="auth_info", check_mode=False, **args):
    """One task; ``api_key`` in ``args`` replaces the bootstrap key."""
    return rel.task(sim, module, check_mode=check_mode, **args)


def org_ids(data):
    return [org["id"] for org in data["organizations"]]


# ---------------------------------------------------------------------------------------------- each kind of key


def test_a_personal_key_of_the_seeded_user_who_administers_one_organization(fresh_sim):
    sim = fresh_sim  # the organizations of the seed only (other tests add some to this user)
    data = ok(run(sim))
    assert data["changed"] is False
    assert (data["key_type"], data["auth_method"]) == ("personal", "api_key_user")
    assert data["account_id"] == sim.state.summary()["user_id"]
    assert org_ids(data) == [ORG_ID]
    assert (data["organizations"][0]["name"], data["organizations"][0]["plan"]) == ("Calm Tree Labs", "scale")
    assert "auth_data" not in data

    check = ok(run(sim, check_mode=True))
    assert check["changed"] is False
    assert check["key_type"] == data["key_type"] and check["organizations"] == data["organizations"]


def test_an_organization_key_reaches_its_organization_and_a_project_scoped_key_may_not_read_it(sim):
    org_key = sim.create_key(kind="organization", org_id=ORG_ID, name=rel.unique_name("auth-org"))["key"]
    project_key = sim.create_key(kind="project", project_id=ORG_PROJECT, user_id="bootstrap",
                                 name=rel.unique_name("auth-project"))["key"]
    organization = run(sim, api_key=org_key)
    data = ok(organization)
    assert (data["key_type"], data["auth_method"], data["account_id"]) == ("organization", "api_key_org", ORG_ID)
    assert org_ids(data) == [ORG_ID]
    assert org_key not in organization.text()

    project = run(sim, api_key=project_key)
    data = ok(project)  # the organization it may not read is no failure
    assert (data["key_type"], data["account_id"]) == ("organization", ORG_ID)
    assert "organizations" not in data
    assert project_key not in project.text()


def test_a_get_auth_refused_once_leaves_out_its_parts_but_not_the_organizations(fresh_sim):
    sim = fresh_sim  # the organizations of the seed only (other tests add some to this user)
    sim.add_fault(method="GET", path="/api/v2/auth", status=404, count=1)
    seq = last_seq(sim)
    data = ok(run(sim))
    for part in ("key_type", "account_id", "auth_method"):
        assert part not in data, part
    assert org_ids(data) == [ORG_ID]
    assert [(entry["method"], entry["path"], entry["status"]) for entry in sim.requests(since=seq)] == [
        ("GET", "/api/v2/auth", 404), ("GET", "/api/v2/users/me/organizations", 200)]
    # the fault is spent: the next run has every part again
    assert ok(run(sim))["key_type"] == "personal"


def test_a_revoked_key_fails_the_check_the_way_a_job_template_s_first_task_should(sim):
    made = sim.create_key(kind="organization", org_id=ORG_ID, name=rel.unique_name("auth-revoked"))
    revoked = ok(run(sim, "api_key", org_id=ORG_ID, id=made["id"], state="absent"))
    assert revoked["changed"] is True
    result = run(sim, api_key=made["key"])
    data = failed(result)
    assert data["error"]["status"] == 401
    assert data["msg"].startswith("GET /auth failed: HTTP 401")
    assert "missing, invalid or revoked" in data["msg"]
    assert made["key"] not in json.dumps([data.get("msg"), data.get("warnings"), data.get("error")])
    assert "organizations" not in data and "key_type" not in data
