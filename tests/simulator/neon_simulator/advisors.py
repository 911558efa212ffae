# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A project's advisor issues: ``GET /projects/{project_id}/advisors`` (getProjectAdvisorSecurityIssues, alpha in the
vendor's OpenAPI document of 2026-06): ``{"issues": [AdvisorIssue]}``, filtered by ``category`` (SECURITY,
PERFORMANCE) and ``min_severity`` (INFO, WARN, ERROR: WARN answers WARN and ERROR).

CHOICES (the document says nothing more):

- A project has no issue until a test sets some (``POST /_simulator/projects/{id}/advisors {"issues": [...]}``,
  replacing them; the fields left out get the document's example values); a reset clears them.
- ``branch_id`` must be a branch of the project once its branches are provisioned (404 ``branch not found``); the
  issues are the project's whichever branch or ``database_name`` is asked (the service analyses one database; the
  simulator has no schema to analyse).
- The Data API the document says is required is taken as enabled on every project.
"""

from __future__ import annotations

import hashlib

from . import access
from .errors import InvalidRequest, NotFound

SEVERITIES = ("INFO", "WARN", "ERROR")
CATEGORIES = ("SECURITY", "PERFORMANCE")
ISSUE_DEFAULTS = {
    "name": "rls_disabled_in_public",
    "title": "RLS Disabled in Public",
    "level": "ERROR",
    "facing": "EXTERNAL",
    "categories": ["SECURITY"],
    "description": "Detects tables in the public schema without row level security.",
    "detail": "Table `public.users` is public, but RLS has not been enabled.",
    "remediation": "https://neon.com/docs/data-api/database-advisor",
    "metadata": {},
}


def _issue(project_id, spec, index):
    if not isinstance(spec, dict):
        raise InvalidRequest("issues[%d]: must be an object" % index)
    unknown = set(spec) - set(ISSUE_DEFAULTS) - {"cache_key"}
    if unknown:
        raise InvalidRequest("issues[%d]: unknown fields %s" % (index, ", ".join(sorted(unknown))))
    issue = dict(ISSUE_DEFAULTS, **spec)
    if issue["level"] not in SEVERITIES:
        raise InvalidRequest("issues[%d].level: one of %s" % (index, ", ".join(SEVERITIES)))
    if not isinstance(issue["categories"], list) or any(c not in CATEGORIES for c in issue["categories"]):
        raise InvalidRequest("issues[%d].categories: a list of %s" % (index, ", ".join(CATEGORIES)))
    if issue["facing"] not in ("EXTERNAL", "INTERNAL"):
        raise InvalidRequest("issues[%d].facing: EXTERNAL or INTERNAL" % index)
    for name in ("name", "title", "description", "detail", "remediation"):
        if not isinstance(issue[name], str):
            raise InvalidRequest("issues[%d].%s: must be a string" % (index, name))
    if "cache_key" not in spec:
        digest = hashlib.sha256(("%s|%s|%s" % (project_id, issue["name"], issue["detail"])).encode()).hexdigest()
        issue["cache_key"] = "%s:%s" % (issue["name"], digest[:16])
    return issue


class Advisors:
    """The advisors' area of State (see the module's text)."""

    def __init__(self, shared):
        self.shared = shared
        self.issues = {}  # project id -> [issue]

    def reset(self):
        self.issues = {}

    def api_list_issues(self, key, project_id, branch_id=None, category=None, min_severity=None):
        """GET /projects/{project_id}/advisors."""
        if category is not None and category not in CATEGORIES:
            raise InvalidRequest("category: one of %s" % ", ".join(CATEGORIES))
        if min_severity is not None and min_severity not in SEVERITIES:
            raise InvalidRequest("min_severity: one of %s" % ", ".join(SEVERITIES))
        with self.shared.lock:
            project = access.check_project(self.shared, key, project_id)
            resources = project.resources
            if branch_id is not None and resources is not None and branch_id not in getattr(resources, "branches", {}):
                raise NotFound("branch not found")
            least = SEVERITIES.index(min_severity or "INFO")
            return {"issues": [dict(issue) for issue in self.issues.get(project.id, [])
                               if SEVERITIES.index(issue["level"]) >= least
                               and (category is None or category in issue["categories"])]}

    def set_issues(self, project_id, specs):
        """POST /_simulator/projects/{project_id}/advisors: the project's issues, replaced."""
        if not isinstance(specs, list):
            raise InvalidRequest("issues: must be a list")
        with self.shared.lock:
            if project_id not in self.shared.projects:
                raise NotFound("project not found")
            self.issues[project_id] = [_issue(project_id, spec, index) for index, spec in enumerate(specs)]
            return {"issues": [dict(issue) for issue in self.issues[project_id]]}
