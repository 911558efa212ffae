# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests: keys aged through the control API, and barriers that make requests overlap.

Aging moves ``created_at`` and ``last_used_at`` into the past, so tests of key rotation never wait
for days; a barrier carries its parties' requests out as they arrive and holds their answers until
all have been answered, so concurrent runs provably overlap without racing the wall clock.
"""

from __future__ import annotations

import calendar
import threading
import time

import pytest

import requests

API_KEY = "sim-selftest-key-0016"
DAY = 86400


def control(sim, method, path, **kwargs):
    return requests.request(method, sim.control_url + path, timeout=10, **kwargs)


def epoch(value):
    return calendar.timegm(time.strptime(value, "%Y-%m-%dT%H:%M:%SZ"))


def listed(sim):
    response = requests.get(sim.url + "/api_keys", headers=sim.headers, timeout=10)
    assert response.status_code == 200, response.text
    return {key["id"]: key for key in response.json()}


def test_aged_key_is_listed_with_its_past_creation_and_last_use(sim):
    key = sim.create_key(name="old")
    answer = control(sim, "POST", "/keys/%d/age" % key["id"], json={"created_days_ago": 40, "last_used_days_ago": 35})
    assert answer.status_code == 200, answer.text
    shown = listed(sim)[key["id"]]
    now = sim.state.clock.time()
    assert round((now - epoch(shown["created_at"])) / DAY) == 40
    assert round((now - epoch(shown["last_used_at"])) / DAY) == 35
    assert shown["last_used_from_addr"]


def test_aging_to_never_used_clears_the_last_use(sim):
    key = sim.create_key(name="unused")
    requests.get(sim.url + "/api_keys", headers={"Authorization": "Bearer " + key["key"]}, timeout=10)
    assert sim.keys()[-1]["last_used_at"] is not None
    aged = sim.age_key(key["id"], created_days_ago=100, last_used_days_ago=None)
    assert aged["last_used_at"] is None
    assert listed(sim)[key["id"]]["last_used_at"] is None and listed(sim)[key["id"]]["last_used_from_addr"] == ""


def test_aging_orders_the_listing_by_the_new_creation_time(sim):
    first, second = sim.create_key(name="a"), sim.create_key(name="b")
    sim.age_key(second["id"], created_days_ago=10)
    sim.age_key(first["id"], created_days_ago=5)
    order = [key_id for key_id in listed(sim) if key_id in (first["id"], second["id"])]
    assert order == [first["id"], second["id"]]  # newest first: the one created 5 days ago


@pytest.mark.parametrize("body, message", [
    ({"created_days_ago": -1}, "created_days_ago"),
    ({"created_days_ago": "40"}, "created_days_ago"),
    ({"created_days_ago": 1, "last_used_days_ago": 2}, "last used before it was created"),
    ({"age": 3}, "unknown fields"),
])
def test_aging_refuses_bad_input_and_changes_nothing(sim, body, message):
    key = sim.create_key(name="k")
    before = listed(sim)[key["id"]]
    answer = control(sim, "POST", "/keys/%d/age" % key["id"], json=body)
    assert answer.status_code == 400 and message in answer.json()["message"]
    assert listed(sim)[key["id"]] == before


def test_aging_an_unknown_key_is_404(sim):
    assert control(sim, "POST", "/keys/999999/age", json={"created_days_ago": 1}).status_code == 404


def test_barrier_holds_requests_until_all_parties_arrived(sim):
    barrier = control(sim, "POST", "/barriers", json={"method": "GET", "path": "/api/v2/api_keys", "parties": 3,
                                                      "timeout": 60}).json()
    done = []

    def lister():
        requests.get(sim.url + "/api_keys", headers=sim.headers, timeout=90)
        done.append(time.monotonic())

    threads = [threading.Thread(target=lister) for _thread_number in range(2)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 30
    while control(sim, "GET", "/barriers").json()["barriers"][0]["answered"] < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert done == []  # two of three parties arrived: both are still held
    other = requests.get(sim.url + "/projects", headers=sim.headers, timeout=10)
    assert other.status_code == 200  # a request the barrier does not match passes
    lister()  # the third party opens it
    for thread in threads:
        thread.join(30)
    assert len(done) == 3
    state = control(sim, "GET", "/barriers").json()["barriers"][0]
    assert state["id"] == barrier["id"] and state["open"] and not state["timed_out"]
    before = len(done)
    lister()  # spent: the next request passes at once
    assert len(done) == before + 1


def test_barrier_answers_are_taken_when_each_request_arrives(sim):
    """A listing held at a barrier shows the keys as they were when it arrived: a key created while it
    waits (as another run would, the moment the barrier opens) is not in it. This is what makes every
    run list before any run creates, however the threads are scheduled once the barrier opens."""
    sim.add_barrier(method="GET", path="/api/v2/api_keys", parties=2, timeout=60)
    seen = {}

    def lister(who):
        seen[who] = [key["id"] for key in
                     requests.get(sim.url + "/api_keys", headers=sim.headers, timeout=90).json()]

    first = threading.Thread(target=lister, args=("first",))
    first.start()
    deadline = time.monotonic() + 30
    while sim.barriers()[0]["answered"] < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert seen == {}  # answered, and held
    created = sim.create_key(name="made-while-held")
    lister("second")  # its listing is taken now, and it opens the barrier
    first.join(30)
    assert created["id"] not in seen["first"]
    assert created["id"] in seen["second"]


def test_barrier_whose_parties_do_not_all_arrive_lets_them_through_at_its_timeout(sim):
    sim.add_barrier(method="GET", path="/api/v2/api_keys", parties=2, timeout=0.2)
    assert requests.get(sim.url + "/api_keys", headers=sim.headers, timeout=10).status_code == 200
    assert sim.barriers()[0]["timed_out"] is True


@pytest.mark.parametrize("body", [{"parties": 0}, {"parties": True}, {"parties": 2, "timeout": 0},
                                  {"parties": 2, "what": 1}, {"parties": 2, "path": 3}])
def test_bad_barriers_are_refused(sim, body):
    assert control(sim, "POST", "/barriers", json=body).status_code == 400
    assert control(sim, "GET", "/barriers").json()["barriers"] == []


def test_reset_and_delete_release_held_requests(sim):
    sim.add_barrier(method="GET", path="/api/v2/api_keys", parties=5, timeout=60)
    done = []
    thread = threading.Thread(target=lambda: done.append(
        requests.get(sim.url + "/api_keys", headers=sim.headers, timeout=90).status_code))
    thread.start()
    deadline = time.monotonic() + 30
    while sim.barriers()[0]["arrived"] < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert control(sim, "DELETE", "/barriers").json() == {"removed": 1}
    thread.join(30)
    assert done == [200]
