# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A branch's roles and databases: their descriptions and the one task that makes them as asked.

Roles and databases have one shape in the API (docs/docsite/rst/api-behaviour.rst, "Roles and
databases"): addressed by name within a branch, listed without paging, created with a POST that
answers 201, deleted with a DELETE that answers 204 when there is nothing to delete, and every
change starts ``apply_config`` on the branch's read-write compute (which drops its connections).
So one ``CatalogTask`` serves both; what differs is a ``Kind``: the description, the path segment,
and the checks made before a change (a database's owner must exist; a role that owns databases
is not deleted).

A role's password is a secret the service shows in full only when the role is created or its
password reset. It is taken from the answer before anything else in it is checked, kept in every
result from then on (failures included), and never put in a message.

A role or database that is as asked costs three requests: the project's newest operations (to wait
for any still running on its branch, ResourceTask.settle), the project's branches (to find the
branch by name or id) and the branch's roles or databases.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._branches import branch_label, locate_branch, project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, TaskFailure, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resource_plan import (
    CREATE,
    NOTHING,
    REFUSE,
    UPDATE,
    Description,
    Field,
    Refusal,
    branch_settled,
    decide,
    planned,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources import Found

ROLE = Description("role", "role", answers.ROLE_FIELDS, [Field("name", create_only=True)])
DATABASE = Description("database", "database", answers.DATABASE_FIELDS, [
    Field("name", create_only=True),
    Field("owner", "owner_name"),
])
# Names the service keeps for itself (docs/docsite/rst/api-behaviour.rst).
RESERVED_DATABASES = ("postgres", "template0", "template1")
ROLE_NAME_MAX_BYTES = 63
DATABASE_NAME_MAX_BYTES = 63
NOT_STORED = 412  # reveal_password when the project does not store passwords


class Kind:
    """What differs between roles and databases: the description and the path segment."""

    def __init__(self, description, segment):
        self.description = description
        self.segment = segment


ROLES = Kind(ROLE, "roles")
DATABASES = Kind(DATABASE, "databases")


def without_password(role):
    """A role as the modules return it in ``role``: never with its password (that is ``password``)."""
    return dict((key, value) for key, value in role.items() if key != "password") if role is not None else None


def list_catalog(client, project_id, branch_id, kind):
    """A branch's roles (without passwords) or databases, each checked: one request."""
    path = project_path(project_id, "branches", branch_id, kind.segment)
    items = answers.items_of(client.get(path), "GET", path, kind.segment, kind.description.answer_fields)
    return [without_password(item) for item in items]


def owned_by(databases, role_name):
    return sorted(database["name"] for database in databases if database.get("owner_name") == role_name)


class CatalogTask:
    """One ``neon.cloud.role`` or ``neon.cloud.database`` task: the item ``name`` of one branch."""

    def __init__(self, task, project_id, branch, kind, name):
        self.task = task
        self.client = task.client
        self.project_id = project_id
        self.wanted_branch = branch
        self.kind = kind
        self.name = name
        self.branch = None
        self.label = "%s %r" % (kind.description.kind, name)

    # ------------------------------------------------------------------------------------------ finding

    def _locate(self):
        try:
            self.branch = locate_branch(self.client, self.project_id, self.wanted_branch)
        except Refusal as refusal:
            raise self.task.refused(refusal)
        self.label = "%s %r of branch %s" % (self.kind.description.kind, self.name, branch_label(self.branch))
        self.task.kept["branch_id"] = self.branch["id"]

    def path(self, *more):
        return project_path(self.project_id, "branches", self.branch["id"], self.kind.segment, *more)

    def listed(self, kind=None):
        return list_catalog(self.client, self.project_id, self.branch["id"], kind or self.kind)

    def find(self):
        named = [item for item in self.listed() if item["name"] == self.name]
        return named[0] if named else None

    def _find_again(self):
        current = self.find()
        return Found(current, ours=True) if current is not None else None

    def refuse(self, problem):
        """A failure before anything was sent: says so, and what stands in the way."""
        raise self.task.failure("%s cannot be %s" % (self.label[0].upper() + self.label[1:], problem))

    # ------------------------------------------------------------------------------------------ absent

    def absent(self, before_delete=None):
        """Delete the item; ``before_delete(current)`` may refuse first (a role that owns databases)."""
        return self.task.run(self._absent, before_delete)

    def _absent(self, before_delete):
        self._locate()
        current = self.find()
        key = self.kind.description.key
        before = self.kind.description.shown(current)
        plan = decide(self.kind.description, current, {}, state="absent", name=self.name)
        if plan.action == NOTHING:
            return self.task.with_diff(self.task.result(**{key: None}), {}, {})
        self.task.kept[key] = current
        if before_delete is not None:
            before_delete(current)
        if self.task.check_mode:
            self.task.changed = True
            return self.task.with_diff(self.task.result(**{key: current}), before, {})
        path = self.path(self.name)
        data = self.task.change("DELETE", path, self.project_id, None, "Deleting %s" % self.label)
        if data is not None:  # 204: gone meanwhile (an overlapping run deleted it)
            what = "%s was deleted" % self.label
            self.task.did(what)
            self.task.started(data, "DELETE", path, self.project_id, what)
        return self.task.with_diff(self.task.result(**{key: current}), before, {})

    # ------------------------------------------------------------------------------------------ present

    def present(self, options, before_change=None, on_answer=None, on_found=None):
        """Create the item or update it to ``options``.

        ``before_change(plan, current)`` checks what a change needs (a database's owner exists) and
        may refuse; ``on_answer(data)`` takes what only a create's answer holds (a role's password)
        before anything else in it is checked; ``on_found(found)`` is told when the create was made
        by another run, or its answer lost and the item found again.
        """
        return self.task.run(self._present, options, before_change, on_answer, on_found)

    def _present(self, options, before_change, on_answer, on_found, settle=True):
        self._locate()
        description, key = self.kind.description, self.kind.description.key
        current = self.find()
        plan = decide(description, current, dict(options, name=self.name), name=self.name)
        if plan.action == REFUSE:
            raise self.task.failure(plan.reason)
        before, after = description.shown(current), description.shown(planned(current, plan))
        if plan.action == NOTHING:
            if settle and self.task.settle(
                    self.project_id, "%s has operations still running on its branch" % self.label,
                    unsettled=None if branch_settled(self.branch) else True, branch_id=self.branch["id"]):
                current = self.find() or current  # what a timed-out or an overlapping run left being made
            return self.task.with_diff(self.task.result(**{key: current}), before, after)
        if before_change is not None:
            before_change(plan, current)
        if self.task.check_mode:
            self.task.changed = True
            return self.task.with_diff(self.task.result(**{key: planned(current, plan)}), before, after)
        if plan.action == CREATE:
            self._create(plan, on_answer, on_found)
        elif plan.action == UPDATE:
            self.task.kept[key] = self.task.update(
                description, self.path(self.name), self.project_id, current, plan, self.label, id_field="name")
        return self.task.with_diff(self.task.result(), before, after)

    def _create(self, plan, on_answer, on_found):
        path = self.path()
        key = self.kind.description.key
        data, found = self.task.create(path, {key: plan.body}, self.project_id, self.label, self._find_again)
        if found is not None:
            self.task.kept[key] = found.item
            what = "%s was created" % self.label
            if found.ours:
                self.task.did(what)
            self.task.wait_idle(self.project_id, what)  # its operations, this run's or the overlapping run's
            if on_found is not None:
                on_found(found)
            elif not found.ours:
                self.task.warnings.append("%s was created by another run at the same time; this run uses it." % (
                    self.label[0].upper() + self.label[1:]))
            return
        if on_answer is not None:
            on_answer(data)
        what = "%s was created" % self.label
        self.task.did(what)
        try:
            item = answers.item_of(data, "POST", path, key, self.kind.description.answer_fields, self.name, "name")
        except UnexpectedAnswer as error:
            raise self.task.failure("%s, but its answer cannot be used: %s" % (what, error.describe()), error)
        self.task.kept[key] = without_password(item)
        self.task.started(data, "POST", path, self.project_id, what)

    # ------------------------------------------------------------------------------------------ actions

    def action(self, segment, what, on_answer=None):
        """A POST on the item (``reset_password``): its answer, its operations waited for.
        ``on_answer(data)`` takes a secret from the answer before anything else happens."""
        path = self.path(self.name, segment)
        data = self.task.change("POST", path, self.project_id, None, what[0].upper() + what[1:])
        if on_answer is not None:
            on_answer(data)
        self.task.did(what)
        self.task.started(data, "POST", path, self.project_id, what)
        return data

# ---------------------------------------------------------------------------------------------- roles


class RoleTask(CatalogTask):
    """A role, and its password: returned when created, reset or revealed this run, never lost."""

    def __init__(self, task, project_id, branch, name):
        super(RoleTask, self).__init__(task, project_id, branch, ROLES, name)
        self.password_from = None  # how this run got a password: created, reset or revealed
        self.reset_asked = False

    def keep_password(self, data, how):
        """The password a create or reset answered, kept in every result from now on (``how`` this run got it)."""
        password = answers.role_password(data)
        if password is not None:
            self._keep(password, how)
        return password

    def _keep(self, password, how):
        self.task.kept["password"] = password
        self.client.remember_secret(password)
        self.password_from = how

    def absent(self):
        return super(RoleTask, self).absent(before_delete=self._not_an_owner)

    def _not_an_owner(self, current):
        databases = self.listed(DATABASES)
        owned = owned_by(databases, self.name)
        if owned:
            self.refuse("deleted: it owns the database%s %s; delete %s or give %s another owner with "
                        "neon.cloud.database first" % ("s" if len(owned) > 1 else "", ", ".join(owned),
                                                       "them" if len(owned) > 1 else "it",
                                                       "them" if len(owned) > 1 else "it"))

    def present(self, reset_password=False, reveal_password=False):
        try:
            return self.task.run(self._role_present, reset_password, reveal_password)
        except TaskFailure as failure:
            if failure.result.get("password") and self.password_from in ("created", "reset"):
                failure.msg += (". The role's new password is in this result (password): keep it, the service "
                                "shows it only once")
            raise

    def _role_present(self, reset_password, reveal_password):
        self.reset_asked = reset_password
        # A reset waits for what runs on the branch itself (423), so the role is waited for only when none follows.
        result = self._present({}, None, lambda data: self.keep_password(data, "created"), self._found,
                               settle=not reset_password)
        resetting = reset_password and self.password_from != "created"
        if resetting and "diff" in result:
            # The password itself is never in a diff: only that it changes.
            result["diff"]["before"]["password"] = "(the current one)"
            result["diff"]["after"]["password"] = "(a new one, returned in password)"
        if self.task.check_mode:
            self.task.changed = self.task.changed or bool(reset_password)
        elif resetting:
            self._reset()
        elif reveal_password and self.password_from is None:
            self._reveal()
        result.update(self.task.result())
        return result

    def _found(self, found):
        if not found.ours:
            if not self.reset_asked:  # a reset follows, and its password is this run's
                self.task.warnings.append(
                    "Role %r of branch %s was created by another run at the same time; that run's result holds its "
                    "password, so this one returns none (reset_password=true gives a new one)." % (
                        self.name, self.branch["id"]))
            return
        # Created by this run, but the answer with the password was lost: read it back.
        try:
            self._reveal()
        except TaskFailure as failure:
            raise self.task.failure(
                "%s, but the answer holding its password was lost, and reading the password back failed (%s); "
                "run the task again with reset_password=true for a new one" % (self.label + " was created",
                                                                               failure.msg), failure.cause)
        self.task.warnings.append("The answer to creating %s was lost; its password was read back with "
                                  "reveal_password." % self.label)

    def _reset(self):
        what = "the password of %s was reset" % self.label
        self.action("reset_password", what, on_answer=lambda data: self.keep_password(data, "reset"))
        if self.password_from != "reset":
            raise self.task.failure("%s, but its answer holds no password" % what)

    def _reveal(self):
        path = self.path(self.name, "reveal_password")
        try:
            data = self.client.get(path)
        except NeonAPIError as error:
            if error.status == NOT_STORED:
                raise self.task.failure("%s: the project does not store passwords, so the service cannot show "
                                        "this one again (%s); reset_password=true gives a new one" % (
                                            self.label, error.describe()), error)
            raise self.task.failure("Reading the password of %s failed: %s" % (self.label, error.describe()), error)
        try:
            password = answers.revealed_password(data, path)
        except UnexpectedAnswer as error:
            raise self.task.failure("Reading the password of %s: %s" % (self.label, error.describe()), error)
        self._keep(password, "revealed")


# ---------------------------------------------------------------------------------------------- databases


class DatabaseTask(CatalogTask):
    """A database and its owner."""

    def __init__(self, task, project_id, branch, name):
        super(DatabaseTask, self).__init__(task, project_id, branch, DATABASES, name)

    def present(self, owner):
        return super(DatabaseTask, self).present({"owner": owner}, before_change=self._owner_exists)

    def _owner_exists(self, plan, current):
        owner = plan.body.get("owner_name")
        if plan.action == CREATE and owner is None:
            self.refuse("created without an owner: give owner, the name of one of the branch's roles")
        if owner is None:
            return
        roles = [role["name"] for role in self.listed(ROLES)]
        if owner not in roles:
            self.refuse("%s: its owner %r is not a role of the branch (its roles: %s); create it with "
                        "neon.cloud.role first" % ("created" if plan.action == CREATE else "given another owner",
                                                   owner, ", ".join(sorted(roles)) or "none"))
