# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The API's timestamps (ISO 8601, UTC, as ``created_at`` and ``expires_at`` come) read as seconds since the epoch."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import calendar
import re

_TIMESTAMP = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$")


def timestamp(value):
    """Seconds since the epoch of an ISO 8601 UTC timestamp of the API, or None when it is not one."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    match = _TIMESTAMP.match(value)
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(part) for part in match.group(1, 2, 3, 4, 5, 6))
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour <= 23 and minute <= 59 and second <= 60):
        return None
    try:
        seconds = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0))
    except (ValueError, OverflowError):  # pragma: no cover - ranges are checked above
        return None
    if match.group(7):
        seconds += float("0." + match.group(7))
    if match.group(9):
        offset = int(match.group(10)) * 3600 + int(match.group(11)) * 60
        seconds -= offset if match.group(9) == "+" else -offset
    return seconds
