# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The networking routes: /api/v2 (private networking: an organization's VPC endpoints per region and a project's
VPC endpoint restrictions) and their control API, HTTP in, State's ``api_*`` methods (networking.py) out. """

from __future__ import annotations


def networking_rules():
    """The /api/v2 rules (werkzeug Rule, endpoint ``x`` served by ``_api_x``)."""
    return []


def networking_control_rules():
    """The /_simulator rules (endpoint ``x`` served by ``_control_x``)."""
    return []


class NetworkingRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload)."""
