#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: project_recover
short_description: Recover a deleted Neon project within its 7-day recovery window
version_added: 1.0.0
description:
  - Brings back a project that was deleted, while the service still keeps it - for 7 days after its deletion. The
    service restores its branches, computes, settings and connection strings (some integrations need setting up
    again). Past the window the project is gone for good and the task fails saying so.
  - The deleted project is found by O(project_id) or O(name) among the projects the service lists as recoverable
    (C(GET /projects?recoverable=true)), in O(org_id) when given. A name that several deleted projects had is
    refused, naming each one's id and deletion time - give O(project_id).
  - A live project of the same name beside a deleted one is refused by name, since which one the task means is not
    clear - give O(project_id) to recover the deleted one as well (project names need not be unique, so two
    projects have that name then), or keep the live one and drop the task.
  - B(Running it again does not recover twice.) A project of that id, or of that name with no deleted one beside
    it, that is live already is left as it is (C(changed=false)). Two runs at once both succeed; the one whose
    request the service refuses finds the project live and says another run recovered it.
  - Waits until what the recovery runs on the project has ended (the service's answer names no operations, so the
    project's operations are read), then returns the project and its branches.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description: The deleted project's id. Mutually exclusive with O(name); one of them is required.
    type: str
  name:
    description: The name the deleted project had. Mutually exclusive with O(project_id).
    type: str
  org_id:
    description:
      - The organization whose deleted projects are looked at. Without it, the projects the key lists (an
        organization key's organization; a personal key's own projects, or its user's only organization when the
        service needs an C(org_id)).
    type: str
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.wait
  - neon.cloud.api.action_group
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details:
      - Only reads - the recovery is not sent. C(changed) and the diff tell whether the project would be
        recovered; RV(project) is the deleted project as listed.
  diff_mode:
    support: full
    details:
      - Shows the project deleted (when, and until when it is recoverable), then live.
notes:
  - The service answers HTTP 404 for a project past its window and HTTP 409 for a recovery it refuses as things are;
    the task fails naming the status, the service's words and its request id, and what it means.
  - A project-scoped API key stops working when its project is deleted; recover the project with a personal or an
    organization key.
  - Project recovery is marked beta in the service's API.
seealso:
  - module: neon.cloud.branch_recover
  - module: neon.cloud.project
  - ref: ansible_collections.neon.cloud.docsite.recovery_runbooks
    description: The recovery runbooks - I deleted the wrong project.
"""

EXAMPLES = r"""
- name: Bring back the project deleted by mistake, by the name it had
  neon.cloud.project_recover:
    name: shop-production
  register: recovered

- name: Say what came back
  ansible.builtin.debug:
    msg: >-
      project {{ recovered.project.id }} is back with its branches
      {{ recovered.branches | map(attribute='name') | join(', ') }}

- name: What recovering a project by its id would do (nothing is sent)
  neon.cloud.project_recover:
    project_id: shiny-river-12345678
  check_mode: true
  diff: true
"""

RETURN = r"""
project:
  description:
    - The project as the service answers it once recovered (in check mode, the deleted project as listed; when it was
      live already, as it is).
  returned: always
  type: dict
  sample: {"id": "shiny-river-12345678", "name": "shop-production", "region_id": "aws-us-east-2"}
branches:
  description: The project's branches once what the recovery runs has ended (empty in check mode).
  returned: always
  type: list
  elements: dict
  sample: [{"id": "br-young-poetry-rogubbb8", "name": "main", "default": true, "current_state": "ready"}]
recovered_from:
  description:
    - The deletion the task undid, as the service listed it - null when there was nothing to recover (the project
      was live already).
  returned: always
  type: dict
  contains:
    deleted_at:
      description: When the project was deleted.
      type: str
      sample: "2026-11-27T09:14:02Z"
    recoverable_until:
      description: Until when the service keeps it.
      type: str
      sample: "2026-12-04T09:14:02Z"
operations:
  description:
    - Always empty - the service's answer to a recovery names no operations. What the recovery runs on the project is
      waited for all the same (read from the project's operations) when O(wait=true).
  returned: always
  type: list
  elements: dict
  sample: []
ttl_removed:
  description: Always false (a project has no TTL); there for the same result shape as M(neon.cloud.branch_recover).
  returned: always
  type: bool
  sample: false
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.recoveries import ProjectRecovery
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import WAIT_ARGUMENT_SPEC


def main():
    spec = dict(
        project_id=dict(type="str"),
        name=dict(type="str"),
        org_id=dict(type="str"),
    )
    spec.update(WAIT_ARGUMENT_SPEC)
    NeonModule(
        argument_spec=spec,
        mutually_exclusive=[("project_id", "name")],
        required_one_of=[("project_id", "name")],
        supports_check_mode=True,
    ).run_writer(ProjectRecovery)


if __name__ == "__main__":
    main()
