#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: api_key_info
short_description: List the API keys of a Neon account
version_added: 1.0.0
description:
  - Lists the active personal API keys of the authenticating key's user, or, with O(org_id), the keys of that
    organization (organization keys and project-scoped keys), newest first.
  - Each key says which kind it is in RV(api_keys[].key_type).
  - Revoked keys are not listed. Secrets are never listed; they are shown once, when a key is created
    (see M(neon.cloud.api_key)).
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  name:
    description:
      - Only keys with exactly this name. Names are not unique.
    type: str
  id:
    description:
      - Only the key with this id.
    type: int
  unused_days:
    description:
      - Only the keys nobody used for at least this many days - last used that long ago, or never used and
        created that long ago. The first thing a security review asks for; revoke them with
        M(neon.cloud.api_key) (O(neon.cloud.api_key#module:state=absent), check mode first).
      - Days are counted from the service's C(last_used_at) and C(created_at) to the controller's clock.
    type: int
  org_id:
    description:
      - List the keys of this organization instead of personal keys.
    type: str
  project_id:
    description:
      - Only the keys scoped to this project. Needs O(org_id).
    type: str
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - neon.cloud.api.info_module
  - ansible.builtin.action_common_attributes
notes:
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.api_key
"""

EXAMPLES = r"""
- name: List every active API key
  neon.cloud.api_key_info:
  register: keys

- name: Keys unused for 90 days
  ansible.builtin.debug:
    msg: "{{ keys.api_keys | selectattr('last_used_at', 'none') | map(attribute='name') | list }}"

- name: Keys named ci-deploy
  neon.cloud.api_key_info:
    name: ci-deploy
  register: ci_keys

- name: The keys of an organization scoped to one project
  neon.cloud.api_key_info:
    org_id: org-calm-tree-21298941
    project_id: shiny-river-12345678
  register: project_keys

- name: The keys nobody used for 90 days (never used ones count from their creation)
  neon.cloud.api_key_info:
    unused_days: 90
  register: stale

- name: Report them
  ansible.builtin.debug:
    msg: "{{ item.id }} {{ item.name }}: created {{ item.created_days_ago }} days ago, last used {{ item.last_used_days_ago }}"
  loop: "{{ stale.api_keys }}"
  loop_control:
    label: "{{ item.id }}"
"""

RETURN = r"""
api_keys:
  description:
    - The active keys that match the filters, newest first.
    - Fields not listed here are returned as the service sends them.
  returned: success
  type: list
  elements: dict
  contains:
    id:
      description: The key id.
      type: int
      sample: 165432
    name:
      description: The name given at creation.
      type: str
      sample: ci-deploy
    created_at:
      description: When the key was created (ISO 8601, UTC).
      type: str
      sample: "2025-01-16T21:02:04Z"
    created_by:
      description: Who created the key.
      type: dict
      sample: {"id": "629982cc-de05-43db-ae16-28f2399c4910", "name": "Jane", "image": ""}
    last_used_at:
      description: When the key was last used (ISO 8601, UTC); null if never.
      type: str
      sample: "2025-01-17T08:00:00Z"
    last_used_from_addr:
      description: The address or comma-separated addresses the key was last used from; empty if never.
      type: str
      sample: "113.203.180.132,35.160.120.126"
    project_id:
      description: The project a project-scoped key reaches.
      returned: for project-scoped keys
      type: str
      sample: shiny-river-12345678
    key_type:
      description:
        - V(personal) (a key of O(api_key)'s user), V(organization) (reaches every project of the
          organization) or V(project_scoped) (reaches one project of the organization).
      type: str
      sample: organization
    created_days_ago:
      description: Whole days since the key was created; null if the service's C(created_at) cannot be read.
      type: int
      sample: 42
    last_used_days_ago:
      description: Whole days since the key was last used; null if it was never used.
      type: int
      sample: 97
"""

import time

from ansible_collections.neon.cloud.plugins.module_utils._keys.api_keys import KeyStore
from ansible_collections.neon.cloud.plugins.module_utils._keys.plan import PlanError, unused_for, with_ages
from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule


def work(neon):
    name, key_id, project_id = neon.params["name"], neon.params["id"], neon.params["project_id"]
    unused_days = neon.params["unused_days"]
    neon.require_path_parameter("org_id")
    neon.require_positive("unused_days")
    now = time.time()
    keys = [key for key in KeyStore(neon.client, neon.params["org_id"]).list()
            if (name is None or key["name"] == name) and (key_id is None or key["id"] == key_id)
            and (project_id is None or key.get("project_id") == project_id)]
    if unused_days is not None:
        try:
            keys = [key for key in keys if unused_for(key, now, unused_days)]
        except PlanError as exc:
            neon.fail("%s, so unused_days cannot tell whether it is stale" % exc)
    return dict(changed=False, api_keys=[with_ages(key, now) for key in keys])


def main():
    NeonModule(
        argument_spec=dict(
            name=dict(type="str"),
            id=dict(type="int"),
            unused_days=dict(type="int"),
            org_id=dict(type="str"),
            project_id=dict(type="str"),
        ),
        required_by={"project_id": "org_id"},
        supports_check_mode=True,
    ).run(work)


if __name__ == "__main__":
    main()
