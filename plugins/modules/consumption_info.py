#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: consumption_info
short_description: Read the consumption of a Neon organization's projects or branches, for a usage report
version_added: 1.0.0
description:
  - Reads how much compute, storage, restore history, data transfer, extra branches and snapshot storage an
    organization's projects (or the branches of some of them) used in a range of time, per hour, day or month -
    for a monthly report per project, say - and adds each metric up.
  - Reads the service's current consumption endpoints, C(/consumption_history/v2/projects) (per project, every page)
    and C(/consumption_history/v2/branches) (per branch, every page). The older C(/consumption_history/account),
    deprecated by Neon in June 2026 and removed in August, is no longer read.
  - Per project is available on the Launch, Scale, Agent, Business and Enterprise plans; per branch on the paid
    usage-based Launch, Scale, Agent and Enterprise plans (not Business). On another plan the service refuses (HTTP
    403), and its message is the task's. They do not wake a project's computes.
  - A range the granularity does not reach fails before any request, naming the limit - hourly reaches the last
    168 hours, daily the last 60 days, monthly the past year (the month a year ago onwards), and nothing is kept
    from before 2024-03-01. The service rounds O(from) and O(to) down to the granularity.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  from:
    description:
      - The start of the range, an ISO 8601 date-time such as V(2025-05-01T00:00:00Z) (V(Z) or an offset) or a
        date, V(2025-05-01) (midnight UTC). Quote it in YAML.
    type: str
    required: true
  to:
    description:
      - The end of the range, as O(from). Every timeframe that starts before it is read, up to the current one
        (what was used so far).
      - Without it, the time the task runs.
    type: str
  granularity:
    description: The length of each timeframe.
    type: str
    choices: [hourly, daily, monthly]
    default: monthly
  scope:
    description:
      - V(projects) reads each project's consumption (RV(projects)).
      - V(branches) reads the consumption of each branch of the projects in O(project_ids) (RV(branches)); it needs
        O(project_ids), and does not read V(extra_branches_month) nor V(snapshot_storage_bytes_month).
      - The older V(account) scope is gone with the service's endpoint; the sum over the projects is RV(totals).
    type: str
    choices: [projects, branches]
    default: projects
  org_id:
    description:
      - The organization whose consumption is read. The service requires it.
    type: str
    required: true
  project_ids:
    description:
      - Only these projects (any number; the service takes 100 a request, so they are asked 100 at a time).
        Without it, every project of the organization (with O(scope=projects)); an empty list reads nothing.
      - With O(scope=branches), the projects whose branches are read (required).
      - A project that comes back with no consumption (not a project of the organization) is named in a warning.
    type: list
    elements: str
  branch_ids:
    description:
      - With O(scope=branches), only these branches (at most 100). Without it, every branch of O(project_ids).
    type: list
    elements: str
  metrics:
    description:
      - The metrics to read; the service requires them, so without it every metric of the scope is asked for.
      - V(extra_branches_month) and V(snapshot_storage_bytes_month) are read per project only.
    type: list
    elements: str
    choices: [compute_unit_seconds, root_branch_bytes_month, child_branch_bytes_month, instant_restore_bytes_month,
              public_network_transfer_bytes, private_network_transfer_bytes, extra_branches_month,
              snapshot_storage_bytes_month]
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - neon.cloud.api.info_module
  - ansible.builtin.action_common_attributes
notes:
  - The task paces its requests under about 30 requests a minute per account - up to 5 at once, then one every 2.4
    seconds, never more than 30 in a minute - so a large organization's report takes a while (100 projects or 1000
    branches a request).
  - The pace holds B(within one task) only - each task starts with its own burst. Tasks that read the same account
    at the same time (forks over the hosts of an inventory, several playbooks) are not paced together, and a loop
    of one task per project starts a burst for each.
  - To read a fleet's consumption paced, read it in B(one task) - O(project_ids) with every project id (or none, for
    every project), with C(run_once) or on one host. A per-host task given the keyword C(throttle) set to 1 (or
    its play C(serial) set to 1) reads one host at a time, so tasks never read at once; their bursts may still go
    past the limit.
  - A request the service refuses for its rate (HTTP 429) is asked again by the client after a pause (the
    C(Retry-After) the service gives, else a growing backoff), up to O(api_retries) times.
  - A metric the service answers that this collection does not know yet is returned as it comes and added up in
    the totals.
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.projects_info
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: What the consumption endpoints answer and how they are paged and rate limited (Consumption).
  - name: Neon consumption metrics
    description: The service's guide to its consumption endpoints.
    link: https://neon.com/docs/guides/consumption-metrics
"""

EXAMPLES = r"""
- name: Each project's consumption in the organization, month by month, since the start of the year
  neon.cloud.consumption_info:
    org_id: org-calm-tree-21298941
    from: "{{ now(utc=true).strftime('%Y-01-01') }}"
    granularity: monthly
  register: usage
  run_once: true

- name: One line per project and month
  ansible.builtin.debug:
    msg: >-
      {{ item.0.project_id }} {{ item.1.period_start[:7] }}:
      {{ (item.1.consumption | map(attribute='metrics') | flatten | selectattr('metric_name', 'equalto', 'compute_unit_seconds')
         | map(attribute='value') | sum / 3600) | round(1) }} compute unit hours
  loop: "{{ usage.projects | subelements('periods') }}"
  loop_control:
    label: "{{ item.0.project_id }} {{ item.1.period_start[:7] }}"

- name: The compute unit seconds of each project since the start of the year
  ansible.builtin.debug:
    msg: "{{ dict(usage.projects | map(attribute='project_id') | zip(usage.projects | map(attribute='totals.compute_unit_seconds'))) }}"

- name: Each branch of two projects, day by day, over the last week
  neon.cloud.consumption_info:
    org_id: org-calm-tree-21298941
    scope: branches
    project_ids: [bold-glade-61830452, quiet-brook-72914063]
    from: "{{ '%Y-%m-%d' | strftime(now(utc=true).timestamp() - 7 * 86400, utc=true) }}"
    granularity: daily
    metrics: [compute_unit_seconds, public_network_transfer_bytes]
  register: branch_usage
"""

RETURN = r"""
projects:
  description:
    - With O(scope=projects), each project the service answered, in its order (newest first), with its consumption.
  returned: with O(scope=projects)
  type: list
  elements: dict
  contains:
    project_id:
      description: The project's id.
      type: str
      sample: bold-glade-61830452
    periods:
      description:
        - The billing periods of the range, as the service answers them - C(period_id), C(period_plan),
          C(period_start), C(period_end) (for past periods) - each with its timeframes in C(consumption).
        - Each timeframe has C(timeframe_start), C(timeframe_end) and C(metrics), a list of C(metric_name) and
          C(value) (an integer), one per metric read.
      type: list
      elements: dict
      sample: [{"period_id": "79ec829f-1828-4006-ac82-9f1828a0067d", "period_plan": "scale",
                "period_start": "2025-05-01T00:00:00Z", "period_end": "2025-06-01T00:00:00Z",
                "consumption": [{"timeframe_start": "2025-05-01T00:00:00Z", "timeframe_end": "2025-06-01T00:00:00Z",
                                 "metrics": [{"metric_name": "compute_unit_seconds", "value": 520134},
                                             {"metric_name": "root_branch_bytes_month", "value": 1073741824}]}]}]
    totals:
      description:
        - Each metric read over the whole range - the sum of its timeframes (every metric adds up over time).
      type: dict
      sample: {"compute_unit_seconds": 520134, "root_branch_bytes_month": 1073741824}
branches:
  description:
    - With O(scope=branches), each branch the service answered, by project id then branch id, with its consumption.
  returned: with O(scope=branches)
  type: list
  elements: dict
  contains:
    project_id:
      description: The branch's project.
      type: str
      sample: bold-glade-61830452
    branch_id:
      description: The branch's id.
      type: str
      sample: br-aged-salad-637688
    periods:
      description: The billing periods of the range, as RV(projects[].periods).
      type: list
      elements: dict
    totals:
      description: Each metric read over the whole range, as RV(projects[].totals).
      type: dict
      sample: {"compute_unit_seconds": 86400, "public_network_transfer_bytes": 1048576}
totals:
  description:
    - Each metric read over the whole range and every project (or branch) read.
  returned: success
  type: dict
  sample: {"compute_unit_seconds": 1520134, "root_branch_bytes_month": 3073741824}
range:
  description: The range as asked of the service (O(from) and O(to) in UTC) and its granularity.
  returned: success
  type: dict
  sample: {"from": "2025-01-01T00:00:00Z", "to": "2025-06-15T09:30:00Z", "granularity": "monthly"}
"""

from ansible_collections.neon.cloud.plugins.module_utils._account import consumption
from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule


def work(neon):
    for name in ("project_ids", "branch_ids"):
        for item_id in neon.params[name] or ():
            neon.require_path_parameter(name, item_id)
    neon.require_path_parameter("org_id", neon.params["org_id"])
    return consumption.report(neon.client, neon.params)


def main():
    NeonModule(
        argument_spec={
            "from": dict(type="str", required=True),
            "to": dict(type="str"),
            "granularity": dict(type="str", default="monthly", choices=list(consumption.GRANULARITIES)),
            "scope": dict(type="str", default="projects", choices=list(consumption.SCOPES)),
            "org_id": dict(type="str", required=True),
            "project_ids": dict(type="list", elements="str"),
            "branch_ids": dict(type="list", elements="str"),
            "metrics": dict(type="list", elements="str", choices=list(consumption.PROJECT_METRICS)),
        },
        supports_check_mode=True,
    ).run(work)


if __name__ == "__main__":
    main()
