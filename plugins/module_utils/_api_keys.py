# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""API key requests: list, create, revoke, and the record shown to users (never the secret)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._client import NeonAPIError, api_path, excerpt

KEY_NAME_MAX = 64  # real-api-notes.md: key_name is at most 64 characters
SECRET_FIELD = "key"


def _shape_error(method, path, expected, data):
    return NeonAPIError("%s %s answered HTTP 200 with JSON of an unexpected shape: expected %s, got %s" % (
        method, path, expected, excerpt(repr(data), 120)), method=method, path=path, status=200)


def list_api_keys(client):
    """Active keys, newest first. The service answers a bare JSON array (real-api-notes.md)."""
    data = client.get("/api_keys")
    if not isinstance(data, list) or not all(isinstance(item, dict) and "id" in item for item in data):
        raise _shape_error("GET", "/api_keys", "a JSON array of keys with ids", data)
    return data


def create_api_key(client, name):
    """POST /api_keys; the answer holds the secret, which the caller must keep apart."""
    data = client.post("/api_keys", {"key_name": name})
    if not isinstance(data, dict) or "id" not in data or SECRET_FIELD not in data:
        raise _shape_error("POST", "/api_keys", "an object with id and key", data)
    return data


def revoke_api_key(client, key_id):
    path = api_path("api_keys", key_id)
    data = client.delete(path)
    if not isinstance(data, dict):
        raise _shape_error("DELETE", path, "an object", data)
    return data


def public_record(record):
    """A key record without its secret."""
    return dict((field, value) for field, value in record.items() if field != SECRET_FIELD)


def newest_first(records):
    return sorted(records, key=lambda record: record.get("id", 0), reverse=True)
