#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: advisor_info
short_description: Read the security and performance advisor issues of a Neon project
version_added: 1.0.0
description:
  - Reads what Neon's database advisor finds in one database of a project - tables exposed without row-level
    security, say, or foreign keys without an index - each issue with its severity (C(ERROR), C(WARN), C(INFO)),
    categories, what it found and a link to how to fix it.
  - The service filters the issues by O(category) and O(min_severity); they are returned as it gives them.
  - The advisor needs read access to the project and the project's Data API enabled (the service's rule). The
    service calls the endpoint alpha.
  - In check mode, an empty O(project_id) is a project an earlier task of the play would make (it has no id yet).
    It has no issues, and a warning says so.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description: The project's id.
    type: str
    required: true
  branch:
    description: The branch analysed, by name or id. Without it, the project's default branch.
    type: str
  database_name:
    description: The database analysed. Required by the service when the branch has more than one database.
    type: str
  category:
    description: Only the issues of this category.
    type: str
    choices: [SECURITY, PERFORMANCE]
  min_severity:
    description: Only the issues of this severity or a higher one (V(WARN) reads C(WARN) and C(ERROR) issues).
    type: str
    choices: [INFO, WARN, ERROR]
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - neon.cloud.api.info_module
  - ansible.builtin.action_common_attributes
seealso:
  - ref: ansible_collections.neon.cloud.docsite.project_baseline
    description: The security issues of every project in the baseline's nightly drift report.
  - module: neon.cloud.data_api
"""

EXAMPLES = r"""
- name: The security issues of severity ERROR of a project's default branch
  neon.cloud.advisor_info:
    project_id: bold-glade-61830452
    category: SECURITY
    min_severity: ERROR
  register: advisor

- name: Fail the pipeline on any of them
  ansible.builtin.assert:
    that: advisor.issues | length == 0
    fail_msg: "{{ advisor.issues | map(attribute='detail') | join('; ') }}"
"""

RETURN = r"""
issues:
  description: The advisor's issues, as the service gives them, in its order.
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: The kind of issue.
      type: str
      sample: rls_disabled_in_public
    title:
      description: Its title.
      type: str
      sample: RLS Disabled in Public
    level:
      description: Its severity, V(ERROR), V(WARN) or V(INFO) (a level the service adds later is passed on as it is).
      type: str
      sample: ERROR
    categories:
      description: Its categories, V(SECURITY) or V(PERFORMANCE).
      type: list
      elements: str
      sample: [SECURITY]
    facing:
      description: V(EXTERNAL) when it affects what the Data API exposes, V(INTERNAL) otherwise.
      type: str
      sample: EXTERNAL
    description:
      description: What the check detects.
      type: str
    detail:
      description: What it found here.
      type: str
      sample: Table `public.users` is public, but RLS has not been enabled.
    remediation:
      description: A link to how to fix it.
      type: str
      sample: https://neon.com/docs/data-api/database-advisor
    metadata:
      description: More about the issue, as the service gives it.
      type: dict
    cache_key:
      description: The issue's key.
      type: str
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.advisors import CATEGORIES, SEVERITIES, advisor_issues


def work(neon):
    neon.require_project_id()
    neon.require_path_parameter("branch")
    params = neon.params
    warnings = []
    issues = advisor_issues(neon.client, params["project_id"], params["branch"], params["database_name"],
                            params["category"], params["min_severity"], neon.check_mode, warnings)
    return dict(changed=False, issues=issues, warnings=warnings)


def main():
    NeonModule(
        argument_spec=dict(
            project_id=dict(type="str", required=True),
            branch=dict(type="str"),
            database_name=dict(type="str"),
            category=dict(type="str", choices=list(CATEGORIES)),
            min_severity=dict(type="str", choices=list(SEVERITIES)),
        ),
        supports_check_mode=True,
    ).run(work)


if __name__ == "__main__":
    main()
