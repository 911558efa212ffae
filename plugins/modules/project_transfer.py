#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: project_transfer
short_description: Move Neon projects into an organization
version_added: 1.0.0
description:
  - Moves projects, by id, into the organization O(destination_org_id). A project keeps its id, branches, computes,
    roles, databases and connection strings; it leaves its old account's billing and members.
  - B(Between organizations, with one key) (O(source_org_id)). The projects of O(source_org_id) are moved by the
    service's bulk transfer, at most 400 projects a request; more than 400 are sent as requests of 400 (the
    service's limit, as its own batch script does). A run that fails part way has moved whole requests, and the
    rerun moves what is left. O(api_key) must be the personal API key of a user who is an admin of the source
    organization and a member of the destination.
  - B(By a transfer request, with two keys) (O(destination_api_key)). For each project, a transfer request is made
    with O(api_key) (the key of the project's owner, of an admin of its organization, or its organization key; the
    project may be a personal one) and accepted with O(destination_api_key), a key of the destination organization
    (its organization key, or the personal key of one of its members). One project at a time, so a failure names
    the one it stopped at.
  - Rerun-safe. Where each project is is read first, and a project already in the destination is not moved again;
    a task whose projects are all there changes nothing. Two runs at once move each project once.
  - Check mode only reads, and says which projects would move; the diff shows the organization of each project
    before and after (null for a personal project).
  - A project with a GitHub or Vercel integration cannot be moved, and a destination whose plan is lower than the
    source's is refused (HTTP 406, the service says which limit); nothing of that request moves.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_ids:
    description:
      - The projects to move, by id. A project already in the destination is left as it is.
      - In check mode, an empty id is a project an earlier task of the play would make.
    type: list
    elements: str
    required: true
  destination_org_id:
    description: The organization to move them into.
    type: str
    required: true
  source_org_id:
    description:
      - The organization the projects are in, to move them between organizations with O(api_key) alone.
      - Required unless O(destination_api_key) is given; not with it.
    type: str
  destination_api_key:
    description:
      - A key of the destination organization that accepts a transfer request of each project, which O(api_key)
        makes. With it, the projects may be in any account O(api_key) manages, a personal one too.
      - Never shown in output, logs or diffs.
    type: str
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.action_group
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Only reads; C(transferred) names the projects that would move.
  diff_mode:
    support: full
    details: Shows each project's organization before and after.
notes:
  - A project-scoped API key of the organization a project leaves stops working for it.
seealso:
  - module: neon.cloud.projects_info
  - module: neon.cloud.project_member
  - ref: ansible_collections.neon.cloud.docsite.moving_projects
    description: Moving projects into an organization, step by step.
"""

EXAMPLES = r"""
- name: Move the team's projects into the new organization
  neon.cloud.project_transfer:
    source_org_id: org-calm-tree-21298941
    destination_org_id: org-quiet-lake-40817265
    project_ids:
      - bold-glade-61830452
      - quiet-brook-72914063

- name: Hand a personal project over to the organization, which accepts it with its own key
  neon.cloud.project_transfer:
    project_ids: [shiny-river-12345678]
    destination_org_id: org-quiet-lake-40817265
    destination_api_key: "{{ vault_destination_org_key }}"
"""

RETURN = r"""
transferred:
  description: The projects this task moved (in check mode, would move).
  returned: always
  type: list
  elements: str
  sample: [bold-glade-61830452]
already_in_destination:
  description: The projects that were in the destination already, left as they were.
  returned: always
  type: list
  elements: str
  sample: [quiet-brook-72914063]
destination_org_id:
  description: The destination organization.
  returned: always
  type: str
  sample: org-quiet-lake-40817265
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.transfers import ProjectTransfer


def main():
    NeonModule(
        argument_spec=dict(
            project_ids=dict(type="list", elements="str", required=True),
            destination_org_id=dict(type="str", required=True),
            source_org_id=dict(type="str"),
            destination_api_key=dict(type="str", no_log=True),
        ),
        supports_check_mode=True,
    ).run_writer(ProjectTransfer)


if __name__ == "__main__":
    main()
