# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The snapshots (create, list, rename, delete, restore, finalize) and a branch's backup schedule: State's half
(governance-recovery-api-notes.md section 6).

Mixed into State (state.py): every ``api_*`` method takes the authenticating key, holds the state's
lock and answers JSON-like data; ``_reset_snapshots`` puts the seeded state back.
"""

from __future__ import annotations


class SnapshotsMixin:
    """The snapshots half of State (see the module's text)."""

    def _reset_snapshots(self):
        """Back to the seeded state (called by State.reset, with the lock held)."""
