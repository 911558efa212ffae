#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: data_api
short_description: Create, update or remove the Data API of a Neon branch's database
version_added: 1.0.0
description:
  - Holds the Data API of one database of a branch - a REST interface over its tables, whose requests carry a JWT
    of the branch's Neon Auth (O(auth_provider=neon_auth)) or of another provider (O(auth_provider=external) with
    its O(jwks_url)).
  - Created with its auth provider and JWT settings; afterwards only O(settings) are compared and changed (each
    one only where given). The service does not show the auth provider, JWKS URL, provider name, audience or
    grants of an existing Data API, so they are sent only when the task creates it.
  - O(refresh_schema_cache=true) refreshes its schema cache (after a migration) - a change on every run. Any
    update of the settings refreshes it too.
  - B(Removing it breaks every client of its URL.) The diff says so by its empty after.
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
  database:
    description: The database it serves.
    type: str
    required: true
  state:
    description: V(present) creates or updates it; V(absent) removes it.
    type: str
    choices: [present, absent]
    default: present
  auth_provider:
    description:
      - Whose JWTs it takes, when the task creates it - the branch's Neon Auth (V(neon_auth), enabled first with
        M(neon.cloud.neon_auth)) or another provider's (V(external), with O(jwks_url)). Without it, V(neon_auth).
    type: str
    choices: [neon_auth, external]
  jwks_url:
    description: The https URL of the external provider's JSON Web Key Set, when the task creates it.
    type: str
  provider_name:
    description: The external provider's name (Clerk, Auth0, ...), when the task creates it.
    type: str
  jwt_audience:
    description:
      - The C(aud) it requires, when the task creates it. Tokens without an audience are still taken (the service's
        rule).
    type: str
  add_default_grants:
    description: Grant authenticated users every permission on the tables of C(public), when the task creates it.
    type: bool
  skip_auth_schema:
    description: Do not create the auth schema and its row-level security functions, when the task creates it.
    type: bool
  settings:
    description: Its settings; only those given are compared and changed.
    type: dict
    suboptions:
      db_schemas:
        description: The schemas it exposes (the service's default is C(public)).
        type: list
        elements: str
      db_anon_role:
        description: The database role of anonymous requests.
        type: str
      db_extra_search_path:
        description: Schemas added to the search path.
        type: str
      db_max_rows:
        description: The most rows one request returns (at least 1).
        type: int
      db_aggregates_enabled:
        description: Whether aggregates may be asked for.
        type: bool
      jwt_role_claim_key:
        description: The JWT claim that names the role, such as C(.role).
        type: str
      jwt_cache_max_lifetime:
        description: Seconds a JWT is cached.
        type: int
      openapi_mode:
        description: Whether and how it serves its OpenAPI description.
        type: str
        choices: [ignore-privileges, disabled]
      server_cors_allowed_origins:
        description: The origins browsers may call it from.
        type: str
      server_timing_enabled:
        description: Whether it answers Server-Timing headers.
        type: bool
  refresh_schema_cache:
    description: Refresh its schema cache (with O(state=present) on an existing Data API).
    type: bool
    default: false
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Only reads; C(changed) and the diff tell what would be created, changed or removed.
  diff_mode:
    support: full
    details: Shows the settings given before and after.
seealso:
  - module: neon.cloud.neon_auth
  - module: neon.cloud.jwks
"""

EXAMPLES = r"""
- name: The Data API of the pull request's database, signed in through its Neon Auth
  neon.cloud.data_api:
    project_id: bold-glade-61830452
    branch: pr-42
    database: neondb
    settings:
      db_schemas: [public, api]
      server_cors_allowed_origins: https://pr-42.preview.example.com
  register: rest

- name: After the migration, refresh its schema cache
  neon.cloud.data_api:
    project_id: bold-glade-61830452
    branch: pr-42
    database: neondb
    refresh_schema_cache: true
"""

RETURN = r"""
data_api:
  description: The Data API as the service shows it after the task (its URL, status, settings); null when absent.
  returned: once the branch was found
  type: dict
  sample:
    url: https://ep-floral-wind-a5090hvr.apirest.us-east-2.aws.neon.tech/neondb/rest/v1
    status: ready
    settings: {db_schemas: [public, api]}
branch_id:
  description: The branch's id.
  returned: once the branch was found
  type: str
  sample: br-floral-wind-a5090hvr
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.data_api import DataApi


def main():
    NeonModule(
        argument_spec=dict(
            project_id=dict(type="str", required=True),
            branch=dict(type="str"),
            database=dict(type="str", required=True),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            auth_provider=dict(type="str", choices=["neon_auth", "external"]),
            jwks_url=dict(type="str"),
            provider_name=dict(type="str"),
            jwt_audience=dict(type="str"),
            add_default_grants=dict(type="bool"),
            skip_auth_schema=dict(type="bool"),
            settings=dict(type="dict", options=dict(
                db_schemas=dict(type="list", elements="str"),
                db_anon_role=dict(type="str"),
                db_extra_search_path=dict(type="str"),
                db_max_rows=dict(type="int"),
                db_aggregates_enabled=dict(type="bool"),
                jwt_role_claim_key=dict(type="str", no_log=False),
                jwt_cache_max_lifetime=dict(type="int"),
                openapi_mode=dict(type="str", choices=["ignore-privileges", "disabled"]),
                server_cors_allowed_origins=dict(type="str"),
                server_timing_enabled=dict(type="bool"),
            )),
            refresh_schema_cache=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    ).run_writer(DataApi)


if __name__ == "__main__":
    main()
