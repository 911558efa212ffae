# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The refusals the simulated service answers, one exception class per HTTP status."""

from __future__ import annotations


class InvalidRequest(ValueError):
    """A request the API answers with 400."""


class Forbidden(PermissionError):
    """A request the key may not make: 403."""


class NotFound(LookupError):
    """A project, operation, key or organization that does not exist (or that the key cannot see): 404."""


class Conflict(RuntimeError):
    """A control request that does not fit the current state (e.g. releasing an operation not held): 409."""
