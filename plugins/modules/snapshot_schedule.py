#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: snapshot_schedule
short_description: Set the backup schedule of a Neon branch
version_added: 1.0.0
description:
  - Makes a branch's backup schedule - when the service takes snapshots of it by itself, and how long it keeps
    them - exactly the items given. Items the branch has and the task does not give are removed; the order of
    the items does not matter.
  - A schedule found as asked is no change, and costs one read when O(branch) is a branch id (its schedule is read
    at once) or two when it is a name or left out (the project's branches, to find the branch, then its schedule).
    A fleet play can hold one schedule on every production branch, as it holds the projects' settings - give the
    branch ids to keep each run to one read.
  - Every item is checked before anything is sent. Backup schedules are available on Neon's paid plans and are
    in Beta.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description: The project's id.
    type: str
    required: true
  branch:
    description: The branch, by name or id. Without it, the project's default branch.
    type: str
  schedule:
    description:
      - The whole schedule. An empty list removes it.
    type: list
    elements: dict
    required: true
    suboptions:
      frequency:
        description: How often a snapshot is taken. The service takes no other frequency.
        type: str
        required: true
        choices: [daily, weekly, monthly]
      hour:
        description: The hour of the day it is taken, from 0 to 23 (UTC).
        type: int
        required: true
      day:
        description:
          - For V(weekly), the day of the week, from 1 (Monday) to 7; for V(monthly), the day of the month, from 1
            to 31. Required for both; not used by V(daily).
        type: int
      retention_seconds:
        description:
          - How long each snapshot is kept, in seconds, from 3600 (an hour) to 3024000 (35 days). Without it, the
            service's default (35 days).
        type: int
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Only reads; C(changed) and the diff tell whether the schedule would change.
  diff_mode:
    support: full
    details: Shows the schedule's items before and after.
notes:
  - The schedule's change starts no operation, so there is nothing to wait for.
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.snapshot_info
  - module: neon.cloud.snapshot_restore
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: The items the service takes and the snapshots a schedule keeps.
"""

EXAMPLES = r"""
- name: A snapshot of production every night, kept a week, and one every Sunday, kept a month
  neon.cloud.snapshot_schedule:
    project_id: bold-glade-61830452
    branch: main
    schedule:
      - frequency: daily
        hour: 2
        retention_seconds: 604800
      - frequency: weekly
        day: 7
        hour: 3
        retention_seconds: 2592000
  register: backups

- name: No more scheduled snapshots of the branch dev
  neon.cloud.snapshot_schedule:
    project_id: bold-glade-61830452
    branch: dev
    schedule: []
"""

RETURN = r"""
schedule:
  description: The branch's schedule as the service holds it after the task (in check mode, as it would be).
  returned: always
  type: list
  elements: dict
  contains:
    frequency:
      description: V(daily), V(weekly) or V(monthly).
      type: str
      sample: daily
    hour:
      description: The hour of the day (UTC).
      type: int
      sample: 2
    day:
      description: The day of the week or month, for weekly and monthly items.
      type: int
      sample: 7
    retention_seconds:
      description: How long each snapshot is kept.
      type: int
      sample: 604800
branch_id:
  description: The id of the branch.
  returned: once the branch was found
  type: str
  sample: br-floral-wind-a5090hvr
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.schedules import BackupSchedule


def main():
    item = dict(
        frequency=dict(type="str", required=True, choices=["daily", "weekly", "monthly"]),
        hour=dict(type="int", required=True),
        day=dict(type="int"),
        retention_seconds=dict(type="int"),
    )
    NeonModule(
        argument_spec=dict(
            project_id=dict(type="str", required=True),
            branch=dict(type="str"),
            schedule=dict(type="list", elements="dict", required=True, options=item),
        ),
        supports_check_mode=True,
    ).run_writer(BackupSchedule)


if __name__ == "__main__":
    main()
