# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The snapshots routes: /api/v2 (snapshots (create, list, rename, delete, restore, finalize) and a branch's
backup schedule) and their control API, HTTP in, State's ``api_*`` methods (snapshots.py) out. """

from __future__ import annotations


def snapshots_rules():
    """The /api/v2 rules (werkzeug Rule, endpoint ``x`` served by ``_api_x``)."""
    return []


def snapshots_control_rules():
    """The /_simulator rules (endpoint ``x`` served by ``_control_x``)."""
    return []


class SnapshotsRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload)."""
