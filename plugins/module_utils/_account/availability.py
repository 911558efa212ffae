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

from ansible_collections.neon.cloud.plugins.module_utils._account.projects import counted_with_unavailable
from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError
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
VERSION_FIELDS = dict(required={"id": (str,), "pg_version": (int,)}, optional={"name": (str,), "region_id": (str,)})
# What a project's list of libraries may answer when that project is no longer readable to this task: it was deleted
# meanwhile, it is another's (a key's reach changed), or it is locked by its operations.
UNREADABLE = (403, 404, 423)


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


def runs_version(pg_version, region_id=None):
    """The ``keep`` of a listing that looks for a project running Postgres ``pg_version`` (in region ``region_id`` when
    given; items checked first)."""
    return lambda project: project["pg_version"] == pg_version and region_id in (None, project.get("region_id"))


def project_of_version(client, pg_version, org_id=None, region_id=None):
    """The first project the key sees (in organization ``org_id`` and region ``region_id`` when given) that runs
    Postgres ``pg_version``, or None: ``GET /projects`` in pages of 400, read only until one is found (one request
    when the first page has one; at worst every page, ceil(N/400) for the N projects listed, bounded as every
    listing is, paging.collect)."""
    listed = collect(client, PROJECTS_PATH, "projects", PROJECTS_PAGE_MAX, params={"org_id": org_id},
                     keep=runs_version(pg_version, region_id), max_results=1, want_cursor=False,
                     item_fields=VERSION_FIELDS, page_count=lambda page: counted_with_unavailable(page, PROJECTS_PATH))
    return listed.items[0] if listed.items else None


def libraries_at_create(client, wanted, pg_version, org_id=None, region_id=None):
    """Whether a new project of Postgres ``pg_version`` (None: not given, the document's default) in organization
    ``org_id`` and region ``region_id`` (each when given) may enable ``wanted`` (library names): (problem, warning),
    each a sentence or None. The libraries are those a project of that version (and region) the key sees lists
    (project_of_version, then one request). When it sees none, or that project's list cannot be read (deleted
    meanwhile, another run's, locked: 403, 404, 423), nothing is refused: the warning says the libraries were not
    checked, and the service decides when the project is created."""
    version = DEFAULT_PG_VERSION if pg_version is None else pg_version
    project = project_of_version(client, version, org_id, region_id)
    unchecked = "settings.preload_libraries.enabled_libraries (%s) could not be checked before the create: " % (
        ", ".join(wanted))
    decides = "; they are not refused here, and the service decides when the project is created."
    if project is None:
        whose = "organization %s" % org_id if org_id else "this account"
        where = " in region %s" % region_id if region_id else ""
        return None, (unchecked + "the service lists the libraries a Postgres version offers only for a project of "
                      "that version, and no project of %s%s this key sees runs Postgres %d" % (whose, where, version)
                      + decides)
    try:
        libraries = available_libraries(client, project["id"])
    except NeonAPIError as error:
        if error.status not in UNREADABLE:
            raise
        return None, (unchecked + "the libraries of project %s (Postgres %d) could not be read: %s" % (
            project["id"], version, error) + decides)
    return libraries_problem(wanted, libraries, project["id"], version, version_given=pg_version is not None), None


def region_problem(region_id, regions, org_id=None):
    """Why ``region_id`` cannot be asked for among ``regions`` (those listed), naming those there are; or None."""
    if region_id is None or any(region["region_id"] == region_id for region in regions):
        return None
    names = ", ".join(region["region_id"] for region in regions) or "none"
    whose = "organization %s" % org_id if org_id else "this account"
    return "region_id %r is not a region %s may use; the service lists: %s" % (region_id, whose, names)


def libraries_problem(wanted, libraries, project_id, pg_version=None, version_given=True):
    """Why ``wanted`` (library names) cannot be enabled among ``libraries`` (those offered), naming those there are;
    or None. Without ``pg_version``, for project ``project_id`` itself; with it, for a new project of that version,
    ``libraries`` being those project ``project_id`` (of the same version) lists; ``version_given`` False: the version
    is the default one of a create without ``pg_version``, which the message says."""
    offered = [library["library_name"] for library in libraries]
    unknown = [name for name in wanted if name not in offered]
    if not unknown:
        return None
    named = "%s %s" % (", ".join(repr(name) for name in unknown), "is" if len(unknown) == 1 else "are")
    names = ", ".join(offered) or "none"
    if pg_version is None:
        return "settings.preload_libraries.enabled_libraries: %s not offered for project %s; the service offers: " \
            "%s" % (named, project_id, names)
    default = "" if version_given else " (pg_version is not given: the service's default version)"
    source = "what Postgres %d offers, as project %s lists them" % (pg_version, project_id)
    return "settings.preload_libraries.enabled_libraries: %s not offered for Postgres %d%s; the service offers: %s " \
        "(%s)" % (named, pg_version, default, names, source)
