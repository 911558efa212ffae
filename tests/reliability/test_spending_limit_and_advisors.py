# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Money and risk in the baseline (issue 40): organization_spending_limit and advisor_info against the simulator.

Each test runs a module in this process (rel.run_module), as a playbook task would, and checks what a user would
notice: the limit the service holds afterwards, what the result and the diff say, the requests sent (the simulator's
request log), and the words of a refusal. Each spending-limit test makes an organization of its own (the simulator's
state carries over between tests).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok
from test_provisioning_modules import changes_since, new_project, requests_since, run

LIMIT = "/organizations/%s/billing/spending_limit"


# ---------------------------------------------------------------------------------------------- helpers


def organization(sim, plan="scale"):
    """An organization of its own, the simulator's key the personal key of its admin."""
    return sim.create_organization(name=rel.unique_name("money"), plan=plan)["id"]


def held(sim, org_id):
    """The limit the service holds now (cents or None)."""
    return rel.api(sim, "GET", LIMIT % org_id)["spending_limit_cents"]


def limit(sim, org_id, check_mode=False, diff=False, **args):
    return run(sim, "organization_spending_limit", check_mode=check_mode, diff=diff, org_id=org_id, **args)


def member_key(sim, org_id, role="member"):
    """The personal key of a new user who is a ``role`` of the organization."""
    user = sim.create_user(name="Sam Member", email="%s@example.com" % rel.unique_name("member"))
    sim.add_member(org_id, user["id"], role)
    return sim.create_key("personal", user_id=user["id"])["key"]


# ---------------------------------------------------------------------------------------------- spending limit


def test_set_in_dollars_predicted_then_set_once_then_as_asked_in_cents_then_removed_once(sim):
    org_id = organization(sim)
    seq = last_seq(sim)
    predicted = ok(limit(sim, org_id, check_mode=True, diff=True, spending_limit_dollars="1500"))
    assert predicted["changed"] is True
    assert (predicted["spending_limit_cents"], predicted["spending_limit_dollars"]) == (150000, "1500.00")
    assert predicted["diff"] == {"before": {"spending_limit_cents": None, "spending_limit_dollars": None},
                                 "after": {"spending_limit_cents": 150000, "spending_limit_dollars": "1500.00"}}
    assert changes_since(sim, seq) == [] and held(sim, org_id) is None  # check mode sent nothing

    seq = last_seq(sim)
    made = ok(limit(sim, org_id, diff=True, spending_limit_dollars=1500))
    assert made["changed"] is True and made["spending_limit_cents"] == 150000
    assert made["diff"]["after"]["spending_limit_dollars"] == "1500.00"
    assert changes_since(sim, seq) == [("PUT", "/api/v2" + LIMIT % org_id)]
    assert "operations" not in made  # nothing it sends starts an operation
    assert held(sim, org_id) == 150000

    seq = last_seq(sim)
    again = ok(limit(sim, org_id, check_mode=True, diff=True, spending_limit_cents=150000))
    assert again["changed"] is False and again["diff"]["before"] == again["diff"]["after"]
    assert requests_since(sim, seq) == [("GET", "/api/v2" + LIMIT % org_id)]  # one read, nothing else
    assert ok(limit(sim, org_id, spending_limit_cents=150000))["changed"] is False

    raised = ok(limit(sim, org_id, check_mode=True, diff=True, spending_limit_dollars=2000.5))
    assert raised["changed"] is True and raised["diff"]["before"]["spending_limit_cents"] == 150000
    assert raised["diff"]["after"]["spending_limit_cents"] == 200050 and held(sim, org_id) == 150000
    assert ok(limit(sim, org_id, spending_limit_dollars=2000.5))["spending_limit_dollars"] == "2000.50"
    assert held(sim, org_id) == 200050

    seq = last_seq(sim)
    gone = ok(limit(sim, org_id, diff=True, state="absent"))
    assert gone["changed"] is True and gone["spending_limit_cents"] is None
    assert gone["diff"]["before"]["spending_limit_cents"] == 200050 and gone["diff"]["after"]["spending_limit_cents"] is None
    assert changes_since(sim, seq) == [("DELETE", "/api/v2" + LIMIT % org_id)]
    seq = last_seq(sim)
    assert ok(limit(sim, org_id, state="absent"))["changed"] is False
    assert changes_since(sim, seq) == []  # no limit: no DELETE
    assert held(sim, org_id) is None


@pytest.mark.parametrize("args, words", [
    (dict(spending_limit_cents=0), "at least one cent, got 0: the service refuses 0; to remove the limit, use state=absent"),
    (dict(spending_limit_dollars=12.345), "more than two decimal places (12.345)"),
    (dict(spending_limit_dollars="$12"), "must be an amount of US dollars such as 500 or 499.99, got '$12'"),
    (dict(spending_limit_cents=100, spending_limit_dollars=1), "not both"),
    (dict(), "state=present needs the limit"),
    (dict(spending_limit_cents=100, state="absent"), "state=absent removes the spending limit"),
    (dict(org_id="..", spending_limit_cents=100), "org_id must not be '..'"),
])
def test_bad_input_is_refused_before_any_request(sim, args, words):
    org_id = args.pop("org_id", "org-anything-1")
    seq = last_seq(sim)
    result = failed(limit(sim, org_id, **args))
    assert words in result["msg"], result["msg"]
    assert requests_since(sim, seq) == []


def test_a_plan_without_spending_limits_fails_naming_the_plan_in_check_mode_too(sim):
    org_id = organization(sim, plan="free")
    seq = last_seq(sim)
    for check_mode in (True, False):
        result = failed(limit(sim, org_id, check_mode=check_mode, spending_limit_dollars=100))
        assert "Reading the spending limit of organization %s was refused: GET %s failed: HTTP 403" % (
            org_id, LIMIT % org_id) in result["msg"], result["msg"]
        assert "Organization %s is on the free plan: spending limits are available on the Launch and Scale plans " \
               "only" % org_id in result["msg"], result["msg"]
        assert result["changed"] is False and result["error"]["status"] == 403
    assert changes_since(sim, seq) == []
    launch = organization(sim, plan="launch")
    assert ok(limit(sim, launch, spending_limit_cents=2500))["spending_limit_cents"] == 2500


def test_a_key_that_is_not_an_admins_reads_the_limit_but_setting_it_is_refused_with_why(sim):
    org_id = organization(sim)
    ok(limit(sim, org_id, spending_limit_cents=90000))
    key = member_key(sim, org_id)
    predicted = ok(limit(sim, org_id, check_mode=True, api_key=key, spending_limit_cents=50000))
    assert predicted["changed"] is True and predicted["spending_limit_cents"] == 50000  # a member reads it
    for args in (dict(spending_limit_cents=50000), dict(state="absent")):
        result = failed(limit(sim, org_id, api_key=key, **args))
        assert "HTTP 403" in result["msg"] and "only organization admins can" in result["msg"], result["msg"]
        assert "takes an organization admin's personal API key or the organization's API key" in result["msg"]
        assert result["msg"].endswith("Nothing was changed") and result["spending_limit_cents"] == 90000
        assert key not in str(result)
    assert held(sim, org_id) == 90000
    org_key = sim.create_key("organization", org_id=org_id)["key"]  # an organization key acts as an admin
    assert ok(limit(sim, org_id, api_key=org_key, spending_limit_cents=50000))["changed"] is True


def test_a_key_that_cannot_reach_the_organization_is_explained(sim):
    org_id = sim.org_id
    project = next(item["id"] for item in rel.api(sim, "GET", "/projects", params={"org_id": org_id})["projects"])
    scoped = sim.create_key("project", project_id=project)["key"]
    result = failed(limit(sim, org_id, api_key=scoped, spending_limit_cents=100))
    assert "Reading the spending limit of organization %s was refused" % org_id in result["msg"]
    assert "project-scoped key cannot reach it" in result["msg"], result["msg"]


def test_a_set_whose_answer_was_lost_is_rerun_safe(sim):
    """The PUT carried out, its connection dropped: the task fails saying it may have been done; a rerun finds the
    limit as asked and changes nothing."""
    org_id = organization(sim)
    sim.add_fault(method="PUT", path="/api/v2" + LIMIT % org_id, drop=True, apply=True, count=100)
    result = failed(limit(sim, org_id, spending_limit_cents=4200))
    assert "Setting the spending limit of organization %s to 42.00 US dollars (4200 cents) failed" % org_id \
        in result["msg"], result["msg"]
    sim.clear_faults()
    assert held(sim, org_id) == 4200
    assert ok(limit(sim, org_id, spending_limit_cents=4200))["changed"] is False


def test_an_answer_of_the_wrong_shape_fails_clearly(sim):
    org_id = organization(sim)
    sim.add_fault(method="GET", path="/api/v2" + LIMIT % org_id, body='{"spending_limit_cents": "500"}', count=100)
    result = failed(limit(sim, org_id, spending_limit_cents=500))
    assert "spending_limit_cents" in result["msg"] and "must be an integer or null" in result["msg"], result["msg"]
    assert "Traceback" not in result["msg"]


# ---------------------------------------------------------------------------------------------- advisors


def advisors(sim, pid, **args):
    return run(sim, "advisor_info", project_id=pid, **args)


def set_issues(sim, pid, issues):
    import requests

    answer = requests.post("%s/projects/%s/advisors" % (sim.control_url, pid), json={"issues": issues}, timeout=10)
    answer.raise_for_status()


ISSUES = [
    {"name": "rls_disabled_in_public", "level": "ERROR", "detail": "Table `public.users` is public, but RLS has not "
     "been enabled."},
    {"name": "security_definer_view", "level": "WARN", "detail": "View `public.totals` is SECURITY DEFINER."},
    {"name": "unindexed_foreign_keys", "level": "ERROR", "categories": ["PERFORMANCE"],
     "detail": "Foreign key `orders_user_id_fkey` has no index."},
    {"name": "extension_in_public", "level": "INFO", "detail": "Extension `pg_trgm` is in the public schema."},
]


def test_the_issues_as_the_service_gives_them_filtered_by_category_and_severity(sim):
    pid = new_project(sim)["project"]["id"]
    assert ok(advisors(sim, pid))["issues"] == []
    set_issues(sim, pid, ISSUES)
    every = ok(advisors(sim, pid))
    assert every["changed"] is False
    assert [issue["name"] for issue in every["issues"]] == [issue["name"] for issue in ISSUES]
    assert every["issues"][0]["title"] == "RLS Disabled in Public" and every["issues"][0]["cache_key"]

    seq = last_seq(sim)
    errors = ok(advisors(sim, pid, category="SECURITY", min_severity="ERROR"))
    assert [issue["name"] for issue in errors["issues"]] == ["rls_disabled_in_public"]
    log = sim.requests(since=seq)
    assert [(entry["method"], entry["path"]) for entry in log] == [("GET", "/api/v2/projects/%s/advisors" % pid)]
    assert "category=SECURITY" in log[0]["query"] and "min_severity=ERROR" in log[0]["query"]
    warned = ok(advisors(sim, pid, min_severity="WARN"))
    assert [issue["level"] for issue in warned["issues"]] == ["ERROR", "WARN", "ERROR"]


def test_a_branch_by_name_is_looked_up_and_an_unknown_one_or_project_is_refused(sim):
    pid = new_project(sim)["project"]["id"]
    main = rel.api(sim, "GET", "/projects/%s/branches" % pid)["branches"][0]
    seq = last_seq(sim)
    ok(advisors(sim, pid, branch=main["name"], database_name="neondb"))
    asked = [entry for entry in sim.requests(since=seq) if entry["path"].endswith("/advisors")]
    assert "branch_id=%s" % main["id"] in asked[0]["query"] and "database_name=neondb" in asked[0]["query"]
    seq = last_seq(sim)
    ok(advisors(sim, pid, branch=main["id"]))
    assert requests_since(sim, seq) == [("GET", "/api/v2/projects/%s/advisors" % pid)]  # an id: no lookup
    assert "has no branch 'nope'" in failed(advisors(sim, pid, branch="nope"))["msg"]
    assert "there is no project no-such-project-1 that this API key reaches" in failed(
        advisors(sim, "no-such-project-1"))["msg"]


def test_an_issue_of_a_level_not_known_yet_is_passed_on_and_a_broken_answer_fails_clearly(sim):
    pid = new_project(sim)["project"]["id"]
    path = "/api/v2/projects/%s/advisors" % pid
    newer = '{"issues": [{"name": "n", "title": "T", "level": "CRITICAL", "categories": ["COMPLIANCE"], "extra": 1}]}'
    sim.add_fault(method="GET", path=path, body=newer, count=1)
    passed_on = {"name": "n", "title": "T", "level": "CRITICAL", "categories": ["COMPLIANCE"], "extra": 1}
    assert ok(advisors(sim, pid))["issues"] == [passed_on]
    sim.add_fault(method="GET", path=path, body='{"issues": [{"name": "n", "title": "T"}]}', count=1)
    result = failed(advisors(sim, pid))
    assert "issues[0].level" in result["msg"] and "is missing" in result["msg"], result["msg"]
    sim.add_fault(method="GET", path=path, status=403, count=1)
    result = failed(advisors(sim, pid))
    assert "The advisor needs read access to the project and the project's Data API enabled" in result["msg"]


def test_in_check_mode_a_project_an_earlier_task_would_make_has_no_issues_yet(sim):
    seq = last_seq(sim)
    result = ok(run(sim, "advisor_info", check_mode=True, project_id="", min_severity="ERROR"))
    assert result["issues"] == [] and result["changed"] is False
    assert "taken as made by an earlier task of the play" in json.dumps(result["warnings"]), result
    assert requests_since(sim, seq) == []
    assert "project_id must not be empty" in failed(run(sim, "advisor_info", project_id=""))["msg"]
