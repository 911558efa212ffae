# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A local simulator of Neon's control-plane HTTP API v2 (test tooling).

    from neon_simulator import Simulator
    with Simulator(api_key="secret", seed=1) as sim:
        ...  # sim.url == "http://127.0.0.1:PORT/api/v2"

See tests/simulator/README.md.
"""

from __future__ import annotations

from .clock import Clock
from .records import ALL_STATUSES, END_STATUSES, FAILURE_STATUSES, IN_PROGRESS_STATUSES, SUCCESS_STATUSES
from .seed import DEMO_PROJECT_ID, DEMO_PROJECT_NAME
from .server import Simulator

__all__ = [
    "ALL_STATUSES", "Clock", "DEMO_PROJECT_ID", "DEMO_PROJECT_NAME", "END_STATUSES", "FAILURE_STATUSES",
    "IN_PROGRESS_STATUSES", "SUCCESS_STATUSES", "Simulator",
]
