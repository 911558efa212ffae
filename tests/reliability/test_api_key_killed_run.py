# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""An api_key task killed with SIGKILL after the service created its key, then run again.

An AWX job cancelled or a runner lost kills ansible-playbook and everything it started at any moment.
Here the moment is chosen, not raced: a barrier of the simulator carries the task's POST /api_keys out
and holds its answer (a barrier of two parties, of which only one ever arrives), so the key exists and
its secret is in an answer nobody has read. Then every process of the playbook's tree is killed (Ansible's
workers start sessions of their own, so a process group is not enough), and the same playbook runs again:
it must create no second key, and warn that the key's secret was most likely kept by no run, with the way
out (docs/docsite/rst/key-rotation.rst, "After an interrupted run").
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import signal
import subprocess
import sys
import time

import neon_reliability as rel
from neon_simulator.launcher import kill_tree, process_gone
from neon_testing import ansible_env, localhost_inventory

HELD_FOR = 120  # the barrier holds the create's answer this long at most: far beyond the kill
STARTUP = 90  # seconds ansible-playbook may take on a busy machine to reach the create

PLAYBOOK = """
- name: One api_key task
  hosts: localhost
  gather_facts: false
  tasks:
    - name: The CI key
      neon.cloud.api_key:
        name: "{{ key_name }}"
        api_retries: 0
      register: ci_key
      no_log: true

    - name: What a later task sees of the result, without the secret
      ansible.builtin.copy:
        content: "{{ ci_key | dict2items | rejectattr('key', 'equalto', 'key') | items2dict | to_json }}"
        dest: "{{ playbook_dir }}/result.json"
        mode: "0600"
"""


def _playbook(tmp_path, collection_parent, sim, name, **popen):
    env = ansible_env(tmp_path, collection_parent, NEON_API_URL=sim.url, NEON_API_KEY=sim.api_key)
    command = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", localhost_inventory(tmp_path),
               "site.yml", "-e", "key_name=%s" % name,
               # shipped, so that the module has a process of its own to kill in the middle of its request (in the
               # controller it runs in the play's worker, killed with the play: the same loss of the answer)
               "-e", "neon_cloud_in_controller=false"]
    return subprocess.Popen(command, cwd=str(tmp_path), env=env, **popen)


def test_a_playbook_killed_after_its_key_was_created_leaves_one_key_and_the_rerun_warns_with_the_way_out(
        tmp_path, collection_parent, sim):
    name = rel.unique_name("sigkill")
    (tmp_path / "site.yml").write_text(PLAYBOOK)
    seq = rel.last_seq(sim)
    sim.add_barrier(method="POST", path="/api/v2/api_keys", parties=2, timeout=HELD_FOR)

    with open(str(tmp_path / "killed.out"), "w", encoding="utf-8") as output:
        killed = _playbook(tmp_path, collection_parent, sim, name, stdout=output, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + STARTUP
            while sim.barriers()[0]["answered"] < 1:  # the key is made, its answer held
                assert killed.poll() is None, (tmp_path / "killed.out").read_text()
                assert time.monotonic() < deadline, "the task never reached its create"
                time.sleep(0.05)
            commands = kill_tree(killed.pid)
        finally:
            if killed.poll() is None:
                kill_tree(killed.pid)  # whatever happened above: nothing of the tree left running, or stopped
            killed.wait(timeout=30)
    assert killed.returncode == -signal.SIGKILL
    # the module itself was killed, in the middle of its request: its answer was never sent
    assert [pid for pid, command in commands.items() if "AnsiballZ_api_key" in command], commands
    deadline = time.monotonic() + 30
    while not all(process_gone(pid) for pid in commands):
        assert time.monotonic() < deadline, "processes outlived SIGKILL: %s" % commands
        time.sleep(0.05)
    barrier = sim.barriers()[0]
    assert (barrier["answered"], barrier["open"], barrier["timed_out"]) == (1, False, False), barrier
    sim.clear_barriers()  # the held answer goes to a closed connection

    made = [key for key in sim.keys() if key["name"] == name]
    assert len(made) == 1 and not made[0]["revoked"] and made[0]["last_used_at"] is None, made
    secret = [secret for secret, key in sim.state.shared.keys_by_secret.items() if key.id == made[0]["id"]][0]
    assert not (tmp_path / "result.json").exists()

    rerun = _playbook(tmp_path, collection_parent, sim, name, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                      universal_newlines=True)
    text = rerun.communicate(timeout=300)[0]
    assert rerun.returncode == 0, text
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["changed"] is False and result["action"] == "none" and "key" not in result, result
    assert result["api_key"]["id"] == made[0]["id"]
    # the warning is shown (Ansible wraps long lines) and names the key and the way out
    shown = " ".join(text.split())
    assert "API key %d ('%s'), the newest active key of that name" % (made[0]["id"], name) in shown, text
    assert "most likely no run kept its secret" in shown and "run this task once with rotate=true" in shown, text
    assert secret not in text and secret not in (tmp_path / "killed.out").read_text()
    assert [key["id"] for key in sim.keys() if key["name"] == name] == [made[0]["id"]]
    posts = [entry for entry in sim.requests(since=seq) if entry["method"] == "POST"]
    assert len(posts) == 1, posts
