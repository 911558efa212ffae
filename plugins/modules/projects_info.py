#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: projects_info
short_description: List the projects of a Neon account
version_added: 1.0.0
description:
  - Lists every project the API key reaches - the personal projects of the key's user, the projects of one
    organization (O(org_id)), or the projects other accounts shared with this one (O(shared)).
  - With a personal key of a user who belongs to organizations, the service may answer
    C(org_id is required). Without O(org_id), the module then takes the user's organization when there
    is exactly one (and warns that it did); with several it fails and lists them, so that you can choose.
  - The service may leave out projects it could not fetch in time. The module asks for those again; any that stay
    unavailable are returned in RV(unavailable_project_ids) with a warning, so an incomplete list never passes
    for a complete one.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description:
      - Only the project with this id.
    type: str
  name:
    description:
      - Only projects with exactly this name. Names are not unique.
    type: str
  region_id:
    description:
      - Only projects in this region, for example V(aws-us-east-2).
    type: str
  org_id:
    description:
      - List the projects of this organization, for example V(org-calm-tree-21298941).
      - The key must reach it - a personal key of a member, or a key of that organization.
      - Mutually exclusive with O(shared).
    type: str
  shared:
    description:
      - List the projects that other accounts shared with this one instead, with the same filters.
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
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: How the service pages projects, asks for an organization and leaves projects out.
"""

EXAMPLES = r"""
- name: List every project of the account
  neon.cloud.projects_info:
    api_key: "{{ neon_api_key }}"
  register: neon

- name: Show their names
  ansible.builtin.debug:
    msg: "{{ neon.projects | map(attribute='name') | list }}"

- name: Find one project by id, the key taken from NEON_API_KEY
  neon.cloud.projects_info:
    project_id: shiny-river-12345678
  register: neon_project

- name: Projects named "staging" in one region
  neon.cloud.projects_info:
    name: staging
    region_id: aws-eu-central-1
  register: staging

- name: The projects of an organization
  neon.cloud.projects_info:
    org_id: org-calm-tree-21298941
  register: org_projects

- name: The projects other accounts shared with this one
  neon.cloud.projects_info:
    shared: true
  register: shared_projects

- name: Stop when the service could not list every project
  ansible.builtin.assert:
    that: org_projects.unavailable_project_ids == []
    fail_msg: "Incomplete list, missing {{ org_projects.unavailable_project_ids | join(', ') }}"
"""

RETURN = r"""
projects:
  description:
    - The projects that match the filters, in the order the service lists them.
    - Each is the service's project object; fields not listed here are returned as the service sends them.
  returned: success
  type: list
  elements: dict
  contains:
    id:
      description: The project id.
      type: str
      sample: shiny-river-12345678
    name:
      description: The project name.
      type: str
      sample: demo-project
    region_id:
      description: The region the project runs in.
      type: str
      sample: aws-us-east-2
    platform_id:
      description: The cloud platform.
      type: str
      sample: aws
    pg_version:
      description: The Postgres major version.
      type: int
      sample: 17
    locked:
      description: Whether the project is locked.
      type: bool
      sample: false
    proxy_host:
      description: The host name clients connect to.
      type: str
      sample: us-east-2.aws.neon.tech
    created_at:
      description: When the project was created (ISO 8601, UTC).
      type: str
      sample: "2025-01-16T21:02:04Z"
    updated_at:
      description: When the project last changed (ISO 8601, UTC).
      type: str
      sample: "2025-01-17T08:00:00Z"
    org_id:
      description: The organization that owns the project, as the service gives it.
      type: str
      sample: org-calm-tree-21298941
    deleted_at:
      description: For a deleted project the service still lists, when it was deleted (June 2026 document).
      type: str
      returned: when the service answers it
      sample: "2026-06-12T10:00:00Z"
    recoverable_until:
      description: For a deleted project the service still lists, until when it can be recovered.
      type: str
      returned: when the service answers it
      sample: "2026-06-19T10:00:00Z"
unavailable_project_ids:
  description:
    - Ids of projects the service could not fetch in time, even when asked again. Empty when the list is
      complete.
  returned: success
  type: list
  elements: str
  sample: []
org_id:
  description:
    - The organization whose projects were listed - O(org_id), or the user's only organization when the
      service asked for one; V(null) for the personal projects and for O(shared).
  returned: success
  type: str
  sample: org-calm-tree-21298941
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._account.projects import ProjectReader


def work(neon):
    params = neon.params
    neon.require_path_parameter("org_id")
    found = ProjectReader(neon.client, project_id=params["project_id"], name=params["name"],
                          region_id=params["region_id"], org_id=params["org_id"], shared=params["shared"]).read()
    return dict(changed=False, projects=found.projects, unavailable_project_ids=found.unavailable,
                org_id=found.org_id, warnings=found.warnings)


def main():
    NeonModule(
        argument_spec=dict(
            project_id=dict(type="str"),
            name=dict(type="str"),
            region_id=dict(type="str"),
            org_id=dict(type="str"),
            shared=dict(type="bool", default=False),
        ),
        mutually_exclusive=[("org_id", "shared")],
        supports_check_mode=True,
    ).run(work)


if __name__ == "__main__":
    main()
