# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""9. The simulator itself: its start-up, and the cost of computes that are real PostgreSQL servers.

- Start-up: ``python -m neon_simulator`` started as a process, until its first ``GET /projects`` is
  answered; by default, and with ``--postgres`` (which makes at start the fresh cluster every root branch
  copies, and no compute's server until one needs it).
- A branch with a running real compute, in a simulator of this process: ``POST .../branches`` with a
  read-write compute, its operations ended (the simulator's clock moved on), until ``psql`` runs
  ``SELECT 1`` on the branch's connection string. The first project's compute comes before them (its
  first copy of that cluster).
- Memory of each running compute: the proportional set size (PSS, from ``/proc/PID/smaps_rollup``: shared
  pages counted once in all) of its postmaster and all its processes, and their resident size (RSS).
- ``branches`` (20) branches with running computes at once: all answer, their memory in all beside the
  machine's, and the CPU their servers take while idle over ``IDLE_SECONDS``.
"""

import os
import statistics
import subprocess
import sys
import time

import requests

IDLE_SECONDS = 10.0
SETTLE = 5  # seconds of the simulator's clock past a branch's operations (0.1 pace: they take under 0.3 s); 21 of them stay under the 300 s suspend timeout
START_TIMEOUT = 60.0


def _kib(pid, field):
    try:
        with open("/proc/%d/smaps_rollup" % pid, encoding="utf-8") as rollup:
            for line in rollup:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _cpu_seconds(pid):
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def memory_of(postmaster_pid):
    """(PSS, RSS) in MiB of a server: its postmaster and every process below it."""
    from neon_simulator.launcher import process_tree  # pylint: disable=import-outside-toplevel

    pids = process_tree(postmaster_pid)
    return sum(_kib(pid, "Pss") for pid in pids) / 1024.0, sum(_kib(pid, "Rss") for pid in pids) / 1024.0


def machine_memory_mib():
    with open("/proc/meminfo", encoding="utf-8") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def start_up(python, postgres, runs, simulator_path):
    """Seconds from starting ``python -m neon_simulator`` to its first answered GET /projects."""
    if simulator_path not in sys.path:
        sys.path.insert(0, simulator_path)
    from neon_simulator.launcher import launch  # pylint: disable=import-outside-toplevel

    samples = []
    for _run in range(runs):
        began = time.monotonic()
        # SimulatorDidNotStart (a RuntimeError) when it exits or does not listen within START_TIMEOUT
        with launch(source=simulator_path, command=[python, "-m", "neon_simulator"], api_key="bench-key",
                    postgres=postgres, start_timeout=START_TIMEOUT) as launched:
            requests.get(launched.url + "/projects", headers={"Authorization": "Bearer bench-key"},
                         timeout=30).raise_for_status()
            samples.append(time.monotonic() - began)
    return samples


def _call(sim, method, path, **kwargs):
    answer = requests.request(method, sim.url + path, headers=sim.headers, timeout=120, **kwargs)
    answer.raise_for_status()
    return answer.json() if answer.content else None


def _connects(psql, uri):
    done = subprocess.run([psql, "-X", "-q", "-A", "-t", "-d", uri, "-c", "SELECT 1"], capture_output=True,
                          text=True, timeout=60, check=False)
    if done.returncode != 0:
        raise RuntimeError("psql could not connect: %s" % done.stderr.strip())


def real_computes(simulator_path, branches, log):
    """The first compute, then ``branches`` branches with running computes, their memory and idle CPU."""
    if simulator_path not in sys.path:
        sys.path.insert(0, simulator_path)
    from neon_simulator import Simulator  # pylint: disable=import-outside-toplevel
    from neon_simulator.launcher import process_tree  # pylint: disable=import-outside-toplevel

    with Simulator(api_key="bench-real-computes", operation_pace=0.1, postgres=True) as sim:
        psql = os.path.join(sim.state.real.bin_folder, "psql")
        began = time.monotonic()
        made = _call(sim, "POST", "/projects", json={"project": {"name": "bench-real"}})
        project_id = made["project"]["id"]
        sim.advance_clock(SETTLE)
        _call(sim, "GET", "/projects/%s/endpoints" % project_id)
        _connects(psql, made["connection_uris"][0]["connection_uri"])
        first = time.monotonic() - began
        seconds = []
        for number in range(branches):
            began = time.monotonic()
            branch = _call(sim, "POST", "/projects/%s/branches" % project_id,
                           json={"branch": {"name": "bench-%d" % number}, "endpoints": [{"type": "read_write"}]})
            sim.advance_clock(SETTLE)
            _call(sim, "GET", "/projects/%s/endpoints" % project_id)
            _connects(psql, branch["connection_uris"][0]["connection_uri"])
            seconds.append(time.monotonic() - began)
            log("  branch %d/%d with a running compute: %.2f s" % (number + 1, branches, seconds[-1]))
        running = list(sim.state.real.computes.values())
        for cluster in running:  # every server answers at once
            _connects(psql, "postgresql://cloud_admin@/postgres?host=%s&port=%s" % (cluster.folder, cluster.port))
        memory = [memory_of(cluster.process.pid) for cluster in running]
        pids = [pid for cluster in running for pid in process_tree(cluster.process.pid)]
        cpu_before = sum(_cpu_seconds(pid) for pid in pids)
        time.sleep(IDLE_SECONDS)
        cpu_after = sum(_cpu_seconds(pid) for pid in pids)
        simulator_rss = _kib(os.getpid(), "Rss") / 1024.0
    return {
        "first_compute_seconds": first,
        "branch_seconds": seconds,
        "computes": len(running),
        "pss_mib": [pss for pss, _rss in memory],
        "rss_mib": [rss for _pss, rss in memory],
        "idle_cpu_percent": 100.0 * (cpu_after - cpu_before) / IDLE_SECONDS,
        "simulator_rss_mib": simulator_rss,
        "machine_mib": machine_memory_mib(),
        "cores": os.cpu_count(),
    }


def simulator(simulator_path, runs, branches, log=print):
    """The whole part: start-up both ways, then the real computes."""
    log("  start-up, default (%d runs)" % runs)
    default = start_up(sys.executable, False, runs, simulator_path)
    log("  start-up, --postgres (%d runs)" % runs)
    postgres = start_up(sys.executable, True, runs, simulator_path)
    log("  %d branches with real computes" % branches)
    return {"startup_default": default, "startup_postgres": postgres, "real": real_computes(simulator_path, branches, log)}


def rst(data, info, command, grid_table):
    """The part's section of docs/docsite/rst/performance.rst."""
    real = data["real"]
    seconds = sorted(real["branch_seconds"])
    pss, rss = real["pss_mib"], real["rss_mib"]
    rows = [
        ("simulator start-up, default (process start to the first answered request)",
         "%.2f s" % statistics.median(data["startup_default"]), "median of %d" % len(data["startup_default"])),
        ("simulator start-up, ``--postgres``", "%.2f s" % statistics.median(data["startup_postgres"]),
         "median of %d; the first cluster made at start, no compute's server until one needs it"
         % len(data["startup_postgres"])),
        ("first project with a running real compute (the first copy of the cluster made at start)",
         "%.2f s" % real["first_compute_seconds"], "once per simulator"),
        ("a branch with a running real compute, until psql connects", "%.2f s" % statistics.median(seconds),
         "median of %d; slowest %.2f s" % (len(seconds), seconds[-1])),
        ("memory of a running compute (all its processes)", "%.1f MiB PSS" % statistics.median(pss),
         "median; %.1f MiB RSS, which counts shared pages in each process" % statistics.median(rss)),
        ("%d running computes at once" % real["computes"], "%.0f MiB PSS" % sum(pss),
         "%.1f%% of this machine's %.0f MiB; the simulator itself %.0f MiB RSS" % (
             100.0 * sum(pss) / real["machine_mib"], real["machine_mib"], real["simulator_rss_mib"])),
        ("CPU of those %d idle servers" % real["computes"], "%.1f%% of one core" % real["idle_cpu_percent"],
         "over %g s; the machine has %d cores" % (IDLE_SECONDS, real["cores"])),
    ]
    return "\n".join([
        "Measured %s with ``%s`` (PostgreSQL programs of the pgserver wheel; simulator in this process at "
        "``--operation-pace 0.1``, its clock moved past each branch's operations)." % (info["date"], command),
        "",
        grid_table(("Measurement", "Result", "Notes"), rows),
    ]) + "\n"
