#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: neon_auth_user
short_description: Create, give roles to or delete a user of a Neon branch's Neon Auth
version_added: 1.0.0
description:
  - Creates a user of a branch's Neon Auth by email (a row of C(neon_auth.users_sync) in the branch's database),
    gives a user roles, or deletes one - a seeded admin of a preview environment, a test user of a pipeline.
  - The API has no way to read or list users, so - a user is created once by its email, and a rerun is told by
    the service's refusal of an email in use (no change; that refusal does not give the user's id, so O(roles)
    given then are not set - a warning says so); the roles of a user given by O(id) are sent on every run and the
    task reports a change; a user is deleted by its O(id), the RV(user_id) its creation returned.
  - B(Deleting a user cannot be undone.) The diff says so by its empty after.
  - Neon Auth must be enabled on the branch (M(neon.cloud.neon_auth)).
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description: The project's id.
    type: str
    required: true
  branch:
    description: The branch, by name or id. Without it, the project's default branch.
    type: str
  email:
    description: The email of the user to create.
    type: str
  name:
    description: The user's name, when the task creates it.
    type: str
  id:
    description: The user's id - to give it roles, or to delete it.
    type: str
  roles:
    description: The user's roles (at least one), such as C(admin).
    type: list
    elements: str
  state:
    description: V(present) creates it (by O(email)) and gives it O(roles); V(absent) deletes it (by O(id)).
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
    details: Nothing is sent; the API cannot tell whether an email is a user already, so a creation is reported.
  diff_mode:
    support: full
    details: Shows the user (email, id, name, roles) before and after.
seealso:
  - module: neon.cloud.neon_auth
"""

EXAMPLES = r"""
- name: The preview environment's admin
  neon.cloud.neon_auth_user:
    project_id: bold-glade-61830452
    branch: pr-42
    email: qa-admin@example.com
    name: QA admin
    roles: [admin]
  register: qa_admin

- name: Delete it again
  neon.cloud.neon_auth_user:
    project_id: bold-glade-61830452
    branch: pr-42
    id: "{{ qa_admin.user_id }}"
    state: absent
  when: qa_admin.user_id is not none
"""

RETURN = r"""
user_id:
  description: The user's id - the new user's when the task created it; null when it is not known.
  returned: always
  type: str
  sample: 0b5e4ac6-3d7b-4a3f-9d39-8c5d5f0f6b3e
roles:
  description: The roles the task gave the user.
  returned: when the task gave roles
  type: list
  elements: str
  sample: [admin]
branch_id:
  description: The branch's id.
  returned: once the branch was found
  type: str
  sample: br-floral-wind-a5090hvr
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.neon_auth_users import AuthUser


def main():
    NeonModule(
        argument_spec=dict(
            project_id=dict(type="str", required=True),
            branch=dict(type="str"),
            email=dict(type="str"),
            name=dict(type="str"),
            id=dict(type="str"),
            roles=dict(type="list", elements="str"),
            state=dict(type="str", choices=["present", "absent"], default="present"),
        ),
        supports_check_mode=True,
    ).run_writer(AuthUser)


if __name__ == "__main__":
    main()
