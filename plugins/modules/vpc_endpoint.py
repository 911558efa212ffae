#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: vpc_endpoint
short_description: Assign an AWS VPC endpoint to a Neon organization in a region (Private Networking)
version_added: 1.0.0
description:
  - Makes sure an AWS VPC endpoint (AWS PrivateLink) is assigned to a Neon organization in a region, with a label,
    or that it is not. Once assigned, the organization's projects in that region accept connections from that VPC,
    unless a project is restricted to another endpoint (M(neon.cloud.project_vpc_endpoint)).
  - A new assignment is C(new) until the service accepts the connection, then C(accepted) (RV(vpc_endpoint.state)).
    The task does not wait for that; run M(neon.cloud.vpc_endpoint_info) later to see it.
  - Removing an endpoint from an organization B(cannot be undone) - the service does not let that endpoint be
    assigned to the organization again. The task warns so, and the diff's header says it.
  - Private Networking needs the Scale plan or above; the service refuses the assignment otherwise, and its
    message is the task's.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  org_id:
    description:
      - The organization's id.
      - An organization the key does not reach fails the task, naming it, before anything is sent - never taken
        for an endpoint that is not assigned.
    type: str
    required: true
  region_id:
    description:
      - The Neon region of the endpoint, such as V(aws-eu-central-1). The endpoint, the client and the projects
        are in the same AWS region.
      - Azure regions (V(azure-*)) are refused before anything is sent; the service does not support them.
    type: str
    required: true
  vpc_endpoint_id:
    description:
      - The AWS VPC endpoint's id, V(vpce-) and 8 or 17 hexadecimal digits in lower case, as AWS shows it. Anything
        else is refused before anything is sent.
    type: str
    required: true
  label:
    description:
      - A label for the endpoint. When it differs from the endpoint's, it is changed (the same request that assigns
        an endpoint changes its label).
      - Without it, an assigned endpoint's label is left as it is, and a new assignment gets an empty label.
    type: str
  state:
    description:
      - V(present) assigns the endpoint, or changes its label.
      - V(absent) removes it from the organization, for good (see above). Nothing happens when it is not assigned.
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
    details: Shows the endpoint's id and label before and after; a removal's header says it cannot be undone.
notes:
  - Assigning, relabelling and removing start no operations, so there is nothing to wait for.
  - A task whose answer is lost (a network error after the request was sent) fails without sending it again; run it
    again, it converges.
  - An endpoint that another run removes between this task's read and its removal is left as it is - C(changed) is
    false and the diff shows no change.
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.project_vpc_endpoint
  - module: neon.cloud.vpc_endpoint_info
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: How the service answers VPC endpoint requests (Private networking).
  - name: Neon Private Networking
    description: The service's guide to AWS PrivateLink with Neon.
    link: https://neon.com/docs/guides/neon-private-networking
"""

EXAMPLES = r"""
- name: Assign the production VPC's endpoint to the organization
  neon.cloud.vpc_endpoint:
    org_id: org-calm-tree-21298941
    region_id: aws-eu-central-1
    vpc_endpoint_id: vpce-0a1b2c3d4e5f67890
    label: production-vpc
  register: assigned

- name: Say whether the service accepted it yet
  ansible.builtin.debug:
    msg: "{{ assigned.vpc_endpoint.vpc_endpoint_id }} is {{ assigned.vpc_endpoint.state }}"

- name: Remove a retired VPC's endpoint (it can never be assigned to the organization again)
  neon.cloud.vpc_endpoint:
    org_id: org-calm-tree-21298941
    region_id: aws-eu-central-1
    vpc_endpoint_id: vpce-0fedcba9876543210
    state: absent
"""

RETURN = r"""
vpc_endpoint:
  description:
    - The endpoint as the service holds it after the task, with its details; in check mode, as it would be (a new
      assignment has no RV(vpc_endpoint.state) then).
    - For O(state=absent), the endpoint removed, or null when it was not assigned (or another run removed it
      meanwhile).
  returned: always
  type: dict
  contains:
    vpc_endpoint_id:
      description: The endpoint's id.
      type: str
      sample: vpce-0a1b2c3d4e5f67890
    region_id:
      description: The region it is assigned in.
      type: str
      sample: aws-eu-central-1
    label:
      description: Its label.
      type: str
      sample: production-vpc
    state:
      description: V(new) (assigned, pending acceptance) or V(accepted) (the service accepted the connection).
      type: str
      sample: new
    num_restricted_projects:
      description: How many projects are restricted to this endpoint.
      type: int
      sample: 1
    example_restricted_projects:
      description: The ids of at most three of those projects.
      type: list
      elements: str
      sample: [bold-glade-61830452]
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.vpc_endpoints import OrganizationVpcEndpoint


def main():
    NeonModule(
        argument_spec=dict(
            org_id=dict(type="str", required=True),
            region_id=dict(type="str", required=True),
            vpc_endpoint_id=dict(type="str", required=True),
            label=dict(type="str"),
            state=dict(type="str", default="present", choices=["present", "absent"]),
        ),
        supports_check_mode=True,
    ).run_writer(OrganizationVpcEndpoint)


if __name__ == "__main__":
    main()
