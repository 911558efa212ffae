# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Who the API key is, and which organizations it reaches (docs/docsite/rst/api-behaviour.rst).

``GET /auth`` is the only documented way to ask what a key is; ``GET /users/me/organizations``
answers only for a user's (personal) key, and ``GET /organizations/{org_id}`` for a key of
that organization.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import api_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, UnexpectedAnswer

# auth_method -> the kind of key, in the words of the API key docs
KEY_TYPES = {"api_key_user": "personal", "api_key_org": "organization"}
MY_ORGANIZATIONS_PATH = "/users/me/organizations"


def who_am_i(client):
    """``GET /auth``, checked, with ``key_type`` added: personal, organization, or None for
    another way of authenticating."""
    data = dict(answers.auth(client.get("/auth"), "/auth"))
    data["key_type"] = KEY_TYPES.get(data["auth_method"])
    return data


def my_organizations(client):
    """The organizations the key's user belongs to (a personal key)."""
    return answers.organizations(client.get(MY_ORGANIZATIONS_PATH), MY_ORGANIZATIONS_PATH)


def get_organization(client, org_id):
    path = api_path("organizations", org_id)
    return answers.organization(client.get(path), path, org_id)


def describe_organizations(organizations):
    """``org-a (Name A), org-b (Name B)`` for a message."""
    return ", ".join("%s (%s)" % (org["id"], org.get("name") or "no name") for org in organizations)


def refused_to_this_key(error):
    """Whether ``error`` (a NeonAPIError) is a 4xx that says this key may not read that: not a bad key (401), not
    a timeout (408) nor a rate limit (429), which are the client's or the task's to report."""
    return error.status is not None and 400 <= error.status < 500 and error.status not in (401, 408, 429)


def who_am_i_if_told(client):
    """``who_am_i``, or None when the service does not say: it refuses this key the read
    (``refused_to_this_key``) or answers what cannot be read."""
    try:
        return who_am_i(client)
    except UnexpectedAnswer:
        return None
    except NeonAPIError as error:
        if refused_to_this_key(error):
            return None
        raise


def describe_key(client):
    """What auth_info returns: ``account_id``, ``auth_method``, ``key_type`` and ``organizations``,
    each part only where the service lets this key read it."""
    result = {}
    try:
        result.update(who_am_i(client))
    except NeonAPIError as error:
        if not refused_to_this_key(error):
            raise
    result.pop("auth_data", None)  # what it holds is not documented; nothing here relies on it
    organizations = None
    if result.get("key_type") != "organization":
        try:
            organizations = my_organizations(client)
        except NeonAPIError as error:
            if not refused_to_this_key(error):
                raise
    if organizations is None and result.get("key_type") == "organization" and result.get("account_id"):
        try:
            organizations = [get_organization(client, result["account_id"])]
        except NeonAPIError as error:
            if not refused_to_this_key(error):
                raise
    if organizations is not None:
        result["organizations"] = organizations
    return result
