# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The sharing routes: /api/v2 (project permissions (sharing a project by email) and an organization's members
and invitations) and their control API, HTTP in, State's ``api_*`` methods (sharing.py) out. """

from __future__ import annotations


def sharing_rules():
    """The /api/v2 rules (werkzeug Rule, endpoint ``x`` served by ``_api_x``)."""
    return []


def sharing_control_rules():
    """The /_simulator rules (endpoint ``x`` served by ``_control_x``)."""
    return []


class SharingRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload)."""
