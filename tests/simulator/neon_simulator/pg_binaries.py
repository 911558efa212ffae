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
program that touches a data directory runs as ``nobody`` instead, with the data directories owned by it. Then
every folder that user needs must be reachable, each folder above it searchable by it:

- the work folder (the data directories, their sockets and logs): a new folder in the first of
  ``--postgres-workdir DIR`` (or ``$NEON_SIMULATOR_PG_WORKDIR``; only it, when given), the temporary folder
  (``TMPDIR``), ``/tmp`` and ``/var/tmp`` that ``nobody`` can reach and whose path leaves room for a socket's;
- the programs, with their ``lib`` and ``share``: when ``nobody`` cannot run them (a virtualenv in a private
  clone, or under ``/root``), they are copied once into the work folder, with the libraries their run path
  names relative to them (the pgserver wheel's ``pgserver.libs``).

What cannot be had raises :class:`PostgresUnavailable` at once, saying what was checked and what to set; the
real computes then make their first cluster at start (real_computes.py), so that nothing fails later unseen.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import pwd
import re
import shutil
import stat
import struct
import subprocess
import tempfile

ENV_BIN = "NEON_SIMULATOR_PG_BIN"
ENV_WORKDIR = "NEON_SIMULATOR_PG_WORKDIR"
WORKDIR_PREFIX = "neon-sim-pg-"
# a Unix socket's path is at most 107 bytes: PLACE/neon-sim-pg-XXXXXXXX/template/.s.PGSQL.65535 (or b12345/)
SOCKET_PATH_MAX = 107
SOCKET_ROOM = len("/" + WORKDIR_PREFIX + "XXXXXXXX" + "/template/.s.PGSQL.65535")
SYSTEM_TEMP = ("/tmp", "/var/tmp")
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


def run_as():
    """The (uid, gid) the programs run as: ``nobody``'s when this process is root, else None (this process's)."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam(RUN_AS_WHEN_ROOT)
    except KeyError:
        raise PostgresUnavailable("PostgreSQL refuses to run as root, and this machine has no user %s to run "
                                  "it as" % RUN_AS_WHEN_ROOT) from None
    return entry.pw_uid, entry.pw_gid


def _passes(status, user):
    """Whether ``user`` (uid, gid; no other group) may search the folder of ``status`` (the execute bit)."""
    uid, gid = user
    if uid == 0:
        return True
    if status.st_uid == uid:
        return bool(status.st_mode & stat.S_IXUSR)
    if status.st_gid == gid:
        return bool(status.st_mode & stat.S_IXGRP)
    return bool(status.st_mode & stat.S_IXOTH)


def blocked_at(path, user):
    """The first folder on the way to ``path`` (``path`` included, each folder from ``/`` down, along the path as
    written and as its links resolve) that ``user`` cannot pass, with why: ``(folder, reason)``; None when every
    one lets it through (or ``user`` is None: this process's own folders)."""
    if user is None:
        return None
    for way in (os.path.abspath(path), os.path.realpath(path)):
        folder = os.sep
        for part in [part for part in way.split(os.sep) if part] + [None]:
            try:
                status = os.stat(folder)
            except OSError as error:
                return folder, "cannot be read (%s)" % (error.strerror or error)
            if not stat.S_ISDIR(status.st_mode):
                return folder, "is not a folder"
            if not _passes(status, user):
                return folder, "has mode %04o (owner %d, group %d): user %s cannot pass it, which needs the " \
                               "execute bit for others" % (stat.S_IMODE(status.st_mode), status.st_uid,
                                                           status.st_gid, RUN_AS_WHEN_ROOT)
            if part is None:
                break
            folder = os.path.join(folder, part)
    return None


def _workdir_problem(parent, user):
    """Why ``parent`` cannot hold the work folder, or None."""
    if not os.path.isdir(parent):
        return "is not a folder"
    if not os.access(parent, os.W_OK | os.X_OK):
        return "cannot be written"
    blocked = blocked_at(parent, user)
    if blocked is not None:
        itself = blocked[0] in (os.path.abspath(parent), os.path.realpath(parent))
        return blocked[1] if itself else "%s %s" % blocked
    if len(os.path.realpath(parent)) + SOCKET_ROOM > SOCKET_PATH_MAX:
        return "is too long a path (%d bytes) for the servers' sockets in it (at most %d bytes in all)" % (
            len(os.path.realpath(parent)), SOCKET_PATH_MAX)
    return None


def make_workdir(user, explicit=None, candidates=None):
    """A new work folder, made reachable by ``user`` (see the module's text), in the first place that fits:
    ``explicit`` (or ``$NEON_SIMULATOR_PG_WORKDIR``) alone when given, else each of ``candidates`` (default: the
    temporary folder, /tmp and /var/tmp). :class:`PostgresUnavailable` says what was checked and what to set."""
    explicit = explicit or os.environ.get(ENV_WORKDIR)
    if explicit:
        places = [explicit]
    elif candidates is not None:
        places = list(candidates)
    else:
        places = [tempfile.gettempdir()] + (list(SYSTEM_TEMP) if user is not None else [])
    checked, seen = [], set()
    for place in places:
        if os.path.realpath(place) in seen:
            continue
        seen.add(os.path.realpath(place))
        problem = _workdir_problem(place, user)
        if problem is None:
            workdir = tempfile.mkdtemp(prefix=WORKDIR_PREFIX, dir=place)
            if user is not None:
                os.chmod(workdir, 0o755)
                os.chown(workdir, *user)
            return workdir
        checked.append("%s: %s" % (place, problem))
    who = ("user %s (PostgreSQL refuses root)" % RUN_AS_WHEN_ROOT) if user is not None else "this user"
    raise PostgresUnavailable(
        "no work folder for the real computes' data that %s can reach: %s. Set --postgres-workdir DIR or $%s "
        "(or TMPDIR) to a folder with a short path that others may pass, as every folder above it (chmod o+x)"
        % (who, "; ".join(checked), ENV_WORKDIR))


def _origin_folders(program):
    """The folders an ELF program's run path (RPATH, RUNPATH) names relative to it (``$ORIGIN/...``), resolved;
    none for another kind of file."""
    try:
        with open(program, "rb") as handle:
            data = handle.read()
        if data[:4] != b"\x7fELF":
            return []
        wide, order = data[4] == 2, "<" if data[5] == 1 else ">"
        if wide:
            (table,), (size, count) = struct.unpack_from(order + "Q", data, 0x28), \
                struct.unpack_from(order + "HH", data, 0x3A)
            section, entry = order + "IIQQQQIIQQ", order + "qQ"
        else:
            (table,), (size, count) = struct.unpack_from(order + "I", data, 0x20), \
                struct.unpack_from(order + "HH", data, 0x2E)
            section, entry = order + "IIIIIIIIII", order + "iI"
        sections = [struct.unpack_from(section, data, table + index * size) for index in range(count)]
        paths = []
        for _name, kind, _flags, _address, offset, length, link, _info, _align, _size in sections:
            if kind != 6:  # SHT_DYNAMIC
                continue
            strings = sections[link][4]
            for at in range(offset, offset + length, struct.calcsize(entry)):
                tag, value = struct.unpack_from(entry, data, at)
                if tag in (15, 29):  # DT_RPATH, DT_RUNPATH
                    text = data[strings + value:data.index(b"\0", strings + value)].decode("utf-8", "replace")
                    paths += text.split(":")
    except (OSError, struct.error, IndexError, ValueError):
        return []
    origin = os.path.dirname(os.path.realpath(program))
    return [os.path.normpath(path.replace("${ORIGIN}", origin).replace("$ORIGIN", origin))
            for path in paths if path.startswith(("$ORIGIN", "${ORIGIN}"))]


def _readable_by_all(tree):
    """``chmod -R a+rX tree``: every file readable, every folder and program searchable or runnable by others."""
    for folder, folders, files in os.walk(tree):
        for path in [folder] + [os.path.join(folder, name) for name in files]:
            if os.path.islink(path):
                continue
            mode = os.stat(path).st_mode
            executable = stat.S_ISDIR(mode) or mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
            os.chmod(path, stat.S_IMODE(mode) | stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH | (
                stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH if executable else 0))


class Programs:
    """Runs the server programs of ``folder``: as ``user`` (:func:`run_as`), copied into ``workdir`` (the
    simulator's folder for data directories, see :func:`make_workdir`) when that user cannot run them there."""

    def __init__(self, folder, workdir, user=None):
        self.workdir = workdir
        self.user = user
        self.folder = folder
        why = self._cannot_run(folder) if user is not None else None
        if why is not None:
            self.folder = self._copied(folder, why)

    def _cannot_run(self, folder):
        """Why the user cannot run every program of ``folder`` with its lib and share, or None."""
        tree = os.path.dirname(os.path.abspath(folder))
        for needed in [folder] + [os.path.join(tree, name) for name in ("lib", "share")
                                  if os.path.isdir(os.path.join(tree, name))]:
            blocked = blocked_at(needed, self.user)
            if blocked is not None:
                return "%s %s" % blocked
        for name in PROGRAMS:
            problem = self._fails(os.path.join(folder, name))
            if problem is not None:
                return problem
        return None

    def path(self, name):
        return os.path.join(self.folder, name)

    def _as_user(self):
        if self.user is None:
            return {}
        return {"user": self.user[0], "group": self.user[1], "extra_groups": []}

    def _fails(self, program):
        """Why ``program --version``, run as the user, fails (it cannot be reached, or a library of it), or None."""
        try:
            done = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=30, check=False,
                                  **self._as_user())
        except (OSError, subprocess.SubprocessError) as error:
            return "%s: %s" % (program, error)
        return None if done.returncode == 0 else "%s: %s" % (program, (done.stderr or done.stdout).strip())

    def _copied(self, original, why):
        """The install tree of ``original`` (its bin, lib and share), and the library folders its programs' run
        path names relative to them, copied into the work folder as they lie to each other: the programs there
        (``why``: why the user cannot run the original)."""
        folder = os.path.realpath(original)
        tree = os.path.dirname(folder)
        libraries = {path for name in PROGRAMS for path in _origin_folders(os.path.join(folder, name))
                     if os.path.isdir(path) and os.path.commonpath([path, tree]) not in (path, tree)}
        # each folder once: not one inside another (nor the tree, nor one holding it: they stay where they are)
        trees = [tree] + [path for path in sorted(libraries)
                          if not any(os.path.commonpath([path, other]) == other for other in libraries - {path})]
        base = os.path.commonpath(trees)
        target = os.path.join(self.workdir, "pginstall")
        for source in trees:
            shutil.copytree(source, os.path.join(target, os.path.relpath(source, base)), symlinks=True)  # keeps modes
        _readable_by_all(target)  # a tree installed under umask 077 has 0700 programs: the copy is for the user
        copied = os.path.join(target, os.path.relpath(folder, base))
        problem = self._cannot_run(copied)
        if problem is not None:
            raise PostgresUnavailable(
                "user %s (PostgreSQL refuses root) cannot run the PostgreSQL programs of %s (%s), nor their copy "
                "in %s (%s). Give programs it can run with --postgres-bin or $%s (e.g. /usr/lib/postgresql/N/bin "
                "of the system's package), or run the simulator as another user than root"
                % (RUN_AS_WHEN_ROOT, original, why, copied, problem, ENV_BIN))
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
