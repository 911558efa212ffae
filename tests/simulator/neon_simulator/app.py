# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The WSGI application: Neon API v2 under /api/v2 (each area's routes in its api_<area>.py), control API under
/_simulator (control.py)."""

from __future__ import annotations

import logging
import threading

from werkzeug.exceptions import MethodNotAllowed, NotFound as RouteNotFound
from werkzeug.routing import Map
from werkzeug.wrappers import Request, Response

from .api_advisors import AdvisorsRoutes, advisors_rules
from .api_anonymized import AnonymizedRoutes, anonymized_rules
from .api_billing import BillingRoutes, billing_rules
from .api_catalog import CatalogRoutes, catalog_rules
from .api_computes import ComputesRoutes, computes_rules
from .api_consumption import ConsumptionRoutes, consumption_rules
from .api_data_api import DataApiRoutes, data_api_rules
from .api_keys import KeysRoutes, keys_rules
from .api_neon_auth import NeonAuthRoutes, neon_auth_rules
from .api_networking import NetworkingRoutes, networking_rules
from .api_operations import OperationsRoutes, operations_rules
from .api_organizations import OrganizationsRoutes, organizations_rules
from .api_platform_info import PlatformInfoRoutes, platform_rules
from .api_project_roles import ProjectRolesRoutes, project_roles_rules
from .api_projects import ProjectsRoutes, projects_rules
from .api_provisioning import ProvisioningRoutes, provisioning_rules
from .api_recoverable import RecoverableRoutes, recoverable_rules
from .api_recovery import RecoveryRoutes, recovery_rules
from .api_scene import SceneRoutes
from .api_sharing import SharingRoutes, sharing_rules
from .api_snapshots import SnapshotsRoutes, snapshots_rules
from .api_transfers import TransfersRoutes, transfers_rules
from .barriers import Barriers
from .control import ControlRoutes, control_map
from .errors import API_ERRORS, InvalidRequest
from .openapi import document
from .ratelimit import RateLimiter
from .web import (API_PREFIX, CONTROL_PREFIX, client_address, error_response, json_response,
                  match_route, positive_rate, request_id_of, status_line)

__all__ = ["API_PREFIX", "CONTROL_PREFIX", "DropConnection", "SimulatorApp"]

REQUEST_ID_HEADER = "x-neon-ret-request-id"
_LOG = logging.getLogger("neon_simulator")

MESSAGE_NO_AUTH = "authentication required: missing Authorization header"
MESSAGE_BAD_SCHEME = "authentication failed: expected 'Authorization: Bearer <API key>'"
MESSAGE_BAD_KEY = "authentication failed"


def _unserved(request, request_id, refusal):
    """The answer to a request no served route takes (``refusal``: the router's 404 or 405), by the vendor's
    OpenAPI document (openapi.py): a documented operation is 501 ``NOT_SIMULATED``, never a bare 404; a
    documented path with an undocumented method 405, ``Allow`` naming the methods documented or served."""
    spec = document()
    if spec is None:
        return refusal
    operation, documented = spec.match(request.method, request.path[len(API_PREFIX):])
    if operation is not None:
        message = "%s (%s %s) is not simulated" % (operation.operation_id, operation.method, operation.template)
        return error_response(501, message, request_id, "NOT_SIMULATED")
    if documented is None:
        return refusal
    allowed = set(documented) | set(part.strip() for part in refusal.headers.get("Allow", "").split(",") if part.strip())
    if "GET" in allowed:
        allowed.add("HEAD")
    response = error_response(405, "method %s not allowed" % request.method, request_id)
    response.headers["Allow"] = ", ".join(sorted(allowed))
    return response


class DropConnection(ConnectionError):
    """Raised by the app so the server closes the connection without answering."""


class SimulatorApp(ControlRoutes, SceneRoutes, KeysRoutes, OrganizationsRoutes, ProjectsRoutes, OperationsRoutes, ProvisioningRoutes,
                   ComputesRoutes, CatalogRoutes, SharingRoutes, NetworkingRoutes, ConsumptionRoutes, RecoveryRoutes,
                   SnapshotsRoutes, PlatformInfoRoutes, NeonAuthRoutes, DataApiRoutes,
                   RecoverableRoutes, AdvisorsRoutes, AnonymizedRoutes, TransfersRoutes, ProjectRolesRoutes,
                   BillingRoutes):
    """WSGI callable. ``sleep(seconds)`` is interruptible when the server stops.

    ``rate_limiter`` limits every route (off by default); ``org_key_limiter`` limits the creation
    of organization keys per organization; ``key_limiter`` every request of one API key, whatever its
    route (off unless set at run time, as the live service's limit per account). All can be changed at run
    time (control API) and are put back by :meth:`reset`.
    """

    def __init__(self, state, faults, request_log, rate_limiter=None, stop_event=None, org_key_limiter=None):
        self.state = state
        self.faults = faults
        self.request_log = request_log
        self.rate_limiter = rate_limiter
        self.org_key_limiter = org_key_limiter
        self._default_limiters = (rate_limiter, org_key_limiter)
        self.key_limiter = None
        self.stop_event = stop_event or threading.Event()
        self.barriers = Barriers()
        self.api_map = Map(keys_rules() + organizations_rules() + projects_rules() + operations_rules()
                           + provisioning_rules() + computes_rules() + catalog_rules() + sharing_rules()
                           + networking_rules() + consumption_rules() + recovery_rules() + snapshots_rules()
                           + platform_rules() + neon_auth_rules() + data_api_rules()
                           + recoverable_rules() + advisors_rules() + anonymized_rules() + transfers_rules() + project_roles_rules()
                           + billing_rules())
        self.control_map = control_map()

    # ------------------------------------------------------------------ entry point
    def __call__(self, environ, start_response):
        request = Request(environ)
        path = request.path
        self.state.before_request()
        if path == API_PREFIX or path.startswith(API_PREFIX + "/"):
            response = self._api(request)
        elif path.startswith(CONTROL_PREFIX + "/"):
            response = self._control(request)
        else:
            request_id = request_id_of(request)
            response = error_response(404, "not found", request_id)
            response.headers[REQUEST_ID_HEADER] = request_id
        self.state.after_request()
        response.status = status_line(response.status_code)
        return response(environ, start_response)

    def reset(self):
        """Seeded state back, no faults, empty request log, the starting rate limits with fresh budgets."""
        self.state.reset()
        self.faults.clear()
        self.barriers.clear()
        self.request_log.clear()
        self.rate_limiter, self.org_key_limiter = self._default_limiters
        self.key_limiter = None
        for limiter in self._default_limiters:
            if limiter is not None:
                limiter.reset()

    def rate_limits(self):
        def describe(limiter):
            return limiter.describe() if limiter is not None else None

        return {"per_route": describe(self.rate_limiter), "org_key_create": describe(self.org_key_limiter),
                "per_key": describe(self.key_limiter)}

    def set_rate_limits(self, spec):
        """``{"per_route": N | null, "org_key_create": N | null, "org_key_create_burst": M, "per_key": N | null,
        "per_key_burst": M}`` (null: off)."""
        unknown = set(spec) - {"per_route", "org_key_create", "org_key_create_burst", "per_key", "per_key_burst"}
        if unknown:
            raise InvalidRequest("unknown fields: %s" % ", ".join(sorted(unknown)))
        if "per_route" in spec:
            rate = positive_rate(spec["per_route"], "per_route")
            self.rate_limiter = RateLimiter(rate) if rate is not None else None
        if "org_key_create" in spec or "org_key_create_burst" in spec:
            current = self.org_key_limiter.rate if self.org_key_limiter is not None else None
            rate = positive_rate(spec.get("org_key_create", current), "org_key_create")
            burst = spec.get("org_key_create_burst")
            if burst is not None:
                burst = positive_rate(burst, "org_key_create_burst", allow_none=False)
                if burst < 1:
                    raise InvalidRequest("org_key_create_burst: must be at least 1")
            self.org_key_limiter = RateLimiter(rate, burst) if rate is not None else None
        if "per_key" in spec or "per_key_burst" in spec:
            current = self.key_limiter.rate if self.key_limiter is not None else None
            rate = positive_rate(spec.get("per_key", current), "per_key")
            burst = spec.get("per_key_burst")
            if burst is not None:
                burst = positive_rate(burst, "per_key_burst", allow_none=False)
                if burst < 1:
                    raise InvalidRequest("per_key_burst: must be at least 1")
            self.key_limiter = RateLimiter(rate, burst) if rate is not None else None
        return self.rate_limits()

    def sleep(self, seconds):
        self.stop_event.wait(seconds)

    # ------------------------------------------------------------------ /api/v2
    def _api(self, request):
        request_id = request_id_of(request)
        request.get_data(cache=True)  # read the whole request before anything else
        context = {"key": None, "endpoint": None}
        barrier = self.barriers.join(request.method, request.path)
        fault = self.faults.take(request.method, request.path)
        entry = {
            "time": self.state.clock.time(),
            "method": request.method,
            "path": request.path,
            "query": request.query_string.decode("latin-1"),
            "status": None,
            "request_id": request_id,
            "key_id": None,
            "key_kind": None,
            "key_org_id": None,
            "key_project_id": None,
            "fault": fault.id if fault is not None else None,
            "dropped": False,
            "user_agent": request.headers.get("User-Agent", ""),
        }
        try:
            if fault is not None and fault.latency:
                self.sleep(fault.latency)
            if fault is not None and fault.drop:
                if fault.apply:
                    self._dispatch(request, request_id, context)
                entry["dropped"] = True
                raise DropConnection("fault %d: connection dropped without an answer" % fault.id)
            response = None
            if fault is None or not fault.replaces_answer or fault.runs_handler:
                response = self._dispatch(request, request_id, context)
            if fault is not None and fault.replaces_answer:
                real_body = response.get_data() if response is not None else None
                status, content_type, body = fault.render(context["endpoint"] or self._endpoint_of(request),
                                                          request_id, real_body)
                response = Response(body, status=status, content_type=content_type)
                if fault.retry_after is not None:
                    response.headers["Retry-After"] = fault.retry_after
            response.headers[REQUEST_ID_HEADER] = request_id
            entry["status"] = response.status_code
            return response
        finally:
            key = context["key"]
            if key is not None:
                entry.update(key_id=key.id, key_kind=key.kind, key_org_id=key.org_id, key_project_id=key.project_id)
            self.request_log.add(entry)
            self.barriers.hold(barrier)  # the answer (or its failure) waits for the other parties' answers

    def _endpoint_of(self, request):
        try:
            return self.api_map.bind_to_environ(request.environ).match()[0]
        except (RouteNotFound, MethodNotAllowed):
            return None

    def _authenticate(self, request):
        """(key, None) or (None, message)."""
        header = request.headers.get("Authorization")
        if not header:
            return None, MESSAGE_NO_AUTH
        scheme, _sep, secret = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not secret.strip():
            return None, MESSAGE_BAD_SCHEME
        key = self.state.keys.authenticate(secret.strip(), client_address(request))
        return (key, None) if key is not None else (None, MESSAGE_BAD_KEY)

    def _limited(self, endpoint, args, request_id, key=None):
        """The 429 answer when a rate limit is spent, else None."""
        wait = None
        if key is not None and self.key_limiter is not None:
            wait = self.key_limiter.check(key.id)
        if wait is None and self.rate_limiter is not None:
            wait = self.rate_limiter.check(endpoint)
        if wait is None and endpoint == "create_org_key" and self.org_key_limiter is not None:
            wait = self.org_key_limiter.check(args["org_id"])
        if wait is None:
            return None
        response = error_response(429, "too many requests, rate limit exceeded", request_id)
        response.headers["Retry-After"] = str(wait)
        return response

    def _dispatch(self, request, request_id, context):
        """The real answer of the API (auth, routing, rate limit, handler)."""
        try:
            key, message = self._authenticate(request)
            if key is None:
                return error_response(401, message, request_id)
            context["key"] = key
            endpoint, args, refusal = match_route(self.api_map, request, request_id)
            if refusal is not None:
                return _unserved(request, request_id, refusal)
            context["endpoint"] = endpoint
            limited = self._limited(endpoint, args, request_id, key)
            if limited is not None:
                return limited
            status, payload = getattr(self, "_api_" + endpoint)(request, key, **args)
            return json_response(status, payload)
        except Exception as exc:  # pylint: disable=broad-except
            status = next((code for kind, code in API_ERRORS if isinstance(exc, kind)), None)
            if status is not None:  # a refusal the API answers with its status (and its headers: a 429's Retry-After)
                response = error_response(status, str(exc), request_id, getattr(exc, "code", ""))
                for name, value in getattr(exc, "headers", {}).items():
                    response.headers[name] = value
                return response
            _LOG.exception("unexpected error in %s %s", request.method, request.path)
            return error_response(500, "internal server error", request_id)
