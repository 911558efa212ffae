# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""An organization's consumption history (``neon.cloud.consumption_info``): the range checks, the pages, the pace.

The service's facts (docs/docsite/rst/api-behaviour.rst, "Consumption"): ``GET /consumption_history/v2/projects``
answers the organization's projects, a page of at most 100 at a time (newest first; ``project_ids``, at most 100 a
request, narrow it), each with its billing periods and their timeframes' metrics; ``GET
/consumption_history/v2/branches`` answers the same per branch of the projects named in ``project_ids`` (required,
1 to 100 a request; ``branch_ids``, at most 100, narrow it), a page of at most 1000 rows. Both require ``org_id``,
``metrics`` (a list; per branch six of the eight), ``from``, ``to`` and ``granularity``, and refuse (HTTP 406) a range
the granularity does not reach: hourly the last 168 hours, daily the last 60 days, monthly the past year, nothing
before 2024-03-01. A timeframe's metrics are a list of ``{metric_name, value}``. The older account endpoint (``GET
/consumption_history/account``) was deprecated in June 2026 and removed in August: nothing here reads it. The pace
is the one the older endpoints needed, about 30 requests a minute per account (a token bucket), past which the
service answers 429.

So the reader checks the options and the range before any request (``report``: the same rule as the
service's, on this machine's clock), asks for full pages, splits ``project_ids`` into requests of 100, follows
every cursor to the end, and paces its requests under the rate limit with a token bucket of its own
(``Pacer``): a burst, then one request every few seconds. The pace holds within one task (one reader): tasks
run at the same time on one account (a loop's items run one after the other are paced each on its own, forks
at once are not paced together) each have their own bucket, and a 429 that comes of that is the client's to
retry (_api/client.py). The decisions are pure functions, unit-tested; the pacer's clock and pause are the
client's (``client.clock``, ``client.sleep``), so a test drives them through the client it builds. A metric the
collection does not know yet (a name the service adds) is taken as it comes and added up in the totals.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import calendar
import re
import time

from ansible_collections.neon.cloud.plugins.module_utils._api.answers import Checker
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import PaginationError, TaskFailure
from ansible_collections.neon.cloud.plugins.module_utils._api.timestamps import timestamp

PROJECTS_PATH = "/consumption_history/v2/projects"
BRANCHES_PATH = "/consumption_history/v2/branches"
SCOPES = ("projects", "branches")
GRANULARITIES = ("hourly", "daily", "monthly")
# How far back each granularity reaches: the timeframe holding (now - this) is the earliest one (the times are
# rounded down to the granularity before they are compared); monthly: the month a year before now.
WINDOWS = {"hourly": (168 * 3600, "the last 168 hours"), "daily": (60 * 86400, "the last 60 days"),
           "monthly": (None, "the past year")}
HISTORY_START = calendar.timegm((2024, 3, 1, 0, 0, 0))
PAGE_MAX = 100  # projects a page: limit 1-100
BRANCH_PAGE_MAX = 1000  # branches a page: limit 1-1000
PROJECT_IDS_MAX = 100  # project ids a request
BRANCH_IDS_MAX = 100  # branch ids a request
MAX_PAGES = 1000  # no account has more projects than this many full pages; a list going on past it is broken
# The service's limit, about 30 requests a minute per account for both endpoints; the reader's own pace stays
# under it: a burst of PACE_BURST requests, then PACE_PER_MINUTE a minute, so that no 60 seconds hold more than
# PACE_BURST + PACE_PER_MINUTE = SERVICE_PER_MINUTE requests, whatever the size of the service's own burst.
SERVICE_PER_MINUTE = 30
PACE_PER_MINUTE = 25.0
PACE_BURST = 5.0
# The metrics (the June 2026 document); the per-branch endpoint takes the first six. Every one adds up over time
# (seconds, byte-months, bytes moved, branch-months), so a total is a sum.
PROJECT_METRICS = ("compute_unit_seconds", "root_branch_bytes_month", "child_branch_bytes_month",
                   "instant_restore_bytes_month", "public_network_transfer_bytes", "private_network_transfer_bytes",
                   "extra_branches_month", "snapshot_storage_bytes_month")
BRANCH_METRICS = PROJECT_METRICS[:6]
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


def metrics_of(scope):
    """The metrics ``scope`` (projects, branches) reads, and reads all of when none are asked for."""
    return BRANCH_METRICS if scope == "branches" else PROJECT_METRICS


def metrics_problem(metrics, scope):
    """Why the service would refuse ``metrics`` for ``scope`` (projects, branches), or None."""
    allowed = metrics_of(scope)
    unknown = [metric for metric in metrics or () if metric not in allowed]
    if not unknown:
        return None
    return "metrics %s %s not read per %s; the metrics are %s" % (
        ", ".join(unknown), "is" if len(unknown) == 1 else "are", scope[:-1], ", ".join(allowed))


def frame_values(frame):
    """A timeframe's metrics as a dict, name -> value (its ``metrics`` list of ``{metric_name, value}``)."""
    values = {}
    for item in frame.get("metrics") or ():
        values[item["metric_name"]] = values.get(item["metric_name"], 0) + item["value"]
    return values


def totals(period_lists, metrics):
    """Each metric over every timeframe of the ``period_lists`` (one list of periods per project or branch): the
    sum, from 0 for each of ``metrics``; a metric the service answered that is not among them (one it added) is
    summed too."""
    result = dict((metric, 0) for metric in metrics)
    for periods in period_lists:
        for period in periods:
            for frame in period["consumption"]:
                for metric, value in frame_values(frame).items():
                    result[metric] = result.get(metric, 0) + value
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


def checked_periods(check, periods, where):
    """ConsumptionHistoryPerPeriodV2 objects, each with its timeframes, and in them each metric a name and an integer
    (the totals add them); the timeframe's times are optional in the schema, as they come."""
    period_fields = {"period_id": (str,), "period_plan": (str,), "period_start": (str,), "consumption": (list,)}
    check.each(check.list(periods, where), where, required=period_fields, optional={"period_end": (str,)})
    for index, period in enumerate(periods):
        at = "%s[%d].consumption" % (where, index)
        check.each(period["consumption"], at, optional={"timeframe_start": (str,), "timeframe_end": (str,),
                                                        "metrics": (list,)})
        for number, frame in enumerate(period["consumption"]):
            check.each(frame.get("metrics") or [], "%s[%d].metrics" % (at, number),
                       required={"metric_name": (str,), "value": (int,)})
    return periods


def rows_answer(data, path, scope):
    """ConsumptionHistoryPerProjectV2Response (``scope`` projects) or ConsumptionHistoryPerBranchV2Response
    (branches) with its pagination: (rows, cursor), checked."""
    check = Checker("GET", path)
    check.object(data)
    if scope not in data:
        check.fail(scope, "is missing")
    required = {"project_id": (str,), "periods": (list,)}
    if scope == "branches":
        required["branch_id"] = (str,)
    rows = check.each(check.list(data[scope], scope), scope, required=required)
    for index, item in enumerate(rows):
        checked_periods(check, item["periods"], "%s[%d].periods" % (scope, index))
    pagination = data.get("pagination")
    cursor = None
    if pagination is not None:
        check.fields(pagination, "pagination", optional={"cursor": (str,)})
        cursor = pagination.get("cursor")
    return rows, cursor or None


# ---------------------------------------------------------------------------------------------- reading


def row_key(item):
    """What names a row: its project, and its branch in a per-branch answer."""
    return (item["project_id"], item["branch_id"]) if "branch_id" in item else item["project_id"]


class ConsumptionReader:
    """Reads the consumption of one range of an organization: every page of its projects' or of the named projects'
    branches', paced on the client's clock (``pacer``: a Pacer of its own otherwise)."""

    def __init__(self, client, start, end, granularity, org_id, metrics=None, pacer=None, scope="projects"):
        self.client = client
        self.scope = scope
        self.metrics = list(metrics or metrics_of(scope))
        self.query = {"from": iso(start), "to": iso(end), "granularity": granularity, "org_id": org_id,
                      "metrics": ",".join(self.metrics)}
        self.pacer = pacer or Pacer(client.clock, client.sleep)
        self.requests = 0

    def _get(self, path, params):
        self.pacer.wait()
        self.requests += 1
        return self.client.get(path, params=params)

    def _pages(self, path, params, limit, chunk, seen, read):
        """Every page of one request's list into ``read`` (its rows, each with its totals)."""
        cursor, used = None, set()
        for _page in range(MAX_PAGES):
            items, answered = rows_answer(self._get(path, dict(params, limit=limit, cursor=cursor)), path, self.scope)
            for item in items:
                key = row_key(item)
                if key in seen:
                    raise PaginationError(path, "the service answered %s %s twice (cursor %s): the list does not "
                                          "advance" % (self.scope[:-1], "/".join(key) if isinstance(key, tuple) else key,
                                                       cursor))
                seen.add(key)
                row = dict((name, item[name]) for name in ("project_id", "branch_id") if name in item)
                row.update(periods=item["periods"], totals=totals([item["periods"]], self.metrics))
                read.append(row)
            cursor, problem = next_cursor(len(items), limit, answered, used, chunk, seen)
            if problem:
                raise PaginationError(path, problem)
            if cursor is None:
                return
            used.add(cursor)
        raise PaginationError(path, "gave up after %d pages; the list does not end" % MAX_PAGES)

    def projects(self, project_ids=None):
        """Every project's periods and totals (of ``project_ids``, when not None, 100 a request: none for an empty
        list), every page read; and the totals of them all."""
        read, seen = [], set()
        for chunk in [None] if project_ids is None else chunks(unique(project_ids)):
            params = dict(self.query, project_ids=",".join(chunk) if chunk else None)
            self._pages(PROJECTS_PATH, params, PAGE_MAX, chunk, seen, read)
        return {"projects": read, "totals": totals([item["periods"] for item in read], self.metrics)}

    def branches(self, project_ids, branch_ids=None):
        """Every branch's periods and totals of the projects ``project_ids`` (100 a request) and, when given, of
        ``branch_ids`` only; every page read; and the totals of them all."""
        read, seen = [], set()
        for chunk in chunks(unique(project_ids)):
            params = dict(self.query, project_ids=",".join(chunk),
                          branch_ids=",".join(unique(branch_ids)) if branch_ids else None)
            self._pages(BRANCHES_PATH, params, BRANCH_PAGE_MAX, None, seen, read)
        return {"branches": read, "totals": totals([item["periods"] for item in read], self.metrics)}


# ---------------------------------------------------------------------------------------------- the task


def time_problem(name, value):
    """Why ``value`` of option ``name`` is no time a range can start or end at, or None."""
    if parse_time(value) is not None:
        return None
    return "%s must be an ISO 8601 date-time such as 2025-05-01T00:00:00Z, or a date such as 2025-05-01; got %r" % (
        name, value)


def options_problem(options, now):
    """Why consumption_info's ``options`` (``from``, ``to``, ``granularity``, ``scope``, ``org_id``, ``project_ids``,
    ``branch_ids``, ``metrics``) cannot be read at ``now`` (seconds since the epoch), or None: what the service would
    refuse, in words that name the option or the limit."""
    problem = time_problem("from", options["from"])
    if problem is None and options.get("to") is not None:
        problem = time_problem("to", options["to"])
    if problem:
        return problem
    scope = options["scope"]
    if scope == "branches" and options.get("project_ids") is None:
        return "scope=branches needs project_ids: the service reads the branches of the projects named (100 a " \
            "request); neon.cloud.projects_info lists an organization's projects"
    if options.get("branch_ids") is not None and scope != "branches":
        return "branch_ids needs scope=branches"
    if len(unique(options.get("branch_ids") or [])) > BRANCH_IDS_MAX:
        return "branch_ids: at most %d branch ids, got %d" % (BRANCH_IDS_MAX, len(unique(options["branch_ids"])))
    start, end = time_range(options, now)
    return range_problem(start, end, options["granularity"], now) or metrics_problem(options.get("metrics"), scope)


def time_range(options, now):
    """(from, to) of ``options`` in seconds since the epoch; ``to`` is ``now`` when not given."""
    return parse_time(options["from"]), parse_time(options["to"]) if options.get("to") is not None else now


def not_answered(project_ids, rows):
    """The ids of ``project_ids`` (None: every project, so none) that ``rows`` (as read) do not hold, in order."""
    answered = set(item["project_id"] for item in rows)
    return [project_id for project_id in unique(project_ids or []) if project_id not in answered]


def report(client, options, now=None):
    """consumption_info's result for its ``options``: a TaskFailure, before any request, for options the service
    would refuse (``options_problem``, on this machine's clock unless ``now`` is given); else the consumption read
    (``projects`` or ``branches``, and ``totals``), the range as asked, and a warning naming the project ids the
    service answered nothing for."""
    now = time.time() if now is None else now
    problem = options_problem(options, now)
    if problem:
        raise TaskFailure(problem, changed=False)
    start, end = time_range(options, now)
    scope = options["scope"]
    reader = ConsumptionReader(client, start, end, options["granularity"], options["org_id"],
                               options.get("metrics"), scope=scope)
    if scope == "branches":
        result = reader.branches(options["project_ids"], options.get("branch_ids"))
    else:
        result = reader.projects(options.get("project_ids"))
    missing = not_answered(options.get("project_ids"), result[scope])
    if missing:
        result["warnings"] = ["The service answered no consumption for %s (not a project of organization %s, no such "
                              "project%s)" % (", ".join(missing), options["org_id"],
                                              ", or none of its branches asked for" if scope == "branches" else "")]
    return dict(result, changed=False, range={"from": reader.query["from"], "to": reader.query["to"],
                                              "granularity": options["granularity"]})
