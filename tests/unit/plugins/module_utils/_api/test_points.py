# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""_api/timestamps.py and _api/points.py: what is an RFC 3339 timestamp or an LSN, what a task is told when it is
not, how two compare and the canonical form the collection sends (issue 31 point 4, review findings 2 and 12)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import calendar

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._api import points, timestamps

MOMENT = calendar.timegm((2026, 5, 4, 2, 55, 0, 0, 0, 0))


# ---------------------------------------------------------------------------------------------- timestamps


@pytest.mark.parametrize("text, seconds, canonical", [
    ("2026-05-04T02:55:00Z", MOMENT, "2026-05-04T02:55:00Z"),
    ("2026-05-04T04:55:00+02:00", MOMENT, "2026-05-04T02:55:00Z"),
    ("2026-05-03T21:25:00-05:30", MOMENT, "2026-05-04T02:55:00Z"),
    ("2026-05-04T02:55:00+00:00", MOMENT, "2026-05-04T02:55:00Z"),
    ("2026-05-04T02:55:00.250Z", MOMENT + 0.25, "2026-05-04T02:55:00.25Z"),
    ("2026-05-04T02:55:00.000Z", MOMENT, "2026-05-04T02:55:00Z"),
    ("2026-05-04T02:55:00.123456789Z", MOMENT + 0.123456789, "2026-05-04T02:55:00.123456789Z"),
    ("2026-01-01T01:00:00+02:00", calendar.timegm((2025, 12, 31, 23, 0, 0, 0, 0, 0)), "2025-12-31T23:00:00Z"),
    ("2024-02-29T00:00:00Z", calendar.timegm((2024, 2, 29, 0, 0, 0, 0, 0, 0)), "2024-02-29T00:00:00Z"),
    # RFC 3339 5.6's note: a space, a lower-case t or z, read and sent as T and Z
    ("2026-05-04 02:55:00Z", MOMENT, "2026-05-04T02:55:00Z"),
    ("2026-05-04t02:55:00z", MOMENT, "2026-05-04T02:55:00Z"),
])
def test_rfc_3339_timestamps_are_read_and_written_in_utc_ending_in_z(text, seconds, canonical):
    assert timestamps.timestamp(text) == pytest.approx(seconds)
    assert timestamps.canonical(text) == canonical
    assert points.timestamp_as_sent(text) == canonical


@pytest.mark.parametrize("text", [
    "2026-05-04T02:55:00+0200",  # an offset without its colon (ISO 8601's basic form, not RFC 3339)
    "2026-05-04_02:55:00Z",
    "2026-05-04T02:55:00+02",
    "2026-05-04T02:55:00",  # no time zone
    "2026-05-04T02:55Z",  # no seconds
    "2026-05-04",
    "2026-02-31T00:00:00Z",  # no such day
    "2025-02-29T00:00:00Z",
    "2026-13-01T00:00:00Z",
    "2026-05-04T24:00:00Z",
    "2026-05-04T02:60:00Z",
    "2026-05-04T02:55:60Z",  # second 60
    "2026-05-04T02:55:00+24:00",
    "2026-05-04T02:55:00,5Z",
    "2026-05-04T02:55:00.Z",
    "0000-01-01T00:00:00Z",
    "yesterday", "", None, 1777863300, "2026-05-04T02:55:00Z" + " " * 30,
])
def test_what_is_not_rfc_3339_is_not_a_timestamp(text):
    assert timestamps.parse(text) is None and timestamps.timestamp(text) is None
    assert points.timestamp_as_sent(text) == text  # left as given, for its check to refuse


# ---------------------------------------------------------------------------------------------- LSNs


@pytest.mark.parametrize("text, canonical", [
    ("0/1F2E3D4", "0/1F2E3D4"),
    ("0/1f2e3d4", "0/1F2E3D4"),
    ("0/01A", "0/1A"),
    ("00000000/0000001a", "0/1A"),
    ("FFFFFFFF/ffffffff", "FFFFFFFF/FFFFFFFF"),
    ("16/B374D848", "16/B374D848"),
])
def test_an_lsn_is_sent_as_postgresql_writes_it(text, canonical):
    assert points.canonical_lsn(text) == canonical == points.lsn_as_sent(text)


@pytest.mark.parametrize("text", ["0x1F", "0/", "/1", "1A2B", "123456789/0", "0/1G", "16/B374D848/1", "", None, 5])
def test_what_is_not_an_lsn(text):
    assert points.lsn_position(text) is None and points.canonical_lsn(text) is None
    assert points.lsn_as_sent(text) == text


def test_lsns_compare_by_position_everywhere():
    """One rule for the branch, restore and snapshot code: 0/1A, 0/1a and 0/01A are one position."""
    assert points.same_lsn("0/1A", "0/01a") and points.same_lsn("0/1a", "0/0000001A")
    assert not points.same_lsn("0/1A", "1/1A") and not points.same_lsn("0/1A", None)
    assert points.same_lsn(None, None) and points.same_lsn("junk", "junk")


# ---------------------------------------------------------------------------------------------- what a task is told


@pytest.mark.parametrize("timestamp, lsn, words", [
    ("2026-05-04T02:55:00Z", None, None),
    ("2026-05-04T04:55:00.5+02:00", None, None),
    (None, "0/1F2E3D4", None),
    (None, None, None),
    ("2026-05-04", None, "t must be an RFC 3339 timestamp, such as 2026-05-04T02:55:00Z"),
    ("2026-05-04 02:55:00", None, "got '2026-05-04 02:55:00'"),
    ("2026-05-04T02:55:60Z", None, "seconds 00 to 59"),
    ("2026-05-04T02:55:00+0200", None, "Z or an offset +hh:mm"),
    (None, "0x1F", "l must be a Log Sequence Number - two hexadecimal numbers of up to 8 digits, such as 0/1F2E3D4"),
    ("2026-05-04T02:55:00Z", "0/1", "give t or l, not both"),
])
def test_point_problem_names_the_option_and_shows_an_example(timestamp, lsn, words):
    problem = points.point_problem("t", timestamp, "l", lsn)
    assert (problem is None) if words is None else (words in problem)


def test_a_long_value_is_shown_cut():
    problem = points.timestamp_problem("expires_at", "x" * 500)
    assert "x" * 80 in problem and "x" * 81 not in problem


def test_options_as_sent_changes_only_the_points_named():
    options = dict(parent_timestamp="2026-05-04T04:55:00+02:00", parent_lsn="0/01a", expires_at="", name="x",
                   other="2026-05-04T04:55:00+02:00")
    sent = points.options_as_sent(options, ("parent_timestamp", "expires_at"), ("parent_lsn",))
    assert sent == dict(options, parent_timestamp="2026-05-04T02:55:00Z", parent_lsn="0/1A")
    assert options["parent_timestamp"] == "2026-05-04T04:55:00+02:00"  # a copy
