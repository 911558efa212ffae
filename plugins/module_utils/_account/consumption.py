# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""An account's consumption history (``neon.cloud.consumption_info``): the range checks, the pages, the pace.

The service's facts (docs/docsite/rst/api-behaviour.rst, "Consumption"): ``GET /consumption_history/account``
answers the account's billing periods, each with its timeframes' metrics; ``GET /consumption_history/projects``
answers the same per project, a page of at most 100 projects at a time (the cursor is the page's last project
id) for at most 100 ``project_ids`` a request. Both take ``from``, ``to`` and ``granularity``, and refuse (HTTP
406) a range the granularity does not reach: hourly the last 168 hours, daily the last 60 days, monthly the
past year, nothing before 2024-03-01. They share a rate limit of about 30 requests a minute per account (a token
bucket), past which they answer 429. They are the older ("legacy") endpoints: on usage-based plans their
figures do not match the invoice.

So the reader checks the options and the range before any request (``report``: the same rule as the
service's, on this machine's clock), asks for full pages, splits ``project_ids`` into requests of 100, follows
every cursor to the end, and paces its requests under the rate limit with a token bucket of its own
(``Pacer``): a burst, then one request every few seconds. The pace holds within one task (one reader): tasks
run at the same time on one account (a loop's items run one after the other are paced each on its own, forks
at once are not paced together) each have their own bucket, and a 429 that comes of that is the client's to
retry (_api/client.py). The decisions are pure functions, unit-tested; the pacer's clock and pause are the
client's (``client.clock``, ``client.sleep``), so a test drives them through the client it builds.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import calendar
import re
import time

from ansible_collections.neon.cloud.plugins.module_utils._api.answers import Checker
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import PaginationError, TaskFailure
from ansible_collections.neon.cloud.plugins.module_utils._api.timestamps import timestamp

ACCOUNT_PATH = "/consumption_history/account"
PROJECTS_PATH = "/consumption_history/projects"
GRANULARITIES = ("hourly", "daily", "monthly")
# How far back each granularity reaches: the timeframe holding (now - this) is the earliest one (the times are
# rounded down to the granularity before they are compared); monthly: the month a year before now.
WINDOWS = {"hourly": (168 * 3600, "the last 168 hours"), "daily": (60 * 86400, "the last 60 days"),
           "monthly": (None, "the past year")}
HISTORY_START = calendar.timegm((2024, 3, 1, 0, 0, 0))
PAGE_MAX = 100  # projects a page: limit 1-100
PROJECT_IDS_MAX = 100  # project ids a request
MAX_PAGES = 1000  # no account has more projects than this many full pages; a list going on past it is broken
# The service's limit, about 30 requests a minute per account for both endpoints; the reader's own pace stays
# under it: a burst of PACE_BURST requests, then PACE_PER_MINUTE a minute, so that no 60 seconds hold more than
# PACE_BURST + PACE_PER_MINUTE = SERVICE_PER_MINUTE requests, whatever the size of the service's own burst.
SERVICE_PER_MINUTE = 30
PACE_PER_MINUTE = 25.0
PACE_BURST = 5.0
ACCOUNT_METRICS = ("active_time_seconds", "compute_time_seconds", "written_data_bytes",
                   "synthetic_storage_size_bytes", "data_storage_bytes_hour")
PROJECT_METRICS = ACCOUNT_METRICS + ("logical_size_bytes", "logical_size_bytes_hour")
DEFAULT_METRICS = ACCOUNT_METRICS[:4]  # what the service answers when none are asked for
# What ConsumptionHistoryPerTimeframe requires (the OpenAPI document): the four default metrics. The others
# (data_storage_bytes_hour, logical_size_bytes, logical_size_bytes_hour) are optional: a timeframe without one
# is taken as it is, and counts as 0 in the totals.
REQUIRED_METRICS = DEFAULT_METRICS
# Sizes at a moment: their total over a range is the largest value seen, not a sum.
SIZE_METRICS = ("synthetic_storage_size_bytes", "logical_size_bytes")
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_HOUR = 3600
_DAY = 86400


# ---------------------------------------------------------------------------------------------- times


def parse_time(value):
    """Seconds since the epoch of an ISO 8601 date-time (``Z`` or an offset) or a date (midnight UTC), else None."""
    match = _DATE.match(value or "")
    if match:
        value = "%sT00:00:00Z" % value
    return timestamp(value)


def iso(seconds):
    """``2025-05-01T00:00:00Z``: what the requests send (whole seconds, UTC)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(seconds)))


def _month_start(seconds, years_back=0):
    year, month = time.gmtime(int(seconds))[:2]
    return calendar.timegm((year - years_back, month, 1, 0, 0, 0))


def round_down(seconds, granularity):
    """The start of the timeframe of ``granularity`` holding ``seconds`` (as the service rounds)."""
    seconds = int(seconds // 1)
    if granularity == "hourly":
        return seconds - seconds % _HOUR
    if granularity == "daily":
        return seconds - seconds % _DAY
    return _month_start(seconds)


def earliest(now, granularity):
    """The start of the earliest timeframe ``granularity`` reaches at ``now``."""
    seconds, _words = WINDOWS[granularity]
    if seconds is None:
        return _month_start(now, years_back=1)
    return round_down(now - seconds, granularity)


def range_problem(start, end, granularity, now):
    """Why the service would refuse the range ``start``-``end`` (seconds) at ``granularity``, naming the limit;
    or None."""
    if start > end:
        return "from (%s) is after to (%s)" % (iso(start), iso(end))
    if round_down(start, granularity) < HISTORY_START:
        return "from (%s) is before %s: the consumption history starts then" % (iso(start), iso(HISTORY_START))
    first = earliest(now, granularity)
    if round_down(start, granularity) < first:
        return "granularity %s reaches only %s: from (%s) is before %s, the start of the earliest %s timeframe; " \
            "give a later from or a coarser granularity" % (
                granularity, WINDOWS[granularity][1], iso(start), iso(first), granularity)
    return None


# ---------------------------------------------------------------------------------------------- metrics


def metrics_problem(metrics, per_project):
    """Why the service would refuse ``metrics`` for the account (``per_project`` false) or its projects, or None."""
    allowed = PROJECT_METRICS if per_project else ACCOUNT_METRICS
    unknown = [metric for metric in metrics or () if metric not in allowed]
    if not unknown:
        return None
    return "metrics %s %s not read for %s; the metrics are %s" % (
        ", ".join(unknown), "is" if len(unknown) == 1 else "are", "projects" if per_project else "the account",
        ", ".join(allowed))


def totals(period_lists, metrics):
    """Each metric over every timeframe of the ``period_lists`` (one list of periods per project, or the
    account's): the sum; but a size (``SIZE_METRICS``) is the largest of its timeframes' sums over the lists,
    as the storage of several projects at one time adds up and a size does not add up over time."""
    result = dict((metric, 0) for metric in metrics)
    sizes = {}  # (metric, timeframe_start) -> the sum over the lists
    for periods in period_lists:
        for period in periods:
            for frame in period["consumption"]:
                for metric in metrics:
                    value = frame.get(metric, 0)
                    if metric in SIZE_METRICS:
                        key = (metric, frame["timeframe_start"])
                        sizes[key] = sizes.get(key, 0) + value
                    else:
                        result[metric] += value
    for (metric, _start), value in sizes.items():
        result[metric] = max(result[metric], value)
    return result


# ---------------------------------------------------------------------------------------------- requests and pages


def unique(values):
    """``values`` without repeats, in their order."""
    seen = set()
    return [value for value in values if not (value in seen or seen.add(value))]


def chunks(values, size=PROJECT_IDS_MAX):
    """``values`` in lists of at most ``size``, in order."""
    return [values[index:index + size] for index in range(0, len(values), size)]


def next_cursor(count, limit, cursor, used, chunk, seen):
    """What follows a page of ``count`` projects asked with ``limit`` that answered ``cursor``: (the cursor of
    the next page, None) to go on, (None, None) at the end, or (None, a problem) when the list cannot advance.

    The end: a page with fewer projects than asked for, or every project of ``chunk`` (the ``project_ids`` the
    request asked for) already read (``seen``). A full page without a cursor, or with one already used, cannot
    be followed."""
    if count < limit or (chunk and all(project_id in seen for project_id in chunk)):
        return None, None
    if not cursor:
        return None, "the service answered a full page of %d projects without a pagination cursor" % limit
    if cursor in used:
        return None, "the service answered cursor %s twice: the list does not advance" % cursor
    return cursor, None


def pace(tokens, elapsed, rate, burst):
    """A token bucket's decision for one request: (seconds to pause first, tokens left after it). ``tokens``:
    what was left after the last request, ``elapsed`` seconds ago; ``rate`` tokens a second, up to ``burst``."""
    tokens = min(burst, tokens + max(0.0, elapsed) * rate)
    if tokens >= 1.0:
        return 0.0, tokens - 1.0
    return (1.0 - tokens) / rate, 0.0


class Pacer:
    """Paces one reader's requests under the consumption endpoints' rate limit: PACE_BURST at once, then
    PACE_PER_MINUTE a minute, on ``clock`` (monotonic seconds) with ``sleep`` for the pauses: the client's
    (``client.clock``, ``client.sleep``). Another task has a bucket of its own: the pace holds within one task."""

    def __init__(self, clock, sleep, per_minute=PACE_PER_MINUTE, burst=PACE_BURST):
        self.rate = per_minute / 60.0
        self.burst = burst
        self.clock = clock
        self.sleep = sleep
        self.tokens = burst
        self.last = None
        self.paused = 0.0  # seconds paused in all

    def wait(self):
        """Pause until the next request may go; returns the pause."""
        now = self.clock()
        delay, self.tokens = pace(self.tokens, 0.0 if self.last is None else now - self.last, self.rate, self.burst)
        if delay > 0:
            self.sleep(delay)
            self.paused += delay
        self.last = now + delay
        return delay


# ---------------------------------------------------------------------------------------------- answers


def checked_periods(check, periods, where, metrics):
    """ConsumptionHistoryPerPeriod objects, each with its timeframes, and in them the ``metrics`` asked for that
    the schema requires (REQUIRED_METRICS); every metric there is an integer (the totals add them)."""
    period_fields = {"period_id": (str,), "period_plan": (str,), "period_start": (str,), "consumption": (list,)}
    check.each(check.list(periods, where), where, required=period_fields, optional={"period_end": (str,)})
    required = [metric for metric in metrics if metric in REQUIRED_METRICS]
    frame_fields = dict(required=dict((metric, (int,)) for metric in required),
                        optional=dict((metric, (int,)) for metric in PROJECT_METRICS if metric not in required))
    frame_fields["required"].update(timeframe_start=(str,), timeframe_end=(str,))
    for index, period in enumerate(periods):
        at = "%s[%d].consumption" % (where, index)
        check.each(period["consumption"], at, **frame_fields)
    return periods


def account_answer(data, path, metrics):
    """ConsumptionHistoryPerAccountResponse: its periods, checked."""
    check = Checker("GET", path)
    check.object(data)
    if "periods" not in data:
        check.fail("periods", "is missing")
    return checked_periods(check, data["periods"], "periods", metrics)


def projects_answer(data, path, metrics):
    """ConsumptionHistoryPerProjectResponse with its pagination: (projects, cursor), checked."""
    check = Checker("GET", path)
    check.object(data)
    if "projects" not in data:
        check.fail("projects", "is missing")
    projects = check.each(check.list(data["projects"], "projects"), "projects",
                          required={"project_id": (str,), "periods": (list,)})
    for index, item in enumerate(projects):
        checked_periods(check, item["periods"], "projects[%d].periods" % index, metrics)
    pagination = data.get("pagination")
    cursor = None
    if pagination is not None:
        check.fields(pagination, "pagination", optional={"cursor": (str,)})
        cursor = pagination.get("cursor")
    return projects, cursor or None


# ---------------------------------------------------------------------------------------------- reading


class ConsumptionReader:
    """Reads the consumption of one range: the account's (one request) or every page of its projects', paced on
    the client's clock (``pacer``: a Pacer of its own otherwise)."""

    def __init__(self, client, start, end, granularity, org_id=None, metrics=None, pacer=None):
        self.client = client
        self.metrics = list(metrics or DEFAULT_METRICS)
        self.query = {"from": iso(start), "to": iso(end), "granularity": granularity, "org_id": org_id,
                      "metrics": ",".join(metrics) if metrics else None}
        self.pacer = pacer or Pacer(client.clock, client.sleep)
        self.requests = 0

    def _get(self, path, params):
        self.pacer.wait()
        self.requests += 1
        return self.client.get(path, params=params)

    def account(self):
        """The account's periods and their totals."""
        periods = account_answer(self._get(ACCOUNT_PATH, self.query), ACCOUNT_PATH, self.metrics)
        return {"periods": periods, "totals": totals([periods], self.metrics)}

    def projects(self, project_ids=None):
        """Every project's periods and totals (of ``project_ids``, when not None, 100 a request: none for an empty
        list), every page read; and the totals of them all."""
        read, seen = [], set()
        for chunk in [None] if project_ids is None else chunks(unique(project_ids)):
            cursor, used = None, set()
            for _page in range(MAX_PAGES):
                params = dict(self.query, limit=PAGE_MAX, cursor=cursor, project_ids=",".join(chunk) if chunk else None)
                items, answered = projects_answer(self._get(PROJECTS_PATH, params), PROJECTS_PATH, self.metrics)
                for item in items:
                    if item["project_id"] in seen:
                        raise PaginationError(PROJECTS_PATH, "the service answered project %s twice (cursor %s): the "
                                              "list does not advance" % (item["project_id"], cursor))
                    seen.add(item["project_id"])
                    read.append({"project_id": item["project_id"], "periods": item["periods"],
                                 "totals": totals([item["periods"]], self.metrics)})
                cursor, problem = next_cursor(len(items), PAGE_MAX, answered, used, chunk, seen)
                if problem:
                    raise PaginationError(PROJECTS_PATH, problem)
                if cursor is None:
                    break
                used.add(cursor)
            else:
                raise PaginationError(PROJECTS_PATH, "gave up after %d pages; the list does not end" % MAX_PAGES)
        return {"projects": read, "totals": totals([item["periods"] for item in read], self.metrics)}


# ---------------------------------------------------------------------------------------------- the task


def time_problem(name, value):
    """Why ``value`` of option ``name`` is no time a range can start or end at, or None."""
    if parse_time(value) is not None:
        return None
    return "%s must be an ISO 8601 date-time such as 2025-05-01T00:00:00Z, or a date such as 2025-05-01; got %r" % (
        name, value)


def options_problem(options, now):
    """Why consumption_info's ``options`` (``from``, ``to``, ``granularity``, ``scope``, ``project_ids``,
    ``metrics``) cannot be read at ``now`` (seconds since the epoch), or None: what the service would refuse, in
    words that name the option or the limit."""
    problem = time_problem("from", options["from"])
    if problem is None and options.get("to") is not None:
        problem = time_problem("to", options["to"])
    if problem:
        return problem
    per_project = options["scope"] == "projects"
    if options.get("project_ids") is not None and not per_project:
        return "project_ids needs scope=projects: the account's consumption is of all its projects"
    start, end = time_range(options, now)
    return range_problem(start, end, options["granularity"], now) or \
        metrics_problem(options.get("metrics"), per_project)


def time_range(options, now):
    """(from, to) of ``options`` in seconds since the epoch; ``to`` is ``now`` when not given."""
    return parse_time(options["from"]), parse_time(options["to"]) if options.get("to") is not None else now


def not_answered(project_ids, projects):
    """The ids of ``project_ids`` (None: every project, so none) that ``projects`` (as read) do not hold, in order."""
    answered = set(item["project_id"] for item in projects)
    return [project_id for project_id in unique(project_ids or []) if project_id not in answered]


def report(client, options, now=None):
    """consumption_info's result for its ``options``: a TaskFailure, before any request, for options the service
    would refuse (``options_problem``, on this machine's clock unless ``now`` is given); else the consumption read
    (``projects`` or ``periods``, and ``totals``), the range as asked, and a warning naming the project ids the
    service answered nothing for."""
    now = time.time() if now is None else now
    problem = options_problem(options, now)
    if problem:
        raise TaskFailure(problem, changed=False)
    start, end = time_range(options, now)
    reader = ConsumptionReader(client, start, end, options["granularity"], options.get("org_id"),
                               options.get("metrics"))
    if options["scope"] != "projects":
        result = reader.account()
    else:
        result = reader.projects(options.get("project_ids"))
        missing = not_answered(options.get("project_ids"), result["projects"])
        if missing:
            result["warnings"] = ["The service answered no consumption for %s (not a project of the account, or no "
                                  "such project)" % ", ".join(missing)]
    return dict(result, changed=False, range={"from": reader.query["from"], "to": reader.query["to"],
                                              "granularity": options["granularity"]})
