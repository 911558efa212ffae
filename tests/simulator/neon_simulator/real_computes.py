# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Computes that are real PostgreSQL servers (``--postgres``): the simulator's branches, computes, roles and
databases mirrored into data directories and servers on 127.0.0.1 (tests/simulator/README.md).

- Every branch has its own data (pg_cluster.py): a branch made through the API gets it then (``fork``: a copy
  of its parent's data as they are at that moment); a seeded branch when it is first needed, a root one as a
  fresh cluster, its children (still unchanged, as their parent is) as copies of it at the same moment.
- Every running read-write compute is its branch's server, on the port the compute got when it was made and
  with its ``pg_settings``; the API's host and connection strings name ``127.0.0.1`` and that port.
- After every request (app.py) :meth:`RealComputes.reconcile` makes the servers match the state as the API
  answers it: a compute ``active`` (or being started) runs, ``idle`` (suspended, or by its suspend timeout)
  does not; a deleted branch's data and a deleted snapshot's are removed; the roles and databases the API
  made, renamed or deleted are made, renamed or deleted in the branch's server by SQL (a role's password is
  the API's, once the operation that changed it has ended).
- Scale to zero as on Neon (pg_wake.py): a compute with a client session open does not suspend itself by its
  timeout, and a connection to a suspended compute wakes it (a ``start_compute`` operation, the server
  started, that connection relayed to it).
- What cannot be done honestly from copies of data answers ``501 NOT_SIMULATED`` before anything changes
  (:meth:`RealComputes.refuse`): a branch, restore, snapshot or schema at a point in the past, a schema-only
  branch, a read-only compute, the schema in JSON.
- What the simulator could not apply (a server that would not start, a statement refused) is kept in
  ``errors`` (the control API's ``GET /_simulator/postgres``) and not tried again at every request.

The areas call the data events (``fork``, ``keep``, ``take_snapshot``, ``from_snapshot``, ``restart``) with the
state's lock held, at the moment of the change they copy. The lock order is the state's lock, then this one's. The
``state`` the methods below take is the simulator's shared data (shared.Shared), what the areas share.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
import time

from .errors import NotSimulated
from .pg_binaries import RUN_AS_WHEN_ROOT, ENV_WORKDIR, PostgresUnavailable, Programs, find_bin, make_workdir, run_as
from .pg_cluster import SUPERUSER_ROLE, Cluster, free_port, identifier, literal
from .pg_wake import Waker, has_sessions

_LOG = logging.getLogger("neon_simulator.postgres")
MESSAGE_NOT_SIMULATED = ("%s is not simulated with real Postgres computes: the simulator keeps each branch's data "
                         "as of now, not its history (start it without --postgres to simulate it)")
ERRORS_KEPT = 50
# A database's rename, when a new session came between the end of its sessions and the rename: tried this often.
RENAME_ATTEMPTS = 5
RENAME_PAUSE = 0.2


def _pg_settings(endpoint):
    settings = (endpoint.settings or {}).get("pg_settings") or {}
    return {str(name): str(value) for name, value in settings.items()}


def _remapped(managed, branch):
    """What the API made in a copy's data, under the ids of ``branch``'s catalog (a copy's databases have ids of
    their own): a database is the same when its name is; one the catalog lacks stays recorded, to be dropped."""
    by_name = dict(managed["databases"].values())  # name -> owner
    databases = {}
    for database in branch.databases.values():
        if database.name in by_name:
            databases[database.id] = (database.name, by_name.pop(database.name))
    for name, owner in by_name.items():
        databases[("not in the catalog", name)] = (name, owner)
    return {"roles": dict(managed["roles"]), "databases": databases}


# format=json of a real compute's schema: one line of JSON, the base tables' columns as information_schema has them
SCHEMA_JSON_QUERY = (
    "SELECT coalesce(json_agg(json_build_object('schema', t.table_schema, 'name', t.table_name, 'columns', t.columns) "
    "ORDER BY t.table_schema, t.table_name), '[]') FROM (SELECT c.table_schema, c.table_name, "
    "json_agg(json_build_object('name', c.column_name, 'type', c.data_type) ORDER BY c.ordinal_position) AS columns "
    "FROM information_schema.columns c JOIN information_schema.tables b ON b.table_schema = c.table_schema "
    "AND b.table_name = c.table_name AND b.table_type = 'BASE TABLE' "
    "WHERE c.table_schema NOT IN ('pg_catalog', 'information_schema') AND left(c.table_schema, 3) <> 'pg_' "
    "GROUP BY c.table_schema, c.table_name) t")


class RealComputes:
    """The real side of the simulator's branches and computes (see the module's text).

    ``bin_folder``: the PostgreSQL programs (pg_binaries.find_bin when None); ``workdir``: where their data go
    (pg_binaries.make_workdir: a new folder in it; by default in the temporary folder, or a system one the user
    the programs run as can reach). A first cluster is made and started at once: what keeps the programs from
    running there raises :class:`~.pg_binaries.PostgresUnavailable` now, not at a later request unseen.
    """

    def __init__(self, bin_folder=None, workdir=None):
        folder = find_bin(bin_folder)
        user = run_as()
        self.workdir = make_workdir(user, workdir)
        try:
            self.programs = Programs(folder, self.workdir, user)
            self._template = self._first_cluster(user)
        except BaseException:
            shutil.rmtree(self.workdir, ignore_errors=True)
            raise
        self.lock = threading.RLock()
        self.closed = False
        self._made = 0
        self.ports = set()   # every port given to a compute (never given twice)
        self.branches = {}   # (project id, branch id) -> Cluster
        self.snapshots = {}  # (project id, snapshot id) -> Cluster, never started
        self.computes = {}   # (project id, endpoint id) -> the Cluster its server runs
        self.errors = []     # what could not be applied (the control API's /postgres shows the newest)
        self._state = None   # the simulator's shared data (shared.Shared), once it reconciled (what a wake starts the compute in)
        self.waker = Waker(self._wake)

    def _first_cluster(self, user):
        """The cluster every root branch starts from, made now: initdb, a start and a stop, as the servers run."""
        try:
            return Cluster.initialized(self.programs, os.path.join(self.workdir, "template"))
        except (RuntimeError, OSError) as error:
            raise PostgresUnavailable(
                "the PostgreSQL programs of %s%s cannot make and start a cluster in %s: %s. Give other programs with "
                "--postgres-bin, or another work folder with --postgres-workdir or $%s"
                % (self.programs.folder, " run as %s" % RUN_AS_WHEN_ROOT if user is not None else "", self.workdir,
                   error, ENV_WORKDIR)) from None

    @property
    def bin_folder(self):
        return self.programs.folder

    # ------------------------------------------------------------------ refusals (before any change)
    @staticmethod
    def refuse(what):
        raise NotSimulated(MESSAGE_NOT_SIMULATED % what)

    # ------------------------------------------------------------------ computes get an address
    def place(self, endpoint):
        """A new compute's port, its own for good (its server, or the listener that wakes it, listens there)."""
        with self.lock:
            port = free_port()
            while port in self.ports:
                port = free_port()
            self.ports.add(port)
            endpoint.port = port

    # ------------------------------------------------------------------ data
    def _folder(self, kind):
        self._made += 1  # short names: a Unix socket path is at most 107 bytes
        return os.path.join(self.workdir, "%s%d" % (kind, self._made))

    def _copy(self, source, branch):
        cluster = source.copy_to(self._folder("b"))
        cluster.managed = _remapped(source.managed, branch)
        return cluster

    def data_of(self, project_id, branch, branches):
        """``branch``'s cluster, made now if it has none yet (see the module's text)."""
        key = (project_id, branch.id)
        if key not in self.branches:
            parent = branches.get(branch.parent_id) if branch.parent_id and branch.init_source == "parent-data" \
                else None
            if parent is not None:
                self.data_of(project_id, parent, branches)  # which makes this branch's too
            if key not in self.branches:
                self._make(project_id, branch, parent, branches)
        return self.branches[key]

    def _make(self, project_id, branch, parent, branches):
        if parent is not None:
            cluster = self._copy(self.branches[(project_id, parent.id)], branch)
        else:
            cluster = self._template.copy_to(self._folder("b"))
        self.branches[(project_id, branch.id)] = cluster
        # its children that have no data yet were made while it was as it is now: they start from it, now
        for child in branches.values():
            if child.parent_id == branch.id and child.init_source == "parent-data" \
                    and (project_id, child.id) not in self.branches:
                self._make(project_id, child, branch, branches)

    def fork(self, project_id, source, branch, branches):
        """``branch`` gets a copy of ``source``'s data as of now (its old data, if any, is removed)."""
        with self.lock:
            copied = self._copy(self.data_of(project_id, source, branches), branch)
            self._retire(self.branches.pop((project_id, branch.id), None))
            self.branches[(project_id, branch.id)] = copied

    def keep(self, project_id, branch, kept, branches):
        """``kept`` takes ``branch``'s data as it is (a restore's preserved branch, its catalog a copy of the
        branch's: its databases' ids are its own); ``branch`` has none after."""
        with self.lock:
            cluster = self.data_of(project_id, branch, branches)
            self._stop_computes_of(cluster)
            cluster.managed = _remapped(cluster.managed, kept)
            self.branches[(project_id, kept.id)] = self.branches.pop((project_id, branch.id))

    def take_snapshot(self, project_id, branch, snapshot_id, branches):
        with self.lock:
            self.snapshots[(project_id, snapshot_id)] = self.data_of(project_id, branch, branches).copy_to(
                self._folder("s"))

    def from_snapshot(self, project_id, snapshot_id, branch):
        """``branch`` (new) gets the snapshot's data; NotSimulated for a snapshot taken without it."""
        with self.lock:
            snapshot = self.snapshots.get((project_id, snapshot_id))
            if snapshot is None:
                self.refuse("restoring snapshot %s, taken before the simulator had its data," % snapshot_id)
            self.branches[(project_id, branch.id)] = self._copy(snapshot, branch)

    def restart(self, project_id, endpoint_id):
        """A restart of a running compute: its server stops now, and the next reconcile starts it again."""
        with self.lock:
            cluster = self.computes.pop((project_id, endpoint_id), None)
            if cluster is not None:
                cluster.stop()

    def schema_sql(self, project_id, branch, database, branches, now_us):
        """``pg_dump --schema-only`` of ``database`` of the branch as of now (its server started for it, with its
        catalog made so, and stopped after, when no compute runs it)."""
        with self.lock:
            cluster = self.data_of(project_id, branch, branches)
            started = not cluster.running
            if started:
                cluster.start(free_port())
            try:
                self._sync(cluster, branch, now_us)
                return cluster.schema(database)
            finally:
                if started:
                    cluster.stop()

    def schema_json(self, project_id, branch, database, branches, now_us):
        """The tables of ``database`` of the branch as of now, with their columns in order, in the stand-in's json
        shape (history.schema_of: ``{"tables": [{schema, name, columns: [{name, type}]}]}``): what ``format=json``
        answers. PostgreSQL's own schemas are left out."""
        rows = self.run_sql(project_id, branch, database, SCHEMA_JSON_QUERY, branches, now_us).strip()
        return {"tables": json.loads(rows or "[]")}

    def run_sql(self, project_id, branch, database, statement, branches, now_us):
        """``statement`` run in ``database`` of the branch as of now (its server started for it, with its catalog
        made so, and stopped after, when no compute runs it): what Neon Auth makes in a branch's database."""
        with self.lock:
            cluster = self.data_of(project_id, branch, branches)
            started = not cluster.running
            if started:
                cluster.start(free_port())
            try:
                self._sync(cluster, branch, now_us)
                return cluster.sql(statement, database)
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

    # ------------------------------------------------------------------ scale to zero
    def keep_busy_active(self, state):
        """A running compute with a client session is active now: its suspend timeout counts from its last
        session, as on Neon (called before and after every request)."""
        with state.lock, self.lock:
            if self.closed:
                return
            now_us = state.now_us()
            for (project_id, endpoint_id), cluster in self.computes.items():
                project = state.projects.get(project_id)
                endpoint = project.resources.endpoints.get(endpoint_id) if project and project.resources else None
                if endpoint is None or cluster.process is None:
                    continue
                endpoint.state.settle(now_us)  # an ended start is taken in first
                if endpoint.state.op is None and endpoint.state.value == "active" and has_sessions(cluster.process.pid):
                    endpoint.state.since_us = max(endpoint.state.since_us, now_us)

    def _wake(self, key):
        """A connection came to the suspended compute ``key``: started as Neon's proxy starts it (a
        ``start_compute`` operation); its server's port, or None (gone, disabled, or the simulator stopped:
        the connection is closed)."""
        state = self._state
        if state is None:
            return None
        with state.lock, self.lock:
            if self.closed:
                return None
            project = state.projects.get(key[0])
            endpoint = project.resources.endpoints.get(key[1]) if project and project.resources else None
            if endpoint is None or endpoint.disabled:
                return None
            now_us = state.now_us()
            if not self._wanted(state, project, endpoint, now_us):
                ops = state.start(project, [("start_compute", endpoint.branch_id, endpoint.id)])
                endpoint.state.start("active", ops[0], fallback="idle")
                endpoint.started_us = now_us
            self.waker.close(key)
            if key not in self.computes:
                self._start(project, endpoint, now_us)
            cluster = self.computes.get(key)
            return cluster.port if cluster is not None else None

    @staticmethod
    def _wanted(state, project, endpoint, now_us):
        """A read-write compute active, or being started, runs."""
        return endpoint.type == "read_write" and (state.compute_state(project, endpoint, now_us) == "active"
                                                  or endpoint.state.pending(now_us) == "active")

    # ------------------------------------------------------------------ after every request
    def reconcile(self, state):
        """Servers, data and catalogs made to match ``state`` as the API answers it now (see the module's text).
        Never raises: what fails is kept in ``errors``."""
        self._state = state
        with state.lock, self.lock:
            if self.closed:
                return
            try:
                self.keep_busy_active(state)
                self._reconcile(state, state.now_us())
            except Exception as error:  # pylint: disable=broad-except
                _LOG.exception("real computes")
                self._note("reconciling: %s: %s" % (type(error).__name__, error))

    def _reconcile(self, state, now_us):
        live, snapshots, wanted, asleep = set(), set(), {}, {}
        for project in state.projects.values():
            book = state.snapshot_books.get(project.id)
            snapshots.update((project.id, snapshot.id) for snapshot in (book.live(now_us) if book else ()))
            if project.resources is None:  # never looked at: its seeded computes are suspended
                continue
            live.update((project.id, branch_id) for branch_id in project.resources.branches)
            for endpoint in project.resources.endpoints.values():
                if self._wanted(state, project, endpoint, now_us):
                    wanted[(project.id, endpoint.id)] = (project, endpoint)
                elif endpoint.type == "read_write" and endpoint.port is not None:
                    asleep[(project.id, endpoint.id)] = endpoint.port
        for key, cluster in list(self.computes.items()):
            item = wanted.get(key)
            if item is None or self.branches.get((key[0], item[1].branch_id)) is not cluster \
                    or not cluster.running or cluster.settings != _pg_settings(item[1]):
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
            if not self.waker.listen(key, port):
                self._note("compute %s: port %d is taken by another program: a connection cannot wake it" % (
                    key[1], port), once=True)
        for key, (project, endpoint) in wanted.items():
            if key not in self.computes:
                self._start(project, endpoint, now_us)
        for (project_id, endpoint_id), cluster in self.computes.items():
            resources = state.projects[project_id].resources
            self._sync(cluster, resources.branches[resources.endpoints[endpoint_id].branch_id], now_us)

    def _start(self, project, endpoint, now_us):
        """The compute's server started on its port, with its branch's catalog made so; a failure is noted (once
        for the same failure: a compute that cannot start is not tried again at every request)."""
        if endpoint.port is None:  # made before the computes were real
            self.place(endpoint)
        branches = project.resources.branches
        cluster = self.data_of(project.id, branches[endpoint.branch_id], branches)
        try:
            cluster.start(endpoint.port, _pg_settings(endpoint))
        except RuntimeError as error:
            self._note("compute %s: %s" % (endpoint.id, error), once=True)
            return
        self.computes[(project.id, endpoint.id)] = cluster
        self._sync(cluster, branches[endpoint.branch_id], now_us)

    def _note(self, message, once=False):
        if once and message in self.errors:
            return
        _LOG.warning("%s", message)
        self.errors = (self.errors + [message])[-ERRORS_KEPT:]

    # ------------------------------------------------------------------ roles and databases
    def _sync(self, cluster, branch, now_us):
        """The branch's roles and databases made so in its running server; only what the API made is changed.
        Each statement runs on its own: one refused (kept in ``errors``) does not keep the others from running,
        and is not tried again."""
        roles = {name: role.password.settle(now_us) for name, role in branch.roles.items()}
        databases = {database.id: (database.name, database.owner_name) for database in branch.databases.values()}
        managed = cluster.managed
        if managed["roles"] == roles and managed["databases"] == databases:
            return
        steps = self._statements(cluster, managed, roles, databases)
        for index, (statement, database) in enumerate(steps):
            for attempt in range(RENAME_ATTEMPTS):
                try:
                    cluster.sql(statement, database=database)
                    break
                except (RuntimeError, ValueError) as error:
                    # a session (an autovacuum worker, say) that came between the sessions' end and the rename:
                    # end them again and rename again, a few times
                    if ("being accessed by other users" in str(error) and attempt + 1 < RENAME_ATTEMPTS and index
                            and steps[index - 1][0].startswith("SELECT count(pg_terminate_backend")):
                        cluster.sql(steps[index - 1][0], database=steps[index - 1][1])
                        time.sleep(RENAME_PAUSE)
                        continue
                    self._note("branch %s: %s" % (branch.id, error))
                    break
        cluster.managed = {"roles": roles, "databases": databases}

    @staticmethod
    def _statements(cluster, managed, roles, databases):
        """(statement, database) pairs that turn what ``managed`` says the server has into ``roles`` and
        ``databases`` (by the API's database ids: a renamed one is renamed, a recreated one is new)."""
        gone_roles = [name for name in managed["roles"] if name not in roles]
        steps = []
        for name, password in roles.items():
            if name not in managed["roles"]:
                steps.append(("CREATE ROLE %s WITH LOGIN CREATEDB CREATEROLE PASSWORD %s IN ROLE %s" % (
                    identifier(name), literal(password), SUPERUSER_ROLE), "postgres"))
            elif managed["roles"][name] != password:
                steps.append(("ALTER ROLE %s WITH PASSWORD %s" % (identifier(name), literal(password)), "postgres"))
        terminate = "SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity WHERE datname = %s"
        for key, (name, _owner) in managed["databases"].items():
            if key not in databases:
                steps.append(("DROP DATABASE IF EXISTS %s WITH (FORCE)" % identifier(name), "postgres"))
        for key, (name, owner) in databases.items():
            if key not in managed["databases"]:
                steps.append(("CREATE DATABASE %s OWNER %s" % (identifier(name), identifier(owner)), "postgres"))
                continue
            old_name, old_owner = managed["databases"][key]
            if old_name != name:  # the rename needs the database without sessions
                steps += [(terminate % literal(old_name), "postgres"),
                          ("ALTER DATABASE %s RENAME TO %s" % (identifier(old_name), identifier(name)), "postgres")]
            if old_owner != owner:
                steps.append(("ALTER DATABASE %s OWNER TO %s" % (identifier(name), identifier(owner)), "postgres"))
        if gone_roles:
            # as Neon's compute does: what the role owns in every database goes to that database's owner, then the
            # role goes (a database made by SQL too)
            listed = cluster.sql("SELECT datname, pg_get_userbyid(datdba) FROM pg_database WHERE datallowconn")
            in_server = [line.split("|", 1) for line in listed.splitlines() if "|" in line]
            for name in gone_roles:
                for database, owner in in_server:
                    owner = "cloud_admin" if owner == name else owner
                    steps += [("REASSIGN OWNED BY %s TO %s" % (identifier(name), identifier(owner)), database),
                              ("DROP OWNED BY %s" % identifier(name), database)]
                steps.append(("DROP ROLE IF EXISTS %s" % identifier(name), "postgres"))
        return steps

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
        """Every server stopped, every branch's and snapshot's data removed, the errors forgotten (a reset: the
        seeded projects come back with the same ids, and must not find the data of before)."""
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
            self.errors = []

    def close(self, state=None):
        """Stop every server and remove every data directory, the work folder with them; a wake or a request
        still on its way after this changes nothing."""
        lock = state.lock if state is not None else threading.RLock()
        with lock, self.lock:
            self.closed = True
            self.clear()
            self._template = None
        self.waker.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)
