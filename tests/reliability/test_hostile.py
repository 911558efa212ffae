# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The real modules against a server that misbehaves on purpose, and a user's environment.

Each test is one way a reviewer broke a promise of the collection (issue "Hold every promise
against a hostile server and a real user's environment"): credentials the environment adds,
TLS settings it overrides, answers that trickle, never end, are too large or cut, valid JSON of
the wrong kind, error text that is unsafe to print, path parameters that leave their place, and
a rotation that fails after the new key exists. Each records what was tried, what happened and
what was lost, for the hostile-server table of docs/docsite/rst/reliability.rst.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import subprocess
import sys
import time

import pytest

import neon_reliability as rel
from neon_testing import MODULE_WAYS, ansible_env, localhost_inventory, ran_as, tool, way_args
from hostile_server import CertificateAuthority, ForwardProxy, HostileServer, Reply, gzip_bomb, json_reply

KEY = "hostile" + "k3y9" * 14  # 63 characters, recognisable in any output
PROJECT = {"id": "shiny-river-12345678", "name": "demo-project", "region_id": "aws-us-east-2"}
OPERATION_ID = "0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10"
FAST = dict(api_retries=1, api_retry_max_delay=0.05, api_timeout=1)


def projects_page(*_args):
    return json_reply({"projects": [PROJECT], "pagination": {"cursor": PROJECT["id"]}})


def record(results, case, tried, happened, lost="nothing"):
    results.setdefault("hostile", []).append(dict(case=case, tried=tried, happened=happened, lost=lost))


def pieces(secret, size=6):
    return [secret[start:start + size] for start in range(len(secret) - size + 1)]


def leaked(text, *secrets):
    return [piece for secret in secrets for piece in pieces(secret) if piece in text]


@pytest.fixture
def server():
    servers = []

    def start(handler, **kwargs):
        servers.append(HostileServer(handler, **kwargs))
        return servers[-1]

    yield start
    for each in servers:
        each.close()


@pytest.fixture
def clean_env(monkeypatch):
    """No proxy, netrc or CA bundle variables but those a test sets (this machine sets CA bundles)."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy",
                 "no_proxy", "NETRC", "NEON_CA_PATH", "NEON_API_KEY", "NEON_API_URL"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.fixture(scope="module")
def authority(tmp_path_factory):
    return CertificateAuthority(tmp_path_factory.mktemp("ca"))


def run(module, url, **args):
    return rel.run_module(module, dict(dict(FAST, api_key=KEY, api_url=url), **args))


# ---------------------------------------------------------------------------------------------- credentials

def test_a_netrc_entry_for_the_api_host_is_never_sent(server, clean_env, tmp_path, results):
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login someone password netrc-secret\n")
    clean_env.setenv("NETRC", str(netrc))
    srv = server(projects_page)
    result = run("projects_info", srv.url)
    sent = [request.headers.get("authorization") for request in srv.requests]
    assert not result.failed, result.describe()
    assert sent == ["Bearer " + KEY]
    record(results, "netrc entry for the API host", "$NETRC names 127.0.0.1 with a login and password",
           "only `Authorization: Bearer <api_key>` was sent (%d request)" % len(sent))


def test_an_api_url_with_credentials_is_refused_without_showing_them(server, clean_env, results):
    srv = server(projects_page)
    url = "http://someone:url-secret@127.0.0.1:%d/api/v2" % srv.port
    result = run("projects_info", url)
    assert result.failed and "must not contain a user name or password" in result.msg
    assert srv.requests == []
    assert "url-secret" not in result.stdout and "someone" not in result.msg
    record(results, "api_url with user:password", "`http://someone:url-secret@127.0.0.1/...`",
           "refused before any request; the message shows neither the user nor the password")


@pytest.mark.parametrize("way", MODULE_WAYS)
def test_an_api_url_password_stays_out_of_vvv_output(server, clean_env, tmp_path, collection_parent, results, way):
    srv = server(projects_page)
    (tmp_path / "site.yml").write_text(
        "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - neon.cloud.projects_info:\n"
        "        api_url: http://someone:url-secret@127.0.0.1:%d/api/v2\n      ignore_errors: true\n" % srv.port)
    proc = playbook(tmp_path, collection_parent, "site.yml", way, NEON_API_KEY=KEY)
    text = proc.stdout + proc.stderr
    assert ran_as(text, way), way
    assert "must not contain a user name or password" in text, text[-3000:]
    assert "url-secret" not in text
    record(results, "api_url with user:password, ansible-playbook -vvv" + SHIPPED_NOTE[way], "the whole -vvv output searched",
           "the password is nowhere in it")


def test_environment_proxies_still_carry_https(server, clean_env, authority, results):
    srv = server(projects_page, tls=authority.server_context())
    proxy = ForwardProxy()
    try:
        clean_env.setenv("HTTPS_PROXY", proxy.url)
        through = run("projects_info", srv.url, ca_path=authority.ca_cert)
        seen_through = list(proxy.seen)
        clean_env.setenv("NO_PROXY", "127.0.0.1")
        direct = run("projects_info", srv.url, ca_path=authority.ca_cert)
    finally:
        proxy.close()
    assert not through.failed and not direct.failed, through.describe() + direct.describe()
    assert seen_through == ["CONNECT 127.0.0.1:%d" % srv.port]
    assert proxy.seen == seen_through
    record(results, "HTTPS_PROXY and NO_PROXY", "https api_url with HTTPS_PROXY set, then NO_PROXY=127.0.0.1 too",
           "through the proxy (CONNECT), then directly: the environment's proxies are honoured")


def test_plain_http_through_an_environment_proxy_loses_its_loopback_exemption(server, clean_env, results):
    srv = server(projects_page)
    clean_env.setenv("HTTP_PROXY", "http://proxyuser:proxy-secret@proxy.invalid:3128")
    refused = run("projects_info", srv.url)
    clean_env.setenv("NO_PROXY", "127.0.0.1")
    direct = run("projects_info", srv.url)
    assert refused.failed and "proxy http://proxy.invalid:3128" in refused.msg and "NO_PROXY" in refused.msg
    assert "proxy-secret" not in refused.stdout
    assert not direct.failed and len(srv.requests) == 1
    record(results, "plain http to 127.0.0.1 with HTTP_PROXY set", "api_url http://127.0.0.1:PORT, a proxy on another host",
           "refused (the key would leave the machine in clear) until NO_PROXY covers 127.0.0.1; then direct")


# ---------------------------------------------------------------------------------------------- TLS

def test_validate_certs_false_holds_whatever_the_ca_bundle_variables_say(server, clean_env, authority, results):
    clean_env.setenv("REQUESTS_CA_BUNDLE", "/etc/ssl/certs/ca-certificates.crt")
    clean_env.setenv("CURL_CA_BUNDLE", "/etc/ssl/certs/ca-certificates.crt")
    srv = server(projects_page, tls=authority.server_context())
    result = run("projects_info", srv.url, validate_certs=False)
    assert not result.failed, result.describe()
    record(results, "validate_certs=false with REQUESTS_CA_BUNDLE/CURL_CA_BUNDLE set",
           "a certificate of an unknown CA, the CA bundle variables set as on AWX nodes", "verification off, as asked")


@pytest.mark.parametrize("how", ["option", "NEON_CA_PATH"])
def test_ca_path_names_the_ca_bundle(server, clean_env, authority, results, how):
    srv = server(projects_page, tls=authority.server_context())
    if how == "option":
        result = run("projects_info", srv.url, ca_path=authority.ca_cert)
    else:
        clean_env.setenv("NEON_CA_PATH", authority.ca_cert)
        result = run("projects_info", srv.url)
    assert not result.failed, result.describe()
    record(results, "ca_path (%s)" % how, "a certificate of our own CA", "verified against that CA")


def test_a_certificate_failure_is_not_retried_and_says_how_to_fix_it(server, clean_env, authority, results):
    srv = server(projects_page, tls=authority.server_context())
    result = run("projects_info", srv.url, api_retries=3)
    assert result.failed
    assert srv.connections == 1
    assert "certificate" in result.msg and "ca_path" in result.msg and "validate_certs" in result.msg
    assert result.result["error"]["attempts"] == 1
    record(results, "certificate of an unknown CA", "default validate_certs, api_retries 3",
           "fails at once (%d connection), naming the certificate, ca_path and validate_certs" % srv.connections)


def test_a_ca_path_that_does_not_exist_fails_before_any_request(server, clean_env, tmp_path):
    srv = server(projects_page)
    result = run("projects_info", srv.url, ca_path=str(tmp_path / "missing.pem"))
    assert result.failed and "does not exist" in result.msg and srv.requests == []


# ---------------------------------------------------------------------------------------------- time

BODY = json.dumps({"projects": [PROJECT], "pagination": {}}).encode()
SLOW = {
    "headers then a trickled body": lambda request: Reply(200, BODY * 50, mode="trickle_body", chunk=1, every=0.2),
    "trickled headers": lambda request: Reply(200, BODY, mode="trickle_headers", every=0.2),
    "a chunked body that never ends": lambda request: Reply(200, b" ", mode="chunked_forever", every=0.2),
}


@pytest.mark.parametrize("how", sorted(SLOW))
def test_api_timeout_bounds_a_whole_request(server, clean_env, results, how):
    srv = server(SLOW[how], trickle_limit=40)
    started = time.monotonic()
    result = run("projects_info", srv.url, api_timeout=1, api_retries=1)
    elapsed = time.monotonic() - started
    assert result.failed and "api_timeout" in result.msg, result.describe()
    assert len(srv.requests) == 2
    assert elapsed < 15, elapsed
    record(results, "slow answer: %s" % how, "api_timeout 1, api_retries 1; the server would go on for 40 s",
           "gave up after %d attempts (%s s bound per attempt)" % (len(srv.requests), 1))


def test_operation_wait_ends_within_its_timeout_and_one_api_timeout(server, clean_env, results):
    operation = {"id": OPERATION_ID, "project_id": PROJECT["id"], "status": "running"}
    body = json.dumps({"operation": operation}).encode()
    srv = server(lambda request: Reply(200, body, mode="trickle_body", chunk=1, every=0.3), trickle_limit=40)
    started = time.monotonic()
    # api_retries 5: more attempts than fit in the timeout, so the deadline ends the wait (with api_retries 1, the
    # client's two attempts would end it first, as they end a read: tests/reliability/test_dead_api.py)
    result = run("operation_wait", srv.url, project_id=PROJECT["id"], operation_ids=[OPERATION_ID], timeout=2,
                 poll_interval=0.5, api_timeout=1, api_retries=5)
    elapsed = time.monotonic() - started
    assert result.failed and result.msg.startswith("Timed out after 2.0 s"), result.describe()
    assert result.result["elapsed"] <= 3.0 + 0.5
    assert elapsed < 10, elapsed
    record(results, "operation_wait against trickled polls", "timeout 2, api_timeout 1, api_retries 5; each poll answer trickles",
           "timed out within timeout + one api_timeout")


# ---------------------------------------------------------------------------------------------- size

def test_an_answer_announced_too_large_is_not_read(server, clean_env, results):
    big = b'{"projects": [], "pad": "' + b"x" * (17 * 1024 * 1024) + b'"}'
    srv = server(lambda request: Reply(200, big))
    result = run("projects_info", srv.url)
    assert result.failed and "larger than 16 MiB" in result.msg and len(srv.requests) == 1
    record(results, "an answer of 17 MiB", "Content-Length 17 MiB", "refused before reading it; not retried")


def _peak_rss_of_module(collection_parent, module, args, tmp_path):
    """Run the module in a child process, as Ansible would; its peak resident memory in MiB.

    The peak is the child's own memory's (VmHWM of /proc/self/status), not getrusage's ru_maxrss: Linux carries
    ru_maxrss over an exec, so a child started by a pytest worker grown to 160 MiB reported 160 MiB whatever it
    did itself (a CI run failed so)."""
    args_file = tmp_path / "args.json"
    args_file.write_text(json.dumps({"ANSIBLE_MODULE_ARGS": args}))
    code = ("import re, runpy, sys; sys.argv = ['module', %r]\n"
            "try:\n    runpy.run_module('ansible_collections.neon.cloud.plugins.modules.%s', run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            "with open('/proc/self/status') as status:\n"
            "    sys.stderr.write('PEAK_RSS_KB=%%s\\n' %% re.search(r'VmHWM:\\s*(\\d+) kB', status.read()).group(1))\n"
            % (str(args_file), module))
    env = dict(os.environ, PYTHONPATH=collection_parent)
    proc = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=300, check=False)
    peak = re.search(r"PEAK_RSS_KB=(\d+)", proc.stderr)
    assert peak, proc.stderr[-3000:]
    return int(peak.group(1)) // 1024, proc.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the module's peak memory from /proc")
def test_a_decompression_bomb_is_not_inflated_into_memory(server, clean_env, collection_parent, tmp_path, results):
    bomb = gzip_bomb(400 * 1024 * 1024, str(tmp_path / "bomb.gz"))
    srv = server(lambda request: Reply(200, bomb, headers={"Content-Encoding": "gzip"}))
    ballast = b"\x01" * (200 * 1024 * 1024)  # this process's memory, which the module's peak must not include
    peak, out = _peak_rss_of_module(collection_parent, "projects_info", dict(FAST, api_key=KEY, api_url=srv.url),
                                    tmp_path)
    del ballast  # held until the module has ended
    assert "larger than 16 MiB once inflated" in out, out[-2000:]
    assert peak < 150, peak
    record(results, "gzip bomb", "%d KiB of gzip that inflate to 400 MiB" % (len(bomb) // 1024),
           "refused at 16 MiB inflated; the module process stayed under 150 MiB")


# ---------------------------------------------------------------------------------------------- cut answers

def test_a_get_cut_mid_body_is_asked_again(server, clean_env, results):
    def handler(request):
        if len(srv.requests) <= 2:
            return Reply(200, BODY[:20], mode="cut", length=len(BODY))
        return Reply(200, BODY)
    srv = server(handler)
    healed = run("projects_info", srv.url, api_retries=3)
    assert not healed.failed, healed.describe()
    assert len(srv.requests) == 3 and [p["id"] for p in healed.result["projects"]] == [PROJECT["id"]]
    record(results, "GET answer cut mid-body, twice", "Content-Length announced, the connection closed half-way",
           "asked again like any network error on a read: healed on attempt %d" % len(srv.requests))


def test_a_chunked_answer_cut_mid_chunk_fails_clearly_after_the_retries(server, clean_env):
    srv = server(lambda request: Reply(200, b'{"projects": [', mode="chunked_cut"))
    result = run("projects_info", srv.url, api_retries=2)
    assert result.failed and len(srv.requests) == 3, result.describe()
    assert "gave up after 3 attempts" in result.msg


# ---------------------------------------------------------------------------------------------- odd answers

def test_an_answer_nested_very_deeply_is_refused_not_a_crash(server, clean_env, results):
    nested = {}
    inner = nested
    for _index in range(500):
        inner["x"] = {}
        inner = inner["x"]
    srv = server(lambda request: json_reply({"projects": [dict(PROJECT, extra=nested)], "pagination": {}}))
    result = run("projects_info", srv.url)
    assert result.crash is None and "Traceback" not in result.text(), result.describe()
    assert result.failed and "unexpected answer" in result.msg and "GET /projects" in result.msg
    record(results, "an answer nested 500 levels deep", "a project with an unknown field nested 500 levels",
           "`unexpected answer`, no traceback")


class FakeKeys:
    """Just enough of the API key endpoints: a list, a create that gives a secret, a revoke.

    ``refuse_delete``: the status every DELETE gets (with a message that echoes the request's
    Authorization header), or "drop" to close the connection without answering.
    """

    def __init__(self, keys, refuse_delete=None, prefix="/api/v2/api_keys"):
        self.keys = [dict(key) for key in keys]
        self.refuse_delete = refuse_delete
        self.prefix = prefix
        self.secrets = []

    def __call__(self, request):
        if request.path == self.prefix and request.method == "GET":
            return json_reply(self.keys)
        if request.path == self.prefix and request.method == "POST":
            body = request.json()
            secret = "%064d" % (len(self.secrets) + 7)
            secret = "n3w" + secret[3:]
            self.secrets.append(secret)
            key = {"id": 1000 + len(self.secrets), "name": body["key_name"], "created_at": "2025-01-16T21:02:04Z"}
            if body.get("project_id"):
                key["project_id"] = body["project_id"]
            self.keys.insert(0, key)
            return json_reply(dict(key, key=secret))
        if request.path.startswith(self.prefix + "/") and request.method == "DELETE":
            if self.refuse_delete == "drop":
                return Reply(mode="close")
            return json_reply({"code": "", "message": "refused for %s" % request.headers.get("authorization"),
                               "request_id": "r-1"}, status=self.refuse_delete)
        return json_reply({"message": "not found"}, status=404)


def test_key_ids_that_are_not_integers_stop_a_rotation_before_anything_is_created(server, clean_env, results):
    fake = FakeKeys([{"id": "abc", "name": "ci"}, {"id": 5, "name": "ci"}])
    srv = server(fake)
    result = run("api_key", srv.url, name="ci", rotate=True)
    assert result.crash is None, result.describe()
    assert result.failed and "unexpected answer" in result.msg and "[0].id" in result.msg and "GET /api_keys" in result.msg
    assert [request.method for request in srv.requests] == ["GET"]
    record(results, "key ids that are not all integers, rotate=true", "GET /api_keys lists an id \"abc\"",
           "`unexpected answer` naming the field, before any POST: no key created")


@pytest.mark.parametrize("module", ["operation_info", "operation_wait"])
def test_an_answer_about_another_operation_is_refused(server, clean_env, results, module):
    other = dict(id="5f0e3b1a-7c2d-4e8f-9a6b-1d3c5e7f9a20", project_id=PROJECT["id"], status="finished")
    srv = server(lambda request: json_reply({"operation": other}))
    args = dict(project_id=PROJECT["id"])
    args.update(operation_id=OPERATION_ID) if module == "operation_info" else args.update(operation_ids=[OPERATION_ID])
    result = run(module, srv.url, **args)
    assert result.failed and "unexpected answer" in result.msg and "operation.id" in result.msg, result.describe()
    record(results, "%s: the answer is about another operation" % module, "GET .../operations/X answers operation Y",
           "`unexpected answer`: operation.id is not the one asked for")


# ---------------------------------------------------------------------------------------------- error text

def test_a_long_service_message_with_control_characters_is_one_safe_line(server, clean_env, results):
    message = "bad \x1b[31mthing\x1b[0m\r\nForged: log line " + "y" * 10000
    srv = server(lambda request: json_reply({"code": "", "message": message, "request_id": "r"}, status=400))
    result = run("projects_info", srv.url)
    assert result.failed
    assert "\x1b" not in result.msg and "\n" not in result.msg and "\r" not in result.msg
    assert "\\x1b[31m" in result.msg
    assert len(result.msg) < 600
    record(results, "a 10,000-character error message with line breaks and escape sequences",
           "HTTP 400 with that message", "shown on one line of under 600 characters, control characters escaped")


def test_a_message_quoting_part_of_the_key_shows_no_piece_of_it(server, clean_env, results):
    srv = server(lambda request: json_reply({"message": "unknown key %s..." % KEY[5:25]}, status=401))
    result = run("projects_info", srv.url)
    assert result.failed and "<redacted>" in result.msg
    assert leaked(result.stdout, KEY) == []
    record(results, "a service message quoting 20 characters of the key", "HTTP 401 quoting part of the key",
           "the quoted part is redacted")


def test_a_key_with_quotes_and_backslashes_is_not_shown_escaped(server, clean_env, results):
    key = 'quoted"key\\with-' + "q7" * 20
    srv = server(lambda request: Reply(502, b"<html>echo " + json.dumps({"k": key}).encode() + b"</html>",
                                       headers={"Content-Type": "text/html"}))
    result = rel.run_module("projects_info", dict(FAST, api_key=key, api_url=srv.url, api_retries=0))
    assert result.failed
    assert leaked(result.stdout, key, json.dumps(key)[1:-1]) == []
    record(results, "an API key with `\"` and `\\` echoed JSON-escaped", "an HTML error page quoting the escaped key",
           "no piece of it in the output")


# ---------------------------------------------------------------------------------------------- path parameters

@pytest.mark.parametrize("module", ["operation_info", "operation_wait"])
@pytest.mark.parametrize("project_id", [".", ".."])
def test_path_parameters_cannot_leave_their_place(server, clean_env, results, module, project_id):
    srv = server(projects_page)
    result = run(module, srv.url, project_id=project_id)
    assert result.failed and srv.requests == [], result.describe()
    assert "project_id must not be" in result.msg
    record(results, "%s: project_id %r" % (module, project_id), "a path parameter that would leave its place",
           "refused before any request (it would reach another endpoint)")


# ---------------------------------------------------------------------------------------------- created keys

@pytest.mark.parametrize("refusal", [403, 401, 500, "drop"])
def test_a_rotation_whose_revoke_fails_keeps_the_new_secret(server, clean_env, results, refusal):
    fake = FakeKeys([{"id": 7, "name": "ci"}], refuse_delete=refusal)
    srv = server(fake)
    result = run("api_key", srv.url, name="ci", rotate=True)
    secret = fake.secrets[0]
    assert result.failed and result.result["changed"] is True, result.describe()
    assert result.result["key"] == secret and result.result["api_key"]["id"] == 1001
    assert "still active: 7" in result.msg
    assert leaked(result.msg, secret, KEY) == []
    assert result.stdout.count(secret) == 1  # only as `key`
    record(results, "rotate=true, the revoke of the older key refused (%s)" % refusal,
           "DELETE answers %s%s" % (refusal, " echoing the Authorization header" if refusal != "drop" else ""),
           "fails with changed, api_key and the new secret in `key`; the message names key 7 as still active")


def test_an_organization_key_rotation_whose_revoke_fails_keeps_the_new_secret(server, clean_env, results):
    prefix = "/api/v2/organizations/org-calm-tree-21298941/api_keys"
    fake = FakeKeys([{"id": 7, "name": "ci", "project_id": "bold-glade-61830452"}], refuse_delete=403, prefix=prefix)
    srv = server(fake)
    result = run("api_key", srv.url, name="ci", rotate=True, org_id="org-calm-tree-21298941",
                 project_id="bold-glade-61830452")
    assert result.failed and result.result["changed"] is True and result.result["key"] == fake.secrets[0]
    assert result.result["api_key"]["project_id"] == "bold-glade-61830452"
    assert leaked(result.msg, fake.secrets[0]) == []
    record(results, "rotate=true of a project-scoped key, the revoke refused (403)", "an organization's keys",
           "fails with changed, api_key and the new secret in `key`")


@pytest.mark.parametrize("way", MODULE_WAYS)
def test_a_playbook_keeps_the_secret_of_a_failed_rotation(server, clean_env, tmp_path, collection_parent, results, way):
    fake = FakeKeys([{"id": 7, "name": "ci"}], refuse_delete=403)
    srv = server(fake)
    (tmp_path / "site.yml").write_text("""
- hosts: localhost
  gather_facts: false
  tasks:
    - name: Rotate
      block:
        - name: Create a new key and revoke the older ones
          neon.cloud.api_key:
            api_url: %s
            name: ci
            rotate: true
            api_retries: 0
          register: rotated
          no_log: true
      always:
        - name: Keep the new secret whenever one was created
          ansible.builtin.copy:
            content: "{{ rotated.key }}"
            dest: %s
            mode: "0600"
          when: rotated.key is defined
          no_log: true
""" % (srv.url, tmp_path / "kept.key"))
    proc = playbook(tmp_path, collection_parent, "site.yml", way, NEON_API_KEY=KEY)
    text = proc.stdout + proc.stderr
    assert ran_as(text, way), way
    kept = (tmp_path / "kept.key").read_text() if (tmp_path / "kept.key").exists() else None
    assert proc.returncode == 2, text[-3000:]
    assert kept == fake.secrets[0]
    assert leaked(text, fake.secrets[0], KEY) == []
    record(results, "the docs' register + always pattern, rotation refused", "ansible-playbook -vvv" + SHIPPED_NOTE[way],
           "the play fails, and the new secret is in the file the always section wrote")


# ---------------------------------------------------------------------------------------------- helpers

# How a playbook test's line in the reliability report names the way its modules ran (in the controller: as before).
SHIPPED_NOTE = {"in_controller": "", "shipped": ", modules shipped"}


def playbook(tmp_path, collection_parent, name, way, **env):
    return subprocess.run([tool("ansible-playbook"), "-vvv", "-i", localhost_inventory(tmp_path), name] + way_args(way),
                          cwd=str(tmp_path), env=ansible_env(tmp_path, collection_parent, **env),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=300,
                          check=False)


# ---------------------------------------------------------------------------------------------- role passwords

ROLE_PASSWORD = "npg" + "Pw7x" * 4  # recognisable in any output


def role_service(create_answer, reveal=None):
    """A branch ``main`` without roles, whose role create answers ``create_answer``."""
    def handler(request):
        if request.method == "GET" and request.path.endswith("/branches"):
            return json_reply({"branches": [{"id": "br-main-1", "name": "main", "default": True}]})
        if request.method == "GET" and request.path.endswith("/roles"):
            return json_reply({"roles": []})
        if request.method == "POST" and request.path.endswith("/roles"):
            return create_answer
        return json_reply({"message": "not found"}, status=404)
    return handler


@pytest.mark.parametrize("answer, what", [
    ({"role": {"name": 42, "password": ROLE_PASSWORD}, "operations": []}, "a role whose name is a number"),
    ({"role": {"name": "app", "password": ROLE_PASSWORD}, "operations": "soon"}, "operations that are not a list"),
    ({"role": {"name": "other", "password": ROLE_PASSWORD}, "operations": []}, "another role than the one asked"),
])
def test_a_role_create_answer_that_cannot_be_used_still_returns_its_password(server, clean_env, results, answer, what):
    srv = server(role_service(json_reply(answer, status=201)))
    result = run("role", srv.url, project_id=PROJECT["id"], name="app")
    assert result.failed and result.result["changed"] is True, result.describe()
    assert result.result["password"] == ROLE_PASSWORD
    assert "new password is in this result (password)" in result.msg
    assert leaked(result.msg + json.dumps(result.result.get("warnings")), ROLE_PASSWORD, KEY) == []
    assert result.stdout.count(ROLE_PASSWORD) == 1  # only as `password`
    assert [request.method for request in srv.requests].count("POST") == 1
    record(results, "role create answered with %s" % what, "201 with the role's password",
           "fails with changed and the new password in `password`; the message says so and shows no piece of it")
