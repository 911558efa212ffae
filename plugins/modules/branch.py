#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: branch
short_description: Create, update, reset and delete branches of a Neon project
version_added: 1.0.0
description:
  - Makes sure a branch with a given name exists in a project, as asked, or that it does not - for example a
    database branch per pull request, created or reused by name.
  - The branch is identified by its name within the project; running the task again changes nothing.
  - By default a read-write compute is created with the branch, so that it can be connected to at once; with
    O(wait=true) the task returns when the branch and its compute are ready.
  - Settings that can only be chosen when a branch is created (O(parent), O(parent_timestamp), O(parent_lsn))
    are compared with an existing branch when given; when one differs the task fails and changes nothing.
  - Runs of the same task at the same time leave one branch and all succeed; a run whose create came second uses
    the branch the other one created.
  - The default branch, a protected branch and a branch with children are never deleted; the task fails and
    says why, before sending anything.
  - O(default=true) makes the branch the project's default branch; the branch that was the default before is named
    in RV(previous_default).
  - To restore a branch to a point in time, or to another branch's state, see M(neon.cloud.branch_restore).
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description: The project's id.
    type: str
    required: true
  name:
    description: The branch's name, unique within the project (1 to 256 characters).
    type: str
    required: true
  state:
    description:
      - V(present) creates the branch or brings it to what is asked.
      - V(absent) deletes it and its computes. Irreversible.
    type: str
    choices: [present, absent]
    default: present
  parent:
    description:
      - The branch to create this one from, by name or id. Without it, the project's default branch.
      - Can only be chosen when the branch is created.
    type: str
  parent_timestamp:
    description:
      - Create the branch from the parent's data at this moment, an RFC 3339 timestamp such as
        V(2025-01-16T12:00:00Z) - a real date, an upper-case T, the time to the second and its time zone - V(Z) or
        an offset such as V(+02:00) - within the project's history retention. Sent in UTC, ending in V(Z). Can
        only be chosen when the branch is created.
      - Mutually exclusive with O(parent_lsn).
    type: str
  parent_lsn:
    description:
      - Create the branch from the parent's data at this Log Sequence Number, such as V(0/1F2E3D4). Can only be
        chosen when the branch is created.
    type: str
  init_source:
    description:
      - V(parent-data) (the service's default) - the branch starts with its parent's data, roles and databases.
      - V(schema-only) - the branch starts with its parent's schema (at O(parent_timestamp) or O(parent_lsn) when
        given) and no rows - for a branch without the production data in it. The service makes it a root branch -
        it has no parent afterwards, cannot be reset from one, and counts toward the plan's root branches.
        O(parent), O(parent_timestamp) and O(parent_lsn) only choose where its schema comes from, so they are not
        compared with it when the task runs again.
      - Can only be chosen when the branch is created. A branch whose answer does not say how it was made is taken
        as asked.
    type: str
    choices: [parent-data, schema-only]
  protected:
    description: Whether the branch is protected (the service limits how many a plan may have).
    type: bool
  expires_at:
    description:
      - When the service deletes the branch by itself (an RFC 3339 timestamp such as V(2025-01-16T12:00:00Z), in
        the future, at most 30 days ahead) - for preview branches. V("") removes the expiry. The default branch, protected branches and branches with
        children cannot expire.
    type: str
  compute:
    description:
      - V(true) (the default) - the branch has a read-write compute; one is created when it has none.
      - A dict - the same, with these settings for the compute (C(min_cu), C(max_cu), C(suspend_timeout_seconds));
        an existing compute is updated to them.
      - V(false) - no compute is created; an existing one is left alone.
      - A string that is not a boolean is read as a dict, as Ansible reads a dict option - C(min_cu=0.25 max_cu=1),
        C(min_cu=0.25, max_cu=1) or a JSON object - so that ad hoc C(-a 'compute="min_cu=0.25 max_cu=1"') works.
    type: raw
    default: true
  default:
    description:
      - V(true) makes the branch the project's default branch, after creating it if needed - the service takes the
        mark from the branch that had it (named in RV(previous_default)). A branch that already is the default is
        left as it is.
      - V(false) cannot be done to the default branch directly - a branch stops being the default only when another
        becomes it, so the task fails and says so; set V(true) on the branch that is to be the default instead. On
        any other branch it changes nothing.
      - The default branch cannot expire (O(expires_at)).
    type: bool
  reset_from_parent:
    description:
      - Bring an existing branch back to its parent's latest state, keeping its name, id, computes and their hosts.
        Everything written to the branch since is lost.
      - That includes its roles and databases - they are replaced by the parent's, with the parent's passwords. A role
        or database made on the branch alone is gone, and a role it shares with the parent has the parent's password
        again, so read the connection details after the reset (M(neon.cloud.connection_info)). The service also
        counts the branch's expiry again from the reset.
      - Resets on every run, so the task reports a change every time (as O(neon.cloud.api_key#module:rotate) does).
    type: bool
    default: false
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
      - A O(parent) or a project that does not exist yet is taken as made by an earlier task of the play, with a
        warning saying so (see R(a dry run, ansible_collections.neon.cloud.docsite.troubleshooting.check_mode));
        run for real, the task fails before sending anything unless one makes it.
  diff_mode:
    support: full
    details:
      - Shows the branch's settings and its compute's before and after; never a secret.
      - A reset (O(reset_from_parent)) shows as C(data) - its own before, its parent's latest (data, roles and
        databases) after.
      - With O(default), C(default) shows whether it is the project's default branch before and after.
notes:
  - O(parent_timestamp), O(parent_lsn) and O(expires_at) are checked before any request - a timestamp that is not
    RFC 3339 or an LSN that is not one fails the task, naming the option, and nothing is sent.
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.branch_info
  - module: neon.cloud.branch_restore
  - module: neon.cloud.branch_schema_info
  - module: neon.cloud.connection_info
  - module: neon.cloud.project
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: How the service answers branch requests, and what this module does about a second create.
"""

EXAMPLES = r"""
- name: A database branch for pull request 42, from main, with a compute, expiring in a week
  neon.cloud.branch:
    project_id: shiny-river-12345678
    name: pr-42
    parent: main
    # midnight (UTC) a week ahead: the same on every run of one day, so a rerun that day changes nothing
    expires_at: "{{ '%Y-%m-%dT00:00:00Z' | strftime(now().timestamp() + 7 * 86400, utc=true) }}"
  register: preview

- name: Show the host of its read-write compute
  ansible.builtin.debug:
    msg: "{{ preview.endpoints[0].host }}"

- name: A bigger compute for the load test branch
  neon.cloud.branch:
    project_id: shiny-river-12345678
    name: load-test
    compute:
      min_cu: 1
      max_cu: 4
      suspend_timeout_seconds: 600

- name: Bring the branch back to the state of main before the test run
  neon.cloud.branch:
    project_id: shiny-river-12345678
    name: pr-42
    reset_from_parent: true

- name: A branch with main's schema and none of its rows, for tests that must not see production data
  neon.cloud.branch:
    project_id: shiny-river-12345678
    name: pr-42-schema
    parent: main
    init_source: schema-only

- name: Make the release branch the project's default branch
  neon.cloud.branch:
    project_id: shiny-river-12345678
    name: release-2026-05
    default: true
  register: release

- name: Say which branch was the default before
  ansible.builtin.debug:
    msg: "The default branch was {{ release.previous_default.name }}"

- name: Delete the branch when the pull request closes
  neon.cloud.branch:
    project_id: shiny-river-12345678
    name: pr-42
    state: absent
"""

RETURN = r"""
branch:
  description:
    - The branch as the service answers it after the task (in check mode, as it would be).
    - For O(state=absent), the branch deleted, or null when there was none.
  returned: always
  type: dict
  contains:
    id:
      description:
        - The branch id.
        - Null in check mode for a branch not created yet (the service gives it the id when it makes it).
      type: str
      sample: br-floral-wind-a5090hvr
    name:
      description: The branch name.
      type: str
      sample: pr-42
    parent_id:
      description: The parent branch's id.
      type: str
      sample: br-aged-salad-637688
    protected:
      description: Whether the branch is protected.
      type: bool
      sample: false
    expires_at:
      description: When the service deletes the branch, if ever.
      type: str
      sample: "2025-01-23T12:00:00Z"
    current_state:
      description:
        - V(init), V(ready), V(resetting) or V(archived).
        - With O(wait=true), V(ready) (or V(archived)) on every run, also when the branch was found still being
          made by an earlier run that timed out or by another run at the same time.
      type: str
      sample: ready
    default:
      description: Whether it is the project's default branch.
      type: bool
      sample: false
    init_source:
      description: How the branch was made - V(parent-data) or V(schema-only) - when the service says.
      type: str
      sample: parent-data
previous_default:
  description:
    - The branch that was the project's default branch before the task (the branch itself when it already was);
      null when the project had none.
  returned: when O(default=true)
  type: dict
  contains:
    id:
      description: Its id.
      type: str
      sample: br-aged-salad-637688
    name:
      description: Its name.
      type: str
      sample: main
endpoints:
  description:
    - The branch's computes, the read-write one first (the service lists them in no particular order).
  returned: when O(state=present)
  type: list
  elements: dict
  contains:
    id:
      description:
        - The compute's id.
        - Null in check mode for a compute not created yet.
      type: str
      sample: ep-jolly-frost-a57qv4wh
    type:
      description: V(read_write) or V(read_only).
      type: str
      sample: read_write
    host:
      description:
        - The host to connect to.
        - Null in check mode for a compute not created yet - the service gives it the host when it makes it, so
          a playbook that uses it in check mode must allow for that (C(endpoints[0].host | default('', true))).
      type: str
      sample: ep-jolly-frost-a57qv4wh.eu-central-1.aws.neon.tech
    autoscaling_limit_min_cu:
      description: The least compute units.
      type: float
      sample: 0.25
    autoscaling_limit_max_cu:
      description: The most compute units.
      type: float
      sample: 2.0
connection_uri:
  description:
    - The connection URI the service gives with a new branch, password included - only when the parent has one
      role and one database. A secret; register the result with C(no_log).
    - M(neon.cloud.connection_info) reads it (or a pooled one, for a given role and database) at any time.
  returned: when the branch was created and the service gave one, even if the task then failed
  type: str
  sample: postgresql://neondb_owner:secret@ep-jolly-frost-a57qv4wh.eu-central-1.aws.neon.tech/neondb?sslmode=require
operations:
  description:
    - The operations the task started, in their last known state (ended, when O(wait=true)).
  returned: always
  type: list
  elements: dict
  sample: [{"id": "0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10", "action": "create_branch", "status": "finished"}]
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.branches import Branch
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import WAIT_ARGUMENT_SPEC


def main():
    spec = dict(
        project_id=dict(type="str", required=True),
        name=dict(type="str", required=True),
        state=dict(type="str", default="present", choices=["present", "absent"]),
        parent=dict(type="str"),
        parent_timestamp=dict(type="str"),
        parent_lsn=dict(type="str"),
        init_source=dict(type="str", choices=["parent-data", "schema-only"]),
        protected=dict(type="bool"),
        expires_at=dict(type="str"),
        compute=dict(type="raw", default=True),
        reset_from_parent=dict(type="bool", default=False),
        default=dict(type="bool"),
    )
    spec.update(WAIT_ARGUMENT_SPEC)
    NeonModule(
        argument_spec=spec,
        mutually_exclusive=[("parent_timestamp", "parent_lsn")],
        supports_check_mode=True,
    ).run_resource(Branch)


if __name__ == "__main__":
    main()
