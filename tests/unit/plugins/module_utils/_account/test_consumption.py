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
    account_answer,
    chunks,
    earliest,
    metrics_problem,
    next_cursor,
    not_answered,
    options_problem,
    pace,
    parse_time,
    projects_answer,
    range_problem,
    report,
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
    assert metrics_problem(None, False) is None and metrics_problem(["logical_size_bytes"], True) is None
    problem = metrics_problem(["logical_size_bytes", "compute_time_seconds"], False)
    assert problem.startswith("metrics logical_size_bytes is not read for the account")


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
            "consumption": [dict(timeframe_start=start, timeframe_end="t", **values) for start, values in frames]}


def test_totals_add_up_times_and_bytes_and_take_the_largest_size():
    metrics = ["compute_time_seconds", "synthetic_storage_size_bytes"]
    first = [period(("d1", {"compute_time_seconds": 10, "synthetic_storage_size_bytes": 500}),
                    ("d2", {"compute_time_seconds": 5, "synthetic_storage_size_bytes": 700}))]
    second = [period(("d1", {"compute_time_seconds": 1, "synthetic_storage_size_bytes": 400}),
                     ("d2", {"compute_time_seconds": 2, "synthetic_storage_size_bytes": 100}))]
    assert totals([first], metrics) == {"compute_time_seconds": 15, "synthetic_storage_size_bytes": 700}
    # Two projects: sizes add up within a timeframe (d1: 900, d2: 800), and the largest of those is the total.
    assert totals([first, second], metrics) == {"compute_time_seconds": 18, "synthetic_storage_size_bytes": 900}
    assert totals([], metrics) == {"compute_time_seconds": 0, "synthetic_storage_size_bytes": 0}


def test_an_answer_without_a_metric_asked_for_or_with_a_wrong_type_is_refused():
    good = {"projects": [{"project_id": "p-1", "periods": [period(("d1", {"compute_time_seconds": 1}))]}],
            "pagination": {"cursor": "p-1"}}
    assert projects_answer(good, "/c", ["compute_time_seconds"])[1] == "p-1"
    with pytest.raises(UnexpectedAnswer, match="written_data_bytes is missing"):
        projects_answer(good, "/c", ["written_data_bytes"])
    bad = {"projects": [{"project_id": "p-1", "periods": [period(("d1", {"compute_time_seconds": "1"}))]}]}
    with pytest.raises(UnexpectedAnswer, match="compute_time_seconds must be an integer"):
        projects_answer(bad, "/c", ["compute_time_seconds"])
    with pytest.raises(UnexpectedAnswer, match="projects is missing"):
        projects_answer({"periods": []}, "/c", ["compute_time_seconds"])


def test_an_optional_metric_missing_from_a_timeframe_is_taken_and_counts_as_zero():
    # ConsumptionHistoryPerTimeframe requires the four default metrics only: data_storage_bytes_hour,
    # logical_size_bytes and logical_size_bytes_hour may be missing from an answer that follows the contract.
    asked = ["compute_time_seconds", "data_storage_bytes_hour", "logical_size_bytes", "logical_size_bytes_hour"]
    periods = [period(("d1", {"compute_time_seconds": 7}), ("d2", {"compute_time_seconds": 1, "logical_size_bytes": 30}))]
    answer = {"projects": [{"project_id": "p-1", "periods": periods}]}
    projects, _cursor = projects_answer(answer, "/c", asked)
    assert totals([projects[0]["periods"]], asked) == {"compute_time_seconds": 8, "data_storage_bytes_hour": 0,
                                                       "logical_size_bytes": 30, "logical_size_bytes_hour": 0}
    assert account_answer({"periods": [period(("d1", {"compute_time_seconds": 7}))]}, "/a",
                          ["compute_time_seconds", "data_storage_bytes_hour"])[0]["consumption"][0][
                              "compute_time_seconds"] == 7
    with pytest.raises(UnexpectedAnswer, match="data_storage_bytes_hour must be an integer"):
        account_answer({"periods": [period(("d1", {"compute_time_seconds": 7, "data_storage_bytes_hour": "1"}))]},
                       "/a", ["compute_time_seconds", "data_storage_bytes_hour"])
    with pytest.raises(UnexpectedAnswer, match="compute_time_seconds is missing"):  # a required one asked for
        account_answer({"periods": [period(("d1", {"data_storage_bytes_hour": 7}))]}, "/a",
                       ["compute_time_seconds", "data_storage_bytes_hour"])


# ---------------------------------------------------------------------------------------------- the task's options


def given(**options):
    """consumption_info's options as Ansible gives them."""
    return dict({"from": "2025-06-01", "to": None, "granularity": "daily", "scope": "projects", "project_ids": None,
                 "org_id": None, "metrics": None}, **options)


@pytest.mark.parametrize("options, words", [
    (given(**{"from": "last tuesday"}), "from must be an ISO 8601 date-time"),
    (given(to="soon"), "to must be an ISO 8601 date-time"),
    (given(scope="account", project_ids=["p-1"]), "project_ids needs scope=projects"),
    (given(granularity="hourly"), "granularity hourly reaches only the last 168 hours"),
    (given(scope="account", metrics=["logical_size_bytes"]), "is not read for the account"),
    (given(to="2025-05-01"), "is after to"),
])
def test_options_the_service_would_refuse_are_named(options, words):
    assert words in options_problem(options, NOW)


def test_options_within_reach_are_taken():
    assert options_problem(given(), NOW) is None
    assert options_problem(given(scope="account", to="2025-06-02T00:00:00+02:00"), NOW) is None


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
    assert result["warnings"] == ["The service answered no consumption for p-9 (not a project of the account, or "
                                  "no such project)"]
    assert result["changed"] is False and result["range"] == {
        "from": "2025-06-01T00:00:00Z", "to": "2025-06-15T12:30:00Z", "granularity": "daily"}


# ---------------------------------------------------------------------------------------------- the reader


class ConsumptionService:
    """A client-level fake of GET /consumption_history/projects: the projects in order, the cursor the page's last
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
                 "active_time_seconds": 1, "compute_time_seconds": 2, "written_data_bytes": 3,
                 "synthetic_storage_size_bytes": 4}
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
    assert read["totals"]["compute_time_seconds"] == 500 and read["totals"]["synthetic_storage_size_bytes"] == 1000


def test_a_hundred_project_ids_a_request_and_no_empty_page_after_a_chunk_read_whole():
    clock = FakeClock(start=0.0)
    service = ConsumptionService(["p-%03d" % number for number in range(300)], clock)
    asked = ["p-%03d" % number for number in range(0, 300, 2)] + ["p-000"]  # 150 ids, one repeated
    read = reader_of(service, clock).projects(asked)
    assert [len(params["project_ids"].split(",")) for _moment, _path, params in service.calls] == [100, 50]
    assert len(read["projects"]) == 150
    assert reader_of(service, clock).projects([]) == {"projects": [], "totals": dict.fromkeys(
        consumption.DEFAULT_METRICS, 0)} and len(service.calls) == 2  # an empty list asks nothing


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
    ConsumptionReader(service, at(2025, 5, 1), NOW, "monthly").projects()
    moments = [moment for moment, _path, _params in service.calls]
    assert moments == [0.0] * 5 + [pytest.approx(2.4 * number) for number in range(1, 4)]
    assert clock.sleeps == [pytest.approx(2.4)] * 3  # the client's sleep: nothing slept in real time
