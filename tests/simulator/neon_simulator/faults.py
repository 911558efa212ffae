# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Injected faults: scripted failures for the next N matching API requests."""

from __future__ import annotations

import fnmatch
import http
import json
import threading

BODY_KINDS = ("json", "html", "empty", "truncated", "malformed", "wrongshape")
# status used when a fault gives a body but no status
DEFAULT_STATUS = {"json": 500, "html": 502, "empty": 502}
# body kinds that need the real handler's answer
_NEEDS_REAL_ANSWER = ("truncated",)
MAX_LATENCY = 600.0

ERROR_MESSAGES = {
    400: "bad request",
    401: "authentication failed",
    403: "access denied",
    404: "not found",
    409: "conflict",
    423: "project already has running conflicting operations, scheduling of new ones is prohibited",
    429: "too many requests",
    500: "internal server error",
    502: "bad gateway",
    503: "service unavailable, please retry later",
    504: "gateway timeout",
}

# 200 answers with valid JSON of the wrong shape, per API endpoint
WRONG_SHAPES = {
    "list_keys": {"api_keys": [], "note": "an object where an array is expected"},
    "create_key": [{"id": "not-an-integer", "key": None}],
    "revoke_key": ["revoked"],
    "list_projects": {"projects": {}, "pagination": "oops"},
    "list_shared_projects": {"projects": {}, "pagination": "oops"},
    "list_operations": {"operations": "oops", "pagination": []},
    "get_operation": {"operation": "oops"},
    "list_org_keys": {"api_keys": [], "note": "an object where an array is expected"},
    "create_org_key": [{"id": "not-an-integer", "key": None}],
    "revoke_org_key": ["revoked"],
    "auth": ["api_key_user"],
    "user_organizations": {"organizations": {"id": "not-a-list"}},
    "get_organization": ["not-an-object"],
}
MALFORMED_BODY = b'{"operations": [{"id": "3f1c0d2e, <<garbage>> ,,]]}'


def html_body(status):
    try:
        phrase = http.HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    return ("<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n<center><h1>%d %s</h1></center>\r\n"
            "<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n" % (status, phrase, status, phrase)).encode()


def error_message(status):
    if status in ERROR_MESSAGES:
        return ERROR_MESSAGES[status]
    try:
        return http.HTTPStatus(status).phrase.lower()
    except ValueError:
        return "simulated fault"


class Fault:
    """One scripted fault; see README for the meaning of each field."""

    def __init__(self, fault_id, spec):
        if not isinstance(spec, dict):
            raise ValueError("a fault must be a JSON object")
        unknown = set(spec) - {"method", "path", "count", "status", "retry_after", "latency", "body", "drop",
                               "apply"}
        if unknown:
            raise ValueError("unknown fault fields: %s" % ", ".join(sorted(unknown)))
        self.id = fault_id
        self.method = str(spec.get("method") or "*").upper()
        self.path = spec.get("path") or "/api/v2/*"
        if not isinstance(self.path, str):
            raise ValueError("path: must be a glob string")
        self.count = spec.get("count", 1)
        if isinstance(self.count, bool) or not isinstance(self.count, int) or self.count < 1:
            raise ValueError("count: must be a positive integer")
        self.status = spec.get("status")
        if self.status is not None and (isinstance(self.status, bool) or not isinstance(self.status, int)
                                        or not 100 <= self.status <= 599):
            raise ValueError("status: must be an HTTP status code")
        retry_after = spec.get("retry_after")
        if isinstance(retry_after, bool) or not isinstance(retry_after, (type(None), str, int, float)):
            raise ValueError("retry_after: must be a string or a number of seconds")
        if isinstance(retry_after, float) and retry_after.is_integer():
            retry_after = int(retry_after)
        self.retry_after = None if retry_after is None else str(retry_after)
        latency = spec.get("latency") or 0
        if isinstance(latency, bool) or not isinstance(latency, (int, float)) or not 0 <= latency <= MAX_LATENCY:
            raise ValueError("latency: must be a number of seconds between 0 and %d" % MAX_LATENCY)
        self.latency = float(latency)
        self.body = spec.get("body")
        if self.body is not None and not isinstance(self.body, str):
            raise ValueError("body: must be one of %s or a literal string" % ", ".join(BODY_KINDS))
        self.drop = bool(spec.get("drop", False))
        self.apply = bool(spec.get("apply", False))
        if not (self.drop or self.latency or self.status is not None or self.body is not None):
            raise ValueError("a fault needs at least one of status, body, latency or drop")
        if self.retry_after is not None and self.status is None and self.body is None:
            raise ValueError("retry_after needs a status")
        self.hits = 0

    @property
    def replaces_answer(self):
        """True when the fault answers instead of the API (not latency alone)."""
        return self.status is not None or self.body is not None

    @property
    def runs_handler(self):
        """True when the real handler must run (state changes happen)."""
        return self.apply or self.body in _NEEDS_REAL_ANSWER

    def answer_status(self):
        if self.status is not None:
            return self.status
        return DEFAULT_STATUS.get(self.body or "json", 200)

    def matches(self, method, path):
        return self.method in ("*", method.upper()) and fnmatch.fnmatchcase(path, self.path)

    def to_dict(self):
        return {
            "id": self.id,
            "method": self.method,
            "path": self.path,
            "count": self.count,
            "status": self.status,
            "retry_after": self.retry_after,
            "latency": self.latency,
            "body": self.body,
            "drop": self.drop,
            "apply": self.apply,
            "hits": self.hits,
        }

    def render(self, endpoint, request_id, real_body):
        """(status, content type, body bytes) of the faulty answer."""
        status = self.answer_status()
        kind = self.body or "json"
        if kind == "json":
            body = {"code": "", "message": error_message(status), "request_id": request_id}
            return status, "application/json", json.dumps(body).encode()
        if kind == "html":
            return status, "text/html", html_body(status)
        if kind == "empty":
            return status, "application/json", b""
        if kind == "truncated":
            real_body = real_body or b"{}"
            return status, "application/json", real_body[:max(1, len(real_body) // 2)]
        if kind == "malformed":
            return status, "application/json", MALFORMED_BODY
        if kind == "wrongshape":
            shape = WRONG_SHAPES.get(endpoint, {"unexpected": True})
            return status, "application/json", json.dumps(shape).encode()
        try:
            json.loads(kind)
            content_type = "application/json"
        except ValueError:
            content_type = "text/plain; charset=utf-8"
        return status, content_type, kind.encode("utf-8")


class FaultRegistry:
    """Pending faults, consumed first-in first-out among those that match."""

    def __init__(self):
        self._lock = threading.Lock()
        self._faults = []
        self._next_id = 1

    def add(self, spec):
        with self._lock:
            fault = Fault(self._next_id, spec)
            self._next_id += 1
            self._faults.append(fault)
            return fault.to_dict()

    def take(self, method, path):
        """The fault for this request (one use of it consumed), or None."""
        with self._lock:
            for fault in self._faults:
                if fault.matches(method, path):
                    fault.count -= 1
                    fault.hits += 1
                    if fault.count <= 0:
                        self._faults.remove(fault)
                    return fault
            return None

    def list(self):
        with self._lock:
            return [fault.to_dict() for fault in self._faults]

    def clear(self):
        with self._lock:
            removed = len(self._faults)
            self._faults = []
            return removed
