# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The HOME directories the sessions run their tools with (CONTRIBUTING.md, "Home directories and
sessions in parallel"): an empty one of a session's own, or the home a core's sanity session keeps
between runs, and the lock that makes two sessions sharing such a home take turns."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import fcntl
import os
import shutil
from pathlib import Path


def empty_home(session):
    """A new, empty home directory of this session's own, for the tools it runs (HOME).

    Whatever a tool keeps in a home directory (ansible-test its SSH key pair in ~/.ansible/test,
    ansible its ~/.ansible/tmp and ~/.ansible_async) then belongs to one session of one run: two
    sessions running in parallel never meet there, and every run proves the session passes on a
    machine that has never run it, whatever the caller's HOME is. Only the sanity sessions keep
    a home between runs, for ansible-test's virtualenv cache (see sanity_home)."""
    home = Path(session.create_tmp()).resolve() / "home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(mode=0o700, parents=True)
    return home


def caller_cache_dir():
    """The caller's cache directory (XDG_CACHE_HOME, else ~/.cache)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def sanity_home(core):
    """The home of ``core``'s sanity session, kept between runs for ansible-test's virtualenvs of the
    sanity tests (building them takes 50-100 s per ansible-core): one per core, below the caller's
    cache directory. The sanity sessions of different cores then run side by side instead of taking
    turns on one home; they would share no virtualenv anyway (each core pins other versions of
    every sanity test's requirements)."""
    return caller_cache_dir() / "neon-cloud" / ("sanity-home-" + core)


@contextlib.contextmanager
def exclusive(path):
    """Hold a lock on ``path`` (other sessions running in parallel wait for it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
