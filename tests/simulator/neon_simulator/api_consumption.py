# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The consumption routes: /api/v2 (consumption history (account and per project), paged and rate limited) and
their control API, HTTP in, State's ``api_*`` methods (consumption.py) out. """

from __future__ import annotations


def consumption_rules():
    """The /api/v2 rules (werkzeug Rule, endpoint ``x`` served by ``_api_x``)."""
    return []


def consumption_control_rules():
    """The /_simulator rules (endpoint ``x`` served by ``_control_x``)."""
    return []


class ConsumptionRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload)."""
