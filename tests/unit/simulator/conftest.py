# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Make tests/simulator importable (also from a copy under ansible_collections/neon/cloud/)."""

from __future__ import annotations

import os
import sys

SIMULATOR_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                             "simulator")
if SIMULATOR_DIR not in sys.path:
    sys.path.insert(0, SIMULATOR_DIR)
