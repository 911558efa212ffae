# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Cursor pagination for the list endpoints, with the live service's end rule.

The service returns ``pagination.cursor`` even on the last page (real-api-notes.md), so a
cursor never means "more": a page with fewer items than asked for, or an empty page, ends
the list. Every loop is bounded, and a list that does not advance is an error, not a hang.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._client import NeonAPIError, excerpt

# GET /projects: limit 1-400, default 10. GET /projects/{id}/operations: limit 1-1000.
PROJECTS_PAGE_MAX = 400
OPERATIONS_PAGE_MAX = 1000
# No account here needs more pages than this; a list that goes on past it is broken.
MAX_PAGES = 5000


class PaginationError(NeonAPIError):
    """The list answered pages that cannot be followed to an end."""


def expect_items(data, item_key, method, path):
    """The list of item objects under ``item_key``, or a clear error naming what came back."""
    items = data.get(item_key) if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise NeonAPIError(
            "%s %s answered HTTP 200 with JSON of an unexpected shape: expected a JSON object with a list %r, got %s" % (
                method, path, item_key, excerpt(repr(data), 120)),
            method=method, path=path, status=200)
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("id"), (str, int)):
            raise NeonAPIError(
                "%s %s answered HTTP 200 with an item without an id in %r: %s" % (
                    method, path, item_key, excerpt(repr(item), 120)),
                method=method, path=path, status=200)
    return items


def page_cursor(data, method, path):
    pagination = data.get("pagination") if isinstance(data, dict) else None
    if pagination is None:
        return None
    cursor = pagination.get("cursor") if isinstance(pagination, dict) else pagination
    if cursor is not None and not isinstance(cursor, str):
        raise PaginationError("%s %s answered a pagination cursor that is not a string: %s" % (
            method, path, excerpt(repr(pagination), 120)), method=method, path=path, status=200)
    return cursor or None


class ListResult:
    """What a paged read found: the items, where a following read continues, requests spent."""

    def __init__(self, items, next_cursor, requests):
        self.items = items
        self.next_cursor = next_cursor
        self.requests = requests


def collect(client, path, item_key, page_size, cursor=None, params=None, max_results=None,
            keep=None, want_cursor=True, max_pages=MAX_PAGES, deadline=None):
    """Read a cursor-paged list, newest first, and return a ListResult.

    ``keep`` filters items client-side; ``max_results`` stops as soon as that many items were
    kept. ``next_cursor`` is None when the list was read to its end; otherwise it is the exact
    service cursor after the last item returned, so a following call neither skips nor repeats
    items. Without a filter the last page is simply asked smaller; with one, stopping inside a
    page costs one extra request that asks the service for a cursor at that item.

    ``deadline`` (a ``client.clock`` value) bounds the client's retries, and no page after the
    first is asked once it has passed (a retryable NeonAPIError instead).
    """
    timing = {} if deadline is None else {"deadline": deadline}
    items = []
    used_cursors = set([cursor])
    seen_ids = set()
    request_count = 0
    while True:
        if request_count >= max_pages:
            raise PaginationError(
                "GET %s: gave up after %d pages; the list does not end (page cap)" % (path, max_pages),
                method="GET", path=path)
        if deadline is not None and request_count and client.clock() >= deadline:
            raise NeonAPIError("GET %s: the time limit passed after %d pages" % (path, request_count),
                               method="GET", path=path, retryable=True)
        limit = page_size
        if max_results and keep is None:
            limit = min(page_size, max_results - len(items))
        query = dict(params or {}, limit=limit, cursor=cursor)
        data = client.get(path, params=query, **timing)
        request_count += 1
        page = expect_items(data, item_key, "GET", path)
        next_cursor = page_cursor(data, "GET", path)
        for item in page:
            if item["id"] in seen_ids:
                raise PaginationError(
                    "GET %s repeated item %s from an earlier page (cursor %s): the list does not advance" % (
                        path, item["id"], cursor), method="GET", path=path, status=200)
            seen_ids.add(item["id"])
        for index, item in enumerate(page):
            if keep is not None and not keep(item):
                continue
            items.append(item)
            if max_results and len(items) >= max_results:
                if index == len(page) - 1:
                    at_end = len(page) < limit
                    return ListResult(items, None if at_end else next_cursor, request_count)
                if not want_cursor:
                    return ListResult(items, None, request_count)
                exact = client.get(path, params=dict(params or {}, limit=index + 1, cursor=cursor), **timing)
                request_count += 1
                expect_items(exact, item_key, "GET", path)
                return ListResult(items, page_cursor(exact, "GET", path), request_count)
        if len(page) < limit:
            return ListResult(items, None, request_count)
        if next_cursor is None:
            raise PaginationError(
                "GET %s answered a full page of %d without a pagination cursor: cannot read further" % (path, limit),
                method="GET", path=path, status=200)
        if next_cursor in used_cursors:
            raise PaginationError(
                "GET %s answered cursor %s twice: the list does not advance" % (path, next_cursor),
                method="GET", path=path, status=200)
        used_cursors.add(next_cursor)
        cursor = next_cursor
