# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the account may use (docs/docsite/rst/api-behaviour.rst, "Regions and preload libraries"): the regions
(``GET /regions``, with ``org_id`` the organization's: "not all regions are available to all organizations") and
the shared preload libraries a Postgres version offers (``GET /projects/{id}/available_preload_libraries``: "the
shared preload libraries available for the specified project's Postgres version", so before a create any project of
the version asked, found with ``GET /projects``, tells them). Each answer checked before use; the sentences that
name what exists are here too.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.paging import PROJECTS_PAGE_MAX, collect

REGIONS_PATH = "/regions"
# SPEC getActiveRegions: region_id, name, default, geo_lat, geo_long required; only what is used is checked.
REGION_FIELDS = dict(required={"region_id": (str,)}, optional={"name": (str,), "default": (bool,)})
# SPEC getAvailablePreloadLibraries: library_name, description, is_default, is_experimental, version required.
LIBRARY_FIELDS = dict(required={"library_name": (str,)}, optional={"is_default": (bool,), "is_experimental": (bool,)})
PROJECTS_PATH = "/projects"
# SPEC PgVersion: "default: 17", the version of a project created without pg_version.
DEFAULT_PG_VERSION = 17
# SPEC ProjectListItem: id and pg_version required; what the search for a project of a version reads of each.
VERSION_FIELDS = dict(required={"id": (str,), "pg_version": (int,)}, optional={"name": (str,)})


def available_regions(client, org_id=None):
    """The regions the key's account (``org_id``'s, when given) may make projects in: one request."""
    params = {"org_id": org_id} if org_id else None
    return answers.items_of(client.get(REGIONS_PATH, params=params), "GET", REGIONS_PATH, "regions", REGION_FIELDS)


def available_libraries(client, project_id):
    """The shared preload libraries the project's Postgres version offers: one request. ``libraries`` is optional in
    the document: an answer without it offers none."""
    path = project_path(project_id, "available_preload_libraries")
    data = client.get(path)
    answers.Checker("GET", path).object(data)
    if data.get("libraries") is None:
        return []
    return answers.items_of(data, "GET", path, "libraries", LIBRARY_FIELDS)


def runs_version(pg_version):
    """The ``keep`` of a listing that looks for a project running Postgres ``pg_version`` (items checked first)."""
    return lambda project: project["pg_version"] == pg_version


def _counted(page):
    """A page of ``GET /projects`` counts the projects it could not fetch against ``limit`` too (paging.py)."""
    return len(page.items) + len(answers.unavailable_ids(page.data, PROJECTS_PATH))


def project_of_version(client, pg_version, org_id=None):
    """The first project the key sees (in organization ``org_id`` when given) that runs Postgres ``pg_version``, or
    None: ``GET /projects`` in pages of 400, read only until one is found (one request when the first page has one;
    at most every page, bounded as every listing is, paging.collect)."""
    listed = collect(client, PROJECTS_PATH, "projects", PROJECTS_PAGE_MAX, params={"org_id": org_id},
                     keep=runs_version(pg_version), max_results=1, want_cursor=False, item_fields=VERSION_FIELDS,
                     page_count=_counted)
    return listed.items[0] if listed.items else None


def libraries_at_create(client, wanted, pg_version, org_id=None):
    """Whether a new project of Postgres ``pg_version`` (in organization ``org_id`` when given) may enable ``wanted``
    (library names): (problem, warning), each a sentence or None. The libraries are those a project of that version
    the key sees lists (project_of_version, then one request); when it sees none, nothing can be checked and the
    warning says so (the create is sent as asked: the service decides)."""
    project = project_of_version(client, pg_version, org_id)
    if project is None:
        whose = "organization %s" % org_id if org_id else "this account"
        return None, ("settings.preload_libraries.enabled_libraries (%s) could not be checked before the create: the "
                      "service lists the libraries a Postgres version offers only for a project of that version, and "
                      "no project of %s this key sees runs Postgres %d; they are sent as asked, and the service "
                      "decides." % (", ".join(wanted), whose, pg_version))
    return libraries_problem(wanted, available_libraries(client, project["id"]), project["id"], pg_version), None


def region_problem(region_id, regions, org_id=None):
    """Why ``region_id`` cannot be asked for among ``regions`` (those listed), naming those there are; or None."""
    if region_id is None or any(region["region_id"] == region_id for region in regions):
        return None
    names = ", ".join(region["region_id"] for region in regions) or "none"
    whose = "organization %s" % org_id if org_id else "this account"
    return "region_id %r is not a region %s may use; the service lists: %s" % (region_id, whose, names)


def libraries_problem(wanted, libraries, project_id, pg_version=None):
    """Why ``wanted`` (library names) cannot be enabled among ``libraries`` (those offered), naming those there are;
    or None. Without ``pg_version``, for project ``project_id`` itself; with it, for a new project of that version,
    ``libraries`` being those project ``project_id`` (of the same version) lists."""
    offered = [library["library_name"] for library in libraries]
    unknown = [name for name in wanted if name not in offered]
    if not unknown:
        return None
    named = "%s %s" % (", ".join(repr(name) for name in unknown), "is" if len(unknown) == 1 else "are")
    names = ", ".join(offered) or "none"
    if pg_version is None:
        return "settings.preload_libraries.enabled_libraries: %s not offered for project %s; the service offers: " \
            "%s" % (named, project_id, names)
    return "settings.preload_libraries.enabled_libraries: %s not offered for Postgres %d; the service offers: %s " \
        "(what Postgres %d offers, as project %s lists them)" % (named, pg_version, names, pg_version, project_id)
