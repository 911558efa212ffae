# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A scene from a file: users, organizations, projects with their branches, and API keys, set on
top of the seeded state (``--scene FILE``, the pytest plugin's ``neon_simulator_scene``).

It does what the control API does to set a scene (scene.py: users, organizations, keys; projects.py's
create_project; the API's own branch creation), in the file's order: users, organizations (and their
projects), projects, keys. The format (README, "Scene files"):

    users:          [{id, name, email, org_id_required}]
    organizations:  [{id, name, plan, admins: [user], members: [user], projects: [project]}]
    projects:       [{id, name, region_id, pg_version, org_id, owner: user, shared_with: [user],
                      branches: [{name, parent (a branch name, default the default branch),
                                  protected (false), compute (true: a read-write compute)}]}]
    keys:           [{kind (personal, organization, project), name, user_id: user, org_id,
                      project_id, key (the secret to authenticate with; default a random one)}]

A ``user`` is "bootstrap" (the seeded user), a user id or a user's email. Branches are made as
``POST /projects/{id}/branches`` makes them, their operations already ended (no 423 at start).

CHOICES (the live service has no such thing): unknown fields are refused (a typo sets nothing
silently); a key's ``key`` is the secret exactly as given (any string without whitespace, unique);
``POST /_simulator/reset`` goes back to the seed without the scene (the pytest plugin sets it again
after each reset it makes).
"""

from __future__ import annotations

import json
import os

from .shared import BOOTSTRAP_ALIAS

SECTIONS = ("users", "organizations", "projects", "keys")
USER_FIELDS = ("id", "name", "email", "org_id_required")
ORGANIZATION_FIELDS = ("id", "name", "plan", "admins", "members", "projects")
PROJECT_FIELDS = ("id", "name", "region_id", "pg_version", "org_id", "owner", "shared_with", "branches")
BRANCH_FIELDS = ("name", "parent", "protected", "compute")
KEY_FIELDS = ("kind", "name", "user_id", "org_id", "project_id", "key")
# What a refusal of the simulator's own methods can be (errors.py's classes derive from these).
REFUSALS = (ValueError, LookupError, RuntimeError, PermissionError)


class SceneError(ValueError):
    """A scene the simulator cannot set; the message says where in the file and why."""


# ---------------------------------------------------------------------------------------------- reading

def parse_scene(text, name="scene"):
    """A scene from JSON, or YAML when PyYAML is installed; checked for its sections."""
    try:
        data = json.loads(text)
    except ValueError as json_error:
        if name.lower().endswith(".json"):
            raise SceneError("%s: not valid JSON: %s" % (name, json_error)) from None
        try:
            import yaml
        except ImportError:
            raise SceneError("%s is not JSON, and reading YAML needs PyYAML (pip install 'neon-simulator[yaml]', "
                             "or pip install PyYAML)" % name) from None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as yaml_error:
            raise SceneError("%s: not valid YAML: %s" % (name, yaml_error)) from None
    return check_scene({} if data is None else data, name)


def check_scene(data, name="scene"):
    """``data`` if it is a scene: a mapping of sections, each a list."""
    if not isinstance(data, dict):
        raise SceneError("%s: a scene is a mapping of %s" % (name, ", ".join(SECTIONS)))
    unknown = sorted(set(map(str, data)) - set(SECTIONS))
    if unknown:
        raise SceneError("%s: unknown sections %s (a scene has %s)" % (name, ", ".join(unknown), ", ".join(SECTIONS)))
    for section in SECTIONS:
        if not isinstance(data.get(section) or [], list):
            raise SceneError("%s: %s must be a list" % (name, section))
    return data


def read_scene(path):
    """The scene in the file at ``path`` (JSON; YAML with PyYAML)."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise SceneError("cannot read the scene file %s: %s" % (path, error.strerror or error)) from None
    return parse_scene(text, os.path.basename(path))


# ---------------------------------------------------------------------------------------------- setting it

def _fields(entry, allowed, where):
    if not isinstance(entry, dict):
        raise SceneError("%s: must be a mapping" % where)
    unknown = sorted(set(entry) - set(allowed))
    if unknown:
        raise SceneError("%s: unknown fields %s (allowed: %s)" % (where, ", ".join(map(str, unknown)), ", ".join(allowed)))
    return entry


def _list(entry, name, where):
    value = entry.get(name, [])
    if not isinstance(value, list):
        raise SceneError("%s.%s: must be a list" % (where, name))
    return value


class _Scene:
    """Sets one scene on a State, entry by entry; every refusal names its entry."""

    def __init__(self, state):
        self.state = state
        self.counts = dict.fromkeys(("users", "organizations", "projects", "branches", "keys"), 0)

    @staticmethod
    def call(where, method, *args):
        """``method(*args)``, one of the simulator's own; its refusal (errors.py) named by the entry."""
        try:
            return method(*args)
        except REFUSALS as refusal:
            raise SceneError("%s: %s" % (where, refusal)) from None

    def user(self, reference, where):
        """A user reference of the file (bootstrap, an id, an email) as the simulator's methods take it."""
        if reference == BOOTSTRAP_ALIAS or (isinstance(reference, str) and reference in self.state.shared.users):
            return reference
        for user in self.state.shared.users.values():
            if isinstance(reference, str) and user.email == reference:
                return user.id
        raise SceneError("%s: unknown user %r (\"bootstrap\", a user id, or a user's email)" % (where, reference))

    def add_user(self, entry, where):
        self.call(where, self.state.scene.create_user, dict(_fields(entry, USER_FIELDS, where)))
        self.counts["users"] += 1

    def add_organization(self, entry, where):
        spec = dict(_fields(entry, ORGANIZATION_FIELDS, where))
        projects = _list(spec, "projects", where)
        for role in ("admins", "members"):
            if role in spec:
                spec[role] = [self.user(ref, "%s.%s[%d]" % (where, role, number))
                              for number, ref in enumerate(_list(spec, role, where))]
        spec["projects"] = 0
        org = self.call(where, self.state.scene.create_organization, spec)
        self.counts["organizations"] += 1
        for number, project in enumerate(projects):
            project_where = "%s.projects[%d]" % (where, number)
            if isinstance(project, dict) and project.get("org_id", org["id"]) != org["id"]:
                raise SceneError("%s.org_id: a project listed under an organization is of that organization" % project_where)
            self.add_project(dict(_fields(project, PROJECT_FIELDS, project_where), org_id=org["id"]), project_where)

    def add_project(self, entry, where):
        spec = dict(_fields(entry, PROJECT_FIELDS, where))
        branches = _list(spec, "branches", where)
        shared_with = _list(spec, "shared_with", where)
        spec.pop("branches", None)
        spec.pop("shared_with", None)
        if "owner" in spec:
            spec["owner"] = self.user(spec["owner"], where + ".owner")
        project = self.call(where, self.state.projects.create_project, spec)
        self.counts["projects"] += 1
        for number, reference in enumerate(shared_with):
            user = self.user(reference, "%s.shared_with[%d]" % (where, number))
            self.call(where, self.state.scene.share_project, project["id"], {"user_id": user})
        for number, branch in enumerate(branches):
            self.add_branch(project["id"], branch, "%s.branches[%d]" % (where, number))

    def add_branch(self, project_id, entry, where):
        """A branch as POST /projects/{id}/branches makes it, its operations ended at once."""
        spec = _fields(entry, BRANCH_FIELDS, where)
        name = spec.get("name")
        if not isinstance(name, str) or not name:
            raise SceneError("%s.name: required, a branch name" % where)
        compute = spec.get("compute", True)
        if not isinstance(compute, bool):
            raise SceneError("%s.compute: must be true or false" % where)
        branches = self.call(where, self.state.provisioning.api_list_branches, None, project_id, {})["branches"]
        parent = spec.get("parent")
        if parent is None:
            parent_id = next(branch["id"] for branch in branches if branch.get("default"))
        else:
            named = [branch["id"] for branch in branches if branch["name"] == parent]
            if not named:
                raise SceneError("%s.parent: project %s has no branch %r (a parent comes before its children)"
                                 % (where, project_id, parent))
            parent_id = named[0]
        body = {"branch": {"name": name, "parent_id": parent_id}}
        if "protected" in spec:
            body["branch"]["protected"] = spec["protected"]
        if compute:
            body["endpoints"] = [{"type": "read_write"}]
        # create_branch, and start_compute for its compute: both ended when made
        self.state.shared.next_operations.add({"action": "*", "project_id": project_id, "count": 2 if compute else 1,
                                               "duration": 0}, self.state.provisioning.check_operation_fields)
        self.call(where, self.state.provisioning.api_create_branch, None, project_id, body)
        self.counts["branches"] += 1

    def add_key(self, entry, where):
        spec = dict(_fields(entry, KEY_FIELDS, where))
        secret = spec.pop("key", None)
        if secret is not None and (not isinstance(secret, str) or not secret or any(c.isspace() for c in secret)):
            raise SceneError("%s.key: must be a non-empty string without whitespace" % where)
        if secret is not None and secret in self.state.shared.keys_by_secret:
            raise SceneError("%s.key: already the secret of another key" % where)
        if "user_id" in spec:
            spec["user_id"] = self.user(spec["user_id"], where + ".user_id")
        made = self.call(where, self.state.scene.control_create_key, spec)
        if secret is not None:
            # the secret the file gives, in place of the random one control_create_key drew
            key = self.state.shared.keys[made["id"]]
            del self.state.shared.keys_by_secret[key.secret]
            key.secret = secret
            self.state.shared.keys_by_secret[secret] = key
        self.counts["keys"] += 1


def apply_scene(simulator, scene):
    """Set ``scene`` (a mapping as parse_scene answers it) on a Simulator (or a State); answers how many
    users, organizations, projects, branches and keys it made. Raises SceneError naming the entry."""
    state = getattr(simulator, "state", simulator)
    check_scene(scene)
    setter = _Scene(state)
    adders = {"users": setter.add_user, "organizations": setter.add_organization, "projects": setter.add_project,
              "keys": setter.add_key}
    with state.lock:
        for section in SECTIONS:
            for number, entry in enumerate(scene.get(section) or []):
                adders[section](entry, "%s[%d]" % (section, number))
    return setter.counts


def load_scene(simulator, path):
    """Read the scene file at ``path`` and set it on ``simulator``; answers what apply_scene answers.
    A SceneError names the file."""
    scene = read_scene(path)
    try:
        return apply_scene(simulator, scene)
    except SceneError as error:
        raise SceneError("%s: %s" % (os.path.basename(path), error)) from None
