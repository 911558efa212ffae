# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The keys' routes of /api/v2 (``/api_keys``, ``/organizations/{org_id}/api_keys``, ``/auth``): HTTP in, State's
methods (keys.py) out."""

from __future__ import annotations

import re

from werkzeug.routing import Rule

from .api_organizations import ORGANIZATION, org_id_of
from .errors import InvalidRequest
from .records import KEY_KINDS
from .web import API_PREFIX, CONTROL_PREFIX, json_body

_KEY_ID_RE = re.compile(r"^[0-9]{1,18}$")


def keys_rules():
    return [
        Rule(API_PREFIX + "/api_keys", methods=["GET"], endpoint="list_keys"),
        Rule(API_PREFIX + "/api_keys", methods=["POST"], endpoint="create_key"),
        Rule(API_PREFIX + "/api_keys/<key_id>", methods=["DELETE"], endpoint="revoke_key"),
        Rule(API_PREFIX + "/auth", methods=["GET"], endpoint="auth"),
        Rule(ORGANIZATION + "/api_keys", methods=["GET"], endpoint="list_org_keys"),
        Rule(ORGANIZATION + "/api_keys", methods=["POST"], endpoint="create_org_key"),
        Rule(ORGANIZATION + "/api_keys/<key_id>", methods=["DELETE"], endpoint="revoke_org_key"),
    ]


def _key_id(key_id):
    if not _KEY_ID_RE.match(key_id):
        raise InvalidRequest("key_id: must be an integer, got %r" % key_id)
    return int(key_id)


def keys_control_rules():
    """The /_simulator rules (endpoint ``x`` served by ``_control_x``)."""
    return [
        Rule(CONTROL_PREFIX + "/keys", methods=["GET"], endpoint="keys"),
        Rule(CONTROL_PREFIX + "/keys/<int:key_id>/age", methods=["POST"], endpoint="age_key"),
    ]


class KeysRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload); /api/v2's for the authenticated key."""

    def _api_list_keys(self, request, key):
        del request
        return 200, self.state.keys.list_keys(key)

    def _api_create_key(self, request, key):
        body = json_body(request)
        if "key_name" not in body:
            raise InvalidRequest("key_name: field is required")
        return 200, self.state.keys.create_key(body["key_name"], key)

    def _api_revoke_key(self, request, key, key_id):
        del request
        return 200, self.state.keys.revoke_key(_key_id(key_id), key)

    def _api_auth(self, request, key):
        del request
        return 200, self.state.keys.auth_details(key)

    def _api_list_org_keys(self, request, key, org_id):
        del request
        return 200, self.state.keys.list_org_keys(key, org_id_of(org_id))

    def _api_create_org_key(self, request, key, org_id):
        org_id = org_id_of(org_id)
        body = json_body(request)
        if "key_name" not in body:
            raise InvalidRequest("key_name: field is required")
        return 200, self.state.keys.create_org_key(key, org_id, body["key_name"], body.get("project_id"))

    def _api_revoke_org_key(self, request, key, org_id, key_id):
        del request
        return 200, self.state.keys.revoke_org_key(key, org_id_of(org_id), _key_id(key_id))

    def _control_keys(self, request):
        kind = request.args.get("kind")
        if kind is not None and kind not in KEY_KINDS:
            raise InvalidRequest("kind: must be one of %s" % ", ".join(KEY_KINDS))
        return 200, {"keys": self.state.keys.all_keys(kind)}

    def _control_age_key(self, request, key_id):
        return 200, self.state.keys.age_key(key_id, json_body(request))
