#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: project
short_description: Create, update and delete Neon projects
version_added: 1.0.0
description:
  - Makes sure a Neon project exists with the settings asked for, or that it does not.
  - Without O(id), the project is found by its exact O(name) among the projects the key reaches (in O(org_id)
    when given). Project names are not unique; when two projects have the name, the task fails, names both ids
    and changes nothing.
  - Settings that can only be chosen when a project is created (O(region_id), O(pg_version), O(org_id)) are
    compared with an existing project; when one differs the task fails and changes nothing.
  - O(compute) sets the project's default compute settings and applies them to its existing default compute
    (the read-write compute of the default branch) too; the project's settings alone reach only computes
    created later.
  - A new project's connection URI, with the default role's password in it, is returned once, in
    RV(connection_uri); it stays in the result even when a later step of the task fails.
  - A task whose project is as asked changes nothing.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  name:
    description:
      - The project's name, 1 to 256 characters.
      - Required to create a project. With O(id), a different name renames the project.
    type: str
  id:
    description:
      - The project's id. The project must exist; a project is only created without O(id).
    type: str
  state:
    description:
      - V(present) creates the project or brings it to the settings asked for.
      - V(absent) deletes it, with all its branches, computes, roles and databases. Irreversible.
    type: str
    choices: [present, absent]
    default: present
  org_id:
    description:
      - The organization the project belongs to, such as V(org-calm-tree-21298941). Without O(id), only its
        projects are searched for O(name).
      - Can only be set when the project is created.
    type: str
  region_id:
    description:
      - The region, such as V(aws-us-east-2) or V(aws-eu-central-1). Can only be set when the project is created;
        the service chooses when it is left out.
    type: str
  pg_version:
    description:
      - The Postgres major version. Can only be set when the project is created.
    type: int
  history_retention_seconds:
    description:
      - How long the project keeps the history branches can be created from, in seconds (0 to 2592000).
        The maximum depends on the plan; the service refuses more.
    type: int
  compute:
    description:
      - The default compute settings, for computes created later and for the existing default compute.
      - Like any dict option, also a string - C(min_cu=0.25 max_cu=1), C(min_cu=0.25, max_cu=1) or a JSON object - as
        ad hoc C(-a 'compute="min_cu=0.25 max_cu=1"') gives it.
    type: dict
    suboptions:
      min_cu:
        description: The least compute units autoscaling may go down to (0.25 or more).
        type: float
      max_cu:
        description: The most compute units autoscaling may go up to.
        type: float
      suspend_timeout_seconds:
        description:
          - Seconds without activity before the compute is suspended. V(0) means the service's default,
            V(-1) never suspends. Some plans refuse other values.
        type: int
  default_branch:
    description: The name of the default branch made with a new project (the service's default is V(main)).
    type: str
  database:
    description: The name of the database made with a new project (the service's default is V(neondb)).
    type: str
  role:
    description: The name of the role made with a new project (the service's default is C(<database>_owner)).
    type: str
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.wait
  - neon.cloud.api.action_group
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Only reads; C(changed) and the diff tell what would be done.
  diff_mode:
    support: full
    details: Shows the compared settings (and the default compute's) before and after; never a secret.
notes:
  - O(default_branch), O(database) and O(role) are only used when the project is created.
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.branch
  - module: neon.cloud.connection_info
  - module: neon.cloud.projects_info
"""

EXAMPLES = r"""
- name: A project for the shop, in Frankfurt, on Postgres 17
  neon.cloud.project:
    name: shop
    region_id: aws-eu-central-1
    pg_version: 17
    compute:
      min_cu: 0.25
      max_cu: 2
      suspend_timeout_seconds: 300
  register: shop
  no_log: true

- name: Keep the connection URI of the new project (only in the run that created it)
  ansible.builtin.copy:
    content: "{{ shop.connection_uri }}"
    dest: /etc/shop/database-url
    mode: "0600"
  when: shop.connection_uri is defined
  no_log: true

- name: Rename a project known by id
  neon.cloud.project:
    id: shiny-river-12345678
    name: shop-production

- name: Delete the project
  neon.cloud.project:
    name: shop
    state: absent
"""

RETURN = r"""
project:
  description:
    - The project as the service answers it after the task (in check mode, as it would be; null when absent).
  returned: always
  type: dict
  contains:
    id:
      description: The project id.
      type: str
      sample: shiny-river-12345678
    name:
      description: The project name.
      type: str
      sample: shop
    region_id:
      description: The region.
      type: str
      sample: aws-eu-central-1
    pg_version:
      description: The Postgres major version.
      type: int
      sample: 17
    org_id:
      description: The organization, when the project belongs to one.
      type: str
      sample: org-calm-tree-21298941
    default_endpoint_settings:
      description: The default compute settings.
      type: dict
      sample: {"autoscaling_limit_min_cu": 0.25, "autoscaling_limit_max_cu": 2, "suspend_timeout_seconds": 300}
connection_uri:
  description:
    - The connection URI of the new project's default role and database, password included. A secret, shown
      only in the run that created the project; register the result with C(no_log).
    - Later, M(neon.cloud.connection_info) reads it again.
  returned: when the project was created (not in check mode), even if the task then failed
  type: str
  sample: postgresql://neondb_owner:secret@ep-cool-darkness-123456.eu-central-1.aws.neon.tech/neondb?sslmode=require
operations:
  description:
    - The operations the task started, in their last known state (ended, when O(wait=true)).
    - Each is the service's operation object; see M(neon.cloud.operation_info).
  returned: always
  type: list
  elements: dict
  sample: [{"id": "0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10", "action": "create_timeline", "status": "finished"}]
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.projects import Project
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import WAIT_ARGUMENT_SPEC

SETTINGS = ("name", "org_id", "region_id", "pg_version", "history_retention_seconds", "compute", "default_branch",
            "database", "role")


def work(neon):
    params = neon.params
    if params["name"] is not None and not 1 <= len(params["name"]) <= 256:
        neon.fail("name must be 1 to 256 characters long, got %d" % len(params["name"]))
    task = neon.resource_task("id", "org_id")
    project = Project(task, name=params["name"], project_id=params["id"], org_id=params["org_id"])
    if params["state"] == "absent":
        return project.absent()
    return project.present(dict((option, params[option]) for option in SETTINGS))


def main():
    spec = dict(
        name=dict(type="str"),
        id=dict(type="str"),
        state=dict(type="str", default="present", choices=["present", "absent"]),
        org_id=dict(type="str"),
        region_id=dict(type="str"),
        pg_version=dict(type="int"),
        history_retention_seconds=dict(type="int"),
        compute=dict(type="dict", options=dict(
            min_cu=dict(type="float"),
            max_cu=dict(type="float"),
            suspend_timeout_seconds=dict(type="int"),
        )),
        default_branch=dict(type="str"),
        database=dict(type="str"),
        role=dict(type="str"),
    )
    spec.update(WAIT_ARGUMENT_SPEC)
    NeonModule(
        argument_spec=spec,
        required_one_of=[("name", "id")],
        supports_check_mode=True,
    ).run(work)


if __name__ == "__main__":
    main()
