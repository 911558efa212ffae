# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the service is known to refuse is refused before anything is sent, alike in every module (issue 28, point 4).

A check-mode run predicts the refusal instead of success; a project that does not exist, a role or
database a branch does not have, and a missing API key each get a sentence a user can act on,
never a raw 404 with the request's path as the only clue.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

import pytest

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok
from test_provisioning_modules import changes_since, iso, new_project, requests_since, run, sim_now

MISSING_PROJECT = "quiet-meadow-00000000"


@pytest.mark.parametrize("check_mode", [True, False])
def test_protecting_a_branch_that_expires_is_refused_before_sending_in_check_mode_too(sim, check_mode):
    pid = new_project(sim)["project"]["id"]
    expiry = iso(sim_now(sim) + datetime.timedelta(days=7))
    ok(run(sim, "branch", project_id=pid, name="pr-9", expires_at=expiry, compute=False))
    seq = last_seq(sim)
    refused = failed(run(sim, "branch", check_mode=check_mode, project_id=pid, name="pr-9", protected=True,
                         compute=False))
    assert "a protected branch cannot have an expiry (expires_at)" in refused["msg"]
    assert refused["changed"] is False and changes_since(sim, seq) == []


def test_an_expiry_on_the_default_branch_is_refused_before_sending(sim):
    created = new_project(sim)
    pid = created["project"]["id"]
    seq = last_seq(sim)
    refused = failed(run(sim, "branch", project_id=pid, name=created["branch"]["name"],
                         expires_at=iso(sim_now(sim) + datetime.timedelta(days=1)), compute=False))
    assert "the project's default branch, which cannot have an expiry" in refused["msg"]
    assert changes_since(sim, seq) == []


@pytest.mark.parametrize("module,args,expected", [
    ("branch", dict(project_id=MISSING_PROJECT, name="pr-10", compute=dict(min_cu=2, max_cu=1)),
     "compute.min_cu (2) must not be more than compute.max_cu (1)"),
    ("project", dict(id=MISSING_PROJECT, compute=dict(min_cu=2, max_cu=1)),
     "compute.min_cu (2.0) must not be more than compute.max_cu (1.0)"),
    ("endpoint", dict(project_id=MISSING_PROJECT, min_cu=2, max_cu=1), "min_cu (2.0) must not be more than max_cu (1.0)"),
])
def test_a_compute_whose_least_size_is_above_its_most_is_refused_with_no_request(sim, module, args, expected):
    seq = last_seq(sim)
    refused = failed(run(sim, module, **args))
    assert refused["msg"].startswith(expected)
    assert requests_since(sim, seq) == []


@pytest.mark.parametrize("module,args", [
    ("branch", dict(name="pr-11")),
    ("role", dict(name="app")),
    ("database", dict(name="shop", owner="app")),
    ("endpoint", dict()),
    ("connection_info", dict()),
])
def test_a_project_that_does_not_exist_gets_a_sentence_in_every_module(sim, module, args):
    refused = failed(run(sim, module, project_id=MISSING_PROJECT, **args))
    assert "there is no project %s that this API key reaches (HTTP 404" % MISSING_PROJECT in refused["msg"]
    assert "neon.cloud.projects_info" in refused["msg"]
    assert "/projects/" not in refused["msg"]  # the path is in error, not in the sentence
    assert refused["error"]["status"] == 404 and refused["error"]["path"].startswith("/projects/%s/branches" % MISSING_PROJECT)


@pytest.mark.parametrize("missing,expected", [
    (dict(role="shop_owner"), "has no role 'shop_owner' (its roles: neondb_owner); create it with neon.cloud.role"),
    (dict(database="shop"), "has no database 'shop' (its databases: neondb); create it with neon.cloud.database"),
])
def test_connection_info_names_what_the_branch_has_when_a_role_or_database_is_missing(sim, missing, expected):
    pid = new_project(sim)["project"]["id"]
    refused = failed(run(sim, "connection_info", project_id=pid, **missing))
    assert expected in refused["msg"]
    assert refused["error"]["status"] == 404


def test_a_missing_key_names_the_environment_variable_too(sim, monkeypatch):
    monkeypatch.delenv("NEON_API_KEY", raising=False)
    args = rel.connection_args(sim)
    del args["api_key"]
    result = rel.run_module("projects_info", args)
    assert result.failed and result.crash is None
    assert result.msg == ("api_key is required: set the api_key option (or group/neon.cloud.all in module_defaults), "
                          "or the NEON_API_KEY environment variable")


@pytest.mark.parametrize("module,args,expected", [
    ("endpoint", dict(min_cu=2), "with its other settings, min_cu (2.0) must not be more than max_cu (0.25)"),
    ("branch", dict(name="main", compute=dict(min_cu=2)),
     "with its other settings, compute.min_cu (2) must not be more than compute.max_cu (0.25)"),
])
def test_a_least_size_above_the_compute_s_own_most_is_refused_before_sending(sim, module, args, expected):
    pid = new_project(sim)["project"]["id"]  # its compute: 0.25 to 0.25
    seq = last_seq(sim)
    refused = failed(run(sim, module, project_id=pid, **args))
    assert expected in refused["msg"] and "Nothing was changed" in refused["msg"]
    assert changes_since(sim, seq) == []


@pytest.mark.parametrize("check_mode", [True, False])
def test_a_refused_change_of_a_branch_returns_the_computes_it_was_decided_against(sim, check_mode):
    """The refusal names the compute; the result carries it (``endpoints``), as every result of state=present does
    from the task's decision on, so a play can show what the size was checked against without another read."""
    created = new_project(sim)
    pid, compute = created["project"]["id"], created["endpoints"][0]
    seq = last_seq(sim)
    refused = failed(run(sim, "branch", check_mode=check_mode, project_id=pid, name=created["branch"]["name"],
                         compute=dict(min_cu=2)))
    assert "the compute %s of" % compute["id"] in refused["msg"]
    assert [(item["id"], item["type"], item["autoscaling_limit_max_cu"]) for item in refused["endpoints"]] == [
        (compute["id"], "read_write", 0.25)]
    assert changes_since(sim, seq) == []


def test_a_refusal_before_the_computes_are_read_does_not_say_the_branch_has_none(sim):
    """A root branch cannot be reset from a parent: refused before its computes are read, so the result has no
    ``endpoints`` at all rather than an empty list for a branch that has a compute."""
    created = new_project(sim)
    seq = last_seq(sim)
    refused = failed(run(sim, "branch", project_id=created["project"]["id"], name=created["branch"]["name"],
                         reset_from_parent=True))
    assert "has no parent, so it cannot be reset from one" in refused["msg"]
    assert "endpoints" not in refused, refused["endpoints"]
    assert created["endpoints"] and changes_since(sim, seq) == []
