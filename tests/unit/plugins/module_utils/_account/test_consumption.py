# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The decisions of a consumption read, without HTTP: which ranges each granularity reaches, how project ids are
split, when the pages end, how requests are paced, how the metrics add up, and what an answer must hold; and the
reader's requests against a scripted service (its pages, chunks and pauses on a fake clock)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import calendar

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._account import consumption
from ansible_collections.neon.cloud.plugins.module_utils._account.consumption import (
    ConsumptionReader,
    Pacer,
    chunks,
    earliest,
    metrics_problem,
    next_cursor,
    not_answered,
    options_problem,
    pace,
    parse_time,
    range_problem,
    report,
    rows_answer,
    round_down,
    totals,
    unique,
)
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import PaginationError, TaskFailure, UnexpectedAnswer
from ansible_collections.neon.cloud.tests.unit.plugins.module_utils.neon_fakes import FakeClock, sent_params

NOW = calendar.timegm((2025, 6, 15, 12, 30, 0))
HOUR = 3600
DAY = 86400


def at(*moment):
    return calendar.timegm(moment + (0,) * (6 - len(moment)))


# ---------------------------------------------------------------------------------------------- ranges


def test_times_are_read_as_iso_date_times_or_dates_in_utc():
    assert parse_time("2025-05-01") == at(2025, 5, 1)
    assert parse_time("2025-05-01T02:00:00+02:00") == at(2025, 5, 1)
    assert parse_time("2025-05-01T00:00:00Z") == at(2025, 5, 1)
    assert parse_time("May 1st") is None and parse_time("2025-13-01") is None


def test_times_round_down_to_their_timeframe():
    moment = at(2025, 6, 15, 12, 30, 45)
    assert round_down(moment, "hourly") == at(2025, 6, 15, 12)
    assert round_down(moment, "daily") == at(2025, 6, 15)
    assert round_down(moment, "monthly") == at(2025, 6, 1)


def test_each_granularity_reaches_back_to_the_timeframe_holding_its_limit():
    assert earliest(NOW, "hourly") == at(2025, 6, 8, 12)
    assert earliest(NOW, "daily") == at(2025, 4, 16)
    assert earliest(NOW, "monthly") == at(2024, 6, 1)


@pytest.mark.parametrize("granularity, start", [
    ("hourly", NOW - 168 * HOUR),
    ("hourly", at(2025, 6, 8, 12, 0, 1)),
    ("daily", NOW - 60 * DAY),
    ("monthly", at(2024, 6, 1)),
    ("monthly", at(2024, 6, 30)),
    ("daily", NOW),
])
def test_ranges_within_reach_are_taken(granularity, start):
    assert range_problem(start, NOW, granularity, NOW) is None


@pytest.mark.parametrize("granularity, start, words", [
    ("hourly", at(2025, 6, 8, 11, 59, 59), "granularity hourly reaches only the last 168 hours"),
    ("daily", at(2025, 4, 15, 23), "granularity daily reaches only the last 60 days"),
    ("monthly", at(2024, 5, 31), "granularity monthly reaches only the past year"),
])
def test_ranges_beyond_reach_are_refused_naming_the_limit_and_the_earliest_start(granularity, start, words):
    problem = range_problem(start, NOW, granularity, NOW)
    assert words in problem and consumption.iso(earliest(NOW, granularity)) in problem


def test_history_before_march_2024_and_a_range_upside_down_are_refused():
    assert "2024-03-01T00:00:00Z: the consumption history starts then" in range_problem(
        at(2024, 2, 29), at(2024, 3, 2), "daily", at(2024, 3, 10))
    assert range_problem(at(2024, 3, 1), at(2024, 3, 2), "daily", at(2024, 3, 10)) is None
    assert "is after to" in range_problem(NOW, NOW - 1, "daily", NOW)


def test_metrics_are_checked_for_the_scope():
    assert metrics_problem(None, "branches") is None and metrics_problem(["extra_branches_month"], "projects") is None
    problem = metrics_problem(["extra_branches_month", "compute_unit_seconds"], "branches")
    assert problem.startswith("metrics extra_branches_month is not read per branch")
    assert "is not read per project" in metrics_problem(["compute_time_seconds"], "projects")  # the older names


# ---------------------------------------------------------------------------------------------- chunks and pages


def test_project_ids_go_a_hundred_a_request_without_repeats():
    ids = ["p-%03d" % number for number in range(250)]
    assert [len(chunk) for chunk in chunks(ids)] == [100, 100, 50]
    assert chunks(ids)[1][0] == "p-100" and chunks([]) == []
    assert unique(["a", "b", "a", "c", "b"]) == ["a", "b", "c"]


def test_a_short_page_or_a_chunk_read_whole_ends_the_list():
    assert next_cursor(3, 100, "p-3", set(), None, set()) == (None, None)
    assert next_cursor(0, 100, None, set(), None, set()) == (None, None)
    chunk = ["p-%d" % number for number in range(100)]
    assert next_cursor(100, 100, "p-99", set(), chunk, set(chunk)) == (None, None)  # no empty page asked for


def test_a_full_page_goes_on_with_its_cursor_unless_the_list_does_not_advance():
    assert next_cursor(100, 100, "p-99", set(), None, set()) == ("p-99", None)
    assert next_cursor(100, 100, None, set(), None, set())[1].startswith("the service answered a full page")
    assert "twice" in next_cursor(100, 100, "p-99", {"p-99"}, None, set())[1]


# ---------------------------------------------------------------------------------------------- pace


def test_the_bucket_lets_a_burst_go_then_one_request_per_refill():
    assert pace(5.0, 0.0, 0.5, 5.0) == (0.0, 4.0)
    assert pace(0.0, 0.0, 0.5, 10.0) == (2.0, 0.0)
    assert pace(0.5, 0.0, 0.5, 10.0) == (1.0, 0.0)
    assert pace(0.0, 1000.0, 0.5, 10.0) == (0.0, 9.0)  # never more than the burst


def test_a_pacer_stays_under_the_service_limit_in_any_minute():
    clock = FakeClock(start=0.0)
    pacer = Pacer(clock, clock.sleep)
    moments = []
    for _request in range(60):
        pacer.wait()
        moments.append(clock())
    assert moments[:5] == [0.0] * 5  # the burst
    gaps = [later - earlier for earlier, later in zip(moments[5:], moments[6:])]
    assert all(abs(gap - 60.0 / consumption.PACE_PER_MINUTE) < 1e-9 for gap in gaps)
    for index, moment in enumerate(moments):
        in_a_minute = [other for other in moments[index:] if other < moment + 60.0]
        assert len(in_a_minute) <= consumption.SERVICE_PER_MINUTE
    assert pacer.paused == pytest.approx(55 * 2.4)


def test_time_that_passed_between_requests_refills_the_bucket():
    clock = FakeClock(start=0.0)
    pacer = Pacer(clock, clock.sleep)
    for _request in range(5):
        pacer.wait()
    clock.advance(12.0)  # five requests' worth
    assert [pacer.wait() for _request in range(6)] == [0.0] * 5 + [pytest.approx(2.4)]


# ---------------------------------------------------------------------------------------------- totals


def period(*frames):
    return {"period_id": "x", "period_plan": "scale", "period_start": "2025-05-01T00:00:00Z",
            "consumption": [{"timeframe_start": start, "timeframe_end": "t", "metrics": [
                {"metric_name": name, "value": value} for name, value in values]} for start, values in frames]}


def test_totals_add_up_every_metric_and_take_one_the_collection_does_not_know_as_it_comes():
    metrics = ["compute_unit_seconds", "root_branch_bytes_month"]
    first = [period(("d1", [("compute_unit_seconds", 10), ("root_branch_bytes_month", 500)]),
                    ("d2", [("compute_unit_seconds", 5), ("root_branch_bytes_month", 700)]))]
    second = [period(("d1", [("compute_unit_seconds", 1), ("root_branch_bytes_month", 400),
                             ("gpu_seconds", 9)]))]  # a metric the service may add one day
    assert totals([first], metrics) == {"compute_unit_seconds": 15, "root_branch_bytes_month": 1200}
    assert totals([first, second], metrics) == {"compute_unit_seconds": 16, "root_branch_bytes_month": 1600,
                                                "gpu_seconds": 9}
    assert totals([], metrics) == {"compute_unit_seconds": 0, "root_branch_bytes_month": 0}


def test_an_answer_of_the_wrong_shape_is_refused_and_one_of_the_right_shape_taken():
    good = {"projects": [{"project_id": "p-1", "periods": [period(("d1", [("compute_unit_seconds", 1)]))]}],
            "pagination": {"cursor": "p-1"}}
    assert rows_answer(good, "/c", "projects")[1] == "p-1"
    bad = {"projects": [{"project_id": "p-1", "periods": [period(("d1", [("compute_unit_seconds", "1")]))]}]}
    with pytest.raises(UnexpectedAnswer, match="value must be an integer"):
        rows_answer(bad, "/c", "projects")
    with pytest.raises(UnexpectedAnswer, match="projects is missing"):
        rows_answer({"periods": []}, "/c", "projects")
    branch_row = {"project_id": "p-1", "branch_id": "br-1", "periods": [period(("d1", [("compute_unit_seconds", 2)]))]}
    assert rows_answer({"branches": [branch_row]}, "/b", "branches") == ([branch_row], None)
    with pytest.raises(UnexpectedAnswer, match="branch_id is missing"):
        rows_answer({"branches": [{"project_id": "p-1", "periods": []}]}, "/b", "branches")
    empty = {"period_id": "x", "period_plan": "launch", "period_start": "2025-05-01T00:00:00Z", "consumption": [{}]}
    assert rows_answer({"projects": [{"project_id": "p-1", "periods": [empty]}]}, "/c", "projects")[0]  # times optional


# ---------------------------------------------------------------------------------------------- the task's options


def given(**options):
    """consumption_info's options as Ansible gives them."""
    return dict({"from": "2025-06-01", "to": None, "granularity": "daily", "scope": "projects", "project_ids": None,
                 "branch_ids": None, "org_id": "org-1", "metrics": None}, **options)


@pytest.mark.parametrize("options, words", [
    (given(**{"from": "last tuesday"}), "from must be an ISO 8601 date-time"),
    (given(to="soon"), "to must be an ISO 8601 date-time"),
    (given(scope="branches"), "scope=branches needs project_ids"),
    (given(branch_ids=["br-1"]), "branch_ids needs scope=branches"),
    (given(scope="branches", project_ids=["p-1"], branch_ids=["br-%d" % n for n in range(101)]), "at most 100 branch"),
    (given(granularity="hourly"), "granularity hourly reaches only the last 168 hours"),
    (given(scope="branches", project_ids=["p-1"], metrics=["snapshot_storage_bytes_month"]), "not read per branch"),
    (given(to="2025-05-01"), "is after to"),
])
def test_options_the_service_would_refuse_are_named(options, words):
    assert words in options_problem(options, NOW)


def test_options_within_reach_are_taken():
    assert options_problem(given(), NOW) is None
    assert options_problem(given(scope="branches", project_ids=["p-1"], to="2025-06-02T00:00:00+02:00"), NOW) is None


def test_the_project_ids_not_answered_are_named_once_in_order():
    assert not_answered(["p-2", "p-1", "p-2", "p-3"], [{"project_id": "p-1"}]) == ["p-2", "p-3"]
    assert not_answered(None, [{"project_id": "p-1"}]) == []


def test_a_report_refused_sends_nothing_and_one_read_names_what_was_not_answered():
    clock = FakeClock(start=0.0)
    service = ConsumptionService(["p-1", "p-2"], clock)
    with pytest.raises(TaskFailure, match="reaches only the last 168 hours") as refused:
        report(service, given(granularity="hourly"), now=NOW)
    assert refused.value.result == {"changed": False} and service.calls == []
    result = report(service, given(project_ids=["p-2", "p-9"]), now=NOW)
    assert [item["project_id"] for item in result["projects"]] == ["p-2"]
    assert result["warnings"] == ["The service answered no consumption for p-9 (not a project of organization org-1, "
                                  "no such project)"]
    assert result["changed"] is False and result["range"] == {
        "from": "2025-06-01T00:00:00Z", "to": "2025-06-15T12:30:00Z", "granularity": "daily"}


# ---------------------------------------------------------------------------------------------- the reader


class ConsumptionService:
    """A client-level fake of GET /consumption_history/v2/projects: the projects in order, the cursor the page's last
    project id (on every non-empty page), ``project_ids`` a filter; each request is recorded with its moment."""

    def __init__(self, project_ids, clock):
        self.project_ids = list(project_ids)
        self.clock = clock  # as NeonClient's: the monotonic clock and the pause every wait of the task takes
        self.sleep = clock.sleep
        self.calls = []

    def get(self, path, params=None, deadline=None):  # pylint: disable=unused-argument
        params = sent_params(params)
        self.calls.append((self.clock(), path, params))
        wanted = params["project_ids"].split(",") if "project_ids" in params else self.project_ids
        listed = [project_id for project_id in self.project_ids if project_id in wanted]
        if "cursor" in params:
            listed = listed[listed.index(params["cursor"]) + 1:]
        page = listed[:int(params["limit"])]
        frame = {"timeframe_start": "2025-05-01T00:00:00Z", "timeframe_end": "2025-06-01T00:00:00Z",
                 "metrics": [{"metric_name": "compute_unit_seconds", "value": 2},
                             {"metric_name": "root_branch_bytes_month", "value": 4}]}
        answer = {"projects": [{"project_id": project_id, "periods": [{
            "period_id": "x", "period_plan": "scale", "period_start": "2025-05-01T00:00:00Z",
            "consumption": [frame]}]} for project_id in page]}
        if page:
            answer["pagination"] = {"cursor": page[-1]}
        return answer


def reader_of(service, clock):
    return ConsumptionReader(service, at(2025, 5, 1), NOW, "monthly", org_id="org-1",
                             pacer=Pacer(clock, clock.sleep))


def test_every_page_of_every_project_is_read_with_full_pages():
    clock = FakeClock(start=0.0)
    service = ConsumptionService(["p-%03d" % number for number in range(250)], clock)
    read = reader_of(service, clock).projects()
    assert [project["project_id"] for project in read["projects"]] == service.project_ids
    assert [params.get("cursor") for _moment, _path, params in service.calls] == [None, "p-099", "p-199"]
    assert {params["limit"] for _moment, _path, params in service.calls} == {100}
    first = service.calls[0][2]
    assert (first["from"], first["to"], first["granularity"], first["org_id"]) == (
        "2025-05-01T00:00:00Z", "2025-06-15T12:30:00Z", "monthly", "org-1")
    assert first["metrics"] == ",".join(consumption.PROJECT_METRICS)  # required: every metric when none is asked for
    assert {path for _moment, path, _params in service.calls} == {"/consumption_history/v2/projects"}
    assert read["totals"]["compute_unit_seconds"] == 500 and read["totals"]["root_branch_bytes_month"] == 1000


def test_a_hundred_project_ids_a_request_and_no_empty_page_after_a_chunk_read_whole():
    clock = FakeClock(start=0.0)
    service = ConsumptionService(["p-%03d" % number for number in range(300)], clock)
    asked = ["p-%03d" % number for number in range(0, 300, 2)] + ["p-000"]  # 150 ids, one repeated
    read = reader_of(service, clock).projects(asked)
    assert [len(params["project_ids"].split(",")) for _moment, _path, params in service.calls] == [100, 50]
    assert len(read["projects"]) == 150
    assert reader_of(service, clock).projects([]) == {"projects": [], "totals": dict.fromkeys(
        consumption.PROJECT_METRICS, 0)} and len(service.calls) == 2  # an empty list asks nothing


def test_a_service_that_repeats_a_project_is_not_followed_forever():
    class Repeating(ConsumptionService):
        def get(self, path, params=None, deadline=None):
            answer = super(Repeating, self).get(path, dict(params, cursor=None), deadline)
            return answer

    clock = FakeClock(start=0.0)
    with pytest.raises(PaginationError, match="answered project p-000 twice"):
        reader_of(Repeating(["p-%03d" % number for number in range(150)], clock), clock).projects()


def test_many_pages_are_paced_under_the_limit_on_the_injected_clock():
    clock = FakeClock(start=0.0)
    service = ConsumptionService(["p-%04d" % number for number in range(1500)], clock)  # 16 pages
    reader_of(service, clock).projects()
    moments = [moment for moment, _path, _params in service.calls]
    assert len(moments) == 16 and moments[:5] == [0.0] * 5
    assert moments[5:] == [pytest.approx(2.4 * number) for number in range(1, 12)]


def test_without_a_pacer_the_reader_paces_on_the_client_s_clock_and_pauses_with_its_sleep():
    clock = FakeClock(start=0.0)
    service = ConsumptionService(["p-%04d" % number for number in range(700)], clock)  # 8 pages
    ConsumptionReader(service, at(2025, 5, 1), NOW, "monthly", "org-1").projects()
    moments = [moment for moment, _path, _params in service.calls]
    assert moments == [0.0] * 5 + [pytest.approx(2.4 * number) for number in range(1, 4)]
    assert clock.sleeps == [pytest.approx(2.4)] * 3  # the client's sleep: nothing slept in real time


class BranchService(ConsumptionService):
    """A client-level fake of GET /consumption_history/v2/branches: three branches per project, ordered by project
    then branch, the cursor ``project/branch`` of the page's last row."""

    def get(self, path, params=None, deadline=None):  # pylint: disable=unused-argument
        params = sent_params(params)
        self.calls.append((self.clock(), path, params))
        wanted = params["project_ids"].split(",")
        rows = [(project_id, "br-%s-%d" % (project_id, number)) for project_id in sorted(self.project_ids)
                if project_id in wanted for number in range(3)]
        if "branch_ids" in params:
            rows = [row for row in rows if row[1] in params["branch_ids"].split(",")]
        if "cursor" in params:
            rows = rows[["%s/%s" % row for row in rows].index(params["cursor"]) + 1:]
        page = rows[:int(params["limit"])]
        answer = {"branches": [{"project_id": project_id, "branch_id": branch_id, "periods": [{
            "period_id": "x", "period_plan": "scale", "period_start": "2025-05-01T00:00:00Z", "consumption": [
                {"metrics": [{"metric_name": "compute_unit_seconds", "value": 1}]}]}]} for project_id, branch_id in page]}
        if page:
            answer["pagination"] = {"cursor": "%s/%s" % page[-1]}
        return answer


def test_branches_are_read_per_project_chunk_every_page_with_the_branch_filter(monkeypatch):
    clock = FakeClock(start=0.0)
    service = BranchService(["p-%03d" % number for number in range(400)], clock)
    monkeypatch.setattr(consumption, "BRANCH_PAGE_MAX", 250)  # pages of 250 rows: 300 rows a request, two pages
    reader = ConsumptionReader(service, at(2025, 5, 1), NOW, "monthly", "org-1", pacer=Pacer(clock, clock.sleep),
                               scope="branches")
    read = reader.branches(["p-%03d" % number for number in range(350)])
    assert len(read["branches"]) == 1050 and read["totals"] == dict(
        dict.fromkeys(consumption.BRANCH_METRICS, 0), compute_unit_seconds=1050)
    calls = [(path, len(params["project_ids"].split(",")), params.get("cursor"), str(params["limit"]))
             for _moment, path, params in service.calls]
    # 350 projects, 100 a request; 300 rows a request: a full page of 250 and a short one, whose end ends it
    path = "/consumption_history/v2/branches"
    assert calls == [(path, 100, None, "250"), (path, 100, "p-083/br-p-083-0", "250"),
                     (path, 100, None, "250"), (path, 100, "p-183/br-p-183-0", "250"),
                     (path, 100, None, "250"), (path, 100, "p-283/br-p-283-0", "250"),
                     (path, 50, None, "250")]
    assert service.calls[0][2]["metrics"] == ",".join(consumption.BRANCH_METRICS)
    picked = ConsumptionReader(service, at(2025, 5, 1), NOW, "monthly", "org-1", pacer=Pacer(clock, clock.sleep),
                               scope="branches").branches(["p-001"], ["br-p-001-2"])
    assert [(row["project_id"], row["branch_id"]) for row in picked["branches"]] == [("p-001", "br-p-001-2")]
    assert service.calls[-1][2]["branch_ids"] == "br-p-001-2"
