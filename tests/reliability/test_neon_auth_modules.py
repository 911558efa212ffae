# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""An app's backend per branch (neon_auth, neon_auth_oauth_provider, neon_auth_user, data_api, jwks,
neon_auth_info) against the simulator.

Each test runs the modules in this process, as playbook tasks would, and checks what a user would notice: what
the service holds afterwards (read through the API or the simulator's control API), what the result and the diff
say (never a secret), and which requests were sent (none that change anything for refused input, in check mode
or on a rerun).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import requests

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok
from test_provisioning_modules import changes_since, new_project, run

SMTP_PASSWORD = "Tq7hW2nX" + "9d4e1b6a"
CLIENT_SECRET = "Zq8vK3mY" + "c0ffee12"


def project_and_branch(sim):
    created = new_project(sim)
    return created["project"]["id"], created["branch"]["id"]


def auth(sim, pid, bid, segment=""):
    return rel.api(sim, "GET", "/projects/%s/branches/%s/auth%s" % (pid, bid, segment))


def everything_shown(result):
    return json.dumps(result, default=str)


# ---------------------------------------------------------------------------------------------- neon_auth

def test_enabling_returns_the_keys_once_and_a_rerun_is_quiet(sim):
    pid, bid = project_and_branch(sim)
    seq = last_seq(sim)
    enabled = ok(run(sim, "neon_auth", project_id=pid, trusted_domains=["https://shop.example.com"],
                     allow_localhost=False, diff=True))
    assert enabled["changed"] is True and enabled["enabled"] is True
    assert enabled["secret_server_key"].startswith("ssk_") and enabled["pub_client_key"].startswith("pck_")
    assert enabled["secret_server_key"] not in json.dumps(enabled["diff"])
    assert auth(sim, pid, bid)["auth_provider"] == "better_auth"
    assert auth(sim, pid, bid, "/domains")["domains"] == [{"domain": "https://shop.example.com",
                                                           "auth_provider": "better_auth"}]
    assert auth(sim, pid, bid, "/allow_localhost") == {"allow_localhost": False}
    assert ("POST", "/api/v2/projects/%s/branches/%s/auth" % (pid, bid)) in changes_since(sim, seq)

    seq = last_seq(sim)
    again = ok(run(sim, "neon_auth", project_id=pid, trusted_domains=["https://shop.example.com/"],
                   allow_localhost=False))
    assert again["changed"] is False and "secret_server_key" not in again
    assert changes_since(sim, seq) == []


def test_each_setting_is_changed_only_where_given_with_check_mode_and_diff(sim):
    pid, bid = project_and_branch(sim)
    ok(run(sim, "neon_auth", project_id=pid, branch="main"))
    before = auth(sim, pid, bid, "/plugins")
    asked = dict(project_id=pid, branch="main", app_name="Shop",
                 email_and_password={"disable_sign_up": True},
                 plugins={"magic_link": {"enabled": True, "expires_in": 15}, "organization": {"creator_role": "admin"}},
                 webhooks={"enabled": True, "url": "https://hooks.example.com/auth", "events": ["user.created"]})
    seq = last_seq(sim)
    predicted = ok(run(sim, "neon_auth", check_mode=True, diff=True, **asked))
    assert predicted["changed"] is True and changes_since(sim, seq) == []
    assert predicted["diff"]["before"]["plugins.magic_link"] == {"enabled": False, "expires_in": 5}
    assert predicted["diff"]["after"]["plugins.magic_link"] == {"enabled": True, "expires_in": 15}
    assert predicted["diff"]["after"]["email_and_password"] == {"disable_sign_up": True}

    done = ok(run(sim, "neon_auth", diff=True, **asked))
    assert done["changed"] is True and done["diff"] == predicted["diff"]
    after = auth(sim, pid, bid, "/plugins")
    assert after["magic_link"] == {"enabled": True, "expires_in": 15, "disable_sign_up": False}
    assert after["organization"]["creator_role"] == "admin"
    assert after["email_and_password"] == dict(before["email_and_password"], disable_sign_up=True)
    assert after["phone_number"] == before["phone_number"] and after["allow_localhost"] == before["allow_localhost"]
    assert auth(sim, pid, bid)["name"] == "Shop"
    assert auth(sim, pid, bid, "/webhooks") == {"enabled": True, "webhook_url": "https://hooks.example.com/auth",
                                                "enabled_events": ["user.created"], "timeout_seconds": 5}
    seq = last_seq(sim)
    assert ok(run(sim, "neon_auth", **asked))["changed"] is False and changes_since(sim, seq) == []


def test_the_email_providers_password_is_write_only_and_never_shown(sim):
    pid, bid = project_and_branch(sim)
    smtp = {"type": "standard", "host": "smtp.example.com", "port": 587, "username": "mailer",
            "password": SMTP_PASSWORD, "sender_email": "auth@example.com", "sender_name": "Shop"}
    made = run(sim, "neon_auth", project_id=pid, email_provider=smtp, diff=True)
    assert ok(made)["changed"] is True and SMTP_PASSWORD not in made.text()
    assert auth(sim, pid, bid, "/email_provider")["password"] == SMTP_PASSWORD  # sent
    seq = last_seq(sim)
    again = run(sim, "neon_auth", project_id=pid, email_provider=dict(smtp, password="another-one"))
    assert ok(again)["changed"] is False and changes_since(sim, seq) == []  # a password alone is not compared
    always = run(sim, "neon_auth", project_id=pid, email_provider=dict(smtp, password="another-one"),
                 update_password="always", diff=True)
    assert ok(always)["changed"] is True and "another-one" not in always.text()
    assert ok(always)["diff"]["after"]["email_provider"]["password_sent"] is True
    info = run(sim, "neon_auth_info", project_id=pid)
    assert ok(info)["settings"]["email_provider"]["has_password"] is True and "another-one" not in info.text()


def test_trusted_domains_are_an_exact_list_only_when_asked(sim):
    pid, bid = project_and_branch(sim)
    ok(run(sim, "neon_auth", project_id=pid, trusted_domains=["https://a.example.com", "https://b.example.com"]))
    ok(run(sim, "neon_auth", project_id=pid, trusted_domains=["https://c.example.com"]))
    listed = [item["domain"] for item in auth(sim, pid, bid, "/domains")["domains"]]
    assert listed == ["https://a.example.com", "https://b.example.com", "https://c.example.com"]
    exact = ok(run(sim, "neon_auth", project_id=pid, trusted_domains=["https://c.example.com"],
                   purge_trusted_domains=True, diff=True))
    assert exact["diff"]["after"]["trusted_domains"] == ["https://c.example.com"]
    assert [item["domain"] for item in auth(sim, pid, bid, "/domains")["domains"]] == ["https://c.example.com"]


def test_bad_input_is_refused_before_any_request(sim):
    pid, _bid = project_and_branch(sim)
    cases = [
        (dict(trusted_domains=["pr-42.example.com"]), "is not a URL"),
        (dict(plugins={"magic_link": {"expires_in": 2}}), "plugins.magic_link.expires_in must be from 5 to 1440"),
        (dict(plugins={"phone_number": {"otp_expires_in": "soon"}}), "otp_expires_in"),
        (dict(webhooks={"url": "http://hooks.example.com"}), "webhooks.url must be an https URL"),
        (dict(email_provider={"type": "standard", "host": "smtp.example.com"}), "needs port, username, password"),
    ]
    for options, message in cases:
        seq = last_seq(sim)
        result = failed(run(sim, "neon_auth", project_id=pid, **options))
        assert message in result["msg"], result["msg"]
        assert sim.requests(since=seq) == [], options


def test_disabling_is_said_in_the_diff_and_a_4xx_is_named(sim):
    pid, bid = project_and_branch(sim)
    ok(run(sim, "neon_auth", project_id=pid, auth_provider="stack"))
    refused = failed(run(sim, "neon_auth", project_id=pid, auth_provider="better_auth"))
    assert "uses the provider stack" in refused["msg"]
    gone = ok(run(sim, "neon_auth", project_id=pid, state="absent", delete_data=True, diff=True))
    assert gone["changed"] is True and gone["enabled"] is False
    assert "neon_auth schema with its users" in gone["diff"]["after"]["note"]
    assert ok(run(sim, "neon_auth", project_id=pid, state="absent"))["changed"] is False
    answer = requests.get(sim.url + "/projects/%s/branches/%s/auth" % (pid, bid), headers=sim.headers, timeout=10)
    assert answer.status_code == 404
    denied = failed(run(sim, "neon_auth", project_id=pid, database="nope"))
    assert "HTTP 404" in denied["msg"] and "database nope not found" in denied["msg"], denied["msg"]
    assert denied["msg"].startswith("Enabling Neon Auth of branch 'main' (%s) failed: POST /projects/%s/" % (bid, pid))
    assert "Nothing was changed" in denied["msg"] and denied["enabled"] is False


# ---------------------------------------------------------------------------------------------- neon_auth_oauth_provider

def test_an_oauth_providers_secret_is_sent_when_needed_and_never_shown(sim):
    pid, bid = project_and_branch(sim)
    refused = failed(run(sim, "neon_auth_oauth_provider", project_id=pid, provider="github"))
    assert "Neon Auth is not enabled on branch" in refused["msg"]
    ok(run(sim, "neon_auth", project_id=pid))
    asked = dict(project_id=pid, provider="github", client_id="Iv1.abc", client_secret=CLIENT_SECRET)
    predicted = run(sim, "neon_auth_oauth_provider", check_mode=True, diff=True, **asked)
    assert ok(predicted)["diff"]["after"]["client_secret_sent"] is True and CLIENT_SECRET not in predicted.text()
    made = run(sim, "neon_auth_oauth_provider", diff=True, **asked)
    assert ok(made)["changed"] is True and CLIENT_SECRET not in made.text()
    assert ok(made)["oauth_provider"] == {"id": "github", "type": "standard", "client_id": "Iv1.abc",
                                          "has_client_secret": True}
    listed = {item["id"]: item for item in auth(sim, pid, bid, "/oauth_providers")["providers"]}
    assert listed["github"]["client_secret"] == CLIENT_SECRET

    seq = last_seq(sim)
    rotated_elsewhere = dict(asked)
    rotated_elsewhere["client_secret"] = "rotated-elsewhere"
    again = run(sim, "neon_auth_oauth_provider", **rotated_elsewhere)
    assert ok(again)["changed"] is False and changes_since(sim, seq) == [] and CLIENT_SECRET not in again.text()
    always = dict(asked, update_secret="always")
    always["client_secret"] = "rotated-9"
    rotated = run(sim, "neon_auth_oauth_provider", **always)
    assert ok(rotated)["changed"] is True and "rotated-9" not in rotated.text()
    assert {item["id"]: item for item in auth(sim, pid, bid, "/oauth_providers")["providers"]}["github"][
        "client_secret"] == "rotated-9"
    info = run(sim, "neon_auth_info", project_id=pid)
    assert "rotated-9" not in info.text()

    gone = ok(run(sim, "neon_auth_oauth_provider", project_id=pid, provider="github", state="absent", diff=True))
    assert gone["changed"] is True and gone["diff"]["after"] is None
    assert "github" not in [item["id"] for item in auth(sim, pid, bid, "/oauth_providers")["providers"]]
    assert ok(run(sim, "neon_auth_oauth_provider", project_id=pid, provider="github", state="absent"))["changed"] \
        is False


def test_an_unknown_provider_or_half_a_credential_is_refused_before_any_request(sim):
    pid, _bid = project_and_branch(sim)
    for options, message in [(dict(provider="yahoo"), "value of provider must be one of"),
                             (dict(provider="github", client_id="x"), "give client_id and client_secret together"),
                             (dict(provider="google", microsoft_tenant_id="t"), "only for the microsoft provider")]:
        seq = last_seq(sim)
        result = failed(run(sim, "neon_auth_oauth_provider", project_id=pid, **options))
        assert message in result["msg"], result["msg"]
        assert sim.requests(since=seq) == [], options


# ---------------------------------------------------------------------------------------------- neon_auth_user

def users(sim, pid, bid):
    answer = requests.get("%s/projects/%s/branches/%s/auth/users" % (sim.control_url, pid, bid), timeout=10)
    answer.raise_for_status()
    return answer.json()["users"]


def test_a_user_is_created_once_given_roles_and_deleted(sim):
    pid, bid = project_and_branch(sim)
    ok(run(sim, "neon_auth", project_id=pid))
    made = ok(run(sim, "neon_auth_user", project_id=pid, email="qa@example.com", name="QA", roles=["admin"],
                  diff=True))
    assert made["changed"] is True and made["roles"] == ["admin"] and made["diff"]["before"] is None
    assert [(user["id"], user["email"], user["roles"]) for user in users(sim, pid, bid)] == \
        [(made["user_id"], "qa@example.com", ["admin"])]
    seq = last_seq(sim)
    again = run(sim, "neon_auth_user", project_id=pid, email="qa@example.com", name="QA", roles=["admin"])
    assert ok(again)["changed"] is False and "roles were not compared" in again.text()
    assert [method for method, _path in changes_since(sim, seq)] == ["POST"]  # refused: in use
    assert len(users(sim, pid, bid)) == 1

    gone = ok(run(sim, "neon_auth_user", project_id=pid, id=made["user_id"], state="absent", diff=True))
    assert gone["changed"] is True and gone["diff"]["after"] is None and users(sim, pid, bid) == []
    assert ok(run(sim, "neon_auth_user", project_id=pid, id=made["user_id"], state="absent"))["changed"] is False


def test_a_users_bad_input_is_refused_before_any_request(sim):
    pid, _bid = project_and_branch(sim)
    for options, message in [(dict(email="not-an-email"), "email must be an email address"),
                             (dict(email="qa@example.com", state="absent"), "needs the user's id"),
                             (dict(email="qa@example.com", roles=[]), "roles must name at least one role")]:
        seq = last_seq(sim)
        result = failed(run(sim, "neon_auth_user", project_id=pid, **options))
        assert message in result["msg"], result["msg"]
        assert sim.requests(since=seq) == [], options


# ---------------------------------------------------------------------------------------------- data_api and jwks

def test_the_data_api_is_created_updated_refreshed_and_removed(sim):
    pid, bid = project_and_branch(sim)
    refused = failed(run(sim, "data_api", project_id=pid, database="neondb"))
    assert "HTTP 400" in refused["msg"] and "Neon Auth is not enabled" in refused["msg"]
    ok(run(sim, "neon_auth", project_id=pid))
    asked = dict(project_id=pid, database="neondb", settings={"db_schemas": ["public", "api"], "db_max_rows": 500})
    predicted = ok(run(sim, "data_api", check_mode=True, diff=True, **asked))
    assert predicted["changed"] is True and predicted["diff"]["before"] is None
    made = ok(run(sim, "data_api", **asked))
    assert made["changed"] is True and made["data_api"]["url"].endswith("/neondb/rest/v1")
    assert made["data_api"]["settings"]["db_schemas"] == ["public", "api"]
    seq = last_seq(sim)
    assert ok(run(sim, "data_api", **asked))["changed"] is False and changes_since(sim, seq) == []

    fewer_rows = dict(asked)
    fewer_rows["settings"] = {"db_max_rows": 100}
    changed = ok(run(sim, "data_api", diff=True, **fewer_rows))
    assert changed["diff"]["before"]["settings"] == {"db_max_rows": 500}
    assert changed["diff"]["after"]["settings"] == {"db_max_rows": 100}
    assert sim.state.data_api.schema_cache_refreshes(pid, bid, "neondb") == 1
    refreshed = ok(run(sim, "data_api", project_id=pid, database="neondb", refresh_schema_cache=True))
    assert refreshed["changed"] is True and sim.state.data_api.schema_cache_refreshes(pid, bid, "neondb") == 2

    gone = ok(run(sim, "data_api", project_id=pid, database="neondb", state="absent", diff=True))
    assert gone["changed"] is True and gone["data_api"] is None and gone["diff"]["after"] is None
    assert ok(run(sim, "data_api", project_id=pid, database="neondb", state="absent"))["changed"] is False


def test_a_jwks_url_is_added_for_a_branch_refused_when_it_differs_and_removed(sim):
    pid, bid = project_and_branch(sim)
    url = "https://clerk.example.com/.well-known/jwks.json"
    seq = last_seq(sim)
    bad = failed(run(sim, "jwks", project_id=pid, jwks_url="clerk.example.com", provider_name="Clerk"))
    assert "jwks_url must be an https URL" in bad["msg"] and sim.requests(since=seq) == []
    added = ok(run(sim, "jwks", project_id=pid, branch="main", jwks_url=url, provider_name="Clerk", jwt_audience="shop"))
    assert added["changed"] is True and added["jwks"]["branch_id"] == bid
    seq = last_seq(sim)
    assert ok(run(sim, "jwks", project_id=pid, branch="main", jwks_url=url, provider_name="Clerk"))["changed"] is False
    assert changes_since(sim, seq) == []
    differs = failed(run(sim, "jwks", project_id=pid, branch="main", jwks_url=url, provider_name="Auth0"))
    assert "cannot change a JWKS URL" in differs["msg"]
    assert ok(run(sim, "jwks", project_id=pid, jwks_url=url, provider_name="Clerk"))["changed"] is True  # all branches
    gone = ok(run(sim, "jwks", project_id=pid, branch="main", jwks_url=url, state="absent"))
    assert gone["changed"] is True
    assert [item.get("branch_id") for item in rel.api(sim, "GET", "/projects/%s/jwks" % pid)["jwks"]] == [None]


# ---------------------------------------------------------------------------------------------- two runs at once
def test_enabling_that_reads_as_not_enabled_right_after_fails_clearly_and_keeps_the_keys(sim):
    """The read after the enabling POST answers 404 (another run disabled it meanwhile): a failure that says so and
    still carries the keys the service returned once, never a traceback."""
    pid, bid = project_and_branch(sim)
    sim.add_fault(method="GET", path="/api/v2/projects/%s/branches/%s/auth" % (pid, bid), count=2, status=404)
    result = failed(run(sim, "neon_auth", project_id=pid, allow_localhost=False))
    assert "reads as not enabled right after" in result["msg"]
    assert result["secret_server_key"].startswith("ssk_") and result["pub_client_key"].startswith("pck_")
    assert "Traceback" not in everything_shown(result)


# Two module processes, as two AWX jobs of one template: a barrier holds the answers to their first reading until both
# have read (nothing there yet), so both send the create and the service refuses the second with 409.

RUN_TIMEOUT = 120  # seconds for the module processes of an overlap test


def two_runs(sim, collection_parent, tmp_path, module, read_path, **args):
    sim.add_barrier(method="GET", path="/api/v2" + read_path, parties=2, timeout=60)
    argset = rel.connection_args(sim, api_timeout=RUN_TIMEOUT - 10, **args)
    results = rel.module_process_results(
        rel.start_module_processes(collection_parent, tmp_path, module, [argset, argset]), RUN_TIMEOUT)
    assert [barrier["timed_out"] for barrier in sim.barriers()][:1] == [False]  # both read before either created
    for result in results:
        assert not result.get("failed"), result
    return results


def posts_to(sim, seq, path):
    return sorted(entry["status"] for entry in sim.requests(since=seq)
                  if entry["method"] == "POST" and entry["path"] == "/api/v2" + path)


def test_two_runs_enabling_neon_auth_at_once_both_succeed_and_one_says_another_run_holds_the_keys(
        sim, collection_parent, tmp_path):
    pid, bid = project_and_branch(sim)
    seq = last_seq(sim)
    path = "/projects/%s/branches/%s/auth" % (pid, bid)
    results = two_runs(sim, collection_parent, tmp_path, "neon_auth", path, project_id=pid, auth_provider="stack")
    assert posts_to(sim, seq, path) == [201, 409]  # each sent it once; none sent again
    assert sorted(result["changed"] for result in results) == [False, True]
    enabler = next(result for result in results if result["changed"])
    other = next(result for result in results if not result["changed"])
    assert enabler["secret_server_key"].startswith("ssk_") and not enabler.get("warnings")
    assert other["enabled"] is True and other["neon_auth"]["auth_provider"] == "stack"
    assert "secret_server_key" not in other
    assert "enabled by another run at the same time" in everything_shown(other["warnings"])
    assert "returns once" in everything_shown(other["warnings"])
    assert auth(sim, pid, bid)["auth_provider"] == "stack"


def test_two_runs_enabling_neon_auth_with_a_trusted_domain_both_succeed_and_list_it_once(
        sim, collection_parent, tmp_path):
    pid, bid = project_and_branch(sim)
    domain = "https://pr-42.example.com"
    path = "/projects/%s/branches/%s/auth" % (pid, bid)
    # and their reading of the domains too: both find it missing, both add it, the service refuses the second
    sim.add_barrier(method="GET", path="/api/v2%s/domains" % path, parties=2, timeout=60)
    seq = last_seq(sim)
    results = two_runs(sim, collection_parent, tmp_path, "neon_auth", path, project_id=pid,
                       trusted_domains=[domain])
    assert [barrier["timed_out"] for barrier in sim.barriers()] == [False, False]
    assert posts_to(sim, seq, path) == [201, 409]
    assert posts_to(sim, seq, path + "/domains") == [201, 409]
    assert auth(sim, pid, bid, "/domains")["domains"] == [{"domain": domain, "auth_provider": "better_auth"}]
    warned = everything_shown([result.get("warnings") for result in results])
    assert "trusted domain %s of branch" % domain in warned and "added by another run at the same time" in warned


def test_two_runs_creating_the_data_api_at_once_both_succeed_one_with_a_warning(sim, collection_parent, tmp_path):
    pid, bid = project_and_branch(sim)
    ok(run(sim, "neon_auth", project_id=pid))
    path = "/projects/%s/branches/%s/data-api/neondb" % (pid, bid)
    seq = last_seq(sim)
    results = two_runs(sim, collection_parent, tmp_path, "data_api", path, project_id=pid, database="neondb",
                       settings={"db_max_rows": 500})
    assert posts_to(sim, seq, path) == [201, 409]
    assert [method for method, _path in changes_since(sim, seq)] == ["POST", "POST"]  # nothing else changed
    assert sorted(result["changed"] for result in results) == [False, True]
    other = next(result for result in results if not result["changed"])
    assert other["data_api"]["settings"]["db_max_rows"] == 500
    assert "created by another run at the same time" in everything_shown(other["warnings"])


def test_two_runs_adding_a_jwks_url_at_once_both_succeed_and_it_is_added_once(sim, collection_parent, tmp_path):
    pid, bid = project_and_branch(sim)
    url = "https://clerk.example.com/.well-known/jwks.json"
    seq = last_seq(sim)
    results = two_runs(sim, collection_parent, tmp_path, "jwks", "/projects/%s/jwks" % pid, project_id=pid,
                       branch="main", jwks_url=url, provider_name="Clerk")
    assert posts_to(sim, seq, "/projects/%s/jwks" % pid) == [201, 409]
    assert sorted(result["changed"] for result in results) == [False, True]
    other = next(result for result in results if not result["changed"])
    listed = rel.api(sim, "GET", "/projects/%s/jwks" % pid)["jwks"]
    assert [(item["jwks_url"], item["branch_id"]) for item in listed] == [(url, bid)]
    assert other["jwks"]["id"] == listed[0]["id"]
    assert "added by another run at the same time" in everything_shown(other["warnings"])


def test_two_runs_adding_an_oauth_provider_at_once_both_succeed_and_the_secret_is_never_shown(
        sim, collection_parent, tmp_path):
    pid, bid = project_and_branch(sim)
    ok(run(sim, "neon_auth", project_id=pid))
    path = "/projects/%s/branches/%s/auth/oauth_providers" % (pid, bid)
    seq = last_seq(sim)
    results = two_runs(sim, collection_parent, tmp_path, "neon_auth_oauth_provider", path, project_id=pid,
                       provider="microsoft", client_id="ms-app", client_secret=CLIENT_SECRET)
    assert posts_to(sim, seq, path) == [200, 409]
    assert [method for method, _path in changes_since(sim, seq)] == ["POST", "POST"]  # nothing sent again
    assert sorted(result["changed"] for result in results) == [False, True]
    other = next(result for result in results if not result["changed"])
    assert other["oauth_provider"]["client_id"] == "ms-app" and other["oauth_provider"]["has_client_secret"] is True
    assert "added by another run at the same time" in everything_shown(other["warnings"])
    assert CLIENT_SECRET not in everything_shown(results)


def test_two_runs_removing_an_oauth_provider_at_once_only_the_one_that_removed_it_says_changed(
        sim, collection_parent, tmp_path):
    pid, bid = project_and_branch(sim)
    ok(run(sim, "neon_auth", project_id=pid))
    path = "/projects/%s/branches/%s/auth/oauth_providers" % (pid, bid)
    results = two_runs(sim, collection_parent, tmp_path, "neon_auth_oauth_provider", path, project_id=pid,
                       provider="github", state="absent")
    assert sorted(result["changed"] for result in results) == [False, True]
    other = next(result for result in results if not result["changed"])
    assert "removed by another run at the same time" in everything_shown(other["warnings"])
    assert "github" not in [item["id"] for item in auth(sim, pid, bid, "/oauth_providers")["providers"]]


def test_two_runs_creating_one_user_at_once_both_succeed_and_it_is_created_once(sim, collection_parent, tmp_path):
    pid, bid = project_and_branch(sim)
    ok(run(sim, "neon_auth", project_id=pid))
    seq = last_seq(sim)
    # the API reads no user, so each run's first request is the branch's listing: held until both have it
    results = two_runs(sim, collection_parent, tmp_path, "neon_auth_user", "/projects/%s/branches" % pid,
                       project_id=pid, email="qa@example.com", name="QA")
    assert posts_to(sim, seq, "/projects/%s/branches/%s/auth/users" % (pid, bid)) == [201, 409]
    assert sorted(result["changed"] for result in results) == [False, True]
    made = next(result for result in results if result["changed"])
    assert [(user["id"], user["email"]) for user in users(sim, pid, bid)] == [(made["user_id"], "qa@example.com")]
