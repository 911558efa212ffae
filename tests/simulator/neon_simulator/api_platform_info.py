# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The platform's routes of /api/v2 (``GET /regions``, ``GET /users/me``, a project's
``available_preload_libraries``): HTTP in, State's methods (platform_info.py) out."""

from __future__ import annotations

from werkzeug.routing import Rule

from .web import API_PREFIX


def platform_rules():
    """The /api/v2 rules (werkzeug Rule, endpoint ``x`` served by ``_api_x``)."""
    return [
        Rule(API_PREFIX + "/regions", methods=["GET"], endpoint="regions"),
        Rule(API_PREFIX + "/users/me", methods=["GET"], endpoint="current_user"),
        Rule(API_PREFIX + "/projects/<project_id>/available_preload_libraries", methods=["GET"],
             endpoint="preload_libraries"),
    ]


class PlatformInfoRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload) for the authenticated key."""

    def _api_regions(self, request, key):
        return 200, self.state.platform_info.regions(key, request.args.get("org_id"))

    def _api_current_user(self, request, key):
        del request
        return 200, self.state.platform_info.current_user(key)

    def _api_preload_libraries(self, request, key, project_id):
        del request
        return 200, self.state.platform_info.preload_libraries(key, project_id)
