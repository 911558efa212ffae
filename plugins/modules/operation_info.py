#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: operation_info
short_description: Read the operations of a Neon project
version_added: 1.0.0
description:
  - With O(operation_id), reads that one operation of the project.
  - Without it, lists the project's operations that match the filters, newest first - all of them, or the first
    O(max_results). Reading stops as soon as O(max_results) operations matched; RV(cursor) tells where a following
    call goes on.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description:
      - The project whose operations to read.
    type: str
    required: true
  operation_id:
    description:
      - Read only this operation (a UUID). The list options are then ignored.
    type: str
  page_size:
    description:
      - How many operations to ask for per request, from 1 to 1000.
    type: int
    default: 1000
  max_results:
    description:
      - Stop after this many matching operations. Without it, the whole list is read.
    type: int
  cursor:
    description:
      - Start after this position, as returned in RV(cursor) by an earlier call, to read the following operations.
    type: str
  status:
    description:
      - Only operations with one of these statuses.
      - The service uses V(scheduling), V(running), V(finished), V(failed), V(error), V(cancelling), V(cancelled)
        and V(skipped); other values are accepted as they are.
    type: list
    elements: str
  action:
    description:
      - Only operations with one of these actions, for example V(create_branch) or V(start_compute).
    type: list
    elements: str
  branch_id:
    description:
      - Only operations on this branch.
    type: str
  endpoint_id:
    description:
      - Only operations on this compute endpoint.
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
  - module: neon.cloud.operation_wait
"""

EXAMPLES = r"""
- name: Read one operation
  neon.cloud.operation_info:
    project_id: shiny-river-12345678
    operation_id: 0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10
  register: op

- name: The 20 newest failed operations
  neon.cloud.operation_info:
    project_id: shiny-river-12345678
    status: [failed, error]
    max_results: 20
  register: failures

- name: The next 20, continuing where the last call stopped
  neon.cloud.operation_info:
    project_id: shiny-river-12345678
    status: [failed, error]
    max_results: 20
    cursor: "{{ failures.cursor }}"
  when: failures.cursor is not none
"""

RETURN = r"""
operation:
  description: The operation, as the service returns it.
  returned: when O(operation_id) is given
  type: dict
  contains:
    id:
      description: The operation id.
      type: str
      sample: 0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10
    project_id:
      description: The project.
      type: str
      sample: shiny-river-12345678
    branch_id:
      description: The branch.
      type: str
      sample: br-wispy-dew-a1b2c3d4
    endpoint_id:
      description: The compute endpoint, when the operation concerns one.
      type: str
      sample: ep-cool-darkness-a1b2c3d4
    action:
      description: What the operation does, for example V(create_branch). New actions appear over time.
      type: str
      sample: start_compute
    status:
      description: V(scheduling), V(running), V(finished), V(failed), V(error), V(cancelling), V(cancelled) or V(skipped).
      type: str
      sample: finished
    failures_count:
      description: How many times the operation failed.
      type: int
      sample: 0
    error:
      description: What went wrong, when the service says.
      type: str
      sample: compute start timed out
    total_duration_ms:
      description: How long the operation took so far.
      type: int
      sample: 1520
    created_at:
      description: When the operation was created (ISO 8601, UTC).
      type: str
      sample: "2025-01-16T21:02:04Z"
    updated_at:
      description: When the operation last changed (ISO 8601, UTC).
      type: str
      sample: "2025-01-16T21:02:06Z"
operations:
  description:
    - The matching operations, newest first, each shaped like RV(operation).
  returned: when O(operation_id) is not given
  type: list
  elements: dict
  sample: [{"id": "0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10", "action": "start_compute", "status": "finished"}]
cursor:
  description:
    - Where a following call continues (pass it as O(cursor)); V(null) when the list was read to its end.
  returned: when O(operation_id) is not given
  type: str
  sample: "2025-01-16T21:02:04.214837Z"
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._api.operations import get_operation, list_operations
from ansible_collections.neon.cloud.plugins.module_utils._api.paging import OPERATIONS_PAGE_MAX

FIELD_FILTERS = ("status", "action", "branch_id", "endpoint_id")


def matcher(params):
    """A filter over operations from the options given, or None when none is."""
    wanted = {}
    for field in FIELD_FILTERS:
        value = params[field]
        if value is not None:
            wanted[field] = set(value) if isinstance(value, list) else set([value])
    if not wanted:
        return None
    return lambda operation: all(operation.get(field) in values for field, values in wanted.items())


def work(neon):
    params = neon.params
    neon.require_path_parameter("project_id")
    if params["operation_id"] is not None:
        neon.require_operation_id(params["operation_id"], "operation_id")
        return dict(changed=False, operation=get_operation(neon.client, params["project_id"], params["operation_id"]))
    if not 1 <= params["page_size"] <= OPERATIONS_PAGE_MAX:
        neon.fail("page_size must be from 1 to %d, got %d" % (OPERATIONS_PAGE_MAX, params["page_size"]))
    neon.require_positive("max_results")
    listed = list_operations(neon.client, params["project_id"], params["page_size"], cursor=params["cursor"],
                             max_results=params["max_results"], keep=matcher(params))
    return dict(changed=False, operations=listed.items, cursor=listed.next_cursor)


def main():
    NeonModule(
        argument_spec=dict(
            project_id=dict(type="str", required=True),
            operation_id=dict(type="str"),
            page_size=dict(type="int", default=OPERATIONS_PAGE_MAX),
            max_results=dict(type="int"),
            cursor=dict(type="str", no_log=False),
            status=dict(type="list", elements="str"),
            action=dict(type="list", elements="str"),
            branch_id=dict(type="str"),
            endpoint_id=dict(type="str"),
        ),
        supports_check_mode=True,
    ).run(work)


if __name__ == "__main__":
    main()
