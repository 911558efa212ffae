# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The consumption history (per project and per branch, and the older account and per project ones), paged and rate
limited: State's area (governance-recovery-api-notes.md section 9, "the notes"; the June 2026 OpenAPI document for
the current endpoints).

The area's object (state.consumption, given the shared data and helpers of shared.py): every ``api_*`` method takes the
authenticating key, holds the state's lock and answers JSON-like data; ``reset`` puts the seeded state back (a fresh rate limit).

What the notes give [SPEC, DOCS]: ``GET /consumption_history/account`` (``ConsumptionHistoryPerAccountResponse``)
and ``GET /consumption_history/projects`` (``ConsumptionHistoryPerProjectResponse`` with ``pagination``, cursor =
the page's last project id, ``limit`` 1-100 default 10, ``project_ids`` at most 100); ``from``, ``to`` and
``granularity`` required, both times rounded down to the granularity; hourly reaches back 168 hours, daily 60
days, monthly a year, and nothing before 2024-03-01T00:00:00Z (406 otherwise); 403 below the Scale plan; 404
for an ``org_id`` the account is not a member of; 429 past about 30 requests a minute per account, one token
bucket for both endpoints. Values are generated from the seed, the project and the timeframe, so every read
of one range answers the same; an account's value of a timeframe is the sum of its projects'.

The current endpoints (the June 2026 document; the account one is deprecated there and gone from August's):
``GET /consumption_history/v2/projects`` (``ConsumptionHistoryPerProjectV2Response`` with ``pagination``; ``limit``
1-100 default 10, ``project_ids`` optional, at most 100; pages in the projects' creation order, newest first) and
``GET /consumption_history/v2/branches`` (``ConsumptionHistoryPerBranchV2Response``; ``project_ids`` required, 1 to
100, ``branch_ids`` optional, at most 100, ``limit`` 1-1000 default 100; pages by project id, then branch id). Both
require ``org_id`` and ``metrics`` besides the range; a timeframe carries ``metrics``, a list of ``{metric_name,
value}`` in the order asked. Projects need the Launch, Scale, Agent, Business or Enterprise plan, branches a paid
usage-based Launch, Scale, Agent or Enterprise plan (403 otherwise). The ranges, 404 and 406 are the older ones'; they
share the older endpoints' token bucket.
"""

from __future__ import annotations

import calendar
import hashlib
import random
import time
import uuid

from .clock import iso_seconds, parse_timestamp
from .errors import Forbidden, InvalidRequest, NotAcceptable, NotFound, TooManyRequests
from .ids import ID_RE
from .records import ORGANIZATION_KEY, PERSONAL_KEY, PROJECT_KEY
from .ratelimit import RateLimiter

# ---------------------------------------------------------------------- CHOICES (the notes: unknown)
# The rate limit: 30 requests a minute per account (DOCS: "about 30"), bursts of 30, on the simulator's clock.
# The account is the caller's: the user of a personal key, the organization of an organization or project key.
# The 429 (none of its headers is documented) carries Retry-After, the whole seconds until the bucket holds a
# token again, as the simulator's other rate limits do; every request to either endpoint takes a token, before
# any other check.
RATE_PER_MINUTE = 30.0
RATE_BURST = 30.0
# Plans that read consumption (SPEC: Scale, Business, Enterprise). A personal account is on the free plan: 403.
CONSUMPTION_PLANS = ("scale", "scale_v3", "business", "enterprise", "direct_sales", "direct_sales_v3")
MESSAGE_PLAN = ("This endpoint is not available. It is only supported for Scale, Business, and Enterprise plan "
                "accounts (the account's plan: %s)")  # SPEC's 403 description, with the plan
MESSAGE_NOT_MEMBER = "account is not a member of organization %s"  # SPEC's 404 description
MESSAGE_TOO_MANY = "too many requests: the consumption endpoints allow %g requests a minute per account"
MESSAGE_WINDOW = ("the date-time range is outside the boundaries of the %s granularity: %s metrics are limited to %s "
                  "(from %s is before %s)")  # 406, after SPEC's description
MESSAGE_HISTORY = "the consumption history is available starting from 2024-03-01T00:00:00Z (from %s is before it)"
MESSAGE_ORDER = "from: must not be after to"  # 400
# What each granularity reaches back to: the timeframe holding (now - this) is the earliest allowed (the times are
# rounded down to the granularity before they are compared).
WINDOWS = {"hourly": (168 * 3600, "the last 168 hours"), "daily": (60 * 86400, "the last 60 days"),
           "monthly": (None, "the past year")}
HISTORY_START_US = calendar.timegm((2024, 3, 1, 0, 0, 0)) * 1000000
# The metrics: the four the schema requires are always in a timeframe, 0 when not asked for; an optional one only
# when asked for. The figures are as of the last refresh (DOCS: about every 15 minutes; here at every quarter hour of
# the simulator's clock): the current timeframe holds what was used up to it; a project's timeframes before it was
# made hold 0. So an answer about the past is the same every time, and one about now changes each quarter hour.
REFRESH_US = 15 * 60 * 1000000
ACCOUNT_METRICS = ("active_time_seconds", "compute_time_seconds", "written_data_bytes",
                   "synthetic_storage_size_bytes", "data_storage_bytes_hour")
PROJECT_METRICS = ACCOUNT_METRICS + ("logical_size_bytes", "logical_size_bytes_hour")
DEFAULT_METRICS = ACCOUNT_METRICS[:4]
PROJECTS_LIMIT = (1, 100, 10)
PROJECT_IDS_MAX = 100
# The current (v2) endpoints (the June 2026 document): their metrics, the per-branch one's six, its page size, and
# the plans that answer each (the document's 403 descriptions; "agent" and "enterprise" as the plans are named).
V2_METRICS = ("compute_unit_seconds", "root_branch_bytes_month", "child_branch_bytes_month",
              "instant_restore_bytes_month", "public_network_transfer_bytes", "private_network_transfer_bytes",
              "extra_branches_month", "snapshot_storage_bytes_month")
V2_BRANCH_METRICS = V2_METRICS[:6]
BRANCHES_LIMIT = (1, 1000, 100)
BRANCH_IDS_MAX = 100
V2_PROJECT_PLANS = ("launch", "launch_v3", "scale", "scale_v3", "agent", "business", "enterprise", "direct_sales",
                    "direct_sales_v3")
V2_BRANCH_PLANS = tuple(plan for plan in V2_PROJECT_PLANS if plan != "business")
MESSAGE_V2_PLAN = ("Not available for this account. %s consumption history requires a %s plan (the account's plan: "
                   "%s)")
MESSAGE_V2_REQUIRED = "%s: query parameter is required"
# Billing periods are calendar months; ``period_end`` only for a period that has ended (SPEC: "past periods only").
_HOUR_US = 3600 * 1000000
_DAY_US = 24 * _HOUR_US


# ---------------------------------------------------------------------- time


def _month_start(us):
    year, month = time.gmtime(us // 1000000)[:2]
    return calendar.timegm((year, month, 1, 0, 0, 0)) * 1000000


def _next_month(us):
    year, month = time.gmtime(us // 1000000)[:2]
    year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return calendar.timegm((year, month, 1, 0, 0, 0)) * 1000000


def round_down(us, granularity):
    if granularity == "hourly":
        return us - us % _HOUR_US
    if granularity == "daily":
        return us - us % _DAY_US
    return _month_start(us)


def next_start(us, granularity):
    if granularity == "hourly":
        return us + _HOUR_US
    if granularity == "daily":
        return us + _DAY_US
    return _next_month(us)


def earliest(now_us, granularity):
    """The start of the earliest timeframe ``granularity`` may ask for at ``now_us``."""
    seconds, _words = WINDOWS[granularity]
    if seconds is None:  # monthly: the month a year ago
        year, month = time.gmtime(now_us // 1000000)[:2]
        return calendar.timegm((year - 1, month, 1, 0, 0, 0)) * 1000000
    return round_down(now_us - seconds * 1000000, granularity)


def check_range(from_us, to_us, granularity, now_us):
    """Refuse a range the service refuses: InvalidRequest (from after to) or NotAcceptable (406)."""
    if from_us > to_us:
        raise InvalidRequest(MESSAGE_ORDER)
    start = round_down(from_us, granularity)
    if start < HISTORY_START_US:
        raise NotAcceptable(MESSAGE_HISTORY % iso_seconds(from_us))
    first = earliest(now_us, granularity)
    if start < first:
        raise NotAcceptable(MESSAGE_WINDOW % (granularity, granularity, WINDOWS[granularity][1], iso_seconds(from_us),
                                              iso_seconds(first)))


def timeframes(from_us, to_us, granularity, now_us):
    """(start, end) of every timeframe from the rounded ``from`` up to ``to``, none starting after now."""
    frames = []
    start = round_down(from_us, granularity)
    while start < to_us and start <= now_us:
        end = next_start(start, granularity)
        frames.append((start, end))
        start = end
    return frames


# ---------------------------------------------------------------------- values


def usage(seed_value, project_id, created_us, granularity, start_us, end_us, now_us):
    """Every metric of one project in one timeframe, as of the last refresh before ``now_us``: the same for the same
    arguments."""
    values = dict.fromkeys(PROJECT_METRICS, 0)
    as_of = now_us - now_us % REFRESH_US
    if end_us <= created_us or start_us >= as_of:
        return values
    length = (end_us - start_us) / 1e6
    share = min(1.0, (as_of - start_us) / float(end_us - start_us))  # the current timeframe: up to the refresh
    rng = random.Random("%s|%s|%s|%d" % (seed_value, project_id, granularity, start_us))
    base = random.Random("%s|%s|size" % (seed_value, project_id)).randint(30 * 10 ** 6, 5 * 10 ** 9)
    active = length * rng.uniform(0.05, 0.6) * share
    synthetic = base + int(base * rng.uniform(0.0, 0.1))
    logical = int(synthetic * 0.8)
    hours = length / 3600.0 * share
    values.update(
        active_time_seconds=int(active),
        compute_time_seconds=int(active * rng.uniform(0.25, 2.0)),
        written_data_bytes=int(rng.uniform(0, 50e6) * hours),
        synthetic_storage_size_bytes=synthetic,
        data_storage_bytes_hour=int(synthetic * hours),
        logical_size_bytes=logical,
        logical_size_bytes_hour=int(logical * hours),
    )
    return values


def _period_id(seed_value, account_id, period_start_us):
    digest = hashlib.md5(("%s|%s|%d" % (seed_value, account_id, period_start_us)).encode("utf-8")).hexdigest()
    return str(uuid.UUID(hex=digest, version=4))


def _grouped(frames, frame_of, plan, seed_value, account_id, now_us):
    """``frames`` grouped by calendar month into period objects, each timeframe's object ``frame_of(start, end)``."""
    answer = []
    for start, end in frames:
        period_start = _month_start(start)
        if not answer or answer[-1][0] != period_start:
            period = {"period_id": _period_id(seed_value, account_id, period_start), "period_plan": plan,
                      "period_start": iso_seconds(period_start)}
            if _next_month(period_start) <= now_us:
                period["period_end"] = iso_seconds(_next_month(period_start))
            period["consumption"] = []
            answer.append((period_start, period))
        answer[-1][1]["consumption"].append(frame_of(start, end))
    return [period for _start, period in answer]


def periods(frames, values_of, metrics, plan, seed_value, account_id, now_us):
    """ConsumptionHistoryPerPeriod objects: ``frames`` grouped by calendar month, each timeframe's metrics from
    ``values_of(start, end)``."""
    def frame_of(start, end):
        values = values_of(start, end)
        frame = {"timeframe_start": iso_seconds(start), "timeframe_end": iso_seconds(end)}
        for metric in PROJECT_METRICS:
            if metric in metrics:
                frame[metric] = values[metric]
            elif metric in DEFAULT_METRICS:
                frame[metric] = 0
        return frame

    return _grouped(frames, frame_of, plan, seed_value, account_id, now_us)


def usage_v2(seed_value, owner, created_us, granularity, start_us, end_us, now_us):
    """Every current metric of one project or branch (``owner``: its id) in one timeframe, as ``usage`` makes the
    older ones: the same for the same arguments, 0 before it was made and after the last refresh."""
    values = dict.fromkeys(V2_METRICS, 0)
    as_of = now_us - now_us % REFRESH_US
    if end_us <= created_us or start_us >= as_of:
        return values
    length = (end_us - start_us) / 1e6
    share = min(1.0, (as_of - start_us) / float(end_us - start_us))
    rng = random.Random("%s|v2|%s|%s|%d" % (seed_value, owner, granularity, start_us))
    size = random.Random("%s|v2|%s|size" % (seed_value, owner)).randint(30 * 10 ** 6, 5 * 10 ** 9)
    months = length * share / (30 * 86400.0)
    values.update(
        compute_unit_seconds=int(length * share * rng.uniform(0.05, 0.6)),
        root_branch_bytes_month=int(size * months),
        child_branch_bytes_month=int(size * 0.2 * months),
        instant_restore_bytes_month=int(size * 0.1 * months),
        public_network_transfer_bytes=int(rng.uniform(0, 20e6) * length * share / 3600.0),
        private_network_transfer_bytes=int(rng.uniform(0, 2e6) * length * share / 3600.0),
        extra_branches_month=int(rng.uniform(0, 3) * months * 1000) // 1000,
        snapshot_storage_bytes_month=int(size * 0.05 * months),
    )
    return values


def periods_v2(frames, values_of, metrics, plan, seed_value, account_id, now_us):
    """ConsumptionHistoryPerPeriodV2 objects: as ``periods``, each timeframe's ``metrics`` a list of ``{metric_name,
    value}`` in the order of ``metrics``."""
    def frame_of(start, end):
        values = values_of(start, end)
        return {"timeframe_start": iso_seconds(start), "timeframe_end": iso_seconds(end),
                "metrics": [{"metric_name": metric, "value": values[metric]} for metric in metrics]}

    return _grouped(frames, frame_of, plan, seed_value, account_id, now_us)


# ---------------------------------------------------------------------- the query


def _timestamp(args, name):
    text = args.get(name)
    if not text:
        raise InvalidRequest("%s: query parameter is required" % name)
    try:
        return parse_timestamp(text)
    except ValueError:
        raise InvalidRequest("%s: invalid date-time %r" % (name, text)) from None


def _listed(args, name):
    """A list query parameter, repeated or comma separated (SPEC)."""
    values = []
    for value in args.getlist(name):
        values.extend(part.strip() for part in value.split(",") if part.strip())
    return values


class Query:
    """A consumption request's query, checked (InvalidRequest for what the schema refuses)."""

    def __init__(self, args, allowed_metrics, per_project=False):
        self.from_us = _timestamp(args, "from")
        self.to_us = _timestamp(args, "to")
        self.granularity = args.get("granularity")
        if not self.granularity:
            raise InvalidRequest("granularity: query parameter is required")
        if self.granularity not in WINDOWS:
            raise InvalidRequest("granularity: must be one of hourly, daily, monthly, got %r" % self.granularity)
        self.org_id = args.get("org_id") or None
        if self.org_id is not None and not ID_RE.match(self.org_id):
            raise InvalidRequest("org_id: must match ^[a-z0-9-]{1,60}$, got %r" % self.org_id)
        metrics = _listed(args, "metrics")
        unknown = [metric for metric in metrics if metric not in allowed_metrics]
        if unknown:
            raise InvalidRequest("metrics: unknown metric %r; possible values: %s" % (unknown[0], ", ".join(
                allowed_metrics)))
        if not metrics:
            metrics = list(DEFAULT_METRICS)
            if args.get("include_v1_metrics", "").lower() == "true":
                metrics.append("data_storage_bytes_hour")
        self.metrics = metrics
        self.project_ids = _listed(args, "project_ids") if per_project else []
        if len(self.project_ids) > PROJECT_IDS_MAX:
            raise InvalidRequest("project_ids: at most %d project ids, got %d" % (PROJECT_IDS_MAX, len(self.project_ids)))
        for project_id in self.project_ids:
            if not ID_RE.match(project_id):
                raise InvalidRequest("project_ids: must match ^[a-z0-9-]{1,60}$, got %r" % project_id)
        self.cursor = args.get("cursor") or None


class QueryV2(Query):
    """A current (v2) endpoint's query, checked: ``org_id`` and ``metrics`` required; ``project_ids`` (required for
    branches), ``branch_ids``."""

    def __init__(self, args, per_branch=False):
        for name in ("org_id", "metrics") + (("project_ids",) if per_branch else ()):
            if not _listed(args, name):
                raise InvalidRequest(MESSAGE_V2_REQUIRED % name)
        allowed = V2_BRANCH_METRICS if per_branch else V2_METRICS
        super().__init__(args, allowed, per_project=True)
        self.metrics = list(dict.fromkeys(self.metrics))
        self.branch_ids = _listed(args, "branch_ids") if per_branch else []
        if len(self.branch_ids) > BRANCH_IDS_MAX:
            raise InvalidRequest("branch_ids: at most %d branch ids, got %d" % (BRANCH_IDS_MAX, len(self.branch_ids)))
        for branch_id in self.branch_ids:
            if not ID_RE.match(branch_id):
                raise InvalidRequest("branch_ids: must match ^[a-z0-9-]{1,60}$, got %r" % branch_id)


class Consumption:
    """The consumption area of State (see the module's text)."""

    def __init__(self, shared):
        self.shared = shared  # the data and helpers every area uses (shared.py)

    def reset(self):
        """Back to the seeded state (called by State.reset, with the lock held): a fresh rate limit."""
        self.consumption_limits = {"rate_per_minute": RATE_PER_MINUTE, "burst": RATE_BURST}
        self.consumption_limiter = self._consumption_limiter(RATE_PER_MINUTE, RATE_BURST)

    def _consumption_limiter(self, per_minute, burst):
        if per_minute is None:
            return None
        return RateLimiter(per_minute / 60.0, burst, monotonic=self.shared.clock.time)

    def set_consumption_limits(self, spec):
        """POST /_simulator/consumption_rate_limit ``{"rate_per_minute": N | null, "burst": M}`` (null: off);
        a fresh bucket either way."""
        if not isinstance(spec, dict) or set(spec) - {"rate_per_minute", "burst"}:
            raise InvalidRequest("body: takes rate_per_minute and burst")
        per_minute = spec.get("rate_per_minute", self.consumption_limits["rate_per_minute"])
        burst = spec.get("burst", self.consumption_limits["burst"])
        for name, value in (("rate_per_minute", per_minute), ("burst", burst)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
                allowed = " or null" if name == "rate_per_minute" else ""
                raise InvalidRequest("%s: must be a positive number%s" % (name, allowed))
        if burst is None or burst < 1:
            raise InvalidRequest("burst: must be at least 1")
        with self.shared.lock:
            self.consumption_limits = {"rate_per_minute": per_minute, "burst": burst}
            self.consumption_limiter = self._consumption_limiter(per_minute, burst)
            return dict(self.consumption_limits)

    # ------------------------------------------------------------------ the account
    def _caller_account(self, key):
        return key.owner_id if key.kind == PERSONAL_KEY else key.org_id

    def take_consumption_token(self, key):
        """Spend one of the caller's tokens (both endpoints share them), or TooManyRequests: before any other check."""
        limiter = self.consumption_limiter
        wait = limiter.check(self._caller_account(key)) if limiter is not None else None
        if wait is not None:
            raise TooManyRequests(MESSAGE_TOO_MANY % self.consumption_limits["rate_per_minute"], retry_after=wait)

    def _consumption_account(self, key, org_id, plans=CONSUMPTION_PLANS):
        """(account id, plan, its projects) the request reads, or the refusal (403, 404; ``plans``: those that
        answer, None for the caller to check)."""
        if key.kind == PROJECT_KEY:
            raise Forbidden("not allowed for project-scoped API keys")
        if org_id is None and key.kind == ORGANIZATION_KEY:
            org_id = key.org_id
        if org_id is None:
            raise Forbidden(MESSAGE_PLAN % "free")
        org = self.shared.organizations.get(org_id)
        member = org is not None and (key.org_id == org_id if key.kind == ORGANIZATION_KEY
                                      else org.role_of(key.owner_id) is not None)
        if not member:
            raise NotFound(MESSAGE_NOT_MEMBER % org_id)
        if plans is not None and org.plan not in plans:
            raise Forbidden(MESSAGE_PLAN % org.plan)
        return org.id, org.plan, [project for project in self.shared.project_order if project.org_id == org.id]

    def _read_consumption(self, key, query):
        """The account, its plan, projects and the timeframes of ``query``, after every check."""
        account_id, plan, projects = self._consumption_account(key, query.org_id)
        now_us = self.shared.now_us()
        check_range(query.from_us, query.to_us, query.granularity, now_us)
        frames = timeframes(query.from_us, query.to_us, query.granularity, now_us)
        return account_id, plan, projects, frames, now_us

    def _project_values(self, project, query, now_us):
        return lambda start, end: usage(self.shared.seed, project.id, project.created_us, query.granularity, start, end,
                                        now_us)

    def api_consumption_account(self, key, query):
        """GET /consumption_history/account: the account's periods, each timeframe summed over its projects."""
        with self.shared.lock:
            account_id, plan, projects, frames, now_us = self._read_consumption(key, query)

            def summed(start, end):
                total = dict.fromkeys(PROJECT_METRICS, 0)
                for project in projects:
                    for metric, value in self._project_values(project, query, now_us)(start, end).items():
                        total[metric] += value
                return total

            return {"periods": periods(frames, summed, query.metrics, plan, self.shared.seed, account_id, now_us)}

    def api_consumption_projects(self, key, query, limit):
        """GET /consumption_history/projects: a page of the account's projects (those of ``project_ids``), each
        with its periods; the cursor is the page's last project id."""
        with self.shared.lock:
            account_id, plan, projects, frames, now_us = self._read_consumption(key, query)
            if query.project_ids:
                wanted = set(query.project_ids)
                projects = [project for project in projects if project.id in wanted]
            if query.cursor:
                position = next((index for index, project in enumerate(projects) if project.id == query.cursor), None)
                if position is None:
                    raise InvalidRequest("cursor: unknown project id %r" % query.cursor)
                projects = projects[position + 1:]
            page = projects[:limit]
            answer = {"projects": [{"project_id": project.id,
                                    "periods": periods(frames, self._project_values(project, query, now_us),
                                                       query.metrics, plan, self.shared.seed, account_id, now_us)}
                                   for project in page]}
            if page:
                answer["pagination"] = {"cursor": page[-1].id}
            return answer

    # ------------------------------------------------------------------ the current (v2) endpoints
    def _read_v2(self, key, query, plans, what):
        """As ``_read_consumption``, with the plans of a current endpoint (403 naming them)."""
        account_id, plan, projects = self._consumption_account(key, query.org_id, plans=None)
        if plan not in plans:
            raise Forbidden(MESSAGE_V2_PLAN % (what, "Launch, Scale, Agent, Business or Enterprise" if what == "Project"
                                               else "paid usage-based Launch, Scale, Agent or Enterprise", plan))
        now_us = self.shared.now_us()
        check_range(query.from_us, query.to_us, query.granularity, now_us)
        return account_id, plan, projects, timeframes(query.from_us, query.to_us, query.granularity, now_us), now_us

    def _v2_values(self, owner, created_us, query, now_us):
        return lambda start, end: usage_v2(self.shared.seed, owner, created_us, query.granularity, start, end, now_us)

    def api_consumption_projects_v2(self, key, query, limit):
        """GET /consumption_history/v2/projects: a page of the organization's projects (those of ``project_ids``),
        newest first, each with its periods; the cursor is the page's last project id."""
        with self.shared.lock:
            account_id, plan, projects, frames, now_us = self._read_v2(key, query, V2_PROJECT_PLANS, "Project")
            projects = list(reversed(projects))
            if query.project_ids:
                wanted = set(query.project_ids)
                projects = [project for project in projects if project.id in wanted]
            if query.cursor:
                position = next((index for index, project in enumerate(projects) if project.id == query.cursor), None)
                if position is None:
                    raise InvalidRequest("cursor: unknown project id %r" % query.cursor)
                projects = projects[position + 1:]
            page = projects[:limit]
            answer = {"projects": [{"project_id": project.id, "periods": periods_v2(
                frames, self._v2_values(project.id, project.created_us, query, now_us), query.metrics, plan,
                self.shared.seed, account_id, now_us)} for project in page]}
            if page:
                answer["pagination"] = {"cursor": page[-1].id}
            return answer

    def api_consumption_branches_v2(self, key, query, limit):
        """GET /consumption_history/v2/branches: a page of the branches of the organization's projects named in
        ``project_ids`` (those of ``branch_ids``), by project id then branch id, each with its periods; the cursor is
        the page's last ``project_id/branch_id``."""
        with self.shared.lock:
            account_id, plan, projects, frames, now_us = self._read_v2(key, query, V2_BRANCH_PLANS, "Branch")
            wanted = set(query.project_ids)
            rows = []
            for project in sorted((p for p in projects if p.id in wanted), key=lambda p: p.id):
                for branch in sorted(self.shared.resources(project).branches.values(), key=lambda b: b.id):
                    if not query.branch_ids or branch.id in query.branch_ids:
                        rows.append((project, branch))
            if query.cursor:
                position = next((index for index, (project, branch) in enumerate(rows)
                                 if "%s/%s" % (project.id, branch.id) == query.cursor), None)
                if position is None:
                    raise InvalidRequest("cursor: unknown branch %r" % query.cursor)
                rows = rows[position + 1:]
            page = rows[:limit]
            answer = {"branches": [{"project_id": project.id, "branch_id": branch.id, "periods": periods_v2(
                frames, self._v2_values(branch.id, branch.created_us, query, now_us), query.metrics, plan,
                self.shared.seed, account_id, now_us)} for project, branch in page]}
            if page:
                answer["pagination"] = {"cursor": "%s/%s" % (page[-1][0].id, page[-1][1].id)}
            return answer
