# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``compute`` given as a string, as an ad hoc command gives it (``ansible localhost -m
neon.cloud.branch -a 'project_id=... name=... compute="min_cu=0.25 max_cu=1"'``): read as Ansible
reads its own dict options (``check_type_dict``), against the simulator, in this process
(rel.run_module). The ad hoc command itself is tests/integration/targets/adhoc's.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok


def run(sim, module, **args):
    return rel.task(sim, module, **args)


def new_project(sim):
    """A project made straight through the API (set-up), its creation operations ended."""
    created = rel.api(sim, "POST", "/projects", json={"project": {"name": rel.unique_name("compute")}})
    sim.advance_clock(30)
    return created


def limits_of_computes(sim, project_id, branch_id):
    endpoints = rel.api(sim, "GET", "/projects/%s/branches/%s/endpoints" % (project_id, branch_id))["endpoints"]
    return [(e["type"], e["autoscaling_limit_min_cu"], e["autoscaling_limit_max_cu"]) for e in endpoints]


def test_branch_compute_as_a_string_reads_as_ansible_reads_a_dict_option(sim):
    """key=value pairs (spaces or commas between them) and a JSON object, the numbers in them read
    as numbers (so a second run with the same string changes nothing); true/false stay booleans."""
    pid = new_project(sim)["project"]["id"]
    created = ok(run(sim, "branch", project_id=pid, name="pr-adhoc", compute="min_cu=0.25 max_cu=1"))
    branch_id = created["branch"]["id"]
    assert created["changed"] is True
    assert limits_of_computes(sim, pid, branch_id) == [("read_write", 0.25, 1)]
    assert ok(run(sim, "branch", project_id=pid, name="pr-adhoc", compute="min_cu=0.25, max_cu=1"))["changed"] is False

    resized = ok(run(sim, "branch", project_id=pid, name="pr-adhoc", compute='{"min_cu": 0.5, "max_cu": 2}'))
    assert resized["changed"] is True
    assert limits_of_computes(sim, pid, branch_id) == [("read_write", 0.5, 2)]
    assert ok(run(sim, "branch", project_id=pid, name="pr-adhoc", compute="max_cu=2"))["changed"] is False
    # numbers as strings in a dict too (as a template can give them)
    assert ok(run(sim, "branch", project_id=pid, name="pr-adhoc", compute=dict(min_cu="0.5", max_cu="2")))["changed"] is False

    bare = ok(run(sim, "branch", project_id=pid, name="pr-bare", compute="false"))
    assert bare["endpoints"] == [] and limits_of_computes(sim, pid, bare["branch"]["id"]) == []


@pytest.mark.parametrize("compute, message", [
    ("min_cu", "compute must be true, false or a dict of min_cu, max_cu and suspend_timeout_seconds"),
    ('{"min_cu": 0.25', "compute must be true, false or a dict of min_cu, max_cu and suspend_timeout_seconds"),
    ("min_cu=0.25 max_cu=lots", "compute.max_cu must be a number, got 'lots'"),
    ("size=2", "compute takes min_cu, max_cu and suspend_timeout_seconds, not size"),
])
def test_a_compute_string_that_is_no_dict_fails_clearly_before_any_request(sim, compute, message):
    pid = new_project(sim)["project"]["id"]
    seq = last_seq(sim)
    refused = failed(run(sim, "branch", project_id=pid, name="pr-bad-compute", compute=compute))
    assert message in refused["msg"] and "Traceback" not in refused["msg"], refused["msg"]
    assert sim.requests(since=seq) == []


def test_project_compute_as_a_string_reads_as_the_branch_s(sim):
    """project's compute is an Ansible dict option (ansible-core reads the string): the same forms."""
    project = new_project(sim)
    name, pid, branch_id = project["project"]["name"], project["project"]["id"], project["branch"]["id"]
    assert ok(run(sim, "project", name=name, compute="min_cu=0.5 max_cu=2"))["changed"] is True
    assert limits_of_computes(sim, pid, branch_id) == [("read_write", 0.5, 2)]
    assert ok(run(sim, "project", name=name, compute='{"min_cu": 0.5, "max_cu": 2}'))["changed"] is False
