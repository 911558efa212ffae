# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Event-Driven Ansible source neon.cloud.events: requests per poll by fleet size, and memory over a long run.

Numbers, not pass/fail (docs/docsite/rst/performance.rst, "The event source", cites them):

1. Requests of one poll, counted in the simulator's request log, for an organization of 10, 1,000 and 10,000
   projects (the source's default arguments: events projects, operations, branches and api_keys; 5 projects' details
   a poll), after the first poll.
2. Consumption (``events: [consumption]``): its requests in an hour of polls (60, the simulator's clock 60 s further
   each), for the same sizes: one request of 100 projects a poll while a read is under way, a read every 900 s.
3. A day of polling: ``--polls`` polls (default 1440, a day at the default interval of 60 s) of 1,000 projects,
   the default events and consumption over a limit, with the simulator's clock moved 60 s (``--interval``) before
   each poll by its control endpoint and the fleet changing meanwhile (every 10th poll a project made, one deleted
   and a failed operation started); the source's memory: this process's resident set (RSS, from /proc; the
   simulator runs in its own process) and its Python heap (tracemalloc, what it grew by since the first poll), and
   its cursor file's size, every tenth of the run. No sleeping: the clock is the simulator's.

    .nox/pytest/bin/python benchmarks/eda_source.py [--polls N] [--interval S] [--sizes 10,1000,10000] [--only per-poll,consumption,day]
"""

import argparse
import calendar
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


def limits_at(sim):
    """A compute_unit_seconds limit among the projects' figures of the month (the simulator's grow by 5 to 60 % of the
    time passed since the month started): some projects are over it at the start, some cross it during the day."""
    now = sim.time()
    day = time.gmtime(now)
    elapsed = now - calendar.timegm((day.tm_year, day.tm_mon, 1, 0, 0, 0))
    return {"compute_unit_seconds": int(0.5 * (elapsed + 43200))}


def rss_mb():
    """This process's resident set now (not its peak), in MB."""
    with open("/proc/self/statm", encoding="ascii") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def watcher(source, sim, cursor_file=None, **args):
    settings = source.Settings(dict({"api_key": sim.api_key, "api_url": sim.url, "org_id": ORG,
                                     "cursor_file": cursor_file}, **args))
    client = source.make_client(settings.connection, sleep=sim.advance_clock)
    return source.Watcher(settings, client=client, now=sim.time)


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


def consumption_hour(events, size, polls):
    """Consumption requests at each of ``polls`` polls a minute apart (after the fleet is made)."""
    with simulator() as process:
        sim = Remote(process)
        if size > 3:
            sim.control("POST", "/projects/bulk", {"count": size - 3, "org_id": ORG, "name_prefix": "fleet"})
        watch = watcher(events, sim, events=["consumption"], consumption_limits=limits_at(sim))
        counts = []
        for _poll in range(polls):
            before = sim.last_seq()
            watch.poll()
            counts.append(sum(1 for entry in sim.requests_since(before)
                              if entry["path"] == "/api/v2/consumption_history/v2/projects"))
            sim.advance_clock(60)
        return counts


def long_run(events, polls, interval):
    folder = tempfile.mkdtemp(prefix="eda-bench-cursor-")
    cursor = os.path.join(folder, "cursor.json")
    with simulator() as process:
        sim = Remote(process)
        sim.control("POST", "/projects/bulk", {"count": 997, "org_id": ORG, "name_prefix": "fleet"})
        watch = watcher(events, sim, cursor, events=list(events.DEFAULT_KINDS) + ["consumption"],
                        consumption_limits=limits_at(sim))
        emitted, requests_made, kinds = 0, 0, {}
        started = time.monotonic()
        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        rows = []
        for poll in range(1, polls + 1):
            sim.advance_clock(interval)
            if poll % 10 == 0:
                made = sim.control("POST", "/projects", {"name": "churn-%d" % poll, "org_id": ORG})
                sim.control("POST", "/projects/%s/operations" % made["id"], {"operations": [
                    {"action": "create_branch", "outcome": "failed", "duration": 0.5}]})
                victim = sorted(watch.state["projects"])[poll % 500]
                sim.session.delete(sim.url + "/projects/" + victim, headers=sim.headers, timeout=30)
            found = watch.poll()
            events.save_cursor(cursor, watch.state)
            emitted += len(found)
            for one in found:
                kinds[one["neon"]["type"]] = kinds.get(one["neon"]["type"], 0) + 1
            requests_made += watch.requests
            if poll % max(1, polls // 10) == 0 or poll == 1:
                gc.collect()
                current, peak = tracemalloc.get_traced_memory()
                rows.append((poll, rss_mb(), (current - base) / 1e6, (peak - base) / 1e6,
                             os.path.getsize(cursor) / 1e6, len(watch.state["projects"]), emitted, requests_made))
        tracemalloc.stop()
        return rows, kinds, time.monotonic() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", maxsplit=1)[0])
    parser.add_argument("--polls", type=int, default=1440)
    parser.add_argument("--interval", type=int, default=60)
    parser.add_argument("--sizes", default="10,1000,10000")
    parser.add_argument("--only", default="per-poll,consumption,day")
    args = parser.parse_args()
    parts = args.only.split(",")
    sizes = [int(part) for part in args.sizes.split(",") if part]
    events = load_source()
    print("measured %s" % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    if "per-poll" in parts:
        print("\n1. requests of one poll (default arguments; after the first poll)")
        print("%8s  %s" % ("projects", "requests per poll (of them: project listing pages), three polls"))
        for size in sizes:
            counts = per_poll(events, size)
            print("%8d  %s" % (size, ", ".join("%d (%d)" % count for count in counts)))
    if "consumption" in parts:
        print("\n2. consumption requests in 60 polls a minute apart (20 for more than 1,000 projects; events: consumption;"
              " a read every 900 s)")
        print("%8s %9s %9s  %s" % ("projects", "requests", "most/poll", "per poll"))
        for size in sizes:
            counts = consumption_hour(events, size, 60 if size <= 1000 else 20)
            print("%8d %9d %9d  %s" % (size, sum(counts), max(counts), "".join(str(count) for count in counts)))
    if "day" in parts:
        print("\n3. %d polls of 1,000 projects, the simulator's clock %d s further each poll (%.1f hours), the fleet "
              "changing; default events and consumption" % (args.polls, args.interval, args.polls * args.interval / 3600.0))
        rows, kinds, seconds = long_run(events, args.polls, args.interval)
        print("%6s %9s %9s %9s %10s %9s %8s %9s" % (
            "poll", "RSS MB", "heap MB", "peak MB", "cursor MB", "projects", "events", "requests"))
        for row in rows:
            print("%6d %9.1f %9.2f %9.2f %10.3f %9d %8d %9d" % row)
        print("events: %s" % ", ".join("%s %d" % item for item in sorted(kinds.items())))
        print("(%.0f s of wall time)" % seconds)


if __name__ == "__main__":
    main()
