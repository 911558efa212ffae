# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""An OAuth provider of a branch's Neon Auth (``neon.cloud.neon_auth_oauth_provider``).

``GET .../auth/oauth_providers`` lists them (``{providers: [{id, type, client_id, client_secret}]}``),
``POST`` adds one (its ``id``: google, github, microsoft or vercel), ``PATCH .../{id}`` changes its client id,
secret or Microsoft tenant, ``DELETE .../{id}`` removes it (200, no body). Without a client id and secret a
provider uses Neon's shared credentials (``type: shared``), with them your own (``standard``); the service takes
both or neither (docs/docsite/rst/api-behaviour.rst, "Neon Auth, the Data API and JWKS").

The client secret is write-only: what the service answers of it is dropped at once and never compared with what
is given (a listing may hold it: it is kept out of every message). A provider that has its own credentials gets
the secret again only with another change, or with ``update_secret: always``; one on shared credentials gets it
with its client id. ``oauth_plan`` is pure and unit-tested; ``OAuthProvider`` is a Writer (writer.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, TaskFailure, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import branch_label, branch_named
from ansible_collections.neon.cloud.plugins.module_utils._resources.neon_auth import auth_path
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import Writer

PROVIDERS = ("google", "github", "microsoft", "vercel")
PROVIDER_FIELDS = dict(required={"id": (str,), "type": (str,)},
                       optional={"client_id": (str, type(None)), "client_secret": (str, type(None)),
                                 "microsoft_tenant_id": (str, type(None))})
COMPARED = ("client_id", "microsoft_tenant_id")
NOT_FOUND, CONFLICT = 404, 409


def options_problem(params):
    """Why the service would refuse these options whatever it holds, or None."""
    if params.get("microsoft_tenant_id") is not None and params.get("provider") != "microsoft":
        return "microsoft_tenant_id is only for the microsoft provider"
    if params.get("state") == "present" and (params.get("client_secret") is None) != (params.get("client_id") is None):
        return ("give client_id and client_secret together (your own OAuth client), or neither (Neon's shared "
                "credentials)")
    return None


def shown(item):
    """A provider as results and diffs show it: without its secret, ``has_client_secret`` saying whether it has one."""
    if item is None:
        return None
    kept = dict((name, value) for name, value in item.items() if name != "client_secret")
    kept["has_client_secret"] = bool(item.get("client_secret")) or item.get("type") == "standard"
    return kept


class OAuthPlan:
    """``action``: add, update, delete or none; ``body``: what is sent; ``secret_sent``: whether it holds the secret."""

    def __init__(self, action, body=None):
        self.action = action
        self.body = body or {}

    @property
    def changed(self):
        return self.action != "none"

    @property
    def secret_sent(self):
        return "client_secret" in self.body


def oauth_plan(current, params):
    """The plan for the provider ``current`` (as listed, or None) and the options ``params`` (pure)."""
    if params["state"] == "absent":
        return OAuthPlan("delete" if current is not None else "none")
    wanted = dict((name, params[name]) for name in COMPARED if params.get(name) is not None)
    secret = params.get("client_secret")
    if current is None:
        body = dict(wanted, id=params["provider"])
        if secret is not None:
            body["client_secret"] = secret
        return OAuthPlan("add", body)
    body = dict((name, value) for name, value in wanted.items() if current.get(name) != value)
    if secret is not None and (body or current.get("type") != "standard" or params.get("update_secret") == "always"):
        body["client_secret"] = secret
        body.setdefault("client_id", params.get("client_id"))
    return OAuthPlan("update" if body else "none", body)


class OAuthProvider(Writer):
    """The OAuth provider ``params["provider"]`` of a branch's Neon Auth (see the module's text)."""

    path_options = ("project_id", "branch")
    predicts_project = True

    starts_operations = False

    def __init__(self, task, params):
        super(OAuthProvider, self).__init__(task)
        self.params = params
        self.project_id = params["project_id"]
        self.branch = None

    def read(self):
        problem = options_problem(self.params)
        if problem:
            raise Refusal(problem)
        # in check mode, a branch (or project) an earlier task of the play would make is taken as made, without providers
        self.branch = branch_named(self.task, self.project_id, self.params.get("branch"))
        self.task.kept["branch_id"] = self.branch["id"]
        if self.branch["id"] is None:
            return None
        path = self._path()
        try:
            data = self.client.get(path)
        except NeonAPIError as error:
            if error.status != NOT_FOUND:
                raise
            if self.task.check_mode and self.params["state"] == "present":
                self.task.warnings.append("Neon Auth is not enabled on branch %s; taken as enabled by an earlier task "
                                          "of the play (check mode)" % branch_label(self.branch))
                return None
            if self.params["state"] == "absent":
                return None
            raise Refusal("Neon Auth is not enabled on branch %s (HTTP 404: %s): enable it first with "
                          "neon.cloud.neon_auth" % (branch_label(self.branch), error.api_message or "not found"), error)
        current = self._provider_in(data, path)
        self.task.kept["oauth_provider"] = shown(current)
        return current

    def _provider_in(self, data, path):
        """The asked provider in a listing (checked; every secret in it kept out of messages), or None."""
        items = answers.items_of(data, "GET", path, "providers", PROVIDER_FIELDS)
        for item in items:
            secret = item.get("client_secret")
            self.client.remember_secret(secret if isinstance(secret, str) and secret else None)
        found = [item for item in items if item["id"] == self.params["provider"]]
        return found[0] if found else None

    def decide(self, current):
        return oauth_plan(current, self.params)

    def diff(self, current, plan):
        before = shown(current)
        if plan.action == "delete" or (plan.action == "none" and current is None):
            return before, None
        if plan.action == "none":
            return before, before
        after = dict(before or {"id": self.params["provider"], "type": "shared", "has_client_secret": False})
        after.update((name, value) for name, value in plan.body.items() if name != "client_secret")
        if plan.secret_sent:
            after.update(type="standard", has_client_secret=True, client_secret_sent=True)
        return before, after

    def as_planned(self, current, plan, after):
        if plan.changed:
            self.task.kept["oauth_provider"] = dict((name, value) for name, value in (after or {}).items()
                                                    if name != "client_secret_sent") or None
        return after

    def act(self, current, plan):
        label = "the %s OAuth provider of branch %s" % (self.params["provider"], branch_label(self.branch))
        if plan.action == "delete":
            deleted, _answer = self.delete(self._path(self.params["provider"]), "Removing " + label, no_content=True,
                                           gone="%s was removed by another run at the same time" % label)
            if deleted:
                self.task.did(label + " was removed")
            return None
        method, path = ("POST", self._path()) if plan.action == "add" else ("PATCH", self._path(self.params["provider"]))
        try:
            data = self.task.change(method, path, None, plan.body, ("Adding " if method == "POST" else "Updating ") + label)
        except TaskFailure as failure:
            # 409 to an add: another run added it meanwhile; read again, it is then compared as on any run
            found = self._provider_in(self.client.get(path), path) \
                if method == "POST" and getattr(failure.cause, "status", None) == CONFLICT else None
            if found is None:
                raise
            self.task.warnings.append("%s was added by another run at the same time (this run's add was refused: it "
                                      "exists)" % (label[0].upper() + label[1:]))
            plan = oauth_plan(found, self.params)
            if plan.action == "none":
                return found
            method, path = "PATCH", self._path(self.params["provider"])
            data = self.task.change(method, path, None, plan.body, "Updating " + label)
        self.task.did(label + (" was added" if method == "POST" else " was updated"))
        try:
            item = answers.Checker(method, path).fields(data, "the answer", **PROVIDER_FIELDS)
        except UnexpectedAnswer as error:
            raise self.task.failure("its answer cannot be used: %s" % error.describe(), error)
        self.client.remember_secret(item.get("client_secret") or None)
        return item

    def read_again(self, current, done, after):
        self.task.kept["oauth_provider"] = shown(done)
        return after

    def _path(self, *more):
        return auth_path(self.project_id, self.branch["id"], "oauth_providers", *more)
