# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pure parts of _resources/connections.py: a compute's pooler host, the one role or database left out."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._resources.connections import only_name, pooled_host
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal


def test_pooled_host_inserts_pooler_after_the_endpoint_id():
    assert pooled_host("ep-jolly-frost-a57qv4wh.us-east-2.aws.neon.tech") == \
        "ep-jolly-frost-a57qv4wh-pooler.us-east-2.aws.neon.tech"
    assert pooled_host("ep-a-pooler.us-east-2.aws.neon.tech") == "ep-a-pooler.us-east-2.aws.neon.tech"


def test_a_compute_reached_by_its_address_is_its_own_pooler():
    """The simulator's real computes answer 127.0.0.1 for both (a URI's host is checked against it)."""
    assert pooled_host("127.0.0.1") == "127.0.0.1"
    assert pooled_host("::1") == "::1"
    assert pooled_host("ep-1.2.3.neon.tech") == "ep-1-pooler.2.3.neon.tech"


def test_role_or_database_left_out_needs_exactly_one():
    assert only_name([{"name": "app"}], "role", "'main'") == "app"
    with pytest.raises(Refusal) as caught:
        only_name([{"name": "b"}, {"name": "a"}], "database", "'main'")
    assert "2 databases (a, b)" in caught.value.msg
