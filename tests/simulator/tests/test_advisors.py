# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A project's advisor issues (advisors.py, api_advisors.py): GET /projects/{id}/advisors as the vendor's 2026-06
document has it (getProjectAdvisorSecurityIssues), filtered by min_severity and category, and its control route."""

from __future__ import annotations

import requests

API_KEY = "sim-selftest-key-advisors"

# The 2026-06 document's AdvisorIssue: its required fields (the document in the repository predates the route).
ADVISOR_ISSUE_REQUIRED = {"name", "title", "level", "facing", "categories", "description", "detail", "remediation",
                          "metadata", "cache_key"}


def get(sim, path, key=None, **params):
    headers = dict(sim.headers)
    if key is not None:
        headers["Authorization"] = "Bearer " + key
    return requests.get(sim.url + path, headers=headers, params=params, timeout=10)


def set_issues(sim, project_id, issues):
    return requests.post(sim.control_url + "/projects/%s/advisors" % project_id, json={"issues": issues}, timeout=10)


def test_no_issue_until_set_then_filtered_by_severity_and_category(sim):
    pid = sim.demo_project_id
    assert get(sim, "/projects/%s/advisors" % pid).json() == {"issues": []}
    assert set_issues(sim, pid, [{"level": "ERROR"}, {"name": "unindexed_fk", "level": "WARN",
                                                      "categories": ["PERFORMANCE"]},
                                 {"name": "note", "level": "INFO"}]).status_code == 200
    issues = get(sim, "/projects/%s/advisors" % pid).json()["issues"]
    assert [issue["level"] for issue in issues] == ["ERROR", "WARN", "INFO"]
    assert all(set(issue) == ADVISOR_ISSUE_REQUIRED for issue in issues)
    assert len({issue["cache_key"] for issue in issues}) == 3
    assert [i["level"] for i in get(sim, "/projects/%s/advisors" % pid, min_severity="WARN").json()["issues"]] == [
        "ERROR", "WARN"]
    assert [i["name"] for i in get(sim, "/projects/%s/advisors" % pid, category="PERFORMANCE").json()["issues"]] == [
        "unindexed_fk"]
    sim.reset()
    assert get(sim, "/projects/%s/advisors" % pid).json() == {"issues": []}


def test_refusals(sim):
    pid = sim.demo_project_id
    assert get(sim, "/projects/%s/advisors" % pid, min_severity="LOUD").status_code == 400
    assert get(sim, "/projects/%s/advisors" % pid, category="STYLE").status_code == 400
    assert get(sim, "/projects/no-such-project/advisors").status_code == 404
    assert set_issues(sim, pid, [{"level": "FATAL"}]).status_code == 400
    assert set_issues(sim, "no-such-project", []).status_code == 404
    scoped = sim.create_key("project", project_id="bold-glade-61830452")["key"]
    assert get(sim, "/projects/%s/advisors" % pid, key=scoped).status_code == 403
    assert get(sim, "/projects/bold-glade-61830452/advisors", key=scoped).status_code == 200
