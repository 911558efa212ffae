# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A branch's roles and databases (``neon.cloud.role``, ``neon.cloud.database``): what is their own.

Roles and databases have one shape in the API (docs/docsite/rst/api-behaviour.rst, "Roles and
databases"): addressed by name within a branch, listed without paging, created with a POST that
answers 201, deleted with a DELETE that answers 204 when there is nothing to delete, and every
change starts ``apply_config`` on the branch's read-write compute. So ``BranchItem`` finds both;
what is each one's own is small: a database's owner must be a role of the branch; a role that owns
databases is not deleted; and a role's password.

A role's password is a secret the service shows in full only when the role is created or its
password reset. It is taken from the answer before anything else in it is checked, kept in every
result from then on (failures included), and never put in a message.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import api_path, project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, TaskFailure, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.branches import branch_settled
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import branch_label, branch_named
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import CREATE, REFUSE, UPDATE, Description, Field, Plan, decide
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Missing, OptionError
from ansible_collections.neon.cloud.plugins.module_utils._resources.resource import Resource, sentence
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import Found

NOT_STORED = 412  # reveal_password when the project does not store passwords
# Names the service keeps for itself (docs/docsite/rst/api-behaviour.rst).
RESERVED_DATABASES = ("postgres", "template0", "template1")
ROLE_NAME_MAX_BYTES = 63
DATABASE_NAME_MAX_BYTES = 63
# What the collection reads of a role and of a database (docs/docsite/rst/api-behaviour.rst).
ROLE_FIELDS = dict(required={"name": (str,)}, optional={"protected": (bool,), "branch_id": (str,)})
DATABASE_FIELDS = dict(required={"name": (str,)}, optional={"owner_name": (str,), "branch_id": (str,), "id": (int,)})
ROLE = Description("role", "role", ROLE_FIELDS, [Field("name", create_only=True)])
DATABASE = Description("database", "database", DATABASE_FIELDS, [
    Field("name", create_only=True),
    Field("owner", "owner_name"),
])


# ---------------------------------------------------------------------------------------------- rules


def without_password(role):
    """A role as the modules return it in ``role``: never with its password (that is ``password``)."""
    return dict((key, value) for key, value in role.items() if key != "password") if role is not None else None


def owned_by(databases, role_name):
    return sorted(database["name"] for database in databases if database.get("owner_name") == role_name)


def role_password(data):
    """The ``role.password`` a role's create or password reset answered (None when it holds none).

    A secret shown only in this answer: taken whatever else the answer holds, before anything
    else in it is checked, so that an answer that cannot be used otherwise fails with it kept.
    """
    role = data.get("role") if isinstance(data, dict) else None
    password = role.get("password") if isinstance(role, dict) else None
    return password if isinstance(password, str) and password else None


def revealed_password(data, path):
    """GET .../roles/{name}/reveal_password: ``{password}``."""
    return answers.text_answer(data, path, "password")


# ---------------------------------------------------------------------------------------------- reading


def list_roles_or_databases(client, project_id, branch_id, description):
    """A branch's roles (without passwords) or databases (``description`` ROLE or DATABASE), each checked: one request."""
    path = project_path(project_id, "branches", branch_id, description.plural)
    items = answers.items_of(client.get(path), "GET", path, description.plural, description.answer_fields)
    return [without_password(item) for item in items]


# ---------------------------------------------------------------------------------------------- a role or a database


class BranchItem(Resource):
    """A role or a database named ``name`` on ``branch`` (the default branch when None)."""

    id_field = "name"
    path_options = ("project_id", "branch", "name")

    def __init__(self, task, project_id, branch, name):
        super(BranchItem, self).__init__(task, project_id)
        self.wanted_branch = branch
        self.name = name
        self.branch = None
        self.label = "%s %r" % (self.description.kind, name)

    def find(self):
        """The branch (listed once per task), then the item among the branch's as they are now."""
        if self.branch is None:
            self.branch = branch_named(self.task, self.project_id, self.wanted_branch)
            self.label = "%s %r of branch %s" % (self.description.kind, self.name, branch_label(self.branch))
            self.task.kept["branch_id"] = self.branch["id"]
        named = [item for item in self.listed(self.description) if item["name"] == self.name]
        return named[0] if named else None

    def listed(self, description):
        if self.branch["id"] is None:  # a branch an earlier task would make (check mode): nothing to read yet
            return []
        return list_roles_or_databases(self.client, self.project_id, self.branch["id"], description)

    def collection_path(self):
        return project_path(self.project_id, "branches", self.branch["id"], self.description.plural)

    def decide(self, current, options):
        return decide(self.description, current, dict(options, name=self.name), name=self.name)

    def created(self, data, path):
        return without_password(answers.item_of(data, "POST", path, self.description.key,
                                                self.description.answer_fields, self.name, "name"))

    def settle(self, current, plan):
        """When its branch is not ready yet, or (when this run changed nothing) the project's operations still run
        on the branch, wait for them, then the item as the branch lists it now. After a change of this run, its
        answer is the item as it is: it has no state of its own to read again."""
        not_ready = None if branch_settled(self.branch) else "%s: its branch is not ready yet (current_state %s)" % (
            self.label, self.branch.get("current_state"))
        if not_ready is None and self.task.changed:
            return current
        if self.task.settle(self.project_id, not_ready or "%s has operations still running" % self._named(current),
                            unsettled=True if not_ready else None, branch_id=self.branch["id"]):
            current = self.find() or current
        return current

    def refusal(self, problem):
        return "%s cannot be %s" % (sentence(self.label), problem)


class Role(BranchItem):
    """A role, and its password: returned when created, reset or revealed this run, never lost."""

    description = ROLE

    def __init__(self, task, project_id, branch, name, reset_password=False, reveal_password=False):
        super(Role, self).__init__(task, project_id, branch, name)
        self.reset_password = reset_password
        self.reveal_password = reveal_password
        self.password_from = None  # how this run got a password: created, reset or revealed

    @classmethod
    def options_problem(cls, options):
        if len(options["name"].encode("utf-8")) > ROLE_NAME_MAX_BYTES:
            return "name must be at most %d bytes long" % ROLE_NAME_MAX_BYTES
        return None

    @classmethod
    def run(cls, task, options):
        if options["state"] == "absent":
            if options["reset_password"] or options["reveal_password"]:
                raise OptionError("reset_password and reveal_password need state=present")
            return cls(task, options["project_id"], options["branch"], options["name"]).absent()
        role = cls(task, options["project_id"], options["branch"], options["name"],
                   reset_password=options["reset_password"], reveal_password=options["reveal_password"])
        try:
            return role.present({})
        except TaskFailure as failure:
            if failure.result.get("password") and role.password_from in ("created", "reset"):
                failure.msg += (". The role's new password is in this result (password): keep it, the service "
                                "shows it only once")
            raise

    def cannot_delete(self, current):
        owned = owned_by(self.listed(DATABASE), self.name)
        if not owned:
            return None
        many = len(owned) > 1
        return "it owns the database%s %s; delete %s or give %s another owner with neon.cloud.database first" % (
            "s" if many else "", ", ".join(owned), "them" if many else "it", "them" if many else "it")

    def _resetting(self, plan):
        return self.reset_password and plan.action != CREATE

    def decide(self, current, options):
        """The role's plan; a password reset is a change of its own (``also_changes``)."""
        plan = super(Role, self).decide(current, options)
        plan.also_changes = bool(self.reset_password)
        return plan

    def preview(self, current, plan):
        """The diff, which says that a reset changes the password (never the password itself). Check mode's result:
        the role, and a password this run would return (created, reset or read again) null, as it is the service's to
        give; a later task that stores it reads it so (``rotated.password``)."""
        before, after, previewed = super(Role, self).preview(current, plan)
        if self._resetting(plan):
            before["password"] = "(the current one)"
            after["password"] = "(a new one, returned in password)"
        if plan.action == CREATE or self.reset_password or self.reveal_password:
            previewed = dict(password=None, **previewed)
        return before, after, previewed

    # ------------------------------------------------------------------------------------------ the password

    def created(self, data, path):
        self._keep_answered(data, "created")  # shown only in this answer, so kept before anything in it is checked
        return super(Role, self).created(data, path)

    def answered_instead(self, outcome):
        if not isinstance(outcome, Found):
            return None  # a refusal stands
        if not outcome.ours:
            if not self.reset_password:  # a reset follows, and its password is this run's
                self.task.warnings.append(
                    "Role %r of branch %s was created by another run at the same time; that run's result holds its "
                    "password, so this one returns none (reset_password=true gives a new one)." % (
                        self.name, self.branch["id"]))
            return outcome
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
        return outcome

    def act(self, current, plan):
        if self.reset_password and self.password_from != "created":
            self._reset()
        elif self.reveal_password and self.password_from is None:
            self._reveal()
        return current

    def _keep_answered(self, data, how):
        """The password a create or reset answered, kept in every result from now on (``how`` this run got it)."""
        password = role_password(data)
        if password is not None:
            self._keep(password, how)

    def _keep(self, password, how):
        self.task.kept["password"] = password
        self.client.remember_secret(password)
        self.password_from = how

    def _reset(self):
        what = "the password of %s was reset" % self.label
        path = self.collection_path() + api_path(self.name, "reset_password")
        data = self.task.change("POST", path, self.project_id, None, sentence(what))
        self._keep_answered(data, "reset")
        self.task.did(what)
        self.task.wait_for_operations_of(data, "POST", path, self.project_id, what)
        if self.password_from != "reset":
            raise self.task.failure("%s, but its answer holds no password" % what)

    def _reveal(self):
        path = self.collection_path() + api_path(self.name, "reveal_password")
        try:
            data = self.client.get(path)
        except NeonAPIError as error:
            if error.status == NOT_STORED:
                raise self.task.failure("%s: the project does not store passwords, so the service cannot show "
                                        "this one again (%s); reset_password=true gives a new one" % (
                                            self.label, error.describe()), error)
            raise self.task.failure("Reading the password of %s failed: %s" % (self.label, error.describe()), error)
        try:
            password = revealed_password(data, path)
        except UnexpectedAnswer as error:
            raise self.task.failure("Reading the password of %s: %s" % (self.label, error.describe()), error)
        self._keep(password, "revealed")


class Database(BranchItem):
    """A database and its owner, which must be a role of the branch (checked before a change)."""

    description = DATABASE

    @classmethod
    def options_problem(cls, options):
        if len(options["name"].encode("utf-8")) > DATABASE_NAME_MAX_BYTES:
            return "name must be at most %d bytes long" % DATABASE_NAME_MAX_BYTES
        if options["name"] in RESERVED_DATABASES:
            return "name %r is one of the service's own databases (%s)" % (options["name"], ", ".join(RESERVED_DATABASES))
        return None

    @classmethod
    def run(cls, task, options):
        database = cls(task, options["project_id"], options["branch"], options["name"])
        if options["state"] == "absent":
            return database.absent()
        return database.present({"owner": options["owner"]})

    def decide(self, current, options):
        """The database's plan, or its refusal: created without an owner. An owner that is not a role of the branch is
        refused too, and in check mode taken as made by an earlier task of the play (refusal.Missing)."""
        plan = super(Database, self).decide(current, options)
        if plan.action not in (CREATE, UPDATE):
            return plan
        owner = plan.body.get("owner_name")
        if plan.action == CREATE and owner is None:
            return Plan(REFUSE, self.refusal("created without an owner: give owner, the name of one of the branch's "
                                             "roles"))
        if owner is None:
            return plan
        roles = [role["name"] for role in self.listed(ROLE)]
        if owner not in roles:
            # Refused; in check mode taken as made by an earlier task of the play (refusal.Missing).
            self.task.assume(Missing(
                self.refusal("%s: its owner %r is not a role of the branch (its roles: %s); create it with "
                             "neon.cloud.role first" % ("created" if plan.action == CREATE else "given another owner",
                                                        owner, ", ".join(sorted(roles)) or "none")),
                "role %r of branch %s" % (owner, branch_label(self.branch))))
        return plan
