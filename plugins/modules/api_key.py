#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: api_key
short_description: Create, rotate and revoke Neon API keys
version_added: 1.0.0
description:
  - Makes sure an API key with a given name exists, or that none does.
  - Without O(org_id), it manages the personal keys of the user the authenticating key (O(api_key))
    belongs to. With O(org_id), it manages that organization's keys - organization keys, which reach
    every project of the organization, and, with O(project_id), project-scoped keys, which reach one
    project only (see the R(guide on key types, ansible_collections.neon.cloud.docsite.key_types)).
  - A key matches the task when its name and its scope (its project, or none) are the task's. Key names
    are not unique on the service. With O(state=present) an existing matching active key is left alone;
    with O(state=absent) every matching active key is revoked.
  - When the service creates a key scoped to another project than O(project_id) asks (or to one when
    none was asked), the key is revoked at once and the task fails.
  - A new key's secret is returned once, in RV(key), by the run that created it. The service cannot
    show it again, so register the result under C(no_log) and store the secret right away.
  - A key is never created twice, even when the answer to its create is lost (connection dropped, gateway error).
  - A created key is never lost. Whatever fails after the key was created (such as revoking the older
    keys of a rotation), the task fails with C(changed=true), RV(api_key) and the secret in RV(key), and
    its message names the keys left active. Register the result and store the secret in an C(always)
    section, as the examples show.
  - When the task creates no key and the newest matching key was never used (its C(last_used_at) is null), a
    warning says that most likely no run kept its secret - a run interrupted after the service created the key and
    before the task returned leaves such a key - and how to replace it (once with O(rotate=true)). See the
    R(guide, ansible_collections.neon.cloud.docsite.key_rotation) on what to do after an interrupted run.
  - O(max_age_days) makes rotation a schedule - run the task daily, and a new key is made only when the
    newest one is that old. O(keep) lets the previous key live on while its consumers move to the new one.
    See the R(guide on rotating keys without downtime, ansible_collections.neon.cloud.docsite.key_rotation).
  - What to do is decided from the keys, the options and the time, and told in RV(action) and RV(reason); check
    mode and diff show the same decision without acting. Ages are the service's C(created_at) against the
    controller's clock.
  - Runs of the same task at the same time converge. When other runs created matching keys meanwhile, the oldest
    new key (the lowest id) is kept, and every other run revokes the key it made and returns the kept one, without
    its secret, with a warning. Only the run that keeps its key revokes older keys. With O(rotate=true), runs that
    only partly overlap may each rotate; schedules should use O(max_age_days), which a second run finds satisfied.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  name:
    description:
      - The key's name, 1 to 64 characters.
      - Required with O(state=present), and with O(state=absent) unless O(id) is given.
    type: str
  state:
    description:
      - V(present) creates the key unless an active key with this name exists.
      - V(absent) revokes every active key with this name, or only the key O(id). Revoking is immediate and
        irreversible; requests with a revoked key fail with HTTP 401.
    type: str
    choices: [present, absent]
    default: present
  id:
    description:
      - With O(state=absent), revoke exactly this key. If O(name) is given too, it must be this key's name.
    type: int
  rotate:
    description:
      - With O(state=present), create a new key even if matching keys exist, then revoke every older
        matching active key (or, with O(keep), all but the newest ones). The new secret is in RV(key).
      - Rotating the key the task authenticates with works; later tasks must then use the new secret.
      - Every run rotates; for a schedule use O(max_age_days) instead.
    type: bool
    default: false
  max_age_days:
    description:
      - With O(state=present), when the newest matching active key was created at least this many days ago (by the
        service's C(created_at)), rotate - create a new key, then revoke older ones as a rotation does.
        A younger key means no change; no key means a create, as always.
      - Running the same task every day is safe - at most one new key every O(max_age_days) days.
      - Cannot be combined with O(rotate).
    type: int
  keep:
    description:
      - With O(state=present), at most this many matching active keys remain after the task, the newest ones;
        a key created by the task counts. Older ones are revoked.
      - O(keep=2) with O(max_age_days=30) means each key works for 60 days, and its consumers have 30 days to
        move to the next one.
      - Without it, O(state=present) leaves existing keys alone, and a rotation revokes every older matching key.
      - When the task creates no key and the newest matching key was never used (perhaps one whose secret an
        interrupted run lost), keys that were used are not revoked, with a warning; O(rotate=true) revokes them.
    type: int
  org_id:
    description:
      - Manage the keys of this organization instead of personal keys.
      - Creating and revoking organization keys takes an organization admin's key; project-scoped keys can be
        managed by any member.
    type: str
  project_id:
    description:
      - With O(org_id), the key is scoped to this project of the organization - the least-privilege key for
        one project's CI or one job template. It matches only keys of that scope.
      - Without it, only organization-wide keys (no project) match.
    type: str
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Nothing is created or revoked; C(changed) and the diff tell what would be.
  diff_mode:
    support: full
    details: Shows the ids and names of the keys of that name before and after. Secrets are never in the diff.
notes:
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.api_key_info
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: How the service answers key requests, and what this module does about lost answers and runs at once.
"""

EXAMPLES = r"""
- name: Make sure a key for the CI exists, and keep its secret if it was created now
  neon.cloud.api_key:
    name: ci-deploy
  register: ci_key
  no_log: true

- name: Store the new secret (only set in the run that created the key)
  ansible.builtin.copy:
    content: "{{ ci_key.key }}"
    dest: /etc/neon/ci-deploy.key
    mode: "0600"
  when: ci_key.key is defined
  no_log: true

- name: Rotate the key - create a new one and revoke the older ones of that name
  neon.cloud.api_key:
    name: ci-deploy
    rotate: true
  register: rotated
  no_log: true

- name: Rotate, and keep the new secret even if revoking an older key fails
  block:
    - name: Rotate the ci-deploy key
      neon.cloud.api_key:
        name: ci-deploy
        rotate: true
      register: rotated
      no_log: true
  always:
    - name: Store the new secret whenever a key was created, whether the task failed or not
      ansible.builtin.copy:
        content: "{{ rotated.key }}"
        dest: /etc/neon/ci-deploy.key
        mode: "0600"
      when: rotated.key is defined
      no_log: true

- name: Rotate on a schedule - a new key when the newest is 30 days old; the previous one lives 30 days more
  neon.cloud.api_key:
    name: ci-deploy
    max_age_days: 30
    keep: 2
  register: scheduled
  no_log: true

- name: Say what the scheduled rotation did, without the secret
  ansible.builtin.debug:
    msg: "{{ scheduled.action }}: {{ scheduled.reason }}"

- name: Keep only the newest key named ci-deploy, revoking the others
  neon.cloud.api_key:
    name: ci-deploy
    keep: 1

- name: Revoke every key named ci-deploy
  neon.cloud.api_key:
    name: ci-deploy
    state: absent

- name: Revoke one key by id
  neon.cloud.api_key:
    id: 165432
    state: absent

- name: A key for the CI of one project of the organization, and nothing else
  neon.cloud.api_key:
    org_id: org-calm-tree-21298941
    project_id: shiny-river-12345678
    name: ci-shiny-river
  register: project_key
  no_log: true

- name: Rotate that project-scoped key
  neon.cloud.api_key:
    org_id: org-calm-tree-21298941
    project_id: shiny-river-12345678
    name: ci-shiny-river
    rotate: true
  register: project_key
  no_log: true
"""

RETURN = r"""
api_key:
  description:
    - The key named O(name) after the task, without its secret - the one created, or the newest existing one.
    - In check mode, when a key would be created, only its name is known.
  returned: when O(state=present)
  type: dict
  contains:
    id:
      description: The key id.
      type: int
      sample: 165432
    name:
      description: The key name.
      type: str
      sample: ci-deploy
    created_at:
      description: When the key was created (ISO 8601, UTC).
      type: str
      sample: "2025-01-16T21:02:04Z"
    created_by:
      description: Who created the key (a user id string, or an object with C(id), C(name) and C(image)).
      type: raw
      sample: 629982cc-de05-43db-ae16-28f2399c4910
    last_used_at:
      description: When the key was last used; null if never. Not set on a key created by this run.
      type: str
      sample: "2025-01-17T08:00:00Z"
    last_used_from_addr:
      description: The address the key was last used from. Not set on a key created by this run.
      type: str
      sample: "113.203.180.132"
    project_id:
      description: The project a project-scoped key reaches.
      returned: for project-scoped keys
      type: str
      sample: shiny-river-12345678
    key_type:
      description: V(personal), V(organization) or V(project_scoped).
      type: str
      sample: personal
key:
  description:
    - The secret of the key created by this run. The service shows it only once.
    - "Register the result with C(no_log: true) and store this value safely."
    - Also returned when the task fails after the key was created, so that it is never lost.
  returned: when a key was created (not in check mode), even if the task then failed
  type: str
  sample: 8pw2k3uu7g1ebs4ux5vqwjqn0pzyx2a5cmyk0lvt3gqzn8t9rd4ewbrhcxss1ji2
revoked_keys:
  description:
    - The service's answer for each key revoked (or, in check mode, the key that would be), newest first.
    - For a run that gave way to a concurrent run, the key it had created.
  returned: always
  type: list
  elements: dict
  sample: [{"id": 165431, "name": "ci-deploy", "revoked": true, "last_used_at": null, "last_used_from_addr": ""}]
action:
  description:
    - What the task did with O(state=present) (in check mode, would do).
    - V(none) left the keys alone; V(created) created a key because none existed; V(rotated) created a key
      and revoked older ones as O(keep) says; V(trimmed) created nothing and revoked the keys beyond O(keep);
      V(converged) means another run created a key at the same time, and this run revoked its own and returns that one.
  returned: when O(state=present)
  type: str
  sample: rotated
reason:
  description: Why, in one sentence.
  returned: when O(state=present)
  type: str
  sample: the newest key (id 165431) was 31 days old, and max_age_days is 30; keep=2 leaves the newest 2 keys
"""

from ansible_collections.neon.cloud.plugins.module_utils._keys.lifecycle import KeyTask
from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule


def main():
    NeonModule(
        argument_spec=dict(
            name=dict(type="str"),
            state=dict(type="str", default="present", choices=["present", "absent"]),
            id=dict(type="int"),
            rotate=dict(type="bool", default=False, no_log=False),
            max_age_days=dict(type="int"),
            keep=dict(type="int", no_log=False),
            org_id=dict(type="str"),
            project_id=dict(type="str"),
        ),
        required_by={"project_id": "org_id"},
        supports_check_mode=True,
    ).run_writer(KeyTask)


if __name__ == "__main__":
    main()
