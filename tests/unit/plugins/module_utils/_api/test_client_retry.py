# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""NeonClient's retry policy, on a simulated clock (nothing here really sleeps)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import email.utils
import time

import pytest
import requests

from ansible_collections.neon.cloud.plugins.module_utils._api.client import (
    NeonAPIError,
    backoff_delay,
    parse_retry_after,
)
from ansible_collections.neon.cloud.tests.unit.plugins.module_utils.neon_fakes import FakeClock, make_client, make_response, queue_handler

OK = make_response(200, {"ok": True})
METHODS = ["GET", "POST", "DELETE"]


def call(client, method):
    if method == "POST":
        return client.post("/api_keys", {"key_name": "ci"})
    if method == "DELETE":
        return client.delete("/api_keys/1")
    return client.get("/api_keys")


def connection_refused():
    return requests.exceptions.ConnectionError(
        "HTTPSConnectionPool(host='api.test', port=443): Max retries exceeded "
        "(Caused by NewConnectionError('Failed to establish a new connection: [Errno 111] Connection refused'))")


def connection_reset():
    return requests.exceptions.ConnectionError("('Connection aborted.', RemoteDisconnected('Remote end closed connection'))")


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("status", [423, 429, 503])
def test_not_carried_out_statuses_are_retried_for_every_method(method, status):
    client, adapter = make_client(queue_handler([make_response(status, {"message": "busy"}), OK]))
    assert call(client, method) == {"ok": True}
    assert len(adapter.sent) == 2
    assert client.requests_made == 2
    assert [request.method for request in adapter.sent] == [method, method]


@pytest.mark.parametrize("status", [500, 502, 504])
def test_gateway_errors_are_retried_on_get(status):
    client, adapter = make_client(queue_handler([make_response(status, raw=b"<html>bad gateway</html>"), OK]))
    assert client.get("/projects") == {"ok": True}
    assert len(adapter.sent) == 2


@pytest.mark.parametrize("method", ["POST", "DELETE"])
@pytest.mark.parametrize("status", [500, 502, 504])
def test_gateway_errors_are_never_repeated_on_post_or_delete(method, status):
    client, adapter = make_client(queue_handler([make_response(status, raw=b""), OK]))
    with pytest.raises(NeonAPIError) as caught:
        call(client, method)
    assert len(adapter.sent) == 1
    assert caught.value.ambiguous
    assert caught.value.status == status
    assert "may have been carried out, so it was not repeated" in str(caught.value)


@pytest.mark.parametrize("fault", [connection_reset, lambda: requests.exceptions.ReadTimeout("read timed out")])
def test_network_faults_after_sending_are_retried_on_get(fault):
    client, adapter = make_client(queue_handler([fault(), OK]))
    assert client.get("/projects") == {"ok": True}
    assert len(adapter.sent) == 2


@pytest.mark.parametrize("method", ["POST", "DELETE"])
@pytest.mark.parametrize("fault", [connection_reset, lambda: requests.exceptions.ReadTimeout("read timed out")])
def test_network_faults_after_sending_are_never_repeated_on_post_or_delete(method, fault):
    client, adapter = make_client(queue_handler([fault(), OK]))
    with pytest.raises(NeonAPIError) as caught:
        call(client, method)
    assert len(adapter.sent) == 1
    assert caught.value.ambiguous
    assert caught.value.status is None
    assert "may have been carried out" in str(caught.value)


def test_read_timeout_message_names_the_timeout():
    client, _adapter = make_client(queue_handler([requests.exceptions.ReadTimeout("read timed out")]), retries=0, timeout=7.5)
    with pytest.raises(NeonAPIError) as caught:
        client.post("/api_keys", {"key_name": "x"})
    assert "no answer within 7.5 s (api_timeout)" in str(caught.value)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("fault", [connection_refused, lambda: requests.exceptions.ConnectTimeout("connect timed out")])
def test_requests_that_never_left_are_retried_for_every_method(method, fault):
    client, adapter = make_client(queue_handler([fault(), OK]))
    assert call(client, method) == {"ok": True}
    assert len(adapter.sent) == 2


def test_non_json_success_body_is_retried_on_get():
    client, adapter = make_client(queue_handler([make_response(200, raw=b"<html>cdn</html>"), OK]))
    assert client.get("/projects") == {"ok": True}
    assert len(adapter.sent) == 2


@pytest.mark.parametrize("status", [400, 401, 403, 404, 409, 422])
def test_client_errors_are_not_retried(status):
    client, adapter = make_client(queue_handler([make_response(status, {"message": "no"}), OK]))
    with pytest.raises(NeonAPIError):
        client.get("/projects")
    assert len(adapter.sent) == 1


def test_retry_after_seconds_is_honoured():
    clock = FakeClock()
    client, _adapter = make_client(queue_handler([make_response(429, headers={"Retry-After": "7"}), OK]), clock=clock)
    client.get("/projects")
    assert clock.sleeps == [7.0]


def test_retry_after_is_capped_by_retry_max_delay():
    clock = FakeClock()
    client, _adapter = make_client(queue_handler([make_response(429, headers={"Retry-After": "3600"}), OK]),
                                   clock=clock, retry_max_delay=4.0)
    client.get("/projects")
    assert clock.sleeps == [4.0]


def test_retry_after_http_date_is_honoured_and_capped():
    clock = FakeClock()
    # Wall-clock based: the header carries whole seconds, so allow the second it was rounded in.
    soon = email.utils.formatdate(time.time() + 10, usegmt=True)
    later = email.utils.formatdate(time.time() + 3600, usegmt=True)
    answers = [make_response(503, headers={"Retry-After": soon}), make_response(503, headers={"Retry-After": later}), OK]
    client, _adapter = make_client(queue_handler(answers), clock=clock, retry_max_delay=20.0)
    client.get("/projects")
    assert len(clock.sleeps) == 2
    assert 8.0 <= clock.sleeps[0] <= 10.0
    assert clock.sleeps[1] == 20.0


def test_parse_retry_after_forms():
    now = 1700000000.0
    assert parse_retry_after("5", now=now) == 5.0
    assert parse_retry_after(" 2.5 ", now=now) == 2.5
    assert parse_retry_after("-3", now=now) == 0.0
    assert parse_retry_after(email.utils.formatdate(now + 42, usegmt=True), now=now) == 42.0
    assert parse_retry_after(email.utils.formatdate(now - 42, usegmt=True), now=now) == 0.0
    for junk in (None, "", "soon", "Mon, 99 Foo 2025", "Mon, 01 Jan 9999 23:59:59 +9999"):
        assert parse_retry_after(junk, now=now) is None


def test_backoff_delay_grows_exponentially_with_jitter_and_cap():
    assert backoff_delay(1, 30.0, rand=lambda: 0.0) == 0.25
    assert backoff_delay(1, 30.0, rand=lambda: 1.0) == 0.5
    assert backoff_delay(2, 30.0, rand=lambda: 1.0) == 1.0
    assert backoff_delay(4, 30.0, rand=lambda: 1.0) == 4.0
    assert backoff_delay(4, 30.0, rand=lambda: 0.5) == 3.0
    assert backoff_delay(20, 30.0, rand=lambda: 1.0) == 30.0
    assert backoff_delay(20, 30.0, rand=lambda: 0.0) == 15.0


def test_backoff_without_retry_after_stays_in_jitter_bounds():
    clock = FakeClock()
    client, _adapter = make_client(queue_handler([make_response(503, raw=b"")] * 6 + [OK]), clock=clock,
                                   retries=6, retry_max_delay=4.0)
    client.get("/projects")
    ceilings = [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]
    assert len(clock.sleeps) == len(ceilings)
    for slept, ceiling in zip(clock.sleeps, ceilings):
        assert ceiling / 2 <= slept <= ceiling


def test_exhausted_retries_name_status_attempts_and_duration():
    clock = FakeClock()
    client, adapter = make_client(queue_handler([make_response(503, {"message": "try later"}, headers={"Retry-After": "2"})]),
                                  clock=clock, cost=1.0, retries=3)
    with pytest.raises(NeonAPIError) as caught:
        client.get("/projects")
    assert len(adapter.sent) == 4
    # 4 requests of 1 s and 3 pauses of 2 s
    assert str(caught.value).startswith("GET /projects failed: HTTP 503: try later")
    assert str(caught.value).endswith("; gave up after 4 attempts over 10.0 s")
    assert caught.value.attempts == 4
    assert caught.value.elapsed == 10.0
    assert caught.value.status == 503


def test_retries_zero_means_one_attempt():
    client, adapter = make_client(queue_handler([make_response(429)]), retries=0)
    with pytest.raises(NeonAPIError) as caught:
        client.get("/projects")
    assert len(adapter.sent) == 1
    assert "gave up" not in str(caught.value)


def test_deadline_stops_retrying():
    clock = FakeClock()
    answers = [make_response(503, headers={"Retry-After": "2"})]
    client, adapter = make_client(queue_handler(answers), clock=clock, cost=1.0, retries=10)
    with pytest.raises(NeonAPIError):
        client.get("/projects", deadline=clock() + 5.5)
    # 1 s request, 2 s pause, 1 s request (t=4): another pause would pass the deadline.
    assert len(adapter.sent) == 2
    assert clock.sleeps == [2.0]
    assert clock() <= 1000.0 + 5.5


def test_without_deadline_the_same_faults_are_retried_to_the_limit():
    clock = FakeClock()
    client, adapter = make_client(queue_handler([make_response(503, headers={"Retry-After": "2"})]), clock=clock,
                                  cost=1.0, retries=10)
    with pytest.raises(NeonAPIError):
        client.get("/projects")
    assert len(adapter.sent) == 11
