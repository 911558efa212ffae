#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: connection_info
short_description: Get the connection URI of a Neon branch
version_added: 1.0.0
description:
  - Returns the connection URI of a branch's read-write compute for a role and a database, and its parts,
    the password among them. Run it with C(no_log) - its result is a secret.
  - The URI is always the branch's read-write compute's (its pooler's with O(pooled=true)), never another
    compute's or another branch's; a branch without a read-write compute fails the task.
  - The service keeps passwords unless the project was created with C(store_passwords=false); then it cannot
    give one.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description: The project's id.
    type: str
    required: true
  branch:
    description: The branch, by name or id. Without it, the project's default branch.
    type: str
  database:
    description: The database to connect to. May be left out when the branch has exactly one.
    type: str
  role:
    description: The role to connect as. May be left out when the branch has exactly one.
    type: str
  pooled:
    description:
      - Connect through the compute's connection pooler (PgBouncer, host C(<endpoint>-pooler...)), for
        applications that open many short connections.
    type: bool
    default: false
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - neon.cloud.api.info_module
  - ansible.builtin.action_common_attributes
notes:
  - In check mode, a branch, its read-write compute, a role or a database that does not exist yet (or a null or
    empty O(project_id), a project only predicted) is taken as made by an earlier task of the play - the result then
    has a null RV(uri), RV(host), RV(port) and RV(password), with a warning saying so (see
    R(a dry run, ansible_collections.neon.cloud.docsite.troubleshooting.check_mode)). Run for real, the task fails
    naming what is missing.
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.branch
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: How the service lists computes and builds connection URIs, and what this module checks.
"""

EXAMPLES = r"""
- name: The pull request's branch, made from main, so it has main's roles and databases
  neon.cloud.branch:
    project_id: shiny-river-12345678
    name: pr-42
    parent: main

- name: Its pooled connection URI, for the database and role a new project comes with
  neon.cloud.connection_info:
    project_id: shiny-river-12345678
    branch: pr-42
    database: neondb
    role: neondb_owner
    pooled: true
  register: database
  no_log: true

- name: Run the migrations against it
  ansible.builtin.command: ./migrate up
  environment:
    DATABASE_URL: "{{ database.uri }}"
  no_log: true
  changed_when: true

- name: The default branch's direct connection URI; its only database and role need no naming
  neon.cloud.connection_info:
    project_id: shiny-river-12345678
  register: main_database
  no_log: true
"""

RETURN = r"""
uri:
  description: The connection URI, password included. A secret. Null in check mode when it is predicted (see notes).
  returned: success
  type: str
  sample: postgresql://shop_owner:secret@ep-jolly-frost-a57qv4wh-pooler.eu-central-1.aws.neon.tech/shop?sslmode=require
host:
  description: The host of the URI - the compute's, or its pooler's with O(pooled=true).
  returned: success
  type: str
  sample: ep-jolly-frost-a57qv4wh-pooler.eu-central-1.aws.neon.tech
port:
  description: The port (5432 unless the URI names another).
  returned: success
  type: int
  sample: 5432
database:
  description: The database.
  returned: success
  type: str
  sample: shop
role:
  description: The role.
  returned: success
  type: str
  sample: shop_owner
password:
  description: The role's password. A secret.
  returned: success
  type: str
  sample: secret
pooled:
  description: Whether the URI goes through the pooler.
  returned: success
  type: bool
  sample: true
branch_id:
  description: The branch's id.
  returned: success
  type: str
  sample: br-floral-wind-a5090hvr
endpoint_id:
  description: The read-write compute's id.
  returned: success
  type: str
  sample: ep-jolly-frost-a57qv4wh
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.connections import connection_details


def work(neon):
    params = neon.params
    if not neon.check_mode or (params["project_id"] or "").strip():
        neon.require_path_parameter("project_id")
    warnings = []
    details = connection_details(neon.client, params["project_id"], branch=params["branch"],
                                 database=params["database"], role=params["role"], pooled=params["pooled"],
                                 check_mode=neon.check_mode, warnings=warnings)
    return dict(changed=False, warnings=warnings, **details)


def main():
    NeonModule(
        argument_spec=dict(
            project_id=dict(type="str", required=True),
            branch=dict(type="str"),
            database=dict(type="str"),
            role=dict(type="str"),
            pooled=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    ).run(work)


if __name__ == "__main__":
    main()
