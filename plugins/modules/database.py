#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: database
short_description: Create, re-own and delete Postgres databases of a Neon branch
version_added: 1.0.0
description:
  - Makes sure a Postgres database with a given name exists on a branch, owned by a given role, or that it does
    not.
  - A database is identified by its name within its branch; running the task again changes nothing. An existing
    database whose owner differs from O(owner) is given that owner.
  - The owner must be a role of the branch (M(neon.cloud.role) creates one); when it is not, the task fails before
    sending anything.
  - Runs of the same task at the same time leave one database and all succeed.
  - Creating, re-owning or deleting a database changes the configuration of the branch's read-write compute
    (an C(apply_config) operation), which may drop its open connections; the service says so of such changes.
    Check mode tells whether this would happen.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  name:
    description:
      - The database's name (at most 63 bytes). V(postgres), V(template0) and V(template1) are the service's own.
    type: str
    required: true
  owner:
    description:
      - The name of the role that owns the database. Required to create one.
      - Given for an existing database, it becomes the owner.
    type: str
  state:
    description:
      - V(present) creates the database or gives it O(owner).
      - V(absent) deletes it, and everything in it. Irreversible.
    type: str
    choices: [present, absent]
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
      - An O(owner) role, a branch or a project that does not exist yet is taken as made by an earlier task of the
        play, with a warning saying so (see
        R(a dry run, ansible_collections.neon.cloud.docsite.troubleshooting.check_mode)); run for real, the task
        fails before sending anything unless one makes it.
  diff_mode:
    support: full
    details: Shows the database's name and owner before and after.
notes:
  - Child branches get copies of their parent's databases, data included.
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.role
  - module: neon.cloud.connection_info
  - module: neon.cloud.branch_info
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: How the service answers database requests, and what this module does about a second create.
"""

EXAMPLES = r"""
- name: The application's role
  neon.cloud.role:
    project_id: shiny-river-12345678
    branch: main
    name: app
  register: app_role
  no_log: true

- name: Its database, owned by it
  neon.cloud.database:
    project_id: shiny-river-12345678
    branch: main
    name: shop
    owner: app

- name: Another role, to hand the database over to (a database's owner must be a role of its branch)
  neon.cloud.role:
    project_id: shiny-river-12345678
    branch: main
    name: shop_admin
  no_log: true

- name: Hand the database over to that role
  neon.cloud.database:
    project_id: shiny-river-12345678
    branch: main
    name: shop
    owner: shop_admin

- name: Drop the scratch database
  neon.cloud.database:
    project_id: shiny-river-12345678
    branch: main
    name: scratch
    state: absent
"""

RETURN = r"""
database:
  description:
    - The database as the service answers it after the task (in check mode, as it would be).
    - For O(state=absent), the database deleted, or null when there was none.
  returned: always
  type: dict
  contains:
    id:
      description: The database's id.
      type: int
      sample: 4321
    name:
      description: The database's name.
      type: str
      sample: shop
    owner_name:
      description: The role that owns it.
      type: str
      sample: app
    branch_id:
      description: The branch's id.
      type: str
      sample: br-floral-wind-a5090hvr
branch_id:
  description: The id of the branch the database is on.
  returned: once the branch was found
  type: str
  sample: br-floral-wind-a5090hvr
operations:
  description: The operations the task started, in their last known state (ended, when O(wait=true)).
  returned: always
  type: list
  elements: dict
  sample: [{"id": "0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10", "action": "apply_config", "status": "finished"}]
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.roles_databases import Database
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import WAIT_ARGUMENT_SPEC


def main():
    spec = dict(
        project_id=dict(type="str", required=True),
        branch=dict(type="str"),
        name=dict(type="str", required=True),
        owner=dict(type="str"),
        state=dict(type="str", default="present", choices=["present", "absent"]),
    )
    spec.update(WAIT_ARGUMENT_SPEC)
    NeonModule(argument_spec=spec, supports_check_mode=True).run_resource(Database)


if __name__ == "__main__":
    main()
