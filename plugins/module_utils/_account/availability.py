# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the account may use (docs/docsite/rst/api-behaviour.rst, "Regions and preload libraries"): the regions
(``GET /regions``, with ``org_id`` the organization's: "not all regions are available to all organizations") and
the shared preload libraries a project's Postgres version offers (``GET /projects/{id}/available_preload_libraries``:
only of a project that exists). Each answer checked before use; the sentences that name what exists are here too.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path

REGIONS_PATH = "/regions"
# SPEC getActiveRegions: region_id, name, default, geo_lat, geo_long required; only what is used is checked.
REGION_FIELDS = dict(required={"region_id": (str,)}, optional={"name": (str,), "default": (bool,)})
# SPEC getAvailablePreloadLibraries: library_name, description, is_default, is_experimental, version required.
LIBRARY_FIELDS = dict(required={"library_name": (str,)}, optional={"is_default": (bool,), "is_experimental": (bool,)})


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


def region_problem(region_id, regions, org_id=None):
    """Why ``region_id`` cannot be asked for among ``regions`` (those listed), naming those there are; or None."""
    if region_id is None or any(region["region_id"] == region_id for region in regions):
        return None
    names = ", ".join(region["region_id"] for region in regions) or "none"
    whose = "organization %s" % org_id if org_id else "this account"
    return "region_id %r is not a region %s may use; the service lists: %s" % (region_id, whose, names)


def libraries_problem(wanted, libraries, project_id):
    """Why ``wanted`` (library names) cannot be enabled among ``libraries`` (those offered), naming those there are;
    or None."""
    offered = [library["library_name"] for library in libraries]
    unknown = [name for name in wanted if name not in offered]
    if not unknown:
        return None
    return "settings.preload_libraries.enabled_libraries: %s %s not offered for project %s; the service offers: %s" % (
        ", ".join(repr(name) for name in unknown), "is" if len(unknown) == 1 else "are", project_id,
        ", ".join(offered) or "none")
