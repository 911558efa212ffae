#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: operation_wait
short_description: Wait until Neon operations end
version_added: 1.0.0
description:
  - Waits until the given operations of a project end, or until the project has no operation in progress.
  - An operation ends well with status V(finished) or V(skipped), and badly with V(failed), V(error) or
    V(cancelled). Any other status, known or not, counts as still in progress.
  - Polling spends the account's request budget, which the console and every other job share.
  - A poll that meets a fault is retried as any request is (O(api_retries)); a fault that outlasts those retries
    (the API stopped answering, or keeps answering 429 or 5xx) ends the wait at once with that error, as a read
    would, rather than holding the task until O(timeout). HTTP 423 (locked) is polled through until O(timeout).
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  operation_ids:
    description:
      - Ids of the operations to wait for. Needs O(project_id).
      - Mutually exclusive with O(operations).
    type: list
    elements: str
    aliases:
      - operation_id
  operations:
    description:
      - Operation objects to wait for, as a request that starts work returns them in its C(operations)
        list. Each must have an C(id); its C(project_id) is used when present, else O(project_id).
      - An empty list means there is nothing to wait for.
      - Mutually exclusive with O(operation_ids).
    type: list
    elements: dict
  project_id:
    description:
      - The project of the operations.
      - Required with O(operation_ids), or when neither O(operation_ids) nor O(operations) is given;
        then the module waits until the project has no operation in progress.
    type: str
  timeout:
    description:
      - How many seconds to wait in all. The task fails when operations are still in progress by then.
      - The wait never lasts longer than this plus one request's O(api_timeout).
    type: float
    default: 600
  poll_interval:
    description:
      - Seconds between two polls. The service suggests 5.
    type: float
    default: 5
  fail_on_failure:
    description:
      - Whether the task fails when an operation ends with V(failed), V(error) or V(cancelled).
      - With V(false), the task succeeds and RV(failed_operations) lists them.
    type: bool
    default: true
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - neon.cloud.api.info_module
  - ansible.builtin.action_common_attributes
notes:
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.operation_info
"""

EXAMPLES = r"""
- name: Start work with the API (here a branch) and get its operations back
  ansible.builtin.uri:
    url: "https://console.neon.tech/api/v2/projects/{{ project_id }}/branches"
    method: POST
    headers:
      Authorization: "Bearer {{ neon_api_key }}"
    body_format: json
    body: {branch: {name: feature-x}, endpoints: [{type: read_write}]}
    status_code: [200, 201]
  register: created
  no_log: true

- name: Wait for the operations it started
  neon.cloud.operation_wait:
    operations: "{{ created.json.operations }}"
    timeout: 300

- name: Wait for two operations by id
  neon.cloud.operation_wait:
    project_id: shiny-river-12345678
    operation_ids:
      - 0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10
      - 5f0e3b1a-7c2d-4e8f-9a6b-1d3c5e7f9a20

- name: Wait until the project is idle, and look at failures without failing
  neon.cloud.operation_wait:
    project_id: shiny-river-12345678
    fail_on_failure: false
  register: idle

- name: Report failed operations
  ansible.builtin.debug:
    msg: "{{ idle.failed_operations }}"
  when: idle.failed_operations | length > 0
"""

RETURN = r"""
operations:
  description:
    - The last state of each operation waited for, in the order given (all that were in progress,
      when waiting for the project to be idle). Returned on failure and timeout too.
    - Each is the service's operation object; see M(neon.cloud.operation_info) for its fields.
  returned: always
  type: list
  elements: dict
  sample: [{"id": "0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10", "action": "start_compute", "status": "finished",
            "failures_count": 0, "project_id": "shiny-river-12345678"}]
failed_operations:
  description: The operations that ended with V(failed), V(error) or V(cancelled).
  returned: always
  type: list
  elements: dict
  sample: []
elapsed:
  description: Seconds the wait took.
  returned: always
  type: float
  sample: 12.4
polls:
  description: How many times the operations were polled.
  returned: always
  type: int
  sample: 3
requests:
  description: How many API requests the wait made, retries included.
  returned: always
  type: int
  sample: 3
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._api.operations import OperationWaiter, describe_operation


def targets_from(neon):
    """(project_id, operation_id) pairs from the options, or None to wait for the project to be idle."""
    params = neon.params
    neon.require_path_parameter("project_id")
    project_id = params["project_id"]
    if params["operations"] is not None:
        targets = []
        for index, operation in enumerate(params["operations"]):
            operation_id = operation.get("id")
            owner = operation.get("project_id") or project_id
            if not operation_id:
                neon.fail("operations[%d] has no id: give operation objects as the API returns them" % index)
            if not owner:
                neon.fail("operations[%d] (%s) has no project_id: set the project_id option" % (index, operation_id))
            neon.require_operation_id(operation_id, "operations[%d].id" % index)
            if not isinstance(owner, str):
                neon.fail("operations[%d].project_id must be a string" % index)
            neon.require_path_parameter("operations[%d].project_id" % index, owner)
            targets.append((owner, operation_id))
        return targets
    if not project_id:
        neon.fail("project_id is required unless every entry of operations carries one")
    if params["operation_ids"] is None:
        return None
    for operation_id in params["operation_ids"]:
        neon.require_operation_id(operation_id, "operation_ids")
    return [(project_id, operation_id) for operation_id in params["operation_ids"]]


def failure_message(outcome, timeout):
    if outcome.timed_out:
        pending = outcome.pending
        if outcome.operations:
            message = "Timed out after %s s with %d of %d operations still in progress: %s" % (
                timeout, len(pending), len(outcome.operations),
                "; ".join(describe_operation(operation.get("id"), operation) for operation in pending))
        else:
            message = "Timed out after %s s: the project's operations could not be listed" % timeout
        if outcome.last_fault is not None:
            message += ". The last poll failed: %s" % outcome.last_fault
        return message
    failed = outcome.failed
    return "%d of %d operations ended badly: %s" % (
        len(failed), len(outcome.operations),
        "; ".join(describe_operation(operation.get("id"), operation) for operation in failed))


def work(neon):
    params = neon.params
    neon.require_positive("timeout")
    neon.require_positive("poll_interval")
    if params["poll_interval"] > params["timeout"]:
        neon.fail("poll_interval (%s) must not be greater than timeout (%s)" % (params["poll_interval"], params["timeout"]))
    targets = targets_from(neon)
    waiter = OperationWaiter(neon.client, params["timeout"], params["poll_interval"])
    outcome = waiter.wait_until_idle(params["project_id"]) if targets is None else waiter.wait_for(targets)
    result = dict(changed=False, operations=outcome.operations, failed_operations=outcome.failed,
                  elapsed=outcome.elapsed, polls=outcome.polls, requests=outcome.requests)
    if outcome.error is not None:
        neon.fail_from(outcome.error, **result)
    if outcome.timed_out or (outcome.failed and params["fail_on_failure"]):
        neon.fail(failure_message(outcome, params["timeout"]), **result)
    return result


def main():
    NeonModule(
        argument_spec=dict(
            operation_ids=dict(type="list", elements="str", aliases=["operation_id"]),
            operations=dict(type="list", elements="dict"),
            project_id=dict(type="str"),
            timeout=dict(type="float", default=600.0),
            poll_interval=dict(type="float", default=5.0),
            fail_on_failure=dict(type="bool", default=True),
        ),
        mutually_exclusive=[("operation_ids", "operations")],
        supports_check_mode=True,
    ).run(work)


if __name__ == "__main__":
    main()
