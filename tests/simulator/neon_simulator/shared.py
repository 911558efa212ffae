# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the areas of the simulated service share: the readers of a control API spec every area uses."""

from __future__ import annotations

from .errors import InvalidRequest


def number(spec, name, default, low=0.0, high=86400.0):
    value = spec.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise InvalidRequest("%s: must be a number between %s and %s" % (name, low, high))
    return float(value)


def optional_count(spec, name, high):
    value = spec.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high):
        raise InvalidRequest("%s: must be an integer between 0 and %d" % (name, high))
    return value


def optional_string(spec, name):
    value = spec.get(name)
    if value is not None and (not isinstance(value, str) or not value):
        raise InvalidRequest("%s: must be a non-empty string" % name)
    return value
