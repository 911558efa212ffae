#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: snapshot
short_description: Take and delete manual snapshots of a Neon branch
version_added: 1.0.0
description:
  - Makes sure a project has a snapshot of a given name - the state of a branch at a moment, kept to restore later
    with M(neon.cloud.snapshot_restore) - or that it has none; and that it expires when asked (O(expires_at)).
  - A snapshot is found by its name, which is unique within a project. Taking one waits for its operations.
  - Manual snapshots are taken only of root branches (a branch without a parent, such as the project's first
    branch); a child branch is refused before anything is sent. A project has at most 1 manual snapshot on the
    free plan and 10 on paid plans; snapshots taken by a backup schedule (M(neon.cloud.snapshot_schedule)) do not
    count. A snapshot refused for that limit fails the task naming the project's manual snapshots, the ones that
    hold it - delete one (O(state=absent)) to take another.
  - Snapshots are in Beta at Neon.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description: The project's id.
    type: str
    required: true
  name:
    description: The snapshot's name. A snapshot is identified by its name within its project.
    type: str
    required: true
  branch:
    description:
      - The branch to take the snapshot of, by name or id. Without it, the project's default branch.
      - A snapshot of this name taken of another branch fails the task; nothing is changed.
      - One taken of a branch that this branch replaced by a finalized restore (M(neon.cloud.snapshot_restore) with
        O(neon.cloud.snapshot_restore#module:finalize=true) gives the restored branch the name and a new id) is the
        snapshot asked - taken of the branch of this name before the restore - and is left as it is, so that a play
        that took the snapshot and rolled back to it passes again and changes nothing. The service tells it by the
        branch's C(restore_status) (V(finalized)) and C(restored_as) (the branch it replaced, followed back through
        earlier finalized restores); RV(taken_of) says so.
      - Not used with O(state=absent).
    type: str
  timestamp:
    description:
      - Take the snapshot of the branch as it was at this moment (an RFC 3339 timestamp such as
        V(2026-01-31T22:00:00Z) - a real date, an upper-case T, the time to the second and its time zone - V(Z) or
        an offset such as V(+02:00)), within the project's history window. Without it or O(lsn), the branch as it
        is now. Sent in UTC, ending in V(Z).
      - A snapshot of this name taken at another moment fails the task; nothing is changed.
    type: str
  lsn:
    description:
      - Take the snapshot of the branch at this log sequence number (such as V(0/1A2B3C4)), within the project's
        history window. Not with O(timestamp).
    type: str
  expires_at:
    description:
      - When the service deletes the snapshot by itself (an RFC 3339 timestamp in the future, as O(timestamp)).
        Without it, a manual snapshot is kept until it is deleted, and an existing one's expiry is left as it is.
      - Set when the snapshot is taken; an existing snapshot whose expiry differs is updated to it (the service's
        update of a snapshot takes its expiry). An empty string (V('')) means never - a snapshot is taken without an
        expiry, and an existing one's is removed.
    type: str
  state:
    description:
      - V(present) takes the snapshot when the project has none of this name.
      - V(absent) deletes it.
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.wait
  - neon.cloud.api.action_group
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details:
      - Only reads; C(changed) and the diff tell what would be done. Nothing is taken, updated or deleted.
      - A branch or a project that does not exist yet is taken as made by an earlier task of the play, with a warning
        saying so (see R(a dry run, ansible_collections.neon.cloud.docsite.troubleshooting.check_mode)).
  diff_mode:
    support: full
    details: Shows the snapshot's name, source branch, point and expiry before and after.
notes:
  - O(timestamp), O(lsn) and O(expires_at) are checked before any request - a timestamp that is not RFC 3339, an
    LSN that is not one, or both a timestamp and an LSN fail the task, naming the option, and nothing is sent.
  - For the requests each task costs, see the
    R(performance guide, ansible_collections.neon.cloud.docsite.performance.task_costs).
seealso:
  - module: neon.cloud.snapshot_restore
  - module: neon.cloud.snapshot_info
  - module: neon.cloud.snapshot_schedule
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: How the service takes, lists and deletes snapshots, and its limits.
"""

EXAMPLES = r"""
- name: Snapshot the production branch before a migration
  neon.cloud.snapshot:
    project_id: shiny-river-12345678
    branch: main
    name: before-migration-42
  register: snapshot

- name: Where to roll back to
  ansible.builtin.debug:
    msg: "Snapshot {{ snapshot.snapshot.id }} holds main as it was at {{ snapshot.snapshot.timestamp }}"

- name: Keep it two weeks from now, then let the service delete it (the snapshot's expiry is updated)
  neon.cloud.snapshot:
    project_id: shiny-river-12345678
    branch: main
    name: before-migration-42
    expires_at: "{{ '%Y-%m-%dT%H:%M:%SZ' | strftime(now(utc=true).timestamp() + 14 * 86400, utc=true) }}"

- name: Delete it once the migration has been checked
  neon.cloud.snapshot:
    project_id: shiny-river-12345678
    name: before-migration-42
    state: absent
"""

RETURN = r"""
snapshot:
  description:
    - The snapshot as the service answers it (in check mode, as it would be; its id is null before it is taken).
    - For O(state=absent), the snapshot deleted, or null when there was none.
  returned: always
  type: dict
  contains:
    id:
      description: The snapshot's id.
      type: str
      sample: snap-quiet-meadow-a5l2dqxb
    name:
      description: Its name.
      type: str
      sample: before-migration-42
    source_branch_id:
      description: The id of the branch it was taken of.
      type: str
      sample: br-floral-wind-a5090hvr
    timestamp:
      description: The moment of the branch it holds.
      type: str
      sample: "2026-01-31T22:00:00Z"
    lsn:
      description: The log sequence number of that moment.
      type: str
      sample: 0/1A2B3C4
    created_at:
      description: When it was taken.
      type: str
      sample: "2026-01-31T22:00:02Z"
    expires_at:
      description: When the service deletes it by itself; absent when never.
      type: str
      sample: "2026-02-28T00:00:00Z"
    manual:
      description: Whether it was taken by hand (or by this module), not by a backup schedule.
      type: bool
      sample: true
    full_size:
      description:
        - The snapshot's full logical size in bytes when it was taken (the service's June 2026 document); absent while
          not calculated yet. V(0) means it is not charged.
      type: int
      sample: 8389120
    diff_size:
      description:
        - The growth in bytes since the previous scheduled snapshot, when the snapshot is charged on that; absent
          otherwise.
      type: int
      sample: 838912
branch_id:
  description:
    - The id of the branch the snapshot is taken of - the branch asked. After a finalized restore it differs from the
      snapshot's C(source_branch_id) (see RV(taken_of)).
  returned: with O(state=present), once the branch was found
  type: str
  sample: br-floral-wind-a5090hvr
taken_of:
  description:
    - When the snapshot of this name was taken of a branch that O(branch) replaced by a finalized restore, that branch
      (its id, its name now, such as V(main (old)), null when it was deleted) and a sentence saying why the snapshot
      was left as it is.
  returned: when so
  type: dict
  sample: {"id": "br-floral-wind-a5090hvr", "name": "main (old)", "note": "snapshot 'nightly-check' (snap-...) was taken
    of branch br-floral-wind-a5090hvr, which had the name 'main' until a finalized restore put branch br-calm-term-1ldngmxs
    in its place (it is named 'main (old)' now); it is the snapshot asked, left as it is"}
operations:
  description: The operations the task started, in their last known state (ended, when O(wait=true)).
  returned: always
  type: list
  elements: dict
  sample: [{"id": "0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10", "action": "create_timeline", "status": "finished"}]
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.snapshots import Snapshot
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import WAIT_ARGUMENT_SPEC


def main():
    spec = dict(
        project_id=dict(type="str", required=True),
        name=dict(type="str", required=True),
        branch=dict(type="str"),
        timestamp=dict(type="str"),
        lsn=dict(type="str"),
        expires_at=dict(type="str"),
        state=dict(type="str", default="present", choices=["present", "absent"]),
    )
    spec.update(WAIT_ARGUMENT_SPEC)
    NeonModule(
        argument_spec=spec,
        mutually_exclusive=[("timestamp", "lsn")],
        supports_check_mode=True,
    ).run_resource(Snapshot)


if __name__ == "__main__":
    main()
