# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The checks a resource module makes of its own options, before anything else (each resource's
``options_problem`` and ``run``, _resources/): one plain fail_json with the sentence alone (no
``changed``, no "Nothing was changed", no result fields), no request sent, and in the order they
always had: a name the service refuses is said before a path option's own check (an empty branch
name is "1 to 256 characters", not "must not be empty"). In this process (rel.run_module).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

import neon_reliability as rel

DEMO = "shiny-river-12345678"

# (case id, module, options, the whole message)
CASES = [
    ("branch name empty", "branch", dict(project_id=DEMO, name=""), "name must be 1 to 256 characters long, got 0"),
    ("branch name 257 characters", "branch", dict(project_id=DEMO, name="b" * 257),
     "name must be 1 to 256 characters long, got 257"),
    ("branch name 257 characters, state=absent", "branch", dict(project_id=DEMO, name="b" * 257, state="absent"),
     "name must be 1 to 256 characters long, got 257"),
    ("branch name before an empty project_id", "branch", dict(project_id=" ", name=""),
     "name must be 1 to 256 characters long, got 0"),
    ("branch compute neither a boolean nor settings", "branch", dict(project_id=DEMO, name="pr-1", compute=[1]),
     "compute must be true, false or a dict of min_cu, max_cu and suspend_timeout_seconds"),
    ("project name 257 characters", "project", dict(name="p" * 257), "name must be 1 to 256 characters long, got 257"),
    ("project name empty", "project", dict(name=""), "name must be 1 to 256 characters long, got 0"),
    ("role name 64 bytes", "role", dict(project_id=DEMO, name="é" * 32), "name must be at most 63 bytes long"),
    ("role reset_password with state=absent", "role",
     dict(project_id=DEMO, name="app", state="absent", reset_password=True),
     "reset_password and reveal_password need state=present"),
    ("role reveal_password with state=absent", "role",
     dict(project_id=DEMO, name="app", state="absent", reveal_password=True),
     "reset_password and reveal_password need state=present"),
    ("database name 64 bytes", "database", dict(project_id=DEMO, name="d" * 64), "name must be at most 63 bytes long"),
    ("database name of the service's", "database", dict(project_id=DEMO, name="template1"),
     "name 'template1' is one of the service's own databases (postgres, template0, template1)"),
    ("snapshot name blank", "snapshot", dict(project_id=DEMO, name="  "), "name must not be empty"),
]


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_a_module_s_own_option_checks_fail_plainly_before_any_request(sim, case):
    _name, module, options, message = case
    run = rel.run_module(module, rel.connection_args(sim, **options))
    assert run.crash is None, run.describe()
    assert run.rc == 1 and run.failed, run.describe()
    assert run.msg == message
    assert sorted(set(run.result) - {"invocation"}) == ["failed", "msg"], run.describe()
    assert sim.requests() == []


def test_the_checks_let_a_good_name_through(sim):
    """The longest names the checks take reach the service's own rules (check mode: a prediction, nothing made)."""
    branch = rel.run_module("branch", rel.connection_args(sim, project_id=sim.demo_project_id, name="b" * 256),
                            check_mode=True)
    assert not branch.failed and branch.result["changed"] is True, branch.describe()
    role = rel.run_module("role", rel.connection_args(sim, project_id=sim.demo_project_id, name="r" * 63),
                          check_mode=True)
    assert not role.failed and role.result["changed"] is True, role.describe()
