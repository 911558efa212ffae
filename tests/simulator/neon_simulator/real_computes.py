# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Computes that are real PostgreSQL servers (``--postgres``): the simulator's branches, computes, roles and
databases mirrored into data directories and servers on 127.0.0.1 (tests/simulator/README.md).

- Every branch has its own data (pg_cluster.py), made when it is first needed: a root branch from a fresh
  cluster, a child as a copy of its parent's data at the moment the child is made (``fork``).
- Every running read-write compute is its branch's server, on the port the compute got when it was made;
  the API's host and connection strings name ``127.0.0.1`` and that port.
- After every request (app.py) :meth:`RealComputes.reconcile` makes the servers match the state as the API
  answers it: a compute ``active`` (or being started) runs, ``idle`` (suspended, or by its suspend timeout)
  does not; a deleted branch's data and a deleted snapshot's are removed; the roles and databases the API
  made, renamed or deleted are made, renamed or deleted in the branch's server by SQL (a role's password is
  the API's).
- Scale to zero as on Neon (pg_wake.py): a compute with a client session open does not suspend itself by its
  timeout, and a connection to a suspended compute wakes it (a ``start_compute`` operation, the server
  started, that connection relayed to it).
- What cannot be done honestly from copies of data answers ``501 NOT_SIMULATED`` before anything changes
  (:meth:`RealComputes.refuse`): a branch, restore or snapshot at a point in the past, a schema-only
  branch, a read-only compute, the schema endpoints.

State calls the ``fork``, ``keep``, ``replace``, ``take_snapshot`` and ``from_snapshot`` events with its lock
held, at the moment of the change they copy.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import threading

from .errors import NotSimulated
from .pg_binaries import Programs, find_bin
from .pg_cluster import SUPERUSER_ROLE, Cluster, free_port, identifier, literal
from .pg_wake import Waker, has_sessions

_LOG = logging.getLogger("neon_simulator.postgres")
LOOPBACK = "127.0.0.1"
MESSAGE_NOT_SIMULATED = ("%s is not simulated with real Postgres computes: the simulator keeps each branch's data "
                         "as of now, not its history (start it without --postgres to simulate it)")
ERRORS_KEPT = 50


class RealComputes:
    """The real side of the simulator's branches and computes (see the module's text).

    ``bin_folder``: the PostgreSQL programs (pg_binaries.find_bin when None).
    """

    def __init__(self, bin_folder=None):
        folder = find_bin(bin_folder)
        self.workdir = tempfile.mkdtemp(prefix="neon-sim-pg-")
        self.programs = Programs(folder, self.workdir)
        self.lock = threading.RLock()
        self._template = None
        self._made = 0
        self.branches = {}   # (project id, branch id) -> Cluster
        self.snapshots = {}  # (project id, snapshot id) -> Cluster, never started
        self.computes = {}   # (project id, endpoint id) -> the Cluster its server runs
        self.errors = []     # what could not be applied (the control API's /postgres shows the newest)
        self._state = None   # the simulator's State, once it reconciled (what a wake starts the compute in)
        self.waker = Waker(self._wake)

    @property
    def bin_folder(self):
        return self.programs.folder

    # ------------------------------------------------------------------ refusals (before any change)
    @staticmethod
    def refuse(what):
        raise NotSimulated(MESSAGE_NOT_SIMULATED % what)

    # ------------------------------------------------------------------ computes get an address
    @staticmethod
    def place(endpoint):
        """A new compute's port (its server listens there whenever it runs)."""
        endpoint.port = free_port()

    # ------------------------------------------------------------------ data events (State holds its lock)
    def _folder(self, kind):
        self._made += 1  # short names: a Unix socket path is at most 107 bytes
        return os.path.join(self.workdir, "%s%d" % (kind, self._made))

    def _fresh(self):
        with self.lock:
            if self._template is None:
                self._template = Cluster.initialized(self.programs, os.path.join(self.workdir, "template"))
            return self._template.copy_to(self._folder("b"))

    def data_of(self, project_id, branch, branches):
        """``branch``'s cluster, made now if it has none yet: a copy of its parent's (made first if need be),
        or a fresh one for a root branch."""
        key = (project_id, branch.id)
        cluster = self.branches.get(key)
        if cluster is None:
            parent = branches.get(branch.parent_id) if branch.parent_id else None
            if parent is not None and branch.init_source == "parent-data":
                cluster = self.data_of(project_id, parent, branches).copy_to(self._folder("b"))
            else:
                cluster = self._fresh()
            self.branches[key] = cluster
        return cluster

    def fork(self, project_id, source, branch, branches):
        """``branch`` gets a copy of ``source``'s data as of now (its old data, if any, is removed)."""
        self._retire(self.branches.pop((project_id, branch.id), None))
        self.branches[(project_id, branch.id)] = self.data_of(project_id, source, branches).copy_to(self._folder("b"))

    def keep(self, project_id, branch, kept, branches):
        """``kept`` takes ``branch``'s data as it is (a restore's preserved branch); ``branch`` has none after."""
        cluster = self.data_of(project_id, branch, branches)
        self._stop_computes_of(cluster)
        self.branches[(project_id, kept.id)] = self.branches.pop((project_id, branch.id))

    def take_snapshot(self, project_id, branch, snapshot_id, branches):
        self.snapshots[(project_id, snapshot_id)] = self.data_of(project_id, branch, branches).copy_to(
            self._folder("s"))

    def from_snapshot(self, project_id, snapshot_id, branch):
        """``branch`` (new) gets the snapshot's data; NotSimulated for a snapshot taken without it."""
        snapshot = self.snapshots.get((project_id, snapshot_id))
        if snapshot is None:
            self.refuse("restoring snapshot %s, taken before the simulator had its data," % snapshot_id)
        self.branches[(project_id, branch.id)] = snapshot.copy_to(self._folder("b"))

    def rename_database(self, project_id, branch, old, new, branches):
        """A database renamed through the API keeps its data: renamed in the server at the next reconcile."""
        managed = self.data_of(project_id, branch, branches).managed
        if old in managed["databases"]:
            managed["databases"][new] = managed["databases"].pop(old)
            managed["renames"].append((old, new))

    def schema_sql(self, project_id, branch, database, branches):
        """``pg_dump --schema-only`` of ``database`` of the branch as of now (its server started for it, and
        stopped after, when no compute runs it)."""
        cluster = self.data_of(project_id, branch, branches)
        started = not cluster.running
        if started:
            cluster.start(free_port())
        try:
            return cluster.schema(database)
        finally:
            if started:
                cluster.stop()

    def _stop_computes_of(self, cluster):
        for key, running in list(self.computes.items()):
            if running is cluster:
                cluster.stop()
                del self.computes[key]

    def _retire(self, cluster):
        if cluster is not None:
            self._stop_computes_of(cluster)
            cluster.remove()

    # ------------------------------------------------------------------ after every request
    def keep_busy_active(self, state):
        """A running compute with a client session is active now: its suspend timeout counts from its last
        session, as on Neon (called before and after every request)."""
        with state.lock, self.lock:
            now_us = state.now_us()
            for (project_id, endpoint_id), cluster in self.computes.items():
                project = state.projects.get(project_id)
                endpoint = project.resources.endpoints.get(endpoint_id) if project and project.resources else None
                if endpoint is not None and endpoint.state.op is None and endpoint.state.value == "active" \
                        and cluster.process is not None and has_sessions(cluster.process.pid):
                    endpoint.state.since_us = max(endpoint.state.since_us, now_us)

    def _wake(self, key):
        """A connection came to the suspended compute ``key``: started as Neon's proxy starts it (a
        ``start_compute`` operation); its server's port, or None (gone, or disabled: the connection is refused)."""
        state = self._state
        if state is None:
            return None
        with state.lock, self.lock:
            project = state.projects.get(key[0])
            endpoint = project.resources.endpoints.get(key[1]) if project and project.resources else None
            if endpoint is None or endpoint.disabled:
                return None
            now_us = state.now_us()
            if not self._wanted(state, project, endpoint, now_us):
                ops = state._start(project, [("start_compute", endpoint.branch_id, endpoint.id)])
                endpoint.state.start("active", ops[0], fallback="idle")
                endpoint.started_us = now_us
            self.waker.close(key)
            if key not in self.computes:
                self._start(project, endpoint)
            cluster = self.computes.get(key)
            return cluster.port if cluster is not None else None

    @staticmethod
    def _wanted(state, project, endpoint, now_us):
        """A read-write compute active, or being started, runs."""
        return endpoint.type == "read_write" and (state._compute_state(project, endpoint, now_us) == "active"
                                                  or endpoint.state.pending(now_us) == "active")

    def reconcile(self, state):
        """Servers, data and catalogs made to match ``state`` as the API answers it now (see the module's text)."""
        self._state = state
        self.keep_busy_active(state)
        with state.lock, self.lock:
            now_us = state.now_us()
            live, snapshots, wanted, asleep = set(), set(), {}, {}
            for project in state.projects.values():
                for snapshot in state.snapshot_books[project.id].live(now_us) \
                        if project.id in state.snapshot_books else ():
                    snapshots.add((project.id, snapshot.id))
                if project.resources is None:  # never looked at: its seeded computes are suspended
                    continue
                for branch in project.resources.branches.values():
                    live.add((project.id, branch.id))
                for endpoint in project.resources.endpoints.values():
                    if self._wanted(state, project, endpoint, now_us):
                        wanted[(project.id, endpoint.id)] = (project, endpoint)
                    elif endpoint.type == "read_write" and endpoint.port is not None:
                        asleep[(project.id, endpoint.id)] = endpoint.port
            for key, cluster in list(self.computes.items()):
                item = wanted.get(key)
                if item is None or self.branches.get((key[0], item[1].branch_id)) is not cluster \
                        or not cluster.running:
                    cluster.stop()
                    del self.computes[key]
            for key in [key for key in self.branches if key not in live]:
                self._retire(self.branches.pop(key))
            for key in [key for key in self.snapshots if key not in snapshots]:
                self.snapshots.pop(key).remove()
            for key in self.waker.keys():
                if key not in asleep:
                    self.waker.close(key)
            for key, port in asleep.items():
                self.waker.listen(key, port)
            for key, (project, endpoint) in wanted.items():
                if key not in self.computes:
                    self._start(project, endpoint)
            for (project_id, endpoint_id), cluster in self.computes.items():
                project = state.projects[project_id]
                endpoint = project.resources.endpoints[endpoint_id]
                self._sync(cluster, project.resources.branches[endpoint.branch_id], now_us)

    def _start(self, project, endpoint):
        branches = project.resources.branches
        if endpoint.port is None:  # made before the computes were real
            self.place(endpoint)
        try:
            cluster = self.data_of(project.id, branches[endpoint.branch_id], branches)
            cluster.start(endpoint.port)
        except RuntimeError as error:
            self._note("compute %s: %s" % (endpoint.id, error))
            return
        self.computes[(project.id, endpoint.id)] = cluster

    def _note(self, message):
        _LOG.warning("%s", message)
        self.errors = (self.errors + [message])[-ERRORS_KEPT:]

    def _sync(self, cluster, branch, now_us):
        """The branch's roles and databases made so in its running server (only what the API made is changed)."""
        roles = {name: role.password.settle(now_us) for name, role in branch.roles.items()}
        databases = {name: database.owner_name for name, database in branch.databases.items()}
        managed = cluster.managed
        if managed["roles"] == roles and managed["databases"] == databases and not managed["renames"]:
            return
        try:
            self._apply(cluster, managed, roles, databases)
        except RuntimeError as error:
            self._note("branch %s: %s" % (branch.id, error))
        # what failed is not tried again at every request; the error is kept (control API /postgres)
        cluster.managed = {"roles": roles, "databases": databases, "renames": []}

    @staticmethod
    def _apply(cluster, managed, roles, databases):
        statements = []
        for old, new in managed["renames"]:  # ALTER DATABASE ... RENAME needs the database without sessions
            statements += ["SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = %s"
                           % literal(old), "ALTER DATABASE %s RENAME TO %s" % (identifier(old), identifier(new))]
        for name, password in roles.items():
            if name not in managed["roles"]:
                statements.append("CREATE ROLE %s WITH LOGIN CREATEDB CREATEROLE PASSWORD %s IN ROLE %s" % (
                    identifier(name), literal(password), SUPERUSER_ROLE))
            elif managed["roles"][name] != password:
                statements.append("ALTER ROLE %s WITH PASSWORD %s" % (identifier(name), literal(password)))
        gone = [name for name in managed["databases"] if name not in databases]
        for name in gone:
            statements.append("DROP DATABASE IF EXISTS %s WITH (FORCE)" % identifier(name))
        for name, owner in databases.items():
            if name not in managed["databases"]:
                statements.append("CREATE DATABASE %s OWNER %s" % (identifier(name), identifier(owner)))
            elif managed["databases"][name] != owner:
                statements.append("ALTER DATABASE %s OWNER TO %s" % (identifier(name), identifier(owner)))
        if statements:
            cluster.sql(*statements)
        for name in [name for name in managed["roles"] if name not in roles]:
            # as Neon's compute does: what the role owns goes to each database's owner, then the role goes
            for database, owner in list(databases.items()) + [("postgres", "cloud_admin")]:
                cluster.sql("REASSIGN OWNED BY %s TO %s" % (identifier(name), identifier(owner)),
                            "DROP OWNED BY %s" % identifier(name), database=database)
            cluster.sql("DROP ROLE IF EXISTS %s" % identifier(name))

    # ------------------------------------------------------------------ what the control API shows
    def describe(self, state):
        with state.lock, self.lock:
            return {
                "bin": self.bin_folder,
                "workdir": self.workdir,
                "branches": len(self.branches),
                "snapshots": len(self.snapshots),
                "running": [{"project_id": project_id, "endpoint_id": endpoint_id, "port": cluster.port,
                             "pid": cluster.process.pid if cluster.process else None}
                            for (project_id, endpoint_id), cluster in self.computes.items()],
                "errors": list(self.errors),
            }

    # ------------------------------------------------------------------ the end
    def clear(self):
        """Every server stopped, every branch's and snapshot's data removed (a reset: the seeded projects come
        back with the same ids, and must not find the data of before)."""
        with self.lock:
            for key in self.waker.keys():
                self.waker.close(key)
            for cluster in list(self.computes.values()):
                cluster.stop()
            self.computes.clear()
            for cluster in list(self.branches.values()) + list(self.snapshots.values()):
                cluster.remove()
            self.branches.clear()
            self.snapshots.clear()

    def close(self):
        """Stop every server and remove every data directory, the work folder with them."""
        self.waker.stop()
        self.clear()
        shutil.rmtree(self.workdir, ignore_errors=True)
