#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: vpc_endpoint_info
short_description: List the VPC endpoints of a Neon organization, or those a project is restricted to
version_added: 1.0.0
description:
  - With O(org_id), lists the AWS VPC endpoints assigned to the organization, in every region or in O(region_id),
    each with its state and the projects restricted to it.
  - With O(project_id), lists the VPC endpoints the project is restricted to.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  org_id:
    description: The organization whose endpoints are listed.
    type: str
  region_id:
    description: Only the organization's endpoints in this region. Needs O(org_id).
    type: str
  project_id:
    description: The project whose restrictions are listed.
    type: str
  details:
    description:
      - With O(org_id), read each endpoint's state and restricted projects (one more request per endpoint).
      - With V(false), each endpoint has only its id, label and region.
    type: bool
    default: true
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - neon.cloud.api.info_module
  - ansible.builtin.action_common_attributes
notes:
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.vpc_endpoint
  - module: neon.cloud.project_vpc_endpoint
"""

EXAMPLES = r"""
- name: Every VPC endpoint of the organization, with its state
  neon.cloud.vpc_endpoint_info:
    org_id: org-calm-tree-21298941
  register: org_endpoints

- name: The endpoints the service has not accepted yet
  ansible.builtin.debug:
    msg: "{{ org_endpoints.vpc_endpoints | rejectattr('state', 'equalto', 'accepted') | map(attribute='vpc_endpoint_id') | list }}"

- name: The organization's endpoints in one region, without their details
  neon.cloud.vpc_endpoint_info:
    org_id: org-calm-tree-21298941
    region_id: aws-eu-central-1
    details: false

- name: The endpoints a project is restricted to
  neon.cloud.vpc_endpoint_info:
    project_id: bold-glade-61830452
  register: restricted
"""

RETURN = r"""
vpc_endpoints:
  description: The endpoints, in the order the service lists them.
  returned: success
  type: list
  elements: dict
  contains:
    vpc_endpoint_id:
      description: The endpoint's id.
      type: str
      sample: vpce-0a1b2c3d4e5f67890
    label:
      description: Its label (of the assignment, or of the project's restriction).
      type: str
      sample: production-vpc
    region_id:
      description: The region it is assigned in.
      returned: with O(org_id)
      type: str
      sample: aws-eu-central-1
    state:
      description: V(new) (pending acceptance) or V(accepted).
      returned: with O(org_id) and O(details=true)
      type: str
      sample: accepted
    num_restricted_projects:
      description: How many projects are restricted to it.
      returned: with O(org_id) and O(details=true)
      type: int
      sample: 1
    example_restricted_projects:
      description: The ids of at most three of those projects.
      returned: with O(org_id) and O(details=true)
      type: list
      elements: str
      sample: [bold-glade-61830452]
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.vpc_endpoints import (
    organization_vpc_endpoints,
    project_vpc_endpoints,
)


def work(neon):
    params = neon.params
    for name in ("org_id", "region_id", "project_id"):
        neon.require_path_parameter(name)
    if params["project_id"] is not None:
        return dict(changed=False, vpc_endpoints=project_vpc_endpoints(neon.client, params["project_id"]))
    return dict(changed=False, vpc_endpoints=organization_vpc_endpoints(neon.client, params["org_id"],
                                                                        params["region_id"], params["details"]))


def main():
    NeonModule(
        argument_spec=dict(
            org_id=dict(type="str"),
            region_id=dict(type="str"),
            project_id=dict(type="str"),
            details=dict(type="bool", default=True),
        ),
        mutually_exclusive=[("org_id", "project_id")],
        required_one_of=[("org_id", "project_id")],
        required_by={"region_id": "org_id"},
        supports_check_mode=True,
    ).run(work)


if __name__ == "__main__":
    main()
