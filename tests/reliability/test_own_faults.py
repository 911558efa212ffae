# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fault of the collection's own code after a change (an exception no rule raises: an answer it did not foresee,
say) fails the task with a sentence, never a traceback: the sentence names the exception and the line, with no
piece of a secret, the result says what was done, and a secret the service showed once (a new project's connection
URI, Neon Auth's keys) is in it, as after any other failure. It says "Nothing was changed" only when no change
request left. The fault is injected: every real one is a bug, found and fixed. Every other test counts such a
failure as a crash (neon_reliability.ModuleRun).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re
import sys

import neon_reliability as rel
from neon_reliability import last_seq
from test_provisioning_modules import changes_since, new_project

FAULT = re.compile(r"^neon\.cloud met a fault of its own \(KeyError: 'current_state', at \w+\.py line \d+\); please "
                   r"report it, with this message\. ")


def fault(*_args, **_kwargs):
    raise KeyError("current_state")


def faulted(sim, module, **args):
    """The run of ``module`` that met the injected fault: a failure, which the suite counts as a crash."""
    run = rel.run_module(module, rel.connection_args(sim, **args))
    assert run.failed and run.crash == "the module met a fault of its own: %s" % run.msg, run.describe()
    assert "Traceback" not in run.stdout and sim.api_key not in run.stdout
    return run.result


def test_a_fault_after_a_project_is_created_keeps_its_connection_uri_and_says_what_was_done(sim, monkeypatch):
    from ansible_collections.neon.cloud.plugins.module_utils._resources import projects

    monkeypatch.setattr(projects.Project, "act", fault)  # right after the create, in the walk
    # As ansible-builder leaves it once imported in the process (a CI run's pytest worker): the line is named still.
    monkeypatch.setattr(sys, "tracebacklimit", 0, raising=False)
    name = rel.unique_name("fault")
    seq = last_seq(sim)
    result = faulted(sim, "project", name=name)
    assert FAULT.match(result["msg"]), result["msg"]
    assert result["msg"].endswith(". Changed by this task so far: project %r was created (id %s). It sent 1 change "
                                  "request(s), so it may have changed more: run the task again, it finds what is "
                                  "there now" % (name, result["project"]["id"]))
    assert result["changed"] is True and result["project"]["name"] == name
    role, password = result["connection_uri"].split("//")[1].split("@")[0].split(":")  # shown once, kept
    branch = rel.api(sim, "GET", "/projects/%s/branches" % result["project"]["id"])["branches"][0]
    assert sim.password_valid(result["project"]["id"], branch["id"], role, password)
    assert changes_since(sim, seq) == [("POST", "/api/v2/projects")]


def test_a_fault_s_message_shows_no_piece_of_a_secret(sim, monkeypatch):
    from ansible_collections.neon.cloud.plugins.module_utils._resources import projects

    def leaking_fault(resource, *_args):
        raise ValueError("cannot use %s with the key %s" % (resource.task.kept["connection_uri"], sim.api_key))

    monkeypatch.setattr(projects.Project, "act", leaking_fault)
    result = faulted(sim, "project", name=rel.unique_name("fault"))
    password = result["connection_uri"].split("//")[1].split("@")[0].split(":")[1]
    assert result["msg"].startswith("neon.cloud met a fault of its own (ValueError: cannot use "), result["msg"]
    for secret in (password, sim.api_key):
        assert not any(secret[start:start + 6] in result["msg"] for start in range(len(secret) - 5)), result["msg"]


def test_a_fault_after_neon_auth_is_enabled_keeps_its_keys(sim, monkeypatch):
    from ansible_collections.neon.cloud.plugins.module_utils._resources import neon_auth

    monkeypatch.setattr(neon_auth.NeonAuthTask, "_apply", fault)  # right after the enabling, outside the walk
    pid = new_project(sim)["project"]["id"]
    result = faulted(sim, "neon_auth", project_id=pid, branch="main")
    assert FAULT.match(result["msg"]), result["msg"]
    assert "Changed by this task so far: Neon Auth of branch" in result["msg"]
    assert result["changed"] is True
    assert result["secret_server_key"].startswith("ssk_") and result["pub_client_key"].startswith("pck_")
    assert result["secret_server_key"] not in json.dumps(dict(result, secret_server_key=None))


def test_a_fault_after_a_change_the_task_did_not_record_never_says_nothing_was_changed(sim, monkeypatch):
    """API keys' writer sends its own requests and records no change on the way: after a revocation, a fault says
    that the task sent a change request and may have changed something."""
    from ansible_collections.neon.cloud.plugins.module_utils._keys import lifecycle

    monkeypatch.setattr(lifecycle.KeyTask, "read_again", fault)  # right after the revocation
    key = rel.api(sim, "POST", "/api_keys", json={"key_name": rel.unique_name("fault")})
    result = faulted(sim, "api_key", id=key["id"], state="absent")
    assert FAULT.match(result["msg"]), result["msg"]
    assert "Nothing was changed" not in result["msg"]
    assert result["msg"].endswith("It sent 1 change request(s), so it may have changed something: run the task "
                                  "again, it finds what is there now")
    assert result["changed"] is True
    assert [item for item in sim.keys() if item["id"] == key["id"]][0]["revoked"] is True


def test_a_fault_before_any_change_says_nothing_was_changed(sim, monkeypatch):
    from ansible_collections.neon.cloud.plugins.module_utils._resources import projects

    monkeypatch.setattr(projects.Project, "decide", fault)
    seq = last_seq(sim)
    result = faulted(sim, "project", name=rel.unique_name("fault"))
    assert FAULT.match(result["msg"]) and result["msg"].endswith(". Nothing was changed"), result["msg"]
    assert result["changed"] is False and "connection_uri" not in result
    assert changes_since(sim, seq) == []
