# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What each kind of API key may reach, and how the service refuses the rest.

The rules (tests/simulator/README.md, "Organizations and key kinds"):

- personal key: its user's personal projects, every project of the organizations the user
  belongs to (GET /projects lists those only with ``org_id``), the projects other accounts
  shared with the user, the user's own personal keys; in an organization, what the user's role
  allows (admins manage every key, members create and revoke project-scoped keys of their own).
- organization key: every project of its organization and that organization's keys, with admin
  rights; nothing of a user (``/api_keys``, ``/users/me/...``).
- project-scoped key: its one project, with member rights; no organization-level action and no
  key management. It stops working (401) once its project has left the organization.

Every function here is called with the state's lock held and reads the state only: ``state`` is the data the areas
share (shared.Shared).
"""

from __future__ import annotations

from .errors import Forbidden, InvalidRequest, NotFound
from .records import ORGANIZATION_KEY, PERSONAL_KEY, PROJECT_KEY

MESSAGE_ORG_KEY = "not allowed for organization API keys"
MESSAGE_PROJECT_KEY = "not allowed for project-scoped API keys"
MESSAGE_OTHER_PROJECT = "not allowed: the API key is scoped to another project"
MESSAGE_OTHER_ORG = "access denied: the API key belongs to another organization"
MESSAGE_NOT_MEMBER = "access denied: you are not a member of organization %s"
MESSAGE_ORG_ID_REQUIRED = "org_id is required"
MESSAGE_ADMIN_CREATE = ("only organization admins can create organization API keys; "
                        "members can create keys scoped to one project (project_id)")
MESSAGE_ADMIN_REVOKE = "only organization admins can revoke API keys created by others"

AUTH_METHODS = {PERSONAL_KEY: "api_key_user", ORGANIZATION_KEY: "api_key_org", PROJECT_KEY: "api_key_org"}


def key_is_usable(state, key):
    """False for a project-scoped key whose project is gone or has left the key's organization."""
    if key.kind != PROJECT_KEY:
        return True
    project = state.projects.get(key.project_id)
    return project is not None and project.org_id == key.org_id


def require_personal_key(key):
    """Routes of a user's own account (/api_keys, /users/me/...): a personal key only."""
    if key.kind == PROJECT_KEY:
        raise Forbidden(MESSAGE_PROJECT_KEY)
    if key.kind == ORGANIZATION_KEY:
        raise Forbidden(MESSAGE_ORG_KEY)


def organization_role(state, key, org_id):
    """The key's role in ``org_id`` ("admin" or "member"), or Forbidden.

    An organization key acts as an admin of its own organization. A project-scoped key has
    no organization-level rights at all.
    """
    if key.kind == PROJECT_KEY:
        raise Forbidden(MESSAGE_PROJECT_KEY)
    if key.kind == ORGANIZATION_KEY:
        if key.org_id != org_id:
            raise Forbidden(MESSAGE_OTHER_ORG)
        return "admin"
    org = state.organizations.get(org_id)
    role = org.role_of(key.owner_id) if org is not None else None
    if role is None:
        # the same answer for an organization that does not exist: a key learns nothing about others
        raise Forbidden(MESSAGE_NOT_MEMBER % org_id)
    return role


def user_organizations(state, user_id):
    return [org for org in state.organizations.values() if org.role_of(user_id) is not None]


def check_project(state, key, project_id, not_found="project not found"):
    """The project, if the key may reach it: 404 (personal, organization key) or 403 (project key)."""
    project = state.projects.get(project_id)
    if key.kind == PROJECT_KEY:
        if project is None or project.id != key.project_id:
            raise Forbidden(MESSAGE_OTHER_PROJECT)
        return project
    if project is None:
        raise NotFound(not_found)
    if key.kind == ORGANIZATION_KEY:
        reachable = project.org_id == key.org_id
    else:
        user_id = key.owner_id
        if project.org_id is None:
            reachable = project.owner_id == user_id or user_id in project.shared_with
        else:
            org = state.organizations.get(project.org_id)
            reachable = (org is not None and org.role_of(user_id) is not None) or user_id in project.shared_with
    if not reachable:
        raise NotFound(not_found)  # as for an unknown project: the key learns nothing
    return project


def org_id_required(state, user):
    """Whether GET /projects without org_id answers 400 for this user (see README)."""
    if user.org_id_required in (True, False):
        return user.org_id_required
    if not user_organizations(state, user.id):
        return False
    return not any(p.org_id is None and p.owner_id == user.id for p in state.projects.values())


def project_listing(state, key, org_id):
    """The test selecting what GET /projects lists for this key and ``org_id``, or the refusal."""
    if key.kind in (ORGANIZATION_KEY, PROJECT_KEY):
        if org_id is not None and org_id != key.org_id:
            raise Forbidden(MESSAGE_OTHER_ORG)
        if key.kind == PROJECT_KEY:
            return lambda project: project.id == key.project_id and project.org_id == key.org_id
        return lambda project: project.org_id == key.org_id
    if org_id is not None:
        organization_role(state, key, org_id)
        return lambda project: project.org_id == org_id
    user = state.users[key.owner_id]
    if org_id_required(state, user):
        raise InvalidRequest(MESSAGE_ORG_ID_REQUIRED)
    return lambda project: project.org_id is None and project.owner_id == user.id


def shared_listing(key):
    """What GET /projects/shared lists: projects shared with the key's user (none for org keys)."""
    if key.kind != PERSONAL_KEY:
        return lambda project: False
    user_id = key.owner_id
    return lambda project: user_id in project.shared_with


def check_org_key_create(state, key, org_id, project_id):
    role = organization_role(state, key, org_id)
    if project_id is None and role != "admin":
        raise Forbidden(MESSAGE_ADMIN_CREATE)


def check_org_key_revoke(state, key, org_id, target):
    role = organization_role(state, key, org_id)
    if role != "admin" and (target.project_id is None or target.owner_id != key.owner_id):
        raise Forbidden(MESSAGE_ADMIN_REVOKE)


def auth_details(key):
    """GET /auth: the account is the user for a personal key, the organization for the others."""
    return {
        "account_id": key.owner_id if key.kind == PERSONAL_KEY else key.org_id,
        "auth_method": AUTH_METHODS[key.kind],
        # what the live service puts here for API keys is not documented; the key's id as text
        "auth_data": str(key.id),
    }
