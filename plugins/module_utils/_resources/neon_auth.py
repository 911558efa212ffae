# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Neon Auth of a branch (``neon.cloud.neon_auth``, ``neon.cloud.neon_auth_info``): the integration and its settings.

The branch-scoped operations of ``/projects/{id}/branches/{id}/auth`` (docs/docsite/rst/api-behaviour.rst, "Neon
Auth, the Data API and JWKS"): ``GET`` (404 while it is not enabled), ``POST`` enables it and answers its keys
once (``secret_server_key`` is never shown again), ``DELETE`` disables it (``delete_data`` drops the ``neon_auth``
schema and its users); below it the trusted domains (added one at a time, deleted as a list), the settings
(``email_and_password``, ``allow_localhost``, the plugins: PATCHes of the fields given), the email provider
(its whole configuration), the application name (``config``) and the webhooks (``PUT``: replaced whole). None
of them starts an operation.

The decisions are pure (``options_problem``, ``setting_changes``, ``domain_changes``) and unit-tested;
``NeonAuthTask`` is a Writer (writer.py) and ``read_neon_auth`` the info module's reading. A setting left out is
neither compared nor changed; the email provider's password is write-only: it is sent with any other change of
the email provider, or always with ``update_password: always``, and never shown (the diff says only whether it
is sent).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, TaskFailure, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import branch_label, branch_named, locate_branch
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import Writer

AUTH_PROVIDERS = ("better_auth", "stack", "mock")
WEBHOOK_EVENTS = ("user.before_create", "user.created", "send.otp", "send.magic_link",
                  "organization.invitation.created", "organization.invitation.accepted", "phone_number.verified")
# The settings objects of the plugins answer and the PATCH path of each (the document's paths)
PLUGIN_PATHS = {"organization": "plugins/organization", "magic_link": "plugins/magic-link",
                "phone_number": "plugins/phone-number"}
# Ranges the service takes (the June 2026 document), checked before any request: option path -> (low, high)
RANGES = {("plugins", "organization", "organization_limit"): (1, 2 ** 31 - 1),
          ("plugins", "organization", "membership_limit"): (1, 2 ** 31 - 1),
          ("plugins", "magic_link", "expires_in"): (5, 1440),
          ("plugins", "phone_number", "otp_expires_in"): (60, 600),
          ("webhooks", "timeout_seconds"): (1, 10),
          ("email_provider", "port"): (1, 65535)}
STANDARD_EMAIL_FIELDS = ("host", "port", "username", "password", "sender_email", "sender_name")
SECRET = "password"
INTEGRATION_FIELDS = dict(required={"auth_provider": (str,), "branch_id": (str,), "db_name": (str,)},
                          optional={"auth_provider_project_id": (str,), "created_at": (str,), "owned_by": (str,),
                                    "jwks_url": (str,), "base_url": (str,), "name": (str,),
                                    "transfer_status": (str,)})
CREATED_FIELDS = dict(required={"auth_provider": (str,), "pub_client_key": (str,), "secret_server_key": (str,)},
                      optional={"auth_provider_project_id": (str,), "jwks_url": (str,), "schema_name": (str,),
                                "table_name": (str,), "base_url": (str,)})
DOMAIN_FIELDS = dict(required={"domain": (str,)}, optional={"auth_provider": (str,)})
WEBHOOK_FIELDS = dict(required={"enabled": (bool,)},
                      optional={"webhook_url": (str, type(None)), "enabled_events": (list,),
                                "timeout_seconds": (int,)})
NOT_FOUND, CONFLICT = 404, 409


# ---------------------------------------------------------------------------------------------- decisions (pure)

def is_url(text):
    """An ``http``/``https`` URL with a host, as a trusted domain must be (``https://pr-42.example.com``)."""
    if not isinstance(text, str) or any(char.isspace() for char in text):
        return False
    scheme, sep, rest = text.partition("://")
    host = rest.split("/", 1)[0].rsplit("@", 1)[-1].split(":", 1)[0]
    return bool(sep) and scheme.lower() in ("http", "https") and bool(host) and ".." not in host


def _value_at(params, path):
    value = params
    for name in path:
        if not isinstance(value, dict):
            return None
        value = value.get(name)
    return value


def options_problem(params):
    """Why the service would refuse these options whatever it holds (before any request), or None."""
    for domain in params.get("trusted_domains") or ():
        if not is_url(domain):
            return ("trusted_domains: %r is not a URL; give the origin the app redirects to, such as "
                    "https://pr-42.example.com" % (domain,))
    for path, (low, high) in sorted(RANGES.items()):
        value = _value_at(params, path)
        if value is not None and not low <= value <= high:
            return "%s must be from %d to %d, got %d" % (".".join(path), low, high, value)
    webhooks = params.get("webhooks") or {}
    url = webhooks.get("url")
    if url is not None and not (is_url(url) and url.lower().startswith("https://")):
        return "webhooks.url must be an https URL, got %r" % (url,)
    provider = params.get("email_provider") or {}
    if provider.get("type") == "standard":
        missing = [name for name in STANDARD_EMAIL_FIELDS if provider.get(name) is None]
        if missing:
            return "email_provider of type standard needs %s (the service takes the whole configuration)" % (
                ", ".join(missing))
    if params.get("state") == "absent" and any(params.get(name) is not None for name in SETTING_OPTIONS):
        return "state=absent disables Neon Auth; leave out its settings (%s)" % ", ".join(
            name for name in SETTING_OPTIONS if params.get(name) is not None)
    return None


SETTING_OPTIONS = ("app_name", "allow_localhost", "trusted_domains", "email_and_password", "email_provider",
                   "plugins", "webhooks")


class Change:
    """One request of a settings change: ``label`` (``email_and_password``), ``method``, ``segment`` (below
    ``/auth``), ``body``, and the diff's ``before`` and ``after`` of what changes (never a secret)."""

    def __init__(self, label, method, segment, body, before, after):
        self.label = label
        self.method = method
        self.segment = segment
        self.body = body
        self.before = before
        self.after = after


def given(settings):
    """The fields of an option's dict that were given (Ansible fills the others with None)."""
    return dict((name, value) for name, value in (settings or {}).items() if value is not None)


def differing(current, wanted):
    """The fields of ``wanted`` whose value ``current`` does not hold."""
    return dict((name, value) for name, value in wanted.items() if current.get(name) != value)


def _email_provider_change(current, wanted, update_password):
    wanted = dict(wanted)
    password = wanted.pop(SECRET, None)
    kind = wanted.get("type")
    compared = dict((name, value) for name, value in wanted.items())
    if kind == "shared":
        compared = dict((name, value) for name, value in compared.items() if name in ("type", "sender_email", "sender_name"))
    changes = differing(current or {}, compared)
    if not changes and not (password is not None and update_password == "always"):
        return None
    body = dict(compared)
    if password is not None:
        body[SECRET] = password
    shown_after = dict(compared, password_sent=password is not None) if password is not None else dict(compared)
    before = dict((name, (current or {}).get(name)) for name in compared)
    return Change("email_provider", "PATCH", "email_provider", body, before, shown_after)


def setting_changes(current, params):
    """The requests that make the settings ``current`` (``plugins``: the plugins' answer, ``name``, ``webhooks``)
    what ``params`` asks, a Change each, in the order they are sent. Only what is given is compared."""
    changes = []
    plugins = current.get("plugins") or {}
    if params.get("app_name") is not None and current.get("name") != params["app_name"]:
        changes.append(Change("app_name", "PATCH", "config", {"name": params["app_name"]},
                              {"app_name": current.get("name")}, {"app_name": params["app_name"]}))
    if params.get("allow_localhost") is not None and plugins.get("allow_localhost") != params["allow_localhost"]:
        changes.append(Change("allow_localhost", "PATCH", "allow_localhost",
                              {"allow_localhost": params["allow_localhost"]},
                              {"allow_localhost": plugins.get("allow_localhost")},
                              {"allow_localhost": params["allow_localhost"]}))
    wanted = given(params.get("email_and_password"))
    now = plugins.get("email_and_password") or {}
    if differing(now, wanted):
        body = differing(now, wanted)
        changes.append(Change("email_and_password", "PATCH", "email_and_password", body,
                              dict((name, now.get(name)) for name in body), body))
    if given(params.get("email_provider")):
        change = _email_provider_change(plugins.get("email_provider"), given(params["email_provider"]),
                                        params.get("update_password"))
        if change is not None:
            changes.append(change)
    for name in ("organization", "magic_link", "phone_number"):
        wanted = given((params.get("plugins") or {}).get(name))
        now = plugins.get(name) or {}
        body = differing(now, wanted)
        if body:
            changes.append(Change("plugins." + name, "PATCH", PLUGIN_PATHS[name], body,
                                  dict((field, now.get(field)) for field in body), body))
    wanted = given(params.get("webhooks"))
    if wanted:
        wanted = dict(("webhook_url" if name == "url" else "enabled_events" if name == "events" else name, value)
                      for name, value in wanted.items())
        now = current.get("webhooks") or {}
        body = differing(now, wanted)
        if body:
            whole = dict((name, now[name]) for name in ("enabled", "webhook_url", "enabled_events", "timeout_seconds")
                         if now.get(name) is not None)
            whole.update(wanted)
            changes.append(Change("webhooks", "PUT", "webhooks", whole,
                                  dict((field, now.get(field)) for field in body), body))
    return changes


def domain_changes(current, wanted, purge):
    """(to add, to delete): the trusted domains ``wanted`` that ``current`` lacks, in their order, and with
    ``purge`` the ones listed but not wanted. Compared as written, but for a trailing ``/``."""
    def key(domain):
        return domain.rstrip("/").lower()

    held = set(key(domain) for domain in current)
    asked = set(key(domain) for domain in wanted)
    adding = []
    for domain in wanted:
        if key(domain) not in held and key(domain) not in set(key(item) for item in adding):
            adding.append(domain)
    deleting = [domain for domain in current if key(domain) not in asked] if purge else []
    return adding, deleting


# ---------------------------------------------------------------------------------------------- reading

def auth_path(project_id, branch_id, *more):
    return project_path(project_id, "branches", branch_id, "auth", *more)


def get_integration(client, project_id, branch_id):
    """The branch's integration (checked), or None while Neon Auth is not enabled (404)."""
    path = auth_path(project_id, branch_id)
    try:
        data = client.get(path)
    except NeonAPIError as error:
        if error.status == NOT_FOUND:
            return None
        raise
    return answers.Checker("GET", path).fields(data, "the answer", **INTEGRATION_FIELDS)


def get_object(client, project_id, branch_id, segment):
    path = auth_path(project_id, branch_id, segment)
    return answers.Checker("GET", path).object(client.get(path))


def get_domains(client, project_id, branch_id):
    path = auth_path(project_id, branch_id, "domains")
    return [item["domain"] for item in answers.items_of(client.get(path), "GET", path, "domains", DOMAIN_FIELDS)]


def shown_plugins(plugins, client):
    """The plugins' answer without a secret: OAuth client secrets and the email provider's password are
    dropped (and no message may show them), ``has_client_secret`` / ``has_password`` say whether one is set."""
    shown = dict(plugins)
    providers = []
    for item in plugins.get("oauth_providers") or ():
        if isinstance(item, dict):
            item = dict(item)
            secret = item.pop("client_secret", None)
            client.remember_secret(secret if isinstance(secret, str) and secret else None)
            item["has_client_secret"] = bool(secret)
            providers.append(item)
    if "oauth_providers" in plugins:
        shown["oauth_providers"] = providers
    provider = plugins.get("email_provider")
    if isinstance(provider, dict):
        provider = dict(provider)
        secret = provider.pop(SECRET, None)
        client.remember_secret(secret if isinstance(secret, str) and secret else None)
        if provider.get("type") == "standard":
            provider["has_password"] = bool(secret)
        shown["email_provider"] = provider
    return shown


def read_neon_auth(client, project_id, branch):
    """What ``neon_auth_info`` returns: the branch, whether Neon Auth is enabled and, when it is, its integration,
    trusted domains, settings (no secret) and webhooks."""
    found = locate_branch(client, project_id, branch)
    integration = get_integration(client, project_id, found["id"])
    result = dict(branch_id=found["id"], enabled=integration is not None, neon_auth=integration)
    if integration is not None:
        result["trusted_domains"] = get_domains(client, project_id, found["id"])
        result["settings"] = shown_plugins(get_object(client, project_id, found["id"], "plugins"), client)
        path = auth_path(project_id, found["id"], "webhooks")
        result["webhooks"] = answers.Checker("GET", path).fields(client.get(path), "the answer", **WEBHOOK_FIELDS)
    return result


# ---------------------------------------------------------------------------------------------- the task

class NeonAuthPlan:
    """What the task does: ``enable`` / ``disable`` the integration, the settings' changes, the domains."""

    def __init__(self, enable=False, disable=False, changes=(), adding=(), deleting=()):
        self.enable = enable
        self.disable = disable
        self.changes = list(changes)
        self.adding = list(adding)
        self.deleting = list(deleting)

    @property
    def changed(self):
        return bool(self.enable or self.disable or self.changes or self.adding or self.deleting)


class NeonAuthTask(Writer):
    """Neon Auth of a branch as ``params`` ask (see the module's text)."""

    path_options = ("project_id", "branch")
    predicts_project = True

    starts_operations = False

    def __init__(self, task, params):
        super(NeonAuthTask, self).__init__(task)
        self.params = params
        self.project_id = params["project_id"]
        self.present = params["state"] == "present"
        self.branch = None

    # -------------------------------------------------------------------- read
    def read(self):
        problem = options_problem(self.params)
        if problem:
            raise Refusal(problem)
        # in check mode, a branch (or project) an earlier task of the play would make is taken as made, without Neon Auth
        self.branch = branch_named(self.task, self.project_id, self.params.get("branch"))
        self.task.kept["branch_id"] = self.branch["id"]
        integration = None if self.branch["id"] is None else get_integration(self.client, self.project_id,
                                                                             self.branch["id"])
        self.task.kept["neon_auth"] = integration
        self.task.kept["enabled"] = integration is not None
        return self._settings(integration) if integration is not None and self.present else {"integration": integration}

    def _settings(self, integration):
        """The settings the options ask about, as the service holds them."""
        current = {"integration": integration, "name": integration.get("name")}
        bid = self.branch["id"]
        params = self.params
        if any(params.get(name) is not None for name in ("allow_localhost", "email_and_password", "email_provider", "plugins")):
            current["plugins"] = get_object(self.client, self.project_id, bid, "plugins")
            shown_plugins(current["plugins"], self.client)  # its secrets kept out of every message
        if params.get("webhooks") is not None:
            path = auth_path(self.project_id, bid, "webhooks")
            current["webhooks"] = answers.Checker("GET", path).fields(self.client.get(path), "the answer",
                                                                      **WEBHOOK_FIELDS)
        if params.get("trusted_domains") is not None:
            current["domains"] = get_domains(self.client, self.project_id, bid)
        return current

    # -------------------------------------------------------------------- decide
    def decide(self, current):
        integration = current["integration"]
        params = self.params
        if not self.present:
            return NeonAuthPlan(disable=integration is not None)
        if integration is None:
            return NeonAuthPlan(enable=True)
        provider = params.get("auth_provider")
        if provider is not None and integration["auth_provider"] != provider:
            raise Refusal("Neon Auth of branch %s uses the provider %s, not %s as asked; the service cannot change it: "
                          "disable it (state=absent, which drops its integration) and enable it again"
                          % (branch_label(self.branch), integration["auth_provider"], provider))
        database = params.get("database")
        if database is not None and integration["db_name"] != database:
            raise Refusal("Neon Auth of branch %s is in database %s, not %s as asked; the service cannot move it"
                          % (branch_label(self.branch), integration["db_name"], database))
        adding, deleting = ([], [])
        if params.get("trusted_domains") is not None:
            adding, deleting = domain_changes(current["domains"], params["trusted_domains"],
                                              params.get("purge_trusted_domains"))
        return NeonAuthPlan(changes=setting_changes(current, params), adding=adding, deleting=deleting)

    # -------------------------------------------------------------------- diff and check mode
    def diff(self, current, plan):
        enabled = current["integration"] is not None
        before, after = {"enabled": enabled}, {"enabled": enabled}
        if plan.enable:
            after = {"enabled": True, "auth_provider": self.params.get("auth_provider") or AUTH_PROVIDERS[0]}
            for name in SETTING_OPTIONS:
                if self.params.get(name) is not None:
                    after[name] = self._shown_option(name)
        if plan.disable:
            after = {"enabled": False, "delete_data": bool(self.params.get("delete_data")),
                     "note": "disabling drops the integration: its OAuth providers, trusted domains and settings"
                             + (", and the neon_auth schema with its users" if self.params.get("delete_data") else "")}
        for change in plan.changes:
            before[change.label] = change.before
            after[change.label] = change.after
        if plan.adding or plan.deleting:
            before["trusted_domains"] = list(current.get("domains") or ())
            after["trusted_domains"] = [domain for domain in before["trusted_domains"] if domain not in plan.deleting] \
                + plan.adding
        return before, after

    def _shown_option(self, name):
        value = self.params[name]
        if name == "email_provider":
            value = given(value)
            if value.pop(SECRET, None) is not None:
                value["password_sent"] = True
        elif isinstance(value, dict):
            value = dict((key, given(item) if isinstance(item, dict) else item) for key, item in given(value).items())
        return value

    def as_planned(self, current, plan, after):
        if plan.enable or plan.disable:
            self.task.kept["enabled"] = plan.enable
        return after

    # -------------------------------------------------------------------- act
    def act(self, current, plan):
        bid = self.branch["id"]
        label = branch_label(self.branch)
        if plan.disable:
            self.task.change("DELETE", auth_path(self.project_id, bid), None,
                             {"delete_data": bool(self.params.get("delete_data"))},
                             "Disabling Neon Auth of branch %s" % label, no_content=True)
            self.task.did("Neon Auth of branch %s was disabled%s" % (
                label, " and its neon_auth schema deleted" if self.params.get("delete_data") else ""))
            return None
        if plan.enable:
            self._enable(label)
            integration = get_integration(self.client, self.project_id, bid)
            if integration is None:  # disabled meanwhile by another run, or not readable yet: the keys stay kept
                raise Refusal("Neon Auth of branch %s was enabled, but reads as not enabled right after (another run "
                              "may have disabled it); its keys, returned once, are in this result" % label)
            current = self._settings(integration)
            plan = self.unless_refused(self.decide, current)
        self._apply(current, plan, label)
        return None

    def _enable(self, label):
        path = auth_path(self.project_id, self.branch["id"])
        body = {"auth_provider": self.params.get("auth_provider") or AUTH_PROVIDERS[0]}
        if self.params.get("database") is not None:
            body["database_name"] = self.params["database"]
        # Not repeated on a lost answer: a second POST would be refused (enabled already) and the keys are shown once.
        try:
            data = self.task.change("POST", path, None, body, "Enabling Neon Auth of branch %s" % label)
        except TaskFailure as failure:
            self._enabled_by_another_run(failure, body["auth_provider"], label)
            return
        if isinstance(data, dict):
            for name in ("pub_client_key", "secret_server_key"):
                if isinstance(data.get(name), str) and data[name]:
                    self.task.kept[name] = data[name]
            self.client.remember_secret(self.task.kept.get("secret_server_key"))
        self.task.did("Neon Auth of branch %s was enabled" % label)
        try:
            answers.Checker("POST", path).fields(data, "the answer", **CREATED_FIELDS)
        except UnexpectedAnswer as error:
            raise self.task.failure("its answer cannot be used: %s" % error.describe(), error)

    def _enabled_by_another_run(self, failure, provider, label):
        """After a refused enabling: another run's integration, enabled meanwhile with the asked provider, is this
        run's too (a warning says whose the keys are); anything else is the failure as it was."""
        if getattr(failure.cause, "status", None) != CONFLICT:
            raise failure
        integration = get_integration(self.client, self.project_id, self.branch["id"])
        if integration is None:
            raise failure
        if integration["auth_provider"] != provider:
            raise self.task.failure("Enabling Neon Auth of branch %s failed: %s; another run enabled it meanwhile with the "
                                    "provider %s, not %s as asked, and the service cannot change it: disable it "
                                    "(state=absent, which drops its integration) and enable it again" % (
                                        label, failure.cause.describe(), integration["auth_provider"], provider),
                                    failure.cause)
        self.task.warnings.append(
            "Neon Auth of branch %s was enabled by another run at the same time (this run's request was refused: "
            "already enabled); that run holds its keys (pub_client_key, secret_server_key), which the service "
            "returns once: they are not in this result" % label)

    def _apply(self, current, plan, label):
        bid = self.branch["id"]
        for change in plan.changes:
            self.task.change(change.method, auth_path(self.project_id, bid, change.segment), None, change.body,
                             "Setting %s of Neon Auth of branch %s" % (change.label, label))
            self.task.did("%s of Neon Auth of branch %s was set" % (change.label, label))
        provider = current["integration"]["auth_provider"]
        for domain in plan.adding:
            try:
                self.task.change("POST", auth_path(self.project_id, bid, "domains"), None,
                                 {"domain": domain, "auth_provider": provider},
                                 "Adding the trusted domain %s to branch %s" % (domain, label), no_content=True)
            except TaskFailure as failure:
                # listed already (409): another run added it meanwhile, when the list holds it now
                if getattr(failure.cause, "status", None) != CONFLICT or \
                        domain_changes(get_domains(self.client, self.project_id, bid), [domain], False)[0]:
                    raise
                self.task.warnings.append("the trusted domain %s of branch %s was added by another run at the same "
                                          "time" % (domain, label))
                continue
            self.task.did("trusted domain %s was added" % domain)
        if plan.deleting:
            self.task.change("DELETE", auth_path(self.project_id, bid, "domains"), None,
                             {"auth_provider": provider, "domains": [{"domain": domain} for domain in plan.deleting]},
                             "Deleting the trusted domains %s of branch %s" % (", ".join(plan.deleting), label),
                             no_content=True)
            self.task.did("trusted domains %s were deleted" % ", ".join(plan.deleting))

    def read_again(self, current, done, after):
        bid = self.branch["id"]
        integration = get_integration(self.client, self.project_id, bid)
        self.task.kept["neon_auth"] = integration
        self.task.kept["enabled"] = integration is not None
        if integration is not None and self.params.get("trusted_domains") is not None:
            self.task.kept["trusted_domains"] = get_domains(self.client, self.project_id, bid)
        return after
