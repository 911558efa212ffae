# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One pace for every fork (docs/docsite/rst/api-behaviour.rst, "Pacing"): a play of 50 forks over an
inventory's projects, against a simulator that answers 429 past a low limit per key, never gets one.

The tasks may not retry (``api_retries: 0``), so a single 429 fails a host: without a pace shared by the
forks and the inventory, the forks together send faster than the key may. The limit is set through
NEON_API_RATE_LIMIT, which an older collection ignores: there the same play fails on 429.
The full-size version (1,000 projects at Neon's 700 requests a minute) is the benchmark's fleet part.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import secrets
import subprocess
import sys
import time

import pytest

from neon_testing import ansible_env

PROJECTS = 24
FORKS = 50
# The simulator's limit per key: 2 requests a second after a burst of 10. The pace, 100 a minute, is below it,
# with a burst of 6 (four seconds' worth).
SERVICE_RATE = 2.0
SERVICE_BURST = 10
PACE_PER_MINUTE = 100
PLAY = """- name: Every project, read by 50 forks at once
  hosts: all
  gather_facts: false
  module_defaults:
    group/neon.cloud.all:
      api_retries: 0
  tasks:
    - name: The project is there, and nothing runs on it
      neon.cloud.project:
        id: "{{ neon_id }}"
"""
_RECAP = re.compile(r"^(\S+)\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.MULTILINE)


@pytest.fixture
def limited_sim():
    """A simulator of its own (its own URL: a pace of its own), its key limited to SERVICE_RATE a second."""
    from neon_simulator import Simulator

    simulator = Simulator(api_key="pace" + secrets.token_hex(24), seed=1, host="127.0.0.1", port=0,
                          operation_pace=0.1)
    simulator.start()
    try:
        yield simulator
    finally:
        simulator.stop()


def test_fifty_forks_over_an_inventory_share_one_pace_and_no_host_fails_on_429(
        tmp_path, collection_parent, limited_sim):
    sim = limited_sim
    org = sim.create_organization(name="Paced fleet", members=["bootstrap"], projects=PROJECTS)
    project_ids = set(project["id"] for project in org["projects"])
    assert len(project_ids) == PROJECTS
    sim.set_rate_limits(per_key=SERVICE_RATE, per_key_burst=SERVICE_BURST)
    sim.clear_requests()
    (tmp_path / "fleet.neon.yml").write_text("plugin: neon.cloud.projects\napi_retries: 0\norg_ids: [%s]\n" % org["id"])
    (tmp_path / "play.yml").write_text(PLAY)
    env = ansible_env(tmp_path, collection_parent, NEON_API_URL=sim.url, NEON_API_KEY=sim.api_key,
                      NEON_API_RATE_LIMIT=PACE_PER_MINUTE, ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED="true")
    started = time.monotonic()
    proc = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-f", str(FORKS), "-i", "fleet.neon.yml",
         "play.yml"], cwd=str(tmp_path), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True, timeout=300, check=False)
    elapsed = time.monotonic() - started
    log = sim.requests()
    limited = [entry for entry in log if entry["status"] == 429]
    assert not limited, "%d requests got 429 (%s ...): %s" % (
        len(limited), limited[0]["path"], (proc.stdout + proc.stderr)[-3000:])
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
    recap = dict((host, (int(ok), int(failed) + int(unreachable)))
                 for host, ok, _changed, unreachable, failed in _RECAP.findall(proc.stdout))
    assert set(recap) == project_ids and all(counts == (1, 0) for counts in recap.values()), proc.stdout[-3000:]
    # The pace held: after the first burst, no more requests than the pace allows (a little slack for the
    # start of the first second), so the run took at least that long, and all of them went.
    burst = min(40.0, PACE_PER_MINUTE / 60.0 * 4)
    floor = (len(log) - burst) / (PACE_PER_MINUTE / 60.0)
    assert elapsed >= floor - 1.0, (elapsed, floor, len(log))
    assert len(log) >= PROJECTS + 1
