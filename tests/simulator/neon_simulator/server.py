# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The threaded HTTP server and the in-process :class:`Simulator` API."""

from __future__ import annotations

import socket
import threading

from werkzeug.serving import WSGIRequestHandler, make_server

from . import ids
from .app import API_PREFIX, CONTROL_PREFIX, DropConnection, SimulatorApp
from .clock import Clock
from .launcher import is_loopback
from .faults import FaultRegistry
from .ratelimit import ORG_KEY_CREATE_RATE, RateLimiter
from .requestlog import RequestLog
from .seed import DEMO_PROJECT_NAME
from .state import State


class _NothingLeft:
    """Stands in for the request stream while Werkzeug drains it after an answer (see below)."""

    @staticmethod
    def read(size=-1):
        del size
        return b""


class RequestHandler(WSGIRequestHandler):
    """Werkzeug's handler, quiet by default, able to drop a connection, with keep-alive.

    Werkzeug 3.x answers every response with ``Connection: close`` and, after each answer,
    reads whatever the socket still holds; on a kept-alive connection that read would swallow
    the client's next request. So for a request without a body from an HTTP/1.1 client that did
    not ask to close (every API request but ``POST /api_keys``), the header is left out and the
    drain reads nothing: the connection serves the next request, as the live service's does.
    A request with a body keeps Werkzeug's behaviour (one answer, then close).
    """

    protocol_version = "HTTP/1.1"
    # Headers and body leave in two writes: without TCP_NODELAY a kept-alive connection waits
    # for the client's delayed ACK (about 40 ms) on every answer.
    disable_nagle_algorithm = True
    log_requests = False
    _keep_alive = False

    def make_environ(self):
        environ = super().make_environ()  # wsgi.input is the real stream
        has_body = self.headers.get("Content-Length", "").strip() not in ("", "0") or \
            "Transfer-Encoding" in self.headers
        self._keep_alive = not self.close_connection and not has_body
        if self._keep_alive:
            self._request_stream = self.rfile
            self.rfile = _NothingLeft()
        return environ

    def run_wsgi(self):
        try:
            super().run_wsgi()
        finally:
            stream = self.__dict__.pop("_request_stream", None)
            if stream is not None:
                self.rfile = stream
            self._keep_alive = False

    def send_header(self, keyword, value):
        if self._keep_alive and keyword.lower() == "connection":
            return  # HTTP/1.1 keeps the connection unless told otherwise
        super().send_header(keyword, value)

    def connection_dropped(self, error, environ=None):
        # Never try to read another request from this connection; for a
        # deliberate drop close it now, so the client reads no byte at all.
        self.close_connection = True
        if isinstance(error, DropConnection):
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def log_request(self, code="-", size="-"):
        if self.log_requests:
            super().log_request(code, size)


class VerboseRequestHandler(RequestHandler):
    log_requests = True


class Simulator:
    """A local Neon API v2 simulator running in a background thread.

    >>> with Simulator(api_key="secret") as sim:
    ...     requests.get(sim.url + "/projects", headers={"Authorization": "Bearer secret"})
    """

    def __init__(self, api_key=None, seed=1, host="127.0.0.1", port=0, rate_limit=None, clock=None,
                 allow_remote=False, log_requests=False, extra_keys=True, org_key_rate_limit=ORG_KEY_CREATE_RATE,
                 operation_pace=1.0, postgres=False, postgres_bin=None, postgres_workdir=None):
        if not allow_remote and not is_loopback(host):
            raise ValueError("refusing to listen on non-loopback host %r (pass allow_remote=True)" % host)
        self.host = host
        self.port = port
        self.api_key = api_key or ids.api_key_secret()
        self.clock = clock or Clock()
        if operation_pace <= 0:
            raise ValueError("operation_pace must be positive")
        # computes that are real PostgreSQL servers (real_computes.py); their data are removed at stop
        self.postgres, self.postgres_bin = bool(postgres or postgres_bin or postgres_workdir), postgres_bin
        self.postgres_workdir = postgres_workdir
        self.state = State(self.api_key, seed, self.clock, extra_keys, operation_pace, self._real_computes())
        self.fault_registry = FaultRegistry()
        self.request_log = RequestLog()
        self.rate_limiter = RateLimiter(rate_limit) if rate_limit else None
        org_key_limiter = RateLimiter(org_key_rate_limit) if org_key_rate_limit else None
        self._stop_event = threading.Event()
        self.app = SimulatorApp(self.state, self.fault_registry, self.request_log, self.rate_limiter,
                                self._stop_event, org_key_limiter)
        self._handler = VerboseRequestHandler if log_requests else RequestHandler
        self._server = None
        self._thread = None

    # ------------------------------------------------------------------ lifecycle
    def _real_computes(self):
        if not self.postgres:
            return None
        # imported only here: the default simulator starts without it
        from .real_computes import RealComputes  # pylint: disable=import-outside-toplevel

        return RealComputes(self.postgres_bin, self.postgres_workdir)

    def start(self):
        """Start serving in a daemon thread; returns the API base URL."""
        if self._server is not None:
            return self.url
        if self.postgres and self.state.real is None:  # started again after a stop: real computes again
            self.state.real = self._real_computes()
        self._stop_event.clear()
        try:
            self._server = make_server(self.host, self.port, self.app, threaded=True,
                                       request_handler=self._handler)
        except SystemExit as exc:  # werkzeug exits when it cannot bind
            raise OSError("cannot listen on %s:%s" % (self.host, self.port)) from exc
        self.port = self._server.port
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="neon-simulator", daemon=True)
        self._thread.start()
        return self.url

    def stop(self):
        """Stop serving; with real computes, stop their servers and remove their data (also when never started)."""
        if self._server is not None:
            self._stop_event.set()
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)
            self._server = None
            self._thread = None
        real, self.state.real = self.state.real, None
        if real is not None:  # a stopped simulator has no real computes (a start makes new ones)
            real.close(self.state.shared)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc_info):
        self.stop()

    # ------------------------------------------------------------------ addresses
    @property
    def base_url(self):
        host = "[%s]" % self.host if ":" in self.host else self.host
        return "http://%s:%d" % (host, self.port)

    @property
    def url(self):
        """``http://127.0.0.1:PORT/api/v2``."""
        return self.base_url + API_PREFIX

    @property
    def control_url(self):
        return self.base_url + CONTROL_PREFIX

    @property
    def headers(self):
        """Request headers that authenticate with the bootstrap key."""
        return {"Authorization": "Bearer " + self.api_key, "Accept": "application/json"}

    @property
    def demo_project_id(self):
        return self.state.demo_project_id

    @property
    def demo_project_name(self):
        return DEMO_PROJECT_NAME

    @property
    def org_id(self):
        """The seeded organization, ``org-calm-tree-21298941`` (its admin: the bootstrap key's user)."""
        return self.state.shared.org_id

    # ------------------------------------------------------------------ control
    def reset(self):
        """Seeded state back (bootstrap key active), no faults, empty request log."""
        self.app.reset()

    def start_operations(self, project_id, operations=None, **spec):
        """Start operations now; see README (same fields as the control API).

        ``sim.start_operations(pid, action="create_branch", duration=0.3, outcome="failed", count=2)``
        or ``sim.start_operations(pid, [{"action": ...}, {...}])``. Returns the operations.
        """
        return self.state.operations.start_operations(project_id, operations if operations is not None else [spec])

    def add_history(self, project_id, count, days=30.0, seed=None):
        """Add ``count`` ended operations over the past ``days`` days (bulk load, e.g. 10,000 for paging)."""
        return self.state.operations.add_history(project_id, count, days, seed)

    def create_project(self, **spec):
        """A project: ``name``, ``region_id``, ``pg_version``, ``id``, ``org_id``, ``owner`` (see README)."""
        return self.state.projects.create_project(spec)

    def create_projects(self, count, **spec):
        """``count`` projects at once: ``name_prefix``, ``org_id``, ``owner``, ``region_id``, ``pg_version``."""
        return self.state.projects.create_projects(dict(spec, count=count))

    def release_operations(self, project_id, operation_id=None, **end):
        """End held operations now: one by id, or every held one of the project.

        ``end`` may hold ``outcome``, ``error``, ``failures_count`` and ``after`` (seconds).
        Returns the released operations.
        """
        return self.state.operations.release_operations(project_id, operation_id, end)

    # ------------------------------------------------------------------ provisioning
    def script_operations(self, action="*", **spec):
        """Script the next operations the API starts: ``action`` (or "*"), ``project_id``, ``count`` and the
        fields of :meth:`start_operations` (``outcome``, ``hold``, ``duration``...). Returns the plan."""
        return self.state.shared.next_operations.add(dict(spec, action=action), self.state.provisioning.check_operation_fields)

    def script_anonymization(self, phase="anonymize", **spec):
        """Script the next anonymized branch initializations (``phase="initialize"``) or masking runs: ``outcome``
        (an end state: ``initialization_error``, ``error``...), ``message``, ``duration``, ``hold``, ``count``,
        ``project_id`` (see README, "Anonymized branches"). Returns the plan."""
        return self.state.anonymized.add_script(dict(spec, phase=phase))

    def release_anonymization(self, project_id, branch_id, **end):
        """End a held initialization or run now: ``outcome``, ``message``, ``after`` (seconds). Returns the status."""
        return self.state.anonymized.release(project_id, branch_id, end)

    def set_limits(self, **limits):
        """Plan limits: ``max_projects``, ``max_branches``, ``max_history_retention_seconds`` (None: no limit),
        ``suspend_timeout_changeable``. Returns them all."""
        return self.state.shared.limits.update(limits)

    def set_store_passwords(self, project_id, value):
        return self.state.projects.set_store_passwords(project_id, value)

    def password_valid(self, project_id, branch_id, role_name, password):
        """Whether ``password`` lets ``role_name`` log in to the branch now (a reset's old one until it ends)."""
        return self.state.catalog.password_valid(project_id, branch_id, role_name, password)

    # ------------------------------------------------------------------ scenes: users, organizations, keys
    def create_user(self, **spec):
        """A user: ``name``, ``email``, ``id``, ``org_id_required`` ("auto", True, False)."""
        return self.state.scene.create_user(spec)

    def update_user(self, user_id="bootstrap", **spec):
        """Change ``org_id_required`` or ``name`` of a user ("bootstrap": the seeded user)."""
        return self.state.scene.update_user(user_id, spec)

    def users(self):
        return self.state.scene.list_users()

    def create_organization(self, **spec):
        """An organization: ``name``, ``id``, ``plan``, ``admins``, ``members``, ``projects`` (see README)."""
        return self.state.scene.create_organization(spec)

    def add_member(self, org_id, user_id, role="member"):
        return self.state.scene.add_member(org_id, {"user_id": user_id, "role": role})

    def remove_member(self, org_id, user_id):
        return self.state.scene.remove_member(org_id, user_id)

    def organizations(self):
        return self.state.scene.list_organizations()

    def create_key(self, kind="personal", **spec):
        """A key of any kind, with its secret in ``key``: ``name``, ``user_id``, ``org_id``, ``project_id``."""
        return self.state.scene.control_create_key(dict(spec, kind=kind))

    def age_key(self, key_id, **spec):
        """Move a key's creation and last use into the past: ``created_days_ago``, ``last_used_days_ago``
        (None: never used). Returns the key as :meth:`keys` shows it."""
        return self.state.keys.age_key(key_id, spec)

    def add_barrier(self, **spec):
        """Hold the next ``parties`` requests matching ``method`` and ``path`` (a glob) until all have arrived."""
        return self.app.barriers.add(spec)

    def barriers(self):
        return self.app.barriers.list()

    def clear_barriers(self):
        """Forget every barrier (the control API's DELETE /_simulator/barriers)."""
        self.app.barriers.clear()

    def share_project(self, project_id, user_id="bootstrap"):
        return self.state.scene.share_project(project_id, {"user_id": user_id})

    def transfer_project(self, project_id, org_id, owner=None):
        """Move a project into ``org_id``, or to ``owner``'s personal projects when ``org_id`` is None."""
        spec = {"org_id": org_id}
        if owner is not None:
            spec["owner"] = owner
        return self.state.scene.transfer_project(project_id, spec)

    def set_unavailable(self, project_ids, answers=1):
        """Leave these projects out of the next ``answers`` listings that hold them (None: of every one)."""
        return self.state.scene.set_unavailable({"project_ids": list(project_ids), "answers": answers})

    def clear_unavailable(self):
        return self.state.scene.clear_unavailable()

    def set_rate_limits(self, **spec):
        """``per_route``, ``org_key_create``, ``per_key`` (requests per second, None: off), ``org_key_create_burst``,
        ``per_key_burst``."""
        return self.app.set_rate_limits(spec)

    def rate_limits(self):
        return self.app.rate_limits()

    def add_fault(self, **spec):
        """Add a fault (method, path, count, status, retry_after, latency, body, drop, apply)."""
        return self.fault_registry.add(spec)

    def faults(self):
        return self.fault_registry.list()

    def clear_faults(self):
        return self.fault_registry.clear()

    def requests(self, since=None):
        """The /api/v2 request log (list of dicts, oldest first)."""
        return self.request_log.list(since)

    def clear_requests(self):
        return self.request_log.clear()

    def keys(self, kind=None):
        """Every key including revoked ones (of one ``kind``, if given), without secrets."""
        return self.state.keys.all_keys(kind)

    def advance_clock(self, seconds):
        self.clock.advance(seconds)
