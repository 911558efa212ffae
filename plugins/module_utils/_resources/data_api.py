# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Data API of a branch's database (``neon.cloud.data_api``): created, updated, its schema cache refreshed,
removed.

``.../branches/{id}/data-api/{database}``: ``POST`` creates it (201 ``{url}``) with its auth provider
(``neon_auth``: the branch's Neon Auth; ``external``: a JWKS URL) and its JWT settings; ``GET`` answers its URL,
status and settings (404 when there is none); ``PATCH`` changes settings and always refreshes the schema cache
(201, an empty object); ``DELETE`` removes it (200, an empty object). The auth provider, JWKS URL, provider name,
audience and grants are sent only when it is created: ``GET`` does not show them, so they cannot be compared
(docs/docsite/rst/api-behaviour.rst, "Neon Auth, the Data API and JWKS").

``options_problem`` and ``settings_change`` are pure and unit-tested; ``DataApi`` is a Writer (writer.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, TaskFailure, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import branch_label, branch_named
from ansible_collections.neon.cloud.plugins.module_utils._resources.neon_auth import is_url
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import Writer

CREATE_ONLY = ("jwks_url", "provider_name", "jwt_audience", "add_default_grants", "skip_auth_schema")
DATA_API_FIELDS = dict(required={"url": (str,), "status": (str,)},
                       optional={"settings": (dict, type(None)), "available_schemas": (list, type(None))})
CREATED_FIELDS = dict(required={"url": (str,)})
NOT_FOUND, CONFLICT = 404, 409


def options_problem(params):
    """Why the service would refuse these options whatever it holds (before any request), or None."""
    url = params.get("jwks_url")
    if url is not None and not (is_url(url) and url.lower().startswith("https://")):
        return "jwks_url must be an https URL, got %r" % url
    if params.get("state") == "present" and params.get("auth_provider") == "external" and url is None:
        return "auth_provider=external needs jwks_url (the keys the Data API checks JWTs with)"
    settings = params.get("settings") or {}
    if settings.get("db_max_rows") is not None and settings["db_max_rows"] < 1:
        return "settings.db_max_rows must be at least 1, got %d" % settings["db_max_rows"]
    if settings.get("db_schemas") is not None and not all(settings["db_schemas"]):
        return "settings.db_schemas must name schemas"
    return None


def settings_change(current, wanted):
    """The settings of ``wanted`` (given ones only) that ``current`` does not hold (pure)."""
    current = current or {}
    return dict((name, value) for name, value in (wanted or {}).items()
                if value is not None and current.get(name) != value)


class DataApiPlan:
    def __init__(self, action, settings=None, refresh=False):
        self.action = action  # create, update, delete or none
        self.settings = settings or {}
        self.refresh = refresh

    @property
    def changed(self):
        return self.action != "none"


class DataApi(Writer):
    """The Data API of ``params["database"]`` of a branch (see the module's text)."""

    path_options = ("project_id", "branch", "database")
    predicts_project = True

    starts_operations = False

    def __init__(self, task, params):
        super(DataApi, self).__init__(task)
        self.params = params
        self.project_id = params["project_id"]
        self.branch = None

    def read(self):
        problem = options_problem(self.params)
        if problem:
            raise Refusal(problem)
        # in check mode, a branch (or project) an earlier task of the play would make is taken as made, without one
        self.branch = branch_named(self.task, self.project_id, self.params.get("branch"))
        self.task.kept["branch_id"] = self.branch["id"]
        current = None if self.branch["id"] is None else self._get()
        self.task.kept["data_api"] = current
        return current

    def _path(self):
        return project_path(self.project_id, "branches", self.branch["id"], "data-api", self.params["database"])

    def _get(self):
        path = self._path()
        try:
            data = self.client.get(path)
        except NeonAPIError as error:
            if error.status == NOT_FOUND:
                return None
            raise
        return answers.Checker("GET", path).fields(data, "the answer", **DATA_API_FIELDS)

    def decide(self, current):
        if self.params["state"] == "absent":
            return DataApiPlan("delete" if current is not None else "none")
        if current is None:
            return DataApiPlan("create", settings_change({}, self.params.get("settings")))
        change = settings_change(current.get("settings"), self.params.get("settings"))
        refresh = bool(self.params.get("refresh_schema_cache"))
        return DataApiPlan("update" if change or refresh else "none", change, refresh)

    def diff(self, current, plan):
        wanted = dict((name, value) for name, value in (self.params.get("settings") or {}).items() if value is not None)
        if current is None:
            before = None
        else:
            before = {"url": current["url"], "settings": dict((name, (current.get("settings") or {}).get(name))
                                                              for name in wanted)}
        if plan.action == "delete" or before is None and plan.action == "none":
            return before, None
        if plan.action == "create":
            after = {"auth_provider": self.params.get("auth_provider") or "neon_auth", "settings": wanted}
            after.update((name, self.params[name]) for name in CREATE_ONLY if self.params.get(name) is not None)
            return before, after
        after = dict(before, settings=dict(before["settings"], **plan.settings))
        if plan.refresh:
            after["schema_cache_refreshed"] = True
        return before, after

    def as_planned(self, current, plan, after):
        if plan.action == "delete":
            self.task.kept["data_api"] = None
        return after

    def act(self, current, plan):
        label = "the Data API of database %s of branch %s" % (self.params["database"], branch_label(self.branch))
        path = self._path()
        if plan.action == "delete":
            deleted, _answer = self.delete(path, "Removing " + label, no_content=True)
            if deleted:
                self.task.did(label + " was removed")
            return None
        if plan.action == "create":
            plan = self._create(path, label, plan)
            if plan is None or plan.action == "none":
                return None
        body = {"settings": plan.settings} if plan.settings else {}
        self.task.change("PATCH", path, None, body, "Updating " + label, no_content=True)
        self.task.did(label + (" was updated" if plan.settings else "") +
                      (" and its schema cache refreshed" if plan.settings else "'s schema cache was refreshed"))
        return None

    def _create(self, path, label, plan):
        """POST the create once: None when it was created; after a 409 (it exists: another run created it meanwhile,
        found when read again) the plan for the one found, with a warning."""
        body = {"auth_provider": self.params.get("auth_provider") or "neon_auth"}
        body.update((name, self.params[name]) for name in CREATE_ONLY if self.params.get(name) is not None)
        if plan.settings:
            body["settings"] = plan.settings
        try:
            data = self.task.change("POST", path, None, body, "Creating " + label)
        except TaskFailure as failure:
            found = self._get() if getattr(failure.cause, "status", None) == CONFLICT else None
            if found is None:
                raise
            self.task.kept["data_api"] = found
            self.task.warnings.append(
                "%s was created by another run at the same time (this run's create was refused: it exists); what is "
                "sent only at creation (%s) is that run's and cannot be compared; its settings are compared as on "
                "any run" % (label[0].upper() + label[1:], ", ".join(("auth_provider",) + CREATE_ONLY)))
            return self.decide(found)
        self.task.did(label + " was created")
        try:
            answers.Checker("POST", path).fields(data, "the answer", **CREATED_FIELDS)
        except UnexpectedAnswer as error:
            raise self.task.failure("its answer cannot be used: %s" % error.describe(), error)
        return None

    def read_again(self, current, done, after):
        self.task.kept["data_api"] = self._get()
        return after
