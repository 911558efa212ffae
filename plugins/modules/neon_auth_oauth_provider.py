#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: neon_auth_oauth_provider
short_description: Add, change or remove an OAuth provider of a Neon branch's Neon Auth
version_added: 1.0.0
description:
  - Holds one OAuth provider (Google, GitHub, Microsoft, Vercel) of a branch's Neon Auth - with your OAuth client
    (O(client_id) and O(client_secret)) or, without them, with Neon's shared credentials.
  - The client secret is write-only - the service's answers are not compared with it, and no result, message or
    diff shows it (the diff says only C(client_secret_sent)). It is sent with another change of the provider, when
    the provider moves from shared credentials to yours, or on every run with O(update_secret=always).
  - Neon Auth must be enabled on the branch (M(neon.cloud.neon_auth)); in check mode a branch without it is taken as
    enabled by an earlier task of the play, with a warning.
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
  provider:
    description: The provider. The service knows no other.
    type: str
    required: true
    choices: [google, github, microsoft, vercel]
  client_id:
    description: Your OAuth client's id. Given with O(client_secret), or neither for Neon's shared credentials.
    type: str
  client_secret:
    description: Your OAuth client's secret (write-only, see above).
    type: str
  microsoft_tenant_id:
    description: The Microsoft tenant, for the V(microsoft) provider only.
    type: str
  update_secret:
    description:
      - V(on_create) sends O(client_secret) only with another change of the provider (or when it takes your
        credentials for the first time); V(always) on every run, which then reports a change.
    type: str
    choices: [on_create, always]
    default: on_create
  state:
    description: V(present) adds or updates it; V(absent) removes it, and sign-in through it stops.
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
    details: Only reads; C(changed) and the diff tell what would be sent.
  diff_mode:
    support: full
    details: Shows the provider before and after, never its secret.
seealso:
  - module: neon.cloud.neon_auth
"""

EXAMPLES = r"""
- name: The preview environment's GitHub OAuth app on the pull request's branch
  neon.cloud.neon_auth_oauth_provider:
    project_id: bold-glade-61830452
    branch: pr-42
    provider: github
    client_id: Iv1.0123456789abcdef
    client_secret: "{{ vault_preview_github_secret }}"

- name: No Microsoft sign-in there
  neon.cloud.neon_auth_oauth_provider:
    project_id: bold-glade-61830452
    branch: pr-42
    provider: microsoft
    state: absent
"""

RETURN = r"""
oauth_provider:
  description: The provider after the task (in check mode, as it would be), without its secret; null when absent.
  returned: once the branch was found
  type: dict
  sample: {id: github, type: standard, client_id: Iv1.0123456789abcdef, has_client_secret: true}
branch_id:
  description: The branch's id.
  returned: once the branch was found
  type: str
  sample: br-floral-wind-a5090hvr
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.neon_auth_oauth import OAuthProvider


def main():
    NeonModule(
        argument_spec=dict(
            project_id=dict(type="str", required=True),
            branch=dict(type="str"),
            provider=dict(type="str", required=True, choices=["google", "github", "microsoft", "vercel"]),
            client_id=dict(type="str"),
            client_secret=dict(type="str", no_log=True),
            microsoft_tenant_id=dict(type="str"),
            update_secret=dict(type="str", choices=["on_create", "always"], default="on_create", no_log=False),
            state=dict(type="str", choices=["present", "absent"], default="present"),
        ),
        supports_check_mode=True,
    ).run_writer(OAuthProvider)


if __name__ == "__main__":
    main()
