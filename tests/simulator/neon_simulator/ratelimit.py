# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Optional per-route rate limit (token bucket), like the live service's 429s."""

from __future__ import annotations

import math
import threading
import time


class RateLimiter:
    """``rate`` requests per second per route, with bursts up to ``rate``."""

    def __init__(self, rate, monotonic=None):
        rate = float(rate)
        if rate <= 0:
            raise ValueError("rate limit must be positive")
        self.rate = rate
        self._monotonic = monotonic or time.monotonic
        self._lock = threading.Lock()
        self._buckets = {}

    def check(self, route):
        """None when the request may go on, else the seconds to wait (Retry-After)."""
        now = self._monotonic()
        with self._lock:
            tokens, last = self._buckets.get(route, (self.rate, now))
            tokens = min(self.rate, tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._buckets[route] = (tokens - 1.0, now)
                return None
            self._buckets[route] = (tokens, now)
            return max(1, int(math.ceil((1.0 - tokens) / self.rate)))

    def reset(self):
        with self._lock:
            self._buckets = {}
