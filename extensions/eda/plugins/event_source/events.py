# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""neon.cloud.events: an Event-Driven Ansible source that polls the Neon API v2 and puts events on the queue.

Read-only: it sends GET requests only. Every event is one mapping under the key ``neon``, with ``type`` and the ids a
playbook needs; none holds a secret (docs/docsite/rst/reacting-to-events.rst lists every type and field).

Arguments (all optional but where said; ``api_key`` and ``api_url`` fall back to NEON_API_KEY and NEON_API_URL):

  api_key, api_url, api_timeout (30), api_retries (2), api_retry_max_delay (30), validate_certs (true), ca_path,
  api_allow_plain_http (false): the connection, as the modules take it.
  org_id: list this organization's projects (and, for api_key events, its keys).
  interval: seconds between polls (60; at least 1).
  cursor_file: where the source keeps what it has seen and emitted (JSON, written after each poll); without it
      a restart starts afresh.
  events: which kinds to watch, a list of projects, operations, branches, api_keys, advisors, consumption
      (default: projects, operations, branches, api_keys).
  baseline: project settings (as the project module's ``settings``) that each project must have: a project that
      differs gets a project_drifted event.
  projects_per_poll: how many projects have their operations, branches and advisors read in one poll (5).
  branch_expires_within: seconds; a branch that expires sooner gets a branch_expiring event (86400).
  api_key_unused_days (90), api_key_max_age_days (none): the limits of the api_key events.
  advisors_min_severity: the least severity of an advisor issue reported: ERROR (default), WARN or INFO.
  consumption_limits: for the consumption events (which need org_id): metric -> limit, e.g.
      {compute_unit_seconds: 360000}; a project whose consumption of the current billing period goes over one gets
      one consumption_over_limit event (once per project, metric, period and limit, whatever reads in between say:
      the mark is kept in the cursor until the period or the limit changes).
  consumption_interval: seconds between the starts of two reads of the organization's consumption (900: the
      service refreshes its figures about every 15 minutes).
  consumption_requests_per_poll: how many consumption requests (100 projects each) one poll sends at most (1).
  max_backoff: the longest wait, in seconds, between polls while the API cannot be reached (900).

Cost of one poll: the project listing pages, floor(N/400)+1 requests for N projects: ceil(N/400), and one page more
when N is a multiple of 400 (the listing's pagination has no "no more" mark, only a cursor on every page, the last
too, so only a page shorter than asked shows the end); then for each of at most ``projects_per_poll`` projects one
operations page (more only when more than 100 operations happened since its last read, at most 5), one branch
listing and one advisors read, each when its event kind is asked; one key listing; with consumption, at most
``consumption_requests_per_poll`` (1) consumption requests of 100 projects while a read of the organization's
consumption is under way (ceil(N/100) requests, one a poll, a read started every ``consumption_interval``), none
between. 429 and Retry-After are obeyed by the client; a poll that still fails puts one api_unreachable event and
polls again after a growing pause, then one api_recovered event.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import asyncio
import copy
import hashlib
import json
import logging
import math
import os
import sys
import tempfile
import time

try:
    from ansible_collections.neon.cloud.plugins.module_utils._api import answers
except ImportError:
    # ansible-rulebook runs this file by its path (runpy): the collection is importable once the folder that holds
    # ansible_collections/ is on the path; that is four folders above this one's collection root.
    _ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 7))
    if os.path.isdir(os.path.join(_ROOT, "ansible_collections")) and _ROOT not in sys.path:
        sys.path.append(_ROOT)
    from ansible_collections.neon.cloud.plugins.module_utils._api import answers

from ansible_collections.neon.cloud.plugins.module_utils._account import consumption
from ansible_collections.neon.cloud.plugins.module_utils._api import timestamps
from ansible_collections.neon.cloud.plugins.module_utils._api.client import api_path, project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.connection import (
    API_KEY_ENV, API_URL_ENV, ConnectionOptionError, check_options, make_client)
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError
from ansible_collections.neon.cloud.plugins.module_utils._api.paging import PROJECTS_PAGE_MAX, PageReader
from ansible_collections.neon.cloud.plugins.module_utils._api.transport import DEFAULT_API_URL

LOG = logging.getLogger("neon.cloud.events")

KINDS = ("projects", "operations", "branches", "api_keys", "advisors", "consumption")
DEFAULT_KINDS = ("projects", "operations", "branches", "api_keys")
SEVERITIES = ("INFO", "WARN", "ERROR")
FAILED_STATUSES = ("failed", "error")
ENDED_STATUSES = ("finished", "skipped", "failed", "error", "cancelled")
OPERATIONS_PAGE = 100
OPERATIONS_PAGES_MAX = 5
CURSOR_VERSION = 1
CONSUMPTION_ARGUMENTS = ("consumption_limits", "consumption_interval", "consumption_requests_per_poll")
DAY = 86400.0
# What a poll reads of a project in the listing, and of the other lists (the rest of each answer is not used).
LISTED_PROJECT = dict(required={"id": (str,)},
                      optional={"name": (str,), "region_id": (str,), "org_id": (str, type(None)),
                                "created_at": (str,), "updated_at": (str,), "settings": (dict,)})
LISTED_OPERATION = dict(required={"id": (str,), "status": (str,)},
                        optional={"action": (str,), "created_at": (str,), "updated_at": (str,),
                                  "branch_id": (str, type(None)), "endpoint_id": (str, type(None)),
                                  "error": (str, type(None))})
LISTED_BRANCH = dict(required={"id": (str,)},
                     optional={"name": (str,), "expires_at": (str, type(None)), "protected": (bool,),
                               "default": (bool,)})
LISTED_KEY = dict(required={"id": (int,), "name": (str,)},
                  optional={"created_at": (str,), "last_used_at": (str, type(None)), "project_id": (str, type(None))})
ADVISOR_ISSUE = dict(required={"name": (str,), "level": (str,)},
                     optional={"title": (str,), "categories": (list,), "detail": (str,), "remediation": (str,),
                               "cache_key": (str,), "facing": (str,)})


class ArgumentError(ValueError):
    """An argument the source cannot use: it stops at start with this sentence (never holding the key)."""


# ---------------------------------------------------------------------------------------------- arguments

def _number(args, name, default, least):
    value = args.get(name, default)
    if value is None or value == "":
        return default
    if isinstance(value, str):  # a rulebook's templated value arrives as text
        try:
            value = float(value) if "." in value or "e" in value.lower() else int(value)
        except ValueError:
            raise ArgumentError("%s must be a number, got %r" % (name, value))
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ArgumentError("%s must be a number, got %r" % (name, value))
    if value < least:
        raise ArgumentError("%s must be at least %s, got %s" % (name, least, value))
    return value


class Settings:
    """The source's arguments, checked: everything a poll needs to know."""

    def __init__(self, args):
        args = dict(args or {})
        known = {"api_key", "api_url", "api_timeout", "api_retries", "api_retry_max_delay", "validate_certs",
                 "ca_path", "api_allow_plain_http", "org_id", "interval", "cursor_file", "events", "baseline",
                 "projects_per_poll", "branch_expires_within", "api_key_unused_days", "api_key_max_age_days",
                 "advisors_min_severity", "max_backoff"} | set(CONSUMPTION_ARGUMENTS)
        unknown = sorted(set(args) - known)
        if unknown:
            raise ArgumentError("unknown argument(s) %s; the source takes %s" % (
                ", ".join(unknown), ", ".join(sorted(known))))
        self.connection = dict(
            api_key=args.get("api_key") or os.environ.get(API_KEY_ENV),
            api_url=args.get("api_url") or os.environ.get(API_URL_ENV) or DEFAULT_API_URL,
            api_timeout=_number(args, "api_timeout", 30, 0.001),
            api_retries=int(_number(args, "api_retries", 2, 0)),
            api_retry_max_delay=_number(args, "api_retry_max_delay", 30, 0.001),
            validate_certs=bool(args.get("validate_certs", True)),
            ca_path=args.get("ca_path"),
            api_allow_plain_http=bool(args.get("api_allow_plain_http", False)),
        )
        try:
            check_options(self.connection)
        except ConnectionOptionError as error:
            raise ArgumentError(str(error))
        self.org_id = args.get("org_id") or None
        if self.org_id is not None and not isinstance(self.org_id, str):
            raise ArgumentError("org_id must be a string, got %r" % (self.org_id,))
        self.interval = _number(args, "interval", 60, 1)
        self.max_backoff = max(self.interval, _number(args, "max_backoff", 900, 1))
        self.cursor_file = args.get("cursor_file") or None
        if self.cursor_file is not None:
            if not isinstance(self.cursor_file, str) or not self.cursor_file:
                raise ArgumentError("cursor_file must be a file path, got %r" % (self.cursor_file,))
            folder = os.path.dirname(os.path.abspath(self.cursor_file))
            if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
                raise ArgumentError("cursor_file %s: its folder %s does not exist or cannot be written" % (
                    self.cursor_file, folder))
        kinds = args.get("events", list(DEFAULT_KINDS))
        if not isinstance(kinds, list) or not kinds or any(kind not in KINDS for kind in kinds):
            raise ArgumentError("events must be a non-empty list of %s, got %r" % (", ".join(KINDS), kinds))
        self.kinds = frozenset(kinds)
        self.baseline = args.get("baseline")
        if self.baseline is not None and not isinstance(self.baseline, dict):
            raise ArgumentError("baseline must be a mapping of project settings, got %r" % (self.baseline,))
        self.projects_per_poll = int(_number(args, "projects_per_poll", 5, 0))
        self.branch_expires_within = _number(args, "branch_expires_within", DAY, 1)
        self.key_unused_days = _number(args, "api_key_unused_days", 90, 1)
        self.key_max_age_days = _number(args, "api_key_max_age_days", None, 1)
        severity = args.get("advisors_min_severity", "ERROR")
        if severity not in SEVERITIES:
            raise ArgumentError("advisors_min_severity must be one of %s, got %r" % (", ".join(SEVERITIES), severity))
        self.advisors_min_severity = severity
        self._consumption(args)

    def _consumption(self, args):
        """The consumption arguments: limits of known metrics, for an organization (the endpoint requires org_id)."""
        self.consumption_interval = _number(args, "consumption_interval", 900, 1)
        self.consumption_requests_per_poll = int(_number(args, "consumption_requests_per_poll", 1, 1))
        limits = args.get("consumption_limits")
        if "consumption" not in self.kinds:
            given = [name for name in CONSUMPTION_ARGUMENTS if args.get(name) is not None]
            if given:
                raise ArgumentError("%s given, but events does not have consumption" % ", ".join(given))
            self.consumption_limits = {}
            return
        if self.org_id is None:
            raise ArgumentError("events consumption needs org_id: the service reads consumption per organization")
        if not isinstance(limits, dict) or not limits:
            raise ArgumentError("events consumption needs consumption_limits, a mapping of metric to limit (e.g. "
                                "compute_unit_seconds: 360000), got %r" % (limits,))
        problem = consumption.metrics_problem(sorted(limits), "projects")
        if problem:
            raise ArgumentError("consumption_limits: %s" % problem)
        self.consumption_limits = {}
        for metric in sorted(limits):
            try:
                limit = _number(limits, metric, None, 0)
            except ArgumentError as error:
                raise ArgumentError("consumption_limits: %s" % error)
            if limit is None:
                raise ArgumentError("consumption_limits: %s must be a number, got %r" % (metric, limits[metric]))
            self.consumption_limits[metric] = limit


# ---------------------------------------------------------------------------------------------- the cursor

def load_cursor(path):
    """What an earlier run saw and emitted (``path``), or None when there is none yet."""
    if path is None or not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError) as error:
        raise ArgumentError("cursor_file %s cannot be read as the source's JSON: %s" % (path, error))
    if not isinstance(data, dict) or data.get("version") != CURSOR_VERSION or not isinstance(
            data.get("projects"), dict):
        raise ArgumentError("cursor_file %s is not a cursor of this source (version %s); move it away to start "
                            "afresh" % (path, CURSOR_VERSION))
    return data


# a report's mark is kept for a project no listing shows until its period has surely ended (the longest period is a
# month): a project left out of one listing keeps its marks
MARK_KEPT = 62 * 86400


def _marks(progress, records):
    """The cursor's marks of consumption reported over a limit (see Watcher._over_limit); from the project records
    for a cursor of an earlier version, which kept them there (``over``: metric -> [period id, limit])."""
    marks = progress.get("over")
    if isinstance(marks, dict):
        return marks
    return {project_id: record["over"] for project_id, record in records.items() if record.get("over")}


def _ended(marks, now):
    """Whether the periods of a project's marks ended surely (see MARK_KEPT); a mark without its start: yes."""
    return all(len(mark) < 3 or mark[2] is None or now - mark[2] > MARK_KEPT for mark in marks.values())


def save_cursor(path, data):
    """Write the cursor whole or not at all (a temporary file of the same folder, then renamed)."""
    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".neon-events-", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(data, out, separators=(",", ":"), sort_keys=True)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


# ---------------------------------------------------------------------------------------------- events

def event(kind, **fields):
    body = {"type": kind}
    body.update(fields)
    return {"neon": body}


def project_summary(project):
    return {key: project.get(key) for key in ("id", "name", "region_id", "org_id", "created_at")}


def drift(baseline, settings):
    """``{setting: {"expected", "actual"}}`` for each part of ``baseline`` that ``settings`` does not hold."""
    found = {}
    for name, wanted in sorted((baseline or {}).items()):
        actual = (settings or {}).get(name)
        if isinstance(wanted, dict) and isinstance(actual, dict):
            parts = {part: value for part, value in wanted.items() if not _same(value, actual.get(part))}
            if parts:
                found[name] = {"expected": wanted, "actual": actual}
        elif not _same(wanted, actual):
            found[name] = {"expected": wanted, "actual": actual}
    return found


def _same(wanted, actual):
    if isinstance(wanted, list) and isinstance(actual, list):
        try:
            return sorted(set(wanted)) == sorted(set(actual))  # the IP list and weekdays are sets
        except TypeError:
            return wanted == actual
    return wanted == actual


def _digest(value):
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode("utf-8")).hexdigest()[:16]


# ---------------------------------------------------------------------------------------------- one poll

class Watcher:
    """One poll at a time (``poll()``, blocking: it runs in a thread): the events since the cursor, and the cursor
    after them (``state``, saved by the caller). ``now`` gives the time events are measured against (a test gives
    the simulator's clock)."""

    def __init__(self, settings, client=None, now=time.time, state=None):
        self.settings = settings
        self.client = client or make_client(settings.connection)
        self.now = now
        self.state = state or {"version": CURSOR_VERSION, "started": False, "poll": 0, "projects": {}, "keys": {}}
        self.requests = 0
        self.pacer = None  # the consumption endpoints' pace, across polls (made at the first consumption request)
        self.marks = {}  # the consumption reported over a limit (the cursor's consumption.over), during a poll

    def poll(self):
        """The events of one poll; ``self.state`` moves on only when the whole poll succeeded (NeonAPIError)."""
        before = self.client.requests_made
        state = copy.copy(self.state)
        state["poll"] = self.state["poll"] + 1
        first = not self.state["started"]
        events = []
        projects = self._projects(state, first, events)
        if "operations" in self.settings.kinds or "branches" in self.settings.kinds or (
                "advisors" in self.settings.kinds):
            for project_id in self._to_visit(projects, state["poll"]):
                self._visit(project_id, projects[project_id], first, events)
        if "consumption" in self.settings.kinds:
            state["consumption"] = self._consumption(projects, events)
        state["projects"] = projects
        if "api_keys" in self.settings.kinds:
            state["keys"] = self._keys(dict(self.state["keys"]), first, events)
        state["started"] = True
        self.state = state
        self.requests = self.client.requests_made - before
        return events

    # ---- projects: the listing pages

    def _projects(self, state, first, events):
        old = self.state["projects"]
        listed, unavailable = [], set()

        def page_count(page):  # the projects the service left out count against the page's limit too
            return len(page.items) + len(answers.unavailable_ids(page.data, "/projects"))

        reader = PageReader(self.client, "/projects", "projects", LISTED_PROJECT,
                            params={"org_id": self.settings.org_id}, page_count=page_count)
        while True:
            page = reader.read(PROJECTS_PAGE_MAX)
            if page is None:
                break
            listed.extend(page.items)
            unavailable.update(answers.unavailable_ids(page.data, "/projects"))
        watch = "projects" in self.settings.kinds
        projects = {}
        for project in listed:
            record = dict(old.get(project["id"]) or {})
            settings = project.get("settings") or {}
            entry_new = not record
            record.update(name=project.get("name"), updated_at=project.get("updated_at"),
                          settings=_digest(settings))
            if entry_new:
                record.update(new=not first, created_here=not first, checked=0, ops_after=None, failed=[], branches={},
                              advisors=[])
                if watch and not first:
                    events.append(event("project_created", project=project_summary(project)))
            elif watch and old[project["id"]].get("updated_at") != project.get("updated_at"):
                changed = [name for name in ("name", "settings") if old[project["id"]].get(name) != record[name]]
                events.append(event("project_changed", project=project_summary(project), changed=changed,
                                    updated_at=project.get("updated_at")))
                record["visit"] = True
            if watch and self.settings.baseline is not None:
                found = drift(self.settings.baseline, settings)
                signature = _digest(found) if found else None
                if signature != record.get("drift"):
                    if found:
                        events.append(event("project_drifted", project=project_summary(project), drift=found))
                    record["drift"] = signature
            projects[project["id"]] = record
        for project_id in unavailable:  # not fetched in time: still there, as it was
            if project_id in old and project_id not in projects:
                projects[project_id] = old[project_id]
        if watch:
            for project_id in sorted(set(old) - set(projects)):
                events.append(event("project_deleted", project={"id": project_id, "name": old[project_id].get("name")}))
        return projects

    def _to_visit(self, projects, poll):
        """The projects whose operations, branches and advisors this poll reads: new and changed ones and those with
        operations running at their last read first, then those read longest ago (every project in turn)."""
        budget = self.settings.projects_per_poll
        order = sorted(projects, key=lambda pid: (
            not (projects[pid].get("new") or projects[pid].get("visit") or projects[pid].get("running")),
            projects[pid].get("checked", 0), pid))
        chosen = order[:budget]
        for project_id in chosen:
            record = projects[project_id] = dict(projects[project_id])
            record["checked"] = poll
            record.pop("new", None)
            record.pop("visit", None)
        return chosen

    def _visit(self, project_id, record, first, events):
        """A project's details; one deleted since the listing (404) is left for the next poll, which reports it
        deleted, rather than failing this one."""
        found = []
        saved = dict(record)  # a 404 part way leaves the record as it was: what was read is read again next poll
        try:
            if "operations" in self.settings.kinds:
                self._operations(project_id, record, found)
            if "branches" in self.settings.kinds:
                self._branches(project_id, record, found)
            if "advisors" in self.settings.kinds:
                self._advisors(project_id, record, found)
        except NeonAPIError as error:
            if error.status != 404:
                raise
            LOG.info("project %s not read: %s", project_id, error.describe())
            record.clear()
            record.update(saved)
            return
        events.extend(found)

    # ---- operations: newest first, back to the cursor

    def _operations(self, project_id, record, events):
        """The operations since the project's cursor (``ops_after``: the newest one read, or the oldest still
        running then), newest first; a failed one is reported once. A project known when the source first ran is
        read one page for where its history stands (nothing reported); one created since, from its start."""
        path = project_path(project_id, "operations")
        reader = PageReader(self.client, path, "operations", LISTED_OPERATION, max_pages=OPERATIONS_PAGES_MAX)
        after = record.get("ops_after")
        starting = not record.get("ops_read") and not record.get("created_here")
        read = []
        while reader.has_next and reader.requests < OPERATIONS_PAGES_MAX:
            page = reader.read(OPERATIONS_PAGE)
            if page is None:
                break
            read.extend(page.items)
            oldest = page.items[-1].get("created_at") if page.items else None
            if starting or (oldest is not None and after is not None and _before(oldest, after)):
                break
        reported = set(record.get("failed") or [])
        newest, open_times = after, []
        for operation in read:
            created = operation.get("created_at")
            if after is not None and (created is None or _before(created, after)):
                continue
            if created is not None and (newest is None or _before(newest, created)):
                newest = created
            if operation["status"] not in ENDED_STATUSES:
                if timestamps.timestamp(created) is not None:  # a created_at that is no time cannot be a cursor
                    open_times.append(created)
                continue
            if operation["status"] not in FAILED_STATUSES or operation["id"] in reported:
                continue
            reported.add(operation["id"])  # when starting: known, not reported (it failed before the source ran)
            if not starting:
                events.append(event("operation_failed", project_id=project_id, operation={
                    key: operation.get(key) for key in ("id", "action", "status", "error", "branch_id",
                                                        "endpoint_id", "created_at", "updated_at")}))
        after = min(open_times, key=timestamps.timestamp) if open_times else newest
        record["ops_after"] = after
        record["ops_read"] = True
        record["running"] = bool(open_times)  # read again first, next poll: how they end
        # the failures reported that a later read can show again (at or after the cursor): kept to not repeat them
        again = set(op["id"] for op in read if after and op.get("created_at") and not _before(op["created_at"], after))
        record["failed"] = sorted(reported & again)

    # ---- branches that expire soon

    def _branches(self, project_id, record, events):
        path = project_path(project_id, "branches")
        data = self.client.get(path)
        branches = answers.items_of(data, "GET", path, "branches", LISTED_BRANCH)
        reported = {}
        now = self.now()
        for branch in branches:
            expires = timestamps.timestamp(branch.get("expires_at"))
            if expires is None or expires - now > self.settings.branch_expires_within:
                continue
            reported[branch["id"]] = branch["expires_at"]
            if (record.get("branches") or {}).get(branch["id"]) == branch["expires_at"]:
                continue
            events.append(event("branch_expiring", project_id=project_id, branch={
                "id": branch["id"], "name": branch.get("name"), "expires_at": branch["expires_at"]},
                expires_in_seconds=int(max(0, expires - now))))
        record["branches"] = reported

    # ---- advisor issues

    def _advisors(self, project_id, record, events):
        path = project_path(project_id, "advisors")
        try:
            data = self.client.get(path, params={"min_severity": self.settings.advisors_min_severity})
        except NeonAPIError as error:
            if error.status in (400, 403, 404, 412, 422):  # not enabled for this project (Data API): nothing to report
                LOG.info("advisors of %s not read: %s", project_id, error.describe())
                return
            raise
        issues = answers.items_of(data, "GET", path, "issues", ADVISOR_ISSUE)
        seen = set(record.get("advisors") or [])
        now_keys = []
        for issue in issues:
            key = issue.get("cache_key") or _digest([issue["name"], issue.get("detail")])
            now_keys.append(key)
            if key in seen:
                continue
            events.append(event("advisor_issue", project_id=project_id, issue={
                name: issue.get(name) for name in ("name", "title", "level", "categories", "detail", "remediation",
                                                   "facing")}, issue_key=key))
        record["advisors"] = sorted(now_keys)

    # ---- consumption over a limit

    def _consumption(self, projects, events):
        """A read of the organization's consumption of the current billing period, ``consumption_requests_per_poll``
        requests of 100 projects a poll (by project id, where the last poll stopped) until every project was read;
        the next read starts ``consumption_interval`` after this one started. Answers where the read stands (the
        cursor's ``consumption``: ``round_at``, when the read started; ``after``, the last project id read, None
        once it ended)."""
        settings = self.settings
        progress = dict(self.state.get("consumption") or {})
        round_at, after = progress.get("round_at"), progress.get("after")
        now = self.now()
        self.marks = _marks(progress, self.state["projects"])

        def where(round_at, after):
            answer = {"round_at": round_at, "after": after}
            if self.marks:
                answer["over"] = self.marks
            return answer

        if after is None:
            if round_at is not None and now - round_at < settings.consumption_interval:
                return where(round_at, None)
            round_at, after = now, ""
            self.marks = {project_id: marks for project_id, marks in self.marks.items()
                          if project_id in projects or not _ended(marks, now)}
        waiting = sorted(project_id for project_id in projects if project_id > after)
        if self.pacer is None:
            self.pacer = consumption.Pacer(self.client.clock, self.client.sleep)
        reader = consumption.ConsumptionReader(self.client, consumption.round_down(now, "monthly"), now, "monthly",
                                               settings.org_id, sorted(settings.consumption_limits), pacer=self.pacer)
        for _request in range(settings.consumption_requests_per_poll):
            if not waiting:
                break
            chunk, waiting = waiting[:consumption.PROJECT_IDS_MAX], waiting[consumption.PROJECT_IDS_MAX:]
            try:
                read = reader.projects(chunk)
            except NeonAPIError as error:
                # the plan lost the endpoint, the key left the organization since the source started: the rest of
                # the source goes on, this read ends (a first poll refused stops the source: the caller's)
                if error.status not in (403, 404) or not self.state["started"]:
                    raise
                LOG.warning("consumption not read: %s", error.describe())
                return where(round_at, None)
            for row in read["projects"]:
                if row["project_id"] in projects:
                    self._over_limit(row, projects, events)
            after = chunk[-1]
        return where(round_at, after if waiting else None)

    def _over_limit(self, row, projects, events):
        """One project's consumption row: an event for each metric of its current period (the period that started
        last) over its limit, unless reported for that period and limit. The mark of a report (the cursor's
        ``consumption.over``: project id -> metric -> [period id, limit, period start]) stays for its period and
        limit whatever later reads say (a row without the metric, counted as 0; a project left out of one listing):
        one event per crossing per period; a new period or another limit clears it."""
        periods = row["periods"]
        if not periods:
            return
        current = max(periods, key=lambda period: timestamps.timestamp(period["period_start"]) or 0)
        start = timestamps.timestamp(current["period_start"]) or 0
        values = consumption.totals([[current]], self.settings.consumption_limits)
        project_id = row["project_id"]
        record = projects[project_id] = dict(projects[project_id])
        record.pop("over", None)  # where a cursor of an earlier version kept the marks (see _marks)
        marks = dict(self.marks.get(project_id) or {})
        for metric, limit in sorted(self.settings.consumption_limits.items()):
            mark = marks.get(metric)
            if mark is not None:
                if len(mark) > 2 and mark[2] is not None and start < mark[2]:
                    continue  # a row of a period before the one reported: an old figure, nothing to say
                if list(mark[:2]) == [current["period_id"], limit]:
                    continue  # reported for this period and limit
                del marks[metric]  # a new period or another limit: its next crossing is reported
            value = values.get(metric, 0)
            if value <= limit:
                continue
            marks[metric] = [current["period_id"], limit, start]
            events.append(event("consumption_over_limit", project_id=project_id, project_name=record.get("name"),
                                org_id=self.settings.org_id, metric=metric, value=value, limit=limit, period={
                                    "id": current["period_id"], "start": current["period_start"],
                                    "plan": current.get("period_plan")}))
        self.marks = dict(self.marks)
        if marks:
            self.marks[project_id] = marks
        else:
            self.marks.pop(project_id, None)

    # ---- API keys

    def _keys(self, reported, first, events):
        del first  # a key past a limit is reported once, whether it was before the source started or not
        path = api_path("organizations", self.settings.org_id, "api_keys") if self.settings.org_id else "/api_keys"
        keys = answers.Checker("GET", path)
        keys = keys.each(keys.list(self.client.get(path)), "", **LISTED_KEY)
        now = self.now()
        current = {}
        for key in keys:
            done = set(reported.get(str(key["id"])) or [])
            created = timestamps.timestamp(key.get("created_at"))
            used = timestamps.timestamp(key.get("last_used_at"))
            shown = {name: key.get(name) for name in ("id", "name", "created_at", "last_used_at", "project_id")}
            idle_since = used if used is not None else created
            if idle_since is not None and now - idle_since > self.settings.key_unused_days * DAY:
                if "unused" not in done:
                    events.append(event("api_key_unused", api_key=shown,
                                        unused_days=int((now - idle_since) // DAY)))
                done.add("unused")
            else:
                done.discard("unused")
            if self.settings.key_max_age_days is not None and created is not None and (
                    now - created > self.settings.key_max_age_days * DAY):
                if "old" not in done:
                    events.append(event("api_key_old", api_key=shown, age_days=int((now - created) // DAY)))
                done.add("old")
            current[str(key["id"])] = sorted(done)
        return current


def _before(first, second):
    one, two = timestamps.timestamp(first), timestamps.timestamp(second)
    return one is not None and two is not None and one < two


# ---------------------------------------------------------------------------------------------- the loop

class Source:
    """The polling loop: a poll in a thread, its events on the queue, the cursor saved, and the pause after it
    (``sleep``: asyncio.sleep, or a test's)."""

    def __init__(self, settings, watcher=None, sleep=asyncio.sleep):
        self.settings = settings
        self.watcher = watcher or Watcher(settings, state=load_cursor(settings.cursor_file))
        self.sleep = sleep
        self.down_since = None
        self.failures = 0

    async def run(self, queue, polls=None):
        done = 0
        loop = asyncio.get_running_loop()
        while polls is None or done < polls:
            done += 1
            try:
                events = await loop.run_in_executor(None, self.watcher.poll)
            except NeonAPIError as error:
                if not self.watcher.state["started"] and error.status in (400, 401, 403, 404):
                    raise ArgumentError("the first poll failed, so the arguments cannot work: %s" % error.describe())
                pause = self._failed(error)
                if self.failures == 1:
                    await queue.put(event("api_unreachable", error=error.describe(), status=error.status,
                                          retry_in_seconds=pause))
                await self.sleep(pause)
                continue
            if self.down_since is not None:
                events.insert(0, event("api_recovered", failed_polls=self.failures,
                                       down_seconds=round(time.monotonic() - self.down_since, 1)))
                self.down_since, self.failures = None, 0
            for one in events:
                await queue.put(one)
            try:
                save_cursor(self.settings.cursor_file, self.watcher.state)
            except OSError as error:  # a full disk, a folder gone: polling goes on, the next poll tries again
                LOG.warning("cursor_file %s not written: %s", self.settings.cursor_file, error)
            await self.sleep(self.settings.interval)

    def _failed(self, error):
        LOG.warning("poll failed: %s", error.describe())
        if self.down_since is None:
            self.down_since = time.monotonic()
        self.failures += 1
        return min(self.settings.max_backoff, self.settings.interval * (2 ** (self.failures - 1)))


async def main(queue, args):
    """ansible-rulebook's entry point: bad arguments stop it here, before any request."""
    source = Source(Settings(args))
    try:
        await source.run(queue)
    finally:
        source.watcher.client.close()


if __name__ == "__main__":
    class _PrintQueue:
        async def put(self, one):
            print(json.dumps(one, sort_keys=True))  # noqa: T201

    asyncio.run(main(_PrintQueue(), {"interval": 10, "events": [kind for kind in KINDS if kind != "consumption"]}))
