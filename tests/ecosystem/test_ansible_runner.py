# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/demo.yml run through ansible-runner (as AWX runs jobs), with the connection
given the way the AWX credential type injects it: NEON_API_KEY and NEON_API_URL in the env.

The job runs the demo's plays about API keys (tags ``tour`` and ``ci_key``: a key created, rotated
and revoked under no_log, an operation waited for), whose secrets look like the key that
authenticates and so are searched for in every event and artifact; the pull request's play (tag
``pull_request``) is the demo target's (tests/integration/targets/demo), run on two ansible-cores."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import sys

import pytest

from ecosystem_support import load_credential_type, render_credential_env
from neon_testing import BIN_DIR, ROOT, ansible_env, tool

try:
    import ansible_runner
except ImportError:  # pragma: no cover - the test environment has it (requirements-test.txt)
    ansible_runner = None

# A Neon API key is 64 characters of [a-z0-9]; nothing else in a run's output looks like one.
SECRET_LIKE = re.compile(r"(?<![a-z0-9])[a-z0-9]{64}(?![a-z0-9])")


def test_demo_playbook_runs_under_ansible_runner(simulator, collection_parent, tmp_path):
    if ansible_runner is None:
        pytest.fail("ansible-runner is not installed for %s: pip install -r requirements-test.txt" % sys.executable)
    env, safe_env = render_credential_env(load_credential_type(), {"api_key": simulator.api_key, "api_url": simulator.url})
    assert set(env) == {"NEON_API_KEY", "NEON_API_URL"}
    # ansible-runner starts `ansible-playbook` from PATH: ansible_env puts this Python's first
    envvars = ansible_env(tmp_path, collection_parent, **env)
    assert os.path.dirname(tool("ansible-playbook")) == BIN_DIR
    private_data_dir = tmp_path / "runner"
    private_data_dir.mkdir()
    result = ansible_runner.run(
        private_data_dir=str(private_data_dir),
        playbook=os.path.join(ROOT, "playbooks", "demo.yml"),
        envvars=envvars,
        tags="tour,ci_key",
        quiet=True,
        timeout=240,
    )
    stdout = result.stdout.read()
    events = list(result.events)
    assert result.status == "successful" and result.rc == 0, "%s rc=%s\n%s" % (result.status, result.rc, stdout[-6000:])

    stats = result.stats
    assert stats["failures"] == {} and stats["dark"] == {}, stats
    assert stats["ok"].get("localhost", 0) >= 10, stats
    names = [event["event_data"].get("task") for event in events if event.get("event") == "runner_on_ok"]
    assert "Wait for the operations it started" in names and "Revoke the CI key" in names
    assert "Create a branch for pull request 123 from main, with a compute, and wait until it is ready" not in names

    # The key reached the modules only through the environment: it is in no event and not in stdout.
    event_text = json.dumps(events)
    assert simulator.api_key not in stdout
    assert simulator.api_key not in event_text
    # Nor in the artifacts AWX would keep (job events and stdout), nor any other key-like secret,
    # such as the one the demo creates under no_log.
    artifacts = private_data_dir / "artifacts"
    kept = []
    for path in sorted(artifacts.rglob("*")):
        if path.is_file() and (path.parent.name == "job_events" or path.name == "stdout"):
            kept.append(path.read_text(errors="replace"))
    kept_text = "\n".join(kept)
    assert kept, "ansible-runner wrote no job events"
    assert simulator.api_key not in kept_text
    leaked = SECRET_LIKE.findall(stdout + event_text + kept_text)
    assert not leaked, "key-like strings in the run's output: %s" % leaked[:3]
    # What AWX would store with the job shows no secret either.
    assert safe_env["NEON_API_KEY"] == "**********"
