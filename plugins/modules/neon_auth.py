#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: neon_auth
short_description: Enable Neon Auth on a Neon branch and hold its settings
version_added: 1.0.0
description:
  - Enables Neon Auth on a branch (the sign-in of an app, with its C(neon_auth) schema in the branch's database),
    or disables it, and holds its settings - the application name, localhost, the trusted redirect domains,
    email and password sign-in, the email provider, the plugins (organization, magic link, phone number) and
    the webhooks.
  - Every setting is compared and changed only where it is given; a setting left out is neither read nor changed.
    The trusted domains given are added; with O(purge_trusted_domains=true) they are the exact list.
  - Enabling answers the integration's keys once - C(pub_client_key) and C(secret_server_key) - and the service
    never shows C(secret_server_key) again, so the task returns both in its result the moment they arrive, even
    when a later step of the task fails. Keep them (a vault, your app's secrets) from that result.
  - B(Disabling is one-way:) O(state=absent) drops the branch's integration - its OAuth providers, trusted domains,
    settings and keys; with O(delete_data=true) also the C(neon_auth) schema and every user in it. Enabling again
    makes a new integration with new keys. The diff says so.
  - Everything is checked before anything is sent - a trusted domain that is not a URL, a setting out of its range,
    a setting of the wrong type.
  - OAuth providers are M(neon.cloud.neon_auth_oauth_provider)'s, users M(neon.cloud.neon_auth_user)'s.
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
  state:
    description:
      - V(present) enables Neon Auth (when it is not) and holds the settings given; V(absent) disables it (one-way,
        see above).
    type: str
    choices: [present, absent]
    default: present
  auth_provider:
    description:
      - The provider Neon Auth runs on, when the task enables it (without it, V(better_auth)). The service cannot
        change it later; given, a branch that has another is refused.
    type: str
    choices: [better_auth, stack, mock]
  database:
    description:
      - The database that gets the C(neon_auth) schema, when the task enables it. Without it, the service's choice
        (C(neondb)). The service cannot move it later; a branch that has it elsewhere is refused.
    type: str
  delete_data:
    description: With O(state=absent), also delete the C(neon_auth) schema and all its users from the database.
    type: bool
    default: false
  app_name:
    description: The application name in the emails Neon Auth sends.
    type: str
  allow_localhost:
    description: Whether sign-in works from C(localhost) without it being a trusted domain.
    type: bool
  trusted_domains:
    description:
      - The origins the app redirects to after sign-in, each an C(http) or C(https) URL such as
        C(https://pr-42.example.com). Those missing are added; with O(purge_trusted_domains=true) the others
        are deleted.
    type: list
    elements: str
  purge_trusted_domains:
    description: Make O(trusted_domains) the exact list, deleting the domains it does not name.
    type: bool
    default: false
  email_and_password:
    description: Email and password sign-in; only the fields given are compared and changed.
    type: dict
    suboptions:
      enabled:
        description: Whether users sign in with an email and a password.
        type: bool
      email_verification_method:
        description: How an email is verified.
        type: str
        choices: [link, otp]
      require_email_verification:
        description: Whether users must verify their email before they sign in.
        type: bool
      auto_sign_in_after_verification:
        description: Whether users are signed in once their email is verified.
        type: bool
      send_verification_email_on_sign_up:
        description: Whether a verification email is sent on sign-up.
        type: bool
      send_verification_email_on_sign_in:
        description: Whether a verification email is sent on sign-in.
        type: bool
      disable_sign_up:
        description: Whether new users can no longer sign up.
        type: bool
  email_provider:
    description:
      - The server that sends Neon Auth's emails. V(shared) is Neon's; V(standard) your SMTP server, given whole
        (O(email_provider.host), O(email_provider.port), O(email_provider.username), O(email_provider.password),
        O(email_provider.sender_email), O(email_provider.sender_name)).
      - The password is write-only - the service's answers are not compared with it and no output shows it. It is
        sent with any other change of the email provider, or on every run with O(update_password=always).
    type: dict
    suboptions:
      type:
        description: V(shared) or V(standard).
        type: str
        required: true
        choices: [shared, standard]
      host:
        description: The SMTP host.
        type: str
      port:
        description: The SMTP port, from 1 to 65535.
        type: int
      username:
        description: The SMTP user.
        type: str
      password:
        description: The SMTP password.
        type: str
      sender_email:
        description: The sender's address.
        type: str
      sender_name:
        description: The sender's name.
        type: str
  update_password:
    description:
      - V(on_change) sends O(email_provider.password) only with another change of the email provider; V(always)
        sends it on every run (and reports a change), for a password rotated elsewhere.
    type: str
    choices: [on_change, always]
    default: on_change
  plugins:
    description: The plugins; only the fields given are compared and changed.
    type: dict
    suboptions:
      organization:
        description: Organizations (multi-tenancy) of the app's users.
        type: dict
        suboptions:
          enabled:
            description: Whether the plugin is on.
            type: bool
          organization_limit:
            description: How many organizations a user may create (at least 1).
            type: int
          membership_limit:
            description: How many members an organization may have (at least 1).
            type: int
          creator_role:
            description: The role of the user who creates an organization.
            type: str
            choices: [admin, owner]
          send_invitation_email:
            description: Whether invitations are sent by email.
            type: bool
      magic_link:
        description: Sign-in by a link sent by email.
        type: dict
        suboptions:
          enabled:
            description: Whether the plugin is on.
            type: bool
          expires_in:
            description: Minutes before a link expires, from 5 to 1440.
            type: int
          disable_sign_up:
            description: Whether a magic link may not sign a new user up.
            type: bool
      phone_number:
        description: Sign-in by a one-time code sent by SMS (through a webhook with the C(send.otp) event).
        type: dict
        suboptions:
          enabled:
            description: Whether the plugin is on.
            type: bool
          otp_expires_in:
            description: Seconds before a code expires, from 60 to 600.
            type: int
  webhooks:
    description:
      - The webhook Neon Auth calls on its events. The service replaces the whole configuration; the fields not
        given are kept as they are.
    type: dict
    suboptions:
      enabled:
        description: Whether the webhook is called.
        type: bool
      url:
        description: The C(https) URL called.
        type: str
      events:
        description: The events it is called for.
        type: list
        elements: str
        choices: [user.before_create, user.created, send.otp, send.magic_link, organization.invitation.created,
                  organization.invitation.accepted, phone_number.verified]
      timeout_seconds:
        description: Seconds the call may take, from 1 to 10.
        type: int
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Only reads; C(changed) and the diff tell what would be enabled, disabled or set.
  diff_mode:
    support: full
    details: Shows each setting that changes before and after (never a password; only whether one is sent).
notes:
  - None of these changes starts an operation, so there is nothing to wait for.
seealso:
  - module: neon.cloud.neon_auth_info
  - module: neon.cloud.neon_auth_oauth_provider
  - module: neon.cloud.neon_auth_user
  - module: neon.cloud.data_api
"""

EXAMPLES = r"""
- name: Neon Auth on the pull request's branch, its preview URL trusted
  neon.cloud.neon_auth:
    project_id: bold-glade-61830452
    branch: pr-42
    trusted_domains:
      - https://pr-42.preview.example.com
    email_and_password:
      enabled: true
      require_email_verification: false
  register: auth

- name: Production's settings, its domains the exact list
  neon.cloud.neon_auth:
    project_id: bold-glade-61830452
    branch: main
    app_name: Shop
    allow_localhost: false
    trusted_domains:
      - https://shop.example.com
    purge_trusted_domains: true
    plugins:
      magic_link:
        enabled: true
        expires_in: 15

- name: Pull request 41 closed - disable its Neon Auth, its users deleted with it
  neon.cloud.neon_auth:
    project_id: bold-glade-61830452
    branch: pr-41
    state: absent
    delete_data: true
"""

RETURN = r"""
enabled:
  description: Whether Neon Auth is enabled on the branch after the task (in check mode, as it would be).
  returned: always
  type: bool
  sample: true
branch_id:
  description: The branch's id.
  returned: once the branch was found
  type: str
  sample: br-floral-wind-a5090hvr
neon_auth:
  description: The integration as the service shows it (null while Neon Auth is not enabled).
  returned: once the branch was found
  type: dict
  sample:
    auth_provider: better_auth
    branch_id: br-floral-wind-a5090hvr
    db_name: neondb
    jwks_url: https://ep-floral-wind-a5090hvr.neonauth.us-east-2.aws.neon.tech/neondb/auth/.well-known/jwks.json
pub_client_key:
  description: The integration's publishable client key, answered only when the task enabled Neon Auth.
  returned: when the task enabled Neon Auth
  type: str
  sample: pck_3f1c0e9d
secret_server_key:
  description:
    - The integration's secret server key, answered only when the task enabled Neon Auth and never shown by the
      service again. Returned even when a later step fails; no message or diff shows it.
  returned: when the task enabled Neon Auth
  type: str
  sample: ssk_9b2e7a41
trusted_domains:
  description: The trusted domains after the task.
  returned: when O(trusted_domains) was given and something changed
  type: list
  elements: str
  sample: [https://pr-42.preview.example.com]
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.neon_auth import WEBHOOK_EVENTS, NeonAuthTask


def main():
    NeonModule(
        argument_spec=dict(
            project_id=dict(type="str", required=True),
            branch=dict(type="str"),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            auth_provider=dict(type="str", choices=["better_auth", "stack", "mock"]),
            database=dict(type="str"),
            delete_data=dict(type="bool", default=False),
            app_name=dict(type="str"),
            allow_localhost=dict(type="bool"),
            trusted_domains=dict(type="list", elements="str"),
            purge_trusted_domains=dict(type="bool", default=False),
            email_and_password=dict(type="dict", no_log=False, options=dict(
                enabled=dict(type="bool"),
                email_verification_method=dict(type="str", choices=["link", "otp"]),
                require_email_verification=dict(type="bool"),
                auto_sign_in_after_verification=dict(type="bool"),
                send_verification_email_on_sign_up=dict(type="bool"),
                send_verification_email_on_sign_in=dict(type="bool"),
                disable_sign_up=dict(type="bool"),
            )),
            email_provider=dict(type="dict", options=dict(
                type=dict(type="str", required=True, choices=["shared", "standard"]),
                host=dict(type="str"),
                port=dict(type="int"),
                username=dict(type="str"),
                password=dict(type="str", no_log=True),
                sender_email=dict(type="str"),
                sender_name=dict(type="str"),
            )),
            update_password=dict(type="str", choices=["on_change", "always"], default="on_change", no_log=False),
            plugins=dict(type="dict", options=dict(
                organization=dict(type="dict", options=dict(
                    enabled=dict(type="bool"),
                    organization_limit=dict(type="int"),
                    membership_limit=dict(type="int"),
                    creator_role=dict(type="str", choices=["admin", "owner"]),
                    send_invitation_email=dict(type="bool"),
                )),
                magic_link=dict(type="dict", options=dict(
                    enabled=dict(type="bool"),
                    expires_in=dict(type="int"),
                    disable_sign_up=dict(type="bool"),
                )),
                phone_number=dict(type="dict", options=dict(
                    enabled=dict(type="bool"),
                    otp_expires_in=dict(type="int"),
                )),
            )),
            webhooks=dict(type="dict", options=dict(
                enabled=dict(type="bool"),
                url=dict(type="str"),
                events=dict(type="list", elements="str", choices=list(WEBHOOK_EVENTS)),
                timeout_seconds=dict(type="int"),
            )),
        ),
        supports_check_mode=True,
    ).run_writer(NeonAuthTask)


if __name__ == "__main__":
    main()
