#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: role
short_description: Create and delete Postgres roles of a Neon branch, and reset their passwords
version_added: 1.0.0
description:
  - Makes sure a Postgres role with a given name exists on a branch, or that it does not - an application's own
    role, for example.
  - The service makes the role's password and shows it in full only when the role is created or its password
    reset. This module returns it in RV(password) only then, and never loses it - when anything fails after the
    create or the reset (its operations fail, waiting runs out, an answer cannot be used), the task fails with the
    new password in its result, and its message says so. Register the result with C(no_log).
  - The password is readable again only when asked for, with O(reveal_password) (when the project stores
    passwords, the service's default).
  - Runs of the same task at the same time leave one role and all succeed. A run whose create came second returns
    no password and a warning saying that the other run's result holds it.
  - Creating or deleting a role, and resetting its password, change the configuration of the branch's read-write
    compute (an C(apply_config) operation), which may drop its open connections; the service says so of such
    changes. Check mode tells whether this would happen.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  name:
    description: The role's name (at most 63 bytes). A role is identified by its name within its branch.
    type: str
    required: true
  state:
    description:
      - V(present) creates the role when the branch has none of this name.
      - V(absent) deletes it. A role that owns databases is not deleted; the task fails naming them, before
        sending anything.
    type: str
    choices: [present, absent]
    default: present
  reset_password:
    description:
      - Give the role a new password now, returned in RV(password). The old one stays valid until the reset's
        operations have ended (the task waits for them with O(wait=true)).
      - Resets on every run, so the task reports a change every time - run it on a schedule to rotate the
        password. A role created by this run is not reset again.
    type: bool
    default: false
  reveal_password:
    description:
      - Return the role's current password in RV(password), read from the service, when this run did not create
        or reset it. Changes nothing.
      - Fails when the project does not store passwords (HTTP 412); O(reset_password) gives a new one then.
    type: bool
    default: false
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.branch_item
  - neon.cloud.api.wait
  - neon.cloud.api.action_group
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details:
      - Only reads; C(changed) and the diff tell what would be done. No password is created, reset or read - RV(password)
        is null where a run would return one.
      - A branch or project that does not exist yet is taken as made by an earlier task of the play, with a warning
        (see R(a dry run, ansible_collections.neon.cloud.docsite.troubleshooting.check_mode)).
  diff_mode:
    support: full
    details: Shows the role's name before and after, and that its password changes with O(reset_password); never a password.
notes:
  - Child branches get copies of their parent's roles, with the same passwords.
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.database
  - module: neon.cloud.connection_info
  - module: neon.cloud.branch_info
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: How the service answers role requests and keeps passwords; what this module does about a second create.
"""

EXAMPLES = r"""
- name: The application's role on the production branch
  neon.cloud.role:
    project_id: shiny-river-12345678
    branch: main
    name: app
  register: app_role
  no_log: true

- name: Keep its password in a vault-encrypted vars file the first time (the service shows it only once)
  # ansible-vault reads the plain text from its standard input: it never reaches the disk
  ansible.builtin.command:
    argv: [ansible-vault, encrypt, --vault-password-file, ~/.ansible/app.vault-pass,
           --output, "{{ playbook_dir }}/group_vars/all/app_db.yml"]
    stdin: "{{ {'app_db_password': app_role.password} | to_nice_yaml }}"
  when: app_role.password is defined
  no_log: true
  changed_when: true

- name: A new password every week (a scheduled job); the old one works until the new one is in force
  neon.cloud.role:
    project_id: shiny-river-12345678
    branch: main
    name: app
    reset_password: true
  register: rotated
  no_log: true

- name: Delete the role of a retired service
  neon.cloud.role:
    project_id: shiny-river-12345678
    branch: main
    name: legacy_reports
    state: absent
"""

RETURN = r"""
role:
  description:
    - The role as the service answers it after the task (in check mode, as it would be), without its password.
    - For O(state=absent), the role deleted, or null when there was none.
  returned: always
  type: dict
  contains:
    name:
      description: The role's name.
      type: str
      sample: app
    branch_id:
      description: The branch's id.
      type: str
      sample: br-floral-wind-a5090hvr
    protected:
      description: Whether it is a role the service keeps for itself.
      type: bool
      sample: false
    authentication_method:
      description:
        - How the role logs in, as the service answers it - V(password), V(oauth) or V(no_login) (the service's June
          2026 document), or a method it adds later, as it comes. Absent when the service does not say.
      type: str
      sample: password
password:
  description:
    - The role's password - a secret; register the result with C(no_log).
    - Only when this run created the role, reset its password, or read it with O(reveal_password); also when the
      task then failed.
  returned: when created, reset or revealed (null in check mode)
  type: str
  sample: npg_9XbZ3kQ2wLrT
branch_id:
  description: The id of the branch the role is on.
  returned: once the branch was found
  type: str
  sample: br-floral-wind-a5090hvr
operations:
  description: The operations the task started, in their last known state (ended, when O(wait=true)).
  returned: always
  type: list
  elements: dict
  sample: [{"id": "0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10", "action": "apply_config", "status": "finished"}]
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.roles_databases import Role
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import WAIT_ARGUMENT_SPEC


def main():
    spec = dict(
        project_id=dict(type="str", required=True),
        branch=dict(type="str"),
        name=dict(type="str", required=True),
        state=dict(type="str", default="present", choices=["present", "absent"]),
        reset_password=dict(type="bool", default=False, no_log=False),
        reveal_password=dict(type="bool", default=False, no_log=False),
    )
    spec.update(WAIT_ARGUMENT_SPEC)
    NeonModule(
        argument_spec=spec,
        mutually_exclusive=[("reset_password", "reveal_password")],
        supports_check_mode=True,
    ).run_resource(Role)


if __name__ == "__main__":
    main()
