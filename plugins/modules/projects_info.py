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
  - Lists the projects of the account that the API key belongs to, following every page of
    C(GET /projects).
  - The service answers 10 projects a page unless asked for more; this module asks for the largest
    page (400 projects), so an account of up to 400 projects costs one request.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description:
      - Only the project with this id. Reading stops as soon as it is found.
    type: str
  name:
    description:
      - Only projects with exactly this name. Names are not unique.
    type: str
  region_id:
    description:
      - Only projects in this region, for example V(aws-us-east-2).
    type: str
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - neon.cloud.api.info_module
  - ansible.builtin.action_common_attributes
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
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._projects import list_projects


def run(neon):
    params = neon.params
    projects = list_projects(neon.client, project_id=params["project_id"], name=params["name"],
                             region_id=params["region_id"])
    return dict(changed=False, projects=projects)


def main():
    NeonModule(
        argument_spec=dict(
            project_id=dict(type="str"),
            name=dict(type="str"),
            region_id=dict(type="str"),
        ),
        supports_check_mode=True,
    ).run(run)


if __name__ == "__main__":
    main()
