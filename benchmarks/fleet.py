# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""8. A fleet held to one baseline: every project of an organization, one play over the inventory.

What a scheduled baseline job costs once the fleet is as asked: ``ansible-playbook`` over the
``neon.cloud.projects`` inventory, one ``neon.cloud.project`` task with every setting of the baseline and one
``neon.cloud.project_permission`` task (its collaborators, exclusive) per project, unchanged (no change sent,
``changed=0``; three reads a project).

Side by side in one run, for each fleet size (``sizes``, 100 and 1,000 by default) and each way the modules run
(``ways``): ``shipped`` (``-e neon_cloud_in_controller=false``: each task ships its module to a Python of its own,
AnsiballZ) and ``controller`` (the default: the module's code in the controller's worker process). Each is
measured for wall time, CPU (``ansible-playbook`` and everything it ran, from ``getrusage`` of the reaped
children) per project and requests per project (the simulator's log). These runs leave the pace off
(``NEON_API_RATE_LIMIT=0``; the simulator has no limit): they measure Ansible's and the modules' own cost. Beside
them, the least a client can do to know the same: a plain ``requests`` loop of the same three reads.

Then the pace (``limited``: 1,000 projects by default, 0 leaves it out): a simulator of its own that limits the
key to Neon's 700 requests a minute (bursts of 40), the play in the controller at 50 forks with the pace as it
comes by default: wall time against the floor (every request of the run at 700 a minute), hosts failed, and the
429s the service answered.

Until the modules can run in the controller, both ways are the same code; the variable is then ignored, and the
two columns measure the same path (their difference is the noise).
"""

import json
import os
import re
import resource
import subprocess
import sys
import time

import requests

FLEET_ORG = "bench-fleet"
WAYS = ("shipped", "controller")
# The variable that makes a task ship its module as before the modules ran in the controller.
SHIPPED_VARIABLE = "neon_cloud_in_controller=false"
# Neon's limit (docs/docsite/rst/api-behaviour.rst, "Errors, limits and retries"): about 700 requests a minute
# per account, bursts to 40 a second.
SERVICE_PER_MINUTE = 700.0
SERVICE_BURST = 40
PLAY_TIMEOUT = 4 * 3600
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
    return len(rows), sum(row[1] for row in rows), sum(1 for row in rows if row[2] + row[3])


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class Fleet:
    """Organizations of ``size`` projects at the baseline in one simulator, and the play over each."""

    def __init__(self, sim, collection, ansible_playbook, log=print):
        self.sim = sim
        self.collection = collection
        self.ansible_playbook = ansible_playbook
        self.log = log
        self.play = os.path.join(collection.root, "fleet.yml")
        with open(self.play, "w", encoding="utf-8") as handle:
            handle.write(PLAY % dict(BASELINE, settings=json.dumps(BASELINE["settings"]),
                                     collaborators=json.dumps(BASELINE["collaborators"])))
        self.orgs = {}

    def prepare(self, size):
        """An organization of ``size`` projects, each brought to the baseline through the API (two requests a
        project; not measured); its inventory file."""
        org_id = self.sim.create_organization("%s-%d" % (FLEET_ORG, size))
        self.sim.create_projects(size, org_id)
        project_ids = sorted(project["id"] for org in self.sim.info()["organizations"] if org["id"] == org_id
                             for project in org["projects"])
        if len(project_ids) != size:
            raise RuntimeError("the fleet organization has %d projects, not %d" % (len(project_ids), size))
        session = requests.Session()
        session.headers.update(self.sim.headers)
        body = {"project": {"history_retention_seconds": BASELINE["history_retention_seconds"],
                            "settings": BASELINE["settings"]}}
        for project_id in project_ids:
            url = "%s/projects/%s" % (self.sim.api_url, project_id)
            session.patch(url, json=body, timeout=60).raise_for_status()
            for email in BASELINE["collaborators"]:
                session.post(url + "/permissions", json={"email": email}, timeout=60).raise_for_status()
        session.close()
        inventory = os.path.join(self.collection.root, "fleet-%d.neon.yml" % size)
        with open(inventory, "w", encoding="utf-8") as handle:
            handle.write("plugin: neon.cloud.projects\norg_ids: [%s]\n" % org_id)
        self.orgs[size] = (inventory, set(project_ids))

    def play_once(self, size, forks, extra=(), rate_limit=0):
        """One unchanged run of the play over ``size`` projects: wall, CPU, requests, hosts failed."""
        inventory, project_ids = self.orgs[size]
        env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=self.collection.root, ANSIBLE_NOCOLOR="1",
                   ANSIBLE_FORCE_COLOR="0", ANSIBLE_LOCALHOST_WARNING="False", ANSIBLE_HOST_KEY_CHECKING="False",
                   ANSIBLE_LOCAL_TEMP=os.path.join(self.collection.root, "ansible-local"),
                   NEON_API_URL=self.sim.api_url, NEON_API_KEY=self.sim.api_key)
        if rate_limit is None:
            env.pop("NEON_API_RATE_LIMIT", None)  # the modules' default pace
        else:
            env["NEON_API_RATE_LIMIT"] = str(rate_limit)
        command = [self.ansible_playbook, "-f", str(forks), "-i", inventory, self.play,
                   "-e", "ansible_python_interpreter=%s" % sys.executable] + list(extra)
        self.sim.clear_requests()
        cpu = _children_cpu()
        started = time.perf_counter()
        completed = subprocess.run(command, env=env, cwd=self.collection.root, capture_output=True,
                                   timeout=PLAY_TIMEOUT, check=False)
        elapsed = time.perf_counter() - started
        cpu = _children_cpu() - cpu
        stdout = completed.stdout.decode("utf-8", "replace")
        hosts, changed, failed = _recap(stdout)
        log = self.sim.requests_log()
        named = sum(1 for entry in log if _PROJECT_PATH_RE.match(entry["path"])
                    and _PROJECT_PATH_RE.match(entry["path"]).group(1) in project_ids)
        return {"seconds": elapsed, "cpu": cpu, "hosts": hosts, "changed": changed, "failed": failed,
                "rc": completed.returncode, "requests": named, "all_requests": len(log),
                "limited": sum(1 for entry in log if entry["status"] == 429),
                "tail": (stdout[-600:] + completed.stderr.decode("utf-8", "replace")[-400:])
                if completed.returncode else ""}

    def plain_once(self, size):
        """The same three reads in a plain ``requests`` loop (the floor of requests, not a rival)."""
        _inventory, project_ids = self.orgs[size]
        session = requests.Session()
        session.headers.update(self.sim.headers)
        self.sim.clear_requests()
        cpu = time.process_time()
        started = time.perf_counter()
        for project_id in sorted(project_ids):
            base = "%s/projects/%s" % (self.sim.api_url, project_id)
            for path in ("", "/operations?limit=1", "/permissions"):
                session.get(base + path, timeout=60).raise_for_status()
        elapsed = time.perf_counter() - started
        cpu = time.process_time() - cpu
        session.close()
        return {"seconds": elapsed, "cpu": cpu, "requests": len(self.sim.requests_log())}


def checked(sample, size, label):
    """A run that failed, or changed something, does not measure an unchanged fleet: stop and say why."""
    if sample["rc"] != 0 or sample["failed"] or sample["hosts"] != size or sample["changed"]:
        raise RuntimeError("the fleet play (%s, %d projects) did not run unchanged (rc %s, %d hosts, %d failed, %d "
                           "changed): %s" % (label, size, sample["rc"], sample["hosts"], sample["failed"],
                                             sample["changed"], sample["tail"]))
    return sample


def fleet(sim, collection, ansible_playbook, sizes=(100, 1000), ways=WAYS, runs=1, forks=5, shipped_up_to=None,
          log=print):
    """The side-by-side part: for each size, ``runs`` unchanged runs each way, and the plain loop. ``shipped_up_to``:
    the largest size the shipped way runs at (its CPU is the same per project at every size; at 1,000 projects it
    takes about 40 minutes of two cores), None for every size."""
    bench = Fleet(sim, collection, ansible_playbook, log=log)
    results = {"sizes": list(sizes), "ways": list(ways), "forks": forks, "runs": runs, "cells": {}, "plain": {},
               "shipped_up_to": shipped_up_to}
    for size in sizes:
        log("  fleet: %d projects at the baseline" % size)
        bench.prepare(size)
        for way in ways:
            if way == "shipped" and shipped_up_to is not None and size > shipped_up_to:
                log("  fleet %d projects, shipped: left out (--fleet-shipped-up-to %d)" % (size, shipped_up_to))
                continue
            extra = ("-e", SHIPPED_VARIABLE) if way == "shipped" else ()
            samples = []
            for run in range(runs):
                samples.append(checked(bench.play_once(size, forks, extra), size, way))
                log("  fleet %d projects, %s, run %d/%d: %.1f s, %.3f s CPU a project, %.2f requests a project" % (
                    size, way, run + 1, runs, samples[-1]["seconds"], samples[-1]["cpu"] / size,
                    samples[-1]["requests"] / float(size)))
            results["cells"]["%d/%s" % (size, way)] = samples
        results["plain"][str(size)] = bench.plain_once(size)
    return results


def limited(sim, collection, ansible_playbook, size=1000, forks=50, log=print):
    """The paced part: ``sim`` limits the key to Neon's 700 requests a minute; the play in the controller with the
    modules' default pace. Wall time against the floor, hosts failed, 429s answered."""
    bench = Fleet(sim, collection, ansible_playbook, log=log)
    log("  fleet, paced: %d projects at the baseline (the limit is off while they are made)" % size)
    bench.prepare(size)
    sim.set_rate_limits(per_key=SERVICE_PER_MINUTE / 60.0, per_key_burst=SERVICE_BURST)
    sample = bench.play_once(size, forks, rate_limit=None)
    floor = sample["all_requests"] / (SERVICE_PER_MINUTE / 60.0)
    log("  fleet, paced: %d projects at %d forks: %.1f s (floor %.1f s, x%.2f), %d hosts failed, %d answers 429" % (
        size, forks, sample["seconds"], floor, sample["seconds"] / floor, sample["failed"], sample["limited"]))
    return dict(sample, size=size, forks=forks, floor=floor, service_per_minute=SERVICE_PER_MINUTE,
                service_burst=SERVICE_BURST)
