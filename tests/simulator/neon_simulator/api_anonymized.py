# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The anonymized branches' routes: the five operations of the June 2026 document (``POST
/projects/{id}/branch_anonymized``, ``GET`` and ``PATCH .../branches/{id}/masking_rules``, ``POST .../anonymize``,
``GET .../anonymized_status``) and their control API, HTTP in, State's methods (anonymized.py) out. Statuses as
the document gives them: 201 for the branch (its CreatedBranch answer), 200 for the rest."""

from __future__ import annotations

from werkzeug.routing import Rule

from .web import API_PREFIX, CONTROL_PREFIX, json_body

PROJECT = API_PREFIX + "/projects/<project_id>"
BRANCH = PROJECT + "/branches/<branch_id>"


def anonymized_rules():
    """The /api/v2 rules (endpoint ``x`` served by ``_api_x``)."""
    return [
        Rule(PROJECT + "/branch_anonymized", methods=["POST"], endpoint="create_anonymized_branch"),
        Rule(BRANCH + "/masking_rules", methods=["GET"], endpoint="get_masking_rules"),
        Rule(BRANCH + "/masking_rules", methods=["PATCH"], endpoint="update_masking_rules"),
        Rule(BRANCH + "/anonymize", methods=["POST"], endpoint="start_anonymization"),
        Rule(BRANCH + "/anonymized_status", methods=["GET"], endpoint="get_anonymized_status"),
    ]


def anonymized_control_rules():
    """The /_simulator rules (endpoint ``x`` served by ``_control_x``)."""
    return [
        Rule(CONTROL_PREFIX + "/next_anonymizations", methods=["GET"], endpoint="list_next_anonymizations"),
        Rule(CONTROL_PREFIX + "/next_anonymizations", methods=["POST"], endpoint="add_next_anonymizations"),
        Rule(CONTROL_PREFIX + "/next_anonymizations", methods=["DELETE"], endpoint="clear_next_anonymizations"),
        Rule(CONTROL_PREFIX + "/projects/<project_id>/branches/<branch_id>/anonymization/release", methods=["POST"],
             endpoint="release_anonymization"),
    ]


class AnonymizedRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload); /api/v2's for the authenticated key."""

    def _api_create_anonymized_branch(self, request, key, project_id):
        return 201, self.state.anonymized.api_create(key, project_id, json_body(request))

    def _api_get_masking_rules(self, request, key, project_id, branch_id):
        del request
        return 200, self.state.anonymized.api_get_rules(key, project_id, branch_id)

    def _api_update_masking_rules(self, request, key, project_id, branch_id):
        return 200, self.state.anonymized.api_update_rules(key, project_id, branch_id, json_body(request))

    def _api_start_anonymization(self, request, key, project_id, branch_id):
        del request
        return 200, self.state.anonymized.api_start(key, project_id, branch_id)

    def _api_get_anonymized_status(self, request, key, project_id, branch_id):
        del request
        return 200, self.state.anonymized.api_status(key, project_id, branch_id)

    def _control_list_next_anonymizations(self, request):
        del request
        return 200, {"next_anonymizations": self.state.anonymized.list_scripts()}

    def _control_add_next_anonymizations(self, request):
        return 201, self.state.anonymized.add_script(json_body(request, required=False))

    def _control_clear_next_anonymizations(self, request):
        del request
        return 200, {"removed": self.state.anonymized.clear_scripts()}

    def _control_release_anonymization(self, request, project_id, branch_id):
        return 200, self.state.anonymized.release(project_id, branch_id, json_body(request, required=False))
