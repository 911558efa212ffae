# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A user of a branch's Neon Auth (``neon.cloud.neon_auth_user``): created, given roles, deleted.

``POST .../auth/users`` creates one (``{email, name}``; 201 ``{id}``; an email in use is refused with 409),
``PUT .../auth/users/{id}/role`` gives it its roles (``{roles: [...]}``), ``DELETE .../auth/users/{id}`` deletes
it (204; "cannot be undone"). The API has no way to read a user or list them (docs/docsite/rst/api-behaviour.rst,
"Neon Auth, the Data API and JWKS"), so:

- a user is created by its email once: a rerun is told by the service's 409 (not changed; its id is not in that
  answer, so roles given then are not compared - a warning says so);
- roles of a user given by ``id`` cannot be compared either: they are sent, and the task reports a change;
- a user is deleted by its ``id`` (the one a create returned); a 404 is one deleted already.

``user_plan`` is pure and unit-tested; ``AuthUser`` is a Writer (writer.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import branch_label, branch_named
from ansible_collections.neon.cloud.plugins.module_utils._resources.neon_auth import auth_path
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import Writer

EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
CONFLICT = 409
ID_FIELDS = dict(required={"id": (str,)})


def options_problem(params):
    """Why the task cannot be done whatever the service holds (before any request), or None."""
    email = params.get("email")
    if email is not None and (not EMAIL.match(email) or len(email) > 256):
        return "email must be an email address such as ada@example.com, got %r" % email
    if params.get("name") is not None and not 1 <= len(params["name"]) <= 255:
        return "name must be 1 to 255 characters"
    if params.get("roles") is not None and (not params["roles"] or not all(role for role in params["roles"])):
        return "roles must name at least one role"
    if params["state"] == "absent" and params.get("id") is None:
        return ("state=absent needs the user's id (the one its creation returned): the API cannot find a user by "
                "its email")
    if params["state"] == "present" and params.get("id") is None and email is None:
        return "give the email of the user to create, or the id of the user whose roles to set"
    return None


def user_plan(params):
    """(requests, in order): ``create``, ``roles``, ``delete`` (pure: the API reads no user, see the module's text)."""
    if params["state"] == "absent":
        return ["delete"]
    steps = [] if params.get("id") is not None else ["create"]
    if params.get("roles") is not None:
        steps.append("roles")
    return steps


class UserPlan:
    def __init__(self, steps):
        self.steps = steps

    @property
    def changed(self):
        return bool(self.steps)


class AuthUser(Writer):
    """A user of a branch's Neon Auth as ``params`` ask (see the module's text)."""

    path_options = ("project_id", "branch", "id")
    predicts_project = True

    starts_operations = False

    def __init__(self, task, params):
        super(AuthUser, self).__init__(task)
        self.params = params
        self.project_id = params["project_id"]
        self.branch = None

    def read(self):
        problem = options_problem(self.params)
        if problem:
            raise Refusal(problem)
        # in check mode, a branch (or project) an earlier task of the play would make is taken as made
        self.branch = branch_named(self.task, self.project_id, self.params.get("branch"))
        self.task.kept["branch_id"] = self.branch["id"]
        self.task.kept["user_id"] = self.params.get("id")
        return None

    def decide(self, current):
        steps = user_plan(self.params)
        if self.task.check_mode and "create" in steps:
            self.task.warnings.append("check mode: the API cannot tell whether %s is a user already, so the task "
                                      "reports the creation it would try" % self.params["email"])
        return UserPlan(steps)

    def diff(self, current, plan):
        user = dict(email=self.params.get("email"), id=self.params.get("id"))
        if "delete" in plan.steps:
            return user, None
        after = dict(user, name=self.params.get("name"))
        if self.params.get("roles") is not None:
            after["roles"] = list(self.params["roles"])
        return (None if "create" in plan.steps else user), after

    def act(self, current, plan):
        label = branch_label(self.branch)
        path = auth_path(self.project_id, self.branch["id"], "users")
        user_id = self.params.get("id")
        if "delete" in plan.steps:
            # a 204 (the document's answer) is empty whatever the call says
            deleted, _answer = self.delete("%s/%s" % (path, user_id), "Deleting user %s of branch %s" % (user_id, label))
            if deleted:
                self.task.did("user %s of branch %s was deleted" % (user_id, label))
            self.task.kept["user_id"] = None
            return None
        if "create" in plan.steps:
            user_id = self._create(path, label)
            if user_id is None:
                if "roles" in plan.steps:
                    self.task.warnings.append(
                        "%s is a user of branch %s already; the API does not say its id, so its roles were not "
                        "compared or set (give id to set them)" % (self.params["email"], label))
                return None
        if "roles" in plan.steps:
            role_path = "%s/%s/role" % (path, user_id)
            data = self.task.change("PUT", role_path, None, {"roles": list(self.params["roles"])},
                                    "Giving user %s of branch %s the roles %s" % (
                                        user_id, label, ", ".join(self.params["roles"])))
            self._checked(data, "PUT", role_path)
            self.task.did("user %s was given the roles %s" % (user_id, ", ".join(self.params["roles"])))
            self.task.kept["roles"] = list(self.params["roles"])
        return None

    def _create(self, path, label):
        """The new user's id, kept in the result at once; None when the email is a user already (409)."""
        body = {"email": self.params["email"]}
        if self.params.get("name") is not None:
            body["name"] = self.params["name"]
        try:
            data = self.task.send("POST", path, None, body)
        except NeonAPIError as error:
            if error.status == CONFLICT:
                return None
            raise self.task.failure("Creating user %s of branch %s failed: %s" % (
                self.params["email"], label, error.describe()), error)
        user_id = self._checked(data, "POST", path)
        self.task.kept["user_id"] = user_id
        self.task.did("user %s of branch %s was created (id %s)" % (self.params["email"], label, user_id))
        return user_id

    def _checked(self, data, method, path):
        try:
            return answers.Checker(method, path).fields(data, "the answer", **ID_FIELDS)["id"]
        except UnexpectedAnswer as error:
            raise self.task.failure("its answer cannot be used: %s" % error.describe(), error)

    def result(self, before, after):
        if not self.task.check_mode and not self.task.changed:
            after = before  # the email was a user already: nothing was changed
        return super(AuthUser, self).result(before, after)
