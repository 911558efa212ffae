# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A project's JWKS URL (``neon.cloud.jwks``): the keys that JWTs of an auth provider are checked with, for the
whole project or one branch.

``GET /projects/{id}/jwks`` lists them, ``POST`` adds one (``jwks_url`` and ``provider_name`` required;
``branch_id`` scopes it to a branch, ``jwt_audience`` the ``aud`` it takes; 201 with the JWKS and operations),
``DELETE /projects/{id}/jwks/{jwks_id}`` removes it (200, the JWKS). The API cannot change one: a JWKS URL is
known by its URL and branch, and one found with another provider name or audience is refused with what to do
(docs/docsite/rst/api-behaviour.rst, "Neon Auth, the Data API and JWKS").

``jwks_plan`` is pure and unit-tested; ``ProjectJwks`` is a Writer (writer.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, TaskFailure, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import choose_branch, list_branches, no_such_project
from ansible_collections.neon.cloud.plugins.module_utils._resources.neon_auth import is_url
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import Writer

CONFLICT = 409
JWKS_FIELDS = dict(required={"id": (str,), "jwks_url": (str,), "provider_name": (str,)},
                   optional={"project_id": (str,), "branch_id": (str, type(None)), "jwt_audience": (str, type(None)),
                             "created_at": (str,), "updated_at": (str,), "role_names": (list,)})


def options_problem(params):
    url = params.get("jwks_url")
    if not (is_url(url) and url.lower().startswith("https://")):
        return "jwks_url must be an https URL, got %r" % (url,)
    if params["state"] == "present" and not params.get("provider_name"):
        return "provider_name is required to add a JWKS URL (the auth provider's name, such as Clerk or Auth0)"
    return None


def jwks_plan(items, url, branch_id, params):
    """(action, the JWKS found or None, why): add, delete, none, or refuse (pure)."""
    found = [item for item in items if item["jwks_url"] == url and item.get("branch_id") == branch_id]
    current = found[0] if found else None
    if params["state"] == "absent":
        return ("delete" if current else "none"), current, None
    if current is None:
        return "add", None, None
    differs = [name for name in ("provider_name", "jwt_audience")
               if params.get(name) is not None and current.get(name) != params[name]]
    if differs:
        return "refuse", current, (
            "the JWKS URL %s is there with %s; the API cannot change a JWKS URL: remove it (state=absent) and add it "
            "again" % (url, ", ".join("%s %r, not %r as asked" % (name, current.get(name), params[name]) for name in differs)))
    return "none", current, None


class JwksPlan:
    def __init__(self, action):
        self.action = action

    @property
    def changed(self):
        return self.action in ("add", "delete")


class ProjectJwks(Writer):
    """A JWKS URL of ``params["project_id"]`` (see the module's text)."""

    path_options = ("project_id",)

    starts_operations = False

    def __init__(self, task, params):
        super(ProjectJwks, self).__init__(task)
        self.params = params
        self.project_id = params["project_id"]
        self.branch_id = None
        self.found = None

    def read(self):
        problem = options_problem(self.params)
        if problem:
            raise Refusal(problem)
        if self.params.get("branch") is not None:
            branch = choose_branch(list_branches(self.client, self.project_id), self.params["branch"], self.project_id)
            self.branch_id = branch["id"]
        return self._listed()

    def _listed(self):
        path = project_path(self.project_id, "jwks")
        try:
            data = self.client.get(path)
        except NeonAPIError as error:
            if error.status == 404:
                raise Refusal(no_such_project(self.project_id, error), error)
            raise
        return answers.items_of(data, "GET", path, "jwks", JWKS_FIELDS)

    def decide(self, current):
        action, found, why = jwks_plan(current, self.params["jwks_url"], self.branch_id, self.params)
        self.task.kept["jwks"] = found
        if action == "refuse":
            raise Refusal(why)
        self.found = found
        return JwksPlan(action)

    def diff(self, current, plan):
        before = self.found
        if plan.action == "delete":
            return before, None
        if plan.action == "add":
            after = {"jwks_url": self.params["jwks_url"], "provider_name": self.params["provider_name"],
                     "branch_id": self.branch_id}
            if self.params.get("jwt_audience") is not None:
                after["jwt_audience"] = self.params["jwt_audience"]
            return before, after
        return before, before

    def as_planned(self, current, plan, after):
        if plan.changed:
            self.task.kept["jwks"] = after
        return after

    def act(self, current, plan):
        if plan.action == "delete":
            path = project_path(self.project_id, "jwks", self.found["id"])
            deleted, _answer = self.delete(path, "Removing the JWKS URL %s" % self.params["jwks_url"])
            if deleted:
                self.task.did("the JWKS URL %s was removed" % self.params["jwks_url"])
            self.task.kept["jwks"] = None
            return None
        path = project_path(self.project_id, "jwks")
        body = {"jwks_url": self.params["jwks_url"], "provider_name": self.params["provider_name"]}
        if self.params.get("jwt_audience") is not None:
            body["jwt_audience"] = self.params["jwt_audience"]
        if self.branch_id is not None:
            body["branch_id"] = self.branch_id
        try:
            data = self.task.change("POST", path, None, body, "Adding the JWKS URL %s" % self.params["jwks_url"])
        except TaskFailure as failure:
            self._added_by_another_run(failure)
            return None
        self.task.did("the JWKS URL %s was added" % self.params["jwks_url"])
        try:
            self.task.kept["jwks"] = answers.item_of(data, "POST", path, "jwks", JWKS_FIELDS)
        except UnexpectedAnswer as error:
            raise self.task.failure("its answer cannot be used: %s" % error.describe(), error)
        return None

    def _added_by_another_run(self, failure):
        """After a refused add (409: the URL is there for that branch), the one another run added meanwhile is this
        run's result, with a warning; one with another provider name or audience is refused as on any run."""
        if getattr(failure.cause, "status", None) != CONFLICT:
            raise failure
        action, found, why = jwks_plan(self.unless_refused(self._listed), self.params["jwks_url"], self.branch_id,
                                       self.params)
        if found is None:
            raise failure
        if action == "refuse":
            raise self.task.failure("Adding the JWKS URL %s failed: %s; another run added it meanwhile: %s" % (
                self.params["jwks_url"], failure.cause.describe(), why), failure.cause)
        self.task.kept["jwks"] = found
        self.task.warnings.append("the JWKS URL %s was added by another run at the same time (this run's request was "
                                  "refused: it exists); that one is this result" % self.params["jwks_url"])
