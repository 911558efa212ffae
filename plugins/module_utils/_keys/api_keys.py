# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""API key requests: list, create, revoke, and the record shown to users (never the secret).

Personal keys live under ``/api_keys``; organization keys, project-scoped ones included, under
``/organizations/{org_id}/api_keys`` (docs/docsite/rst/api-behaviour.rst). Both answer the same shapes.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import api_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import UnexpectedAnswer

KEY_NAME_MAX = 64  # docs/docsite/rst/api-behaviour.rst: key_name is at most 64 characters
# docs/docsite/rst/api-behaviour.rst: the project_id of a project-scoped key
PROJECT_ID_PATTERN = re.compile(r"^[a-z0-9-]{1,60}$")
SECRET_FIELD = "key"


class KeyStore:
    """The keys of one owner: the account (``org_id`` None) or an organization."""

    def __init__(self, client, org_id=None):
        self.client = client
        self.org_id = org_id
        self.path = api_path("organizations", org_id, "api_keys") if org_id else "/api_keys"

    def key_type(self, record):
        """``personal``, ``organization`` or ``project_scoped`` (an organization key with a project_id)."""
        if record.get("project_id"):
            return "project_scoped"
        return "organization" if self.org_id else "personal"

    def _typed(self, record):
        record["key_type"] = self.key_type(record)
        return record

    def list(self):
        """Active keys as the service lists them (newest first), each checked, with ``key_type``."""
        return [self._typed(key) for key in answers.key_list(self.client.get(self.path), "GET", self.path)]

    def create(self, name, project_id=None):
        """POST the new key; the answer holds its secret, which the caller must keep apart.

        The secret is known to the client's scrubber from here on, so no message repeats it.
        """
        body = {"key_name": name}
        if project_id is not None:
            body["project_id"] = project_id
        data = self.client.post(self.path, body)
        secret = data.get(SECRET_FIELD) if isinstance(data, dict) else None
        if isinstance(secret, str) and secret:
            self.client.remember_secret(secret)
        try:
            return self._typed(answers.created_key(data, "POST", self.path))
        except UnexpectedAnswer as error:
            # The service carried the create out; if its answer holds the secret, keep it.
            error.secret = secret if isinstance(secret, str) and secret else None
            raise

    def revoke(self, key_id):
        path = self.path + api_path(key_id)
        return self._typed(answers.revoked_key(self.client.delete(path), "DELETE", path, key_id))


def public_record(record):
    """A key record without its secret."""
    return dict((field, value) for field, value in record.items() if field != SECRET_FIELD)


def newest_first(records):
    """Keys by id, newest first (ids are checked integers; a check-mode placeholder sorts first)."""
    return sorted(records, key=lambda record: record["id"] if isinstance(record.get("id"), int) else float("inf"),
                  reverse=True)
