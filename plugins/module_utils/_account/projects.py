# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading projects: the account's, an organization's, or those shared with the account.

Two behaviours of the live service (docs/docsite/rst/api-behaviour.rst) are handled here:

- With a personal key of a user who belongs to organizations, ``GET /projects`` can answer
  HTTP 400 "org_id is required". The organization is then taken when the user belongs to
  exactly one; with several, the task fails and names them. Never a guess.
- Any page may name projects the service could not fetch in time in
  ``unavailable_project_ids``. Those are asked for again (a bounded number of times); what
  stays unavailable is reported, so a list is never silently incomplete.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, TaskFailure
from ansible_collections.neon.cloud.plugins.module_utils._account.identity import describe_organizations, my_organizations
from ansible_collections.neon.cloud.plugins.module_utils._api.paging import PROJECTS_PAGE_MAX, collect

ORG_ID_REQUIRED = "org_id is required"
# Unavailable projects: how many rounds of asking again, and for how many ids at most (each
# id costs one request a round).
UNAVAILABLE_ROUNDS = 2
UNAVAILABLE_IDS_MAX = 50
# What a listing reads of each project (docs/docsite/rst/api-behaviour.rst); a project a task changes is read for
# more (_resources/projects.py, FULL_PROJECT_FIELDS).
PROJECT_FIELDS = dict(
    required={"id": (str,)},
    optional={"name": (str,), "region_id": (str,), "org_id": (str, type(None))},
)


class ProjectList:
    """Projects found, those the service could not fetch, the org_id used, warnings."""

    def __init__(self):
        self.projects = []
        self.unavailable = []
        self.org_id = None
        self.warnings = []


def needs_org_id(error):
    return error.status == 400 and ORG_ID_REQUIRED in (error.api_message or "").lower()


def counted_with_unavailable(page, path):
    """How many projects a page of a listing of ``path`` (``GET /projects``, ``/projects/shared``) counts against
    ``limit`` (paging.collect's ``page_count``): its items and the projects it names unavailable, as the service
    picks the page, then leaves out the projects it could not fetch, so a full page can hold fewer items."""
    return len(page.items) + len(answers.unavailable_ids(page.data, path))


class ProjectReader:
    """Lists projects with the filters of one task."""

    def __init__(self, client, project_id=None, name=None, region_id=None, org_id=None, shared=False,
                 org_id_fallback=True):
        self.client = client
        self.org_id_fallback = org_id_fallback
        self.project_id = project_id
        self.name = name
        self.region_id = region_id
        self.org_id = org_id
        self.path = "/projects/shared" if shared else "/projects"

    def keep(self, project):
        return ((self.project_id is None or project["id"] == self.project_id)
                and (self.name is None or project.get("name") == self.name)
                and (self.region_id is None or project.get("region_id") == self.region_id))

    def read(self):
        """A ProjectList of every project matching the filters, across all pages."""
        found = ProjectList()
        try:
            self._read(found)
        except NeonAPIError as error:
            if self.org_id is not None or not needs_org_id(error) or not self.org_id_fallback:
                raise
            organization = self._only_organization(error)
            self.org_id = organization["id"]
            found = ProjectList()
            found.warnings.append(
                "The service needs an org_id to list this key's projects (%s); the key's user belongs to one "
                "organization, %s, so its projects are listed. Set org_id to make this explicit." % (
                    error.api_message, describe_organizations([organization])))
            self._read(found)
        found.org_id = self.org_id
        return found

    def _read(self, found):
        """The pages of the list, then the projects they named unavailable, asked for again."""
        unavailable = []

        def note_unavailable(page):
            for project_id in answers.unavailable_ids(page.data, self.path):
                if project_id not in unavailable:
                    unavailable.append(project_id)

        # A name or id filter is also sent as ``search`` (a substring match on the service side)
        # so that large accounts answer fewer pages; the exact match is made here.
        search = self.project_id or self.name
        listed = collect(self.client, self.path, "projects", PROJECTS_PAGE_MAX,
                         params={"search": search, "org_id": self.org_id}, keep=self.keep,
                         max_results=1 if self.project_id else None, want_cursor=False,
                         item_fields=PROJECT_FIELDS, on_page=note_unavailable, page_count=self._page_count)
        found.projects = listed.items
        if self.project_id is not None and found.projects:
            return  # the one project asked for is here: the others do not matter
        if self.project_id is not None:
            unavailable = [project_id for project_id in unavailable if project_id == self.project_id]
        self._ask_again(found, unavailable)

    def _ask_again(self, found, unavailable):
        asked, left_over = unavailable[:UNAVAILABLE_IDS_MAX], unavailable[UNAVAILABLE_IDS_MAX:]
        have = set(project["id"] for project in found.projects)
        for _round in range(UNAVAILABLE_ROUNDS):
            still = []
            for project_id in asked:
                project = self._fetch_one(project_id)
                if project is None:
                    still.append(project_id)
                elif project["id"] not in have:
                    have.add(project["id"])
                    if self.keep(project):
                        found.projects.append(project)
            asked = still
            if not asked:
                break
        found.unavailable = asked + left_over
        if found.unavailable:
            found.warnings.append(
                "The service could not fetch %d project(s) in time, even when asked again: %s. The list is incomplete; "
                "they are returned in unavailable_project_ids." % (
                    len(found.unavailable), ", ".join(found.unavailable)))

    def _fetch_one(self, project_id):
        """The project ``project_id`` by itself (``search`` for its id), or None while unavailable."""
        listed = collect(self.client, self.path, "projects", PROJECTS_PAGE_MAX,
                         params={"search": project_id, "org_id": self.org_id},
                         keep=lambda project: project["id"] == project_id, max_results=1, want_cursor=False,
                         item_fields=PROJECT_FIELDS, page_count=self._page_count)
        return listed.items[0] if listed.items else None

    def _page_count(self, page):
        return counted_with_unavailable(page, self.path)

    def _only_organization(self, error):
        """The organization to use after "org_id is required": the user's only one."""
        try:
            organizations = my_organizations(self.client)
        except NeonAPIError as listing_error:
            raise TaskFailure("%s. Set org_id: listing the organizations of the key's user to find it failed too: "
                              "%s" % (error.describe(), listing_error.describe()), cause=listing_error,
                              error=error.to_dict())
        if len(organizations) == 1:
            return organizations[0]
        if not organizations:
            raise TaskFailure("%s. The key's user belongs to no organization (GET /users/me/organizations answered "
                              "none), so there is no org_id to choose; check which account the key belongs to." % (
                                  error.describe()), cause=error, error=error.to_dict())
        raise TaskFailure("%s. The key's user belongs to %d organizations; set org_id to one of them: %s" % (
            error.describe(), len(organizations), describe_organizations(organizations)),
            cause=error, error=error.to_dict(), organizations=organizations)
