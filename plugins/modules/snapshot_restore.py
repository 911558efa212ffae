#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: snapshot_restore
short_description: Restore a snapshot of a Neon project to a branch, and finalize the restore
version_added: 1.0.0
description:
  - Restores a snapshot (M(neon.cloud.snapshot)) as a new branch named O(name), holding the data the snapshot
    keeps. With O(finalize=true) the restored branch then takes the place of the target branch - its name, its
    computes (which restart) and so its connection string - and the target is kept under a new name.
  - Without O(finalize), the restored branch stays beside the target for a look first; a later run with
    O(finalize=true) finalizes it.
  - A finalized restore keeps the target's name and connection string, but the branch behind them is a new one
    with a new id. The result gives that id (RV(branch.id)) and the replaced branch under its new name
    (RV(replaced_branch)); the service names it C(<name> (old)).
  - Running the task again does not restore again. A branch restored from this snapshot under O(name), or one
    that took the target's place, is the result - finalized now when O(finalize=true) and it is not yet. The task
    knows them by what the service records on a restored branch (C(restored_from), the snapshot's id, and its
    C(restore_status)).
  - After a finalize, M(neon.cloud.snapshot) run again for the snapshot of the target's name finds it taken of the
    replaced branch (now C(<name> (old))) and leaves it as it is, so the whole play of the examples below passes
    again and changes nothing.
  - Each change waits for its operations. Snapshots are in Beta at Neon.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description: The project's id.
    type: str
    required: true
  snapshot:
    description: The snapshot, by name or id.
    type: str
    required: true
  name:
    description:
      - The restored branch's own name, which it has until its restore is finalized (it then takes the target's).
      - A branch of this name that was not restored from the snapshot fails the task before anything is sent.
    type: str
    required: true
  target_branch:
    description:
      - The branch the restore replaces when it is finalized, by name or id. Without it, the branch the snapshot
        was taken of.
    type: str
  finalize:
    description:
      - Finalize the restore - the restored branch takes the target's name and computes now.
      - With V(false), the restored branch stays beside the target; run the task again with V(true) to finalize it.
      - Fails before anything is sent when the branch O(name) was not restored from this snapshot.
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
    details: Only reads; C(changed), the result and the diff tell what would be restored and finalized.
  diff_mode:
    support: full
    details: Shows the target branch and the restored branch before and after - names, restore status, the snapshot and its moment, the computes that move.
notes:
  - The computes of the target restart when the restore is finalized, so open connections drop.
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.snapshot
  - module: neon.cloud.snapshot_info
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: What a restore and its finalize do to the branches and computes.
"""

EXAMPLES = r"""
- name: A snapshot of main to restore (the runbook takes it before a change)
  neon.cloud.snapshot:
    project_id: shiny-river-12345678
    branch: main
    name: nightly-check

- name: Restore it beside main, for a look first
  neon.cloud.snapshot_restore:
    project_id: shiny-river-12345678
    snapshot: nightly-check
    name: main-restored
  register: restored

- name: Then let it take main's place (same name, same connection string)
  neon.cloud.snapshot_restore:
    project_id: shiny-river-12345678
    snapshot: nightly-check
    name: main-restored
    finalize: true
  register: finalized

- name: What changed
  ansible.builtin.debug:
    msg: >-
      main is now branch {{ finalized.branch.id }}; the branch it replaced is kept as
      '{{ finalized.replaced_branch.name }}' ({{ finalized.replaced_branch.id }})
"""

RETURN = r"""
branch:
  description:
    - The restored branch as the service lists it after the task. Once finalized, it has the target's name.
    - In check mode, as it would be (its id is null before it is made).
  returned: once the snapshot was found
  type: dict
  contains:
    id:
      description: Its id - a new one, also after a finalize.
      type: str
      sample: br-calm-term-1ldngmxs
    name:
      description: Its name.
      type: str
      sample: main
    restored_from:
      description: The id of the snapshot it was restored from.
      type: str
      sample: snap-quiet-meadow-a5l2dqxb
    restore_status:
      description: V(restored), or V(finalized) once it took the target's place.
      type: str
      sample: finalized
endpoints:
  description:
    - The restored branch's computes (after a finalize, the target's, moved to it), as the service lists them.
    - In check mode, the computes a finalize would move.
  returned: once the snapshot was found
  type: list
  elements: dict
  sample: [{"id": "ep-ancient-mode-n1b7o259", "type": "read_write", "host": "ep-ancient-mode-n1b7o259.us-east-2.aws.neon.tech"}]
finalized:
  description: Whether the restored branch has taken the target's place.
  returned: once the snapshot was found
  type: bool
  sample: true
replaced_branch:
  description: After a finalize, the branch the restore replaced, under its new name (its id is unchanged); else null.
  returned: once the snapshot was found
  type: dict
  sample: {"id": "br-young-poetry-rogubbb8", "name": "main (old)"}
snapshot:
  description: The snapshot restored.
  returned: once the snapshot was found
  type: dict
  sample: {"id": "snap-quiet-meadow-a5l2dqxb", "name": "nightly-check", "timestamp": "2026-01-31T22:00:00Z"}
operations:
  description: The operations the task started, in their last known state (ended, when O(wait=true)).
  returned: always
  type: list
  elements: dict
  sample: [{"id": "0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10", "action": "create_branch", "status": "finished"}]
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.snapshot_restores import SnapshotRestore
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import WAIT_ARGUMENT_SPEC


def main():
    spec = dict(
        project_id=dict(type="str", required=True),
        snapshot=dict(type="str", required=True),
        name=dict(type="str", required=True),
        target_branch=dict(type="str"),
        finalize=dict(type="bool", default=False),
    )
    spec.update(WAIT_ARGUMENT_SPEC)
    NeonModule(argument_spec=spec, supports_check_mode=True).run_writer(SnapshotRestore)


if __name__ == "__main__":
    main()
