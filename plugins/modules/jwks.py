#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: jwks
short_description: Add or remove a JWKS URL of a Neon project
version_added: 1.0.0
description:
  - Holds a JWKS URL of a project - the keys the JWTs of an auth provider (Clerk, Auth0, Cognito, ...) are checked
    with, for row-level security and the Data API - for every branch, or for one (O(branch)).
  - A JWKS URL is known by its URL and branch. The API cannot change one, so a JWKS URL found with another
    O(provider_name) or O(jwt_audience) than asked is refused, saying so; remove it and add it again.
  - B(Removing it stops every JWT signed by its keys from authenticating.) The diff says so by its empty after.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description: The project's id.
    type: str
    required: true
  jwks_url:
    description: The https URL of the JSON Web Key Set.
    type: str
    required: true
  provider_name:
    description: The auth provider's name. Required to add it.
    type: str
  branch:
    description: The branch it is for, by name or id. Without it, every branch of the project.
    type: str
  jwt_audience:
    description: The C(aud) a JWT must have.
    type: str
  state:
    description: V(present) adds it; V(absent) removes it.
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
    details: Only reads; C(changed) and the diff tell what would be added or removed.
  diff_mode:
    support: full
    details: Shows the JWKS URL before and after.
seealso:
  - module: neon.cloud.data_api
"""

EXAMPLES = r"""
- name: Clerk's keys for the pull request's branch
  neon.cloud.jwks:
    project_id: bold-glade-61830452
    branch: pr-42
    jwks_url: https://clerk.example.com/.well-known/jwks.json
    provider_name: Clerk
    jwt_audience: shop
"""

RETURN = r"""
jwks:
  description: The JWKS URL as the service shows it after the task (in check mode, as it would be); null when absent.
  returned: once the project's JWKS URLs were read
  type: dict
  sample:
    id: 8f2c0e5a-2d4b-4c8e-9a61-3f0b7d5e1c92
    jwks_url: https://clerk.example.com/.well-known/jwks.json
    provider_name: Clerk
    branch_id: br-floral-wind-a5090hvr
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.jwks import ProjectJwks


def main():
    NeonModule(
        argument_spec=dict(
            project_id=dict(type="str", required=True),
            jwks_url=dict(type="str", required=True),
            provider_name=dict(type="str"),
            branch=dict(type="str"),
            jwt_audience=dict(type="str"),
            state=dict(type="str", choices=["present", "absent"], default="present"),
        ),
        supports_check_mode=True,
    ).run_writer(ProjectJwks)


if __name__ == "__main__":
    main()
