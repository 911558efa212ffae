#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: project
short_description: Create, update and delete Neon projects
version_added: 1.0.0
description:
  - Makes sure a Neon project exists with the settings asked for, or that it does not.
  - Without O(id), the project is found by its exact O(name) among the projects the key reaches (in O(org_id)
    when given). Project names are not unique; when two projects have the name, the task fails, names both ids
    and changes nothing.
  - Settings that can only be chosen when a project is created (O(region_id), O(pg_version), O(org_id)) are
    compared with an existing project; when one differs the task fails and changes nothing.
  - O(compute) sets the project's default compute settings and applies them to its existing default compute
    (the read-write compute of the default branch) too; the project's settings alone reach only computes
    created later.
  - O(settings) holds the project to a baseline - who may connect from where, when maintenance happens, how much it
    may spend, how much is audited. Only the settings given are compared and changed; those left out stay as they
    are. Run with C(--check --diff) to see which settings differ from the baseline, then without C(--check) to
    change exactly those.
  - A setting the account's plan does not include (the IP allow list, for one) fails with the service's message,
    naming the settings sent; nothing else of the task is sent after it.
  - A new project's connection URI, with the default role's password in it, is returned once, in
    RV(connection_uri); it stays in the result even when a later step of the task fails.
  - A task whose project is as asked changes nothing.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  name:
    description:
      - The project's name, 1 to 256 characters.
      - Required to create a project. With O(id), a different name renames the project.
    type: str
  id:
    description:
      - The project's id. The project must exist; a project is only created without O(id).
    type: str
  state:
    description:
      - V(present) creates the project or brings it to the settings asked for.
      - V(absent) deletes it, with all its branches, computes, roles and databases. Irreversible.
    type: str
    choices: [present, absent]
    default: present
  org_id:
    description:
      - The organization the project belongs to, such as V(org-calm-tree-21298941). Without O(id), only its
        projects are searched for O(name).
      - Can only be set when the project is created.
    type: str
  region_id:
    description:
      - The region, such as V(aws-us-east-2) or V(aws-eu-central-1). Can only be set when the project is created;
        the service chooses when it is left out.
      - Before a create (in check mode too) the regions the account may use are read (those of O(org_id), or of the
        organization the project would be made in); a region not among them fails the task naming those there are,
        and nothing is created. A task that creates nothing does not read them.
    type: str
  pg_version:
    description:
      - The Postgres major version. Can only be set when the project is created.
    type: int
  history_retention_seconds:
    description:
      - How long the project keeps the history branches can be created from, in seconds (0 to 2592000).
        The maximum depends on the plan; the service refuses more.
    type: int
  compute:
    description:
      - The default compute settings, for computes created later and for the existing default compute.
      - Like any dict option, also a string - C(min_cu=0.25 max_cu=1), C(min_cu=0.25, max_cu=1) or a JSON object - as
        ad hoc C(-a 'compute="min_cu=0.25 max_cu=1"') gives it.
    type: dict
    suboptions:
      min_cu:
        description: The least compute units autoscaling may go down to (0.25 or more).
        type: float
      max_cu:
        description: The most compute units autoscaling may go up to.
        type: float
      suspend_timeout_seconds:
        description:
          - Seconds without activity before the compute is suspended. V(0) means the service's default,
            V(-1) never suspends. Some plans refuse other values.
        type: int
      pg_settings:
        description:
          - Postgres settings of the computes, such as C(log_min_duration_statement) or C(work_mem), as text.
          - Those given are compared and set, on the project's default compute settings and on its existing default
            compute; those not given are left as they are. Numbers are sent as text (V(100) as C("100")); quote C(on)
            and C(off), which YAML reads as booleans.
          - The service does not document which settings it takes; it refuses those it does not.
        type: dict
  settings:
    description:
      - The project's settings, as the service names them. Only the settings given are compared and sent; the
        others are left as they are (setting O(settings.allowed_ips) leaves the maintenance window alone).
      - Some settings need a plan that includes them (the IP allow list and the connection blocks need Scale or
        higher, a chosen maintenance window a paid plan); the service refuses them otherwise, and the task fails
        with its message.
    type: dict
    suboptions:
      allowed_ips:
        description:
          - The IP allow list (IP Allow). Given with only one of its two suboptions, the other keeps its current
            value (the service replaces the two together, so the task sends both).
        type: dict
        suboptions:
          ips:
            description:
              - The whole list of addresses that may connect - single addresses (V(192.0.2.1)), dash ranges
                (V(198.51.100.20-198.51.100.50)) and CIDR blocks (V(203.0.113.0/24)), IPv4 or IPv6. Compared as a set -
                order, repeats and whitespace do not matter.
              - An empty list allows connections from every IP address; when the project had a list, the diff and a
                warning say so.
              - An entry that is none of the three forms fails the task before anything is sent.
            type: list
            elements: str
          protected_branches_only:
            description: Apply the list only to protected branches; other branches accept every address.
            type: bool
      block_public_connections:
        description:
          - Refuse connections from the public internet (it takes precedence over O(settings.allowed_ips)); turning
            it on is said in the diff and a warning. The service calls it under active development.
        type: bool
      block_vpc_connections:
        description: Refuse connections through VPC endpoints. The service calls it under active development.
        type: bool
      maintenance_window:
        description:
          - When the service may carry out maintenance, in UTC; computes may restart then.
          - The service takes the three suboptions together. Those not given come from the project's current window;
            a project without one needs all three, or the task fails before anything is sent, naming those missing.
        type: dict
        suboptions:
          weekdays:
            description: The days, V(1) (Monday) to V(7) (Sunday). Compared as a set.
            type: list
            elements: int
          start_time:
            description: The start, V(HH:MM) in UTC. Quote it - YAML reads an unquoted V(12:30) as a number.
            type: str
          end_time:
            description: The end, V(HH:MM) in UTC. Quote it.
            type: str
      quota:
        description:
          - Limits of the project's consumption in each billing period. When one is reached, its computes are
            suspended and cannot start until the period ends (O(settings.quota.logical_size_bytes) instead stops
            writes to the branch that reached it). V(0) means unlimited.
          - The quotas given are set; those not given stay as they are.
        type: dict
        suboptions:
          active_time_seconds:
            description: Seconds the computes may run in all.
            type: int
          compute_time_seconds:
            description: CPU seconds the computes may use in all.
            type: int
          written_data_bytes:
            description: Bytes that may be written to all of the project's branches.
            type: int
          data_transfer_bytes:
            description: Bytes that may be transferred out of the project's branches.
            type: int
          logical_size_bytes:
            description: The most data each branch may hold.
            type: int
      audit_log_level:
        description: How much the service records in the project's audit log.
        type: str
        choices: [base, extended, full]
      preload_libraries:
        description: The shared libraries the project's computes preload.
        type: dict
        suboptions:
          use_defaults:
            description: Preload the service's default libraries.
            type: bool
          enabled_libraries:
            description:
              - The whole list of libraries to preload besides the defaults. Compared as a set.
              - When a task would add a library to an existing project (in check mode too), the libraries the service
                offers for the project's Postgres version are read first; one not offered fails the task naming those
                that are, and nothing is changed.
              - The service offers them per Postgres version. Before a create (in check mode too) they are read of a
                project of the same version (O(pg_version), else 17) that the key sees, in the organization and
                region the project would be made in when known; one not offered fails the task naming those that
                are, and nothing is created. When the key sees no such project, or cannot read its list, nothing is
                refused, and a warning says the libraries were not checked.
            type: list
            elements: str
      enable_logical_replication:
        description:
          - Turn on logical replication (C(wal_level=logical)), for replicating to other Postgres databases or
            change data capture.
          - Turning it on suspends every active compute of the project, dropping their connections, and B(cannot be
            undone); the diff and a warning say so. V(false) where it is on fails the task before anything is sent.
        type: bool
      hipaa:
        description:
          - Make the project HIPAA compliant (the organization must be set up for HIPAA first).
          - B(Cannot be undone); the diff and a warning say so. V(false) where it is on fails the task before anything
            is sent.
        type: bool
  store_passwords:
    description:
      - Whether the service stores the passwords of the project's roles, so that they can be read again
        (M(neon.cloud.connection_info), O(neon.cloud.role#module:reveal_password)). The service's default is V(true).
      - Can only be set when the project is created; an existing project that differs fails the task, and nothing is
        changed.
    type: bool
  default_branch:
    description: The name of the default branch made with a new project (the service's default is V(main)).
    type: str
  database:
    description: The name of the database made with a new project (the service's default is V(neondb)).
    type: str
  role:
    description: The name of the role made with a new project (the service's default is C(<database>_owner)).
    type: str
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.wait
  - neon.cloud.api.action_group
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details:
      - Only reads; C(changed) and the diff tell what would be done.
      - A project not made yet has a null C(id) in RV(project), which later tasks of the dry run take as a project an
        earlier task makes (see R(a dry run, ansible_collections.neon.cloud.docsite.troubleshooting.check_mode)).
  diff_mode:
    support: full
    details:
      - For a project that exists, shows what changes and nothing else - each field and setting that differs, and
        each of the default compute's (C(default_compute); of Postgres settings, those whose value changes) - before
        and after; a project as asked shows none. For a new project, what it is created with. Never a secret.
      - What a change cannot take back (logical replication or HIPAA turned on), and what cuts or opens connections
        at once (public connections blocked, an IP allow list emptied), is in C(notes) of the diff's after, and a
        warning.
notes:
  - O(default_branch), O(database), O(role) and O(store_passwords) are only used when the project is created.
  - A task whose project is as asked sends no change; its settings come with the project as it is read, so holding
    many projects to one baseline costs one request per unchanged project found by O(id).
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.branch
  - module: neon.cloud.connection_info
  - module: neon.cloud.projects_info
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: How the service merges a project's settings, and which of them cannot be turned back.
"""

EXAMPLES = r"""
- name: A project for the shop, in Frankfurt, on Postgres 17
  neon.cloud.project:
    name: shop
    region_id: aws-eu-central-1
    pg_version: 17
    compute:
      min_cu: 0.25
      max_cu: 2
      suspend_timeout_seconds: 300
  register: shop
  no_log: true

- name: Keep the connection URI of the new project (only in the run that created it)
  ansible.builtin.copy:
    content: "{{ shop.connection_uri }}"
    dest: /etc/shop/database-url
    mode: "0600"
  when: shop.connection_uri is defined
  no_log: true

- name: A project of the organization held to the baseline - who may connect, when maintenance happens, what it may spend
  neon.cloud.project:
    name: shop-eu
    org_id: org-calm-tree-21298941
    settings:
      allowed_ips:
        ips: [203.0.113.0/24, 198.51.100.7]
        protected_branches_only: false
      maintenance_window:
        weekdays: [6, 7]
        start_time: "02:00"
        end_time: "04:00"
      quota:
        compute_time_seconds: 360000
        logical_size_bytes: 10737418240
      audit_log_level: extended
    compute:
      pg_settings:
        log_min_duration_statement: "1000"
  register: baseline

- name: Report how the project differs from the baseline, changing nothing
  neon.cloud.project:
    name: shop-eu
    org_id: org-calm-tree-21298941
    settings:
      allowed_ips:
        ips: [203.0.113.0/24, 198.51.100.7]
      audit_log_level: extended
  check_mode: true
  diff: true
  register: drift

- name: Let the reporting server in too (the list given is the whole list; the window and quotas stay as they are)
  neon.cloud.project:
    name: shop-eu
    org_id: org-calm-tree-21298941
    settings:
      allowed_ips:
        ips: [203.0.113.0/24, 198.51.100.7, 192.0.2.10]

- name: Turn on logical replication for change data capture (suspends the computes once; cannot be undone)
  neon.cloud.project:
    name: shop-eu
    org_id: org-calm-tree-21298941
    settings:
      enable_logical_replication: true

- name: Rename a project known by id
  neon.cloud.project:
    id: shiny-river-12345678
    name: shop-production

- name: Delete the project
  neon.cloud.project:
    name: shop
    state: absent
"""

RETURN = r"""
project:
  description:
    - The project as the service answers it after the task (in check mode, as it would be; null when absent).
  returned: always
  type: dict
  contains:
    id:
      description: The project id.
      type: str
      sample: shiny-river-12345678
    name:
      description: The project name.
      type: str
      sample: shop
    region_id:
      description: The region.
      type: str
      sample: aws-eu-central-1
    pg_version:
      description: The Postgres major version.
      type: int
      sample: 17
    org_id:
      description: The organization, when the project belongs to one.
      type: str
      sample: org-calm-tree-21298941
    default_endpoint_settings:
      description: The default compute settings, Postgres settings (C(pg_settings)) among them.
      type: dict
      sample: {"autoscaling_limit_min_cu": 0.25, "autoscaling_limit_max_cu": 2, "suspend_timeout_seconds": 300,
               "pg_settings": {"log_min_duration_statement": "1000"}}
    settings:
      description:
        - The project's settings as the service holds them (C(allowed_ips), C(maintenance_window), C(quota),
          C(audit_log_level), C(enable_logical_replication), C(hipaa) and the others of O(settings)); a setting never
          set may be absent.
      type: dict
      sample: {"allowed_ips": {"ips": ["203.0.113.0/24"], "protected_branches_only": false},
               "maintenance_window": {"weekdays": [6, 7], "start_time": "02:00", "end_time": "04:00"},
               "quota": {"compute_time_seconds": 360000}, "enable_logical_replication": false, "hipaa": false}
    store_passwords:
      description: Whether the service stores the passwords of the project's roles.
      type: bool
      sample: true
connection_uri:
  description:
    - The connection URI of the new project's default role and database, password included. A secret, shown
      only in the run that created the project; register the result with C(no_log).
    - Later, M(neon.cloud.connection_info) reads it again.
  returned: when the project was created (not in check mode), even if the task then failed
  type: str
  sample: postgresql://neondb_owner:secret@ep-cool-darkness-123456.eu-central-1.aws.neon.tech/neondb?sslmode=require
operations:
  description:
    - The operations the task started, in their last known state (ended, when O(wait=true)).
    - Each is the service's operation object; see M(neon.cloud.operation_info).
  returned: always
  type: list
  elements: dict
  sample: [{"id": "0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10", "action": "create_timeline", "status": "finished"}]
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.project_settings import AUDIT_LOG_LEVELS, QUOTAS
from ansible_collections.neon.cloud.plugins.module_utils._resources.projects import Project
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import WAIT_ARGUMENT_SPEC


def main():
    spec = dict(
        name=dict(type="str"),
        id=dict(type="str"),
        state=dict(type="str", default="present", choices=["present", "absent"]),
        org_id=dict(type="str"),
        region_id=dict(type="str"),
        pg_version=dict(type="int"),
        history_retention_seconds=dict(type="int"),
        compute=dict(type="dict", options=dict(
            min_cu=dict(type="float"),
            max_cu=dict(type="float"),
            suspend_timeout_seconds=dict(type="int"),
            pg_settings=dict(type="dict"),
        )),
        settings=dict(type="dict", options=dict(
            allowed_ips=dict(type="dict", options=dict(
                ips=dict(type="list", elements="str"),
                protected_branches_only=dict(type="bool"),
            )),
            block_public_connections=dict(type="bool"),
            block_vpc_connections=dict(type="bool"),
            maintenance_window=dict(type="dict", options=dict(
                weekdays=dict(type="list", elements="int"),
                start_time=dict(type="str"),
                end_time=dict(type="str"),
            )),
            quota=dict(type="dict", options=dict((quota, dict(type="int")) for quota in QUOTAS)),
            audit_log_level=dict(type="str", choices=list(AUDIT_LOG_LEVELS)),
            preload_libraries=dict(type="dict", options=dict(
                use_defaults=dict(type="bool"),
                enabled_libraries=dict(type="list", elements="str"),
            )),
            enable_logical_replication=dict(type="bool"),
            hipaa=dict(type="bool"),
        )),
        store_passwords=dict(type="bool"),
        default_branch=dict(type="str"),
        database=dict(type="str"),
        role=dict(type="str"),
    )
    spec.update(WAIT_ARGUMENT_SPEC)
    NeonModule(
        argument_spec=spec,
        required_one_of=[("name", "id")],
        supports_check_mode=True,
    ).run_resource(Project)


if __name__ == "__main__":
    main()
