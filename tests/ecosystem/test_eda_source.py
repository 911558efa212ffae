# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Event-Driven Ansible source neon.cloud.events (extensions/eda/plugins/event_source/events.py) against the
simulator, in this process: what each poll emits and costs, the cursor across a restart, 429, a dead API and its
back-off, bad arguments. Time moves through the simulator's clock and the loop's pauses are recorded, never slept
(tests/eda/ runs a shipped rulebook with the real engine)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import asyncio
import datetime
import importlib.util
import json
import math
import os
import re
import textwrap

import pytest
import requests
import yaml

from neon_testing import ROOT, ansible_env, run, tool

ORG_PROJECTS = ("bold-glade-61830452", "quiet-brook-72914063", "young-forest-83025174")  # the seeded organization's
SOURCE = os.path.join(ROOT, "extensions", "eda", "plugins", "event_source", "events.py")


@pytest.fixture(scope="module")
def neon_events(collection_parent):
    """The source, loaded from its file as ansible-rulebook loads it."""
    del collection_parent  # puts ansible_collections.neon.cloud on the import path
    spec = importlib.util.spec_from_file_location("neon_cloud_events_source", SOURCE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture()
def sim(simulator):
    simulator.reset()
    return simulator


class Recorder:
    """The pauses asked for (the client's retry waits, the loop's pauses between polls): recorded, not slept."""

    def __init__(self, sim=None):
        self.sim = sim
        self.pauses = []

    def __call__(self, seconds):
        self.pauses.append(seconds)
        if self.sim is not None:
            self.sim.advance_clock(seconds)

    async def asleep(self, seconds):
        self(seconds)


class ListQueue:
    def __init__(self):
        self.items = []

    async def put(self, item):
        self.items.append(item)


def watcher(module, sim, recorder=None, state=None, **args):
    args.setdefault("events", ["projects"])
    settings = module.Settings(dict(api_key=sim.api_key, api_url=sim.url, **args))
    client = module.make_client(settings.connection, sleep=recorder or Recorder(sim))
    return module.Watcher(settings, client=client, now=sim.clock.time, state=state)


def types(found):
    return [(one["neon"]["type"], (one["neon"].get("project") or {}).get("id") or one["neon"].get("project_id"))
            for one in found]


def api(sim, method, path, body=None):
    answer = requests.request(method, sim.url + path, headers=sim.headers, json=body, timeout=10)
    assert answer.status_code < 300, answer.text
    return answer.json() if answer.content else None


def listing_requests(sim, since):
    return [r for r in sim.requests(since=since) if r["path"] == "/api/v2/projects"]


def last_seq(sim):
    log = sim.requests()
    return log[-1]["seq"] if log else 0


# ---------------------------------------------------------------------------------------------- projects

@pytest.mark.parametrize("extra", [0, 400, 1000])
def test_project_events_cost_one_listing_page_per_400_projects(neon_events, sim, extra):
    if extra:
        sim.create_projects(extra, name_prefix="fleet")
    total = 37 + extra  # the seeded personal projects
    watch = watcher(neon_events, sim)
    since = last_seq(sim)
    assert watch.poll() == []  # the first poll learns the fleet: nothing happened yet
    assert watch.poll() == []
    per_poll = len(listing_requests(sim, since)) / 2
    assert per_poll == total // 400 + 1 == watch.requests
    assert per_poll <= math.ceil(total / 400) + (1 if total % 400 == 0 else 0)
    assert {r["method"] for r in sim.requests(since=since)} == {"GET"}


@pytest.mark.parametrize("size", [400, 401])
def test_a_fleet_of_400_projects_costs_one_listing_page_more_than_ceil_as_the_service_shows_no_end(
        neon_events, sim, size):
    """The issue's ceil(N/400) is reached for every N but a multiple of 400: the listing's pagination (the June
    document's Pagination: ``cursor`` only, required, on the last page too) cannot tell a full last page from one more
    page coming, so at 400 projects one more request answers the empty page that ends the list."""
    sim.create_projects(size - len(ORG_PROJECTS), org_id=sim.org_id, name_prefix="fleet")
    watch = watcher(neon_events, sim, org_id=sim.org_id)
    watch.poll()
    since = last_seq(sim)
    assert watch.poll() == []
    assert len(listing_requests(sim, since)) == watch.requests == 2 == math.ceil(size / 400) + (size % 400 == 0)
    # what ends the list: the first page is the same at 400 and 401 projects (400 of them and a cursor), the second
    # is empty at 400 (the request ceil(N/400) cannot do without) and holds the 401st project at 401
    first = api(sim, "GET", "/projects?org_id=%s&limit=400" % sim.org_id)
    assert len(first["projects"]) == 400 and set(first["pagination"]) == {"cursor"}
    second = api(sim, "GET", "/projects?org_id=%s&limit=400&cursor=%s" % (sim.org_id, first["pagination"]["cursor"]))
    assert len(second["projects"]) == size - 400


def test_created_changed_deleted_each_reported_once(neon_events, sim):
    watch = watcher(neon_events, sim)
    watch.poll()
    created = api(sim, "POST", "/projects", {"project": {"name": "eda-new"}})["project"]
    found = watch.poll()
    assert types(found) == [("project_created", created["id"])]
    shown = found[0]["neon"]["project"]
    assert shown["name"] == "eda-new" and set(shown) == {"id", "name", "region_id", "org_id", "created_at"}
    assert watch.poll() == []
    sim.advance_clock(5)
    api(sim, "PATCH", "/projects/%s" % created["id"], {"project": {"name": "eda-renamed"}})
    changed = watch.poll()
    assert types(changed) == [("project_changed", created["id"])]
    assert changed[0]["neon"]["changed"] == ["name"]
    api(sim, "DELETE", "/projects/%s" % created["id"])
    assert types(watch.poll()) == [("project_deleted", created["id"])]
    assert watch.poll() == []


def test_an_unavailable_project_is_not_reported_deleted(neon_events, sim):
    watch = watcher(neon_events, sim)
    watch.poll()
    sim.set_unavailable([sim.demo_project_id], answers=1)
    assert watch.poll() == []
    assert watch.poll() == []


def test_drift_from_the_baseline_is_reported_when_it_appears_and_again_only_when_it_changes(neon_events, sim):
    baseline = {"allowed_ips": {"ips": ["203.0.113.0/24"]}}
    watch = watcher(neon_events, sim, baseline=baseline, org_id=sim.org_id)  # its plan has the IP allow list
    first = watch.poll()
    assert sorted(types(first)) == [("project_drifted", pid) for pid in sorted(ORG_PROJECTS)]
    assert first[0]["neon"]["drift"]["allowed_ips"]["expected"] == baseline["allowed_ips"]
    assert watch.poll() == []
    sim.advance_clock(5)
    api(sim, "PATCH", "/projects/%s" % ORG_PROJECTS[0], {"project": {"settings": {"allowed_ips": {
        "ips": ["203.0.113.0/24"]}}}})
    assert types(watch.poll()) == [("project_changed", ORG_PROJECTS[0])]  # now as the baseline: no drift
    sim.advance_clock(5)
    api(sim, "PATCH", "/projects/%s" % ORG_PROJECTS[0], {"project": {"settings": {"allowed_ips": {
        "ips": ["198.51.100.7"]}}}})
    assert types(watch.poll()) == [("project_changed", ORG_PROJECTS[0]), ("project_drifted", ORG_PROJECTS[0])]


# ---------------------------------------------------------------------------------------------- operations, cursor

def test_a_failed_operation_is_reported_once_also_across_a_restart_and_one_failing_while_down_is_not_missed(
        neon_events, sim, tmp_path):
    cursor = str(tmp_path / "cursor.json")
    pid = sim.demo_project_id
    args = dict(events=["operations"], projects_per_poll=40, cursor_file=cursor)
    first = watcher(neon_events, sim, **args)
    assert first.poll() == []  # the history before the source started is not reported
    neon_events.save_cursor(cursor, first.state)
    op = sim.start_operations(pid, action="apply_config", hold=True)[0]
    assert first.poll() == []  # running
    neon_events.save_cursor(cursor, first.state)
    sim.release_operations(pid, op["id"], outcome="failed", error="no capacity")
    found = first.poll()
    assert types(found) == [("operation_failed", pid)]
    assert found[0]["neon"]["operation"]["id"] == op["id"]
    assert found[0]["neon"]["operation"]["error"] == "no capacity"
    neon_events.save_cursor(cursor, first.state)
    assert first.poll() == []
    # stopped; meanwhile another operation fails; started again from the cursor file
    sim.start_operations(pid, action="start_compute", outcome="failed", duration=0.5)
    sim.advance_clock(5)
    again = watcher(neon_events, sim, state=neon_events.load_cursor(cursor), **args)
    found = again.poll()
    assert types(found) == [("operation_failed", pid)]
    assert found[0]["neon"]["operation"]["id"] != op["id"]
    assert again.poll() == []
    saved = json.load(open(cursor, encoding="utf-8"))
    assert sim.api_key not in json.dumps(saved)


def test_projects_per_poll_bounds_the_detail_requests_and_visits_every_project_in_turn(neon_events, sim):
    sim.advance_clock(30)  # the seeded operations in progress end: no project is read again for them
    watch = watcher(neon_events, sim, events=["operations", "branches"], projects_per_poll=5)
    visited = []
    for _poll in range(8):
        before = last_seq(sim)
        watch.poll()
        assert watch.requests == 1 + 5 * 2  # the listing page, then 5 projects' operations and branches
        visited.extend(r["path"].split("/")[4] for r in sim.requests(since=before) if r["path"].endswith("/branches"))
    assert len(set(visited[:35])) == 35 and len(set(visited)) == 37  # each in turn: 37 projects in 8 polls


def test_a_new_project_is_read_first_and_its_failures_from_its_start(neon_events, sim):
    watch = watcher(neon_events, sim, events=["projects", "operations"], projects_per_poll=1)
    watch.poll()
    project = sim.create_project(name="fresh")
    sim.start_operations(project["id"], action="create_branch", outcome="failed", duration=0.5)
    sim.advance_clock(5)
    assert types(watch.poll()) == [("project_created", project["id"]), ("operation_failed", project["id"])]


def test_a_project_with_operations_running_is_read_again_next_poll_to_see_how_they_end(neon_events, sim):
    watch = watcher(neon_events, sim, events=["projects", "operations"], projects_per_poll=1)
    watch.poll()
    sim.advance_clock(30)  # the seeded operations in progress end
    project = sim.create_project(name="fresh")
    op = sim.start_operations(project["id"], action="create_branch", hold=True)[0]
    assert types(watch.poll()) == [("project_created", project["id"])]  # read: its operation runs
    sim.release_operations(project["id"], op["id"], outcome="failed")
    assert types(watch.poll()) == [("operation_failed", project["id"])]  # not 37 polls later


# ---------------------------------------------------------------------------------------------- branches, keys, advisors

def test_a_branch_about_to_expire_is_reported_once(neon_events, sim):
    pid = sim.demo_project_id
    watch = watcher(neon_events, sim, events=["branches"], projects_per_poll=40, branch_expires_within=7200)
    assert watch.poll() == []
    sim.advance_clock(30)  # the seeded operations in progress end
    expires = datetime.datetime.fromtimestamp(sim.clock.time() + 3 * 3600, tz=datetime.timezone.utc)
    branch = api(sim, "POST", "/projects/%s/branches" % pid,
                 {"branch": {"name": "pr-7", "expires_at": expires.strftime("%Y-%m-%dT%H:%M:%SZ")}})["branch"]
    assert watch.poll() == []  # three hours away: not yet
    sim.advance_clock(3600 + 60)
    found = watch.poll()
    assert types(found) == [("branch_expiring", pid)]
    assert found[0]["neon"]["branch"]["id"] == branch["id"] and found[0]["neon"]["expires_in_seconds"] <= 7200
    assert watch.poll() == []


def test_an_unused_or_old_key_is_reported_once_without_its_secret(neon_events, sim):
    watch = watcher(neon_events, sim, events=["api_keys"], api_key_unused_days=30, api_key_max_age_days=100)
    assert watch.poll() == []
    sim.advance_clock(31 * 86400)
    found = watch.poll()
    kinds = sorted(one["neon"]["type"] for one in found)
    assert kinds == ["api_key_unused", "api_key_unused"]  # the two ci-pipeline keys; the key in use is used
    assert watch.poll() == []
    sim.advance_clock(30 * 86400)
    assert {one["neon"]["type"] for one in watch.poll()} == {"api_key_old"}
    assert sim.api_key not in json.dumps(found)


def test_advisor_issues_are_reported_once_from_the_least_severity_asked(neon_events, sim):
    pid = sim.demo_project_id
    requests.post(sim.control_url + "/projects/%s/advisors" % pid, timeout=10, json={"issues": [
        {"name": "rls_disabled_in_public", "level": "ERROR"},
        {"name": "unused_index", "level": "WARN", "categories": ["PERFORMANCE"], "detail": "index i is unused"}]})
    watch = watcher(neon_events, sim, events=["advisors"], projects_per_poll=40)
    found = watch.poll()
    assert [(one["neon"]["issue"]["name"], one["neon"]["project_id"]) for one in found] == [
        ("rls_disabled_in_public", pid)]
    assert watch.poll() == []


# ---------------------------------------------------------------------------------------------- consumption

CONSUMPTION = "/api/v2/consumption_history/v2/projects"


def month_start(seconds):
    day = datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc)
    return datetime.datetime(day.year, day.month, 1, tzinfo=datetime.timezone.utc)


def mid_month(sim):
    """The simulator's clock at least 3 days before its month ends (a test's hours stay in one billing period)."""
    now = sim.clock.time()
    start = month_start(now)
    following = month_start(start.timestamp() + 32 * 86400)
    if following.timestamp() - now < 3 * 86400:
        sim.advance_clock(following.timestamp() - now + 86400)


def compute_seconds(sim):
    """Each seeded organization project's compute_unit_seconds of the current month, read from the service now."""
    now = sim.clock.time()
    query = "org_id=%s&metrics=compute_unit_seconds&granularity=monthly&limit=100&from=%s&to=%s" % (
        sim.org_id, month_start(now).strftime("%Y-%m-%dT%H:%M:%SZ"),
        datetime.datetime.fromtimestamp(now, tz=datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    rows = api(sim, "GET", "/consumption_history/v2/projects?" + query)["projects"]
    return {row["project_id"]: sum(metric["value"] for period in row["periods"][-1:] for frame in period["consumption"]
                                   for metric in frame["metrics"]) for row in rows}


def consumption_requests(sim, since):
    return [r for r in sim.requests(since=since) if r["path"] == CONSUMPTION]


def test_consumption_over_a_limit_is_reported_once_per_project_and_period_also_across_a_restart(
        neon_events, sim, tmp_path):
    mid_month(sim)
    before = compute_seconds(sim)
    top = max(before, key=before.get)
    limit = before[top]  # the most consuming project is at the limit, not over it: nothing yet
    cursor = str(tmp_path / "cursor.json")
    args = dict(events=["consumption"], org_id=sim.org_id, cursor_file=cursor,
                consumption_limits={"compute_unit_seconds": limit})
    watch = watcher(neon_events, sim, **args)
    since = last_seq(sim)
    assert watch.poll() == []
    sim.advance_clock(3600)  # an hour of use later (the figures refresh every 15 minutes): over the limit
    found = watch.poll()
    sent = consumption_requests(sim, since)
    assert len(sent) == 2  # a read of 3 projects, one request, at each poll so far
    assert "org_id=%s" % sim.org_id in sent[0]["query"] and "metrics=compute_unit_seconds" in sent[0]["query"]
    over = compute_seconds(sim)
    crossed = sorted(pid for pid in over if over[pid] > limit)
    assert top in crossed and [one["neon"]["project_id"] for one in found] == crossed
    shown = found[crossed.index(top)]["neon"]
    assert shown["type"] == "consumption_over_limit" and shown["metric"] == "compute_unit_seconds"
    assert shown["limit"] == limit and shown["value"] == over[top] and shown["org_id"] == sim.org_id
    assert shown["project_name"] == dict(zip(ORG_PROJECTS, ("checkout-api", "checkout-api-staging", "ledger")))[top]
    assert set(shown["period"]) == {"id", "start", "plan"} and shown["period"]["start"].startswith(
        month_start(sim.clock.time()).strftime("%Y-%m-%d"))
    since = last_seq(sim)
    sim.advance_clock(60)
    assert watch.poll() == [] and consumption_requests(sim, since) == []  # the next read: 900 s after this one
    neon_events.save_cursor(cursor, watch.state)
    sim.advance_clock(900)
    assert watch.poll() == []  # still over, the same period and limit: not again
    # stopped and started again from the cursor file: not again either
    again = watcher(neon_events, sim, state=neon_events.load_cursor(cursor), **args)
    sim.advance_clock(900)
    assert again.poll() == []
    assert sim.api_key not in json.dumps(found) and sim.api_key not in open(cursor, encoding="utf-8").read()


def test_consumption_of_a_new_period_or_over_a_new_limit_is_reported_again(neon_events, sim):
    pid = ORG_PROJECTS[0]

    def answer(period_id, value):
        return json.dumps({"projects": [{"project_id": pid, "periods": [
            {"period_id": "0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c1%s" % period_id[-1], "period_plan": "scale",
             "period_start": "2026-%s-01T00:00:00Z" % period_id[:2], "consumption": [
                 {"timeframe_start": "2026-%s-01T00:00:00Z" % period_id[:2], "metrics": [
                     {"metric_name": "compute_unit_seconds", "value": value}]}]}]}], "pagination": {"cursor": pid}})

    def poll(watch, period_id, value):
        sim.add_fault(method="GET", path=CONSUMPTION, status=200, count=1, body=answer(period_id, value))
        sim.advance_clock(900)
        return [(one["neon"]["period"]["start"][:7], one["neon"]["value"], one["neon"]["limit"])
                for one in watch.poll()]

    args = dict(events=["consumption"], org_id=sim.org_id, consumption_limits={"compute_unit_seconds": 1000})
    watch = watcher(neon_events, sim, **args)
    assert poll(watch, "10-1", 999) == []
    assert poll(watch, "10-1", 1500) == [("2026-10", 1500, 1000)]
    assert poll(watch, "10-1", 2500) == []
    assert poll(watch, "11-2", 10) == []  # a new billing period starts from nothing
    assert poll(watch, "11-2", 1001) == [("2026-11", 1001, 1000)]
    raised = dict(events=["consumption"], org_id=sim.org_id, consumption_limits={"compute_unit_seconds": 2000})
    higher = watcher(neon_events, sim, state=watch.state, **raised)
    assert poll(higher, "11-2", 1500) == []  # under the new limit
    assert poll(higher, "11-2", 2001) == [("2026-11", 2001, 2000)]


def one_project_consumption(sim, pid, value):
    """A consumption answer of ``pid`` alone: its period of the simulator's month with ``value`` compute unit seconds,
    or without the metric (``value`` None: the service counted none yet)."""
    start = month_start(sim.clock.time()).strftime("%Y-%m-%dT%H:%M:%SZ")
    metrics = [] if value is None else [{"metric_name": "compute_unit_seconds", "value": value}]
    return json.dumps({"projects": [{"project_id": pid, "periods": [
        {"period_id": "5b1f4a3d-0a9c-4d7a-9e2c-6d1e8f3b2c10", "period_plan": "scale", "period_start": start,
         "consumption": [{"timeframe_start": start, "metrics": metrics}]}]}], "pagination": {"cursor": pid}})


def test_consumption_over_a_limit_is_reported_once_in_a_period_whatever_the_reads_between(neon_events, sim, tmp_path):
    """A read under the limit between two over it (a row without the metric, counted as 0), or the project left out
    of one listing, does not make the same crossing of the same period and limit reported again."""
    mid_month(sim)
    pid = ORG_PROJECTS[0]
    cursor = str(tmp_path / "cursor.json")
    args = dict(events=["consumption"], org_id=sim.org_id, consumption_limits={"compute_unit_seconds": 1000})
    watch = watcher(neon_events, sim, **args)

    def poll(value):
        sim.add_fault(method="GET", path=CONSUMPTION, status=200, count=1, body=one_project_consumption(sim, pid, value))
        sim.advance_clock(900)
        return [(one["neon"]["project_id"], one["neon"]["value"]) for one in watch.poll()]

    assert poll(1500) == [(pid, 1500)]
    assert poll(None) == []   # the period's row without the metric: 0, under the limit
    assert poll(1600) == []   # over it again, the same period and limit: reported already
    sim.add_fault(method="GET", path="/api/v2/projects", status=200, count=1, body=json.dumps({"projects": []}))
    sim.advance_clock(900)
    assert watch.poll() == []  # no project listed this time
    neon_events.save_cursor(cursor, watch.state)
    watch = watcher(neon_events, sim, state=neon_events.load_cursor(cursor), **args)  # and a restart from the cursor
    assert poll(1700) == []   # listed again: still reported already


def test_consumption_over_a_limit_is_reported_again_in_the_next_month(neon_events, sim):
    mid_month(sim)
    watch = watcher(neon_events, sim, events=["consumption"], org_id=sim.org_id,
                    consumption_limits={"compute_unit_seconds": 1})
    first = watch.poll()
    crossed = sorted(pid for pid, value in compute_seconds(sim).items() if value > 1)
    assert crossed and sorted(one["neon"]["project_id"] for one in first) == crossed
    sim.advance_clock(900)
    assert watch.poll() == []
    now = sim.clock.time()
    following = month_start(month_start(now).timestamp() + 32 * 86400)
    sim.advance_clock(following.timestamp() - now + 3600)  # the simulator's clock an hour into the next month
    again = watch.poll()
    crossed = sorted(pid for pid, value in compute_seconds(sim).items() if value > 1)
    assert crossed and sorted(one["neon"]["project_id"] for one in again) == crossed
    assert all(one["neon"]["period"]["start"].startswith(following.strftime("%Y-%m-%d")) for one in again), again
    assert {one["neon"]["period"]["id"] for one in again}.isdisjoint(one["neon"]["period"]["id"] for one in first)


def test_consumption_costs_one_request_a_poll_and_a_read_every_interval(neon_events, sim):
    sim.create_projects(147, org_id=sim.org_id, name_prefix="fleet")  # 150: two requests of 100 projects
    watch = watcher(neon_events, sim, events=["consumption"], org_id=sim.org_id, consumption_interval=600,
                    consumption_limits={"compute_unit_seconds": 10 ** 12})
    per_poll = []
    for _poll in range(14):
        since = last_seq(sim)
        watch.poll()
        per_poll.append(len(consumption_requests(sim, since)))
        sim.advance_clock(60)
    assert per_poll == [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0]
    asked = [set(r["query"].split("project_ids=")[1].split("&")[0].replace("%2C", ",").split(","))
             for r in consumption_requests(sim, 0)]
    assert [len(ids) for ids in asked] == [100, 50, 100, 50] and len(asked[0] | asked[1]) == 150


def test_consumption_429_waits_as_retry_after_says(neon_events, sim):
    recorder = Recorder(sim)
    watch = watcher(neon_events, sim, recorder=recorder, events=["consumption"], org_id=sim.org_id,
                    consumption_limits={"compute_unit_seconds": 10 ** 12})
    sim.add_fault(method="GET", path=CONSUMPTION, status=429, retry_after=11, count=1)
    since = last_seq(sim)
    assert watch.poll() == []
    assert recorder.pauses == [11] and len(consumption_requests(sim, since)) == 2


def test_consumption_refused_by_the_plan_stops_the_source_at_its_first_poll(neon_events, sim):
    owner = sim.create_user(name="Free Owner")
    org = sim.create_organization(name="free-team", plan="free", admins=[owner["id"]], projects=1)
    key = sim.create_key("personal", user_id=owner["id"], name="free-owner")
    with pytest.raises(neon_events.ArgumentError, match="the first poll failed.*HTTP 403"):
        asyncio.run(neon_events.main(ListQueue(), {
            "api_key": key["key"], "api_url": sim.url, "org_id": org["id"], "events": ["consumption"],
            "consumption_limits": {"compute_unit_seconds": 1}}))


# ---------------------------------------------------------------------------------------------- faults

def test_429_waits_as_retry_after_says(neon_events, sim):
    recorder = Recorder(sim)
    watch = watcher(neon_events, sim, recorder=recorder)
    sim.add_fault(method="GET", path="/api/v2/projects", status=429, retry_after=7, count=1)
    assert watch.poll() == []
    assert recorder.pauses == [7]


def test_a_project_deleted_between_the_listing_and_its_details_does_not_fail_the_poll(neon_events, sim):
    watch = watcher(neon_events, sim, events=["projects", "operations"], projects_per_poll=1)
    watch.poll()
    project = sim.create_project(name="short-lived")
    sim.add_fault(method="GET", path="/api/v2/projects/%s/operations" % project["id"], status=404, count=1)
    assert types(watch.poll()) == [("project_created", project["id"])]  # its operations: 404, left for later


def test_a_running_operation_with_a_created_at_that_is_no_time_does_not_end_the_source(neon_events, sim):
    # untrusted answers: one running operation's created_at does not parse, another's does; the poll goes on
    pid = sim.demo_project_id
    watch = watcher(neon_events, sim, events=["operations"], projects_per_poll=40)
    watch.poll()
    running = {"id": "0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10", "project_id": pid, "action": "apply_config",
               "status": "running", "failures_count": 0, "created_at": "yesterday", "updated_at": "yesterday"}
    good = dict(running, id="0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c11", created_at="2030-01-01T00:00:00Z",
                updated_at="2030-01-01T00:00:00Z")
    sim.add_fault(method="GET", path="/api/v2/projects/%s/operations" % pid, status=200, count=1,
                  body=json.dumps({"operations": [good, running], "pagination": {}}))
    assert watch.poll() == []
    assert watch.state["projects"][pid]["ops_after"] == "2030-01-01T00:00:00Z"


def test_a_404_after_a_project_s_operations_were_read_loses_none_of_their_failures(neon_events, sim):
    pid = sim.demo_project_id
    watch = watcher(neon_events, sim, events=["operations", "branches"], projects_per_poll=40)
    watch.poll()
    op = sim.start_operations(pid, action="apply_config", hold=True)[0]
    watch.poll()
    sim.release_operations(pid, op["id"], outcome="failed", error="no capacity")
    sim.add_fault(method="GET", path="/api/v2/projects/%s/branches" % pid, status=404, count=1)
    assert watch.poll() == []  # its branches: 404, the project left as it was for the next poll
    assert types(watch.poll()) == [("operation_failed", pid)]


def test_a_dead_api_is_one_event_then_polls_again_after_growing_pauses_then_recovered(neon_events, sim):
    settings = neon_events.Settings(dict(api_key=sim.api_key, api_url=sim.url, events=["projects"], interval=10,
                                    max_backoff=60, api_retries=0))
    watch = neon_events.Watcher(settings, now=sim.clock.time)
    watch.poll()
    pauses = Recorder(sim)
    source = neon_events.Source(settings, watcher=watch, sleep=pauses.asleep)
    queue = ListQueue()
    sim.add_fault(method="GET", path="/api/v2/projects", status=503, count=6)
    asyncio.run(source.run(queue, polls=8))
    kinds = [one["neon"]["type"] for one in queue.items]
    assert kinds == ["api_unreachable", "api_recovered"]
    assert "HTTP 503" in queue.items[0]["neon"]["error"] and sim.api_key not in json.dumps(queue.items)
    assert pauses.pauses == [10, 20, 40, 60, 60, 60, 10, 10]
    assert queue.items[1]["neon"]["failed_polls"] == 6


def test_bad_arguments_stop_the_source_at_start_before_any_request(neon_events, sim):
    since = last_seq(sim)
    cases = [
        ({"interval": 0}, "interval must be at least 1"),
        ({"events": ["projects", "weather"]}, "events must be a non-empty list"),
        ({"baseline": "tight"}, "baseline must be a mapping"),
        ({"api_key": "has space"}, "api_key contains spaces"),
        ({"advisors_min_severity": "LOUD"}, "advisors_min_severity must be one of"),
        ({"cursor_file": "/nonexistent-folder/cursor.json"}, "does not exist or cannot be written"),
        ({"colour": "red"}, "unknown argument(s) colour"),
        ({"events": ["consumption"], "consumption_limits": {"compute_unit_seconds": 1}}, "consumption needs org_id"),
        ({"events": ["consumption"], "org_id": sim.org_id}, "consumption needs consumption_limits"),
        ({"events": ["consumption"], "org_id": sim.org_id, "consumption_limits": {"cpu": 1}},
         "consumption_limits: metrics cpu is not read per project"),
        ({"events": ["consumption"], "org_id": sim.org_id, "consumption_limits": {"compute_unit_seconds": -1}},
         "consumption_limits: compute_unit_seconds must be at least 0"),
        ({"consumption_limits": {"compute_unit_seconds": 1}}, "consumption_limits given, but events does not have"),
    ]
    for args, message in cases:
        full = dict({"api_key": sim.api_key, "api_url": sim.url}, **args)
        with pytest.raises(neon_events.ArgumentError, match=message.replace("(", r"\(").replace(")", r"\)")):
            asyncio.run(neon_events.main(ListQueue(), full))
    assert sim.requests(since=since) == []


def test_a_refused_key_stops_the_source_at_its_first_poll(neon_events, sim):
    queue = ListQueue()
    with pytest.raises(neon_events.ArgumentError, match="the first poll failed.*HTTP 401"):
        asyncio.run(neon_events.main(queue, {"api_key": "not-a-key", "api_url": sim.url}))
    assert queue.items == []


def test_a_cursor_file_of_something_else_is_refused_at_start(neon_events, sim, tmp_path):
    cursor = tmp_path / "cursor.json"
    cursor.write_text('{"projects": []}')
    with pytest.raises(neon_events.ArgumentError, match="is not a cursor of this source"):
        asyncio.run(neon_events.main(ListQueue(), {"api_key": sim.api_key, "api_url": sim.url, "cursor_file": str(cursor)}))


# ---------------------------------------------------------------------------------------------- the guide's rulebooks

def guide_rulebooks():
    """The rulebooks of the guide page "Reacting to events" (its yaml blocks that are lists of rulesets)."""
    with open(os.path.join(ROOT, "docs", "docsite", "rst", "reacting-to-events.rst"), encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    found = []
    for index, line in enumerate(lines):
        if line.strip() != ".. code-block:: yaml":
            continue
        body = []
        for following in lines[index + 1:]:
            if following.strip() and not following.startswith(" " * (len(line) - len(line.lstrip()) + 3)):
                break
            body.append(following)
        data = yaml.safe_load(textwrap.dedent("\n".join(body)))
        if isinstance(data, list) and data and "sources" in data[0]:
            found.append(data)
    return found


def test_the_guide_shows_the_shipped_rulebook_and_one_the_source_takes(neon_events):
    shipped, own = guide_rulebooks()
    with open(os.path.join(ROOT, "extensions", "eda", "rulebooks", "project_baseline.yml"), encoding="utf-8") as handle:
        assert shipped == yaml.safe_load(handle)
    with open(SOURCE, encoding="utf-8") as handle:
        kinds = set(re.findall(r'event\("([a-z_]+)"', handle.read()))
    (source,) = own[0]["sources"]
    neon_events.Settings(dict(source["neon.cloud.events"], api_key="a-key", cursor_file=None))
    for rule in own[0]["rules"]:
        named = re.findall(r'event\.neon\.type == "([a-z_]+)"', rule["condition"])
        assert named and set(named) <= kinds, (rule["condition"], sorted(kinds))


# ---------------------------------------------------------------------------------------------- the decision environment

def test_the_decision_environment_definition_makes_a_build_context(tmp_path):
    """extensions/eda/decision-environment.yml as ansible-builder reads it (its build context; no image is built
    here): ansible-rulebook, a Java 17 runtime and neon.cloud go into the image."""
    definition = os.path.join(ROOT, "extensions", "eda", "decision-environment.yml")
    context = tmp_path / "context"
    run([tool("ansible-builder"), "create", "--file", definition, "--context", context, "--output-filename",
         "Containerfile", "-v", "1"], cwd=str(tmp_path), env=ansible_env(tmp_path))
    containerfile = (context / "Containerfile").read_text()
    assert "ansible-galaxy collection install" in containerfile and "JAVA_HOME=/usr/lib/jvm/jre-17-openjdk" in (
        containerfile)
    build = context / "_build"
    assert "ansible-rulebook==1.3.2" in (build / "requirements.txt").read_text()
    assert "java-17-openjdk-headless" in (build / "bindep.txt").read_text()
    assert yaml.safe_load((build / "requirements.yml").read_text())["collections"] == [{"name": "neon.cloud"}]
