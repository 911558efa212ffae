#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: project_permission
short_description: Share a Neon project with people by email, and stop sharing it
version_added: 1.0.0
description:
  - Makes sure a project is shared with the people given by O(emails) (a grant each), or that it is not.
  - Someone a project is shared with has full access to it, except deleting it, and finds it in their own
    shared projects; the service emails them. The project's usage is billed to its owner.
  - Emails compare without regard to case - V(Ana@Example.com) is V(ana@example.com). A grant is made with the
    email as given.
  - An unchanged task costs one request (the project's grants), so it can run over every project of an
    inventory. When it changes something, it reads the grants once more and returns them as they are.
  - Runs of the same task at the same time leave one grant per email and all succeed; a run that finds an email
    granted by the other in the meantime says so in a warning.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description: The project's id.
    type: str
    required: true
  emails:
    description:
      - The people, by the email of their Neon account.
      - Each must be an email address (with C(@)); the task fails before sending anything otherwise. Repeats
        (in any case) count once.
    type: list
    elements: str
    required: true
  state:
    description:
      - V(present) shares the project with each email that has no grant yet.
      - V(absent) revokes every grant to one of the emails.
    type: str
    choices: [present, absent]
    default: present
  exclusive:
    description:
      - With O(state=present), also revoke every grant to an email not in O(emails), so that the project is shared
        with exactly those people. V(true) with an empty O(emails) stops sharing the project with anyone.
      - Has no meaning with O(state=absent), where it fails the task before sending anything.
    type: bool
    default: false
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Reads the grants only; C(changed), RV(granted), RV(revoked) and the diff tell what would be done.
  diff_mode:
    support: full
    details: Shows the emails the project is shared with, before and after.
notes:
  - The grants start no operations, so there is nothing to wait for.
  - A person who belongs to the project's organization reaches the project already; a grant matters for people
    outside it.
seealso:
  - module: neon.cloud.organization_member
  - module: neon.cloud.project_member
    description: A member of the project's organization given a role (viewer, editor, admin) on this one project.
  - module: neon.cloud.projects_info
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: How the service answers grants, and what this module does about a grant made twice.
"""

EXAMPLES = r"""
- name: Share the project with two people outside the organization
  neon.cloud.project_permission:
    project_id: shiny-river-12345678
    emails:
      - riley@example.com
      - alex@example.com
  register: shared

- name: Show who it is shared with now
  ansible.builtin.debug:
    msg: "{{ shared.permissions | map(attribute='granted_to_email') | list }}"

- name: Exactly these people, no one else (a baseline; run with --check --diff to see the drift first)
  neon.cloud.project_permission:
    project_id: shiny-river-12345678
    emails:
      - riley@example.com
    exclusive: true

- name: Stop sharing it with someone who left
  neon.cloud.project_permission:
    project_id: shiny-river-12345678
    emails:
      - riley@example.com
    state: absent
"""

RETURN = r"""
permissions:
  description:
    - The project's grants after the task, as the service lists them (in check mode, as they would be; a grant to
      be made has no id yet then).
  returned: success
  type: list
  elements: dict
  contains:
    id:
      description: The grant's id.
      type: str
      sample: 5b0c2f3e-1d4a-4f6b-9c7e-2a8d1e0f3b4c
    granted_to_email:
      description: The email the project is shared with.
      type: str
      sample: riley@example.com
    granted_at:
      description: When it was shared.
      type: str
      sample: "2026-03-02T09:15:04Z"
granted:
  description: The emails this task shared the project with (would share, in check mode).
  returned: always
  type: list
  elements: str
  sample: [riley@example.com]
revoked:
  description: The emails whose grants this task revoked (would revoke, in check mode).
  returned: always
  type: list
  elements: str
  sample: [former.colleague@example.com]
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.permissions import ProjectPermissions


def main():
    NeonModule(
        argument_spec=dict(
            project_id=dict(type="str", required=True),
            emails=dict(type="list", elements="str", required=True),
            state=dict(type="str", default="present", choices=["present", "absent"]),
            exclusive=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    ).run_writer(ProjectPermissions)


if __name__ == "__main__":
    main()
