# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The WSGI application: Neon API v2 under /api/v2, control API under /_simulator."""

from __future__ import annotations

import http
import json
import logging
import re
import threading
import time
import uuid

from werkzeug.exceptions import MethodNotAllowed, NotFound as RouteNotFound
from werkzeug.routing import Map, Rule
from werkzeug.wrappers import Request, Response

from .clock import iso_micro, parse_timestamp
from .state import InvalidRequest, NotFound

API_PREFIX = "/api/v2"
CONTROL_PREFIX = "/_simulator"
REQUEST_ID_HEADER = "x-neon-ret-request-id"
PROJECTS_LIMIT = (1, 400, 10)
OPERATIONS_LIMIT = (1, 1000, 10)
_INTEGER_RE = re.compile(r"^[+-]?[0-9]+$")
_KEY_ID_RE = re.compile(r"^[0-9]{1,18}$")
_REQUEST_ID_RE = re.compile(r"^[\x21-\x7e]{1,200}$")
_LOG = logging.getLogger("neon_simulator")

MESSAGE_NO_AUTH = "authentication required: missing Authorization header"
MESSAGE_BAD_SCHEME = "authentication failed: expected 'Authorization: Bearer <API key>'"
MESSAGE_BAD_KEY = "authentication failed"


class DropConnection(ConnectionError):
    """Raised by the app so the server closes the connection without answering."""


def status_line(code):
    """``502 Bad Gateway`` rather than Werkzeug's upper-case reason phrases."""
    try:
        return "%d %s" % (code, http.HTTPStatus(code).phrase)
    except ValueError:
        return str(code)


def json_response(status, payload):
    return Response(json.dumps(payload, separators=(",", ":")), status=status, content_type="application/json")


def error_response(status, message, request_id, code=""):
    return json_response(status, {"code": code, "message": message, "request_id": request_id})


def match_route(url_map, request, request_id):
    """(endpoint, args, None) for a known route, else (None, None, the 404 or 405 answer)."""
    try:
        endpoint, args = url_map.bind_to_environ(request.environ).match()
    except MethodNotAllowed as exc:
        response = error_response(405, "method %s not allowed" % request.method, request_id)
        response.headers["Allow"] = ", ".join(sorted(exc.valid_methods or ()))
        return None, None, response
    except RouteNotFound:
        return None, None, error_response(404, "not found", request_id)
    return endpoint, args, None


def _request_id(request):
    sent = request.headers.get("X-Request-ID", "").strip()
    return sent if _REQUEST_ID_RE.match(sent) else str(uuid.uuid4())


def _client_address(request):
    """The client address, after any X-Forwarded-For chain (like the live service)."""
    remote = request.remote_addr or ""
    forwarded = [part.strip() for part in request.headers.get("X-Forwarded-For", "").split(",") if part.strip()]
    return ",".join(forwarded + [remote]) if forwarded else remote


def _int_arg(args, name, bounds):
    low, high, default = bounds
    raw = args.get(name)
    if raw is None or raw == "":
        return default
    if not _INTEGER_RE.match(raw):
        raise InvalidRequest("%s: invalid integer value %r" % (name, raw))
    value = int(raw)
    if not low <= value <= high:
        raise InvalidRequest("%s: must be between %d and %d" % (name, low, high))
    return value


def _json_body(request, required=True):
    data = request.get_data(cache=True)
    if not data.strip():
        if required:
            raise InvalidRequest("request body: a JSON object is required")
        return {}
    try:
        body = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InvalidRequest("request body: invalid JSON: %s" % exc) from None
    if not isinstance(body, dict):
        raise InvalidRequest("request body: must be a JSON object")
    return body


class SimulatorApp:
    """WSGI callable. ``sleep(seconds)`` is interruptible when the server stops."""

    def __init__(self, state, faults, request_log, rate_limiter=None, stop_event=None):
        self.state = state
        self.faults = faults
        self.request_log = request_log
        self.rate_limiter = rate_limiter
        self.stop_event = stop_event or threading.Event()
        self.api_map = Map([
            Rule(API_PREFIX + "/api_keys", methods=["GET"], endpoint="list_keys"),
            Rule(API_PREFIX + "/api_keys", methods=["POST"], endpoint="create_key"),
            Rule(API_PREFIX + "/api_keys/<key_id>", methods=["DELETE"], endpoint="revoke_key"),
            Rule(API_PREFIX + "/projects", methods=["GET"], endpoint="list_projects"),
            Rule(API_PREFIX + "/projects/<project_id>/operations", methods=["GET"], endpoint="list_operations"),
            Rule(API_PREFIX + "/projects/<project_id>/operations/<operation_id>", methods=["GET"],
                 endpoint="get_operation"),
        ])
        self.control_map = Map([
            Rule(CONTROL_PREFIX + "/health", methods=["GET"], endpoint="health"),
            Rule(CONTROL_PREFIX + "/info", methods=["GET"], endpoint="info"),
            Rule(CONTROL_PREFIX + "/reset", methods=["POST"], endpoint="reset"),
            Rule(CONTROL_PREFIX + "/keys", methods=["GET"], endpoint="keys"),
            Rule(CONTROL_PREFIX + "/projects", methods=["POST"], endpoint="create_project"),
            Rule(CONTROL_PREFIX + "/projects/<project_id>/operations", methods=["POST"], endpoint="start_operations"),
            Rule(CONTROL_PREFIX + "/projects/<project_id>/history", methods=["POST"], endpoint="add_history"),
            Rule(CONTROL_PREFIX + "/faults", methods=["GET"], endpoint="list_faults"),
            Rule(CONTROL_PREFIX + "/faults", methods=["POST"], endpoint="add_fault"),
            Rule(CONTROL_PREFIX + "/faults", methods=["DELETE"], endpoint="clear_faults"),
            Rule(CONTROL_PREFIX + "/requests", methods=["GET"], endpoint="list_requests"),
            Rule(CONTROL_PREFIX + "/requests", methods=["DELETE"], endpoint="clear_requests"),
            Rule(CONTROL_PREFIX + "/clock", methods=["GET"], endpoint="get_clock"),
            Rule(CONTROL_PREFIX + "/clock", methods=["POST"], endpoint="advance_clock"),
        ])

    # ------------------------------------------------------------------ entry point
    def __call__(self, environ, start_response):
        request = Request(environ)
        path = request.path
        if path == API_PREFIX or path.startswith(API_PREFIX + "/"):
            response = self._api(request)
        elif path.startswith(CONTROL_PREFIX + "/"):
            response = self._control(request)
        else:
            request_id = _request_id(request)
            response = error_response(404, "not found", request_id)
            response.headers[REQUEST_ID_HEADER] = request_id
        response.status = status_line(response.status_code)
        return response(environ, start_response)

    def reset(self):
        """Seeded state back, no faults, empty request log, fresh rate limits."""
        self.state.reset()
        self.faults.clear()
        self.request_log.clear()
        if self.rate_limiter is not None:
            self.rate_limiter.reset()

    def sleep(self, seconds):
        self.stop_event.wait(seconds)

    # ------------------------------------------------------------------ /api/v2
    def _api(self, request):
        request_id = _request_id(request)
        request.get_data(cache=True)  # read the whole request before anything else
        context = {"key_id": None, "endpoint": None}
        fault = self.faults.take(request.method, request.path)
        entry = {
            "time": self.state.clock.time(),
            "method": request.method,
            "path": request.path,
            "query": request.query_string.decode("latin-1"),
            "status": None,
            "request_id": request_id,
            "key_id": None,
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
            entry["key_id"] = context["key_id"]
            self.request_log.add(entry)

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
        key = self.state.authenticate(secret.strip(), _client_address(request))
        return (key, None) if key is not None else (None, MESSAGE_BAD_KEY)

    def _dispatch(self, request, request_id, context):
        """The real answer of the API (auth, routing, rate limit, handler)."""
        try:
            key, message = self._authenticate(request)
            if key is None:
                return error_response(401, message, request_id)
            context["key_id"] = key.id
            endpoint, args, refusal = match_route(self.api_map, request, request_id)
            if refusal is not None:
                return refusal
            context["endpoint"] = endpoint
            if self.rate_limiter is not None:
                wait = self.rate_limiter.check(endpoint)
                if wait is not None:
                    response = error_response(429, "too many requests, rate limit exceeded", request_id)
                    response.headers["Retry-After"] = str(wait)
                    return response
            status, payload = getattr(self, "_api_" + endpoint)(request, **args)
            return json_response(status, payload)
        except InvalidRequest as exc:
            return error_response(400, str(exc), request_id)
        except NotFound as exc:
            return error_response(404, str(exc), request_id)
        except Exception:  # pylint: disable=broad-except
            _LOG.exception("unexpected error in %s %s", request.method, request.path)
            return error_response(500, "internal server error", request_id)

    def _api_list_keys(self, request):
        del request
        return 200, self.state.list_keys()

    def _api_create_key(self, request):
        body = _json_body(request)
        if "key_name" not in body:
            raise InvalidRequest("key_name: field is required")
        return 200, self.state.create_key(body["key_name"])

    def _api_revoke_key(self, request, key_id):
        del request
        if not _KEY_ID_RE.match(key_id):
            raise InvalidRequest("key_id: must be an integer, got %r" % key_id)
        return 200, self.state.revoke_key(int(key_id))

    def _api_list_projects(self, request):
        args = request.args
        limit = _int_arg(args, "limit", PROJECTS_LIMIT)
        projects, cursor = self.state.list_projects(limit, args.get("cursor") or None, args.get("search") or None,
                                                    args.get("org_id") or None)
        return 200, {
            "projects": projects,
            "pagination": {"cursor": cursor} if cursor else {},
            "applications": {},
            "integrations": {},
            "unavailable_project_ids": [],
        }

    def _api_list_operations(self, request, project_id):
        args = request.args
        limit = _int_arg(args, "limit", OPERATIONS_LIMIT)
        cursor_text = args.get("cursor") or None
        cursor_us = None
        if cursor_text is not None:
            try:
                cursor_us = parse_timestamp(cursor_text)
            except ValueError:
                raise InvalidRequest("cursor: invalid value %r, expected a timestamp like %s"
                                     % (cursor_text, iso_micro(self.state.now_us()))) from None
        operations, cursor = self.state.list_operations(project_id, limit, cursor_us, cursor_text)
        return 200, {"operations": operations, "pagination": {"cursor": cursor} if cursor else {}}

    def _api_get_operation(self, request, project_id, operation_id):
        del request
        return 200, {"operation": self.state.get_operation(project_id, operation_id)}

    # ------------------------------------------------------------------ /_simulator
    def _control(self, request):
        request_id = str(uuid.uuid4())
        endpoint, args, refusal = match_route(self.control_map, request, request_id)
        if refusal is not None:
            return refusal
        try:
            status, payload = getattr(self, "_control_" + endpoint)(request, **args)
        except (InvalidRequest, ValueError) as exc:
            return error_response(400, str(exc), request_id)
        except NotFound as exc:
            return error_response(404, str(exc), request_id)
        return json_response(status, payload)

    def _control_health(self, request):
        del request
        return 200, {"ok": True}

    def _control_info(self, request):
        info = self.state.summary()
        info["api_url"] = request.host_url.rstrip("/") + API_PREFIX
        info["rate_limit"] = self.rate_limiter.rate if self.rate_limiter is not None else None
        return 200, info

    def _control_reset(self, request):
        del request
        self.reset()
        return 200, {"ok": True, "demo_project_id": self.state.demo_project_id}

    def _control_keys(self, request):
        del request
        return 200, {"keys": self.state.all_keys()}

    def _control_create_project(self, request):
        return 201, self.state.create_project(_json_body(request, required=False))

    def _control_start_operations(self, request, project_id):
        body = _json_body(request, required=False)
        specs = body["operations"] if "operations" in body else [body]
        return 201, {"operations": self.state.start_operations(project_id, specs)}

    def _control_add_history(self, request, project_id):
        body = _json_body(request)
        return 201, self.state.add_history(project_id, body.get("count"), body.get("days", 30.0), body.get("seed"))

    def _control_list_faults(self, request):
        del request
        return 200, {"faults": self.faults.list()}

    def _control_add_fault(self, request):
        return 201, self.faults.add(_json_body(request))

    def _control_clear_faults(self, request):
        del request
        return 200, {"removed": self.faults.clear()}

    def _control_list_requests(self, request):
        since = request.args.get("since")
        if since is not None and not _INTEGER_RE.match(since):
            raise InvalidRequest("since: invalid integer value %r" % since)
        return 200, {"requests": self.request_log.list(int(since) if since is not None else None)}

    def _control_clear_requests(self, request):
        del request
        return 200, {"removed": self.request_log.clear()}

    def _control_get_clock(self, request):
        del request
        now = self.state.clock.time()
        return 200, {"now": iso_micro(int(round(now * 1e6))), "time": now, "speed": self.state.clock.speed,
                     "real_time": time.time()}

    def _control_advance_clock(self, request):
        body = _json_body(request)
        seconds = body.get("advance")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0:
            raise InvalidRequest("advance: must be a non-negative number of seconds")
        self.state.clock.advance(seconds)
        return self._control_get_clock(request)
