#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: snapshot_info
short_description: List the snapshots of a Neon project
version_added: 1.0.0
description:
  - Lists a project's snapshots - those taken by hand (M(neon.cloud.snapshot)) and those a backup schedule took
    (M(neon.cloud.snapshot_schedule)) - optionally only those of one name or of one branch.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description: The project's id.
    type: str
    required: true
  name:
    description: Only the snapshot with exactly this name (names are unique within a project). An empty list when there is none.
    type: str
  branch:
    description:
      - Only the snapshots taken of this branch, by name or id.
      - The id of a branch deleted since still finds the snapshots taken of it.
    type: str
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - neon.cloud.api.info_module
  - ansible.builtin.action_common_attributes
notes:
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.snapshot
  - module: neon.cloud.snapshot_restore
"""

EXAMPLES = r"""
- name: Every snapshot of the project
  neon.cloud.snapshot_info:
    project_id: shiny-river-12345678
  register: found

- name: The snapshots a backup schedule took of the production branch
  ansible.builtin.debug:
    msg: "{{ found.snapshots | rejectattr('manual') | map(attribute='name') | list }}"

- name: The snapshots of the branch main
  neon.cloud.snapshot_info:
    project_id: shiny-river-12345678
    branch: main
  register: of_main
"""

RETURN = r"""
snapshots:
  description: The project's snapshots as the service lists them (only those asked for).
  returned: always
  type: list
  elements: dict
  contains:
    id:
      description: The snapshot's id.
      type: str
      sample: snap-quiet-meadow-a5l2dqxb
    name:
      description: Its name.
      type: str
      sample: before-migration-42
    source_branch_id:
      description: The id of the branch it was taken of.
      type: str
      sample: br-floral-wind-a5090hvr
    timestamp:
      description: The moment of the branch it holds.
      type: str
      sample: "2026-01-31T22:00:00Z"
    lsn:
      description: The log sequence number of that moment.
      type: str
      sample: 0/1A2B3C4
    created_at:
      description: When it was taken.
      type: str
      sample: "2026-01-31T22:00:02Z"
    expires_at:
      description: When the service deletes it by itself; absent when never.
      type: str
      sample: "2026-02-28T00:00:00Z"
    manual:
      description: Whether it was taken by hand, not by a backup schedule.
      type: bool
      sample: true
    full_size:
      description:
        - The snapshot's full logical size in bytes when it was taken (the service's June 2026 document); absent while
          not calculated yet. V(0) means it is not charged.
      type: int
      sample: 8389120
    diff_size:
      description:
        - The growth in bytes since the previous scheduled snapshot, when the snapshot is charged on that; absent
          otherwise.
      type: int
      sample: 838912
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.snapshots import snapshot_info


def work(neon):
    neon.require_path_parameter("project_id")
    params = neon.params
    # A project that does not exist is a Refusal (a TaskFailure): NeonModule.run fails the task with its sentence.
    return dict(changed=False, snapshots=snapshot_info(neon.client, params["project_id"], params["name"], params["branch"]))


def main():
    NeonModule(
        argument_spec=dict(
            project_id=dict(type="str", required=True),
            name=dict(type="str"),
            branch=dict(type="str"),
        ),
        supports_check_mode=True,
    ).run(work)


if __name__ == "__main__":
    main()
