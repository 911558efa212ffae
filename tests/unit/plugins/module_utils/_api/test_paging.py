# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""collect(): the live service's end rule, the loop guards and exact resume cursors."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._api.client import NeonAPIError
from ansible_collections.neon.cloud.plugins.module_utils._api.paging import PaginationError, collect
from ansible_collections.neon.cloud.tests.unit.plugins.module_utils.neon_fakes import FakeClock, FakeListClient, PagesClient, operation

PATH = "/projects/p-1/operations"


def newest_first(count, **fields):
    return [operation(number, **fields) for number in range(count, 0, -1)]


def ids(items):
    return [item["id"] for item in items]


def full_page(first, size, cursor):
    return {"operations": [{"id": "x-%d" % number} for number in range(first, first + size)], "pagination": {"cursor": cursor}}


def test_short_page_ends_the_list_although_a_cursor_came_back():
    client = FakeListClient(newest_first(25))
    result = collect(client, PATH, "operations", 10)
    assert ids(result.items) == ids(newest_first(25))
    assert len(client.calls) == 3
    assert result.next_cursor is None
    assert result.requests == 3


def test_empty_page_ends_the_list():
    client = FakeListClient(newest_first(20))
    result = collect(client, PATH, "operations", 10)
    assert len(result.items) == 20
    assert len(client.calls) == 3
    assert result.next_cursor is None


def test_full_page_continues_with_the_returned_cursor():
    items = newest_first(25)
    client = FakeListClient(items)
    collect(client, PATH, "operations", 10)
    assert client.calls[0] == {"limit": 10}
    assert client.calls[1] == {"limit": 10, "cursor": items[9]["created_at"]}
    assert client.calls[2] == {"limit": 10, "cursor": items[19]["created_at"]}


def test_start_cursor_and_extra_params_are_sent():
    items = newest_first(8)
    client = FakeListClient(items)
    result = collect(client, PATH, "operations", 5, cursor=items[2]["created_at"], params={"search": "x"})
    assert ids(result.items) == ids(items[3:])
    assert client.calls[0] == {"limit": 5, "cursor": items[2]["created_at"], "search": "x"}


def test_same_cursor_twice_is_an_error():
    client = PagesClient([full_page(0, 2, "c1"), full_page(2, 2, "c1")])
    with pytest.raises(PaginationError) as caught:
        collect(client, PATH, "operations", 2)
    assert "answered cursor c1 twice" in str(caught.value)
    assert len(client.calls) == 2


def test_cursor_equal_to_the_starting_cursor_is_an_error():
    client = PagesClient([full_page(0, 2, "c0")])
    with pytest.raises(PaginationError):
        collect(client, PATH, "operations", 2, cursor="c0")
    assert len(client.calls) == 1


def test_page_repeating_earlier_ids_is_an_error():
    client = PagesClient([full_page(0, 3, "c1"), full_page(2, 3, "c2")])
    with pytest.raises(PaginationError) as caught:
        collect(client, PATH, "operations", 3)
    assert "repeated item x-2" in str(caught.value)


def test_full_page_without_cursor_is_an_error():
    client = PagesClient([{"operations": [{"id": 1}, {"id": 2}], "pagination": {}}])
    with pytest.raises(PaginationError) as caught:
        collect(client, PATH, "operations", 2)
    assert "full page of 2 without a pagination cursor" in str(caught.value)


def test_short_page_without_cursor_is_fine():
    client = PagesClient([{"operations": [{"id": 1}]}])
    assert ids(collect(client, PATH, "operations", 2).items) == [1]


def test_page_cap():
    pages = [full_page(2 * number, 2, "c%d" % number) for number in range(10)]
    client = PagesClient(pages)
    with pytest.raises(PaginationError) as caught:
        collect(client, PATH, "operations", 2, max_pages=4)
    assert len(client.calls) == 4
    assert "gave up after 4 pages" in str(caught.value)


@pytest.mark.parametrize("data", [None, [], "text", {"operations": {"id": 1}}, {"projects": []}])
def test_unexpected_shapes_are_errors(data):
    with pytest.raises(NeonAPIError) as caught:
        collect(PagesClient([data]), PATH, "operations", 2)
    assert "unexpected answer (HTTP 200): " in str(caught.value)


@pytest.mark.parametrize("item", [{"name": "no id"}, "op-1", {"id": None}, {"id": 1.5}])
def test_items_without_ids_are_errors(item):
    with pytest.raises(NeonAPIError) as caught:
        collect(PagesClient([{"operations": [item]}]), PATH, "operations", 2)
    assert "unexpected answer (HTTP 200): operations[0]" in str(caught.value)


def test_max_results_without_filter_asks_a_smaller_last_page_and_returns_the_service_cursor():
    items = newest_first(40)
    client = FakeListClient(items)
    result = collect(client, PATH, "operations", 10, max_results=15)
    assert ids(result.items) == ids(items[:15])
    assert [call["limit"] for call in client.calls] == [10, 5]
    assert result.next_cursor == items[14]["created_at"]
    following = collect(FakeListClient(items), PATH, "operations", 10, cursor=result.next_cursor)
    assert ids(result.items) + ids(following.items) == ids(items)


def test_max_results_reaching_a_short_end_page_returns_no_cursor():
    client = FakeListClient(newest_first(12))
    result = collect(client, PATH, "operations", 10, max_results=15)
    assert len(result.items) == 12
    assert result.next_cursor is None


def test_filter_stopping_inside_a_page_costs_one_exact_request():
    items = newest_first(30)
    client = FakeListClient(items)

    def keep(item):
        return int(item["id"][3:]) % 4 == 0

    result = collect(client, PATH, "operations", 10, max_results=4, keep=keep)
    expected = [item for item in items if keep(item)][:4]
    assert ids(result.items) == ids(expected)
    # op-0016 is the 4th kept item; it sits at index 4 of the second page (op-0020 .. op-0011).
    assert len(client.calls) == 3
    assert client.calls[2] == {"limit": 5, "cursor": items[9]["created_at"]}
    assert result.next_cursor == expected[-1]["created_at"]
    assert result.requests == 3
    following = collect(FakeListClient(items), PATH, "operations", 10, cursor=result.next_cursor, keep=keep)
    assert ids(result.items) + ids(following.items) == ids([item for item in items if keep(item)])


def test_filter_stopping_on_the_last_item_of_a_full_page_needs_no_extra_request():
    items = newest_first(30)
    client = FakeListClient(items)
    result = collect(client, PATH, "operations", 10, max_results=1, keep=lambda item: item["id"] == "op-0021")
    assert len(client.calls) == 1
    assert result.next_cursor == items[9]["created_at"]


def test_filter_stop_without_cursor_wanted_makes_no_extra_request():
    client = FakeListClient(newest_first(30))
    result = collect(client, PATH, "operations", 10, max_results=1, keep=lambda item: True, want_cursor=False)
    assert len(client.calls) == 1
    assert result.next_cursor is None
    assert len(result.items) == 1


def test_filter_reading_to_the_end_returns_no_cursor():
    client = FakeListClient(newest_first(30))
    result = collect(client, PATH, "operations", 10, max_results=50, keep=lambda item: item["id"].endswith("7"))
    assert ids(result.items) == ["op-0027", "op-0017", "op-0007"]
    assert result.next_cursor is None


@pytest.mark.parametrize("count", [0, 1, 9, 10, 11, 20, 29, 101])
@pytest.mark.parametrize("page_size", [1, 10, 400])
def test_request_count_is_pages_plus_at_most_one(count, page_size):
    client = FakeListClient(newest_first(count))
    result = collect(client, PATH, "operations", page_size)
    assert len(result.items) == count
    assert result.requests == len(client.calls)
    assert len(client.calls) == count // page_size + 1
    assert len(client.calls) <= -(-count // page_size) + 1


class TimedListClient(FakeListClient):
    """FakeListClient whose requests take ``cost`` seconds of ``clock`` and note their deadline."""

    def __init__(self, items, clock, cost):
        super(TimedListClient, self).__init__(items)
        self.clock = clock
        self.cost = cost
        self.deadlines = []

    def get(self, path, params=None, deadline=None):
        self.deadlines.append(deadline)
        self.clock.advance(self.cost)
        return super(TimedListClient, self).get(path, params)


def test_deadline_is_passed_to_the_client_and_stops_further_pages():
    clock = FakeClock()
    client = TimedListClient(newest_first(100), clock, cost=1.0)
    deadline = clock() + 2.5
    with pytest.raises(NeonAPIError) as caught:
        collect(client, PATH, "operations", 10, deadline=deadline)
    assert len(client.calls) == 3  # started at 0, 1 and 2 s; none after 2.5 s
    assert client.deadlines == [deadline] * 3
    assert caught.value.retryable
    assert "time limit passed after 3 pages" in str(caught.value)


def test_deadline_far_enough_changes_nothing():
    clock = FakeClock()
    client = TimedListClient(newest_first(25), clock, cost=1.0)
    assert len(collect(client, PATH, "operations", 10, deadline=clock() + 100).items) == 25
