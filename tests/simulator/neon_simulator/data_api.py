# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Data API of a branch's database and a project's JWKS URLs: State's area (openapi/neon-api-v2.json, the June 2026 document,
"the document": createProjectBranchDataAPI, getProjectBranchDataAPI, updateProjectBranchDataAPI,
deleteProjectBranchDataAPI; getProjectJWKS, addProjectJWKS, deleteProjectJWKS).

The area's object (state.data_api): every ``api_*`` method takes the authenticating key, holds the state's lock
and answers JSON-like data; ``reset`` forgets every Data API and JWKS URL.

CHOICES (the document is silent; tests/simulator/README.md, "Neon Auth, the Data API and JWKS"):

- A Data API is one per (branch, database); a database the branch lacks is 404, a second create 409
  ``MESSAGE_DATA_API_EXISTS``, and GET, PATCH and DELETE of none 404 ``MESSAGE_NO_DATA_API``. Its status is
  ``ready`` at once; no operation is started.
- ``auth_provider: neon_auth`` needs Neon Auth on the branch (400 ``MESSAGE_NEEDS_NEON_AUTH``); ``external``
  needs a ``jwks_url`` (400). Neither is shown by GET (the document's DataAPIReponse has no such field).
- GET shows every setting: the document's defaults (``DATA_API_DEFAULTS``) and what was set; PATCH changes the
  settings given and refreshes the schema cache (``schema_cache_refreshes`` counts them, control API only);
  ``available_schemas`` is ``public`` and, with Neon Auth on the branch, ``neon_auth``.
- JWKS URLs must be ``https`` URLs (400); a ``branch_id`` must name a branch of the project (404); the same URL
  for the same branch (or for all) twice is 409 ``MESSAGE_JWKS_EXISTS``. Adding answers its ``operations``
  empty (nothing is started).
"""

from __future__ import annotations

import copy
import random

from . import ids
from .clock import iso_seconds
from .errors import Conflict, InvalidRequest, NotFound
from .neon_auth import is_url, read_fields

MESSAGE_DATA_API_EXISTS = "Data API already exists for database %s"
MESSAGE_NO_DATA_API = "Data API not found for database %s"
MESSAGE_NEEDS_NEON_AUTH = "auth_provider neon_auth: Neon Auth is not enabled for branch %s"
MESSAGE_JWKS_EXISTS = "JWKS URL %s already exists"
MESSAGE_JWKS_NOT_FOUND = "JWKS %s not found"
SETTINGS = (("db_aggregates_enabled", bool, None), ("db_anon_role", str, None), ("db_extra_search_path", str, None),
            ("db_max_rows", int, (1, 2 ** 31 - 1)), ("jwt_role_claim_key", str, None),
            ("jwt_cache_max_lifetime", int, (0, 2 ** 31 - 1)), ("openapi_mode", str, ("ignore-privileges", "disabled")),
            ("server_cors_allowed_origins", str, None), ("server_timing_enabled", bool, None))
DATA_API_DEFAULTS = {"db_aggregates_enabled": True, "db_anon_role": "anonymous", "db_schemas": ["public"],
                     "jwt_role_claim_key": ".role", "openapi_mode": "disabled"}


def read_settings(body):
    settings = body.get("settings")
    if settings is None:
        return {}
    if not isinstance(settings, dict):
        raise InvalidRequest("settings: must be an object")
    taken = read_fields(settings, SETTINGS)
    schemas = settings.get("db_schemas")
    if schemas is not None:
        if not isinstance(schemas, list) or not all(isinstance(item, str) and item for item in schemas):
            raise InvalidRequest("settings.db_schemas: must be a list of schema names")
        taken["db_schemas"] = list(schemas)
    return taken


class DataApi:
    """The Data API and JWKS area of State (see the module's text)."""

    def __init__(self, shared, neon_auth):
        self.shared = shared
        self.neon_auth = neon_auth
        self.apis = {}   # (project id, branch id, database) -> {url, settings, auth_provider, ..., refreshes}
        self.jwks = {}   # project id -> [JWKS record]
        self.rng = random.Random(shared.seed)

    def reset(self):
        """Back to the seeded state: none of either (lock held)."""
        self.apis = {}
        self.jwks = {}
        self.rng = random.Random(self.shared.seed)

    # ------------------------------------------------------------------ the Data API
    def _located(self, key, project_id, branch_id, database):
        project = self.shared.reachable(key, project_id)
        branch = self.shared.branch(project, branch_id)
        if database not in branch.databases:
            raise NotFound("database %s not found" % database)
        return project, branch

    def _api(self, key, project_id, branch_id, database):
        project, branch = self._located(key, project_id, branch_id, database)
        api = self.apis.get((project.id, branch.id, database))
        if api is None:
            raise NotFound(MESSAGE_NO_DATA_API % database)
        return project, branch, api

    def api_create(self, key, project_id, branch_id, database, body):
        with self.shared.lock:
            project, branch = self._located(key, project_id, branch_id, database)
            if (project.id, branch.id, database) in self.apis:
                raise Conflict(MESSAGE_DATA_API_EXISTS % database)
            provider = body.get("auth_provider", "neon_auth")
            if provider not in ("neon_auth", "external"):
                raise InvalidRequest("auth_provider: must be neon_auth or external, got %r" % (provider,))
            taken = read_fields(body, (("jwks_url", str, None), ("provider_name", str, None),
                                       ("jwt_audience", str, None), ("add_default_grants", bool, None),
                                       ("skip_auth_schema", bool, None)))
            if provider == "neon_auth" and self.neon_auth.enabled(project.id, branch.id) is None:
                raise InvalidRequest(MESSAGE_NEEDS_NEON_AUTH % branch.id)
            if provider == "external" and not is_url(taken.get("jwks_url")):
                raise InvalidRequest("jwks_url: an https URL is required with auth_provider external")
            settings = dict(copy.deepcopy(DATA_API_DEFAULTS), **read_settings(body))
            url = "https://%s.apirest.us-east-2.aws.neon.tech/%s/rest/v1" % (branch.id.replace("br-", "ep-"), database)
            self.apis[(project.id, branch.id, database)] = dict(taken, url=url, auth_provider=provider,
                                                                settings=settings, refreshes=0)
            return {"url": url}

    def api_get(self, key, project_id, branch_id, database):
        with self.shared.lock:
            project, branch, api = self._api(key, project_id, branch_id, database)
            schemas = ["public"] + (["neon_auth"] if self.neon_auth.enabled(project.id, branch.id) else [])
            return {"url": api["url"], "status": "ready", "settings": copy.deepcopy(api["settings"]),
                    "available_schemas": schemas}

    def api_update(self, key, project_id, branch_id, database, body):
        with self.shared.lock:
            api = self._api(key, project_id, branch_id, database)[2]
            api["settings"].update(read_settings(body))
            api["refreshes"] += 1
            return {}

    def api_delete(self, key, project_id, branch_id, database):
        with self.shared.lock:
            project, branch, _api = self._api(key, project_id, branch_id, database)
            del self.apis[(project.id, branch.id, database)]
            return {}

    def schema_cache_refreshes(self, project_id, branch_id, database):
        """How often the schema cache was refreshed (control API and tests)."""
        with self.shared.lock:
            api = self.apis.get((project_id, branch_id, database))
            return None if api is None else api["refreshes"]

    # ------------------------------------------------------------------ JWKS
    def api_list_jwks(self, key, project_id):
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            return {"jwks": [dict(item) for item in self.jwks.get(project.id, [])]}

    def api_add_jwks(self, key, project_id, body):
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            taken = read_fields(body, (("jwks_url", str, None), ("provider_name", str, None), ("branch_id", str, None),
                                       ("jwt_audience", str, None), ("skip_role_creation", bool, None)),
                                required=("jwks_url", "provider_name"))
            if not (is_url(taken["jwks_url"]) and taken["jwks_url"].startswith("https://")):
                raise InvalidRequest("jwks_url: must be an https URL, got %r" % taken["jwks_url"])
            if taken.get("branch_id") is not None:
                self.shared.branch(project, taken["branch_id"])
            roles = body.get("role_names", ["authenticator", "authenticated", "anonymous"])
            if not isinstance(roles, list) or len(roles) > 10 or not all(isinstance(role, str) for role in roles):
                raise InvalidRequest("role_names: must be a list of at most 10 role names")
            items = self.jwks.setdefault(project.id, [])
            if any(item["jwks_url"] == taken["jwks_url"] and item.get("branch_id") == taken.get("branch_id")
                   for item in items):
                raise Conflict(MESSAGE_JWKS_EXISTS % taken["jwks_url"])
            now = iso_seconds(self.shared.now_us())
            item = {"id": ids.seeded_uuid(self.rng), "project_id": project.id, "jwks_url": taken["jwks_url"],
                    "provider_name": taken["provider_name"], "created_at": now, "updated_at": now,
                    "role_names": list(roles)}
            for name in ("branch_id", "jwt_audience"):
                if taken.get(name) is not None:
                    item[name] = taken[name]
            items.append(item)
            return {"jwks": dict(item), "operations": []}

    def api_delete_jwks(self, key, project_id, jwks_id):
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            items = self.jwks.get(project.id, [])
            found = [item for item in items if item["id"] == jwks_id]
            if not found:
                raise NotFound(MESSAGE_JWKS_NOT_FOUND % jwks_id)
            items.remove(found[0])
            return dict(found[0])
