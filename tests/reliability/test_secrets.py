# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The auth key never shows, and a created key's secret shows only in ``key`` of the run that made it.

Every module runs the way users run it, through ansible-playbook and ansible at -vvv with a
log file, through success and failure paths (API errors, faults, timeouts, bad input, check
and diff mode), with the key from module_defaults (as from a vault) and from NEON_API_KEY, each
both ways a module runs: in the controller's process and shipped (neon_cloud_in_controller false).
Everything they print or log is searched.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import subprocess
import sys

import pytest

import neon_reliability as rel
from neon_testing import MODULE_WAYS, ansible_env, localhost_inventory, ran_as, way_args

PLAYBOOK = r"""
- name: Every module, key from module_defaults (as a vaulted variable would give it)
  hosts: localhost
  gather_facts: false
  vars_files:
    - secret.yml
  module_defaults:
    group/neon.cloud.all:
      api_key: "{{ neon_key }}"
      api_url: "{{ sim_url }}"
      api_retries: 2
      api_retry_max_delay: 0.05
      api_timeout: 1
  tasks:
    - name: api_key_info
      neon.cloud.api_key_info:
      register: keys
    - name: projects_info
      neon.cloud.projects_info:
        project_id: "{{ project_id }}"
    - name: operation_info (list)
      neon.cloud.operation_info:
        project_id: "{{ project_id }}"
        max_results: 3
    - name: operation_info (unknown operation, 404)
      neon.cloud.operation_info:
        project_id: "{{ project_id }}"
        operation_id: 0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10
      ignore_errors: true
    - name: operation_info (unknown project, 404)
      neon.cloud.operation_info:
        project_id: no-such-project-00000000
      ignore_errors: true
    - name: Fault - GET /projects answers 503 for good
      ansible.builtin.uri:
        url: "{{ control_url }}/faults"
        method: POST
        body_format: json
        body: {method: GET, path: /api/v2/projects, status: 503, count: 1000}
        status_code: 201
    - name: projects_info (503 until the retries run out)
      neon.cloud.projects_info:
      ignore_errors: true
    - name: Fault - GET /api_keys answers an HTML page
      ansible.builtin.uri:
        url: "{{ control_url }}/faults"
        method: POST
        body_format: json
        body: {method: GET, path: /api/v2/api_keys, body: html, count: 1000}
        status_code: 201
    - name: api_key_info (HTML body)
      neon.cloud.api_key_info:
      ignore_errors: true
    - name: Clear the faults
      ansible.builtin.uri:
        url: "{{ control_url }}/faults"
        method: DELETE
    - name: api_key (create, check mode and diff)
      neon.cloud.api_key:
        name: secrets-test
      check_mode: true
      diff: true
    - name: api_key (create, diff)
      neon.cloud.api_key:
        name: secrets-test
      diff: true
      register: created
    - name: api_key (exists now, no secret)
      neon.cloud.api_key:
        name: secrets-test
      register: again
    - name: api_key (rotate, diff)
      neon.cloud.api_key:
        name: secrets-test
        rotate: true
      diff: true
      register: rotated
    - name: Fault - POST /api_keys is carried out, then the connection drops
      ansible.builtin.uri:
        url: "{{ control_url }}/faults"
        method: POST
        body_format: json
        body: {method: POST, path: /api/v2/api_keys, drop: true, apply: true}
        status_code: 201
    - name: api_key (create, answer lost)
      neon.cloud.api_key:
        name: secrets-lost
      ignore_errors: true
      register: lost
    - name: Fault - POST /api_keys is carried out, the answer comes back cut
      ansible.builtin.uri:
        url: "{{ control_url }}/faults"
        method: POST
        body_format: json
        body: {method: POST, path: /api/v2/api_keys, body: truncated}
        status_code: 201
    - name: api_key (create, answer cut in half)
      neon.cloud.api_key:
        name: secrets-cut
      ignore_errors: true
    - name: Fault - POST /api_keys answers late
      ansible.builtin.uri:
        url: "{{ control_url }}/faults"
        method: POST
        body_format: json
        body: {method: POST, path: /api/v2/api_keys, latency: 1.5}
        status_code: 201
    - name: api_key (create, no answer within api_timeout)
      neon.cloud.api_key:
        name: secrets-late
        api_timeout: 0.5
      ignore_errors: true
    - name: api_key (state=absent, diff)
      neon.cloud.api_key:
        name: secrets-test
        state: absent
      diff: true
    - name: api_key (name too long)
      neon.cloud.api_key:
        name: "{{ 'x' * 65 }}"
      ignore_errors: true
    - name: api_key (a wrong key, 401)
      neon.cloud.api_key_info:
        api_key: "{{ wrong_key }}"
      ignore_errors: true
    - name: api_key_info (the key with a line break pasted into it)
      neon.cloud.api_key_info:
        api_key: "{{ neon_key[:20] }}\n{{ neon_key[20:] }}"
      ignore_errors: true
    - name: projects_info (plain http to another host)
      neon.cloud.projects_info:
        api_url: http://neon.example.com/api/v2
      ignore_errors: true
    - name: Start operations
      ansible.builtin.uri:
        url: "{{ control_url }}/projects/{{ project_id }}/operations"
        method: POST
        body_format: json
        body: {operations: [{action: create_branch, duration: 0.3}, {action: start_compute, duration: 0.3}]}
        status_code: 201
      register: started
    - name: operation_wait (operations)
      neon.cloud.operation_wait:
        operations: "{{ started.json.operations }}"
        poll_interval: 0.1
        timeout: 20
    - name: Start an operation that fails and one that lasts
      ansible.builtin.uri:
        url: "{{ control_url }}/projects/{{ project_id }}/operations"
        method: POST
        body_format: json
        body: {operations: [{action: apply_config, duration: 0.2, outcome: failed}, {action: suspend_compute, duration: 30}]}
        status_code: 201
      register: bad
    - name: operation_wait (failed operation)
      neon.cloud.operation_wait:
        operations: "{{ bad.json.operations[:1] }}"
        poll_interval: 0.1
      ignore_errors: true
    - name: operation_wait (timeout)
      neon.cloud.operation_wait:
        operations: "{{ bad.json.operations[1:] }}"
        poll_interval: 0.1
        timeout: 0.4
      ignore_errors: true
    - name: operation_wait (poll_interval greater than timeout)
      neon.cloud.operation_wait:
        project_id: "{{ project_id }}"
        poll_interval: 5
        timeout: 1
      ignore_errors: true
    - name: The runs did what they should
      ansible.builtin.assert:
        that:
          - created is changed and created.key is defined and created.key | length == 64
          - again is not changed and again.key is not defined
          - rotated.key is defined and rotated.key != created.key
          - rotated.revoked_keys | map(attribute='id') | list == [created.api_key.id]
          - lost is failed and lost.key is not defined and 'Nothing was created twice' in lost.msg

- name: Key from the NEON_API_KEY environment variable
  hosts: localhost
  gather_facts: false
  module_defaults:
    group/neon.cloud.all:
      api_retries: 1
      api_retry_max_delay: 0.05
  tasks:
    - name: api_key_info
      neon.cloud.api_key_info:
    - name: operation_info (unknown project, 404)
      neon.cloud.operation_info:
        project_id: no-such-project-00000000
      ignore_errors: true
    - name: operation_wait (malformed id)
      neon.cloud.operation_wait:
        project_id: no-such-project-00000000
        operation_ids: [not-an-id]
      ignore_errors: true
"""

# How a run's line in the reliability report names the way its modules ran (in the controller: as before).
_WAY_NOTE = {"in_controller": "", "shipped": ", modules shipped"}

KEY_RESULT = re.compile(r'"key": "([a-z0-9]{64})"')


def _env(tmp_path, collection_parent, sim, **extra):
    return ansible_env(tmp_path, collection_parent, ANSIBLE_LOG_PATH=tmp_path / "ansible.log", NEON_API_URL=sim.url,
                       **extra)


def _all_output(tmp_path, proc):
    log = tmp_path / "ansible.log"
    return proc.stdout + proc.stderr + (log.read_text() if log.exists() else "")


def _fragments(secret, size=16):
    return [secret[start:start + size] for start in range(0, len(secret) - size + 1)]


def _scan(text, auth_key, extra_secrets=()):
    """(leaks, created secrets) of one run's whole output.

    A leak is any 16 characters of a secret in a row: an escaped or split copy counts too.
    """
    leaks = sorted(set(fragment for secret in (auth_key,) + tuple(extra_secrets)
                       for fragment in _fragments(secret) if fragment in text))
    return leaks, sorted(set(KEY_RESULT.findall(text)))


@pytest.fixture
def secret_sim(fresh_sim):
    return fresh_sim


@pytest.mark.parametrize("way", MODULE_WAYS)
def test_playbook_at_vvv_never_shows_the_auth_key(tmp_path, collection_parent, secret_sim, auth_key, results, way):
    sim = secret_sim
    wrong_key = "wrongkey" + auth_key[::-1][:30]
    (tmp_path / "secret.yml").write_text("neon_key: %s\nwrong_key: %s\n" % (auth_key, wrong_key))
    (tmp_path / "site.yml").write_text(PLAYBOOK)
    extra = "sim_url=%s control_url=%s project_id=%s" % (sim.url, sim.control_url, sim.demo_project_id)
    proc = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-vvv", "-i", localhost_inventory(tmp_path),
         "site.yml", "-e", extra] + way_args(way),
        cwd=str(tmp_path), env=_env(tmp_path, collection_parent, sim, NEON_API_KEY=auth_key),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=300, check=False)
    text = _all_output(tmp_path, proc)
    leaks, secrets = _scan(text, auth_key, (wrong_key,))
    time_late = [key for key in sim.keys() if key["name"] == "secrets-late"]
    results["secrets"].append(dict(run="ansible-playbook -vvv (%d tasks)%s" % (PLAYBOOK.count("- name:"), _WAY_NOTE[way]),
                                   output_chars=len(text), leaks=len(leaks), secrets_shown=len(secrets),
                                   rc=proc.returncode))
    assert proc.returncode == 0, text[-8000:]
    assert ran_as(text, way), way
    assert not leaks, "secret found in the output"
    recap = re.search(r"localhost\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=0\s+failed=0\s+skipped=0\s+"
                      r"rescued=0\s+ignored=(\d+)", text)
    assert recap and int(recap.group(3)) == 16, text[-3000:]
    assert "Traceback" not in text and "MODULE FAILURE" not in text
    # two keys were created with their secret returned (create, rotate): each secret is shown only
    # as the value of `key` in the result of the task that created it
    assert len(secrets) == 2, secrets
    for secret in secrets:
        assert text.count(secret) == len(re.findall(r'"key": "%s"' % secret, text)) >= 1
    # every secret the simulator holds for a key made by the playbook: only ever as `key` of its task
    made = [secret for secret, key in sim.state.shared.keys_by_secret.items() if key.name.startswith("secrets-")]
    assert len(made) == 5, len(made)  # create, rotate, lost, cut, late
    for secret in made:
        assert text.count(secret) == len(re.findall(r'"key": "%s"' % secret, text)), "secret outside `key`"
    loose = [token for token in re.findall(r"(?<![a-z0-9])[a-z0-9]{64}(?![a-z0-9])", text) if token not in secrets]
    assert not loose, "64-character secrets outside a `key` result"
    # the lost answer and the late answer: the key exists once, its secret never appeared
    assert len([key for key in sim.keys() if key["name"] == "secrets-lost"]) == 1
    assert len(time_late) <= 1


def _adhoc(tmp_path, collection_parent, sim, args, way="in_controller", **env):
    proc = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "ansible"), "localhost", "-vvv", "-i", localhost_inventory(tmp_path),
         "-m", "neon.cloud.projects_info", "-a", args] + way_args(way),
        cwd=str(tmp_path), env=_env(tmp_path, collection_parent, sim, **env),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=120, check=False)
    return proc, _all_output(tmp_path, proc)


@pytest.mark.parametrize("way", MODULE_WAYS)
@pytest.mark.parametrize("outcome", ["ok", "failed"])
def test_adhoc_at_vvv_never_shows_the_auth_key(tmp_path, collection_parent, sim, auth_key, results, outcome, way):
    """Ad-hoc, the way docs/docsite/rst/adhoc.rst says: the key in NEON_API_KEY."""
    if outcome == "failed":
        sim.add_fault(method="GET", path="/api/v2/projects", body="empty", count=1000)
    proc, text = _adhoc(tmp_path, collection_parent, sim, "api_retries=1 api_retry_max_delay=0.05", way=way,
                        NEON_API_KEY=auth_key)
    leaks, _secrets = _scan(text, auth_key)
    results["secrets"].append(dict(run="ansible -vvv -m projects_info, key in NEON_API_KEY (%s)%s" % (outcome, _WAY_NOTE[way]),
                                   output_chars=len(text), leaks=len(leaks), secrets_shown=0, rc=proc.returncode))
    assert proc.returncode == (0 if outcome == "ok" else 2), text[-4000:]
    assert ran_as(text, way), way
    assert not leaks, "the auth key is in the output"
    assert "Traceback" not in text
    if outcome == "failed":
        assert "GET /projects?limit=400 failed: HTTP 502: the service answered an empty body" in text


@pytest.mark.xfail(strict=True, reason="ansible-core 2.19 prints an ad-hoc task's arguments, api_key included, "
                                       "in the 'Origin:' of a failed task; outside the collection's reach")
def test_adhoc_with_the_key_in_the_command_line_args(tmp_path, collection_parent, sim, auth_key, results):
    """Documents why the key must not be passed with -a: ansible itself shows it when the task fails.

    strict: when ansible-core stops doing that, this test fails and the docs can relax the advice.
    """
    sim.add_fault(method="GET", path="/api/v2/projects", body="empty", count=1000)
    proc, text = _adhoc(tmp_path, collection_parent, sim,
                        "api_key=%s api_retries=0" % auth_key)
    leaks, _secrets = _scan(text, auth_key)
    results["other"].append(dict(check="ad-hoc with api_key=... in -a, task fails",
                                 outcome="key shown by ansible-core in 'Origin:' (strict xfail)" if leaks else "not shown"))
    assert proc.returncode == 2 and not leaks


PROVISIONING_PLAYBOOK = r"""
- name: The provisioning modules, whose results carry passwords in documented return values only
  hosts: localhost
  gather_facts: false
  vars_files:
    - secret.yml
  module_defaults:
    group/neon.cloud.all:
      api_key: "{{ neon_key }}"
      api_url: "{{ sim_url }}"
      api_retries: 1
      api_retry_max_delay: 0.05
  tasks:
    - name: project (create, diff)
      neon.cloud.project:
        name: secrets-app
      diff: true
      register: project
    - name: project (again, diff)
      neon.cloud.project:
        name: secrets-app
      diff: true
    - name: branch (create in check mode, diff)
      neon.cloud.branch:
        project_id: "{{ project.project.id }}"
        name: pr-1
      check_mode: true
      diff: true
    - name: branch (create, diff)
      neon.cloud.branch:
        project_id: "{{ project.project.id }}"
        name: pr-1
      diff: true
    - name: connection_info (pooled)
      neon.cloud.connection_info:
        project_id: "{{ project.project.id }}"
        branch: pr-1
        pooled: true
    - name: branch_info
      neon.cloud.branch_info:
        project_id: "{{ project.project.id }}"
    - name: Fault - the next start_compute of the project fails
      ansible.builtin.uri:
        url: "{{ control_url }}/next_operations"
        method: POST
        body_format: json
        body: {action: start_compute, project_id: "{{ project.project.id }}", outcome: failed, error: no capacity}
        status_code: [200, 201]
    - name: branch (create, its compute fails to start)
      neon.cloud.branch:
        project_id: "{{ project.project.id }}"
        name: pr-2
      ignore_errors: true
      register: unlucky
    - name: connection_info (a role that does not exist)
      neon.cloud.connection_info:
        project_id: "{{ project.project.id }}"
        role: nobody
      ignore_errors: true
    - name: role (create, diff)
      neon.cloud.role:
        project_id: "{{ project.project.id }}"
        name: app
      diff: true
    - name: role (reset its password, diff)
      neon.cloud.role:
        project_id: "{{ project.project.id }}"
        name: app
        reset_password: true
      diff: true
    - name: role (read its password)
      neon.cloud.role:
        project_id: "{{ project.project.id }}"
        name: app
        reveal_password: true
    - name: database (create, diff)
      neon.cloud.database:
        project_id: "{{ project.project.id }}"
        name: shop
        owner: app
      diff: true
    - name: endpoint (resize, diff)
      neon.cloud.endpoint:
        project_id: "{{ project.project.id }}"
        max_cu: 2
      diff: true
    - name: branch_info (roles and databases)
      neon.cloud.branch_info:
        project_id: "{{ project.project.id }}"
        roles_and_databases: true
    - name: Fault - the next apply_config of the project fails
      ansible.builtin.uri:
        url: "{{ control_url }}/next_operations"
        method: POST
        body_format: json
        body: {action: apply_config, project_id: "{{ project.project.id }}", outcome: failed, error: not applied}
        status_code: [200, 201]
    - name: role (create, its configuration fails to apply)
      neon.cloud.role:
        project_id: "{{ project.project.id }}"
        name: unlucky
      ignore_errors: true
      register: unlucky_role
    - name: branch (delete, diff)
      neon.cloud.branch:
        project_id: "{{ project.project.id }}"
        name: pr-1
        state: absent
      diff: true
    - name: The runs did what they should
      ansible.builtin.assert:
        that:
          - project is changed and project.connection_uri is defined
          - unlucky is failed and unlucky.connection_uri is defined
          - unlucky_role is failed and unlucky_role.password is defined
"""

# A documented return value that holds a password: the URI's userinfo, or the password itself.
PASSWORD_FIELDS = r'"(?:connection_uri|uri)": "postgres(?:ql)?://[^:"]+:%s@|"password": "%s"'


@pytest.mark.parametrize("way", MODULE_WAYS)
def test_provisioning_at_vvv_shows_passwords_only_in_their_return_values(
        tmp_path, collection_parent, secret_sim, auth_key, results, way):
    """Passwords (in connection URIs) appear in the results that document them, never in a message,
    a warning, a diff or anything else -vvv prints; the auth key never appears."""
    sim = secret_sim
    (tmp_path / "secret.yml").write_text("neon_key: %s\n" % auth_key)
    (tmp_path / "site.yml").write_text(PROVISIONING_PLAYBOOK)
    extra = "sim_url=%s control_url=%s" % (sim.url, sim.control_url)
    proc = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-vvv", "-i", localhost_inventory(tmp_path),
         "site.yml", "-e", extra] + way_args(way),
        cwd=str(tmp_path), env=_env(tmp_path, collection_parent, sim),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=300, check=False)
    text = _all_output(tmp_path, proc)
    project = [item for item in sim.state.shared.projects.values() if item.name == "secrets-app"]
    assert len(project) == 1, text[-4000:]
    passwords = set()
    for branch in rel.api(sim, "GET", "/projects/%s/branches" % project[0].id)["branches"]:
        path = "/projects/%s/branches/%s/roles" % (project[0].id, branch["id"])
        for role in rel.api(sim, "GET", path)["roles"]:
            passwords.add(rel.api(sim, "GET", "%s/%s/reveal_password" % (path, role["name"]))["password"])
    leaks, _secrets = _scan(text, auth_key)
    outside = {password: text.count(password) - len(re.findall(PASSWORD_FIELDS % ((re.escape(password),) * 2), text))
               for password in passwords}
    results["secrets"].append(dict(run="ansible-playbook -vvv, provisioning (%d tasks)%s"
                                   % (PROVISIONING_PLAYBOOK.count("- name:"), _WAY_NOTE[way]),
                                   output_chars=len(text), leaks=len(leaks) + sum(outside.values()),
                                   secrets_shown=len([password for password in passwords if password in text]),
                                   rc=proc.returncode))
    assert proc.returncode == 0, text[-8000:]
    assert ran_as(text, way), way
    assert not leaks, "the auth key is in the output"
    assert "Traceback" not in text and "MODULE FAILURE" not in text
    assert passwords and all(password in text for password in passwords)  # shown where documented: not vacuous
    assert not any(outside.values()), "a password outside connection_uri/uri/password"
    assert re.search(r"ignored=3\b", text), text[-3000:]
