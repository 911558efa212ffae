# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the transport sends and accepts, decided on purpose rather than by the environment."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import gzip

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._api.transport import ANSWER_MAX, Transport, TransportError, check_api_url
from ansible_collections.neon.cloud.tests.unit.plugins.module_utils.neon_fakes import make_client, make_response, queue_handler


@pytest.mark.parametrize("url", ["https://user:s3cret@console.neon.tech/api/v2", "https://tok3n@console.neon.tech/api/v2",
                                 "http://user:pw@127.0.0.1:8080/api/v2"])
def test_api_url_with_credentials_is_refused_without_repeating_them(url):
    problem = check_api_url(url)
    assert "must not contain a user name or password" in problem
    assert "s3cret" not in problem and "tok3n" not in problem and "user" not in problem.split("password")[1]


def test_unparseable_api_url_with_credentials_is_not_repeated():
    problem = check_api_url("http://user:s3cret@[::1")
    assert "s3cret" not in problem


def test_plain_http_to_loopback_through_an_environment_proxy_is_refused(monkeypatch):
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", "http://alice:pw@proxy.example.com:3128")
    problem = check_api_url("http://127.0.0.1:8080/api/v2")
    assert "proxy http://proxy.example.com:3128" in problem and "NO_PROXY" in problem
    assert "pw" not in problem.replace("api_allow_plain_http", "")
    assert check_api_url("http://127.0.0.1:8080/api/v2", allow_plain_http=True) is None
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    assert check_api_url("http://127.0.0.1:8080/api/v2") is None


def test_the_environment_does_not_choose_credentials_or_certificates(monkeypatch, tmp_path):
    netrc = tmp_path / "netrc"
    netrc.write_text("machine api.test login user password pw\n")
    monkeypatch.setenv("NETRC", str(netrc))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", "/etc/ssl/certs/ca-certificates.crt")
    transport = Transport("the-key", "https://api.test/api/v2", 5, validate_certs=False)
    assert transport.session.trust_env is False
    assert transport.session.verify is False
    assert Transport("k", "https://api.test/api/v2", 5, ca_path="/tmp/ca.pem").session.verify == "/tmp/ca.pem"


def test_only_the_bearer_key_is_sent(monkeypatch, tmp_path):
    netrc = tmp_path / "netrc"
    netrc.write_text("machine api.test login user password pw\n")
    monkeypatch.setenv("NETRC", str(netrc))
    client, adapter = make_client(queue_handler([make_response(200, {"ok": True})]))
    client.get("/projects")
    assert adapter.sent[0].headers["Authorization"] == "Bearer test-key"


def test_an_announced_answer_over_the_limit_is_not_read():
    client, _adapter = make_client(queue_handler([make_response(200, raw=b"{}", headers={
        "Content-Length": str(ANSWER_MAX + 1)})]), retries=3)
    with pytest.raises(Exception) as caught:
        client.get("/projects")
    assert "larger than 16 MiB" in str(caught.value) and caught.value.attempts == 1


def test_a_decompression_bomb_is_not_inflated_past_the_limit():
    bomb = gzip.compress(b" " * (ANSWER_MAX + 1024))
    client, _adapter = make_client(queue_handler([make_response(200, raw=bomb, headers={"Content-Encoding": "gzip"})]))
    with pytest.raises(Exception) as caught:
        client.get("/projects")
    assert "larger than 16 MiB once inflated" in str(caught.value)


def test_gzip_answers_are_inflated():
    client, _adapter = make_client(queue_handler([make_response(200, raw=gzip.compress(b'{"a": 1}'),
                                                                headers={"Content-Encoding": "gzip"})]))
    assert client.get("/x") == {"a": 1}


def test_an_answer_shorter_than_announced_is_cut_and_a_get_is_asked_again():
    cut = make_response(200, raw=b'{"projects": [', headers={"Content-Length": "100"})
    client, adapter = make_client(queue_handler([cut, make_response(200, {"projects": []})]))
    assert client.get("/projects") == {"projects": []}
    assert len(adapter.sent) == 2


def test_an_encoding_we_did_not_ask_for_is_an_error():
    client, _adapter = make_client(queue_handler([make_response(200, raw=b"xx", headers={"Content-Encoding": "br"})]))
    with pytest.raises(Exception) as caught:
        client.get("/x")
    assert "Content-Encoding 'br'" in str(caught.value)


def test_transport_error_kinds_say_whether_the_request_left():
    assert TransportError("connect", "x").sent is False
    assert TransportError("certificate", "x").sent is False
    assert TransportError("timeout", "x").sent is True
