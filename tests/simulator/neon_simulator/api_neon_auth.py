# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Neon Auth routes: the 28 branch-scoped operations of ``/projects/{id}/branches/{id}/auth`` and their control
API, HTTP in, State's ``api_*`` methods (neon_auth.py) out. Statuses and empty bodies as the June 2026 document
gives them: 201 for enabling, a trusted domain and a user; 200 without a body for disabling, deleting a domain
and an OAuth provider; 204 for deleting a user; 200 with the object for the rest."""

from __future__ import annotations

from werkzeug.routing import Rule

from .web import API_PREFIX, CONTROL_PREFIX, json_body

AUTH = API_PREFIX + "/projects/<project_id>/branches/<branch_id>/auth"
# GET paths answered by NeonAuth.api_get_setting, and the setting each reads
SETTING_PATHS = {"email_and_password": "email_and_password", "email_provider": "email_provider",
                 "allow_localhost": "allow_localhost", "plugins": "plugins", "plugins/phone-number": "phone_number",
                 "webhooks": "webhooks"}
# PATCH paths answered by NeonAuth.api_update_setting
UPDATE_PATHS = {"email_and_password": "email_and_password", "allow_localhost": "allow_localhost",
                "plugins/organization": "organization", "plugins/magic-link": "magic_link",
                "plugins/phone-number": "phone_number"}


def neon_auth_rules():
    """The /api/v2 rules (werkzeug Rule, endpoint ``x`` served by ``_api_x``)."""
    rules = [
        Rule(AUTH, methods=["GET"], endpoint="get_neon_auth"),
        Rule(AUTH, methods=["POST"], endpoint="enable_neon_auth"),
        Rule(AUTH, methods=["DELETE"], endpoint="disable_neon_auth"),
        Rule(AUTH + "/domains", methods=["GET"], endpoint="list_auth_domains"),
        Rule(AUTH + "/domains", methods=["POST"], endpoint="add_auth_domain"),
        Rule(AUTH + "/domains", methods=["DELETE"], endpoint="delete_auth_domains"),
        Rule(AUTH + "/oauth_providers", methods=["GET"], endpoint="list_oauth_providers"),
        Rule(AUTH + "/oauth_providers", methods=["POST"], endpoint="add_oauth_provider"),
        Rule(AUTH + "/oauth_providers/<provider_id>", methods=["PATCH"], endpoint="update_oauth_provider"),
        Rule(AUTH + "/oauth_providers/<provider_id>", methods=["DELETE"], endpoint="delete_oauth_provider"),
        Rule(AUTH + "/users", methods=["POST"], endpoint="create_auth_user"),
        Rule(AUTH + "/users/<user_id>", methods=["DELETE"], endpoint="delete_auth_user"),
        Rule(AUTH + "/users/<user_id>/role", methods=["PUT"], endpoint="set_auth_user_roles"),
        Rule(AUTH + "/email_provider", methods=["PATCH"], endpoint="update_auth_email_provider"),
        Rule(AUTH + "/config", methods=["PATCH"], endpoint="update_auth_config"),
        Rule(AUTH + "/webhooks", methods=["PUT"], endpoint="set_auth_webhooks"),
        Rule(AUTH + "/send_test_email", methods=["POST"], endpoint="send_auth_test_email"),
    ]
    rules += [Rule(AUTH + "/" + path, methods=["GET"], endpoint="get_auth_setting", defaults={"setting": name})
              for path, name in SETTING_PATHS.items()]
    rules += [Rule(AUTH + "/" + path, methods=["PATCH"], endpoint="update_auth_setting", defaults={"setting": name})
              for path, name in UPDATE_PATHS.items()]
    return rules


def neon_auth_control_rules():
    """The /_simulator rules (endpoint ``x`` served by ``_control_x``)."""
    return [Rule(CONTROL_PREFIX + "/projects/<project_id>/branches/<branch_id>/auth/users", methods=["GET"],
                 endpoint="auth_users")]


class NeonAuthRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload); None: no body."""

    def _api_get_neon_auth(self, request, key, project_id, branch_id):
        del request
        return 200, self.state.neon_auth.api_get(key, project_id, branch_id)

    def _api_enable_neon_auth(self, request, key, project_id, branch_id):
        return 201, self.state.neon_auth.api_enable(key, project_id, branch_id, json_body(request))

    def _api_disable_neon_auth(self, request, key, project_id, branch_id):
        self.state.neon_auth.api_disable(key, project_id, branch_id, json_body(request, required=False))
        return 200, None

    def _api_list_auth_domains(self, request, key, project_id, branch_id):
        del request
        return 200, self.state.neon_auth.api_list_domains(key, project_id, branch_id)

    def _api_add_auth_domain(self, request, key, project_id, branch_id):
        self.state.neon_auth.api_add_domain(key, project_id, branch_id, json_body(request))
        return 201, None

    def _api_delete_auth_domains(self, request, key, project_id, branch_id):
        self.state.neon_auth.api_delete_domains(key, project_id, branch_id, json_body(request))
        return 200, None

    def _api_list_oauth_providers(self, request, key, project_id, branch_id):
        del request
        return 200, self.state.neon_auth.api_list_providers(key, project_id, branch_id)

    def _api_add_oauth_provider(self, request, key, project_id, branch_id):
        return 200, self.state.neon_auth.api_add_provider(key, project_id, branch_id, json_body(request))

    def _api_update_oauth_provider(self, request, key, project_id, branch_id, provider_id):
        return 200, self.state.neon_auth.api_update_provider(key, project_id, branch_id, provider_id,
                                                             json_body(request))

    def _api_delete_oauth_provider(self, request, key, project_id, branch_id, provider_id):
        del request
        self.state.neon_auth.api_delete_provider(key, project_id, branch_id, provider_id)
        return 200, None

    def _api_create_auth_user(self, request, key, project_id, branch_id):
        return 201, self.state.neon_auth.api_create_user(key, project_id, branch_id, json_body(request))

    def _api_delete_auth_user(self, request, key, project_id, branch_id, user_id):
        del request
        self.state.neon_auth.api_delete_user(key, project_id, branch_id, user_id)
        return 204, None

    def _api_set_auth_user_roles(self, request, key, project_id, branch_id, user_id):
        return 200, self.state.neon_auth.api_set_user_roles(key, project_id, branch_id, user_id, json_body(request))

    def _api_get_auth_setting(self, request, key, project_id, branch_id, setting):
        del request
        return 200, self.state.neon_auth.api_get_setting(key, project_id, branch_id, setting)

    def _api_update_auth_setting(self, request, key, project_id, branch_id, setting):
        return 200, self.state.neon_auth.api_update_setting(key, project_id, branch_id, setting, json_body(request))

    def _api_update_auth_email_provider(self, request, key, project_id, branch_id):
        return 200, self.state.neon_auth.api_update_email_provider(key, project_id, branch_id, json_body(request))

    def _api_update_auth_config(self, request, key, project_id, branch_id):
        return 200, self.state.neon_auth.api_update_config(key, project_id, branch_id, json_body(request))

    def _api_set_auth_webhooks(self, request, key, project_id, branch_id):
        return 200, self.state.neon_auth.api_set_webhooks(key, project_id, branch_id, json_body(request))

    def _api_send_auth_test_email(self, request, key, project_id, branch_id):
        return 200, self.state.neon_auth.api_send_test_email(key, project_id, branch_id, json_body(request))

    def _control_auth_users(self, request, project_id, branch_id):
        del request
        return 200, self.state.neon_auth.control_users(project_id, branch_id)
