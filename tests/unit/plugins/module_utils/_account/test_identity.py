# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Who the key is (_account/identity.py), without HTTP: which refusals mean "this key may not read that", and what
GET /auth gives when the service does not say (the one rule auth_info and organization_member share)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._account.identity import refused_to_this_key, who_am_i_if_told
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError


def error(status):
    return NeonAPIError("GET", "/auth", "HTTP %s" % status, status=status)


class Service:
    """A client whose GET /auth answers ``answer`` (raised when it is an exception)."""

    def __init__(self, answer):
        self.answer = answer

    def get(self, path, params=None, deadline=None):  # pylint: disable=unused-argument
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.mark.parametrize("status", [400, 403, 404, 405, 422])
def test_a_4xx_about_what_is_read_is_a_refusal_to_this_key(status):
    assert refused_to_this_key(error(status))


@pytest.mark.parametrize("status", [None, 401, 408, 429, 500, 503])
def test_a_bad_key_a_timeout_a_rate_limit_a_server_fault_or_no_answer_is_not(status):
    assert not refused_to_this_key(error(status))


def test_who_the_key_is_or_none_when_the_service_does_not_say():
    assert who_am_i_if_told(Service({"auth_method": "api_key_user", "account_id": "u-1"}))["key_type"] == "personal"
    assert who_am_i_if_told(Service(error(403))) is None
    assert who_am_i_if_told(Service({"account_id": "u-1"})) is None  # no auth_method: an answer that cannot be read
    with pytest.raises(NeonAPIError):
        who_am_i_if_told(Service(error(500)))
    with pytest.raises(NeonAPIError):
        who_am_i_if_told(Service(error(401)))
