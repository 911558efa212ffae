# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading the account's projects."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._paging import PROJECTS_PAGE_MAX, collect


def list_projects(client, project_id=None, name=None, region_id=None):
    """Every project matching the filters, across all pages.

    The live list answers 10 projects a page unless asked for more, so this asks for the
    largest page (400). A name or id filter is also sent as ``search`` (a substring match on
    the service side) so that large accounts answer fewer pages; the exact match is made here.
    """
    def keep(project):
        return ((project_id is None or project.get("id") == project_id)
                and (name is None or project.get("name") == name)
                and (region_id is None or project.get("region_id") == region_id))

    search = project_id or name
    result = collect(client, "/projects", "projects", PROJECTS_PAGE_MAX,
                     params={"search": search} if search else None,
                     keep=keep, max_results=1 if project_id else None, want_cursor=False)
    return result.items
