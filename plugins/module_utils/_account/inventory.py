# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every project a key reaches, for the inventory plugin neon.cloud.projects.

What a key reaches (docs/docsite/rst/key-types.rst, docs/docsite/rst/api-behaviour.rst):

- A personal key: the user's personal projects and the projects of every organization the user
  belongs to. ``GET /projects`` lists the personal ones, ``GET /projects?org_id=`` each
  organization's; when the service answers the first with "org_id is required", the user has no
  personal list to read and only the organizations' are listed: never a failure.
- An organization key: that organization's projects; a project-scoped key: its one project. For
  both ``GET /projects`` lists exactly that.

Cost: ``GET /auth`` and, for a personal key, ``GET /users/me/organizations`` - at most two
requests to learn what the key reaches - then the pages of each source (400 projects a page, the
service's maximum), and one request per project the service could not fetch in time, asked again
as projects_info does.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError
from ansible_collections.neon.cloud.plugins.module_utils._account.identity import my_organizations, who_am_i
from ansible_collections.neon.cloud.plugins.module_utils._account.projects import ProjectReader, needs_org_id


class Reach:
    """The projects found (each a dict of its listed fields) and those that stayed unavailable."""

    def __init__(self):
        self.projects = []        # (project, shared) in listing order, each project once
        self.unavailable = []     # ids
        self.sources = []         # what was listed: "personal", "organization org-...", "shared"

    def add(self, listed, shared=False):
        seen = dict((project["id"], index) for index, (project, _shared) in enumerate(self.projects))
        for project in listed.projects:
            if project["id"] in seen:
                if shared:
                    index = seen[project["id"]]
                    self.projects[index] = (self.projects[index][0], True)
                continue
            seen[project["id"]] = len(self.projects)
            self.projects.append((project, shared))
        for project_id in listed.unavailable:
            if project_id not in self.unavailable and project_id not in seen:
                self.unavailable.append(project_id)
        # a project one source could not fetch but another listed is a full host, not an unavailable one
        self.unavailable = [project_id for project_id in self.unavailable if project_id not in seen]


def reachable_projects(client, org_ids=None, shared=False):
    """A Reach of every project the key reaches (only those of ``org_ids`` when given), plus the
    projects shared with the account when ``shared``."""
    reach = Reach()
    identity = who_am_i(client)
    personal = identity.get("key_type") == "personal"
    if org_ids:
        sources = [("organization %s" % org_id, org_id) for org_id in org_ids]
    elif personal:
        sources = [("personal", None)] + [("organization %s" % org["id"], org["id"])
                                          for org in my_organizations(client)]
    else:
        sources = [("the key's projects", None)]
    for label, org_id in sources:
        reader = ProjectReader(client, org_id=org_id, org_id_fallback=False)
        try:
            listed = reader.read()
        except NeonAPIError as error:
            if org_id is None and personal and needs_org_id(error):
                continue  # the service lists this user's projects by organization only; those follow
            raise
        reach.sources.append(label)
        reach.add(listed)
    if shared:
        reach.add(ProjectReader(client, shared=True).read(), shared=True)
        reach.sources.append("shared")
    return reach
