# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The simulator's clock and the timestamp formats of the Neon API.

All simulated time (operation progress, ``created_at``, ``last_used_at``,
the request log) comes from one :class:`Clock`.  It follows the real clock by
default; tests may run it faster (``speed``) or jump it forward
(:meth:`Clock.advance`).  Internally timestamps are integer microseconds since
the Unix epoch, so cursors round-trip exactly.
"""

from __future__ import annotations

import datetime
import re
import threading
import time

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_ONE_US = datetime.timedelta(microseconds=1)
_TIMESTAMP_RE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?"
    r"(?:([Zz])|([+-])(\d{2}):?(\d{2}))$"
)
# RFC 3339 section 5.6, strictly (a CHOICE: tests/simulator/README.md, "Timestamps the API takes"): an upper-case
# T, Z or +hh:mm.
_RFC3339_RE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):(\d{2}))$"
)


class Clock:
    """Wall-clock time anchored on a monotonic clock.

    ``time()`` never goes backwards even if the system clock is changed.
    ``speed`` > 1 makes simulated time run faster than real time and
    ``advance(seconds)`` jumps it forward (both only affect the simulator).
    """

    def __init__(self, speed=1.0, wall=None, monotonic=None):
        if speed <= 0:
            raise ValueError("speed must be positive")
        self._wall = wall or time.time
        self._monotonic = monotonic or time.monotonic
        self._speed = float(speed)
        self._wall0 = self._wall()
        self._mono0 = self._monotonic()
        self._offset = 0.0
        self._lock = threading.Lock()

    @property
    def speed(self):
        return self._speed

    def time(self):
        """Simulated time, seconds since the epoch (float)."""
        with self._lock:
            offset = self._offset
        return self._wall0 + (self._monotonic() - self._mono0) * self._speed + offset

    def now_us(self):
        """Simulated time, integer microseconds since the epoch."""
        return int(round(self.time() * 1e6))

    def back_to_real_time(self):
        """Simulated time back to the wall clock's (what ``advance`` added, undone): only for a start afresh (the
        pytest fixture's, before the state goes back to its seed), since otherwise time never goes backwards."""
        with self._lock:
            self._offset = 0.0

    def advance(self, seconds):
        """Jump simulated time forward by ``seconds``."""
        seconds = float(seconds)
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        with self._lock:
            self._offset += seconds


def us_from_seconds(seconds):
    return int(round(seconds * 1e6))


def iso_seconds(us):
    """``2025-01-16T21:02:04Z`` (second precision, as created_at/updated_at)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(us // 1000000))


def iso_seconds_or_none(us):
    return None if us is None else iso_seconds(us)


def iso_micro(us):
    """``2025-01-16T21:02:04.214837Z`` (the operations pagination cursor)."""
    return "%s.%06dZ" % (time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(us // 1000000)), us % 1000000)


def parse_timestamp(text):
    """Parse an ISO 8601 / RFC 3339 timestamp into integer microseconds, leniently: for the control API and the
    simulator's own cursors. What /api/v2 takes where the OpenAPI says date-time is :func:`parse_rfc3339`'s.

    Accepts a ``Z`` suffix or a numeric offset and 0 to 9 fractional digits
    (digits past microseconds are dropped).  Raises ValueError otherwise.
    """
    return _parsed(_TIMESTAMP_RE.match(text or ""), text)


def parse_rfc3339(text):
    """Parse an RFC 3339 timestamp (section 5.6) into integer microseconds, strictly: what /api/v2 takes where the
    OpenAPI says date-time. ``2026-05-04T02:55:00Z`` or ``...T04:55:00.5+02:00`` - an upper-case ``T``, ``Z`` or
    an offset ``+hh:mm``, a real date, hours 0-23, minutes and seconds 0-59 (no leap second). Raises ValueError
    for anything else (a space or a lower-case ``t``/``z``, ``+0200``, ``2026-02-31``, second 60), so that a test
    sees a client that sends such a value refused (the service's handling of them is not documented: the
    simulator's choice is the strict reading, as Go's ``time.RFC3339`` layout reads)."""
    if not isinstance(text, str):
        raise ValueError("not an RFC 3339 timestamp: %r" % (text,))
    match = _RFC3339_RE.match(text)
    if match and (int(match.group(10) or 0) > 23 or int(match.group(11) or 0) > 59):
        match = None
    return _parsed(match, text)


def _parsed(match, text):
    """Microseconds since the epoch of a matched timestamp; ValueError when there is no match or no such moment."""
    if not match:
        raise ValueError("not an ISO 8601 timestamp: %r" % (text,))
    year, month, day, hour, minute, second, frac, _zulu, sign, off_h, off_m = match.groups()
    stamp = datetime.datetime(int(year), int(month), int(day), int(hour), int(minute), int(second),
                              int((frac or "0")[:6].ljust(6, "0")), tzinfo=datetime.timezone.utc)
    us = (stamp - _EPOCH) // _ONE_US
    if sign:
        offset = (int(off_h) * 60 + int(off_m)) * 60 * 1000000
        us = us - offset if sign == "+" else us + offset
    return us
