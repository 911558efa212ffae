# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests: the consumption history (governance-recovery-api-notes.md section 9) - answers shaped as
ConsumptionHistoryPerAccountResponse and ConsumptionHistoryPerProjectResponse, generated the same for the same
range, pages whose cursor is the last project id, 406 outside a granularity's reach, 403 below the Scale plan,
404 outside the organization, and 429 past 30 requests a minute (a token bucket on the simulator's clock)."""

from __future__ import annotations

import calendar
import time
import uuid

import requests

API_KEY = "sim-selftest-key-consumption"
ORG = "org-calm-tree-21298941"
ORG_PROJECTS = ["bold-glade-61830452", "quiet-brook-72914063", "young-forest-83025174"]
DEFAULTS = ("active_time_seconds", "compute_time_seconds", "written_data_bytes", "synthetic_storage_size_bytes")
# The OpenAPI document's schemas: required fields and their types.
PERIOD = {"period_id": str, "period_plan": str, "period_start": str, "consumption": list}
TIMEFRAME = dict({"timeframe_start": str, "timeframe_end": str}, **dict.fromkeys(DEFAULTS, int))


def iso(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def sim_now(sim):
    return sim.state.clock.time()


def call(sim, path, key=API_KEY, **params):
    """A GET of a consumption endpoint, with a request id as the collection's client sends one (the 406 and 429
    answers carry the request's own id: tests/simulator/README.md, "Private networking and consumption")."""
    headers = {"Authorization": "Bearer " + key, "X-Request-ID": str(uuid.uuid4())}
    return requests.get(sim.url + "/consumption_history/" + path, headers=headers, params=params, timeout=10)


def ago(sim, days=0, hours=0):
    return iso(sim_now(sim) - days * 86400 - hours * 3600)


def refused(response, status, message):
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"code", "message", "request_id"} and message in body["message"], body
    assert response.headers["x-neon-ret-request-id"] == body["request_id"]
    return body


def conforming_periods(periods):
    for period in periods:
        for field, kind in PERIOD.items():
            assert isinstance(period.get(field), kind), (field, period)
        for frame in period["consumption"]:
            for field, kind in TIMEFRAME.items():
                assert isinstance(frame.get(field), kind), (field, frame)
    return periods


def frames(periods):
    return [frame for period in conforming_periods(periods) for frame in period["consumption"]]


def today(sim):
    return iso(sim_now(sim) - sim_now(sim) % 86400)


def this_month(sim):
    return iso(calendar.timegm(time.gmtime(sim_now(sim))[:2] + (1, 0, 0, 0)))


def test_daily_projects_are_paged_by_the_last_project_id_and_answer_the_same_twice(sim):
    query = {"from": ago(sim, days=3), "to": today(sim), "granularity": "daily", "org_id": ORG}
    first = call(sim, "projects", limit=2, **query)
    assert first.status_code == 200, first.text
    page = first.json()
    assert [item["project_id"] for item in page["projects"]] == ORG_PROJECTS[:2]
    assert page["pagination"] == {"cursor": ORG_PROJECTS[1]}
    second = call(sim, "projects", limit=2, cursor=ORG_PROJECTS[1], **query).json()
    assert [item["project_id"] for item in second["projects"]] == ORG_PROJECTS[2:]
    assert call(sim, "projects", limit=2, cursor=ORG_PROJECTS[2], **query).json() == {"projects": []}
    days = frames(page["projects"][0]["periods"])
    assert len(days) == 3  # the three days before today (to is today's start)
    assert all(frame["timeframe_start"].endswith("T00:00:00Z") for frame in days)
    assert call(sim, "projects", limit=2, **query).json() == page  # the same range of the past answers the same
    until_now = dict(query)
    until_now["to"] = ago(sim)
    current = call(sim, "projects", limit=2, **until_now).json()
    assert len(frames(current["projects"][0]["periods"])) == 4  # and today so far
    refused(call(sim, "projects", cursor="no-such-project", **query), 400, "cursor")
    refused(call(sim, "projects", limit=101, **query), 400, "limit")


def test_the_account_is_the_sum_of_its_projects_and_metrics_choose_the_fields(sim):
    query = {"from": ago(sim, days=40), "to": this_month(sim), "granularity": "monthly", "org_id": ORG}
    account = call(sim, "account", **query).json()
    assert set(account) == {"periods"}
    projects = call(sim, "projects", **query).json()["projects"]
    for metric in DEFAULTS:
        assert [frame[metric] for frame in frames(account["periods"])] == [
            sum(values) for values in zip(*[[frame[metric] for frame in frames(item["periods"])] for item in projects])]
    period = account["periods"][-1]
    assert period["period_plan"] == "scale" and period["period_start"].endswith("-01T00:00:00Z")
    assert period["period_end"] == this_month(sim)  # a period that has ended has its end
    until_now = dict(query)
    until_now["to"] = ago(sim)
    now = call(sim, "account", **until_now).json()
    assert "period_end" not in now["periods"][-1]  # the current period has none
    chosen = call(sim, "projects", metrics="logical_size_bytes,compute_time_seconds", **query).json()
    frame = frames(chosen["projects"][0]["periods"])[0]
    assert frame["compute_time_seconds"] > 0 and frame["logical_size_bytes"] > 0
    assert frame["active_time_seconds"] == 0 and "data_storage_bytes_hour" not in frame  # not asked for
    refused(call(sim, "account", metrics="logical_size_bytes", **query), 400, "unknown metric")
    only = call(sim, "projects", project_ids=",".join(ORG_PROJECTS[::2]), **query).json()
    assert [item["project_id"] for item in only["projects"]] == ORG_PROJECTS[::2]
    refused(call(sim, "projects", project_ids=",".join("p-%d" % n for n in range(101)), **query), 400, "at most 100")


def test_a_range_beyond_the_granularity_is_406_and_one_upside_down_is_400(sim):
    refused(call(sim, "account", org_id=ORG, granularity="hourly", **{"from": ago(sim, hours=170), "to": ago(sim)}),
            406, "hourly metrics are limited to the last 168 hours")
    assert call(sim, "account", org_id=ORG, granularity="hourly",
                **{"from": ago(sim, hours=167), "to": ago(sim)}).status_code == 200
    refused(call(sim, "account", org_id=ORG, granularity="daily", **{"from": ago(sim, days=62), "to": ago(sim)}),
            406, "the last 60 days")
    year, month = time.gmtime(sim_now(sim))[:2]
    a_year_ago = calendar.timegm((year - 1, month, 1, 0, 0, 0))
    assert call(sim, "account", org_id=ORG, granularity="monthly", **{"from": iso(a_year_ago), "to": ago(sim)}
                ).status_code == 200
    refused(call(sim, "account", org_id=ORG, granularity="monthly", **{"from": iso(a_year_ago - 1), "to": ago(sim)}),
            406, "the past year")
    refused(call(sim, "account", org_id=ORG, granularity="monthly", **{"from": "2024-02-29T00:00:00Z",
                                                                       "to": "2024-03-02T00:00:00Z"}),
            406, "2024-03-01")
    refused(call(sim, "account", org_id=ORG, granularity="daily", **{"from": ago(sim), "to": ago(sim, days=1)}),
            400, "from: must not be after to")
    refused(call(sim, "account", org_id=ORG, granularity="weekly", **{"from": ago(sim), "to": ago(sim)}),
            400, "granularity")
    refused(call(sim, "account", org_id=ORG, granularity="daily", **{"from": "yesterday", "to": ago(sim)}),
            400, "from: invalid date-time")


def test_plans_below_scale_are_403_and_other_organizations_404(sim):
    query = {"from": ago(sim, days=2), "to": ago(sim), "granularity": "daily"}
    refused(call(sim, "account", **query), 403, "only supported for Scale, Business, and Enterprise")  # personal
    launch = sim.create_organization(name="Small Team", plan="launch", projects=1)
    refused(call(sim, "projects", org_id=launch["id"], **query), 403, "launch")
    stranger = sim.create_user(name="Stranger")
    other = sim.create_organization(name="Elsewhere", admins=[stranger["id"]])
    refused(call(sim, "account", org_id=other["id"], **query), 404, "not a member")
    org_key = sim.create_key("organization", org_id=ORG)["key"]
    assert call(sim, "account", key=org_key, **query).status_code == 200  # its own organization's account
    scoped = sim.create_key("project", project_id=ORG_PROJECTS[0])["key"]
    refused(call(sim, "account", key=scoped, org_id=ORG, **query), 403, "project-scoped")


def test_thirty_requests_a_minute_per_account_over_both_endpoints(sim):
    query = {"from": ago(sim, days=2), "to": ago(sim), "granularity": "daily", "org_id": ORG}
    statuses = [call(sim, "account" if number % 2 else "projects", **query).status_code for number in range(30)]
    assert statuses == [200] * 30
    refused(call(sim, "account", **query), 429, "30 requests a minute")
    org_key = sim.create_key("organization", org_id=ORG)["key"]
    assert call(sim, "account", key=org_key, **query).status_code == 200  # another account's bucket
    sim.advance_clock(2)  # the bucket refills a token every 2 s of the simulator's clock
    assert call(sim, "projects", **query).status_code == 200
    refused(call(sim, "projects", **query), 429, "too many requests")
    control = sim.control_url + "/consumption_rate_limit"
    assert requests.post(control, json={"rate_per_minute": None}, timeout=10).json() == {
        "rate_per_minute": None, "burst": 30.0}
    assert call(sim, "projects", **query).status_code == 200
    sim.reset()
    assert requests.get(control, timeout=10).json() == {"rate_per_minute": 30.0, "burst": 30.0}


def test_406_and_429_are_errors_py_refusals_and_the_429_says_when_to_ask_again(sim):
    from neon_simulator.errors import API_ERRORS, NotAcceptable, TooManyRequests

    statuses = dict(API_ERRORS)
    assert (statuses[NotAcceptable], statuses[TooManyRequests]) == (406, 429)  # answered as every refusal is
    sim.state.consumption.set_consumption_limits({"rate_per_minute": 30, "burst": 1})  # a token every 2 s
    key = sim.state.keys.authenticate(API_KEY, "127.0.0.1")
    sim.state.consumption.take_consumption_token(key)
    try:
        sim.state.consumption.take_consumption_token(key)
    except TooManyRequests as refusal:
        assert "30 requests a minute" in str(refusal) and refusal.headers == {"Retry-After": "2"}
    else:
        raise AssertionError("a second request at once was not refused")


def test_a_429_answer_carries_retry_after(sim):
    sim.state.consumption.set_consumption_limits({"rate_per_minute": 30, "burst": 1})
    query = {"from": ago(sim, days=2), "to": ago(sim), "granularity": "daily", "org_id": ORG}
    assert call(sim, "account", **query).status_code == 200
    response = call(sim, "projects", **query)
    refused(response, 429, "too many requests")
    assert response.headers.get("Retry-After") == "2"


# ---------------------------------------------------------------------- the current (v2) endpoints (June 2026 document)
V2_METRICS = ("compute_unit_seconds", "root_branch_bytes_month", "child_branch_bytes_month",
              "instant_restore_bytes_month", "public_network_transfer_bytes", "private_network_transfer_bytes",
              "extra_branches_month", "snapshot_storage_bytes_month")


def v2_frames(rows):
    """Every timeframe of v2 rows, checked as ConsumptionHistoryPerPeriodV2 (metrics: [{metric_name, value}])."""
    found = []
    for row in rows:
        for period in row["periods"]:
            for field, kind in PERIOD.items():
                assert isinstance(period.get(field), kind), (field, period)
            for frame in period["consumption"]:
                assert all(isinstance(item["value"], int) for item in frame["metrics"])
                found.append(frame)
    return found


def test_v2_projects_need_org_id_and_metrics_and_answer_them_in_the_order_asked_newest_first_paged(sim):
    query = {"from": ago(sim, days=2), "to": ago(sim), "granularity": "daily"}
    refused(call(sim, "v2/projects", metrics="compute_unit_seconds", **query), 400, "org_id: query parameter is required")
    refused(call(sim, "v2/projects", org_id=ORG, **query), 400, "metrics: query parameter is required")
    refused(call(sim, "v2/projects", org_id=ORG, metrics="active_time_seconds", **query), 400, "unknown metric")
    wanted = "snapshot_storage_bytes_month,compute_unit_seconds"
    first = call(sim, "v2/projects", org_id=ORG, metrics=wanted, limit=2, **query)
    assert first.status_code == 200, first.text
    page = first.json()
    assert [item["project_id"] for item in page["projects"]] == ORG_PROJECTS[::-1][:2]  # newest first
    assert page["pagination"] == {"cursor": ORG_PROJECTS[1]}
    for frame in v2_frames(page["projects"]):
        assert [item["metric_name"] for item in frame["metrics"]] == ["snapshot_storage_bytes_month",
                                                                      "compute_unit_seconds"]
    rest = call(sim, "v2/projects", org_id=ORG, metrics=wanted, limit=2, cursor=page["pagination"]["cursor"], **query)
    assert [item["project_id"] for item in rest.json()["projects"]] == [ORG_PROJECTS[0]]
    again = call(sim, "v2/projects", org_id=ORG, metrics=wanted, limit=2, **query).json()
    assert again == page  # generated the same for the same range


def test_v2_branches_are_rows_per_branch_of_the_projects_named_paged_by_project_then_branch(sim):
    query = {"from": ago(sim, days=1), "to": ago(sim), "granularity": "hourly", "org_id": ORG}
    refused(call(sim, "v2/branches", metrics="compute_unit_seconds", **query), 400, "project_ids: query parameter")
    refused(call(sim, "v2/branches", project_ids=ORG_PROJECTS[0], metrics="extra_branches_month", **query), 400,
            "unknown metric")
    rows, cursor, pages = [], None, 0
    while True:
        answer = call(sim, "v2/branches", project_ids=",".join(ORG_PROJECTS[:2]), metrics="compute_unit_seconds",
                      limit=1, cursor=cursor, **query)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        rows += body["branches"]
        pages += 1
        if not body["branches"]:
            break
        cursor = body["pagination"]["cursor"]
    keys = [(row["project_id"], row["branch_id"]) for row in rows]
    assert keys == sorted(keys) and len(set(keys)) == len(keys) == pages - 1
    assert {project for project, _branch in keys} == set(ORG_PROJECTS[:2])
    assert len(keys) > 2  # the seeded projects have more than one branch
    one = call(sim, "v2/branches", project_ids=keys[0][0], branch_ids=keys[0][1], metrics="compute_unit_seconds",
               **query).json()["branches"]
    assert [(row["project_id"], row["branch_id"]) for row in one] == [keys[0]]
    assert v2_frames(one)


def test_v2_plans_branches_not_on_business_and_other_organizations_404(sim):
    query = {"from": ago(sim, days=2), "to": ago(sim), "granularity": "daily", "metrics": "compute_unit_seconds"}
    launch = sim.create_organization(name="Small Team", plan="launch", projects=1)
    assert call(sim, "v2/projects", org_id=launch["id"], **query).status_code == 200  # Launch answers now
    free = sim.create_organization(name="Hobby", plan="free", projects=1)
    refused(call(sim, "v2/projects", org_id=free["id"], **query), 403, "Launch, Scale, Agent, Business or Enterprise")
    business = sim.create_organization(name="Big Co", plan="business", projects=1)
    assert call(sim, "v2/projects", org_id=business["id"], **query).status_code == 200
    refused(call(sim, "v2/branches", org_id=business["id"], project_ids=business["projects"][0]["id"], **query),
            403, "paid usage-based")
    stranger = sim.create_user(name="Stranger")
    other = sim.create_organization(name="Elsewhere", admins=[stranger["id"]])
    refused(call(sim, "v2/projects", org_id=other["id"], **query), 404, "not a member")
