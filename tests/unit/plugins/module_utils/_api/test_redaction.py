# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Text from the service is printed on one line, bounded and escaped; no piece of a secret shows."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._api.redaction import REDACTED, SecretScrubber, one_line

KEY = "8pw2k3uu7g1ebs4ux5vqwjqn0pzyx2a5cmyk0lvt3gqzn8t9rd4ewbrhcxss1ji2"


def test_one_line_joins_lines_and_escapes_terminal_control():
    text = one_line("line one\r\nline two\x1b[31m red\x07 \u202eevil")
    assert text == "line one line two\\x1b[31m red\\x07 \\u202eevil"
    assert "\n" not in text and "\x1b" not in text and "\r" not in text


def test_one_line_is_bounded():
    assert one_line("x" * 10000, 300) == "x" * 300 + "..."


@pytest.mark.parametrize("shown", [
    KEY,                                   # whole
    KEY[:12],                              # its start, as a service might quote it
    KEY[20:27],                            # a piece from the middle
    KEY[-6:],                              # its last characters
    "Bearer " + KEY,
])
def test_no_piece_of_a_secret_survives(shown):
    scrubbed = SecretScrubber([KEY]).scrub("the service said: %s (done)" % shown)
    assert REDACTED in scrubbed
    for start in range(len(KEY) - 5):
        assert KEY[start:start + 6] not in scrubbed


def test_a_secret_with_quotes_and_backslashes_is_found_in_every_form():
    secret = 'ab"cd\\ef-ghijklmnopqrstuvwxyz0123'
    scrubber = SecretScrubber([secret])
    for form in (secret, json.dumps({"k": secret}), repr(secret), "a%22b"):
        scrubbed = scrubber.scrub("echo: " + form)
        assert "ghijkl" not in scrubbed and "uvwxyz" not in scrubbed


def test_ordinary_text_is_left_alone():
    assert SecretScrubber([KEY]).scrub("GET /projects failed: HTTP 404: project not found") == \
        "GET /projects failed: HTTP 404: project not found"


def test_a_short_test_key_is_hidden_only_whole():
    scrubber = SecretScrubber(["revoked-or-wrong"])
    assert scrubber.scrub("missing, invalid or revoked") == "missing, invalid or revoked"
    assert scrubber.scrub("key revoked-or-wrong") == "key " + REDACTED


def test_secret_shaped_values_are_hidden_even_when_unknown():
    text = SecretScrubber().scrub('{"id": 1, "key": "somesecretvalue"} Authorization: Bearer abc.def')
    assert "somesecretvalue" not in text and "abc.def" not in text


def test_scrub_data_reaches_nested_values_and_keys():
    data = {"keys": [{"name": "x" + KEY[:10]}], KEY[:8]: 1}
    assert KEY[:8] not in json.dumps(SecretScrubber([KEY]).scrub_data(data))


def test_connection_uri_passwords_and_password_fields_are_hidden_even_when_unknown():
    text = SecretScrubber().scrub('postgres://app:s3cr3t-pw@ep-a.neon.tech/db {"password": "pw-two"} '
                                  'postgresql://u:cut-off-passw')
    assert "s3cr3t-pw" not in text and "pw-two" not in text and "cut-off-passw" not in text
    assert "postgres://app:%s@ep-a.neon.tech/db" % REDACTED in text
