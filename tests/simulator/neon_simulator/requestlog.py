# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The log of /api/v2 requests, read by tests through /_simulator/requests."""

from __future__ import annotations

import collections
import threading

MAX_ENTRIES = 200000


class RequestLog:
    """Bounded, thread-safe list of request records with increasing ``seq``.

    ``seq`` keeps increasing across :meth:`clear`, so ``since`` stays valid.
    """

    def __init__(self, max_entries=MAX_ENTRIES):
        self._lock = threading.Lock()
        self._entries = collections.deque(maxlen=max_entries)
        self._seq = 0

    def add(self, entry):
        with self._lock:
            self._seq += 1
            entry["seq"] = self._seq
            self._entries.append(entry)
            return self._seq

    def list(self, since=None):
        with self._lock:
            entries = list(self._entries)
        if since is not None:
            entries = [entry for entry in entries if entry["seq"] > since]
        return [dict(entry) for entry in entries]

    def clear(self):
        with self._lock:
            removed = len(self._entries)
            self._entries.clear()
            return removed

    @property
    def last_seq(self):
        with self._lock:
            return self._seq
