# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Test doubles for the unit tests: a simulated clock and a scripted HTTP transport.

The transport is a ``requests`` adapter mounted on a real ``requests.Session``, so the
client's requests go through requests' own URL preparation and header merging; the tests
see the ``PreparedRequest`` that would have gone on the wire.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import io
import json

import requests
import urllib3
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict

from ansible_collections.neon.cloud.plugins.module_utils._api.client import NeonClient

BASE_URL = "https://api.test/api/v2"


class FakeClock:
    """Monotonic time that only moves when someone sleeps or a request takes time."""

    def __init__(self, start=1000.0):
        self.now = start
        self.sleeps = []

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        assert seconds >= 0, "slept a negative time: %r" % seconds
        self.sleeps.append(seconds)
        self.now += seconds

    def advance(self, seconds):
        self.now += seconds


def make_response(status=200, body=None, headers=None, raw=None):
    """A canned answer: ``body`` is encoded as JSON, ``raw`` is sent as it is.

    Each time a ScriptedAdapter sends it, it becomes a fresh ``requests.Response`` over a real
    urllib3 body stream, as an adapter returns it with ``stream=True`` (a stream reads once).
    """
    headers = CaseInsensitiveDict(headers or {})
    if raw is not None:
        content = raw if isinstance(raw, bytes) else raw.encode("utf-8")
    elif body is not None:
        content = json.dumps(body).encode("utf-8")
        headers.setdefault("Content-Type", "application/json")
    else:
        content = b""
    return CannedResponse(status, headers, content)


class CannedResponse:
    def __init__(self, status, headers, content):
        self.status_code = status
        self.headers = headers
        self.content = content

    @property
    def text(self):
        return self.content.decode("utf-8")

    def materialise(self):
        response = requests.Response()
        response.status_code = self.status_code
        response.headers = CaseInsensitiveDict(self.headers)
        response.raw = urllib3.HTTPResponse(body=io.BytesIO(self.content), headers=dict(self.headers),
                                            status=self.status_code, preload_content=False, decode_content=False)
        response.encoding = "utf-8"
        return response


class ScriptedAdapter(BaseAdapter):
    """Answers each request with ``handler(prepared_request)``: a Response, or an exception to raise.

    Every request costs ``cost`` seconds of the fake clock (if one is given).
    """

    def __init__(self, handler, clock=None, cost=0.0):
        super(ScriptedAdapter, self).__init__()
        self.handler = handler
        self.clock = clock
        self.cost = cost
        self.sent = []

    def send(self, request, **kwargs):  # pylint: disable=arguments-differ
        self.sent.append(request)
        if self.clock is not None:
            self.clock.advance(self.cost)
        answer = self.handler(request)
        if isinstance(answer, BaseException):
            raise answer
        answer = answer.materialise()
        answer.request = request
        answer.url = request.url
        return answer

    def close(self):
        pass


def queue_handler(answers):
    """A handler giving the answers in order, the last one again once they run out."""
    answers = list(answers)

    def handler(_request):
        if len(answers) > 1:
            return answers.pop(0)
        return answers[0]

    return handler


def make_client(handler, clock=None, cost=0.0, api_url=BASE_URL, **kwargs):
    """A NeonClient whose session talks to ``handler``; returns (client, adapter)."""
    clock = clock or FakeClock()
    adapter = ScriptedAdapter(handler, clock=clock, cost=cost)
    session = requests.Session()
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    kwargs.setdefault("sleep", clock.sleep)
    kwargs.setdefault("clock", clock)
    client = NeonClient("test-key", api_url=api_url, session=session, **kwargs)
    return client, adapter


def operation(number, status="finished", project_id="p-1", **fields):
    """Operation ``number``; higher numbers are newer (the list is newest first)."""
    item = {
        "id": "op-%04d" % number,
        "project_id": project_id,
        "branch_id": "br-1",
        "action": "apply_config",
        "status": status,
        "failures_count": 0,
        "created_at": "2025-01-16T%02d:%02d:%02d.%06dZ" % (number // 3600 % 24, number // 60 % 60, number % 60, number),
    }
    item.update(fields)
    return item


def sent_params(params):
    """The query parameters that would be sent: NeonClient drops the None ones."""
    return dict((key, value) for key, value in (params or {}).items() if value is not None)


class FakeListClient:
    """A client-level fake of a cursor-paged list that behaves like the live service.

    The cursor is the ``created_at`` of a page's last item and comes back on every page,
    the short and empty ones included.
    """

    def __init__(self, items, item_key="operations"):
        self.items = list(items)
        self.item_key = item_key
        self.calls = []
        self.requests_made = 0

    def get(self, path, params=None, deadline=None):  # pylint: disable=unused-argument
        params = sent_params(params)
        self.calls.append(params)
        self.requests_made += 1
        cursor = params.get("cursor")
        start = 0
        if cursor is not None:
            start = [item["created_at"] for item in self.items].index(cursor) + 1
        page = self.items[start:start + int(params["limit"])]
        return {self.item_key: page, "pagination": {"cursor": page[-1]["created_at"] if page else cursor}}


class PagesClient:
    """Answers the given page bodies in order (the last one again once they run out)."""

    def __init__(self, pages):
        self.pages = list(pages)
        self.calls = []
        self.requests_made = 0

    def get(self, path, params=None, deadline=None):  # pylint: disable=unused-argument
        self.calls.append(sent_params(params))
        self.requests_made += 1
        return self.pages[min(len(self.calls), len(self.pages)) - 1]
