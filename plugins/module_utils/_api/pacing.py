# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One pace for every request of one API key on this machine: every fork, every playbook run, the inventory.

Neon answers HTTP 429 past about 700 requests a minute per account (docs/docsite/rst/api-behaviour.rst,
"Pacing"). Fifty forks each pacing themselves would each think they have the whole budget, so the pace is a
token bucket kept in a file that every process of the user takes its turn in, under an ``fcntl`` lock: a burst of
``bucket_size`` requests, then one every ``60 / per_minute`` seconds. A 429's pause (its ``Retry-After``) is
written there too, so that every process sharing the key waits it out, not only the one that got the 429.

The bucket is kept as one number, the time the next request may go (a "generic cell rate" form of a token
bucket): a request takes that turn, waits until it comes and moves it one interval on; a full bucket is a turn up
to ``bucket_size - 1`` intervals in the past, so that many go at once.

Where: a folder of the user's own in the temp dir (``neon-cloud-pace-<uid>``, mode 0700), one small file per
API URL and key, named by a hash of both (the key, or any part of it, is never in the name or the file). The temp
dir is shared by every user of the machine, so a folder or file that is a symlink, belongs to another user or
others may write is refused: the process then paces itself alone and ``warning`` says why. A platform without
``fcntl`` paces each process alone too, silently: it cannot do otherwise and nothing is wrong.

A wait is bounded by the caller (the client: ``api_retry_max_delay``, and the deadline of a wait for
operations): when the pace asks for more, the request goes at the bound without a turn of its own, and the
service's 429 (if any) is retried as every 429 is.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import hashlib
import json
import os
import stat
import tempfile
import threading
import time

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: each process paces itself
    fcntl = None

# Neon's limit is about 700 requests a minute per account; the default leaves room for a burst and for the
# account's other clients (docs/docsite/rst/api-behaviour.rst, "Pacing"). api_rate_limit changes it, 0 turns it off.
DEFAULT_PER_MINUTE = 650.0
# The burst: up to this many seconds' worth of requests at once, never more than BURST_MAX (the service allows
# bursts to 40 a second per route). With the default, no 60 seconds hold more than 650 + 40 = 690 requests.
BURST_SECONDS = 4.0
BURST_MAX = 40.0
FOLDER_PREFIX = "neon-cloud-pace-"
STATE_SUFFIX = ".pace"
STATE_FORMAT = 1
# A next turn further ahead than this was written under a clock set back (or is not ours): start afresh.
HORIZON = 3600.0
_EPSILON = 1e-6
_NAME_SALT = "neon.cloud pace of one API key at one URL"


class UnsafeFolder(Exception):
    """The shared folder or file cannot be trusted (the message names it, never the key)."""


def bucket_size(per_minute):
    """Requests that may go at once before the pace begins."""
    return max(1.0, min(BURST_MAX, per_minute / 60.0 * BURST_SECONDS))


def state_name(api_url, api_key):
    """The state file's name: a hash of the API URL and the key; neither can be read back from it."""
    material = "\n".join((_NAME_SALT, api_url.rstrip("/"), api_key)).encode("utf-8")
    return hashlib.sha256(material).hexdigest()[:40] + STATE_SUFFIX


def default_folder():
    """The user's own folder in the temp dir (TMPDIR, else /tmp)."""
    return os.path.join(tempfile.gettempdir(), "%s%d" % (FOLDER_PREFIX, os.geteuid()))


def next_turn(turn, now, interval, slack, longest, late=None):
    """(seconds to wait, the new next turn) for one request at ``now``.

    ``turn`` is the stored next turn (None: a full bucket); ``slack`` how far behind ``now`` a turn may be
    (the burst); ``longest`` the most the caller waits. A request that would wait longer goes after ``longest``
    (or after ``late`` seconds, when given: 0 for a caller whose deadline comes first) without taking a turn, so
    that the pace is not pushed further out for the others.
    """
    if turn is None or turn > now + HORIZON:
        turn = now - slack  # a full bucket
    turn = max(turn, now - slack)
    wait = turn - now
    if wait < _EPSILON:
        wait = 0.0  # the last turn of a burst, give or take float rounding
    if wait > longest:
        return (longest if late is None else late), turn
    return wait, turn + interval


def held_turn(turn, now, seconds):
    """The next turn once the service asked every request to pause ``seconds`` (a 429's Retry-After): the first
    request after the pause goes at its end, and the pace starts again from there, with no burst."""
    if turn is None or turn > now + HORIZON:
        turn = now
    return max(turn, now + seconds)


class Pace:
    """The pace of one API key at one URL, shared by the processes of this user (or this process's alone).

    ``take(longest)`` waits for the next turn, at most ``longest`` seconds, and answers the seconds waited;
    ``hold(seconds)`` makes every process sharing the key pause. ``shared`` says whether the pace is the machine's;
    ``warning`` says why not, when that matters (a folder or file that may be another user's).
    """

    def __init__(self, api_url, api_key, per_minute=DEFAULT_PER_MINUTE, folder=None, clock=time.time,
                 sleep=time.sleep):
        per_minute = float(per_minute)
        if not 0 < per_minute < float("inf"):
            raise ValueError("per_minute must be a finite number above 0")
        self.per_minute = per_minute
        self.interval = 60.0 / per_minute
        self.slack = (bucket_size(per_minute) - 1.0) * self.interval
        self.clock = clock
        self.sleep = sleep
        self.folder = folder or default_folder()
        self.name = state_name(api_url, api_key)
        self.warning = None
        self.shared = fcntl is not None and os.open in os.supports_dir_fd
        self._lock = threading.Lock()
        self._turn = None  # this process's own, when the pace is not shared

    @property
    def path(self):
        return os.path.join(self.folder, self.name)

    def take(self, longest, late=None):
        """Wait for this request's turn, at most ``longest`` seconds (past that, ``late`` seconds when given); the
        seconds waited."""
        def step(turn, now):
            return next_turn(turn, now, self.interval, self.slack, max(0.0, longest), late)

        wait = self._update(step)
        if wait > 0:
            self.sleep(wait)
        return wait

    def hold(self, seconds):
        """Every request of this key, in every process sharing the pace, waits ``seconds`` from now."""
        def step(turn, now):
            return None, held_turn(turn, now, max(0.0, seconds))

        self._update(step)

    # ------------------------------------------------------------------------------------------ the state

    def _update(self, step):
        """Apply ``step(turn, now) -> (answer, new turn)`` to the shared state under its lock, or to this
        process's own when it cannot be shared."""
        with self._lock:
            if self.shared:
                try:
                    return self._update_shared(step)
                except UnsafeFolder as problem:
                    self._alone("%s" % problem)
                except OSError as exc:
                    self._alone("%s could not be used (%s)" % (self.folder, exc.strerror or type(exc).__name__))
            answer, self._turn = step(self._turn, self.clock())
            return answer

    def _alone(self, reason):
        self.shared = False
        self.warning = ("neon.cloud paces the requests of this process alone: %s. Other forks and playbook runs with "
                        "this API key are not paced together with it, and the service may answer HTTP 429 (retried "
                        "up to api_retries times). Remove the folder, or set TMPDIR to a folder of your own." % reason)

    def _update_shared(self, step):
        folder_fd = _open_folder(self.folder)
        try:
            fd = _open_state(self.name, folder_fd, self.folder)
        finally:
            os.close(folder_fd)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            turn = _read_turn(fd)
            answer, turn = step(turn, self.clock())
            _write_turn(fd, turn)
            return answer
        finally:
            os.close(fd)  # releases the lock


def _open_folder(folder):
    """A descriptor of the user's own folder, made if missing; refused when it could be anyone else's."""
    try:
        os.mkdir(folder, 0o700)
    except OSError as exc:
        if exc.errno != errno.EEXIST:
            raise
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise UnsafeFolder("%s is a symlink or not a folder" % folder)
        raise
    info = os.fstat(fd)
    problem = None
    if not stat.S_ISDIR(info.st_mode):
        problem = "%s is not a folder" % folder
    elif info.st_uid != os.geteuid():
        problem = "%s belongs to another user (uid %d)" % (folder, info.st_uid)
    elif stat.S_IMODE(info.st_mode) & 0o077:
        problem = "other users may use %s (mode %o, not 700)" % (folder, stat.S_IMODE(info.st_mode))
    if problem:
        os.close(fd)
        raise UnsafeFolder(problem)
    return fd


def _open_state(name, folder_fd, folder):
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags, 0o600, dir_fd=folder_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeFolder("the pace file %s is a symlink" % os.path.join(folder, name))
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
        os.close(fd)
        raise UnsafeFolder("the pace file %s is not a file of this user's" % os.path.join(folder, name))
    return fd


def _read_turn(fd):
    """The stored next turn, or None (a new, empty or unreadable file: a full bucket)."""
    os.lseek(fd, 0, os.SEEK_SET)
    data = os.read(fd, 4096)
    try:
        state = json.loads(data.decode("ascii"))
    except ValueError:
        return None
    turn = state.get("next_turn") if isinstance(state, dict) and state.get("format") == STATE_FORMAT else None
    if isinstance(turn, bool) or not isinstance(turn, (int, float)) or not abs(turn) < float("inf"):
        return None
    return float(turn)


def _write_turn(fd, turn):
    data = json.dumps({"format": STATE_FORMAT, "next_turn": turn}).encode("ascii")
    os.lseek(fd, 0, os.SEEK_SET)
    os.ftruncate(fd, 0)
    os.write(fd, data)
