# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A branch's roles and databases (notes sections 5 and 6) and the connection URI (section 7).
The area's object is state.catalog; what it shares with provisioning (a project's resources, starting
operations) is in shared.py.

Roles and databases have one shape: addressed by name within a branch, listed, read, created
(201), deleted (200, or 204 when absent); each change starts ``apply_config`` on the branch's
read_write compute (and ``suspend_compute`` if it was idle). ``KINDS`` holds what differs.
"""

from __future__ import annotations

from .errors import Conflict, InvalidRequest, NotFound, PreconditionFailed
from .provisioning import (FORBIDDEN_DATABASES, MESSAGE_DATABASE_EXISTS, MESSAGE_NO_STORED_PASSWORDS,
                           MESSAGE_OWNER_NOT_FOUND, MESSAGE_ROLE_EXISTS, MESSAGE_ROLE_OWNS, ROLE_NAME_MAX)
from .records import Database, Role, connection_uri, new_password
from .shared import read_object, read_string

# kind -> (branch attribute, answer key, not-found message, already-exists message)
KINDS = {
    "role": ("roles", "role", "role not found", MESSAGE_ROLE_EXISTS),
    "database": ("databases", "database", "database not found", MESSAGE_DATABASE_EXISTS),
}


class Catalog:
    """The /roles, /databases and /connection_uri area of State (see the module's text)."""

    def __init__(self, shared):
        self.shared = shared  # the data and helpers every area uses (shared.py)

    def _named(self, branch, kind, name):
        attribute, _answer_key, missing, _exists = KINDS[kind]
        item = getattr(branch, attribute).get(name)
        if item is None:
            raise NotFound(missing)
        return item

    def _check_new_name(self, branch, kind, name, item=None):
        attribute, _answer_key, _missing, exists = KINDS[kind]
        other = getattr(branch, attribute).get(name)
        if other is not None and other is not item:
            raise Conflict(exists % name)

    def _owner(self, branch, owner_name):
        if owner_name not in branch.roles:
            raise NotFound(MESSAGE_OWNER_NOT_FOUND)
        return owner_name

    def _locate(self, key, project_id, branch_id):
        project = self.shared.reachable(key, project_id)
        return project, self.shared.branch(project, branch_id)

    def api_list_named(self, key, project_id, branch_id, kind):
        """GET .../roles or .../databases (roles without passwords)."""
        with self.shared.lock:
            branch = self._locate(key, project_id, branch_id)[1]
            attribute = KINDS[kind][0]
            now_us = self.shared.now_us()
            return {attribute: [item.render(now_us) for item in getattr(branch, attribute).values()]}

    def api_get_named(self, key, project_id, branch_id, kind, name):
        with self.shared.lock:
            branch = self._locate(key, project_id, branch_id)[1]
            return {KINDS[kind][1]: self._named(branch, kind, name).render(self.shared.now_us())}

    def api_delete_named(self, key, project_id, branch_id, kind, name):
        """DELETE .../roles/{name} or .../databases/{name}: 204 when absent; a role that owns
        databases is refused (DOC-ROLES; 400 inferred)."""
        with self.shared.lock:
            project, branch = self._locate(key, project_id, branch_id)
            attribute, answer_key = KINDS[kind][:2]
            item = getattr(branch, attribute).get(name)
            if item is None:
                return None
            if kind == "role":
                owned = [db.name for db in branch.databases.values() if db.owner_name == name]
                if owned:
                    raise InvalidRequest(MESSAGE_ROLE_OWNS % (name, ", ".join(owned)))
            now_us = self.shared.now_us()
            ops = self.shared.run(project, self.shared.config_ops(project, branch, now_us), now_us)
            del getattr(branch, attribute)[name]
            return {answer_key: item.render(now_us), "operations": self.shared.rendered(ops)}

    def _changed(self, answer_key, item, ops, password=None):
        now_us = self.shared.now_us()
        rendered = item.render(now_us, password) if password is not None else item.render(now_us)
        return {answer_key: rendered, "operations": self.shared.rendered(ops)}

    # ------------------------------------------------------------------ roles
    def api_create_role(self, key, project_id, branch_id, body):
        """POST .../roles: 201 with the role's password (shown here, on reset and at project creation only)."""
        spec = read_object(body, "role")
        name = read_string(spec, "name", ROLE_NAME_MAX, required=True)
        if len(name.encode("utf-8")) > ROLE_NAME_MAX:
            raise InvalidRequest("name: at most %d bytes" % ROLE_NAME_MAX)
        with self.shared.lock:
            project, branch = self._locate(key, project_id, branch_id)
            self._check_new_name(branch, "role", name)
            now_us = self.shared.now_us()
            ops = self.shared.run(project, self.shared.config_ops(project, branch, now_us), now_us)
            role = Role(branch.id, name, new_password(), now_us)
            branch.roles[name] = role
            return self._changed("role", role, ops, role.password.value)

    def _stored_passwords(self, project):
        if not project.data.get("store_passwords", True):
            raise PreconditionFailed(MESSAGE_NO_STORED_PASSWORDS)

    def api_reveal_password(self, key, project_id, branch_id, name):
        """GET .../roles/{name}/reveal_password: the password in force; 412 without stored passwords."""
        with self.shared.lock:
            project, branch = self._locate(key, project_id, branch_id)
            role = self._named(branch, "role", name)
            self._stored_passwords(project)
            return {"password": role.password.settle(self.shared.now_us())}

    def api_reset_password(self, key, project_id, branch_id, name):
        """POST .../roles/{name}/reset_password: a new password, in force once the last operation has
        ended; the old one is valid until then (SPEC, DOC-ROLES)."""
        with self.shared.lock:
            project, branch = self._locate(key, project_id, branch_id)
            role = self._named(branch, "role", name)
            now_us = self.shared.now_us()
            ops = self.shared.run(project, self.shared.config_ops(project, branch, now_us), now_us)
            password = new_password()
            if ops:
                role.password.start(password, ops[-1])
            else:
                role.password.set(password, now_us)
            role.updated_us = now_us
            return self._changed("role", role, ops, password)

    def password_valid(self, project_id, branch_id, role_name, password):
        """Control API: whether ``password`` lets ``role_name`` log in to the branch now."""
        with self.shared.lock:
            project = self.shared.project(project_id)
            role = self._named(self.shared.branch(project, branch_id), "role", role_name)
            return role.password.settle(self.shared.now_us()) == password

    # ------------------------------------------------------------------ databases
    def api_create_database(self, key, project_id, branch_id, body):
        """POST .../databases: 201; the owner must be a role of the branch."""
        spec = read_object(body, "database")
        name = read_string(spec, "name", 63, required=True)
        owner_name = read_string(spec, "owner_name", ROLE_NAME_MAX, required=True)
        if name in FORBIDDEN_DATABASES:
            raise InvalidRequest("name: %r is reserved" % name)
        with self.shared.lock:
            project, branch = self._locate(key, project_id, branch_id)
            self._check_new_name(branch, "database", name)
            self._owner(branch, owner_name)
            now_us = self.shared.now_us()
            ops = self.shared.run(project, self.shared.config_ops(project, branch, now_us), now_us)
            database = Database(self.shared.new_database_id(), branch.id, name, owner_name, now_us)
            branch.databases[name] = database
            return self._changed("database", database, ops)

    def api_update_database(self, key, project_id, branch_id, name, body):
        """PATCH .../databases/{name}: rename and/or change the owner."""
        spec = read_object(body, "database")
        new_name = read_string(spec, "name", 63)
        owner_name = read_string(spec, "owner_name", ROLE_NAME_MAX)
        if new_name in FORBIDDEN_DATABASES:
            raise InvalidRequest("name: %r is reserved" % new_name)
        with self.shared.lock:
            project, branch = self._locate(key, project_id, branch_id)
            database = self._named(branch, "database", name)
            if new_name is not None:
                self._check_new_name(branch, "database", new_name, database)
            if owner_name is not None:
                self._owner(branch, owner_name)
            now_us = self.shared.now_us()
            ops = self.shared.run(project, self.shared.config_ops(project, branch, now_us), now_us)
            if new_name is not None and new_name != name:
                del branch.databases[name]
                database.name = new_name
                branch.databases[new_name] = database
            if owner_name is not None:
                database.owner_name = owner_name
            database.updated_us = now_us
            return self._changed("database", database, ops)

    # ------------------------------------------------------------------ connection URI
    def api_connection_uri(self, key, project_id, args):
        """GET /projects/{id}/connection_uri (notes 7): ``database_name`` and ``role_name`` required;
        ``branch_id`` defaults to the default branch (or the compute's), ``endpoint_id`` to the branch's
        read_write compute; ``pooled`` uses the pooler host. 412 without stored passwords (inferred)."""
        database_name = args.get("database_name")
        role_name = args.get("role_name")
        if not database_name or not role_name:
            raise InvalidRequest("database_name and role_name: required query parameters")
        pooled = (args.get("pooled") or "false").lower()
        if pooled not in ("true", "false"):
            raise InvalidRequest("pooled: must be true or false")
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            resources = self.shared.resources(project)
            endpoint = None
            if args.get("endpoint_id"):
                endpoint = self.shared.endpoint(project, args["endpoint_id"])
            if args.get("branch_id"):
                branch = self.shared.branch(project, args["branch_id"])
            elif endpoint is not None:
                branch = resources.branches[endpoint.branch_id]
            else:
                branch = resources.default_branch()
            if endpoint is None:
                endpoint = resources.read_write_endpoint(branch.id)
                if endpoint is None:
                    raise NotFound("endpoint not found")
            elif endpoint.branch_id != branch.id:
                raise InvalidRequest("endpoint_id: the compute belongs to another branch")
            role = self._named(branch, "role", role_name)
            self._named(branch, "database", database_name)
            self._stored_passwords(project)
            host = endpoint.pooler_host if pooled == "true" else endpoint.host
            return {"uri": connection_uri(role_name, role.password.settle(self.shared.now_us()), host, database_name,
                                          endpoint.port)}
