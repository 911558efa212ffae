# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The decisions about an app's backend per branch, without HTTP: what Neon Auth's options refuse, which settings
requests a task sends (only what is given, a write-only password), which trusted domains are added or deleted,
when an OAuth client secret is sent, a user's steps, a Data API's settings and a JWKS URL's plan."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._resources import data_api, jwks, neon_auth_oauth, neon_auth_users
from ansible_collections.neon.cloud.plugins.module_utils._resources.neon_auth import (
    domain_changes,
    is_url,
    options_problem,
    setting_changes,
)

PLUGINS = {"allow_localhost": True,
           "email_and_password": {"enabled": True, "disable_sign_up": False, "email_verification_method": "otp"},
           "email_provider": {"type": "standard", "host": "smtp.example.com", "port": 587, "username": "u",
                              "password": "old", "sender_email": "a@example.com", "sender_name": "Shop"},
           "magic_link": {"enabled": False, "expires_in": 5, "disable_sign_up": False},
           "organization": {"enabled": True, "creator_role": "owner"},
           "phone_number": {"enabled": False, "otp_expires_in": 300}}
SMTP = {"type": "standard", "host": "smtp.example.com", "port": 587, "username": "u", "password": "new",
        "sender_email": "a@example.com", "sender_name": "Shop"}


def options(**given):
    params = dict(state="present", update_password="on_change")
    params.update(given)
    return params


@pytest.mark.parametrize("text, expected", [
    ("https://pr-42.example.com", True), ("http://localhost:3000", True), ("https://shop.example.com/app", True),
    ("pr-42.example.com", False), ("ftp://example.com", False), ("https://", False), ("https://a b.com", False),
    ("https://x..example.com", False), (None, False),
])
def test_a_trusted_domain_is_an_http_url_with_a_host(text, expected):
    assert is_url(text) is expected


@pytest.mark.parametrize("given, problem", [
    (dict(trusted_domains=["https://ok.example.com", "nope"]), "'nope' is not a URL"),
    (dict(plugins={"magic_link": {"expires_in": 1441}}), "plugins.magic_link.expires_in must be from 5 to 1440"),
    (dict(plugins={"organization": {"organization_limit": 0}}), "organization_limit must be from 1"),
    (dict(webhooks={"timeout_seconds": 11}), "webhooks.timeout_seconds must be from 1 to 10"),
    (dict(webhooks={"url": "http://hooks.example.com"}), "webhooks.url must be an https URL"),
    (dict(email_provider={"type": "standard", "host": "h"}), "needs port, username, password, sender_email"),
    (dict(state="absent", app_name="Shop"), "leave out its settings (app_name)"),
    (dict(plugins={"magic_link": {"expires_in": 5}}, webhooks={"url": "https://h.example.com"}), None),
])
def test_options_the_service_would_refuse_are_refused_first(given, problem):
    found = options_problem(options(**given))
    assert (found is None) if problem is None else (problem in found), found


def test_only_the_settings_given_and_different_are_sent():
    current = {"name": "Shop", "plugins": PLUGINS, "webhooks": {"enabled": False, "enabled_events": [],
                                                                "timeout_seconds": 5}}
    changes = setting_changes(current, options(
        app_name="Shop", allow_localhost=True,
        email_and_password={"enabled": True, "disable_sign_up": True, "require_email_verification": None},
        plugins={"magic_link": {"enabled": True, "expires_in": 5}, "organization": None},
        webhooks={"enabled": True, "url": "https://h.example.com", "events": ["user.created"], "timeout_seconds": None}))
    assert [(change.label, change.method, change.segment, change.body) for change in changes] == [
        ("email_and_password", "PATCH", "email_and_password", {"disable_sign_up": True}),
        ("plugins.magic_link", "PATCH", "plugins/magic-link", {"enabled": True}),
        ("webhooks", "PUT", "webhooks", {"enabled": True, "webhook_url": "https://h.example.com",
                                         "enabled_events": ["user.created"], "timeout_seconds": 5}),
    ]
    assert changes[1].before == {"enabled": False} and changes[1].after == {"enabled": True}


def test_the_email_password_is_sent_only_with_another_change_or_always_and_never_shown():
    current = {"plugins": PLUGINS}
    assert setting_changes(current, options(email_provider=SMTP)) == []
    always = setting_changes(current, options(email_provider=SMTP, update_password="always"))
    assert always[0].body["password"] == "new" and "new" not in repr((always[0].before, always[0].after))
    assert always[0].after["password_sent"] is True
    moved = setting_changes(current, options(email_provider=dict(SMTP, host="smtp2.example.com")))
    assert moved[0].body == dict(SMTP, host="smtp2.example.com")
    assert moved[0].before["host"] == "smtp.example.com" and "password" not in moved[0].before
    shared = setting_changes(current, options(email_provider={"type": "shared"}))
    assert shared[0].body == {"type": "shared"}


def test_trusted_domains_are_added_in_order_and_deleted_only_when_purged():
    current = ["https://a.example.com", "https://b.example.com/"]
    assert domain_changes(current, ["https://B.example.com", "https://c.example.com", "https://c.example.com/"],
                          False) == (["https://c.example.com"], [])
    assert domain_changes(current, ["https://b.example.com"], True) == ([], ["https://a.example.com"])


@pytest.mark.parametrize("current, given, action, body", [
    (None, dict(client_id="cid", client_secret="s"), "add", {"id": "github", "client_id": "cid", "client_secret": "s"}),
    (None, {}, "add", {"id": "github"}),
    ({"id": "github", "type": "standard", "client_id": "cid"}, dict(client_id="cid", client_secret="s"), "none", {}),
    ({"id": "github", "type": "standard", "client_id": "cid"}, dict(client_id="cid", client_secret="s",
                                                                    update_secret="always"),
     "update", {"client_id": "cid", "client_secret": "s"}),
    ({"id": "github", "type": "standard", "client_id": "old"}, dict(client_id="cid", client_secret="s"),
     "update", {"client_id": "cid", "client_secret": "s"}),
    ({"id": "github", "type": "shared"}, dict(client_id="cid", client_secret="s"),
     "update", {"client_id": "cid", "client_secret": "s"}),
    ({"id": "github", "type": "shared"}, {}, "none", {}),
])
def test_an_oauth_client_secret_is_compared_as_given_or_not(current, given, action, body):
    params = dict(state="present", provider="github", update_secret="on_create")
    params.update(given)
    plan = neon_auth_oauth.oauth_plan(current, params)
    assert (plan.action, plan.body) == (action, body)


def test_an_oauth_provider_is_shown_without_its_secret():
    assert neon_auth_oauth.shown({"id": "github", "type": "standard", "client_id": "c", "client_secret": "s"}) == \
        {"id": "github", "type": "standard", "client_id": "c", "has_client_secret": True}


@pytest.mark.parametrize("given, steps", [
    (dict(email="a@example.com"), ["create"]),
    (dict(email="a@example.com", roles=["admin"]), ["create", "roles"]),
    (dict(id="u1", roles=["admin"]), ["roles"]),
    (dict(id="u1", state="absent"), ["delete"]),
])
def test_a_users_steps(given, steps):
    params = dict(state="present")
    params.update(given)
    assert neon_auth_users.options_problem(params) is None
    assert neon_auth_users.user_plan(params) == steps


def test_a_data_apis_settings_are_compared_only_where_given():
    assert data_api.settings_change({"db_schemas": ["public"], "db_max_rows": 10},
                                    {"db_schemas": ["public"], "db_max_rows": 20, "db_anon_role": None}) == \
        {"db_max_rows": 20}
    assert data_api.options_problem(dict(state="present", auth_provider="external")) is not None
    assert "https URL" in data_api.options_problem(dict(state="present", jwks_url="http://x.example.com/jwks"))


def test_a_jwks_url_is_known_by_url_and_branch_and_never_changed_in_place():
    items = [{"id": "1", "jwks_url": "https://a.example.com/jwks", "provider_name": "Clerk", "branch_id": "br-1"}]
    present = dict(state="present", provider_name="Clerk")
    assert jwks.jwks_plan(items, "https://a.example.com/jwks", "br-1", present)[0] == "none"
    assert jwks.jwks_plan(items, "https://a.example.com/jwks", None, present)[0] == "add"
    action, _found, why = jwks.jwks_plan(items, "https://a.example.com/jwks", "br-1", dict(present, provider_name="X"))
    assert action == "refuse" and "cannot change a JWKS URL" in why
    assert jwks.jwks_plan(items, "https://a.example.com/jwks", "br-1", dict(state="absent"))[0] == "delete"
