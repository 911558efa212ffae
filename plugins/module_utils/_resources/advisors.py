# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A project's advisor issues (``neon.cloud.advisor_info``): what Neon's database advisor finds wrong with a
database's security (tables exposed without row-level security, say) and performance.

``GET /projects/{project_id}/advisors`` (alpha in the June 2026 document) answers ``{"issues": [AdvisorIssue]}``,
for the project's default branch unless ``branch_id`` names another, and one database (``database_name``, required
when the branch has several); ``category`` (``SECURITY``, ``PERFORMANCE``) and ``min_severity`` (``INFO``, ``WARN``,
``ERROR``: ``WARN`` answers ``WARN`` and ``ERROR``) filter on the service's side. It needs read access to the
project and the project's Data API enabled (docs/docsite/rst/api-behaviour.rst, "Advisor issues").

Each issue is returned as the service gives it, checked for the fields a play reads (``name``, ``title``, ``level``,
``categories``) and the types of the others; a level or category the collection does not know yet is passed
through, never a failure.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import locate_branch, no_such_project, project_not_made
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal, assume

CATEGORIES = ("SECURITY", "PERFORMANCE")
SEVERITIES = ("INFO", "WARN", "ERROR")
ISSUE_FIELDS = dict(required={"name": (str,), "title": (str,), "level": (str,), "categories": (list,)},
                    optional={"facing": (str,), "description": (str,), "detail": (str,), "remediation": (str,),
                              "metadata": (dict,), "cache_key": (str,)})
# A branch id (``br-wispy-meadow-a5l2dqxb``) goes to the service as it is; a name is looked up first.
BRANCH_ID = re.compile(r"^br-[a-z0-9-]{1,57}$")
NOT_FOUND = 404
REFUSALS = (400, 403, 404, 409, 412, 422)


def advisor_issues(client, project_id, branch=None, database_name=None, category=None, min_severity=None,
                   check_mode=False, warnings=None):
    """The project's advisor issues as the service answers them, checked (a branch by name is looked up first). In
    check mode, an empty ``project_id`` is a project an earlier task would make (refusal.Missing): it has none yet,
    and a warning in ``warnings`` says so."""
    missing = project_not_made(project_id) if check_mode else None
    if missing is not None:
        assume(missing, check_mode, warnings if warnings is not None else [])
        return []
    branch_id = None
    if branch is not None:
        branch_id = branch if BRANCH_ID.match(branch) else locate_branch(client, project_id, branch)["id"]
    path = project_path(project_id, "advisors")
    params = dict(branch_id=branch_id, database_name=database_name, category=category, min_severity=min_severity)
    try:
        data = client.get(path, params=params)
    except NeonAPIError as error:
        if error.status == NOT_FOUND and branch_id is None:
            raise Refusal(no_such_project(project_id, error), error)
        if error.status in REFUSALS:
            raise Refusal(
                "Reading the advisor issues of project %s was refused: %s. The advisor needs read access to the "
                "project and the project's Data API enabled; give database_name when the branch has more than one "
                "database" % (project_id, error.describe()), error)
        raise
    check = answers.Checker("GET", path)
    issues = answers.items_of(data, "GET", path, "issues", ISSUE_FIELDS)
    for index, issue in enumerate(issues):
        for position, category_name in enumerate(issue["categories"]):
            check.value(category_name, "issues[%d].categories[%d]" % (index, position), (str,))
    return issues
