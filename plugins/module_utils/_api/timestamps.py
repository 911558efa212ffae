# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The API's timestamps: RFC 3339 (section 5.6), read strictly, as seconds since the epoch and in one canonical form.

What the service writes (``created_at``, ``expires_at``) and what it takes where its OpenAPI says ``date-time``
(a restore's ``source_timestamp``, a branch's ``parent_timestamp`` and ``expires_at``, a schema's ``timestamp``;
a snapshot's ``timestamp`` and ``expires_at`` are documented as ``2025-08-05T22:00:00Z``) is
``2026-05-04T02:55:00Z``: a date, ``T``, the time to the second (an optional fraction), and ``Z`` or an offset
``+hh:mm``. RFC 3339 lets an application read a space or a lower-case ``t``/``z`` too (its note in 5.6), and
these are read; nothing else is (docs/docsite/rst/api-behaviour.rst, "Points of a branch's history"): no
``+0200``, no date that does not exist (``2026-02-31``) and no second 60. ``canonical`` is the form the
collection sends, whatever it was given: the same moment in UTC, with an upper-case ``T``, ending in ``Z``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import calendar
import datetime
import re

_RFC3339 = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$")
# Longer text is not looked at (the longest timestamp is 35 characters).
MAX_LENGTH = 40
EXAMPLE = "2026-05-04T02:55:00Z"


def parse(value):
    """``(seconds since the epoch, canonical text)`` of an RFC 3339 timestamp, or None when ``value`` is not one.

    The canonical text is the moment in UTC ending in ``Z``, its fraction of a second as given without trailing
    zeros (``2026-05-04T04:55:00.120+02:00`` is ``2026-05-04T02:55:00.12Z``)."""
    if not isinstance(value, str) or len(value) > MAX_LENGTH:
        return None
    match = _RFC3339.match(value)
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(part) for part in match.group(1, 2, 3, 4, 5, 6))
    offset = 0
    if match.group(9):
        offset_hours, offset_minutes = int(match.group(10)), int(match.group(11))
        if offset_hours > 23 or offset_minutes > 59:
            return None
        offset = (offset_hours * 60 + offset_minutes) * (1 if match.group(9) == "+" else -1)
    try:
        # datetime refuses what is not a real date and time: 2026-02-31, hour 24, second 60.
        moment = datetime.datetime(year, month, day, hour, minute, second) - datetime.timedelta(minutes=offset)
    except (ValueError, OverflowError):
        return None
    fraction = (match.group(7) or "").rstrip("0")
    seconds = calendar.timegm(moment.timetuple()) + (float("0." + fraction) if fraction else 0)
    canonical = "%04d-%02d-%02dT%02d:%02d:%02d%sZ" % (
        moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second,
        "." + fraction if fraction else "")
    return seconds, canonical


def timestamp(value):
    """Seconds since the epoch of an RFC 3339 timestamp, or None when ``value`` is not one."""
    parsed = parse(value)
    return parsed[0] if parsed else None


def canonical(value):
    """The canonical form of an RFC 3339 timestamp (UTC, ending in ``Z``), or None when ``value`` is not one."""
    parsed = parse(value)
    return parsed[1] if parsed else None
