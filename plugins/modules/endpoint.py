#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: endpoint
short_description: Create, size, start, suspend, restart and delete the computes of a Neon branch
version_added: 1.0.0
description:
  - Makes sure a branch has a compute (the API calls it an endpoint) of a given type and size, running or
    suspended as asked, or that it does not.
  - A branch has at most one read-write compute (the service's rule), so O(type=read_write) always means that
    one - asking for a second is the same compute, not an error. A branch may have several read-only computes;
    without O(id) the task means its only one (and creates it when there is none), and fails naming their ids
    when there are several.
  - Changing a compute's size or suspend timeout reconfigures it (an C(apply_config) operation, which may drop its
    open connections); V(restarted) and V(suspended) end them. Check mode and the diff show what would change.
  - Runs of the same task at the same time leave one read-write compute and all succeed; a run whose create came
    second uses the compute the other one created.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  type:
    description: The compute's type. Can only be chosen when it is created.
    type: str
    choices: [read_write, read_only]
    default: read_write
  id:
    description: The compute's id (C(ep-...)), to address one of several read-only computes. It must exist.
    type: str
  min_cu:
    description: The least compute units the compute scales down to (0.25 or more).
    type: float
  max_cu:
    description: The most compute units the compute scales up to (at least O(min_cu); the plan sets a maximum).
    type: float
  suspend_timeout_seconds:
    description:
      - Seconds without connections after which the compute suspends itself. V(0) is the service's default
        (300), V(-1) never suspends; otherwise 60 to 604800. The plan may not allow changing it.
    type: int
  state:
    description:
      - V(present) creates the compute or brings its settings to what is asked; whether it runs is left alone.
      - V(started) - the same, and the compute runs. V(suspended) - the same, and it is suspended (it starts
        again by itself on the next connection).
      - V(restarted) - the same, then the compute is restarted, on every run (the task reports a change every
        time).
      - V(absent) deletes the compute. Its branch and data stay.
    type: str
    choices: [present, absent, started, suspended, restarted]
    default: present
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.branch_item
  - neon.cloud.api.wait
  - neon.cloud.api.action_group
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details:
      - Only reads; C(changed) and the diff tell what would be done.
      - A branch or a project that does not exist yet is taken as made by an earlier task of the play, with a warning
        saying so (see R(a dry run, ansible_collections.neon.cloud.docsite.troubleshooting.check_mode)); run for
        real, the task fails before sending anything unless one makes it.
  diff_mode:
    support: full
    details: Shows the compute's size, suspend timeout and running state before and after.
notes:
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.branch
  - module: neon.cloud.connection_info
  - module: neon.cloud.branch_info
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: How the service answers compute requests, and what this module does about a second create.
"""

EXAMPLES = r"""
- name: The production branch's compute, between 1 and 4 compute units, never suspended
  neon.cloud.endpoint:
    project_id: shiny-river-12345678
    branch: main
    min_cu: 1
    max_cu: 4
    suspend_timeout_seconds: -1
  register: compute

- name: Its host
  ansible.builtin.debug:
    msg: "{{ compute.endpoint.host }}"

- name: A read-only compute for reports
  neon.cloud.endpoint:
    project_id: shiny-river-12345678
    branch: main
    type: read_only
    max_cu: 2

- name: Suspend the staging compute for the weekend
  neon.cloud.endpoint:
    project_id: shiny-river-12345678
    branch: staging
    state: suspended

- name: Restart it after changing Postgres settings
  neon.cloud.endpoint:
    project_id: shiny-river-12345678
    branch: staging
    state: restarted
"""

RETURN = r"""
endpoint:
  description:
    - The compute as the service answers it after the task (in check mode, as it would be).
    - For O(state=absent), the compute deleted, or null when there was none.
  returned: always
  type: dict
  contains:
    id:
      description:
        - The compute's id.
        - Null in check mode for a compute not created yet.
      type: str
      sample: ep-jolly-frost-a57qv4wh
    type:
      description: V(read_write) or V(read_only).
      type: str
      sample: read_write
    host:
      description:
        - The host to connect to.
        - Null in check mode for a compute not created yet (the service gives it the host when it makes it).
      type: str
      sample: ep-jolly-frost-a57qv4wh.eu-central-1.aws.neon.tech
    branch_id:
      description: The branch's id.
      type: str
      sample: br-floral-wind-a5090hvr
    current_state:
      description:
        - V(init) while it is being made, V(active) while it runs, V(idle) when suspended.
        - In check mode, the state the task would leave it in (V(idle) for O(state=suspended)).
        - With O(wait=true), never V(init) and never on its way to another state, on every run.
      type: str
      sample: active
    autoscaling_limit_min_cu:
      description: The least compute units.
      type: float
      sample: 0.25
    autoscaling_limit_max_cu:
      description: The most compute units.
      type: float
      sample: 2.0
    suspend_timeout_seconds:
      description: The suspend timeout, in seconds.
      type: int
      sample: 0
operations:
  description: The operations the task started, in their last known state (ended, when O(wait=true)).
  returned: always
  type: list
  elements: dict
  sample: [{"id": "0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10", "action": "start_compute", "status": "finished"}]
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.endpoints import Endpoint
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import WAIT_ARGUMENT_SPEC


def main():
    spec = dict(
        project_id=dict(type="str", required=True),
        branch=dict(type="str"),
        type=dict(type="str", default="read_write", choices=["read_write", "read_only"]),
        id=dict(type="str"),
        min_cu=dict(type="float"),
        max_cu=dict(type="float"),
        suspend_timeout_seconds=dict(type="int"),
        state=dict(type="str", default="present", choices=["present", "absent", "started", "suspended", "restarted"]),
    )
    spec.update(WAIT_ARGUMENT_SPEC)
    NeonModule(argument_spec=spec, supports_check_mode=True).run_resource(Endpoint)


if __name__ == "__main__":
    main()
