#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: auth_info
short_description: Tell what a Neon API key is and which organizations it reaches
version_added: 1.0.0
description:
  - Asks the service who the authenticating key (O(api_key)) is - its account and whether it is a personal or an
    organization key - and, where the service answers it, which organizations it reaches (for a personal key, the
    organizations its user belongs to; for an organization key, its own organization).
  - Run it as the first task of an AWX or Automation Controller job template to check the credential
    before anything else runs - a revoked or mistyped key fails here with HTTP 401, and RV(key_type)
    tells whether the credential holds the kind of key the job expects.
  - A key that may not read one of these (the service refuses it with HTTP 403 or 404) gets a result
    without that part, not a failure.
author:
  - neon.cloud maintainers (@neon-cloud)
options: {}
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
  - module: neon.cloud.projects_info
"""

EXAMPLES = r"""
- name: Check the job's Neon credential before doing anything
  neon.cloud.auth_info:
  register: neon_auth

- name: This job is meant to run with an organization key, not someone's personal key
  ansible.builtin.assert:
    that: neon_auth.key_type == 'organization'
    fail_msg: "The Neon credential holds a {{ neon_auth.key_type }} key; use the organization's key"

- name: List the projects of the key's only organization
  neon.cloud.projects_info:
    org_id: "{{ neon_auth.organizations[0].id }}"
  when: neon_auth.organizations | default([]) | length == 1
"""

RETURN = r"""
account_id:
  description:
    - The account the key belongs to, as C(GET /auth) gives it - a user id for a personal key, the
      organization for an organization key.
  returned: when the service answered C(GET /auth)
  type: str
  sample: 629982cc-de05-43db-ae16-28f2399c4910
auth_method:
  description:
    - How the request was authenticated, as the service says - V(api_key_user) (a personal key) or
      V(api_key_org) (an organization key, project-scoped keys included).
  returned: when the service answered C(GET /auth)
  type: str
  sample: api_key_user
key_type:
  description:
    - V(personal) or V(organization); V(null) when C(GET /auth) names another way of authenticating.
  returned: when the service answered C(GET /auth)
  type: str
  sample: personal
organizations:
  description:
    - The organizations the key reaches - those the key's user belongs to for a personal key, the key's
      own organization for an organization key.
  returned: when the service answered
  type: list
  elements: dict
  contains:
    id:
      description: The organization id.
      type: str
      sample: org-calm-tree-21298941
    name:
      description: The organization name.
      type: str
      sample: Calm Tree Inc.
    handle:
      description: The organization handle.
      type: str
      sample: calm-tree
    plan:
      description: The organization's plan.
      type: str
      sample: scale
    require_mfa:
      description: Whether every member must have multi-factor authentication to reach the organization (June 2026
        document); absent when the service does not say.
      type: bool
      sample: false
"""

from ansible_collections.neon.cloud.plugins.module_utils._account.identity import describe_key
from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule


def work(neon):
    result = describe_key(neon.client)
    result["changed"] = False
    return result


def main():
    NeonModule(argument_spec=dict(), supports_check_mode=True).run(work)


if __name__ == "__main__":
    main()
