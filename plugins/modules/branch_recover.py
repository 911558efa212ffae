#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: branch_recover
short_description: Recover a deleted Neon branch within its 7-day recovery window
version_added: 1.0.0
description:
  - Brings back a branch that was deleted - by hand or by its TTL (C(expires_at)) - while the service still keeps
    it, for 7 days after its deletion. The service restores the branch with its id, name, data, roles, databases
    and computes (idle); its connection strings stay valid. Past the window the branch is gone for good and the task
    fails saying so.
  - The deleted branch is found by name or id among the project's branches listed with their deleted ones
    (C(include_deleted=true)). A name that several deleted branches had is refused, naming each one's id and
    deletion time - give the id of the one to recover.
  - B(A branch with a TTL becomes permanent when it is recovered) - the service drops its C(expires_at). The task
    says so in a warning and in RV(ttl_removed); set C(expires_at) again with M(neon.cloud.branch) if it should
    expire.
  - B(Running it again does not recover twice.) A branch of that id, or of that name with no deleted one beside it,
    that is live already is left as it is (C(changed=false)). Two runs at once recovering the same branch both
    succeed; the one whose request the service refuses finds the branch live and says another run recovered it.
  - Refused before anything is sent, with what to decide - a live branch of the same name beside the deleted one
    (the service keeps one branch of a name - rename or delete the live one first, then recover the deleted one by
    its id, or keep the live one and drop the task), a deleted parent (recover the parent first), a project that does
    not exist (if the project itself was deleted, recover it first with M(neon.cloud.project_recover)).
  - Waits until what the recovery runs on the branch has ended - the service's answer names no operations, so the
    project's operations are read - then reads the branch and its computes again.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description: The project's id.
    type: str
    required: true
  branch:
    description:
      - The deleted branch, by id (V(br-...)) or by the name it had. An id is looked for first.
    type: str
    required: true
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.wait
  - neon.cloud.api.action_group
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details:
      - Only reads - the recovery is not sent. C(changed) and the diff tell whether the branch would be recovered;
        RV(branch) is the deleted branch as listed, its C(expires_at) null as it would be.
  diff_mode:
    support: full
    details:
      - Shows the branch deleted (when, until when it is recoverable, how it was deleted, its C(expires_at)), then
        live without a TTL.
notes:
  - The service answers HTTP 404 for a branch past its window and HTTP 409 for a recovery it refuses as things are
    (a live branch of the name, a deleted parent); the task fails naming the status, the service's words and its
    request id, and what it means.
  - Recovery is a feature of the service in preview (its C(include_deleted) listing and C(recover) operation are
    marked beta); a key or a plan without it is refused by the service.
seealso:
  - module: neon.cloud.project_recover
  - module: neon.cloud.branch
  - module: neon.cloud.branch_restore
  - ref: ansible_collections.neon.cloud.docsite.recovery_runbooks
    description: The recovery runbooks - I deleted the wrong branch.
"""

EXAMPLES = r"""
- name: Bring back the branch deleted by mistake
  neon.cloud.branch_recover:
    project_id: shiny-river-12345678
    branch: staging
  register: recovered

- name: Say what came back, and whether it still expires
  ansible.builtin.debug:
    msg: >-
      {{ recovered.branch.name }} ({{ recovered.branch.id }}) is back with
      {{ recovered.endpoints | length }} compute(s){{ '; it no longer expires' if recovered.ttl_removed else '' }}

- name: What recovering a branch by its id would do (nothing is sent)
  neon.cloud.branch_recover:
    project_id: shiny-river-12345678
    branch: br-young-poetry-rogubbb8
  check_mode: true
  diff: true
"""

RETURN = r"""
branch:
  description:
    - The branch as the service answers it once recovered and ready (in check mode, the deleted branch as listed; when
      it was live already, as it is).
  returned: always
  type: dict
  contains:
    id:
      description: The branch id (a recovery keeps it).
      type: str
      sample: br-young-poetry-rogubbb8
    name:
      description: The branch name (a recovery keeps it).
      type: str
      sample: staging
    current_state:
      description: V(ready) once what the recovery runs has ended.
      type: str
      sample: ready
    expires_at:
      description: Absent or null - a recovered branch does not expire.
      type: str
      sample: null
endpoints:
  description: The branch's computes, the read-write one first (empty in check mode).
  returned: always
  type: list
  elements: dict
  sample: [{"id": "ep-ancient-mode-n1b7o259", "type": "read_write", "current_state": "idle"}]
recovered_from:
  description:
    - The deletion the task undid, as the service listed it - null when there was nothing to recover (the branch was
      live already).
  returned: always
  type: dict
  contains:
    deleted_at:
      description: When the branch was deleted.
      type: str
      sample: "2026-11-27T09:14:02Z"
    recoverable_until:
      description: Until when the service keeps it.
      type: str
      sample: "2026-12-04T09:14:02Z"
    deletion_method:
      description: V(user) (deleted by hand) or V(ttl) (deleted by its TTL); another value the service adds is passed through.
      type: str
      sample: user
operations:
  description:
    - Always empty - the service's answer to a recovery names no operations. What the recovery runs on the branch is
      waited for all the same (read from the project's operations) when O(wait=true).
  returned: always
  type: list
  elements: dict
  sample: []
ttl_removed:
  description:
    - Whether the branch had a TTL (or was deleted by it) and is permanent after the recovery (in check mode, would
      be). False when nothing was recovered.
  returned: always
  type: bool
  sample: false
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.recoveries import BranchRecovery
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import WAIT_ARGUMENT_SPEC


def main():
    spec = dict(
        project_id=dict(type="str", required=True),
        branch=dict(type="str", required=True),
    )
    spec.update(WAIT_ARGUMENT_SPEC)
    NeonModule(argument_spec=spec, supports_check_mode=True).run_writer(BranchRecovery)


if __name__ == "__main__":
    main()
