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


def with_code(exc, code):
    """``exc`` carrying the error body's ``code`` (most of the live service's errors have ``""``)."""
    exc.code = code
    return exc


# (exception class, HTTP status) of the API's refusals, most specific first
API_ERRORS = (
    (InvalidRequest, 400),
    (Forbidden, 403),
    (NotFound, 404),
    (Conflict, 409),
    (PreconditionFailed, 412),
    (Unprocessable, 422),
    (Locked, 423),
)
