# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Barriers: the next N matching API requests are carried out as they arrive, and their answers are
held until all N have been answered; then they go out together.

Tests use one to make runs of the same task provably overlap (each lists the keys before any
creates one) without racing the wall clock. Holding the answers, not the requests, is what makes it
provable: every listing is taken before any run has an answer to act on, so no create can slip in
between the release and a listing however the threads are scheduled. A barrier is spent once its N
requests have been answered; one whose parties are not all answered within its ``timeout`` (counted
by each held answer) lets the held answers go and records that it timed out.
"""

from __future__ import annotations

import fnmatch
import threading

MAX_PARTIES = 64
MAX_TIMEOUT = 120.0


class Barrier:
    def __init__(self, barrier_id, spec):
        if not isinstance(spec, dict):
            raise ValueError("a barrier must be a JSON object")
        unknown = set(spec) - {"method", "path", "parties", "timeout"}
        if unknown:
            raise ValueError("unknown barrier fields: %s" % ", ".join(sorted(unknown)))
        self.id = barrier_id
        self.method = str(spec.get("method") or "*").upper()
        self.path = spec.get("path") or "/api/v2/*"
        if not isinstance(self.path, str):
            raise ValueError("path: must be a glob string")
        self.parties = spec.get("parties")
        if isinstance(self.parties, bool) or not isinstance(self.parties, int) or not 1 <= self.parties <= MAX_PARTIES:
            raise ValueError("parties: must be an integer from 1 to %d" % MAX_PARTIES)
        timeout = spec.get("timeout", 30)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= MAX_TIMEOUT:
            raise ValueError("timeout: must be a number of seconds above 0, at most %d" % MAX_TIMEOUT)
        self.timeout = float(timeout)
        self.arrived = 0
        self.answered = 0
        self.timed_out = False
        self.opened = threading.Event()

    def matches(self, method, path):
        return self.method in ("*", method.upper()) and fnmatch.fnmatchcase(path, self.path)

    def to_dict(self):
        return {"id": self.id, "method": self.method, "path": self.path, "parties": self.parties,
                "timeout": self.timeout, "arrived": self.arrived, "answered": self.answered, "open": self.opened.is_set(),
                "timed_out": self.timed_out}


class Barriers:
    def __init__(self):
        self._lock = threading.Lock()
        self._barriers = []
        self._next_id = 1

    def add(self, spec):
        with self._lock:
            barrier = Barrier(self._next_id, spec)
            self._next_id += 1
            self._barriers.append(barrier)
            return barrier.to_dict()

    def list(self):
        with self._lock:
            return [barrier.to_dict() for barrier in self._barriers]

    def clear(self):
        with self._lock:
            removed = len(self._barriers)
            for barrier in self._barriers:
                barrier.opened.set()  # nobody stays held by a barrier that is gone
            self._barriers = []
            return removed

    def join(self, method, path):
        """The first armed barrier this request matches, counted as arrived (None when none matches).

        The caller carries the request out, then calls ``hold`` with what this returned.
        """
        with self._lock:
            barrier = next((b for b in self._barriers if b.arrived < b.parties and b.matches(method, path)), None)
            if barrier is not None:
                barrier.arrived += 1
            return barrier

    def hold(self, barrier):
        """This request's answer is ready: hold it until every party's is (or the barrier's timeout)."""
        if barrier is None:
            return
        with self._lock:
            barrier.answered += 1
            if barrier.answered >= barrier.parties:
                barrier.opened.set()
        if not barrier.opened.wait(barrier.timeout):
            with self._lock:
                barrier.timed_out = True
                barrier.arrived = barrier.parties  # spent: later requests pass
                barrier.opened.set()
