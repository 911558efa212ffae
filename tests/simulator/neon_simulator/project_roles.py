# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Project members' roles (August 2026; in no document the simulator is judged by): ``GET
/projects/{project_id}/members`` (listProjectMembers), ``PUT`` and ``DELETE
/projects/{project_id}/members/{member_id}/role`` (setProjectMemberRole, removeProjectMemberRole).

Their shapes are those of the client generated from Neon's published document of 2026-08-20
(kenchan0130/terraform-provider-neon, internal/neon/oas_schemas_gen.go and oas_parameters_gen.go at a0862ab;
docs/docsite/rst/api-behaviour.rst, "Project members' roles"):

- the list: ``{"project_members": [ProjectMember], "pagination": {"next"}}``, query ``limit`` (1-500) and
  ``cursor``; a ProjectMember is ``member_id``, ``user_id`` (UUIDs), ``org_role`` (required), ``email``, ``name``,
  ``project_role`` (viewer, editor, admin), ``org_default_project_permission``, ``explicit_project_permission``,
  ``effective_project_permission`` (VIEWER, EDITOR, ADMIN) and ``grant_source`` (explicit, org_role_default,
  org_admin_override, unassigned);
- PUT ``{"role": "viewer" | "editor" | "admin"}``, query ``confirm_self_demotion``; DELETE, query
  ``confirm_self_lockout``: 200 with a ProjectMemberRoleResponse (``project_id`` added, ``grant_source`` left out,
  ``credential_rotation_recommended`` and ``org_api_key_rotation_recommended`` hints).

The generated client's text says: the list is of an organization's project only (404 for a personal project, or a
caller without access); callers with VIEWER or EDITOR see the members with access, ADMIN ones also the unassigned;
PUT and DELETE are idempotent; DELETE leaves the organization role's default; lowering one's own access needs the
confirmation.

CHOICES (the rest):

- The default of an organization role (DEFAULT_PERMISSION): admin ADMIN (and nothing lowers it: org_admin_override),
  member and editor EDITOR, viewer VIEWER, collaborator none (unassigned). An explicit grant replaces the default, up
  or down.
- The caller's own permission: an organization key's is ADMIN; a personal key's is its user's effective one (no
  member of the organization: 404); a project-scoped key's is its creator's. Setting or removing a role needs ADMIN
  (403); a member id of no member of the project's organization is 404, one that is no UUID 400.
- Lowering the caller's own effective permission without the confirmation: 409. Any lowering answers the two
  rotation hints true.
- A page holds ``limit`` members (default 100) in the organization's order; ``pagination.next`` (the last member's
  id) is there while more follow. Grants belong to the project in its organization: once it moves (transfers.py)
  they no longer apply.
"""

from __future__ import annotations

import re

from . import access
from .errors import Conflict, Forbidden, InvalidRequest, NotFound
from .records import ORGANIZATION_KEY

LEVELS = ("VIEWER", "EDITOR", "ADMIN")
ROLE_OF_LEVEL = {"VIEWER": "viewer", "EDITOR": "editor", "ADMIN": "admin"}
DEFAULT_PERMISSION = {"admin": "ADMIN", "member": "EDITOR", "editor": "EDITOR", "viewer": "VIEWER",
                      "collaborator": None}
PAGE_DEFAULT = 100
PAGE_MAX = 500
UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
MESSAGE_NOT_ORG = "project not found, not owned by an organization, or not reachable with per-project roles"
MESSAGE_ADMIN = "only a project admin can change project roles"
MESSAGE_MEMBER = "member not found"
MESSAGE_SELF_DEMOTION = "lowering your own project access requires confirm_self_demotion=true"
MESSAGE_SELF_LOCKOUT = "removing your own project role would remove your manage access: requires confirm_self_lockout=true"


def _rank(level):
    return LEVELS.index(level) if level in LEVELS else -1


def _true(value):
    return (value or "").lower() == "true"


class ProjectRoles:
    """The project roles area of State (see the module's text)."""

    def __init__(self, shared, sharing):
        self.shared = shared
        self.sharing = sharing  # sharing.py: the organization members' ids

    def reset(self):
        """Back to the seeded state (called by State.reset, with the lock held)."""
        self.grants = {}  # (project id, org id) -> {user id: level}

    # ------------------------------------------------------------------ helpers (lock held)
    def _levels(self, project, org, user_id):
        """(org default, explicit, effective) of a member on the project."""
        default = DEFAULT_PERMISSION.get(org.members[user_id])
        explicit = self.grants.get((project.id, org.id), {}).get(user_id)
        if org.members[user_id] == "admin":
            return default, explicit, "ADMIN"
        return default, explicit, explicit or default

    def _member(self, project, org, user_id):
        default, explicit, effective = self._levels(project, org, user_id)
        user = self.shared.users[user_id]
        if org.members[user_id] == "admin":
            source = "org_admin_override"
        elif explicit:
            source = "explicit"
        else:
            source = "org_role_default" if default else "unassigned"
        return {"member_id": self.sharing.member_id(org, user_id), "user_id": user_id, "email": user.email,
                "name": user.name, "org_role": org.members[user_id], "project_role": ROLE_OF_LEVEL.get(effective),
                "org_default_project_permission": default, "explicit_project_permission": explicit,
                "effective_project_permission": effective, "grant_source": source}

    def _context(self, key, project_id):
        """(project, organization, the caller's effective level, the caller's user id or None)."""
        project = access.check_project(self.shared, key, project_id)
        org = self.shared.organizations.get(project.org_id) if project.org_id else None
        if org is None:
            raise NotFound(MESSAGE_NOT_ORG)
        if key.kind == ORGANIZATION_KEY:
            return project, org, "ADMIN", None
        user_id = key.owner_id
        if org.role_of(user_id) is None:
            raise NotFound(MESSAGE_NOT_ORG)
        return project, org, self._levels(project, org, user_id)[2], user_id

    def _target(self, org, member_id):
        if not UUID_RE.match(member_id):
            raise InvalidRequest("member_id: must be a UUID")
        for user_id in org.members:
            if self.sharing.member_id(org, user_id) == member_id:
                return user_id
        raise NotFound(MESSAGE_MEMBER)

    def _answer(self, project, org, user_id, before):
        item = self._member(project, org, user_id)
        del item["grant_source"]
        lowered = _rank(item["effective_project_permission"]) < _rank(before)
        return dict(item, project_id=project.id, credential_rotation_recommended=lowered,
                    org_api_key_rotation_recommended=lowered)

    # ------------------------------------------------------------------ the API
    def api_list_members(self, key, project_id, limit=None, cursor=None):
        """GET /projects/{project_id}/members."""
        if limit is None:
            limit = PAGE_DEFAULT
        else:
            try:
                limit = int(limit)
            except ValueError:
                raise InvalidRequest("limit: must be an integer") from None
            if not 1 <= limit <= PAGE_MAX:
                raise InvalidRequest("limit: must be between 1 and %d" % PAGE_MAX)
        with self.shared.lock:
            project, org, caller, _user_id = self._context(key, project_id)
            members = [self._member(project, org, user_id) for user_id in org.members]
            if caller != "ADMIN":
                members = [member for member in members if member["effective_project_permission"]]
            if cursor:
                at = [index for index, member in enumerate(members) if member["member_id"] == cursor]
                if not at:
                    raise InvalidRequest("cursor: unknown")
                members = members[at[0] + 1:]
            page = members[:limit]
            answer = {"project_members": page}
            if len(members) > limit:
                answer["pagination"] = {"next": page[-1]["member_id"]}
            return answer

    def api_set_role(self, key, project_id, member_id, body, confirm=None):
        """PUT /projects/{project_id}/members/{member_id}/role ``{"role"}``."""
        role = body.get("role")
        if role not in ROLE_OF_LEVEL.values():
            raise InvalidRequest("role: must be one of viewer, editor, admin")
        with self.shared.lock:
            project, org, caller, caller_id = self._context(key, project_id)
            if caller != "ADMIN":
                raise Forbidden(MESSAGE_ADMIN)
            user_id = self._target(org, member_id)
            before = self._levels(project, org, user_id)[2]
            level = role.upper()
            if user_id == caller_id and org.members[user_id] != "admin" and _rank(level) < _rank(before) \
                    and not _true(confirm):
                raise Conflict(MESSAGE_SELF_DEMOTION)
            self.grants.setdefault((project.id, org.id), {})[user_id] = level
            return self._answer(project, org, user_id, before)

    def api_remove_role(self, key, project_id, member_id, confirm=None):
        """DELETE /projects/{project_id}/members/{member_id}/role: the member as the default leaves them."""
        with self.shared.lock:
            project, org, caller, caller_id = self._context(key, project_id)
            if caller != "ADMIN":
                raise Forbidden(MESSAGE_ADMIN)
            user_id = self._target(org, member_id)
            default, _explicit, before = self._levels(project, org, user_id)
            after = "ADMIN" if org.members[user_id] == "admin" else default
            if user_id == caller_id and before == "ADMIN" and after != "ADMIN" and not _true(confirm):
                raise Conflict(MESSAGE_SELF_LOCKOUT)
            self.grants.get((project.id, org.id), {}).pop(user_id, None)
            return self._answer(project, org, user_id, before)
