# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Check mode of a new environment predicts instead of failing (issue 37, point 3.4).

A module runs alone: in check mode it cannot see that an earlier task of the play would make what it
needs. The rule (docs/docsite/rst/troubleshooting.rst, "A dry run (--check) of a new environment";
_resources/plan.py, Missing): in check mode, a project whose id is null or empty (a project predicted by
neon.cloud.project has none yet), a branch of the project, a database's owner role, a branch's compute, a
role or database to connect with, that does not exist, is taken as made by an earlier task of the play:
the task predicts its result, says in a warning what it assumed, and sends nothing. Run for real, the same
task fails with the same refusal as before, naming what is missing. What check mode cannot take as made
by an earlier task still fails: a project id the service does not know (a task cannot make a project of a
given id), and a parent asked of a branch that exists (made before any parent made now).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from neon_reliability import failed, last_seq, ok
from test_provisioning_modules import changes_since, new_project, run

ASSUMED = "in check mode it is taken as made by an earlier task of the play"


def warning_texts(result):
    """The warning texts of a result (ansible-core 2.19+ hands them back as objects), on one line each."""
    return [" ".join((warning if isinstance(warning, str) else warning["event"]["msg"]).split())
            for warning in result.get("warnings") or []]


def assumed(result, what):
    """The one warning of the result that says check mode assumed ``what``."""
    found = [warning for warning in warning_texts(result) if ASSUMED in warning and what.lower() in warning.lower()]
    assert len(found) == 1, warning_texts(result)
    return found[0]


def test_a_database_whose_owner_an_earlier_task_makes_is_predicted_in_check_mode(sim):
    pid = new_project(sim)["project"]["id"]
    seq = last_seq(sim)
    predicted = ok(run(sim, "database", check_mode=True, diff=True, project_id=pid, name="orders", owner="orders"))
    assert predicted["changed"] is True
    assert predicted["database"]["name"] == "orders" and predicted["database"]["owner_name"] == "orders"
    assert predicted["diff"]["before"] == {} and "orders" in predicted["diff"]["after"].values()
    assumed(predicted, "role 'orders' of branch 'main'")
    assert changes_since(sim, seq) == []

    refused = failed(run(sim, "database", project_id=pid, name="orders", owner="orders"))
    assert "its owner 'orders' is not a role of the branch" in refused["msg"] and refused["changed"] is False
    assert changes_since(sim, seq) == []


def test_giving_a_database_an_owner_an_earlier_task_makes_is_predicted_in_check_mode(sim):
    pid = new_project(sim)["project"]["id"]
    seq = last_seq(sim)
    predicted = ok(run(sim, "database", check_mode=True, project_id=pid, name="neondb", owner="reporting"))
    assert predicted["changed"] is True and predicted["database"]["owner_name"] == "reporting"
    assumed(predicted, "role 'reporting'")
    assert changes_since(sim, seq) == []
    refused = failed(run(sim, "database", project_id=pid, name="neondb", owner="reporting"))
    assert "given another owner: its owner 'reporting' is not a role of the branch" in refused["msg"]


def test_a_branch_whose_parent_an_earlier_task_makes_is_predicted_in_check_mode(sim):
    pid = new_project(sim)["project"]["id"]
    seq = last_seq(sim)
    predicted = ok(run(sim, "branch", check_mode=True, project_id=pid, name="feature", parent="dev"))
    assert predicted["changed"] is True and predicted["branch"]["name"] == "feature"
    assert predicted["branch"]["id"] is None
    assumed(predicted, "branch 'dev' of project %s" % pid)
    assert changes_since(sim, seq) == []

    refused = failed(run(sim, "branch", project_id=pid, name="feature", parent="dev"))
    assert "parent 'dev' is neither the name nor the id of a branch of project %s" % pid in refused["msg"]
    assert changes_since(sim, seq) == []


def test_an_existing_branch_with_a_parent_that_does_not_exist_is_refused_in_check_mode_too(sim):
    """A branch that exists was made from a branch that existed then: a parent made now cannot be its parent."""
    pid = new_project(sim)["project"]["id"]
    ok(run(sim, "branch", project_id=pid, name="feature", compute=False))
    refused = failed(run(sim, "branch", check_mode=True, project_id=pid, name="feature", parent="dev", compute=False))
    assert "parent 'dev' is neither the name nor the id of a branch of project %s" % pid in refused["msg"]


@pytest.mark.parametrize("module, args, result_key", [
    ("role", {"name": "app"}, "role"),
    ("database", {"name": "app", "owner": "app"}, "database"),
    ("endpoint", {"min_cu": 0.25, "max_cu": 1}, "endpoint"),
    ("snapshot", {"name": "before-migration"}, "snapshot"),
])
def test_what_goes_on_a_branch_an_earlier_task_makes_is_predicted_in_check_mode(sim, module, args, result_key):
    pid = new_project(sim)["project"]["id"]
    seq = last_seq(sim)
    predicted = ok(run(sim, module, check_mode=True, project_id=pid, branch="dev", **args))
    assert predicted["changed"] is True and predicted[result_key] is not None
    assert predicted[result_key].get("id") is None  # what only the service gives is null
    assumed(predicted, "branch 'dev' of project %s" % pid)
    assert changes_since(sim, seq) == []

    refused = failed(run(sim, module, project_id=pid, branch="dev", **args))
    assert "project %s has no branch 'dev'" % pid in refused["msg"] and refused["changed"] is False
    assert changes_since(sim, seq) == []


def test_a_role_on_a_branch_not_made_yet_is_nothing_to_delete_in_check_mode(sim):
    pid = new_project(sim)["project"]["id"]
    seq = last_seq(sim)
    predicted = ok(run(sim, "role", check_mode=True, project_id=pid, branch="dev", name="app", state="absent"))
    assert predicted["changed"] is False
    assumed(predicted, "branch 'dev'")
    assert changes_since(sim, seq) == []


@pytest.mark.parametrize("project_id", [None, ""], ids=["null", "empty"])
@pytest.mark.parametrize("module, args, result_key", [
    ("branch", {"name": "pr-1", "parent": "main"}, "branch"),
    ("role", {"branch": "main", "name": "shop_owner"}, "role"),
    ("database", {"branch": "main", "name": "shop", "owner": "shop_owner"}, "database"),
    ("endpoint", {"branch": "main"}, "endpoint"),
    ("snapshot", {"branch": "main", "name": "first"}, "snapshot"),
])
def test_a_project_an_earlier_task_makes_is_predicted_in_check_mode(sim, project_id, module, args, result_key):
    """neon.cloud.project predicts a new project with a null id: what a later task gets as its project_id."""
    seq = last_seq(sim)
    predicted = ok(run(sim, module, check_mode=True, project_id=project_id, **args))
    assert predicted["changed"] is True and predicted[result_key].get("id") is None
    assumed(predicted, "the task's project (project_id is empty")
    assert sim.requests(since=seq) == []  # nothing is read of a project that is not there


def test_an_empty_project_id_is_still_refused_outside_check_mode(sim):
    refused = failed(run(sim, "role", project_id="", branch="main", name="shop_owner"))
    assert refused["msg"] == "project_id must not be empty"


def test_a_project_id_the_service_does_not_know_still_fails_in_check_mode(sim):
    """No task makes a project of a given id: a wrong one is a mistake to show, not a project to assume."""
    refused = failed(run(sim, "role", check_mode=True, project_id="no-such-project-00000000", branch="main",
                         name="app"))
    assert "there is no project no-such-project-00000000 that this API key reaches" in refused["msg"]


def test_the_chain_of_a_new_project_predicts_in_check_mode(sim):
    """A new project, its role, its database owned by that role, a branch from main, its connection: each task
    given what the earlier one predicted, as a play's tasks are."""
    seq = last_seq(sim)
    project = ok(run(sim, "project", check_mode=True, name="shop-new"))
    assert project["changed"] is True and project["project"]["id"] is None
    pid = project["project"]["id"]
    role = ok(run(sim, "role", check_mode=True, project_id=pid, branch="main", name="shop_owner"))
    database = ok(run(sim, "database", check_mode=True, project_id=pid, branch="main", name="shop", owner="shop_owner"))
    branch = ok(run(sim, "branch", check_mode=True, project_id=pid, name="pr-1", parent="main"))
    connection = ok(run(sim, "connection_info", check_mode=True, project_id=pid, branch="pr-1", database="shop",
                        role="shop_owner", pooled=True))
    assert [result["changed"] for result in (role, database, branch)] == [True, True, True]
    assert connection["uri"] is None and connection["password"] is None
    assert (connection["database"], connection["role"]) == ("shop", "shop_owner")
    assert [request for request in sim.requests(since=seq) if request["method"] != "GET"] == []


def test_a_connection_to_a_role_an_earlier_task_makes_is_predicted_in_check_mode(sim):
    pid = new_project(sim)["project"]["id"]
    seq = last_seq(sim)
    predicted = ok(run(sim, "connection_info", check_mode=True, project_id=pid, branch="main", database="neondb",
                       role="orders", pooled=True))
    assert predicted["changed"] is False and predicted["uri"] is None and predicted["host"] is None
    assert predicted["role"] == "orders" and predicted["branch_id"] and predicted["endpoint_id"]
    assumed(predicted, "role 'orders' of branch 'main'")
    assert changes_since(sim, seq) == []

    refused = failed(run(sim, "connection_info", project_id=pid, branch="main", database="neondb", role="orders"))
    assert "has no role 'orders'" in refused["msg"]


def test_a_connection_to_a_branch_an_earlier_task_makes_is_predicted_in_check_mode(sim):
    pid = new_project(sim)["project"]["id"]
    predicted = ok(run(sim, "connection_info", check_mode=True, project_id=pid, branch="pr-3", database="neondb",
                       role="neondb_owner"))
    assert predicted["uri"] is None and predicted["branch_id"] is None
    assumed(predicted, "branch 'pr-3' of project %s" % pid)
    refused = failed(run(sim, "connection_info", project_id=pid, branch="pr-3", database="neondb", role="neondb_owner"))
    assert "project %s has no branch 'pr-3'" % pid in refused["msg"]


def test_a_role_s_password_is_null_in_check_mode_where_a_run_returns_one(sim):
    """A later task that stores the password (the weekly reset of application-database.rst) reads it in a dry run."""
    pid = new_project(sim)["project"]["id"]
    seq = last_seq(sim)
    made = ok(run(sim, "role", check_mode=True, project_id=pid, branch="main", name="app"))
    assert made["changed"] is True and "password" in made and made["password"] is None
    reset = ok(run(sim, "role", check_mode=True, project_id=pid, branch="main", name="neondb_owner", reset_password=True))
    assert reset["changed"] is True and "password" in reset and reset["password"] is None
    found = ok(run(sim, "role", check_mode=True, project_id=pid, branch="main", name="neondb_owner"))
    assert found["changed"] is False and "password" not in found
    assert changes_since(sim, seq) == []


def test_a_branch_id_that_does_not_exist_is_refused_in_check_mode_too(sim):
    # no task of a play makes a branch of a given id: a typo or another project's branch id is no prediction
    pid = new_project(sim)["project"]["id"]
    seq = last_seq(sim)
    refused = failed(run(sim, "branch", check_mode=True, project_id=pid, name="feature",
                         parent="br-wispy-meadow-a5l2dqxb"))
    assert "parent 'br-wispy-meadow-a5l2dqxb' is neither the name nor the id of a branch of project %s" % pid \
        in refused["msg"]
    assert ASSUMED not in " ".join(warning_texts(refused))
    assert changes_since(sim, seq) == []


@pytest.mark.parametrize("module, options", [
    ("branch_restore", {"branch": "main", "source_branch": "dev"}),
    ("snapshot_restore", {"snapshot": "nightly", "target_branch": "main", "name": "main-rollback"}),
])
def test_modules_that_predict_no_project_refuse_an_empty_project_id_in_check_mode_as_before(sim, module, options):
    refused = failed(run(sim, module, check_mode=True, project_id="", **options))
    assert refused["msg"] == "project_id must not be empty"
