# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A branch's backup schedule (``neon.cloud.snapshot_schedule``): the items as asked are the whole schedule.

``GET /projects/{id}/branches/{id}/backup_schedule`` answers ``{schedule: [...]}``; ``PUT`` of the
same path with ``{schedule: [...]}`` replaces it and answers 200 with an empty body (or an object).
The service takes only daily, weekly and monthly items; ``hour`` is required, ``day`` too for weekly
and monthly items; a snapshot is kept ``retention_seconds`` (at least an hour, at most 35 days).
The facts are in docs/docsite/rst/api-behaviour.rst, "Snapshots and backup schedules".

The rules (``schedule_problem``, ``same_schedule``) are pure; ``BackupSchedule`` is a Writer (writer.py):
it reads, compares and writes with ResourceTask (task.py). A schedule found as asked is no write and one read when the branch is
given by its id (the schedule, read at once); two when it is given by name or left to the default branch
(the project's branches to find it, then its schedule).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import branch_label, choose_branch, list_branches, locate_branch
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import NOTHING, UPDATE, Plan
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import Writer

FREQUENCIES = ("daily", "weekly", "monthly")
HOURS = (0, 23)
DAYS = {"weekly": (1, 7), "monthly": (1, 31)}
RETENTION_SECONDS = (3600, 35 * 86400)
ITEM_FIELDS = ("frequency", "hour", "day", "retention_seconds")
# What the collection reads of a schedule item (SPEC BackupScheduleItem).
SCHEDULE_ITEM_FIELDS = dict(required={"frequency": (str,)},
                            optional={"hour": (int, type(None)), "day": (int, type(None)),
                                      "retention_seconds": (int, type(None))})
# A branch id (``br-wispy-meadow-a5l2dqxb``): its schedule is read at once, without listing the branches.
BRANCH_ID = re.compile(r"^br-[a-z0-9-]{1,57}$")


def schedule_problem(items):
    """Why the service would refuse these schedule items (dicts of ``ITEM_FIELDS``), or None."""
    for index, item in enumerate(items):
        where = "schedule[%d]" % index
        frequency = item.get("frequency")
        if frequency not in FREQUENCIES:
            return "%s.frequency must be daily, weekly or monthly (the service refuses the others), got %r" % (
                where, frequency)
        hour = item.get("hour")
        if hour is None or not HOURS[0] <= hour <= HOURS[1]:
            return "%s.hour is required, the hour of the day from %d to %d (UTC), got %r" % ((where,) + HOURS + (hour,))
        day = item.get("day")
        if frequency == "daily" and day is not None:
            return "%s.day is not used by a daily item; leave it out" % where
        if frequency in DAYS and (day is None or not DAYS[frequency][0] <= day <= DAYS[frequency][1]):
            return "%s.day is required for a %s item, %s from %d to %d, got %r" % (
                where, frequency, "the day of the week (1 is Monday)" if frequency == "weekly" else
                "the day of the month", DAYS[frequency][0], DAYS[frequency][1], day)
        retention = item.get("retention_seconds")
        if retention is not None and not RETENTION_SECONDS[0] <= retention <= RETENTION_SECONDS[1]:
            return "%s.retention_seconds must be from %d (an hour) to %d (35 days), got %d" % (
                (where,) + RETENTION_SECONDS + (retention,))
    return None


def normalised(items):
    """The items as compared and sent: only their fields that are set, in one order (order does not matter)."""
    kept = [dict((field, item[field]) for field in ITEM_FIELDS if item.get(field) is not None) for item in items]
    return sorted(kept, key=lambda item: tuple((field, item.get(field, -1)) for field in ITEM_FIELDS))


def same_schedule(current, wanted):
    """Whether the schedule ``current`` (as the service answers it) is ``wanted``, whatever the order of the items."""
    return normalised(current) == normalised(wanted)


def schedule_items(data, path):
    """``{schedule: [...]}`` of a GET, each item checked."""
    return answers.items_of(data, "GET", path, "schedule", SCHEDULE_ITEM_FIELDS)


class BackupSchedule(Writer):
    """The backup schedule of ``branch`` (name or id; None: the default branch) of ``project_id``: ``items``."""

    starts_operations = False
    path_options = ("project_id", "branch")

    @classmethod
    def from_options(cls, task, options):
        return cls(task, options["project_id"], options["branch"], options["schedule"])

    def __init__(self, task, project_id, branch, items):
        super(BackupSchedule, self).__init__(task)
        self.project_id = project_id
        self.wanted_branch = branch
        self.items = normalised(items)
        self.label = "the backup schedule of branch %r" % branch if branch else "the backup schedule of the default branch"

    def read(self):
        """(branch id, its schedule), once the items asked are ones the service takes (before any request)."""
        problem = schedule_problem(self.items)
        if problem:
            raise Refusal(problem)
        branch_id, current = self._read()
        self.task.kept["branch_id"] = branch_id
        self.task.kept["schedule"] = current
        return branch_id, current

    def decide(self, current):
        if same_schedule(current[1], self.items):
            return Plan(NOTHING, "%s is as asked" % self.label)
        return Plan(UPDATE, "%s is not as asked" % self.label, body={"schedule": self.items})

    def diff(self, current, plan):
        before = {"schedule": normalised(current[1])}
        return before, {"schedule": self.items} if plan.changed else before

    def as_planned(self, current, plan, after):
        if plan.changed:
            self.task.kept["schedule"] = self.items
        return after

    def act(self, current, plan):
        # No project id: a 423 is retried by the client (the schedule's change starts no operation to wait for).
        # Its success is an empty object or, as Neon's API reference says, an empty body (api-behaviour.rst).
        self.task.change("PUT", self._path(current[0]), None, plan.body, "Setting " + self.label, no_content=True)
        self.task.did("%s was set" % self.label)
        return current[0]

    def read_again(self, current, done, after):
        self.task.kept["schedule"] = self._get(done)
        return after

    def _path(self, branch_id):
        return project_path(self.project_id, "branches", branch_id, "backup_schedule")

    def _get(self, branch_id):
        path = self._path(branch_id)
        return schedule_items(self.client.get(path), path)

    def _read(self):
        """(branch id, schedule): one request for a branch given by id, two otherwise (the branches, the schedule)."""
        wanted = self.wanted_branch
        if wanted is not None and BRANCH_ID.match(wanted):
            try:
                return wanted, self._get(wanted)
            except NeonAPIError as error:
                if error.status != 404:
                    raise
            # No branch of that id (or no such project): the listing says which, or finds a branch of that name.
            branch = choose_branch(list_branches(self.client, self.project_id), wanted, self.project_id)
            if branch["id"] == wanted:  # listed, but its schedule answered 404
                raise Refusal("project %s has no branch %r" % (self.project_id, wanted))
        else:
            branch = locate_branch(self.client, self.project_id, wanted)
        self.label = "the backup schedule of branch %s" % branch_label(branch)
        return branch["id"], self._get(branch["id"])
