# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Rate limits (token buckets), like the live service's 429s: one bucket per route, or per
organization for the creation of organization API keys."""

from __future__ import annotations

import math
import threading
import time

# Organization key creation: about 10 requests per second (tests/simulator/README.md).
ORG_KEY_CREATE_RATE = 10.0
_EPSILON = 1e-9  # a request exactly 1/rate s after the last one finds a whole token, despite float rounding


class RateLimiter:
    """``rate`` requests per second per bucket, with bursts up to ``burst`` (default: ``rate``, at least 1)."""

    def __init__(self, rate, burst=None, monotonic=None):
        rate = float(rate)
        if rate <= 0:
            raise ValueError("rate limit must be positive")
        burst = float(burst) if burst is not None else max(1.0, rate)
        if burst < 1:
            raise ValueError("burst must be at least 1")
        self.rate = rate
        self.burst = burst
        self._monotonic = monotonic or time.monotonic
        self._lock = threading.Lock()
        self._buckets = {}

    def check(self, bucket):
        """None when the request may go on, else the seconds to wait (Retry-After)."""
        now = self._monotonic()
        with self._lock:
            tokens, last = self._buckets.get(bucket, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            if tokens >= 1.0 - _EPSILON:
                self._buckets[bucket] = (max(0.0, tokens - 1.0), now)
                return None
            self._buckets[bucket] = (tokens, now)
            return max(1, int(math.ceil((1.0 - tokens) / self.rate)))

    def reset(self):
        with self._lock:
            self._buckets = {}

    def describe(self):
        return {"rate": self.rate, "burst": self.burst}
