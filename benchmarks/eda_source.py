# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Event-Driven Ansible source neon.cloud.events: requests per poll by fleet size, and memory over a long run.

Numbers, not pass/fail (docs/docsite/rst/performance.rst, "The event source", cites them):

1. Requests of one poll, counted in the simulator's request log, for an organization of 10, 1,000 and 10,000
   projects (the source's default arguments: events projects, operations, branches and api_keys; 5 projects' details
   a poll), after the first poll.
2. A long run: ``--polls`` polls (default 1440, a day at the default interval of 60 s) of 1,000 projects with the
   simulator's clock moved 60 s before each poll and the fleet changing meanwhile (every 10th poll a project made,
   one deleted and a failed operation started); the source's memory (tracemalloc, the Python heap this process
   grew by; the simulator runs in its own process) and its cursor file's size, every tenth of the run. No sleeping: the clock is the simulator's.

    .nox/pytest/bin/python benchmarks/eda_source.py [--polls N] [--sizes 10,1000,10000]
"""

import argparse
import gc
import importlib.util
import os
import sys
import tempfile
import time
import tracemalloc

import requests

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "simulator"))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))

from neon_simulator.launcher import launch  # noqa: E402  pylint: disable=wrong-import-position
from neon_testing import link_collection  # noqa: E402  pylint: disable=wrong-import-position

ORG = "org-calm-tree-21298941"  # the seeded organization: 3 projects


class Remote:
    """The simulator in its own process (so that only the source's memory is measured here), through its control
    API."""

    def __init__(self, sim):
        self.sim = sim
        self.url, self.api_key = sim.url, sim.api_key
        self.headers = {"Authorization": "Bearer " + sim.api_key}
        self.session = requests.Session()

    def control(self, method, path, body=None):
        answer = self.session.request(method, self.sim.control_url + path, json=body, timeout=120)
        answer.raise_for_status()
        return answer.json()

    def advance_clock(self, seconds):
        self.control("POST", "/clock", {"advance": seconds})

    def time(self):
        return self.control("GET", "/clock")["time"]

    def last_seq(self):
        log = self.control("GET", "/requests")["requests"]
        return log[-1]["seq"] if log else 0

    def requests_since(self, seq):
        return self.control("GET", "/requests?since=%d" % seq)["requests"]


def load_source():
    sys.path.insert(0, link_collection(tempfile.mkdtemp(prefix="eda-bench-")))
    spec = importlib.util.spec_from_file_location(
        "neon_events", os.path.join(ROOT, "extensions", "eda", "plugins", "event_source", "events.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def watcher(events, sim, cursor_file=None):
    settings = events.Settings({"api_key": sim.api_key, "api_url": sim.url, "org_id": ORG,
                                "cursor_file": cursor_file})
    client = events.make_client(settings.connection, sleep=sim.advance_clock)
    return events.Watcher(settings, client=client, now=sim.time)


def simulator():
    return launch(source=os.path.join(ROOT, "tests", "simulator"), operation_pace=0.1)


def per_poll(events, size):
    with simulator() as process:
        sim = Remote(process)
        if size > 3:
            sim.control("POST", "/projects/bulk", {"count": size - 3, "org_id": ORG, "name_prefix": "fleet"})
        watch = watcher(events, sim)
        watch.poll()
        counts = []
        for _poll in range(3):
            sim.advance_clock(60)
            before = sim.last_seq()
            watch.poll()
            log = sim.requests_since(before)
            counts.append((len(log), sum(1 for entry in log if entry["path"] == "/api/v2/projects")))
        return counts


def long_run(events, polls):
    folder = tempfile.mkdtemp(prefix="eda-bench-cursor-")
    cursor = os.path.join(folder, "cursor.json")
    with simulator() as process:
        sim = Remote(process)
        sim.control("POST", "/projects/bulk", {"count": 997, "org_id": ORG, "name_prefix": "fleet"})
        watch = watcher(events, sim, cursor)
        emitted = requests_made = 0
        started = time.monotonic()
        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        rows = []
        for poll in range(1, polls + 1):
            sim.advance_clock(60)
            if poll % 10 == 0:
                made = sim.control("POST", "/projects", {"name": "churn-%d" % poll, "org_id": ORG})
                sim.control("POST", "/projects/%s/operations" % made["id"], {"operations": [
                    {"action": "create_branch", "outcome": "failed", "duration": 0.5}]})
                victim = sorted(watch.state["projects"])[poll % 500]
                sim.session.delete(sim.url + "/projects/" + victim, headers=sim.headers, timeout=30)
            found = watch.poll()
            events.save_cursor(cursor, watch.state)
            emitted += len(found)
            requests_made += watch.requests
            if poll % max(1, polls // 10) == 0 or poll == 1:
                gc.collect()
                current, peak = tracemalloc.get_traced_memory()
                rows.append((poll, (current - base) / 1e6, (peak - base) / 1e6, os.path.getsize(cursor) / 1e6,
                             len(watch.state["projects"]), emitted, requests_made))
        tracemalloc.stop()
        return rows, time.monotonic() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--polls", type=int, default=1440)
    parser.add_argument("--sizes", default="10,1000,10000")
    args = parser.parse_args()
    events = load_source()
    print("1. requests of one poll (default arguments; after the first poll)")
    print("%8s  %s" % ("projects", "requests per poll (of them: project listing pages), three polls"))
    for size in [int(part) for part in args.sizes.split(",") if part]:
        counts = per_poll(events, size)
        print("%8d  %s" % (size, ", ".join("%d (%d)" % count for count in counts)))
    print("\n2. %d polls of 1,000 projects, the simulator's clock 60 s further each poll, the fleet changing" % (
        args.polls))
    rows, seconds = long_run(events, args.polls)
    print("%6s %12s %12s %12s %9s %8s %9s" % ("poll", "heap MB", "peak MB", "cursor MB", "projects", "events",
                                              "requests"))
    for row in rows:
        print("%6d %12.2f %12.2f %12.3f %9d %8d %9d" % row)
    print("(%.0f s of wall time)" % seconds)


if __name__ == "__main__":
    main()
