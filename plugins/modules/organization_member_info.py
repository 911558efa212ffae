#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: organization_member_info
short_description: List the members and pending invitations of a Neon organization
version_added: 1.0.0
description:
  - Lists the members of an organization, each with their email and role, and the invitations that are still
    pending.
  - Takes the personal API key of a member of the organization, or an organization API key; a project-scoped key
    cannot read them.
  - Costs two requests.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  org_id:
    description: The organization's id, for example V(org-calm-tree-21298941).
    type: str
    required: true
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - neon.cloud.api.info_module
  - ansible.builtin.action_common_attributes
seealso:
  - module: neon.cloud.organization_member
  - module: neon.cloud.auth_info
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: How the service lists members and invitations.
"""

EXAMPLES = r"""
- name: The organization's people
  neon.cloud.organization_member_info:
    org_id: org-calm-tree-21298941
  register: people

- name: Its admins
  ansible.builtin.debug:
    msg: "{{ people.members | selectattr('role', 'equalto', 'admin') | map(attribute='email') | list }}"

- name: Invitations not accepted yet
  ansible.builtin.debug:
    msg: "{{ people.invitations | map(attribute='email') | list }}"
"""

RETURN = r"""
members:
  description: The organization's members, in the order the service lists them.
  returned: success
  type: list
  elements: dict
  contains:
    id:
      description: The member's id (not the user's).
      type: str
      sample: 7c9130b6-dfc8-4c26-a429-ccb81a3b0a96
    user_id:
      description: The user's id.
      type: str
      sample: 5ff3cb37-3d74-4df9-a8cd-14a0f4b9bb40
    org_id:
      description: The organization's id.
      type: str
      sample: org-calm-tree-21298941
    role:
      description: V(admin), V(member), V(collaborator), V(editor) or V(viewer); a role the service adds later, as it
        comes.
      type: str
      sample: admin
    joined_at:
      description: When they joined.
      type: str
      sample: "2026-03-02T09:15:04Z"
    email:
      description: The user's email.
      type: str
      sample: sam@example.com
invitations:
  description: The invitations not accepted yet.
  returned: success
  type: list
  elements: dict
  contains:
    id:
      description: The invitation's id.
      type: str
      sample: 0b5e6a3c-2f1d-4e7a-8c9b-1d2e3f4a5b6c
    email:
      description: The email invited.
      type: str
      sample: new.hire@example.com
    role:
      description: The role invited to.
      type: str
      sample: member
    invited_at:
      description: When the invitation was sent.
      type: str
      sample: "2026-03-02T09:15:04Z"
    invited_by:
      description: The id of the user who invited.
      type: str
      sample: cd613e30-d8f1-4adf-91b7-584a2265b1f5
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.members import organization_people


def work(neon):
    neon.require_path_parameter("org_id")
    return dict(changed=False, **organization_people(neon.client, neon.params["org_id"]))


def main():
    NeonModule(
        argument_spec=dict(org_id=dict(type="str", required=True)),
        supports_check_mode=True,
    ).run(work)


if __name__ == "__main__":
    main()
