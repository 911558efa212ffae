#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: project_vpc_endpoint
short_description: Restrict a Neon project to connections from one AWS VPC endpoint (Private Networking)
version_added: 1.0.0
description:
  - Makes sure a project accepts connections only from a given VPC endpoint, with a label, or that it has no such
    restriction.
  - The endpoint must first be assigned to the project's organization, in the project's region
    (M(neon.cloud.vpc_endpoint)); otherwise the service refuses the restriction, and its message is the task's.
    A personal project (of no organization) cannot be restricted.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description: The project's id.
    type: str
    required: true
  vpc_endpoint_id:
    description:
      - The AWS VPC endpoint's id, V(vpce-) and 8 or 17 hexadecimal digits in lower case. Anything else is refused
        before anything is sent.
    type: str
    required: true
  label:
    description:
      - A label for the restriction. When it differs from the restriction's, it is changed.
      - Without it, an existing restriction's label is left as it is, and a new one gets an empty label.
    type: str
  state:
    description:
      - V(present) restricts the project to the endpoint, or changes the restriction's label.
      - V(absent) removes the restriction. Nothing happens when there is none.
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Only reads; C(changed) and the diff tell what would be done.
  diff_mode:
    support: full
    details: Shows the endpoint's id and the restriction's label before and after.
notes:
  - Setting and removing a restriction start no operations, so there is nothing to wait for.
  - A task whose answer is lost (a network error after the request was sent) fails without sending it again; run it
    again, it converges.
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.vpc_endpoint
  - module: neon.cloud.vpc_endpoint_info
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: How the service answers VPC endpoint requests (Private networking).
"""

EXAMPLES = r"""
- name: The organization's VPC endpoint in the project's region
  neon.cloud.vpc_endpoint:
    org_id: org-calm-tree-21298941
    region_id: aws-eu-central-1
    vpc_endpoint_id: vpce-0a1b2c3d4e5f67890
    label: production-vpc

- name: The checkout project accepts connections from that VPC only
  neon.cloud.project_vpc_endpoint:
    project_id: bold-glade-61830452
    vpc_endpoint_id: vpce-0a1b2c3d4e5f67890
    label: production-vpc

- name: Lift the restriction
  neon.cloud.project_vpc_endpoint:
    project_id: bold-glade-61830452
    vpc_endpoint_id: vpce-0a1b2c3d4e5f67890
    state: absent
"""

RETURN = r"""
vpc_endpoint:
  description:
    - The restriction after the task (in check mode, as it would be).
    - For O(state=absent), the restriction removed, or null when there was none (or another run removed it
      meanwhile).
  returned: always
  type: dict
  contains:
    vpc_endpoint_id:
      description: The endpoint's id.
      type: str
      sample: vpce-0a1b2c3d4e5f67890
    label:
      description: The restriction's label.
      type: str
      sample: production-vpc
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.vpc_endpoints import ProjectVpcRestriction


def main():
    NeonModule(
        argument_spec=dict(
            project_id=dict(type="str", required=True),
            vpc_endpoint_id=dict(type="str", required=True),
            label=dict(type="str"),
            state=dict(type="str", default="present", choices=["present", "absent"]),
        ),
        supports_check_mode=True,
    ).run_writer(ProjectVpcRestriction)


if __name__ == "__main__":
    main()
