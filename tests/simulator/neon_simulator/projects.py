# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Project listings (``GET /projects``, ``GET /projects/shared``, the projects left out as unavailable) and the
control API's making of projects. What the API does to one project (create, update, delete) is in provisioning.py."""

from __future__ import annotations

import random

from . import access, ids, seed
from .errors import InvalidRequest, NotFound
from .shared import optional_string

BULK_PROJECTS_MAX = 20000
ID_RE = ids.ID_RE


class Projects:
    """The projects area of State (see the module's text)."""

    def __init__(self, shared):
        self.shared = shared  # the data and helpers every area uses (shared.py)

    def _take_unavailable(self, page):
        """Split a page into (available, unavailable ids), spending one answer of each unavailable one."""
        available, missing = [], []
        for project in page:
            if project.id not in self.shared.unavailable:
                available.append(project)
                continue
            missing.append(project.id)
            left = self.shared.unavailable[project.id]
            if left is not None:
                if left <= 1:
                    del self.shared.unavailable[project.id]
                else:
                    self.shared.unavailable[project.id] = left - 1
        return available, missing

    def _list(self, selected, limit, cursor, search):
        """(projects, cursor, unavailable ids): one page of the projects ``selected`` lets through.

        The page is chosen first (``limit`` projects after ``cursor``); projects marked unavailable
        are then left out of ``projects`` and named in ``unavailable_project_ids``, as the live
        service does when fetching their details runs out of time. The cursor is the page's last
        project id either way, so the next page starts after the whole page.
        """
        candidates = [p for p in self.shared.project_order if selected(p)]
        if cursor:
            position = next((i for i, p in enumerate(candidates) if p.id == cursor), None)
            if position is None:
                raise InvalidRequest("cursor: unknown project id %r" % cursor)
            candidates = candidates[position + 1:]
        if search:
            needle = search.lower()
            candidates = [p for p in candidates if needle in p.name.lower() or needle in p.id.lower()]
        page = candidates[:limit]
        available, missing = self._take_unavailable(page)
        return [p.render() for p in available], (page[-1].id if page else cursor), missing

    def list_projects(self, limit, cursor=None, search=None, org_id=None, key=None):
        """GET /projects for ``key`` (default: the bootstrap key): (projects, cursor, unavailable ids)."""
        with self.shared.lock:
            key = key or self.shared.bootstrap_key()
            return self._list(access.project_listing(self.shared, key, org_id), limit, cursor, search)

    def list_shared_projects(self, key, limit, cursor=None, search=None):
        """GET /projects/shared: (projects, cursor, unavailable ids)."""
        with self.shared.lock:
            return self._list(access.shared_listing(key), limit, cursor, search)

    def get_project(self, project_id):
        with self.shared.lock:
            project = self.shared.projects.get(project_id)
            if project is None:
                raise NotFound("project not found")
            return project.render()

    def create_projects(self, spec):
        """Many projects at once (control API): ``{"count": N, "name_prefix", "org_id", "owner", "region_id",
        "pg_version"}``; answers ``{"count": N, "first_id", "last_id"}``. For large inventories in tests and
        the benchmark; each project is made as ``create_project`` makes one."""
        spec = dict(spec)
        count = spec.pop("count", None)
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= BULK_PROJECTS_MAX:
            raise InvalidRequest("count: must be an integer from 1 to %d" % BULK_PROJECTS_MAX)
        prefix = optional_string(spec, "name_prefix") or "bulk"
        spec.pop("name_prefix", None)
        if "name" in spec or "id" in spec:
            raise InvalidRequest("name and id are made per project: use name_prefix")
        made = [self.create_project(dict(spec, name="%s-%d" % (prefix, number))) for number in range(1, count + 1)]
        return {"count": len(made), "first_id": made[0]["id"], "last_id": made[-1]["id"]}

    def create_project(self, spec):
        """Create a project (control API); answers the project object.

        ``org_id``: a project of that organization (owner: ``owner``, else its first admin);
        otherwise a personal project of ``owner`` (a user id or "bootstrap", the default).
        """
        name = optional_string(spec, "name")
        region_id = optional_string(spec, "region_id") or "aws-us-east-2"
        if region_id not in seed.REGIONS:
            raise InvalidRequest("region_id: unknown region, one of %s" % ", ".join(seed.REGIONS))
        pg_version = spec.get("pg_version", 17)
        if pg_version not in (14, 15, 16, 17, 18):
            raise InvalidRequest("pg_version: must be one of 14, 15, 16, 17, 18")
        wanted_id = optional_string(spec, "id")
        if wanted_id is not None and not ID_RE.match(wanted_id):
            raise InvalidRequest("id: must match ^[a-z0-9-]{1,60}$")
        org_id = optional_string(spec, "org_id")
        rng = random.SystemRandom()
        with self.shared.lock:
            owner = self.shared.find_user(spec.get("owner", "bootstrap"), "owner")
            if org_id is not None:
                org = self.shared.find_organization(org_id)
                if "owner" not in spec and org.admins():
                    owner = self.shared.users[org.admins()[0]]
            if wanted_id and wanted_id in self.shared.projects:
                raise InvalidRequest("id: project %s already exists" % wanted_id)
            project = self.shared.add_project(rng, name, region_id, pg_version, org_id, owner.id, wanted_id)
            return project.render()
