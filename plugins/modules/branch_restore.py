#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: branch_restore
short_description: Restore a Neon branch to a point in its history or to another branch's state
version_added: 1.0.0
description:
  - Restores a branch to an earlier point of its own history (O(source_timestamp) or O(source_lsn)) - the step of a
    runbook after a migration went wrong - or gives it another branch's state (O(source_branch)), at a point of
    that branch's history or as it is now.
  - The service replaces the branch's data, roles and databases - of every database on it - with the source's as
    they were then; it is an overwrite, not a merge, and open connections are briefly interrupted. The branch keeps
    its name, id and computes, so its connection strings stay the same; RV(endpoints) says where its computes are
    afterwards.
  - With O(preserve_under_name) the state the restore replaces is kept as a new branch of that name, which becomes
    the restored branch's parent and takes its children. The service requires it when a branch is restored from its
    own history or has children.
  - B(Running it again does not restore twice.) The module knows a restore was done when a branch of the
    O(preserve_under_name) exists and is what a restore of this branch made - the restored branch's parent (where
    the service puts the state a restore kept), made after the restored branch (C(created_at)), which has been
    restored since (it has a C(last_reset_at)). The task then changes nothing and returns both branches, and in
    RV(restored_to) the point that restore took (with a warning when the point asked differs from it).
  - A branch of that name that is anything else - another branch, or the branch's ordinary parent (older than it,
    the branch it was made from) - is refused before anything is sent; give another O(preserve_under_name).
  - Without O(preserve_under_name) (restoring from another branch with no children) nothing tells an earlier restore
    apart, so the branch is restored on every run and the task reports a change every time - a reset, as
    O(neon.cloud.branch#module:reset_from_parent) is.
  - Waits for the restore's operations, then reads the branch again - its C(parent_lsn) and C(parent_timestamp)
    are final only then. A point outside the project's history window is refused by the service; the task fails
    with the service's words (and the window, when they give it) and sends nothing else. A restore operation that
    fails fails the task, naming the operation.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description: The project's id.
    type: str
    required: true
  branch:
    description: The branch to restore, by name or id.
    type: str
    required: true
  source_branch:
    description:
      - The branch whose state it takes, by name or id. Without it, the branch itself - its own history, for which
        O(source_timestamp) or O(source_lsn), and O(preserve_under_name), are required.
    type: str
  source_timestamp:
    description:
      - The point of the source's history to take, as an RFC 3339 timestamp such as V(2026-05-04T02:55:00Z) -
        a real date, an upper-case T, the time to the second and its time zone - V(Z) or an offset such as
        V(+02:00). Within the project's history window (its C(history_retention_seconds)).
      - Sent in UTC, ending in V(Z); RV(restore) shows it so.
      - Mutually exclusive with O(source_lsn). Without either, the source as it is now (its head).
    type: str
  source_lsn:
    description:
      - The point of the source's history to take, as a Log Sequence Number such as V(0/1F2E3D4).
      - Mutually exclusive with O(source_timestamp).
    type: str
  preserve_under_name:
    description:
      - The name of a new branch that keeps the state the restore replaces (with its children). Required when the
        branch is restored from its own history or has children; the name must not be taken by another branch.
      - It is how a rerun knows the restore was done (see above) - give one in a runbook that may run again.
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
      - Only reads - the restore is not sent. C(changed) and the diff tell what would be restored, from where, to
        which point, and what would be kept under which name; RV(preserved_branch) is as it would be (its id null).
  diff_mode:
    support: full
    details:
      - Shows the branch's parent and data before and after - its own state, then the source's at the point - and
        the branch that would keep its state (C(preserved)), with the children it would take.
notes:
  - The input is checked before any request - a timestamp that is not RFC 3339, both O(source_timestamp) and
    O(source_lsn), an LSN that is not one, a restore from the branch's own history without a point or without
    O(preserve_under_name).
  - Resetting a branch to its parent's latest state is O(neon.cloud.branch#module:reset_from_parent).
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.branch
  - module: neon.cloud.branch_schema_info
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: How the service restores a branch, what it preserves, and its history window.
"""

EXAMPLES = r"""
- name: Restore main to ten minutes ago, keeping the state it replaces (a runbook takes the moment from its survey)
  neon.cloud.branch_restore:
    project_id: shiny-river-12345678
    branch: main
    source_timestamp: "{{ '%Y-%m-%dT%H:%M:%SZ' | strftime(now().timestamp() - 600, utc=true) }}"
    preserve_under_name: main-before-restore
  register: restored

- name: Say what was kept, and where the computes are
  ansible.builtin.debug:
    msg: >-
      {{ restored.branch.name }} is back to {{ restored.restored_to.timestamp or 'LSN ' ~ restored.restored_to.lsn }};
      its earlier state is branch {{ restored.preserved_branch.name }};
      computes {{ restored.endpoints | map(attribute='id') | join(', ') }} stay on it

- name: What giving staging the state of main now would do (nothing is sent)
  neon.cloud.branch_restore:
    project_id: shiny-river-12345678
    branch: staging
    source_branch: main
  check_mode: true
  diff: true
"""

RETURN = r"""
branch:
  description:
    - The branch as the service answers it after the restore and its operations (in check mode, and when an earlier
      run restored it already, as it is).
  returned: always
  type: dict
  contains:
    id:
      description: The branch id (a restore keeps it).
      type: str
      sample: br-young-poetry-rogubbb8
    name:
      description: The branch name (a restore keeps it).
      type: str
      sample: main
    parent_id:
      description: Its parent - the preserved branch after a restore with O(preserve_under_name), else the source.
      type: str
      sample: br-aged-salad-637688
    parent_lsn:
      description: The point of the parent's history the branch's data came from.
      type: str
      sample: 0/1F2E3D4
    parent_timestamp:
      description: The same point as a timestamp; the service may leave it out.
      type: str
      sample: "2026-05-04T02:55:00Z"
    last_reset_at:
      description: When the branch was last restored or reset.
      type: str
      sample: "2026-05-04T03:10:12Z"
    current_state:
      description: V(ready) once the restore's operations have ended (V(resetting) while they run).
      type: str
      sample: ready
preserved_branch:
  description:
    - The branch that keeps the state the restore replaced (O(preserve_under_name)), as the service answers it;
      null without O(preserve_under_name). In check mode, as it would be, its id null.
  returned: always
  type: dict
  sample: {"id": "br-aged-salad-637688", "name": "main-before-restore", "parent_id": null}
endpoints:
  description:
    - The branch's computes, the read-write one first - those it had before the restore, as they are afterwards.
      Each one's C(branch_id) says which branch it is on (the service keeps them on the restored branch, so its
      connection strings stay the same; a warning names any that moved).
  returned: always
  type: list
  elements: dict
  sample: [{"id": "ep-ancient-mode-n1b7o259", "type": "read_write", "branch_id": "br-young-poetry-rogubbb8"}]
restore:
  description:
    - What the task was asked to restore - the source and the point, and the name preserved. On a rerun that changed
      nothing, the branch does not hold this point when it differs from the earlier restore's (a warning says so); what
      it holds is RV(restored_to).
  returned: always
  type: dict
  sample: {"source_branch_id": "br-young-poetry-rogubbb8", "source_branch_name": "main",
           "source_timestamp": "2026-05-04T02:55:00Z", "source_lsn": null, "preserve_under_name": "main-before-restore"}
restored_to:
  description:
    - The point the branch holds after the task, as the service shows it - the restored branch's C(parent_timestamp)
      and C(parent_lsn). After a restore of this run, the point restored to (the one sent fills in a timestamp the
      service leaves out); on a rerun that finds the restore done, B(the point of that earlier restore), which may
      differ from the one asked now; in check mode, the point that would be restored (null for a source's head).
  returned: always
  type: dict
  contains:
    timestamp:
      description: The moment, in UTC; null when the service gives none (it may leave it out) and none was sent.
      type: str
      sample: "2026-05-04T02:55:00Z"
    lsn:
      description: The Log Sequence Number of that point.
      type: str
      sample: 0/1F2E3D4
  sample: {"timestamp": "2026-05-04T02:55:00Z", "lsn": "0/1F2E3D4"}
operations:
  description: The operations the task started, in their last known state (ended, when O(wait=true)).
  returned: always
  type: list
  elements: dict
  sample: [{"id": "0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10", "action": "create_timeline", "status": "finished"}]
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.restores import BranchRestore
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import WAIT_ARGUMENT_SPEC


def main():
    spec = dict(
        project_id=dict(type="str", required=True),
        branch=dict(type="str", required=True),
        source_branch=dict(type="str"),
        source_timestamp=dict(type="str"),
        source_lsn=dict(type="str"),
        preserve_under_name=dict(type="str"),
    )
    spec.update(WAIT_ARGUMENT_SPEC)
    NeonModule(
        argument_spec=spec,
        mutually_exclusive=[("source_timestamp", "source_lsn")],
        supports_check_mode=True,
    ).run_writer(BranchRestore)


if __name__ == "__main__":
    main()
