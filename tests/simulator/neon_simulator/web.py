# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""HTTP helpers shared by the API and the control routes: JSON answers, routing, request parsing."""

from __future__ import annotations

import http
import json
import re
import uuid

from werkzeug.exceptions import MethodNotAllowed, NotFound as RouteNotFound
from werkzeug.wrappers import Response

from .errors import InvalidRequest

API_PREFIX = "/api/v2"
CONTROL_PREFIX = "/_simulator"
INTEGER_RE = re.compile(r"^[+-]?[0-9]+$")
_REQUEST_ID_RE = re.compile(r"^[\x21-\x7e]{1,200}$")


def status_line(code):
    """``502 Bad Gateway`` rather than Werkzeug's upper-case reason phrases."""
    try:
        return "%d %s" % (code, http.HTTPStatus(code).phrase)
    except ValueError:
        return str(code)


def json_response(status, payload):
    """``payload`` as JSON; None: no body at all and no content type (a 204, or a success the document gives no
    content, such as a VPC endpoint's assignment: Content-Length 0)."""
    if payload is None:
        response = Response(status=status)
        del response.headers["Content-Type"]
        return response
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


def request_id_of(request):
    sent = request.headers.get("X-Request-ID", "").strip()
    return sent if _REQUEST_ID_RE.match(sent) else str(uuid.uuid4())


def client_address(request):
    """The client address, after any X-Forwarded-For chain (like the live service)."""
    remote = request.remote_addr or ""
    forwarded = [part.strip() for part in request.headers.get("X-Forwarded-For", "").split(",") if part.strip()]
    return ",".join(forwarded + [remote]) if forwarded else remote


def int_arg(args, name, bounds):
    low, high, default = bounds
    raw = args.get(name)
    if raw is None or raw == "":
        return default
    if not INTEGER_RE.match(raw):
        raise InvalidRequest("%s: invalid integer value %r" % (name, raw))
    value = int(raw)
    if not low <= value <= high:
        raise InvalidRequest("%s: must be between %d and %d" % (name, low, high))
    return value


def positive_rate(value, name, allow_none=True):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise InvalidRequest("%s: must be a positive number%s" % (name, " or null (off)" if allow_none else ""))
    return float(value)


def json_body(request, required=True):
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


def paginated(answer, cursor):
    """``answer`` with ``pagination: {cursor}``; none without a cursor (an empty first page): the OpenAPI
    ``Pagination`` requires ``cursor``, and the live service answered ``{"projects": []}`` (notes, CASSETTE)."""
    if cursor:
        answer["pagination"] = {"cursor": cursor}
    return answer
