# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fault of the collection's own code after a change (an exception no rule raises: an answer it did not foresee,
say) fails the task with a sentence, never a traceback: the sentence names the exception and the line, the result
says what was done, and a secret the service showed once (a new project's connection URI, Neon Auth's keys) is in
it, as after any other failure. The fault is injected: every real one is a bug, found and fixed.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

import neon_reliability as rel
from neon_reliability import failed, last_seq
from test_provisioning_modules import changes_since, new_project, run

FAULT = re.compile(r"^neon\.cloud met a fault of its own \(KeyError: 'current_state', at \w+\.py line \d+\); please "
                   r"report it, with this message\. Changed by this task so far: ")


def fault(*_args, **_kwargs):
    raise KeyError("current_state")


def test_a_fault_after_a_project_is_created_keeps_its_connection_uri_and_says_what_was_done(sim, monkeypatch):
    from ansible_collections.neon.cloud.plugins.module_utils._resources import projects

    monkeypatch.setattr(projects.Project, "act", fault)  # right after the create, in the walk
    name = rel.unique_name("fault")
    seq = last_seq(sim)
    result = failed(run(sim, "project", name=name))  # run() asserts that nothing crashed and the API key is not shown
    assert FAULT.match(result["msg"]), result["msg"]
    assert "project %r was created (id %s)" % (name, result["project"]["id"]) in result["msg"]
    assert result["changed"] is True and result["project"]["name"] == name
    role, password = result["connection_uri"].split("//")[1].split("@")[0].split(":")  # shown once, kept
    branch = rel.api(sim, "GET", "/projects/%s/branches" % result["project"]["id"])["branches"][0]
    assert sim.password_valid(result["project"]["id"], branch["id"], role, password)
    assert changes_since(sim, seq) == [("POST", "/api/v2/projects")]


def test_a_fault_after_neon_auth_is_enabled_keeps_its_keys(sim, monkeypatch):
    from ansible_collections.neon.cloud.plugins.module_utils._resources import neon_auth

    monkeypatch.setattr(neon_auth.NeonAuthTask, "_apply", fault)  # right after the enabling, outside the walk
    pid = new_project(sim)["project"]["id"]
    result = failed(run(sim, "neon_auth", project_id=pid, branch="main"))
    assert FAULT.match(result["msg"]), result["msg"]
    assert "Neon Auth of branch" in result["msg"] and "was enabled" in result["msg"]
    assert result["changed"] is True
    assert result["secret_server_key"].startswith("ssk_") and result["pub_client_key"].startswith("pck_")
    assert result["secret_server_key"] not in result["msg"]
