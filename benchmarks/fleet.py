# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""8. A fleet held to one baseline: every project of an organization, one play over the inventory.

What a scheduled baseline job costs once the fleet is as asked: ``ansible-playbook`` over the
``neon.cloud.projects`` inventory of ``count`` projects, one ``neon.cloud.project`` task with every
setting of the baseline and one ``neon.cloud.project_permission`` task (its collaborators, exclusive)
per project, run first to apply it (each project changed) and then again, unchanged (no change sent,
``changed=0``): as it is, with ``wait: false`` (no read of the project's operations), and in check
mode with ``--diff`` (the drift report). Beside it, the least a client can do to know the same: a
plain ``requests`` loop that GETs each project and its grants and compares them. Requests are
counted in the simulator's log, per project.
"""

import os
import re
import subprocess
import sys
import time

import requests

FLEET_ORG = "bench-fleet"
# The baseline every project is held to (what the guide page "One baseline for every project" shows).
BASELINE = {
    "history_retention_seconds": 86400,
    "settings": {
        "allowed_ips": {"ips": ["203.0.113.0/24", "198.51.100.7"], "protected_branches_only": False},
        "maintenance_window": {"weekdays": [6, 7], "start_time": "02:00", "end_time": "04:00"},
        "quota": {"compute_time_seconds": 360000, "logical_size_bytes": 10737418240},
        "block_public_connections": False,
        "block_vpc_connections": False,
        "audit_log_level": "base",
        "preload_libraries": {"use_defaults": True, "enabled_libraries": []},
        "enable_logical_replication": False,
        "hipaa": False,
    },
    "collaborators": ["riley@example.com"],
}
PLAY = """- name: Hold every project to the baseline
  hosts: all
  gather_facts: false
  tasks:
    - name: The project's settings are the baseline's
      neon.cloud.project:
        id: "{{ neon_id }}"
        history_retention_seconds: %(history_retention_seconds)d
        settings: %(settings)s
        wait: "{{ fleet_wait | default(true) }}"

    - name: The project is shared with the baseline's collaborators, and no one else
      neon.cloud.project_permission:
        project_id: "{{ neon_id }}"
        emails: %(collaborators)s
        exclusive: true
"""
_RECAP_RE = re.compile(r"^\S+\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.MULTILINE)
_PROJECT_PATH_RE = re.compile(r"^/api/v2/projects/([^/]+)")


def _recap(stdout):
    """(hosts, changed, failed) summed over the play recap."""
    rows = [tuple(int(value) for value in match.groups()) for match in _RECAP_RE.finditer(stdout)]
    return len(rows), sum(row[1] for row in rows), sum(row[2] + row[3] for row in rows)


def _per_project(log, project_ids):
    """Requests of the log that name one of ``project_ids`` in their path, by method, and the others."""
    named, others, changes = 0, 0, 0
    for entry in log:
        match = _PROJECT_PATH_RE.match(entry["path"])
        if match and match.group(1) in project_ids:
            named += 1
            changes += entry["method"] != "GET"
        else:
            others += 1
    return named, others, changes


def fleet(sim, collection, runs, count=100, ansible_playbook=None, log=print):
    """The baseline play over ``count`` projects: apply, then ``runs`` unchanged runs each way."""
    import json

    org_id = sim.create_organization(FLEET_ORG)
    sim.create_projects(count, org_id)
    project_ids = set(project["id"] for org in sim.info()["organizations"] if org["id"] == org_id
                      for project in org["projects"])
    if len(project_ids) != count:
        raise RuntimeError("the fleet organization has %d projects, not %d" % (len(project_ids), count))
    play = os.path.join(collection.root, "fleet.yml")
    with open(play, "w", encoding="utf-8") as handle:
        handle.write(PLAY % dict(BASELINE, settings=json.dumps(BASELINE["settings"]),
                                 collaborators=json.dumps(BASELINE["collaborators"])))
    inventory = os.path.join(collection.root, "fleet.neon.yml")
    with open(inventory, "w", encoding="utf-8") as handle:
        handle.write("plugin: neon.cloud.projects\norg_ids: [%s]\n" % org_id)
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collection.root, ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0",
               ANSIBLE_LOCALHOST_WARNING="False", ANSIBLE_HOST_KEY_CHECKING="False",
               ANSIBLE_LOCAL_TEMP=os.path.join(collection.root, "ansible-local"),
               NEON_API_URL=sim.api_url, NEON_API_KEY=sim.api_key)
    command = [ansible_playbook, "-i", inventory, play, "-e", "ansible_connection=local",
               "-e", "ansible_python_interpreter=%s" % sys.executable]

    def play_once(*extra):
        sim.clear_requests()
        started = time.perf_counter()
        completed = subprocess.run(command + list(extra), env=env, cwd=collection.root, capture_output=True,
                                   timeout=1800, check=False)
        elapsed = time.perf_counter() - started
        stdout = completed.stdout.decode("utf-8", "replace")
        hosts, changed, failed = _recap(stdout)
        if completed.returncode != 0 or failed or hosts != count:
            raise RuntimeError("the fleet play failed (rc %s, %d hosts, %d failed): %s %s" % (
                completed.returncode, hosts, failed, stdout[-800:], completed.stderr[-400:]))
        named, others, changes = _per_project(sim.requests_log(), project_ids)
        return {"seconds": elapsed, "hosts": hosts, "changed": changed, "requests": named,
                "other_requests": others, "changes_sent": changes,
                "drift_lines": stdout.count("\n+") + stdout.count("\n-") if "--diff" in extra else None}

    def plain_once():
        session = requests.Session()
        session.headers.update(sim.headers)
        sim.clear_requests()
        started = time.perf_counter()
        differing = 0
        for project_id in sorted(project_ids):
            answer = session.get("%s/projects/%s" % (sim.api_url, project_id), timeout=60)
            answer.raise_for_status()
            project = answer.json()["project"]
            settings = project.get("settings") or {}
            grants = session.get("%s/projects/%s/permissions" % (sim.api_url, project_id), timeout=60)
            grants.raise_for_status()
            emails = sorted(grant["granted_to_email"].lower() for grant in grants.json()["project_permissions"])
            differing += any(settings.get(key) != value for key, value in BASELINE["settings"].items()) or \
                project.get("history_retention_seconds") != BASELINE["history_retention_seconds"] or \
                emails != sorted(BASELINE["collaborators"])
        elapsed = time.perf_counter() - started
        session.close()
        # the settings compared as they come (lists in the order given), so some may count as differing
        return {"seconds": elapsed, "requests": len(sim.requests_log()), "differing": differing}

    log("  fleet: applying the baseline to %d projects" % count)
    applied = play_once()
    samples = {"play": [], "play_no_wait": [], "check_diff": [], "plain": []}
    for run in range(runs):
        samples["play"].append(play_once())
        samples["play_no_wait"].append(play_once("-e", "fleet_wait=false"))
        samples["check_diff"].append(play_once("--check", "--diff"))
        samples["plain"].append(plain_once())
        log("  fleet run %d/%d: play %.2f s (changed %d, %d requests), check+diff %.2f s, plain loop %.2f s" % (
            run + 1, runs, samples["play"][-1]["seconds"], samples["play"][-1]["changed"],
            samples["play"][-1]["requests"], samples["check_diff"][-1]["seconds"], samples["plain"][-1]["seconds"]))
    return {"count": count, "applied": applied, "samples": samples, "baseline": BASELINE}
