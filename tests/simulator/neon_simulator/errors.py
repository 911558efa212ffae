# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The refusals the simulated service answers, one exception class per HTTP status."""

from __future__ import annotations


class InvalidRequest(ValueError):
    """A request the API answers with 400."""

    code = ""


class Forbidden(PermissionError):
    """A request the key may not make: 403."""


class NotFound(LookupError):
    """A project, operation, key or organization that does not exist (or that the key cannot see): 404."""


class NotAcceptable(RuntimeError):
    """406: e.g. a consumption range outside its granularity's limits."""


class Conflict(RuntimeError):
    """A request that does not fit the current state: 409 (control API: releasing an operation not held;
    API: a branch, role, database or read_write compute that already exists)."""


class PreconditionFailed(RuntimeError):
    """412: e.g. revealing a password of a project that does not store passwords."""


class Unprocessable(RuntimeError):
    """422: a plan limit, e.g. ``PROJECTS_LIMIT_EXCEEDED``."""

    code = ""


class Locked(RuntimeError):
    """423: the project runs conflicting operations; the client retries later."""


class NotSimulated(RuntimeError):
    """501 ``NOT_SIMULATED``: a documented request the simulator does not answer (in the mode it runs in)."""

    code = "NOT_SIMULATED"


class TooManyRequests(RuntimeError):
    """429: a rate limit spent (e.g. the consumption endpoints' bucket). ``retry_after``: whole seconds until a
    request may go again, answered as the ``Retry-After`` header (``headers``)."""

    def __init__(self, message, retry_after=None):
        super().__init__(message)
        self.retry_after = retry_after

    @property
    def headers(self):
        """The headers of the answer beyond the error body's."""
        return {} if self.retry_after is None else {"Retry-After": str(self.retry_after)}


def with_code(exc, code):
    """``exc`` carrying the error body's ``code`` (most of the live service's errors have ``""``)."""
    exc.code = code
    return exc


# (exception class, HTTP status) of the API's refusals, most specific first
API_ERRORS = (
    (InvalidRequest, 400),
    (Forbidden, 403),
    (NotFound, 404),
    (NotAcceptable, 406),
    (Conflict, 409),
    (PreconditionFailed, 412),
    (Unprocessable, 422),
    (Locked, 423),
    (TooManyRequests, 429),
    (NotSimulated, 501),
)
