# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A point of a branch's history as a task names it: an RFC 3339 timestamp or a Log Sequence Number. Pure.

The one place that says what is one, what a task is told when it is not, how two compare and the form in which
the collection sends it - for a branch (``parent_timestamp``, ``parent_lsn``, ``expires_at``), a restore
(``source_timestamp``, ``source_lsn``), a snapshot (``timestamp``, ``lsn``, ``expires_at``) and a schema
(``timestamp``, ``lsn``, ``compare_to``'s). Timestamps are timestamps.py's (strict RFC 3339, sent in UTC ending
in ``Z``); an LSN is two hexadecimal numbers of up to 8 digits, ``X/Y``, sent as PostgreSQL writes it
(``%X/%X``: upper case, no leading zeros) - docs/docsite/rst/api-behaviour.rst, "Points of a branch's history".
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.neon.cloud.plugins.module_utils._api import timestamps

LSN = re.compile(r"^([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})$")
EXAMPLE_LSN = "0/1F2E3D4"
# How much of a value a message repeats.
SHOWN = 80


# ---------------------------------------------------------------------------------------------- LSNs


def lsn_position(value):
    """An LSN's 64-bit position, or None when ``value`` is not an LSN."""
    match = LSN.match(value) if isinstance(value, str) else None
    return (int(match.group(1), 16) << 32 | int(match.group(2), 16)) if match else None


def canonical_lsn(value):
    """An LSN as PostgreSQL writes it (``0/1A``: upper case, no leading zeros), or None when ``value`` is not one."""
    position = lsn_position(value)
    return None if position is None else "%X/%X" % (position >> 32, position & 0xFFFFFFFF)


def same_lsn(before, after):
    """Whether two LSNs are one position (``0/1a``, ``0/01A`` and ``0/0000001A`` are); else plain equality."""
    first, second = lsn_position(before), lsn_position(after)
    if first is None or second is None:
        return before == after
    return first == second


# ---------------------------------------------------------------------------------------------- what a task is told


def timestamp_problem(option, value):
    """Why ``value`` of ``option`` is not an RFC 3339 timestamp, or None (None: not given)."""
    if value is None or timestamps.parse(value) is not None:
        return None
    return "%s must be an RFC 3339 timestamp, such as %s or 2026-05-04T04:55:00+02:00: a real date, an upper-case " \
           "T, the time to the second (seconds 00 to 59, an optional fraction) and its time zone, Z or an offset " \
           "+hh:mm; got %r" % (option, timestamps.EXAMPLE, _shown(value))


def lsn_problem(option, value):
    """Why ``value`` of ``option`` is not a Log Sequence Number, or None (None: not given)."""
    if value is None or lsn_position(value) is not None:
        return None
    return "%s must be a Log Sequence Number - two hexadecimal numbers of up to 8 digits, such as %s - got %r" % (
        option, EXAMPLE_LSN, _shown(value))


def point_problem(timestamp_option, timestamp, lsn_option, lsn):
    """Why a point given as options (a timestamp or an LSN; None: not given) cannot be sent, or None: both given,
    a timestamp that is not RFC 3339, an LSN that is not one."""
    if timestamp is not None and lsn is not None:
        return "give %s or %s, not both: they are two ways to name one point" % (timestamp_option, lsn_option)
    return timestamp_problem(timestamp_option, timestamp) or lsn_problem(lsn_option, lsn)


def _shown(value):
    return value[:SHOWN] if isinstance(value, str) else value


# ---------------------------------------------------------------------------------------------- what is sent


def timestamp_as_sent(value):
    """A timestamp in the form the collection sends (UTC, ending in ``Z``); a value that is not one stays as given
    (for its check to refuse)."""
    return timestamps.canonical(value) or value


def lsn_as_sent(value):
    """An LSN in the form the collection sends (``%X/%X``); a value that is not one stays as given."""
    return canonical_lsn(value) or value


def options_as_sent(options, timestamp_options=(), lsn_options=()):
    """``options`` (a dict) with the timestamps and LSNs named in the form the collection sends them."""
    sent = dict(options)
    for option in timestamp_options:
        if sent.get(option):
            sent[option] = timestamp_as_sent(sent[option])
    for option in lsn_options:
        if sent.get(option):
            sent[option] = lsn_as_sent(sent[option])
    return sent
