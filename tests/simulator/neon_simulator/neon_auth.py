# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Neon Auth of a branch: State's area for the 28 branch-scoped operations of the June 2026 document
(openapi/neon-api-v2.json, "the document"; the project-level ones are deprecated there and not served).

The area's object (state.neon_auth, given the shared data and helpers of shared.py): every ``api_*`` method takes
the authenticating key, holds the state's lock and answers JSON-like data; ``reset`` forgets every integration.

A branch's integration (``BranchAuth``) holds its provider, its keys (answered once, by the enabling POST), its
trusted domains, OAuth providers, settings, plugins, webhooks and users. With real computes (``--postgres``)
enabling it makes the ``neon_auth`` schema and its ``users_sync`` table in the branch's database (the document:
"provisions the neon_auth schema in the branch database"), a user made or deleted through the API is a row made
or deleted there, and disabling with ``delete_data: true`` drops the schema.

CHOICES (the document is silent; tests/simulator/README.md, "Neon Auth, the Data API and JWKS"):

- None of these operations starts an operation or is refused with 423.
- A branch without Neon Auth: 404 ``MESSAGE_NOT_ENABLED`` for every operation below its ``/auth``, and for
  ``GET`` and ``DELETE`` of ``/auth`` itself. Enabling it twice: 409 ``MESSAGE_ALREADY_ENABLED``.
- Enabling takes ``database_name`` (default: ``neondb`` when the branch has it, else its first database; one it
  lacks is 404) and answers 201 with the keys; no later answer shows ``secret_server_key`` again.
- A new integration has Google and GitHub as OAuth providers with shared credentials (``type: shared``, no
  client id); one given a client id and secret is ``standard``. Both or neither of the two are given (400).
  Lists and PATCH answers show ``client_secret`` as the document's schema has it.
- Trusted domains must be ``http``/``https`` URLs with a host (400); adding one listed is 409; deleting one that
  is not listed is no error. Their ``auth_provider`` must be the integration's (400).
- Users: the email must hold an ``@`` (400); an email used already is 409 ``MESSAGE_USER_EXISTS``. The API
  has no listing of users (the document has none): control ``GET .../auth/users`` shows them.
- Settings start as DEFAULTS below; PATCHes change only the fields given, with the document's types and ranges
  (400 naming the field); the webhook configuration is replaced whole by its PUT, and a URL is required (an
  ``https`` one) while it is enabled.
- A test email to a host ending in ``.invalid`` answers ``success: false`` with the error a lookup gives.
"""

from __future__ import annotations

import copy
import json
import random

from . import ids
from .clock import iso_seconds
from .errors import Conflict, InvalidRequest, NotFound

AUTH_PROVIDERS = ("mock", "stack", "better_auth")
OAUTH_PROVIDERS = ("google", "github", "microsoft", "vercel")
WEBHOOK_EVENTS = ("user.before_create", "user.created", "send.otp", "send.magic_link",
                  "organization.invitation.created", "organization.invitation.accepted", "phone_number.verified")
SCHEMA_NAME = "neon_auth"
TABLE_NAME = "users_sync"
MESSAGE_NOT_ENABLED = "Neon Auth is not enabled for branch %s"
MESSAGE_ALREADY_ENABLED = "Neon Auth is already enabled for branch %s"
MESSAGE_DATABASE_NOT_FOUND = "database %s not found"
MESSAGE_PROVIDER_EXISTS = "OAuth provider %s already exists"
MESSAGE_PROVIDER_NOT_FOUND = "OAuth provider %s not found"
MESSAGE_DOMAIN_EXISTS = "domain %s already exists in the redirect_uri whitelist"
MESSAGE_USER_EXISTS = "user with email %s already exists"
MESSAGE_USER_NOT_FOUND = "user %s not found"

# (field, types, range or choices) of each settings object, as the document gives them
EMAIL_AND_PASSWORD = (("enabled", bool, None), ("email_verification_method", str, ("link", "otp")),
                      ("require_email_verification", bool, None), ("auto_sign_in_after_verification", bool, None),
                      ("send_verification_email_on_sign_up", bool, None),
                      ("send_verification_email_on_sign_in", bool, None), ("disable_sign_up", bool, None))
ORGANIZATION = (("enabled", bool, None), ("organization_limit", int, (1, 2 ** 31 - 1)),
                ("membership_limit", int, (1, 2 ** 31 - 1)), ("creator_role", str, ("admin", "owner")),
                ("send_invitation_email", bool, None))
MAGIC_LINK = (("enabled", bool, None), ("expires_in", int, (5, 1440)), ("disable_sign_up", bool, None))
PHONE_NUMBER = (("enabled", bool, None), ("otp_expires_in", int, (60, 600)))
STANDARD_EMAIL = (("host", str, None), ("port", int, (1, 65535)), ("username", str, None), ("password", str, None),
                  ("sender_email", str, None), ("sender_name", str, None))
DEFAULTS = {
    "allow_localhost": True,
    "email_and_password": {"enabled": True, "email_verification_method": "otp", "require_email_verification": False,
                           "auto_sign_in_after_verification": True, "send_verification_email_on_sign_up": False,
                           "send_verification_email_on_sign_in": False, "disable_sign_up": False},
    "email_provider": {"type": "shared", "sender_email": "auth@mail.myneon.app", "sender_name": "Neon Auth"},
    "organization": {"enabled": True, "organization_limit": 10, "membership_limit": 100, "creator_role": "owner",
                     "send_invitation_email": False},
    "magic_link": {"enabled": False, "expires_in": 5, "disable_sign_up": False},
    "phone_number": {"enabled": False, "otp_expires_in": 300},
    "webhooks": {"enabled": False, "enabled_events": [], "timeout_seconds": 5},
}


def is_url(text):
    """An ``http``/``https`` URL with a host (the document's ``format: uri`` of a redirect domain)."""
    if not isinstance(text, str):
        return False
    scheme, sep, rest = text.partition("://")
    host = rest.split("/", 1)[0].split(":", 1)[0]
    return bool(sep) and scheme in ("http", "https") and bool(host) and " " not in text


def literal(text):
    """``text`` quoted as an SQL string (pg_cluster.literal; that module is imported only with real computes)."""
    return "'%s'" % text.replace("'", "''")


def read_fields(body, fields, required=()):
    """The fields of ``body`` named in ``fields`` (name, type, range or choices), each checked (400 naming it)."""
    taken = {}
    for name, kind, limits in fields:
        if name not in body or body[name] is None:
            if name in required:
                raise InvalidRequest("%s: field required" % name)
            continue
        value = body[name]
        if isinstance(value, bool) != (kind is bool) or not isinstance(value, kind):
            raise InvalidRequest("%s: must be %s" % (name, {bool: "true or false", int: "an integer", str: "a string"}[kind]))
        if kind is int and limits is not None and not limits[0] <= value <= limits[1]:
            raise InvalidRequest("%s: must be from %d to %d" % (name, limits[0], limits[1]))
        if kind is str and limits is not None and value not in limits:
            raise InvalidRequest("%s: must be one of %s" % (name, ", ".join(limits)))
        taken[name] = value
    return taken


class BranchAuth:
    """One branch's Neon Auth integration (see the module's text)."""

    def __init__(self, branch, provider, database, name, created_us, rng):
        self.branch_id = branch.id
        self.provider = provider
        self.database = database
        self.name = name
        self.created_us = created_us
        self.provider_project_id = ids.seeded_uuid(rng)
        self.pub_client_key = "pck_" + "".join(rng.choice("0123456789abcdef") for _position in range(48))
        self.secret_server_key = "ssk_" + "".join(rng.choice("0123456789abcdef") for _position in range(64))
        self.base_url = "https://%s.neonauth.us-east-2.aws.neon.tech/neondb/auth" % branch.id.replace("br-", "ep-")
        self.jwks_url = self.base_url + "/.well-known/jwks.json"
        self.domains = []
        self.oauth = {"google": {"id": "google", "type": "shared"}, "github": {"id": "github", "type": "shared"}}
        self.settings = copy.deepcopy(DEFAULTS)
        self.users = {}  # id -> {id, email, name, roles}

    def render(self):
        """SPEC NeonAuthIntegration."""
        return {"auth_provider": self.provider, "auth_provider_project_id": self.provider_project_id,
                "branch_id": self.branch_id, "db_name": self.database, "created_at": iso_seconds(self.created_us),
                "owned_by": "neon", "jwks_url": self.jwks_url, "base_url": self.base_url, "name": self.name}

    def created(self):
        """SPEC NeonAuthCreateIntegrationResponse: the keys, shown this once."""
        return {"auth_provider": self.provider, "auth_provider_project_id": self.provider_project_id,
                "pub_client_key": self.pub_client_key, "secret_server_key": self.secret_server_key,
                "jwks_url": self.jwks_url, "schema_name": SCHEMA_NAME, "table_name": TABLE_NAME,
                "base_url": self.base_url}

    def providers(self):
        return [dict(item) for item in self.oauth.values()]

    def plugins(self):
        """SPEC NeonAuthPluginConfigs."""
        settings = copy.deepcopy(self.settings)
        return {"organization": settings["organization"], "magic_link": settings["magic_link"],
                "phone_number": settings["phone_number"], "email_provider": settings["email_provider"],
                "email_and_password": settings["email_and_password"], "oauth_providers": self.providers(),
                "allow_localhost": settings["allow_localhost"]}


class NeonAuth:
    """The branch-scoped ``/auth`` area of State (see the module's text)."""

    def __init__(self, shared):
        self.shared = shared
        self.branches = {}  # (project id, branch id) -> BranchAuth
        self.rng = random.Random(shared.seed)

    def reset(self):
        """Back to the seeded state: no branch has Neon Auth (lock held)."""
        self.branches = {}
        self.rng = random.Random(self.shared.seed)

    # ------------------------------------------------------------------ finding
    def _locate(self, key, project_id, branch_id):
        project = self.shared.reachable(key, project_id)
        return project, self.shared.branch(project, branch_id)

    def _auth(self, key, project_id, branch_id):
        project, branch = self._locate(key, project_id, branch_id)
        auth = self.branches.get((project.id, branch.id))
        if auth is None:
            raise NotFound(MESSAGE_NOT_ENABLED % branch.id)
        return auth

    def enabled(self, project_id, branch_id):
        """The branch's integration or None (the Data API area asks, lock held)."""
        return self.branches.get((project_id, branch_id))

    def _sql(self, project, branch, database, statement):
        real = self.shared.real
        if real is not None:
            real.run_sql(project.id, branch, database, statement, self.shared.resources(project).branches,
                         self.shared.now_us())

    # ------------------------------------------------------------------ the integration
    def api_get(self, key, project_id, branch_id):
        with self.shared.lock:
            return self._auth(key, project_id, branch_id).render()

    def api_enable(self, key, project_id, branch_id, body):
        with self.shared.lock:
            project, branch = self._locate(key, project_id, branch_id)
            provider = body.get("auth_provider")
            if provider not in AUTH_PROVIDERS:
                raise InvalidRequest("auth_provider: must be one of %s" % ", ".join(AUTH_PROVIDERS))
            if (project.id, branch.id) in self.branches:
                raise Conflict(MESSAGE_ALREADY_ENABLED % branch.id)
            database = body.get("database_name")
            if database is None:
                database = "neondb" if "neondb" in branch.databases else next(iter(branch.databases), None)
            if not isinstance(database, str) or database not in branch.databases:
                raise NotFound(MESSAGE_DATABASE_NOT_FOUND % database)
            self._sql(project, branch, database,
                      "CREATE SCHEMA IF NOT EXISTS %s; CREATE TABLE IF NOT EXISTS %s.%s (raw_json jsonb NOT NULL, "
                      "id text PRIMARY KEY, name text, email text, created_at timestamptz, updated_at timestamptz, "
                      "deleted_at timestamptz)" % (SCHEMA_NAME, SCHEMA_NAME, TABLE_NAME))
            auth = BranchAuth(branch, provider, database, project.name, self.shared.now_us(), self.rng)
            self.branches[(project.id, branch.id)] = auth
            return auth.created()

    def api_disable(self, key, project_id, branch_id, body):
        with self.shared.lock:
            project, branch = self._locate(key, project_id, branch_id)
            auth = self._auth(key, project_id, branch_id)
            delete_data = body.get("delete_data", False)
            if not isinstance(delete_data, bool):
                raise InvalidRequest("delete_data: must be true or false")
            if delete_data:
                self._sql(project, branch, auth.database, "DROP SCHEMA IF EXISTS %s CASCADE" % SCHEMA_NAME)
            del self.branches[(project.id, branch.id)]

    # ------------------------------------------------------------------ trusted domains
    def api_list_domains(self, key, project_id, branch_id):
        with self.shared.lock:
            auth = self._auth(key, project_id, branch_id)
            return {"domains": [{"domain": domain, "auth_provider": auth.provider} for domain in auth.domains]}

    def _provider_of(self, auth, body):
        if body.get("auth_provider") != auth.provider:
            raise InvalidRequest("auth_provider: the branch's Neon Auth provider is %s, got %r"
                                 % (auth.provider, body.get("auth_provider")))

    def api_add_domain(self, key, project_id, branch_id, body):
        with self.shared.lock:
            auth = self._auth(key, project_id, branch_id)
            domain = body.get("domain")
            if not is_url(domain):
                raise InvalidRequest("domain: must be a URL such as https://app.example.com, got %r" % (domain,))
            self._provider_of(auth, body)
            if domain in auth.domains:
                raise Conflict(MESSAGE_DOMAIN_EXISTS % domain)
            auth.domains.append(domain)

    def api_delete_domains(self, key, project_id, branch_id, body):
        with self.shared.lock:
            auth = self._auth(key, project_id, branch_id)
            self._provider_of(auth, body)
            items = body.get("domains")
            if not isinstance(items, list) or not all(isinstance(item, dict) and isinstance(item.get("domain"), str)
                                                      for item in items):
                raise InvalidRequest("domains: must be a list of {\"domain\": ...}")
            gone = set(item["domain"] for item in items)
            auth.domains = [domain for domain in auth.domains if domain not in gone]

    # ------------------------------------------------------------------ OAuth providers
    def api_list_providers(self, key, project_id, branch_id):
        with self.shared.lock:
            return {"providers": self._auth(key, project_id, branch_id).providers()}

    @staticmethod
    def _credentials(provider_id, body, item):
        for name in ("client_id", "client_secret", "microsoft_tenant_id"):
            value = body.get(name)
            if value is not None and (not isinstance(value, str) or not value):
                raise InvalidRequest("%s: must be a non-empty string" % name)
        if body.get("microsoft_tenant_id") is not None and provider_id != "microsoft":
            raise InvalidRequest("microsoft_tenant_id: only for the microsoft provider")
        given = [name for name in ("client_id", "client_secret") if body.get(name) is not None]
        if len(given) == 1 and item.get("type") != "standard":
            raise InvalidRequest("client_id and client_secret: give both, or neither for shared credentials")
        for name in ("client_id", "client_secret", "microsoft_tenant_id"):
            if body.get(name) is not None:
                item[name] = body[name]
        if given:
            item["type"] = "standard"
        return item

    def api_add_provider(self, key, project_id, branch_id, body):
        with self.shared.lock:
            auth = self._auth(key, project_id, branch_id)
            provider_id = body.get("id")
            if provider_id not in OAUTH_PROVIDERS:
                raise InvalidRequest("id: must be one of %s, got %r" % (", ".join(OAUTH_PROVIDERS), provider_id))
            if provider_id in auth.oauth:
                raise Conflict(MESSAGE_PROVIDER_EXISTS % provider_id)
            item = self._credentials(provider_id, body, {"id": provider_id, "type": "shared"})
            auth.oauth[provider_id] = item
            return dict(item)

    def _provider(self, auth, provider_id):
        item = auth.oauth.get(provider_id)
        if item is None:
            raise NotFound(MESSAGE_PROVIDER_NOT_FOUND % provider_id)
        return item

    def api_update_provider(self, key, project_id, branch_id, provider_id, body):
        with self.shared.lock:
            auth = self._auth(key, project_id, branch_id)
            item = self._provider(auth, provider_id)
            updated = self._credentials(provider_id, body, dict(item))
            auth.oauth[provider_id] = updated
            return dict(updated)

    def api_delete_provider(self, key, project_id, branch_id, provider_id):
        with self.shared.lock:
            auth = self._auth(key, project_id, branch_id)
            self._provider(auth, provider_id)
            del auth.oauth[provider_id]

    # ------------------------------------------------------------------ users
    def api_create_user(self, key, project_id, branch_id, body):
        with self.shared.lock:
            project, branch = self._locate(key, project_id, branch_id)
            auth = self._auth(key, project_id, branch_id)
            email = body.get("email")
            if not isinstance(email, str) or "@" not in email or not 1 <= len(email) <= 256:
                raise InvalidRequest("email: must be an email address, got %r" % (email,))
            name = body.get("name")
            if name is not None and (not isinstance(name, str) or not 1 <= len(name) <= 255):
                raise InvalidRequest("name: must be a string of 1 to 255 characters")
            if any(user["email"].lower() == email.lower() for user in auth.users.values()):
                raise Conflict(MESSAGE_USER_EXISTS % email)
            user_id = ids.seeded_uuid(self.rng)
            user = {"id": user_id, "email": email, "name": name, "roles": ["user"]}
            self._sql(project, branch, auth.database, self._user_row(user))
            auth.users[user_id] = user
            return {"id": user_id}

    def _user_row(self, user):
        raw = json.dumps({"id": user["id"], "email": user["email"], "name": user["name"], "role": user["roles"][0],
                          "roles": user["roles"]})
        now = iso_seconds(self.shared.now_us())
        return ("INSERT INTO %s.%s (raw_json, id, name, email, created_at, updated_at) VALUES (%s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (id) DO UPDATE SET raw_json = EXCLUDED.raw_json, updated_at = EXCLUDED.updated_at"
                % (SCHEMA_NAME, TABLE_NAME, literal(raw), literal(user["id"]),
                   literal(user["name"]) if user["name"] is not None else "NULL", literal(user["email"]),
                   literal(now), literal(now)))

    def _user(self, auth, user_id):
        user = auth.users.get(user_id)
        if user is None:
            raise NotFound(MESSAGE_USER_NOT_FOUND % user_id)
        return user

    def api_delete_user(self, key, project_id, branch_id, user_id):
        with self.shared.lock:
            project, branch = self._locate(key, project_id, branch_id)
            auth = self._auth(key, project_id, branch_id)
            self._user(auth, user_id)
            self._sql(project, branch, auth.database,
                      "DELETE FROM %s.%s WHERE id = %s" % (SCHEMA_NAME, TABLE_NAME, literal(user_id)))
            del auth.users[user_id]

    def api_set_user_roles(self, key, project_id, branch_id, user_id, body):
        with self.shared.lock:
            project, branch = self._locate(key, project_id, branch_id)
            auth = self._auth(key, project_id, branch_id)
            user = self._user(auth, user_id)
            roles = body.get("roles")
            if not isinstance(roles, list) or not roles or not all(isinstance(role, str) and role for role in roles):
                raise InvalidRequest("roles: must be a list of at least one role name")
            changed = dict(user, roles=list(roles))
            self._sql(project, branch, auth.database, self._user_row(changed))
            auth.users[user_id] = changed
            return {"id": user_id}

    def control_users(self, project_id, branch_id):
        """The branch's users as the simulator holds them (control API: the API has no listing)."""
        with self.shared.lock:
            auth = self.branches.get((project_id, branch_id))
            if auth is None:
                raise NotFound(MESSAGE_NOT_ENABLED % branch_id)
            return {"users": [dict(user) for user in auth.users.values()]}

    # ------------------------------------------------------------------ settings
    def api_get_setting(self, key, project_id, branch_id, name):
        """GET of email_and_password, email_provider, allow_localhost, phone-number, webhooks; the plugins."""
        with self.shared.lock:
            auth = self._auth(key, project_id, branch_id)
            if name == "plugins":
                return auth.plugins()
            if name == "allow_localhost":
                return {"allow_localhost": auth.settings["allow_localhost"]}
            return copy.deepcopy(auth.settings[name])

    def api_update_setting(self, key, project_id, branch_id, name, body):
        """PATCH of email_and_password, allow_localhost and the plugins: only the fields given change."""
        with self.shared.lock:
            auth = self._auth(key, project_id, branch_id)
            if name == "allow_localhost":
                auth.settings["allow_localhost"] = read_fields(body, (("allow_localhost", bool, None),),
                                                               required=("allow_localhost",))["allow_localhost"]
                return {"allow_localhost": auth.settings["allow_localhost"]}
            fields = {"email_and_password": EMAIL_AND_PASSWORD, "organization": ORGANIZATION,
                      "magic_link": MAGIC_LINK, "phone_number": PHONE_NUMBER}[name]
            auth.settings[name].update(read_fields(body, fields))
            return copy.deepcopy(auth.settings[name])

    def api_update_email_provider(self, key, project_id, branch_id, body):
        with self.shared.lock:
            auth = self._auth(key, project_id, branch_id)
            kind = body.get("type")
            if kind == "standard":
                taken = read_fields(body, STANDARD_EMAIL, required=[field[0] for field in STANDARD_EMAIL])
            elif kind == "shared":
                taken = read_fields(body, (("sender_email", str, None), ("sender_name", str, None)))
            else:
                raise InvalidRequest("type: must be standard or shared, got %r" % (kind,))
            auth.settings["email_provider"] = dict(taken, type=kind)
            return copy.deepcopy(auth.settings["email_provider"])

    def api_update_config(self, key, project_id, branch_id, body):
        with self.shared.lock:
            auth = self._auth(key, project_id, branch_id)
            name = body.get("name")
            if not isinstance(name, str) or not 1 <= len(name) <= 256:
                raise InvalidRequest("name: must be a string of 1 to 256 characters")
            auth.name = name
            return {"name": name}

    def api_set_webhooks(self, key, project_id, branch_id, body):
        with self.shared.lock:
            auth = self._auth(key, project_id, branch_id)
            taken = read_fields(body, (("enabled", bool, None), ("webhook_url", str, None),
                                       ("timeout_seconds", int, (1, 10))), required=("enabled",))
            events = body.get("enabled_events", [])
            if not isinstance(events, list) or any(event not in WEBHOOK_EVENTS for event in events):
                raise InvalidRequest("enabled_events: each must be one of %s" % ", ".join(WEBHOOK_EVENTS))
            url = taken.get("webhook_url")
            if url is not None and not (is_url(url) and url.startswith("https://")):
                raise InvalidRequest("webhook_url: must be an https URL, got %r" % url)
            if taken["enabled"] and url is None:
                raise InvalidRequest("webhook_url: required while webhooks are enabled")
            auth.settings["webhooks"] = dict(taken, enabled_events=list(events),
                                             timeout_seconds=taken.get("timeout_seconds", 5))
            return copy.deepcopy(auth.settings["webhooks"])

    def api_send_test_email(self, key, project_id, branch_id, body):
        with self.shared.lock:
            self._auth(key, project_id, branch_id)
            taken = read_fields(body, STANDARD_EMAIL, required=[field[0] for field in STANDARD_EMAIL])
            recipient = body.get("recipient_email")
            if not isinstance(recipient, str) or "@" not in recipient:
                raise InvalidRequest("recipient_email: must be an email address")
            if taken["host"].endswith(".invalid"):
                return {"success": False, "error_message": "dial tcp: lookup %s: no such host" % taken["host"]}
            return {"success": True}
