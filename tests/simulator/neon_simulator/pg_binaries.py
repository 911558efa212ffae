# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PostgreSQL server programs the real computes run (``--postgres``), and how they are run.

Where they come from, first found wins (tests/simulator/README.md, "Real Postgres computes"):

1. the folder given (``--postgres-bin DIR``, or ``$NEON_SIMULATOR_PG_BIN``);
2. the ``pgserver`` wheel from PyPI (PostgreSQL 16, no root, no system package:
   ``pip install 'neon-simulator[postgres]'``; the project's test requirements install it);
3. ``pg_config --bindir`` of a ``pg_config`` on ``PATH``;
4. the newest ``/usr/lib/postgresql/N/bin`` (Debian's and Ubuntu's packages).

PostgreSQL refuses to run as root. When the simulator runs as root (a container, a CI machine), every
program that touches a data directory runs as ``nobody`` instead, with the data directories owned by it;
if ``nobody`` cannot reach the programs (a virtualenv under ``/root``), they are copied once into the
simulator's work folder first.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import pwd
import re
import shutil
import subprocess

ENV_BIN = "NEON_SIMULATOR_PG_BIN"
PROGRAMS = ("initdb", "postgres", "pg_basebackup", "psql", "pg_dump")
RUN_AS_WHEN_ROOT = "nobody"


class PostgresUnavailable(RuntimeError):
    """No usable PostgreSQL server programs: the message says where they were looked for."""


def _complete(folder):
    return bool(folder) and all(os.access(os.path.join(folder, name), os.X_OK) for name in PROGRAMS)


def _pgserver_bin():
    """The server programs of the ``pgserver`` wheel, found without importing it (its import loads more)."""
    try:
        spec = importlib.util.find_spec("pgserver")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(list(spec.submodule_search_locations)[0], "pginstall", "bin")


def _pg_config_bin():
    pg_config = shutil.which("pg_config")
    if pg_config is None:
        return None
    try:
        return subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, timeout=10,
                              check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def _debian_bin():
    def version(path):
        match = re.search(r"/(\d+)/bin$", path)
        return int(match.group(1)) if match else 0

    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=version)
    return found[-1] if found else None


def find_bin(explicit=None):
    """The folder of the server programs (see the module's text), or :class:`PostgresUnavailable`."""
    if explicit or os.environ.get(ENV_BIN):
        folder = explicit or os.environ[ENV_BIN]
        if not _complete(folder):
            raise PostgresUnavailable("%s lacks one of the PostgreSQL programs %s" % (folder, ", ".join(PROGRAMS)))
        return folder
    for finder in (_pgserver_bin, _pg_config_bin, _debian_bin):
        folder = finder()
        if _complete(folder):
            return folder
    raise PostgresUnavailable(
        "no PostgreSQL server programs found for --postgres: install them with "
        "`pip install 'neon-simulator[postgres]'` (the pgserver wheel), or give their folder with --postgres-bin "
        "or $%s (it needs %s)" % (ENV_BIN, ", ".join(PROGRAMS)))


class Programs:
    """Runs the server programs of ``folder``: as ``nobody`` when this process is root (see the module's text).

    ``workdir`` is the simulator's own folder for data directories (made reachable by that user).
    """

    def __init__(self, folder, workdir):
        self.workdir = workdir
        self.user = None
        if os.geteuid() == 0:
            try:
                entry = pwd.getpwnam(RUN_AS_WHEN_ROOT)
            except KeyError:
                raise PostgresUnavailable("PostgreSQL refuses to run as root, and this machine has no user %s to run "
                                          "it as" % RUN_AS_WHEN_ROOT) from None
            self.user = (entry.pw_uid, entry.pw_gid)
            os.chmod(workdir, 0o755)
            os.chown(workdir, *self.user)
        self.folder = folder
        if self.user is not None and not self._runs(folder):
            self.folder = self._copied(folder)

    def path(self, name):
        return os.path.join(self.folder, name)

    def _as_user(self):
        if self.user is None:
            return {}
        return {"user": self.user[0], "group": self.user[1], "extra_groups": []}

    def _runs(self, folder):
        try:
            return subprocess.run([os.path.join(folder, "postgres"), "--version"], capture_output=True, timeout=30,
                                  check=False, **self._as_user()).returncode == 0
        except (OSError, subprocess.SubprocessError):
            return False

    def _copied(self, folder):
        """The install tree of ``folder`` (its bin, lib and share) copied where the user can run it."""
        target = os.path.join(self.workdir, "pginstall")
        shutil.copytree(os.path.dirname(os.path.abspath(folder)), target, symlinks=True)  # keeps the modes
        copied = os.path.join(target, "bin")
        if not self._runs(copied):
            raise PostgresUnavailable("user %s cannot run the PostgreSQL programs of %s, nor a copy of them"
                                      % (RUN_AS_WHEN_ROOT, folder))
        return copied

    def run(self, name, *args, timeout=120, stdin=None, env=None):
        """Run program ``name`` to its end (``stdin``: its input; ``env``: variables added to this process's);
        its output, or RuntimeError with what it said."""
        argv = [self.path(name)] + [str(arg) for arg in args]
        try:
            done = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=timeout, check=False,
                                  cwd=self.workdir, env=dict(os.environ, **env) if env else None,
                                  **self._as_user())
        except subprocess.TimeoutExpired:
            raise RuntimeError("%s did not end within %d s" % (name, timeout)) from None
        if done.returncode != 0:
            raise RuntimeError("%s failed (exit %d): %s" % (name, done.returncode, (done.stderr or done.stdout).strip()))
        return done.stdout

    def start(self, name, *args, log_path):
        """Start program ``name`` in the background, its output going to ``log_path``; the Popen."""
        with open(log_path, "ab") as log:
            return subprocess.Popen([self.path(name)] + [str(arg) for arg in args], stdin=subprocess.DEVNULL,
                                    stdout=log, stderr=subprocess.STDOUT, cwd=self.workdir, **self._as_user())

    def make_folder(self, path):
        """A new empty folder (mode 0700, as PostgreSQL wants its data directory) owned by the user."""
        os.makedirs(path, mode=0o700)
        if self.user is not None:
            os.chown(path, *self.user)
        return path

    def copy_folder(self, source, target):
        """``source`` copied to the new folder ``target``, with its owner and modes (cp -a, as the user)."""
        done = subprocess.run(["cp", "-a", source, target], capture_output=True, text=True, timeout=300,
                              check=False, **self._as_user())
        if done.returncode != 0:
            raise RuntimeError("copying %s failed: %s" % (source, done.stderr.strip()))
