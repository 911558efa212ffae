# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Cursor pagination for the list endpoints, with the live service's end rule.

The service returns ``pagination.cursor`` even on the last page (docs/docsite/rst/api-behaviour.rst), so a
cursor never means "more": a page with fewer items than asked for, or an empty page, ends
the list. Every loop is bounded, and a list that does not advance is an error, not a hang.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, PaginationError

# GET /projects: limit 1-400, default 10. GET /projects/{id}/operations: limit 1-1000.
PROJECTS_PAGE_MAX = 400
OPERATIONS_PAGE_MAX = 1000
# No account here needs more pages than this; a list that goes on past it is broken.
MAX_PAGES = 5000


class PageReader:
    """Reads one page after another of ``GET path``, following the service's cursors.

    ``read(limit)`` answers the next page (items checked against ``item_fields``), or None once
    the list has ended. It refuses to go on when the list does not advance (the same cursor
    twice, an item repeated from an earlier page, a full page without a cursor), past
    ``max_pages`` pages, or, after the first page, past ``deadline`` (a ``client.clock`` value).
    ``page_count(page)`` is how many items the service counts in a page against ``limit``
    (the items, unless a list also names items it left out).
    """

    def __init__(self, client, path, item_key, item_fields=None, params=None, cursor=None,
                 max_pages=MAX_PAGES, deadline=None, page_count=None):
        self.client = client
        self.path = path
        self.item_key = item_key
        self.item_fields = item_fields or answers.ID_FIELDS
        self.params = dict(params or {})
        self.cursor = cursor  # the cursor the latest page was asked with
        self.next_cursor = cursor
        self.max_pages = max_pages
        self.deadline = deadline
        self.page_count = page_count or (lambda page: len(page.items))
        self.requests = 0
        self.ended = False
        self._used_cursors = set([cursor])
        self._seen_ids = set()

    @property
    def has_next(self):
        """Whether a following page can be asked (the list has not ended and advances)."""
        return not self.ended and (not self.requests or (
            self.next_cursor is not None and self.next_cursor not in self._used_cursors))

    def read(self, limit):
        if self.ended:
            return None
        if self.requests:
            if self.next_cursor is None:
                raise PaginationError(self.path, "the service answered a full page of %d without a pagination "
                                      "cursor: cannot read further" % limit)
            if self.next_cursor in self._used_cursors:
                raise PaginationError(self.path, "the service answered cursor %s twice: the list does not advance"
                                      % self.next_cursor)
            self._used_cursors.add(self.next_cursor)
            self.cursor = self.next_cursor
        if self.requests >= self.max_pages:
            raise PaginationError(self.path, "gave up after %d pages; the list does not end (page cap)"
                                  % self.max_pages)
        if self.deadline is not None and self.requests and self.client.clock() >= self.deadline:
            raise NeonAPIError("GET", self.path, "the time limit passed after %d pages" % self.requests,
                               retryable=True)
        page = self.fetch(limit, self.cursor)
        for item in page.items:
            if item["id"] in self._seen_ids:
                raise PaginationError(self.path, "the service repeated item %s from an earlier page (cursor %s): "
                                      "the list does not advance" % (item["id"], self.cursor))
            self._seen_ids.add(item["id"])
        self.ended = self.page_count(page) < limit
        self.next_cursor = page.cursor
        return page

    def fetch(self, limit, cursor):
        """One page of ``limit`` items after ``cursor``, checked (no loop guards)."""
        timing = {} if self.deadline is None else {"deadline": self.deadline}
        data = self.client.get(self.path, params=dict(self.params, limit=limit, cursor=cursor), **timing)
        self.requests += 1
        return answers.page(data, self.path, self.item_key, self.item_fields)


class ListResult:
    """What a paged read found: the items, where a following read continues, requests spent."""

    def __init__(self, items, next_cursor, requests):
        self.items = items
        self.next_cursor = next_cursor
        self.requests = requests


def collect(client, path, item_key, page_size, cursor=None, params=None, max_results=None,
            keep=None, want_cursor=True, max_pages=MAX_PAGES, deadline=None, item_fields=None, on_page=None,
            page_count=None):
    """Read a cursor-paged list, newest first, and return a ListResult.

    ``keep`` filters items client-side; ``max_results`` stops as soon as that many items were
    kept. ``next_cursor`` is None when the list was read to its end; otherwise it is the exact
    service cursor after the last item returned, so a following call neither skips nor repeats
    items. Without a filter the last page is simply asked smaller; with one, stopping inside a
    page costs one extra request that asks the service for a cursor at that item.
    ``on_page`` is called with each page read (an _answers.Page), for fields beside the items.
    """
    reader = PageReader(client, path, item_key, item_fields, params, cursor, max_pages, deadline, page_count)
    items = []
    while True:
        limit = page_size
        if max_results and keep is None:
            limit = min(page_size, max_results - len(items))
        page = reader.read(limit)
        if page is None:
            return ListResult(items, None, reader.requests)
        if on_page is not None:
            on_page(page)
        for index, item in enumerate(page.items):
            if keep is not None and not keep(item):
                continue
            items.append(item)
            if max_results and len(items) >= max_results:
                if index == len(page.items) - 1:
                    return ListResult(items, None if reader.ended else page.cursor, reader.requests)
                if not want_cursor:
                    return ListResult(items, None, reader.requests)
                exact = reader.fetch(index + 1, reader.cursor)
                return ListResult(items, exact.cursor, reader.requests)
