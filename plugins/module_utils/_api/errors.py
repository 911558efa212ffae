# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The error a request raises when it gives no usable answer, and how it reads.

An error is structured data (method, path, status, the service's message, request id,
attempts); its sentence is rendered from that data in one place, ``NeonAPIError.describe``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

NOT_REPEATED_NOTE = "the request may have been carried out, so it was not repeated"
AUTH_HINT = "the API key is missing, invalid or revoked"


class NeonAPIError(Exception):
    """A request that did not give a usable answer.

    ``problem`` says what went wrong, e.g. ``HTTP 404: operation not found`` or ``no answer
    within 30 s (api_timeout)``. ``retryable`` tells whether the fault may heal by itself;
    ``ambiguous`` says a POST or DELETE may have been carried out; ``in_flight`` says no answer
    came in time, so the service may still be carrying it out (a listing made now cannot prove
    it was not).
    """

    def __init__(self, method, path, problem, status=None, code=None, api_message=None, request_id=None,
                 retryable=False, ambiguous=False, in_flight=False, body_excerpt=None):
        super(NeonAPIError, self).__init__(problem)
        self.method = method
        self.path = path
        self.problem = problem
        self.status = status
        self.code = code
        self.api_message = api_message
        self.request_id = request_id
        self.retryable = retryable
        self.ambiguous = ambiguous
        self.in_flight = in_flight
        self.body_excerpt = body_excerpt
        self.attempts = 1
        self.elapsed = None
        self.retry_after = None  # seconds, from a Retry-After header

    def gave_up(self, attempts, elapsed):
        """Record that this is the last of ``attempts`` tries that took ``elapsed`` seconds."""
        self.attempts = attempts
        self.elapsed = round(elapsed, 3)
        return self

    def describe(self, not_repeated=True, attempts=True):
        """The sentence: ``GET /path failed: <problem> (request id X)`` and what was done about it.

        A caller that explains the attempts itself (the key lifecycle lists the keys after each
        one) leaves out ``not_repeated`` and ``attempts``.
        """
        text = "%s %s failed: %s" % (self.method, self.path, self.problem)
        if self.request_id:
            text += " (request id %s)" % self.request_id
        if not_repeated and self.ambiguous:
            text += "; " + NOT_REPEATED_NOTE
        if attempts and self.attempts > 1:
            text += "; gave up after %d attempts over %.1f s" % (self.attempts, self.elapsed or 0.0)
        return text

    @property
    def message(self):
        return self.describe()

    def __str__(self):
        return self.describe()

    def to_dict(self):
        return {
            "status": self.status,
            "method": self.method,
            "path": self.path,
            "code": self.code,
            "message": self.api_message,
            "request_id": self.request_id,
            "attempts": self.attempts,
            "retryable": self.retryable,
            "ambiguous": self.ambiguous,
            "body_excerpt": self.body_excerpt,
        }


class UnexpectedAnswer(NeonAPIError):
    """A 2xx answer that is valid JSON but not what the endpoint answers: a wrong type, a
    missing field, the wrong object. Waiting does not heal it."""

    def __init__(self, method, path, field, problem, status=200, request_id=None):
        super(UnexpectedAnswer, self).__init__(
            method, path, "unexpected answer (HTTP %s): %s %s" % (status, field, problem), status=status,
            request_id=request_id, ambiguous=method not in ("GET", "HEAD"))
        self.field = field
        self.secret = None  # a POST /api_keys answer we cannot use may still hold the new key's secret


class PaginationError(NeonAPIError):
    """A list whose pages cannot be followed to an end."""

    def __init__(self, path, problem):
        super(PaginationError, self).__init__("GET", path, problem, status=200)


class TaskFailure(Exception):
    """A task that cannot reach its goal, with what it did get done (``result``).

    Raised by the shared logic (which knows nothing of Ansible); the module turns it into
    fail_json with ``msg`` and ``result``, so nothing that happened is lost from the result.
    """

    def __init__(self, msg, cause=None, **result):
        super(TaskFailure, self).__init__(msg)
        self.msg = msg
        self.cause = cause
        self.result = result
