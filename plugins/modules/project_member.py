#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: project_member
short_description: Set or remove a member's role on one project of a Neon organization
version_added: 1.0.0
description:
  - Gives a member of an organization an explicit role on one of its projects - V(viewer), V(editor) or V(admin) -
    or removes it, so that the role their organization role gives by default applies again.
  - B(Which module.) Use this one for the people of an organization, to give one of them more or less on one
    project than their organization role gives on every project. Use M(neon.cloud.organization_member) for their
    organization role, and M(neon.cloud.project_permission) to share a project by email with someone outside the
    organization, or a personal project (it has no project roles).
  - The member is named by O(email) or O(member_id) (the id of their membership, as
    M(neon.cloud.organization_member_info) shows it). An organization admin is always the admin of every project;
    a role given to one is kept but changes nothing until they are no admin.
  - Idempotent. An unchanged task costs the reading of the project's members (one request for up to 500). The
    result returns them all (RV(project_members)), so a task with O(state=present) and the role a member already has
    also serves to read them.
  - Project roles are new in Neon's API of August 2026 (docs/docsite/rst/api-behaviour.rst, "Project members'
    roles"); an organization without them answers 404, which the task explains.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description: The project's id (a project of an organization).
    type: str
    required: true
  email:
    description: The member's email (compared without case). One of O(email) and O(member_id) is required.
    type: str
  member_id:
    description: The member's id in the organization.
    type: str
  role:
    description: The member's role on the project. Required with O(state=present).
    type: str
    choices: [viewer, editor, admin]
  state:
    description: V(present) sets the role; V(absent) removes the member's explicit role.
    type: str
    choices: [present, absent]
    default: present
  confirm_self_change:
    description:
      - Lower the key's own user's access to the project (the service asks for that confirmation, so that an admin
        does not lock themselves out by mistake). Without it such a change fails, saying so.
    type: bool
    default: false
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Reads the members only; C(changed), RV(member) and the diff tell what would be done.
  diff_mode:
    support: full
    details: Shows the member's email, organization role, explicit project permission and project role.
seealso:
  - module: neon.cloud.project_permission
  - module: neon.cloud.organization_member
  - module: neon.cloud.organization_member_info
"""

EXAMPLES = r"""
- name: Riley reviews the checkout project but changes nothing there
  neon.cloud.project_member:
    project_id: bold-glade-61830452
    email: riley@example.com
    role: viewer

- name: Riley's role on the project comes from the organization again
  neon.cloud.project_member:
    project_id: bold-glade-61830452
    email: riley@example.com
    state: absent
  register: checkout_members

- name: Everyone with access to the project
  ansible.builtin.debug:
    msg: "{{ checkout_members.project_members | selectattr('project_role') | map(attribute='email') | list }}"
"""

RETURN = r"""
member:
  description:
    - The member as the service shows it after the task (in check mode, as it would be). C(project_role) is the role
      they have on the project, whatever gives it; C(explicit_project_permission) the one this module sets (null when
      none).
  returned: success
  type: dict
  sample:
    member_id: 8f2c0e5a-2d4b-4c8e-9a61-3f0b7d5e1c92
    user_id: 0b7d5e1c-9a61-4c8e-2d4b-8f2c0e5a3f0b
    email: riley@example.com
    org_role: member
    project_role: viewer
    org_default_project_permission: EDITOR
    explicit_project_permission: VIEWER
    effective_project_permission: VIEWER
project_members:
  description:
    - The members of the project's organization the key lists, with their project permissions (the one changed as it
      is after the task). A key with the project's admin role lists every member, the others those with access.
  returned: success
  type: list
  elements: dict
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.project_members import ProjectMemberRole


def main():
    NeonModule(
        argument_spec=dict(
            project_id=dict(type="str", required=True),
            email=dict(type="str"),
            member_id=dict(type="str"),
            role=dict(type="str", choices=["viewer", "editor", "admin"]),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            confirm_self_change=dict(type="bool", default=False),
        ),
        required_one_of=[("email", "member_id")],
        mutually_exclusive=[("email", "member_id")],
        supports_check_mode=True,
    ).run_writer(ProjectMemberRole)


if __name__ == "__main__":
    main()
