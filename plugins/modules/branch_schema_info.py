#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: branch_schema_info
short_description: Read a database's schema on a Neon branch, or how it differs from another branch's
version_added: 1.0.0
description:
  - Returns the schema of a database on a branch - as it is now, or at a point of the branch's history - as
    pg_dump-style SQL (RV(sql)) or, with O(format=json), as a list of tables and their columns (RV(json)).
  - With O(compare_to), returns instead how the branch's schema differs from another branch's (each at its own
    point, when given) - the service's unified diff in RV(schema_diff), and RV(differs) - so that a playbook
    can check that staging's schema matches production's before a deploy.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description: The project's id.
    type: str
    required: true
  branch:
    description: The branch, by name or id.
    type: str
    required: true
  database:
    description: The database whose schema is read.
    type: str
    required: true
  timestamp:
    description:
      - Read the branch's schema as it was at this moment (an RFC 3339 timestamp such as V(2026-05-04T02:55:00Z) -
        a real date, an upper-case T, the time to the second and its time zone - V(Z) or an offset such as
        V(+02:00)), within the project's history window. Without it or O(lsn), as it is now.
      - Mutually exclusive with O(lsn).
    type: str
  lsn:
    description: Read the branch's schema as it was at this Log Sequence Number, such as V(0/1F2E3D4).
    type: str
  format:
    description:
      - V(sql) returns the schema as SQL text in RV(sql); V(json) as tables and their columns in RV(json).
      - Not used with O(compare_to), whose result is the diff.
    type: str
    choices: [sql, json]
    default: sql
  compare_to:
    description:
      - The branch to compare with, optionally at a point of its own history. The result is the difference from
        its schema to the schema of O(branch) (at O(timestamp) or O(lsn) when given) - lines starting with C(+)
        are what O(branch) has that it has not.
    type: dict
    suboptions:
      branch:
        description: The branch, by name or id.
        type: str
        required: true
      timestamp:
        description:
          - Its schema as it was at this moment (an RFC 3339 timestamp, as O(timestamp)). Mutually exclusive with
            O(compare_to.lsn).
        type: str
      lsn:
        description: Its schema as it was at this Log Sequence Number.
        type: str
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - neon.cloud.api.info_module
  - ansible.builtin.action_common_attributes
notes:
  - A timestamp that is not RFC 3339, an LSN that is not one, or both given, fail before any request. A database
    the branch does not have, or a point outside the history window, fails with the service's words.
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.branch_restore
  - module: neon.cloud.branch_info
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: How the service answers schemas and their comparison.
"""

EXAMPLES = r"""
- name: Read the schema of neondb on main
  neon.cloud.branch_schema_info:
    project_id: shiny-river-12345678
    branch: main
    database: neondb
  register: schema

- name: Show it
  ansible.builtin.debug:
    msg: "{{ schema.sql }}"

- name: Compare staging's schema with main's before the deploy
  neon.cloud.branch_schema_info:
    project_id: shiny-river-12345678
    branch: staging
    database: neondb
    compare_to:
      branch: main
  register: drift

- name: Stop the deploy when they differ
  ansible.builtin.assert:
    that: not drift.differs
    fail_msg: "staging's schema differs from main's: {{ drift.schema_diff }}"
"""

RETURN = r"""
sql:
  description: The schema as SQL text (pg_dump style); empty for a database without tables.
  returned: when O(format=sql) and without O(compare_to)
  type: str
  sample: "CREATE TABLE public.orders (\n    id bigint,\n    total bigint\n);\n"
json:
  description: The schema as tables and their columns.
  returned: when O(format=json) and without O(compare_to)
  type: dict
  contains:
    tables:
      description: Each table with its Postgres schema, name and columns (each with its name and type).
      type: list
      elements: dict
      sample: [{"schema": "public", "name": "orders", "columns": [{"name": "id", "type": "bigint"}]}]
schema_diff:
  description:
    - The service's unified diff (its C(diff)) from the schema of O(compare_to) (C(---) lines) to that of O(branch)
      (C(+++)); empty when they are the same.
    - Named so, not C(diff), because Ansible takes a result's C(diff) for the before and after of C(--diff).
  returned: with O(compare_to)
  type: str
  sample: "--- a/neondb\n+++ b/neondb\n@@ -1,3 +1,4 @@\n CREATE TABLE public.orders (\n-    id bigint\n+    id bigint,\n+    email text\n );\n"
differs:
  description: Whether the two schemas differ (RV(schema_diff) is not empty).
  returned: with O(compare_to)
  type: bool
  sample: false
branch_id:
  description: The id of O(branch).
  returned: success
  type: str
  sample: br-shy-morning-c4pz0lx9
compare_to_branch_id:
  description: The id of O(compare_to.branch).
  returned: with O(compare_to)
  type: str
  sample: br-young-poetry-rogubbb8
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.schemas import schema_info, schema_input_problem


def work(neon):
    params = neon.params
    problem = schema_input_problem(params["timestamp"], params["lsn"], params["compare_to"])
    if problem:
        neon.fail(problem)
    for name in ("project_id", "branch"):
        neon.require_path_parameter(name)
    return schema_info(neon.client, params["project_id"], params["branch"], params["database"], params["timestamp"],
                       params["lsn"], params["format"], params["compare_to"])


def main():
    NeonModule(
        argument_spec=dict(
            project_id=dict(type="str", required=True),
            branch=dict(type="str", required=True),
            database=dict(type="str", required=True),
            timestamp=dict(type="str"),
            lsn=dict(type="str"),
            format=dict(type="str", choices=["sql", "json"], default="sql"),
            compare_to=dict(type="dict", options=dict(
                branch=dict(type="str", required=True),
                timestamp=dict(type="str"),
                lsn=dict(type="str"),
            ), mutually_exclusive=[("timestamp", "lsn")]),
        ),
        mutually_exclusive=[("timestamp", "lsn")],
        supports_check_mode=True,
    ).run(work)


if __name__ == "__main__":
    main()
