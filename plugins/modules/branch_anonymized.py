#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: branch_anonymized
short_description: Create a Neon branch whose personal data is masked, and mask it again when its rules change
version_added: 1.0.0
description:
  - Makes an anonymized branch - a copy of a parent branch whose columns are masked by its masking rules with
    PostgreSQL Anonymizer's functions (V(anon.fake_email()), V(anon.random_string(10)), V(anon.hash(email)), ...)
    or a literal value - and returns once the masking has ended. Anonymized branches are in beta at Neon.
  - The branch is found by its name within its project. A rerun that finds it with the same rules (compared as a
    set, in any order) masks nothing again; other rules replace its rules whole, as the service does, and mask
    it again. A branch whose last masking did not end masked (state V(initialized) or V(error)) is masked again.
    Masking is static - the branch keeps the rows it was made with, and fresh data means a new branch (delete this
    one with M(neon.cloud.branch), O(neon.cloud.branch#module:state=absent), then run this task again).
  - A masking that ends in V(error) or V(initialization_error) fails the task with the service's status message
    and the id of the branch, which exists.
  - Before anything is sent, each rule is checked against the schema of the branch it applies to (its parent when
    the branch is made) - a rule naming a database, schema, table or column it does not have fails, naming what
    there is. A rule with neither a function nor a value, or with both, is refused.
  - B(How a rule masks is hidden, what it masks is shown.) Neon's document marks every field of a rule sensitive.
    O(masking_rules[].masking_function) and O(masking_rules[].masking_value) are C(no_log) as a password is - a
    function can carry a salt or a seed (V(anon.hash(...)), a pseudo function), a value is data of its own - so
    Ansible hides each of them, as written, wherever it appears in the task's output, C(-vvv) included, and the
    task puts neither into a message, a warning or the diff.
  - The service's status messages and errors may echo a function or value altered (its spaces made one, SQL- or
    JSON-escaped, cut), which C(no_log) does not catch. So the task also replaces by V(<redacted>), in its messages
    and results, each rule's function and value in those forms, this task's rules and the ones the branch held
    before. A function is hidden whole in those forms, never by runs of its characters (most name the column they
    mask, which the task shows); so an echo cut short or spaced otherwise can show its name and columns, but not the
    quoted literals in it (a salt, a seed), which are hidden as a value is. A value or quoted literal of 20
    characters or more is hidden piece by piece (any 6 of its characters in a row); a shorter one only whole; one
    of fewer than 4 characters only by C(no_log), as written.
  - A rule's database, schema, table and column are shown as any other name of the branch
    (M(neon.cloud.branch_schema_info) lists them anyway) - Ansible hides a C(no_log) string within other words
    too, so hiding these common words (V(name), V(email), V(public), V(neondb)) would garble the returned ids, names
    and connection details in every result (a rule on a column V(name) made the branch id
    V(br-nameless-fire-osrvvtni) V(br-********less-fire-osrvvtni)). Neon's document marks them sensitive too - to
    hide them, set the task keyword C(no_log) to V(true), which hides the task's whole result.
  - For the same reason a masking value is hidden wherever its characters appear in the output, within other
    strings too - a very short literal (V(x), V(0), V(a)) hides those characters in every returned id, name and
    time. Prefer a distinctive literal (V(A. Customer), V(masked-email)) to one or two characters.
  - Messages name a rule by its place (V(rule 2)) and say what it asked for and what there is; the diff shows the
    column of each rule and a fingerprint of its masking.
  - The branch is made with a read-write compute. Its connection string is read with M(neon.cloud.connection_info)
    (the create's connection URI is not returned - Ansible would hide within it a masking value it holds, such as a
    short literal; M(neon.cloud.connection_info) has no rules to hide). Deleting the branch is
    M(neon.cloud.branch)'s, as for any branch.
author:
  - neon.cloud maintainers (@neon-cloud)
options:
  project_id:
    description: The project's id.
    type: str
    required: true
  name:
    description: The anonymized branch's name, unique within the project.
    type: str
    required: true
  parent:
    description:
      - The branch whose data is copied and masked, by name or id. Without it, the project's default branch.
      - A branch found with another parent than asked is refused.
    type: str
  masking_rules:
    description:
      - The branch's masking rules, one per column; at least one. Compared as a set and replaced whole.
      - Each rule's O(masking_rules[].masking_function) and O(masking_rules[].masking_value) are hidden from the
        task's output (C(no_log)); the names of what it masks are shown.
    type: list
    elements: dict
    required: true
    suboptions:
      database_name:
        description: The database of the table.
        type: str
        required: true
      schema_name:
        description: The schema of the table.
        type: str
        default: public
      table_name:
        description: The table of the column.
        type: str
        required: true
      column_name:
        description: The column that is masked.
        type: str
        required: true
      masking_function:
        description:
          - A PostgreSQL Anonymizer function whose result replaces each value, such as V(anon.fake_email()),
            V(anon.fake_first_name()), V(anon.random_string(10)) or V(anon.hash(email)).
          - One of O(masking_rules[].masking_function) and O(masking_rules[].masking_value) is required.
          - Hidden from the task's output (C(no_log)) - it may carry a salt or a seed.
        type: str
      masking_value:
        description:
          - A literal value that replaces each value of the column.
          - Hidden from the task's output (C(no_log)) wherever it appears, within other strings too - prefer a
            distinctive literal to one or two characters, which would hide those characters in every returned string.
        type: str
  anonymize:
    description:
      - V(changed) masks when the branch is made, when its rules change and when its last masking did not end
        masked. V(always) masks again on every run (each run reports a change).
    type: str
    choices: [changed, always]
    default: changed
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.wait
  - neon.cloud.api.action_group
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Only reads; the result and the diff say what would be made, replaced or masked again.
  diff_mode:
    support: full
    details:
      - Shows the branch's name, parent, masking state and rules before and after. Each rule is shown as the column
        it masks (V(neondb.public.customers.email)), whether by a function or a value, and a fingerprint of that
        function or value, the same for the same masking within one run - so that the diff says which columns are
        masked, which rules stay, go and come and which mask otherwise, without showing how they mask.
notes:
  - With O(wait=true) the task waits for the branch's operations and then for the masking to end (polling the
    branch's anonymized status), within O(wait_timeout); a branch found still being masked (by another run, or one
    that timed out) is waited for first. Two runs at the same time leave one branch.
  - A masking keeps the rules it began with. When this task replaces the rules while another run's masking goes on,
    it waits for that masking to end - within O(wait_timeout), also with O(wait=false), as starting its own masking
    is part of its change - and then masks with its rules. The service does not say when a branch's rules were
    last replaced (its masking status has no such time), so a rerun cannot tell that the last masking began
    before them - if such a task failed with wait_timeout run out, run it again with O(anonymize=always).
seealso:
  - module: neon.cloud.branch
  - module: neon.cloud.branch_schema_info
  - ref: ansible_collections.neon.cloud.docsite.branch_per_pull_request
    description: A branch per pull request, with an anonymized variant.
"""

EXAMPLES = r"""
- name: A copy of main for pull request 42, its customers' emails and names masked
  neon.cloud.branch_anonymized:
    project_id: shiny-river-12345678
    name: pr-42-anonymized
    parent: main
    masking_rules:
      - database_name: neondb
        table_name: customers
        column_name: email
        masking_function: anon.fake_email()
      - database_name: neondb
        table_name: customers
        column_name: name
        masking_value: A. Customer
  register: preview

- name: Show the masking's end
  ansible.builtin.debug:
    msg: "{{ preview.branch.id }} is {{ preview.anonymized_status.state }}"
"""

RETURN = r"""
branch:
  description: The branch as the service shows it after the task; in check mode, as it would be (a new one's id null).
  returned: once the project's branches were read
  type: dict
  sample: {"id": "br-wispy-meadow-a5l2dqxb", "name": "pr-42-anonymized", "parent_id": "br-aged-salad-637688",
           "current_state": "ready"}
anonymized_status:
  description:
    - The branch's masking status as the service last answered it; its C(state) is V(anonymized) once masked.
    - Holds C(status_message) and C(last_run) (when the last masking started and ended, how many columns it masked).
  returned: once the branch exists, or in check mode
  type: dict
  sample: {"state": "anonymized", "status_message": "Anonymization completed",
           "last_run": {"started_at": "2026-11-28T20:25:15Z", "completed_at": "2026-11-28T20:25:22Z", "masked_columns": 2}}
masking_rules_count:
  description: How many masking rules the branch has after the task (the rules themselves are not returned).
  returned: success
  type: int
  sample: 2
operations:
  description: The operations the task started, in their last known state.
  returned: always
  type: list
  elements: dict
  sample: [{"id": "0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10", "action": "create_branch", "status": "finished"}]
"""

from ansible_collections.neon.cloud.plugins.module_utils._module import NeonModule
from ansible_collections.neon.cloud.plugins.module_utils._resources.anonymized_branches import AnonymizedBranch
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import WAIT_ARGUMENT_SPEC


def main():
    spec = dict(
        project_id=dict(type="str", required=True),
        name=dict(type="str", required=True),
        parent=dict(type="str"),
        # What masks is no_log; the names are not, as Ansible would hide them within every returned id and name.
        masking_rules=dict(type="list", elements="dict", required=True, options=dict(
            database_name=dict(type="str", required=True),
            schema_name=dict(type="str", default="public"),
            table_name=dict(type="str", required=True),
            column_name=dict(type="str", required=True),
            masking_function=dict(type="str", no_log=True),
            masking_value=dict(type="str", no_log=True),
        )),
        anonymize=dict(type="str", choices=["changed", "always"], default="changed"),
    )
    spec.update(WAIT_ARGUMENT_SPEC)
    NeonModule(argument_spec=spec, supports_check_mode=True).run_writer(AnonymizedBranch)


if __name__ == "__main__":
    main()
