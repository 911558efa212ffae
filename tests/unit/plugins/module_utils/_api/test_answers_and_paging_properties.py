# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Property tests: whatever the service answers, paging and response parsing end, and end
with either a result or a NeonAPIError with a clear message, never any other exception."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import requests
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ansible_collections.neon.cloud.plugins.module_utils._api.client import NeonAPIError, parse_retry_after
from ansible_collections.neon.cloud.plugins.module_utils._api.paging import collect
from ansible_collections.neon.cloud.tests.unit.plugins.module_utils.neon_fakes import (
    FakeClock,
    PagesClient,
    make_client,
    make_response,
)

PATH = "/projects/p-1/operations"
SETTINGS = settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False), st.text(max_size=8))


def json_containers(inner):
    return st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3))


json_values = st.recursive(json_scalars, json_containers, max_leaves=6)
ids = st.one_of(st.sampled_from(["a", "b", "c", "d", "e"]), st.integers(0, 6))
items = st.one_of(
    st.fixed_dictionaries({"id": ids}, optional={"status": st.sampled_from(["running", "finished"])}),
    st.fixed_dictionaries({"id": st.one_of(st.none(), st.floats(), st.lists(ids, max_size=2))}),
    st.fixed_dictionaries({}, optional={"name": st.text(max_size=4)}),
    json_scalars,
)
cursors = st.one_of(st.none(), st.sampled_from(["c1", "c2", "c3", "", "2025-01-16T21:02:04.214837Z"]), st.integers(), st.lists(st.none()))
paginations = st.one_of(st.fixed_dictionaries({}, optional={"cursor": cursors}), cursors, json_values)
pages = st.one_of(
    st.fixed_dictionaries({"operations": st.lists(items, max_size=6)}, optional={"pagination": paginations}),
    st.fixed_dictionaries({"operations": json_values}, optional={"pagination": paginations}),
    json_values,
)


def keep_even_length(item):
    return len(str(item["id"])) % 2 == 1


@SETTINGS
@given(page_list=st.lists(pages, min_size=1, max_size=8), page_size=st.integers(1, 5),
       max_results=st.one_of(st.none(), st.integers(1, 8)), use_filter=st.booleans(), want_cursor=st.booleans(),
       max_pages=st.one_of(st.none(), st.integers(1, 10)), start=st.one_of(st.none(), st.sampled_from(["c1", "c9"])))
def test_collect_always_ends_with_items_or_a_clear_error(page_list, page_size, max_results, use_filter, want_cursor, max_pages, start):
    client = PagesClient(page_list)
    options = dict(max_results=max_results, keep=keep_even_length if use_filter else None, want_cursor=want_cursor, cursor=start)
    if max_pages is not None:
        options["max_pages"] = max_pages
    try:
        result = collect(client, PATH, "operations", page_size, **options)
    except NeonAPIError as exc:
        assert str(exc).startswith("GET " + PATH)
        assert exc.method == "GET"
        result = None
    # Bounded: the last page is repeated forever, and the guards must notice.
    limit_pages = len(page_list) + 1 if max_pages is None else min(max_pages, len(page_list) + 1)
    assert len(client.calls) <= limit_pages + 1
    assert all(1 <= call["limit"] <= page_size for call in client.calls)
    if result is None:
        return
    assert result.requests == len(client.calls)
    assert all(isinstance(item, dict) for item in result.items)
    kept_ids = [item["id"] for item in result.items]
    assert len(set(kept_ids)) == len(kept_ids)
    if use_filter:
        assert all(keep_even_length(item) for item in result.items)
    if max_results:
        assert len(result.items) <= max_results
    assert result.next_cursor is None or isinstance(result.next_cursor, str)


error_bodies = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=300).map(lambda text: text.encode("utf-8")),
    st.fixed_dictionaries({}, optional={"code": json_values, "message": json_values, "request_id": json_values}).map(
        lambda body: json.dumps(body).encode("utf-8")),
    json_values.map(lambda value: json.dumps(value).encode("utf-8")),
)
headers = st.fixed_dictionaries({}, optional={
    "Retry-After": st.one_of(st.text(max_size=40), st.sampled_from([
        "0", "1", "-1", "nan", "inf", "1e400", "Wed, 21 Oct 2015 07:28:00 GMT", "Mon, 01 Jan 9999 23:59:59 +9999"])),
    "x-neon-ret-request-id": st.text(max_size=20),
})
network_faults = st.sampled_from([
    requests.exceptions.ConnectionError("Connection aborted."),
    requests.exceptions.ConnectionError("NewConnectionError: Connection refused"),
    requests.exceptions.ReadTimeout("read timed out"),
    requests.exceptions.ConnectTimeout("connect timed out"),
    requests.exceptions.ChunkedEncodingError("connection broken"),
    requests.exceptions.ContentDecodingError("bad gzip"),
    requests.exceptions.InvalidHeader("bad header"),
])
answers = st.one_of(
    st.builds(lambda status, raw, extra: make_response(status, raw=raw, headers=extra),
              st.one_of(st.sampled_from([200, 201, 204, 302, 401, 404, 423, 429, 500, 502, 503, 504]), st.integers(100, 599)),
              error_bodies, headers),
    network_faults,
)

RETRIES = 3
MAX_DELAY = 2.0


@SETTINGS
@given(method=st.sampled_from(["GET", "POST", "DELETE"]), script=st.lists(answers, min_size=1, max_size=5))
@example(method="GET", script=[make_response(500, raw=b"[" * 50000)])
@example(method="GET", script=[make_response(200, raw=b"{" * 50000)])
@example(method="POST", script=[make_response(200, raw=b"\xff\xfe not utf-8")])
@example(method="GET", script=[make_response(200, raw=b""), make_response(204, raw=b"")])
def test_response_parsing_ends_with_a_value_or_a_clear_error(method, script):
    clock = FakeClock()
    remaining = list(script)

    def handler(_request):
        return remaining.pop(0) if len(remaining) > 1 else remaining[0]

    client, adapter = make_client(handler, clock=clock, retries=RETRIES, retry_max_delay=MAX_DELAY)
    try:
        value = client.request(method, "/api_keys/1", body={"key_name": "k"} if method == "POST" else None)
    except NeonAPIError as exc:
        assert str(exc).startswith("%s /api_keys/1 failed: " % method)
        assert exc.to_dict()["method"] == method
        if exc.ambiguous:
            assert "may have been carried out" in str(exc)
    else:
        last = adapter.sent and script[min(len(adapter.sent), len(script)) - 1]
        assert 200 <= last.status_code < 300
        # 204 No Content (a delete of what is gone) has no body to decode, whatever one came with it
        assert value == (None if last.status_code == 204 else json.loads(last.text))
    assert 1 <= len(adapter.sent) <= RETRIES + 1
    assert len(clock.sleeps) == len(adapter.sent) - 1
    assert all(0 <= pause <= MAX_DELAY for pause in clock.sleeps)


@settings(max_examples=200, deadline=None, database=None)
@given(value=st.one_of(st.none(), st.text(max_size=60), st.floats().map(str)))
def test_parse_retry_after_is_none_or_a_non_negative_number(value):
    seconds = parse_retry_after(value, now=1700000000.0)
    assert seconds is None or seconds >= 0.0
