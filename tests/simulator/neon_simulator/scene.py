# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Setting a scene through the control API: users, organizations, keys of each kind, shared
projects, projects moved between owners, projects the listings leave out.

The area's object is state.scene: it gets the shared data (shared.py) and the projects area, whose
create_project it uses.
"""

from __future__ import annotations

import random

from . import ids
from .errors import InvalidRequest, NotFound
from .records import KEY_KINDS, ORGANIZATION_KEY, PERSONAL_KEY, PROJECT_KEY, ROLES, Organization, User, slug
from .shared import BOOTSTRAP_ALIAS

UNAVAILABLE_ANSWERS_MAX = 100000


def _list_of_strings(spec, name):
    value = spec.get(name, [])
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise InvalidRequest("%s: must be a list of non-empty strings" % name)
    return value


def _name(spec, default):
    value = spec.get("name")
    if value is None:
        return default
    if not isinstance(value, str) or not value.strip() or len(value) > 64:
        raise InvalidRequest("name: must be a non-empty string of at most 64 characters")
    return value


def _spec(spec):
    if spec is None:
        return {}
    if not isinstance(spec, dict):
        raise InvalidRequest("request body: must be a JSON object")
    return spec


class Scene:
    """Control-API methods of State; each takes a JSON-like spec and answers JSON-like data."""

    def __init__(self, shared, projects):
        self.shared = shared  # the data and helpers every area uses (shared.py)
        self.projects = projects  # projects.py: create_project

    # ------------------------------------------------------------------ users
    def list_users(self):
        with self.shared.lock:
            return [dict(user.control_item(), bootstrap=user.id == self.shared.bootstrap_user_id)
                    for user in self.shared.users.values()]

    def create_user(self, spec):
        """A new user: ``{"name", "email", "id", "org_id_required"}``, all optional."""
        spec = _spec(spec)
        name = _name(spec, "Scene User")
        email = spec.get("email") or "%s@example.com" % slug(name)
        if not isinstance(email, str):
            raise InvalidRequest("email: must be a string")
        with self.shared.lock:
            user_id = spec.get("id") or ids.random_uuid()
            if not isinstance(user_id, str) or any(c.isspace() for c in user_id) or user_id == BOOTSTRAP_ALIAS:
                raise InvalidRequest("id: must be a string without spaces (and not \"bootstrap\")")
            if user_id in self.shared.users:
                raise InvalidRequest("id: user %s already exists" % user_id)
            user = User(user_id, name, email, self.shared.now_us())
            self.shared.users[user.id] = user
            self._set_user_fields(user, spec)
            return user.control_item()

    @staticmethod
    def _set_user_fields(user, spec):
        if "org_id_required" in spec:
            value = spec["org_id_required"]
            if not (value == "auto" or isinstance(value, bool)):
                raise InvalidRequest("org_id_required: must be \"auto\", true or false")
            user.org_id_required = value

    def update_user(self, reference, spec):
        """Change ``org_id_required`` (and ``name``) of a user."""
        spec = _spec(spec)
        unknown = set(spec) - {"org_id_required", "name"}
        if unknown:
            raise InvalidRequest("unknown fields: %s" % ", ".join(sorted(unknown)))
        with self.shared.lock:
            user = self.shared.find_user(reference)
            self._set_user_fields(user, spec)
            user.name = _name(spec, user.name)
            return user.control_item()

    # ------------------------------------------------------------------ organizations
    def list_organizations(self):
        with self.shared.lock:
            return [self._org_item(org) for org in self.shared.organizations.values()]

    def _org_item(self, org):
        return dict(org.render(), members=[{"user_id": uid, "role": role} for uid, role in org.members.items()],
                    projects=[p.id for p in self.shared.project_order if p.org_id == org.id])

    def create_organization(self, spec):
        """An organization: ``{"id", "name", "plan", "admins", "members", "projects"}``.

        ``admins`` and ``members`` are user ids (or "bootstrap"); ``admins`` defaults to the
        bootstrap user. ``projects`` is a number of projects to create in it, or a list of project
        specs as for POST /_simulator/projects. Answers the organization with its members and the
        projects created.
        """
        spec = _spec(spec)
        name = _name(spec, "Scene Organization")
        plan = spec.get("plan", "scale")
        if not isinstance(plan, str) or not plan:
            raise InvalidRequest("plan: must be a non-empty string")
        admins = _list_of_strings(spec, "admins") if "admins" in spec else [BOOTSTRAP_ALIAS]
        members = _list_of_strings(spec, "members")
        projects = spec.get("projects", 0)
        if isinstance(projects, bool) or not isinstance(projects, (int, list)) or \
                (isinstance(projects, int) and not 0 <= projects <= 1000):
            raise InvalidRequest("projects: must be a number (0-1000) or a list of project specs")
        with self.shared.lock:
            users = [(self.shared.find_user(ref, "admins"), "admin") for ref in admins] + \
                    [(self.shared.find_user(ref, "members"), "member") for ref in members]
            org_id = spec.get("id")
            if org_id is not None:
                if not isinstance(org_id, str) or not ids.ID_RE.match(org_id):
                    raise InvalidRequest("id: must match ^[a-z0-9-]{1,60}$")
                if org_id in self.shared.organizations:
                    raise InvalidRequest("id: organization %s already exists" % org_id)
            else:
                rng = random.SystemRandom()
                org_id = ids.org_id(rng)
                while org_id in self.shared.organizations:
                    org_id = ids.org_id(rng)
            org = Organization(org_id, name, self.shared.now_us(), plan=plan)
            for user, role in users:
                org.members.setdefault(user.id, role)
            self.shared.organizations[org.id] = org
            specs = projects if isinstance(projects, list) else \
                [{"name": "%s-project-%d" % (slug(name), number)} for number in range(1, projects + 1)]
            created = []
            for project_spec in specs:
                if not isinstance(project_spec, dict):
                    raise InvalidRequest("projects: each project spec must be an object")
                created.append(self.projects.create_project(dict(project_spec, org_id=org.id)))
            return dict(self._org_item(org), projects=created)

    def add_member(self, org_id, spec):
        """Add a user to an organization, or change their role: ``{"user_id", "role"}``."""
        spec = _spec(spec)
        role = spec.get("role", "member")
        if role not in ROLES:
            raise InvalidRequest("role: must be one of %s" % ", ".join(ROLES))
        with self.shared.lock:
            org = self.shared.find_organization(org_id)
            user = self.shared.find_user(spec.get("user_id"))
            org.members[user.id] = role
            org.updated_us = self.shared.now_us()
            return self._org_item(org)

    def remove_member(self, org_id, reference):
        with self.shared.lock:
            org = self.shared.find_organization(org_id)
            user = self.shared.find_user(reference)
            if org.members.pop(user.id, None) is None:
                raise NotFound("user %s is not a member of %s" % (user.id, org_id))
            org.updated_us = self.shared.now_us()
            return self._org_item(org)

    # ------------------------------------------------------------------ keys
    def control_create_key(self, spec):
        """A key of any kind, answered with its secret (``key``) so that a test can use it.

        ``{"kind": "personal" | "organization" | "project", "name", "user_id", "org_id", "project_id"}``:
        a personal key belongs to ``user_id`` (default: the bootstrap user); an organization key
        is created by ``user_id`` (default: the organization's first admin), who must be an admin;
        a project-scoped key is created by a member, and its ``org_id`` defaults to the project's.
        """
        spec = _spec(spec)
        kind = spec.get("kind", PERSONAL_KEY)
        if kind not in KEY_KINDS:
            raise InvalidRequest("kind: must be one of %s" % ", ".join(KEY_KINDS))
        name = spec.get("name", "%s-key" % kind)
        self.shared.check_key_name(name)
        with self.shared.lock:
            org_id = spec.get("org_id")
            project_id = spec.get("project_id")
            if kind == PERSONAL_KEY:
                if org_id is not None or project_id is not None:
                    raise InvalidRequest("a personal key has no org_id or project_id")
                user = self.shared.find_user(spec.get("user_id", BOOTSTRAP_ALIAS))
                return self._secret_item(self.shared.add_key(name, user.ref()))
            if kind == PROJECT_KEY:
                project = self.shared.projects.get(project_id) if isinstance(project_id, str) else None
                if project is None or project.org_id is None:
                    raise InvalidRequest("project_id: must name a project of an organization")
                if org_id is not None and org_id != project.org_id:
                    raise InvalidRequest("project_id: project %s is not in organization %s" % (project_id, org_id))
                org_id = project.org_id
            elif project_id is not None:
                raise InvalidRequest("an organization key has no project_id (use kind \"project\")")
            if not isinstance(org_id, str):
                raise InvalidRequest("org_id: required for an organization key")
            org = self.shared.find_organization(org_id)
            if "user_id" in spec:
                creator = self.shared.find_user(spec["user_id"])
            elif org.admins():
                creator = self.shared.users[org.admins()[0]]
            else:
                raise InvalidRequest("user_id: organization %s has no admin to create the key" % org_id)
            role = org.role_of(creator.id)
            if role is None or (kind == ORGANIZATION_KEY and role != "admin"):
                raise InvalidRequest("user_id: %s is not %s of %s" % (
                    creator.id, "an admin" if kind == ORGANIZATION_KEY else "a member", org_id))
            return self._secret_item(self.shared.add_key(name, creator.ref(), kind, org_id, project_id))

    @staticmethod
    def _secret_item(key):
        return dict(key.control_item(), key=key.secret)

    # ------------------------------------------------------------------ projects
    def share_project(self, project_id, spec):
        """Share a project with a user (it then appears in that user's GET /projects/shared)."""
        spec = _spec(spec)
        with self.shared.lock:
            project = self.shared.project(project_id)
            user = self.shared.find_user(spec.get("user_id", BOOTSTRAP_ALIAS))
            project.shared_with.add(user.id)
            return {"project_id": project.id, "shared_with": sorted(project.shared_with)}

    def transfer_project(self, project_id, spec):
        """Move a project into an organization (``org_id``) or to a user's personal projects
        (``"org_id": null`` with ``owner``). A project-scoped key of the old organization stops working."""
        spec = _spec(spec)
        if "org_id" not in spec:
            raise InvalidRequest("org_id: required (an organization id, or null for a personal project)")
        with self.shared.lock:
            project = self.shared.project(project_id)
            org_id = spec["org_id"]
            if org_id is None:
                owner = self.shared.find_user(spec.get("owner", BOOTSTRAP_ALIAS), "owner")
                project.data.pop("org_id", None)
            else:
                org = self.shared.find_organization(org_id)
                if "owner" in spec:
                    owner = self.shared.find_user(spec["owner"], "owner")
                elif org.admins():
                    owner = self.shared.users[org.admins()[0]]
                else:
                    owner = self.shared.users[project.owner_id]
                project.data["org_id"] = org.id
            project.data["owner_id"] = owner.id
            return project.render()

    # ------------------------------------------------------------------ unavailable projects
    def list_unavailable(self):
        with self.shared.lock:
            return [{"project_id": pid, "answers_left": left} for pid, left in self.shared.unavailable.items()]

    def set_unavailable(self, spec):
        """Leave projects out of the next ``answers`` listings that would hold them (null: every one).

        ``{"project_ids": [...], "answers": 1}``. Each GET /projects or /projects/shared answer whose
        page holds such a project names it in ``unavailable_project_ids`` instead of listing it, and
        spends one of its answers; after the last one it is listed again.
        """
        spec = _spec(spec)
        project_ids = _list_of_strings(spec, "project_ids")
        answers = spec.get("answers", 1)
        if answers is not None and (isinstance(answers, bool) or not isinstance(answers, int)
                                    or not 1 <= answers <= UNAVAILABLE_ANSWERS_MAX):
            raise InvalidRequest("answers: must be an integer from 1 to %d, or null (every answer)"
                                 % UNAVAILABLE_ANSWERS_MAX)
        with self.shared.lock:
            for project_id in project_ids:
                if project_id not in self.shared.projects:
                    raise InvalidRequest("project_ids: unknown project %s" % project_id)
            for project_id in project_ids:
                self.shared.unavailable[project_id] = answers
            return self.list_unavailable()

    def clear_unavailable(self):
        with self.shared.lock:
            removed = len(self.shared.unavailable)
            self.shared.unavailable = {}
            return removed
