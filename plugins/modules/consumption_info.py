#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: consumption_info
short_description: Read the consumption of a Neon account or of its projects, for a usage report
version_added: 1.0.0
description:
  - Reads how much compute time, active time, written data and storage an account's projects used in a range of time,
    per hour, day or month - for a monthly report per project, say - and adds each metric up.
  - Reads the service's older consumption endpoints, C(/consumption_history/projects) (per project, every page) and
    C(/consumption_history/account) (the account). The service says their figures B(do not match the invoice) on
    usage-based plans; for billing, use the invoice.
  - They are available on the Scale, Business and Enterprise plans only; on another plan the service refuses
    (HTTP 403), and its message is the task's. They do not wake a project's computes.
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
      - V(account) reads the account's as a whole (RV(periods)); it has no O(project_ids), nor the C(logical_size)
        metrics.
    type: str
    choices: [projects, account]
    default: projects
  project_ids:
    description:
      - Only these projects (any number; the service takes 100 a request, so they are asked 100 at a time).
        Without it, every project of the account; an empty list reads nothing.
      - A project that comes back with no consumption (not a project of the account) is named in a warning.
    type: list
    elements: str
  org_id:
    description:
      - The organization whose consumption is read. Without it, the account of the API key (an organization key's
        organization, a personal key's own account).
    type: str
  metrics:
    description:
      - The metrics to read. Without it, V(active_time_seconds), V(compute_time_seconds), V(written_data_bytes) and
        V(synthetic_storage_size_bytes).
      - V(logical_size_bytes) and V(logical_size_bytes_hour) are read per project only.
      - V(data_storage_bytes_hour), V(logical_size_bytes) and V(logical_size_bytes_hour) are optional in the
        service's answers - a timeframe may come without one - and count as 0 in the totals when missing.
    type: list
    elements: str
    choices: [active_time_seconds, compute_time_seconds, written_data_bytes, synthetic_storage_size_bytes,
              data_storage_bytes_hour, logical_size_bytes, logical_size_bytes_hour]
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - neon.cloud.api.info_module
  - ansible.builtin.action_common_attributes
notes:
  - The two endpoints allow about 30 requests a minute per account together. A task paces its own requests under
    that - up to 5 at once, then one every 2.4 seconds, never more than 30 in a minute - so a large account's
    report takes a while (100 projects a request).
  - The pace holds B(within one task) only - each task starts with its own burst. Tasks that read the same account
    at the same time (forks over the hosts of an inventory, several playbooks) are not paced together, and a loop
    of one task per project starts a burst for each.
  - To read a fleet's consumption paced, read it in B(one task) - O(project_ids) with every project id (or none, for
    every project), with C(run_once) or on one host. A per-host task given the keyword C(throttle) set to 1 (or
    its play C(serial) set to 1) reads one host at a time, so tasks never read at once; their bursts may still go
    past the limit.
  - A request the service refuses for its rate (HTTP 429) is asked again by the client after a pause (the
    C(Retry-After) the service gives, else a growing backoff), up to O(api_retries) times.
  - The service updates the figures about every 15 minutes.
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
      {{ ((item.1.consumption | map(attribute='compute_time_seconds') | sum) / 3600) | round(1) }} compute hours
  loop: "{{ usage.projects | subelements('periods') }}"
  loop_control:
    label: "{{ item.0.project_id }} {{ item.1.period_start[:7] }}"

- name: The compute seconds of each project since the start of the year
  ansible.builtin.debug:
    msg: "{{ dict(usage.projects | map(attribute='project_id') | zip(usage.projects | map(attribute='totals.compute_time_seconds'))) }}"

- name: The account's consumption, day by day, over the last week
  neon.cloud.consumption_info:
    org_id: org-calm-tree-21298941
    scope: account
    from: "{{ '%Y-%m-%d' | strftime(now(utc=true).timestamp() - 7 * 86400, utc=true) }}"
    granularity: daily
    metrics: [compute_time_seconds, data_storage_bytes_hour]
  register: account_usage
"""

RETURN = r"""
projects:
  description:
    - With O(scope=projects), each project the service answered, in its order, with its consumption.
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
        - Each timeframe has C(timeframe_start), C(timeframe_end) and one integer per metric read (one of the
          optional metrics may be missing, as O(metrics) says).
      type: list
      elements: dict
      sample: [{"period_id": "79ec829f-1828-4006-ac82-9f1828a0067d", "period_plan": "scale",
                "period_start": "2025-05-01T00:00:00Z", "period_end": "2025-06-01T00:00:00Z",
                "consumption": [{"timeframe_start": "2025-05-01T00:00:00Z", "timeframe_end": "2025-06-01T00:00:00Z",
                                 "active_time_seconds": 861231, "compute_time_seconds": 520134,
                                 "written_data_bytes": 1073741824, "synthetic_storage_size_bytes": 5368709120}]}]
    totals:
      description:
        - Each metric read over the whole range - the sum of its timeframes; for a size (V(synthetic_storage_size_bytes),
          V(logical_size_bytes)), the largest value of a timeframe instead, as a size does not add up over time.
      type: dict
      sample: {"active_time_seconds": 861231, "compute_time_seconds": 520134, "written_data_bytes": 1073741824,
               "synthetic_storage_size_bytes": 5368709120}
periods:
  description: With O(scope=account), the account's billing periods, as RV(projects[].periods).
  returned: with O(scope=account)
  type: list
  elements: dict
totals:
  description:
    - Each metric read over the whole range and every project (as RV(projects[].totals); a size is the largest sum
      of the projects' sizes in one timeframe).
  returned: success
  type: dict
  sample: {"active_time_seconds": 2861231, "compute_time_seconds": 1520134, "written_data_bytes": 3073741824,
           "synthetic_storage_size_bytes": 15368709120}
range:
  description: The range as asked of the service (O(from) and O(to) in UTC) and its granularity.
  returned: success
  type: dict
  sample: {"from": "2025-01-01T00:00:00Z", "to": "2025-06-15T09:30:00Z", "granularity": "monthly"}
"""

from ansible_collections.neon.cloud.plugins.module_utils._account import consumption
from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule


def work(neon):
    for project_id in neon.params["project_ids"] or ():
        neon.require_path_parameter("project_ids", project_id)
    return consumption.report(neon.client, neon.params)


def main():
    NeonModule(
        argument_spec={
            "from": dict(type="str", required=True),
            "to": dict(type="str"),
            "granularity": dict(type="str", default="monthly", choices=list(consumption.GRANULARITIES)),
            "scope": dict(type="str", default="projects", choices=["projects", "account"]),
            "project_ids": dict(type="list", elements="str"),
            "org_id": dict(type="str"),
            "metrics": dict(type="list", elements="str", choices=list(consumption.PROJECT_METRICS)),
        },
        supports_check_mode=True,
    ).run(work)


if __name__ == "__main__":
    main()
