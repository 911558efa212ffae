# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One branch's data as a real PostgreSQL data directory, and its server while a compute of the branch runs.

A cluster lives in a folder of its own: ``data/`` (the data directory), the server's Unix socket and its log.
Its server listens on 127.0.0.1 only, on the port of the compute that runs it. Logins over TCP need a
password (SCRAM); the simulator's own superuser, ``cloud_admin`` as on Neon's computes, connects only through
the socket, without one. ``managed`` records what the API made in it (roles with their passwords, databases by
the API's id with their names and owners), so that the simulator changes only those (real_computes.py).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time

ADMIN = "cloud_admin"
# what Neon gives the roles made through its API (their CREATE ROLE ... IN ROLE neon_superuser): its attributes,
# and reading and writing every table (PostgreSQL 14's predefined roles)
SUPERUSER_ROLE = "neon_superuser"
SUPERUSER_SQL = ("CREATE ROLE neon_superuser CREATEDB CREATEROLE NOLOGIN REPLICATION BYPASSRLS "
                 "IN ROLE pg_read_all_data, pg_write_all_data")
# the simulator's own sessions: never wait long on a lock a client holds (the simulator waits with its lock held),
# and never write a failing statement (a password in it) to the server's log; a backslash in a string is text
# (meta_command_risk)
ADMIN_OPTIONS = ("-c lock_timeout=5s -c statement_timeout=30s -c log_min_error_statement=panic "
                 "-c standard_conforming_strings=on")
# pg_dump 17.6, 16.10, 15.14 and later print these lines, with a random key, around a dump
RESTRICT_LINE = re.compile(r"^\\(un)?restrict .*\n?", re.MULTILINE)
START_TIMEOUT = 60.0
STOP_TIMEOUT = 30.0
# small servers: 20 of them fit a 2-core machine (benchmarks/simulator.py measures them)
SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "max_connections": "25",
    "shared_buffers": "16MB",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "autovacuum": "off",
    "wal_level": "replica",
    "max_wal_senders": "4",
    "min_wal_size": "32MB",
    "max_wal_size": "96MB",
    "logging_collector": "off",
    "password_encryption": "'scram-sha-256'",
}
HBA = """# neon-simulator: cloud_admin only through the socket; everyone else over TCP with a password
local   all          cloud_admin                 trust
local   replication  cloud_admin                 trust
host    all          cloud_admin  0.0.0.0/0      reject
host    all          cloud_admin  ::/0           reject
host    all          all          127.0.0.1/32   scram-sha-256
host    all          all          ::1/128        scram-sha-256
"""


def free_port():
    """A TCP port of 127.0.0.1 free now (the compute keeps it from then on)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


SQL_PARTS = re.compile(r"""'(?:[^']|'')*'|"(?:[^"]|"")*"|[^'"]+|['"]""")
WORD_END = re.compile(r"[A-Za-z0-9_&$\x80-\U0010ffff]$")


def meta_command_risk(statement):
    """Why psql could read part of ``statement`` as a command of its own, or None. psql reads a backslash outside a
    quoted text as the start of one (``\\!`` runs a shell command), wherever it is on a line, and given SQL on its
    standard input it cannot be told not to. A backslash is let through only inside a plain string literal
    (``'...'``, as ``literal`` writes it; standard_conforming_strings is on in the simulator's sessions, so psql and
    the server read it as text there): anywhere else (a quoted name, ``E'...'``, outside quotes) it is refused, as
    is any backslash in a statement with a comment, a dollar quote or an unclosed quote, whose reading is not
    certain here."""
    if "\\" not in statement:
        return None
    outside = []
    for match in SQL_PARTS.finditer(statement):
        part = match.group()
        if len(part) > 1 and part[0] == "'":
            if "\\" in part and WORD_END.search(statement[:match.start()]):
                return "a backslash in a string with a prefix (E'...')"
            continue
        outside.append(part)
    rest = " ".join(outside)
    if "\\" in rest:
        return "a backslash outside a string literal (in a name, or where psql reads it as its command)"
    for sign, what in (("--", "a comment"), ("/*", "a comment"), ("$", "a dollar sign"), ("'", "an unclosed quote"),
                       ('"', "an unclosed quote")):
        if sign in rest and (sign not in "'\"" or any(part == sign for part in outside)):
            return "a backslash in a statement with %s" % what
    return None


def identifier(name):
    """``name`` quoted as an SQL identifier."""
    return '"%s"' % name.replace('"', '""')


def literal(text):
    """``text`` quoted as an SQL string (standard_conforming_strings is on)."""
    return "'%s'" % text.replace("'", "''")


class Cluster:
    """A data directory in ``folder`` (see the module's text); ``programs`` runs the server programs."""

    def __init__(self, programs, folder, managed=None):
        self.programs = programs
        self.folder = folder
        self.data = os.path.join(folder, "data")
        self.log = os.path.join(folder, "postgres.log")
        self.process = None
        self.port = None
        self.settings = {}  # the compute's pg_settings it runs with
        self.managed = managed if managed is not None else {"roles": {}, "databases": {}}

    # ------------------------------------------------------------------ making one
    @classmethod
    def initialized(cls, programs, folder):
        """A new cluster: initdb, the settings above, and the ``neon_superuser`` role; stopped."""
        programs.make_folder(folder)
        cluster = cls(programs, folder)
        try:
            programs.run("initdb", "-D", cluster.data, "-U", ADMIN, "--auth-local=trust",
                         "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync")
            # the files initdb made keep their owner when written again
            with open(os.path.join(cluster.data, "pg_hba.conf"), "w", encoding="utf-8") as hba:
                hba.write(HBA)
            with open(os.path.join(cluster.data, "postgresql.conf"), "a", encoding="utf-8") as conf:
                conf.write("\n# neon-simulator\n" + "".join("%s = %s\n" % item for item in SETTINGS.items()))
            cluster.start(free_port())
            try:
                cluster.sql(SUPERUSER_SQL)
            finally:
                cluster.stop()
        except BaseException:
            cluster.remove()  # a next attempt starts afresh
            raise
        return cluster

    def copy_to(self, folder):
        """A new cluster in ``folder`` with this one's data as of now, stopped: a base backup of the running
        server (consistent while it is written), else a copy of the stopped data directory."""
        self.programs.make_folder(folder)
        managed = {"roles": dict(self.managed["roles"]), "databases": dict(self.managed["databases"])}
        target = Cluster(self.programs, folder, managed)
        if self.running:
            self.programs.run("pg_basebackup", "-D", target.data, "-h", self.folder, "-p", self.port, "-U", ADMIN,
                              "-X", "stream", "-c", "fast", "--no-sync")
        else:
            self.programs.copy_folder(self.data, target.data)
        return target

    def remove(self):
        """Stop the server and delete the data."""
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    # ------------------------------------------------------------------ its server
    @property
    def running(self):
        return self.process is not None and self.process.poll() is None

    def start(self, port, settings=None):
        """Start the server on 127.0.0.1:``port`` with the compute's ``pg_settings``; returns once it accepts
        connections."""
        if self.running:
            return
        self.port = port
        self.settings = dict(settings or {})
        options = [arg for name, value in sorted(self.settings.items()) for arg in ("-c", "%s=%s" % (name, value))]
        self.process = self.programs.start("postgres", "-D", self.data, "-p", port, "-k", self.folder, *options,
                                           log_path=self.log)
        deadline = time.monotonic() + START_TIMEOUT
        while not self._ready():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the PostgreSQL server of %s did not start: %s" % (self.folder, self.log_tail()))
            time.sleep(0.02)

    def _ready(self):
        """PostgreSQL writes ``ready`` on the eighth line of postmaster.pid once it accepts connections."""
        try:
            with open(os.path.join(self.data, "postmaster.pid"), encoding="utf-8") as pid_file:
                lines = pid_file.read().splitlines()
        except OSError:
            return False
        return len(lines) >= 8 and lines[7].strip() == "ready"

    def stop(self):
        """Stop the server (a fast shutdown: sessions are ended); nothing when it does not run."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGINT)
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_TIMEOUT)

    def log_tail(self, lines=5):
        try:
            with open(self.log, encoding="utf-8", errors="replace") as log:
                return " | ".join(log.read().splitlines()[-lines:])
        except OSError:
            return "(no log)"

    # ------------------------------------------------------------------ SQL
    def sql(self, statement, database="postgres"):
        """Run one statement as ``cloud_admin`` (given on psql's standard input: a password in it is not on a
        command line); the rows printed, unaligned. A statement psql could read part of as a command of its own
        (see ``meta_command_risk``) is refused (ValueError) before psql runs."""
        risk = meta_command_risk(statement)
        if risk:
            raise ValueError("the local Neon does not send this SQL to psql: %s" % risk)
        return self.programs.run("psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", self.folder,
                                 "-p", self.port, "-U", ADMIN, "-d", database, timeout=60, stdin=statement + "\n",
                                 env={"PGOPTIONS": ADMIN_OPTIONS})

    def schema(self, database):
        """The database's schema as ``pg_dump --schema-only`` prints it (without the lines newer versions put
        around it with a random key)."""
        return RESTRICT_LINE.sub("", self.programs.run(
            "pg_dump", "--schema-only", "--no-owner", "--no-privileges", "-h", self.folder, "-p", self.port,
            "-U", ADMIN, "-d", database, timeout=60, env={"PGOPTIONS": ADMIN_OPTIONS}))
