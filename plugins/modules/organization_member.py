#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: organization_member
short_description: Invite people to a Neon organization, change their role, and remove them
version_added: 1.0.0
description:
  - Makes sure a person, known by their email, belongs to an organization with a given role, or that they do not.
  - O(state=present) invites an email that is neither a member nor invited (the service emails them; someone who
    has a Neon account joins at once, anyone else once they have made one), changes the role of a member whose
    role differs from O(role), and leaves an email that is already invited as it is, with a warning that the
    invitation is pending (the API can neither change nor cancel an invitation).
  - O(state=absent) removes the member. A person who is only invited is left as they are, with a warning (cancel
    the invitation in the Neon Console).
  - The organization's only admin is never removed nor made a member; the task fails before sending anything,
    saying so.
  - Inviting and removing need the personal API key of an admin of the organization; the service does not take
    an organization API key or a project-scoped key for them. Changing a role needs an admin's personal key or an
    organization key. The task asks the service what its key is when it is about to change something, and fails
    before sending the change when the key cannot make it, saying which key is needed.
  - An unchanged task costs one request (the members), two for an email that is not a member (the invitations too).
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  org_id:
    description: The organization's id, for example V(org-calm-tree-21298941).
    type: str
    required: true
  email:
    description:
      - The person's email (with C(@)); it compares without regard to case.
    type: str
    required: true
  role:
    description:
      - The role in the organization. V(collaborator), V(editor) and V(viewer) are the service's newer roles (its
        OpenAPI document of June 2026); it says some roles may not be available for all organizations, and refuses
        one an organization does not offer (HTTP 400), whose message is the task's.
      - Without it, a member's role is left as it is, and an invitation is for V(member).
      - A member found with a role this collection does not know yet (one the service adds) is shown and compared as
        it comes; O(role) changes it only when given.
    type: str
    choices: [admin, member, collaborator, editor, viewer]
  state:
    description:
      - V(present) invites the person, or changes their role; V(absent) removes them.
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
    details: Reads the members, the invitations and what the key is; C(changed) and the diff tell what would be done.
  diff_mode:
    support: full
    details: Shows the person's email, role and whether they are a member or invited, before and after.
notes:
  - Members and invitations start no operations, so there is nothing to wait for.
  - Removing someone from the organization does not revoke what its projects were shared with them by email; see
    M(neon.cloud.project_permission).
seealso:
  - module: neon.cloud.organization_member_info
  - module: neon.cloud.project_permission
  - module: neon.cloud.auth_info
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: How the service answers member and invitation requests, and which key each needs.
"""

EXAMPLES = r"""
- name: Invite a new colleague (pending until they have a Neon account)
  neon.cloud.organization_member:
    org_id: org-calm-tree-21298941
    email: new.hire@example.com
    role: member
  register: invited

- name: Make an existing member an admin
  neon.cloud.organization_member:
    org_id: org-calm-tree-21298941
    email: riley@example.com
    role: admin

- name: Remove someone who left the company
  neon.cloud.organization_member:
    org_id: org-calm-tree-21298941
    email: riley@example.com
    state: absent
"""

RETURN = r"""
member:
  description:
    - The person as a member of the organization after the task (in check mode, as it would be), or null when
      they are not one (only invited, removed, or neither).
  returned: success
  type: dict
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
      sample: member
    joined_at:
      description: When they joined.
      type: str
      sample: "2026-03-02T09:15:04Z"
    email:
      description: The user's email.
      type: str
      sample: riley@example.com
invitation:
  description:
    - The invitation this task sent, or the pending one it found; null when there is none. When the person
      joined at once (they have a Neon account), it is the invitation sent and RV(member) is set too.
  returned: success
  type: dict
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
from ansible_collections.neon.cloud.plugins.module_utils._resources.members import ROLES, OrganizationMember


def main():
    NeonModule(
        argument_spec=dict(
            org_id=dict(type="str", required=True),
            email=dict(type="str", required=True),
            role=dict(type="str", choices=list(ROLES)),
            state=dict(type="str", default="present", choices=["present", "absent"]),
        ),
        supports_check_mode=True,
    ).run_writer(OrganizationMember)


if __name__ == "__main__":
    main()
