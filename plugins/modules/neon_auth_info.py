#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: neon_auth_info
short_description: Read the Neon Auth of a Neon branch
version_added: 1.0.0
description:
  - Tells whether Neon Auth is enabled on a branch and, when it is, its integration (provider, database, JWKS URL,
    base URL), its trusted domains, its settings (email and password, email provider, plugins, OAuth providers,
    localhost) and its webhooks - what a playbook needs to configure the app that signs in through it.
  - No secret is returned - not an OAuth client secret, not the email provider's password
    (C(has_client_secret) of each OAuth provider and C(has_password) of the email provider in RV(settings) say
    whether one is set). The integration's keys are answered only once, when it is enabled - see M(neon.cloud.neon_auth).
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
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - neon.cloud.api.info_module
  - ansible.builtin.action_common_attributes
seealso:
  - module: neon.cloud.neon_auth
"""

EXAMPLES = r"""
- name: Read the pull request branch's sign-in
  neon.cloud.neon_auth_info:
    project_id: bold-glade-61830452
    branch: pr-42
  register: auth

- name: Give the app its auth URL
  ansible.builtin.debug:
    msg: "NEON_AUTH_BASE_URL={{ auth.neon_auth.base_url }}"
  when: auth.enabled
"""

RETURN = r"""
branch_id:
  description: The branch's id.
  returned: always
  type: str
  sample: br-floral-wind-a5090hvr
enabled:
  description: Whether Neon Auth is enabled on the branch.
  returned: always
  type: bool
  sample: true
neon_auth:
  description: The integration as the service shows it; null when Neon Auth is not enabled.
  returned: always
  type: dict
  sample:
    auth_provider: better_auth
    db_name: neondb
    base_url: https://ep-floral-wind-a5090hvr.neonauth.us-east-2.aws.neon.tech/neondb/auth
trusted_domains:
  description: The trusted redirect domains.
  returned: when Neon Auth is enabled
  type: list
  elements: str
  sample: [https://shop.example.com]
settings:
  description:
    - The settings as C(GET .../auth/plugins) answers them - C(organization), C(magic_link), C(phone_number),
      C(email_provider), C(email_and_password), C(oauth_providers), C(allow_localhost) - without any secret.
  returned: when Neon Auth is enabled
  type: dict
  sample:
    allow_localhost: true
    oauth_providers: [{id: google, type: shared, has_client_secret: false}]
webhooks:
  description: The webhook configuration.
  returned: when Neon Auth is enabled
  type: dict
  sample: {enabled: false, enabled_events: [], timeout_seconds: 5}
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.neon_auth import read_neon_auth


def work(neon):
    neon.require_path_parameter("project_id")
    neon.require_path_parameter("branch")
    result = read_neon_auth(neon.client, neon.params["project_id"], neon.params["branch"])
    result["changed"] = False
    return result


def main():
    NeonModule(
        argument_spec=dict(project_id=dict(type="str", required=True), branch=dict(type="str")),
        supports_check_mode=True,
    ).run(work)


if __name__ == "__main__":
    main()
