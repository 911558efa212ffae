#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: branch_info
short_description: List the branches of a Neon project, with their computes
version_added: 1.0.0
description:
  - Lists every branch of a project, each with its computes in C(endpoints) as M(neon.cloud.branch) returns them
    (the read-write compute first).
  - With O(roles_and_databases=true), each branch also lists its Postgres roles and databases - never a password.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description: The project's id.
    type: str
    required: true
  name:
    description:
      - Only the branch with exactly this name (names are unique within a project). An empty list when there
        is none.
    type: str
  roles_and_databases:
    description:
      - Add each branch's roles (C(roles), without passwords) and databases (C(databases)).
      - M(neon.cloud.role) with O(neon.cloud.role#module:reveal_password) reads a role's password.
    type: bool
    default: false
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - neon.cloud.api.info_module
  - ansible.builtin.action_common_attributes
notes:
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.branch
  - module: neon.cloud.role
  - module: neon.cloud.database
  - module: neon.cloud.endpoint
"""

EXAMPLES = r"""
- name: Every branch of the project
  neon.cloud.branch_info:
    project_id: shiny-river-12345678
  register: found

- name: The names of the branches that expire
  ansible.builtin.debug:
    msg: "{{ found.branches | selectattr('expires_at', 'defined') | map(attribute='name') | list }}"

- name: One branch, by name
  neon.cloud.branch_info:
    project_id: shiny-river-12345678
    name: pr-42
  register: pr

- name: Its read-write compute's host
  ansible.builtin.debug:
    msg: "{{ pr.branches[0].endpoints[0].host }}"
  when: pr.branches | length > 0 and pr.branches[0].endpoints | length > 0

- name: The databases of the default branch and who owns them
  neon.cloud.branch_info:
    project_id: shiny-river-12345678
    name: main
    roles_and_databases: true
  register: main_branch

- name: Show them
  ansible.builtin.debug:
    msg: "{{ main_branch.branches[0].databases | items2dict(key_name='name', value_name='owner_name') }}"
"""

RETURN = r"""
branches:
  description:
    - The branches, in the order the service lists them. Each is the service's branch object with C(endpoints)
      added.
  returned: success
  type: list
  elements: dict
  contains:
    id:
      description: The branch id.
      type: str
      sample: br-floral-wind-a5090hvr
    name:
      description: The branch name.
      type: str
      sample: pr-42
    parent_id:
      description: The parent branch's id; none for a root branch.
      type: str
      sample: br-aged-salad-637688
    default:
      description: Whether this is the project's default branch.
      type: bool
      sample: false
    protected:
      description: Whether the branch is protected.
      type: bool
      sample: false
    current_state:
      description: V(init), V(ready), V(resetting) or V(archived).
      type: str
      sample: ready
    recovery:
      description:
        - For a deleted branch the service still lists (within its recovery window), when it was deleted
          (C(deleted_at)), until when it can be recovered (C(recoverable_until)) and how (C(deletion_method),
          V(user) or V(ttl), or a method the service adds later), as the service answers it (June 2026 document).
      type: dict
      returned: when the service answers it
      sample: {"deleted_at": "2026-06-12T10:00:00Z", "recoverable_until": "2026-06-19T10:00:00Z",
               "deletion_method": "user"}
    endpoints:
      description: The branch's computes, the read-write one first.
      type: list
      elements: dict
      sample: [{"id": "ep-jolly-frost-a57qv4wh", "type": "read_write",
                "host": "ep-jolly-frost-a57qv4wh.eu-central-1.aws.neon.tech"}]
    roles:
      description: The branch's Postgres roles, without passwords.
      returned: when O(roles_and_databases=true)
      type: list
      elements: dict
      sample: [{"name": "app", "protected": false}]
    databases:
      description: The branch's databases, each with its owner.
      returned: when O(roles_and_databases=true)
      type: list
      elements: dict
      sample: [{"id": 4321, "name": "shop", "owner_name": "app"}]
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.branches import branches_with_endpoints
from ansible_collections.neon.cloud.plugins.module_utils._resources.roles_databases import DATABASE, ROLE, list_roles_or_databases


def work(neon):
    neon.require_path_parameter("project_id")
    project_id = neon.params["project_id"]
    branches = branches_with_endpoints(neon.client, project_id, neon.params["name"])
    if neon.params["roles_and_databases"]:
        for branch in branches:
            branch["roles"] = list_roles_or_databases(neon.client, project_id, branch["id"], ROLE)
            branch["databases"] = list_roles_or_databases(neon.client, project_id, branch["id"], DATABASE)
    return dict(changed=False, branches=branches)


def main():
    NeonModule(
        argument_spec=dict(
            project_id=dict(type="str", required=True),
            name=dict(type="str"),
            roles_and_databases=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    ).run(work)


if __name__ == "__main__":
    main()
