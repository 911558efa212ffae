# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How NeonClient turns error answers into NeonAPIError messages; validate_api_url."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._api.client import (
    BODY_EXCERPT_CHARS,
    NeonAPIError,
    api_path,
)
from ansible_collections.neon.cloud.plugins.module_utils._api.transport import check_api_url as validate_api_url
from ansible_collections.neon.cloud.tests.unit.plugins.module_utils.neon_fakes import make_client, make_response, queue_handler

OPERATION_PATH = api_path("projects", "p-1", "operations", "abc")


def failure(response, method="GET", path=OPERATION_PATH, retries=0):
    client, adapter = make_client(queue_handler([response]), retries=retries)
    with pytest.raises(NeonAPIError) as caught:
        client.request(method, path, body={"key_name": "x"} if method == "POST" else None)
    return caught.value, adapter


def test_json_error_body_and_header_request_id():
    error, adapter = failure(make_response(404, {"code": "", "message": "operation not found", "request_id": "body-7"},
                                           headers={"x-neon-ret-request-id": "hdr-42"}))
    assert str(error) == "GET /projects/p-1/operations/abc failed: HTTP 404: operation not found (request id hdr-42)"
    assert error.request_id == "hdr-42"
    assert error.status == 404
    assert error.code == ""
    assert error.api_message == "operation not found"
    assert not error.retryable
    assert len(adapter.sent) == 1


def test_request_id_from_the_body_when_the_header_is_absent():
    error, adapter = failure(make_response(404, {"code": "NOT_FOUND", "message": "operation not found", "request_id": "body-7"}))
    assert error.request_id == "body-7"
    assert str(error).endswith("operation not found (request id body-7)")
    assert adapter.sent[0].headers["X-Request-ID"] != "body-7"


def test_own_request_id_when_the_service_gives_none():
    error, adapter = failure(make_response(400, {"message": "bad limit"}))
    sent_id = adapter.sent[0].headers["X-Request-ID"]
    assert error.request_id == sent_id
    assert str(error) == "GET %s failed: HTTP 400: bad limit (request id %s)" % (OPERATION_PATH, sent_id)


def test_html_error_body_gives_a_short_excerpt():
    html = "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>" + "x" * 1000 + "</body></html>"
    error, _adapter = failure(make_response(502, raw=html), method="POST", path="/api_keys")
    assert "HTTP 502: the service answered a body that is not a JSON error: <html> <head><title>502 Bad Gateway" in str(error)
    assert error.body_excerpt.startswith("<html> <head>")
    assert len(error.body_excerpt) == BODY_EXCERPT_CHARS + 3
    assert "x" * 1000 not in str(error)
    assert error.ambiguous
    assert "may have been carried out" in str(error)


@pytest.mark.parametrize("raw", [b"", b"   \n"])
def test_empty_error_body(raw):
    error, _adapter = failure(make_response(503, raw=raw))
    assert "HTTP 503: the service answered an empty body" in str(error)
    assert error.body_excerpt is None
    assert error.retryable


@pytest.mark.parametrize("raw", [b"upstream connect error", b"[1, 2]", b'"just a string"', b"{not json"])
def test_non_json_or_non_object_error_bodies_are_quoted(raw):
    error, _adapter = failure(make_response(400, raw=raw))
    assert "HTTP 400: the service answered a body that is not a JSON error: %s" % raw.decode() in str(error)
    assert error.api_message is None


def test_non_string_message_is_serialised():
    error, _adapter = failure(make_response(422, {"message": {"field": "limit", "problem": "too big"}}))
    assert '"field": "limit"' in str(error)


def test_unauthorized_mentions_missing_invalid_or_revoked():
    error, _adapter = failure(make_response(401, {"code": "", "message": "authentication required"}), path="/api_keys")
    assert str(error).startswith("GET /api_keys failed: HTTP 401: authentication required (")
    assert "missing, invalid or revoked" in str(error)
    assert not error.retryable


def test_unauthorized_with_empty_body_still_explains():
    error, _adapter = failure(make_response(401, raw=b""), path="/api_keys")
    assert "missing, invalid or revoked" in str(error)


def test_query_string_is_part_of_the_path_shown():
    client, _adapter = make_client(queue_handler([make_response(404, {"message": "no such project"})]), retries=0)
    with pytest.raises(NeonAPIError) as caught:
        client.get("/projects/p-1/operations", params={"limit": 2, "cursor": "2025-01-16T21:02:04Z"})
    assert str(caught.value).startswith("GET /projects/p-1/operations?limit=2&cursor=2025-01-16T21%3A02%3A04Z failed: HTTP 404")


def test_to_dict_fields():
    error, _adapter = failure(make_response(409, {"code": "CONFLICT", "message": "busy", "request_id": "r-1"},
                                            headers={"x-neon-ret-request-id": "h-1"}), method="DELETE", path="/api_keys/3")
    assert error.to_dict() == {
        "status": 409,
        "method": "DELETE",
        "path": "/api_keys/3",
        "code": "CONFLICT",
        "message": "busy",
        "request_id": "h-1",
        "attempts": 1,
        "retryable": False,
        "ambiguous": False,
        "body_excerpt": None,
    }


def test_to_dict_after_retries_counts_attempts():
    client, adapter = make_client(queue_handler([make_response(503, raw=b"")]), retries=2, retry_max_delay=1.0)
    with pytest.raises(NeonAPIError) as caught:
        client.get("/projects")
    assert len(adapter.sent) == 3
    assert caught.value.to_dict()["attempts"] == 3
    assert caught.value.to_dict()["retryable"] is True


def test_success_with_a_body_that_is_not_json_on_post_is_ambiguous_and_not_repeated():
    client, adapter = make_client(queue_handler([make_response(200, raw=b"<html>oops</html>")]), retries=5)
    with pytest.raises(NeonAPIError) as caught:
        client.post("/api_keys", {"key_name": "ci"})
    assert len(adapter.sent) == 1
    assert caught.value.ambiguous
    assert "HTTP 200 but the body is not valid JSON: <html>oops</html>" in str(caught.value)


def test_deeply_nested_body_is_an_error_not_a_crash():
    client, _adapter = make_client(queue_handler([make_response(500, raw=b"[" * 100000)]), retries=0)
    with pytest.raises(NeonAPIError) as caught:
        client.get("/projects")
    assert "HTTP 500" in str(caught.value)
    client, _adapter = make_client(queue_handler([make_response(200, raw=b"[" * 100000)]), retries=0)
    with pytest.raises(NeonAPIError) as caught:
        client.get("/projects")
    assert "unexpected answer (HTTP 200): the JSON is nested more than 32 levels deep" in str(caught.value)


def test_valid_json_nested_deeper_than_any_answer_is_refused():
    deep = b"[" * 40 + b"]" * 40
    client, _adapter = make_client(queue_handler([make_response(200, raw=deep)]), retries=0)
    with pytest.raises(NeonAPIError) as caught:
        client.get("/projects")
    assert "nested more than 32 levels deep" in str(caught.value)
    shallow = b"[" * 30 + b"]" * 30
    client, _adapter = make_client(queue_handler([make_response(200, raw=shallow)]), retries=0)
    assert client.get("/projects") == json.loads(shallow)


@pytest.mark.parametrize("url", ["ftp://console.neon.tech/api/v2", "console.neon.tech/api/v2", "", None,
                                 "https://", "file:///etc/passwd", "javascript:alert(1)"])
def test_validate_api_url_refuses_non_http_urls(url):
    problem = validate_api_url(url)
    assert problem is not None and "api_url must be an http(s) URL" in problem


@pytest.mark.parametrize("url", ["http://console.neon.tech/api/v2", "http://10.0.0.5:8080/api/v2", "http://[2001:db8::1]/v2",
                                 "http://127.example.com/api/v2", "http://localhost.example.com/v2"])
def test_validate_api_url_refuses_plain_http_to_other_hosts(url):
    problem = validate_api_url(url)
    assert problem is not None and "plain http" in problem and "api_allow_plain_http" in problem
    assert validate_api_url(url, allow_plain_http=True) is None


@pytest.mark.parametrize("url", ["http://localhost:8080/api/v2", "http://127.0.0.1:1234/api/v2", "http://127.1.2.3/v2",
                                 "http://[::1]:9000/api/v2", "http://LOCALHOST/api/v2", "https://console.neon.tech/api/v2"])
def test_validate_api_url_accepts_https_and_loopback_http(url):
    assert validate_api_url(url) is None


@pytest.mark.parametrize("raw", [
    # GET /connection_uri cut inside the URI, after its password
    b'{"uri": "postgresql://neondb_owner:AbC123xYz789@ep-a-1.eu-central-1.aws.neon.tech/neondb?sslm',
    # cut inside the password itself
    b'{"uri": "postgresql://neondb_owner:AbC123xYz7',
    # a create answer cut inside a role or connection parameters
    b'{"roles": [{"name": "neondb_owner", "password": "AbC123xYz789"}], "connection_uris": [{"connec',
])
def test_a_cut_answer_that_shows_a_password_never_repeats_it(raw):
    """The password of a connection URI or a role is not known before the answer is read, so it is
    recognised by its shape in what the message quotes of a body that is not valid JSON."""
    client, adapter = make_client(queue_handler([make_response(200, raw=raw)]), retries=0)
    with pytest.raises(NeonAPIError) as caught:
        client.get(api_path("projects", "p-1", "connection_uri"))
    shown = str(caught.value) + json.dumps(caught.value.to_dict())
    assert "AbC123xYz7" not in shown
    assert "neondb_owner" in shown  # the rest of the excerpt is still there to read
