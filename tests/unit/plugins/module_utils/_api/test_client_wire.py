# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What NeonClient puts on the wire, seen by a tiny HTTP server on 127.0.0.1."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import threading
import uuid

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._api.client import NeonAPIError, NeonClient, api_path, query_string

CURSOR = "2025-01-16T21:02:04.214837+00:00"
ENCODED_CURSOR = "2025-01-16T21%3A02%3A04.214837%2B00%3A00"


class RecordingHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _handle(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.seen.append({
            "requestline": self.requestline,
            "method": self.command,
            "target": self.path,
            "headers": dict((name.lower(), value) for name, value in self.headers.items()),
            "body": body,
        })
        status, payload, extra = self.server.answers.pop(0) if self.server.answers else (200, {"ok": True}, {})
        raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
        self.send_response(status)
        if raw:  # an answer without a body has no content type (as the service's 204 and its no-content 200s)
            self.send_header("Content-Type", "application/json")
        if status != 204:  # a 204 has no Content-Length either (RFC 9110, 8.6)
            self.send_header("Content-Length", str(len(raw)))
        for name, value in extra.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(raw)

    do_GET = do_POST = do_PUT = do_DELETE = _handle

    def log_message(self, *args):  # pylint: disable=arguments-differ
        pass


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), RecordingHandler)
    httpd.seen = []
    httpd.answers = []
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def client_for(httpd, suffix="/api/v2", **kwargs):
    url = "http://127.0.0.1:%d%s" % (httpd.server_address[1], suffix)
    kwargs.setdefault("retries", 0)
    kwargs.setdefault("timeout", 5.0)
    return NeonClient("secret-key-1", api_url=url, **kwargs)


def test_api_path_encodes_each_segment_completely():
    assert api_path("projects", "p/1", "operations", "a:b") == "/projects/p%2F1/operations/a%3Ab"
    assert api_path("api_keys", 42) == "/api_keys/42"
    assert api_path("projects", "a b?c#d%e") == "/projects/a%20b%3Fc%23d%25e"


def test_query_string_escapes_cursor_and_drops_none():
    assert query_string({"limit": 10, "cursor": CURSOR}) == "limit=10&cursor=" + ENCODED_CURSOR
    assert query_string({"limit": 10, "cursor": None}) == "limit=10"
    assert query_string(None) == ""


def test_request_line_carries_encoded_path_and_cursor(server):
    client = client_for(server)
    path = api_path("projects", "p/1", "operations", "a:b")
    assert client.get(path, params={"limit": 5, "cursor": CURSOR}) == {"ok": True}
    (seen,) = server.seen
    expected = "GET /api/v2/projects/p%2F1/operations/a%3Ab?limit=5&cursor=" + ENCODED_CURSOR + " HTTP/1.1"
    assert seen["requestline"] == expected


@pytest.mark.parametrize("suffix", ["/api/v2/", "/api/v2//", "/api/v2"])
def test_trailing_slashes_in_api_url_are_tolerated(server, suffix):
    client_for(server, suffix=suffix).get("/projects")
    assert server.seen[0]["target"] == "/api/v2/projects"


def test_get_headers_bearer_accept_request_id_and_no_content_type(server):
    client = client_for(server)
    client.get("/api_keys")
    client.get("/api_keys")
    first, second = server.seen
    headers = first["headers"]
    assert headers["authorization"] == "Bearer secret-key-1"
    assert headers["accept"] == "application/json"
    assert "content-type" not in headers
    assert first["body"] == b""
    uuid.UUID(headers["x-request-id"])  # raises when it is not one
    assert headers["x-request-id"] != second["headers"]["x-request-id"]


def test_post_sends_json_body_with_content_type(server):
    client = client_for(server)
    client.post("/api_keys", {"key_name": "ci"})
    (seen,) = server.seen
    assert seen["method"] == "POST"
    assert seen["headers"]["content-type"] == "application/json"
    assert seen["headers"]["accept"] == "application/json"
    assert seen["headers"]["authorization"] == "Bearer secret-key-1"
    assert json.loads(seen["body"].decode("utf-8")) == {"key_name": "ci"}


def test_delete_has_no_content_type(server):
    client = client_for(server)
    client.delete(api_path("api_keys", 7))
    (seen,) = server.seen
    assert seen["requestline"] == "DELETE /api/v2/api_keys/7 HTTP/1.1"
    assert "content-type" not in seen["headers"]
    assert seen["headers"]["accept"] == "application/json"


def test_use_api_key_switches_the_bearer_token(server):
    client = client_for(server)
    client.use_api_key("rotated-key")
    client.get("/api_keys")
    assert server.seen[0]["headers"]["authorization"] == "Bearer rotated-key"


def test_error_from_a_real_server_names_request_and_header_request_id(server):
    server.answers.append((404, {"code": "", "message": "operation not found", "request_id": "body-id"},
                           {"x-neon-ret-request-id": "hdr-id-1"}))
    client = client_for(server)
    with pytest.raises(NeonAPIError) as caught:
        client.get(api_path("projects", "p-1", "operations", "abc"))
    assert str(caught.value) == "GET /projects/p-1/operations/abc failed: HTTP 404: operation not found (request id hdr-id-1)"
    assert len(server.seen) == 1


def test_redirects_are_not_followed(server):
    server.answers.append((302, b"", {"Location": "http://127.0.0.1:1/elsewhere"}))
    client = client_for(server)
    with pytest.raises(NeonAPIError) as caught:
        client.get("/projects")
    assert caught.value.status == 302
    assert str(caught.value).startswith("GET /projects failed: HTTP 302: ")
    assert len(server.seen) == 1


# ---------------------------------------------------------------------------------------------- successes without a body
# The document gives some successes no content: the VPC endpoint assignments' POST and DELETE answer 200 with no
# body, a DELETE of what is gone 204 (docs/docsite/rst/api-behaviour.rst, "Successes without a body").

VPC_RESTRICTION = api_path("projects", "bold-glade-61830452", "vpc_endpoints", "vpce-0a1b2c3d4e5f67890")


@pytest.mark.parametrize("raw", [b"", b"  \r\n"], ids=["empty", "whitespace"])
@pytest.mark.parametrize("method", ["POST", "DELETE", "PUT"])
def test_an_empty_200_is_the_success_of_an_operation_without_content(server, method, raw):
    server.answers.append((200, raw, {}))
    client = client_for(server, retries=5)
    body = {"label": "checkout"} if method != "DELETE" else None
    assert client.request(method, VPC_RESTRICTION, body=body, no_content=True) is None
    assert len(server.seen) == 1  # done once: nothing was asked again


def test_an_operation_without_content_that_answers_an_object_gives_it(server):
    server.answers.append((200, {}, {}))  # what the vendor's CLI fixtures answer for an assignment
    assert client_for(server).request("POST", VPC_RESTRICTION, body={"label": "x"}, no_content=True) == {}


@pytest.mark.parametrize("no_content", [False, True])
def test_a_204_is_a_success_without_an_answer_for_any_operation(server, no_content):
    server.answers.append((204, b"", {}))
    path = api_path("projects", "p-1", "branches", "br-gone-1")
    assert client_for(server).request("DELETE", path, no_content=no_content) is None
    assert len(server.seen) == 1


def test_an_empty_200_where_the_document_promises_content_is_not_taken_for_the_answer(server):
    """A create's answer (here a key's secret) lost on the way: the POST may have been carried out, so it is not
    repeated and not taken for a success without content; the caller finds out what happened."""
    server.answers.append((200, b"", {}))
    client = client_for(server, retries=5)
    with pytest.raises(NeonAPIError) as caught:
        client.post("/api_keys", {"key_name": "ci"})
    assert "HTTP 200 but the body is not valid JSON: (empty body)" in str(caught.value)
    assert caught.value.ambiguous and "so it was not repeated" in str(caught.value)
    assert len(server.seen) == 1


def test_an_empty_200_to_a_get_is_asked_again(server):
    server.answers.extend([(200, b"", {}), (200, {"api_keys": []}, {})])
    assert client_for(server, retries=2, sleep=lambda _seconds: None).get("/api_keys") == {"api_keys": []}
    assert len(server.seen) == 2


@pytest.mark.parametrize("raw", [b"<html><body>502 Bad Gateway</body></html>", b"{\"label\": ", b"ok"])
def test_a_body_that_is_not_json_stays_an_error_where_no_content_is_documented(server, raw):
    server.answers.append((200, raw, {}))
    client = client_for(server, retries=5)
    with pytest.raises(NeonAPIError) as caught:
        client.request("POST", VPC_RESTRICTION, body={"label": "checkout"}, no_content=True)
    shown = raw.decode().strip()
    assert "POST %s failed: HTTP 200 but the body is not valid JSON: %s" % (VPC_RESTRICTION, shown) in str(caught.value)
    assert caught.value.ambiguous and caught.value.body_excerpt == shown
    assert len(server.seen) == 1  # the POST may have been carried out: never sent again
