#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: organization_spending_limit
short_description: Set or remove the monthly spending limit of a Neon organization
version_added: 1.0.0
description:
  - Holds an organization's monthly spending limit at the amount given, or removes it (O(state=absent)). Every run
    returns the limit as the service holds it after the task (in check mode, as it would be), so a task also reads it.
  - B(The limit is alert-only.) The organization's admins get an e-mail when the month's charges reach 80% and 100%
    of it; no compute is suspended and nothing stops when it is reached. A limit below what the month has already
    cost is allowed, and its e-mail follows.
  - Spending limits are available on the Launch and Scale plans only. Members of the organization may read the
    limit; only its admins may set or remove it. A refusal says which of the two stands in the way.
  - The limit is given in cents (O(spending_limit_cents)), as the API takes it, or in US dollars
    (O(spending_limit_dollars)) with at most two decimal places. Either is checked before any request.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  org_id:
    description: The organization's id.
    type: str
    required: true
  spending_limit_cents:
    description:
      - The monthly limit in US cents, at least 1 (V(50000) is 500 US dollars). The service refuses V(0); to remove
        the limit, use O(state=absent).
      - With O(state=present), this or O(spending_limit_dollars) is required; they are mutually exclusive.
    type: int
  spending_limit_dollars:
    description:
      - The monthly limit in US dollars, a number or a string with at most two decimal places (V(500), V(499.99)),
        turned into whole cents exactly. An amount with more decimal places is refused, never rounded.
      - With O(state=present), this or O(spending_limit_cents) is required; they are mutually exclusive.
    type: raw
  state:
    description: V(present) sets the limit to the amount given; V(absent) removes it (no limit).
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
    details: Only reads; C(changed) and the diff tell what the limit would become.
  diff_mode:
    support: full
    details: Shows the limit before and after, in cents and in US dollars (null for no limit).
notes:
  - The limit is the organization's, whatever projects a play runs over; in a play over the inventory's projects,
    run the task once (C(run_once)).
  - Nothing the change does starts an operation, so there is nothing to wait for.
seealso:
  - module: neon.cloud.consumption_info
  - ref: ansible_collections.neon.cloud.docsite.project_baseline
    description: The limit in the organization's baseline and its nightly drift report.
  - ref: ansible_collections.neon.cloud.docsite.api_behaviour
    description: What the service takes and answers, and who may change the limit.
"""

EXAMPLES = r"""
- name: Alert the organization's admins when the month costs 1,500 US dollars
  neon.cloud.organization_spending_limit:
    org_id: org-calm-tree-21298941
    spending_limit_dollars: 1500
  register: limit

- name: The same limit in cents, as the API has it (no change)
  neon.cloud.organization_spending_limit:
    org_id: org-calm-tree-21298941
    spending_limit_cents: 150000

- name: No spending limit any more
  neon.cloud.organization_spending_limit:
    org_id: org-calm-tree-21298941
    state: absent
"""

RETURN = r"""
spending_limit_cents:
  description: The monthly limit in US cents after the task (in check mode, as it would be); null when there is none.
  returned: once the limit was read
  type: int
  sample: 150000
spending_limit_dollars:
  description: The same limit in US dollars, as a string with two decimal places; null when there is none.
  returned: once the limit was read
  type: str
  sample: "1500.00"
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.spending_limits import OrganizationSpendingLimit


def main():
    NeonModule(
        argument_spec=dict(
            org_id=dict(type="str", required=True),
            spending_limit_cents=dict(type="int"),
            spending_limit_dollars=dict(type="raw"),
            state=dict(type="str", choices=["present", "absent"], default="present"),
        ),
        supports_check_mode=True,
    ).run_writer(OrganizationSpendingLimit)


if __name__ == "__main__":
    main()
