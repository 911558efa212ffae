# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""neon.cloud benchmark: paging, waiting, per-task overhead, import time, key-task requests, the inventory and
provisioning requests against the floor.

    python benchmarks/run.py                    # starts (and stops) its own simulator on 127.0.0.1
    .venvs/nox/bin/nox -s bench [-- ARGS]       # the same in a venv of its own (noxfile.py)
    python benchmarks/run.py --only paging,imports --runs 3
    python benchmarks/run.py --doc docs/docsite/rst/performance.rst   # also rewrite the results section there
    python benchmarks/run.py --only provisioning --doc docs/docsite/rst/performance.rst   # only that part's section
    python benchmarks/run.py --only fleet --doc docs/docsite/rst/performance.rst   # the fleet part's section
    python benchmarks/run.py --only fleet --fleet-sizes 20 --fleet-limited 20      # a quick fleet run
    python benchmarks/run.py --only simulator --doc docs/docsite/rst/performance.rst   # the simulator's own

Needs requests, werkzeug (for a simulator started here) and ansible-core (for the per-task
and import parts) in the interpreter that runs it. Takes about 2 to 3 minutes; most of it is
the waiting part (about 20 s a run). Not part of the timed tests. See docs/docsite/rst/performance.rst.
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import fleet  # noqa: E402  pylint: disable=wrong-import-position
import report  # noqa: E402  pylint: disable=wrong-import-position
import scenarios  # noqa: E402  pylint: disable=wrong-import-position
import simctl  # noqa: E402  pylint: disable=wrong-import-position
import simulator as simulator_part  # noqa: E402  pylint: disable=wrong-import-position

PARTS = ("paging", "waiting", "tasks", "imports", "keys", "inventory", "provisioning", "fleet", "simulator")
# The provisioning part runs against a simulator of its own, started with this --operation-pace: its
# operations then take 0.03 to 0.25 s, so each wait ends at its second poll (the first comes at once,
# the second 0.5 s later) and the poll counts are the same from run to run.
PROVISIONING_PACE = 0.1


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--runs", type=int, default=7,
                        help="runs of the per-task and import parts, paging does 3 times as many (default 7)")
    parser.add_argument("--wait-runs", type=int, default=3, help="runs of the waiting part, ~20 s each (default 3)")
    parser.add_argument("--only", default=",".join(PARTS), help="comma-separated parts: %s" % ", ".join(PARTS))
    parser.add_argument("--operations", type=int, default=10000, help="operations listed by the paging part")
    parser.add_argument("--wait-operations", type=int, default=200, help="operations waited for (default 200)")
    parser.add_argument("--projects", type=int, default=10000, help="projects of the inventory part (default 10000)")
    parser.add_argument("--fleet-sizes", default="100,1000",
                        help="comma-separated fleet sizes measured side by side (default 100,1000; none: leave out)")
    parser.add_argument("--fleet-ways", default=",".join(fleet.WAYS),
                        help="how the modules run, side by side: shipped, controller (default both)")
    parser.add_argument("--fleet-runs", type=int, default=1, help="unchanged runs of each fleet size and way (default 1)")
    parser.add_argument("--fleet-forks", type=int, default=5, help="forks of the side-by-side runs (default 5)")
    parser.add_argument("--fleet-limited", type=int, default=1000,
                        help="projects of the paced fleet run, the key limited to 700 a minute (default 1000; 0: leave out)")
    parser.add_argument("--fleet-shipped-up-to", type=int, default=None, metavar="N",
                        help="run the shipped way only at fleet sizes up to N (default: every size)")
    parser.add_argument("--fleet-limited-forks", type=int, default=50, help="forks of the paced fleet run (default 50)")
    parser.add_argument("--real-branches", type=int, default=20,
                        help="branches with real computes of the simulator part (default 20)")
    parser.add_argument("--operation-pace", type=float, default=PROVISIONING_PACE,
                        help="the simulator's --operation-pace for the provisioning part (default %g)" % PROVISIONING_PACE)
    parser.add_argument("--json", metavar="FILE", help="also write every sample as JSON")
    parser.add_argument("--doc", metavar="FILE", help="rewrite the results section of FILE (docs/docsite/rst/performance.rst)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    args.parts = [part.strip() for part in args.only.split(",") if part.strip()]
    try:
        args.fleet_sizes = [int(size) for size in args.fleet_sizes.split(",") if size.strip() and size.strip() != "none"]
    except ValueError:
        parser.error("--fleet-sizes must be numbers separated by commas, such as 100,1000")
    args.fleet_ways = [way.strip() for way in args.fleet_ways.split(",") if way.strip()]
    if any(way not in fleet.WAYS for way in args.fleet_ways) or not args.fleet_ways:
        parser.error("--fleet-ways: choose from %s" % ", ".join(fleet.WAYS))
    if any(not 1 <= size <= 10000 for size in args.fleet_sizes) or not 0 <= args.fleet_limited <= 10000:
        parser.error("--fleet-sizes and --fleet-limited must be 1-10000 (--fleet-limited 0 leaves the paced run out)")
    if not 1 <= args.fleet_runs <= 20 or not 1 <= args.fleet_forks <= 500 or not 1 <= args.fleet_limited_forks <= 500:
        parser.error("--fleet-runs must be 1-20, --fleet-forks and --fleet-limited-forks 1-500")
    unknown = [part for part in args.parts if part not in PARTS]
    if unknown:
        parser.error("unknown part(s) %s; choose from %s" % (", ".join(unknown), ", ".join(PARTS)))
    if not 1 <= args.runs <= 50 or not 1 <= args.wait_runs <= 20:
        parser.error("--runs must be 1-50 and --wait-runs 1-20")
    if not 1 <= args.operations <= 100000 or not 2 <= args.wait_operations <= 1000:
        parser.error("--operations must be 1-100000 and --wait-operations 2-1000")
    if not 0 < args.operation_pace <= 10:
        parser.error("--operation-pace must be more than 0 and at most 10")
    return args


def log(message):
    print(message, file=sys.stderr, flush=True)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    started = time.monotonic()
    info = report.machine()
    collection = simctl.CollectionPath()
    collection.add_to_sys_path()
    sim = None
    results = {}
    try:
        if any(part in args.parts for part in ("paging", "waiting", "tasks", "keys", "inventory")):
            sim = simctl.SimulatorHandle.from_env_or_start()
            log("benchmark: simulator %s (%s)" % (sim.api_url, "started here" if sim.started_here else "given"))
        if "paging" in args.parts:
            log("1. paging (%d runs)" % (3 * args.runs))
            results["paging"] = scenarios.paging(sim, 3 * args.runs, args.operations, log=log)
        if "waiting" in args.parts:
            log("2. waiting (%d runs of ~20 s)" % args.wait_runs)
            results["waiting"] = scenarios.waiting(sim, args.wait_runs, args.wait_operations, log=log)
        if "tasks" in args.parts:
            log("3. per-task overhead (%d runs)" % args.runs)
            results["tasks"] = scenarios.tasks(sim, collection, args.runs, log=log)
        if "imports" in args.parts:
            log("4. import time (%d runs)" % args.runs)
            results["imports"] = scenarios.imports(collection, args.runs, log=log)
        if "keys" in args.parts:
            log("5. key tasks: requests")
            results["keys"] = scenarios.keys(sim, log=log)
        if "inventory" in args.parts:
            log("6. inventory of %d projects (%d runs)" % (args.projects, args.runs))
            results["inventory"] = scenarios.inventory(sim, collection, args.runs, args.projects, log=log)
        if "provisioning" in args.parts:
            # its own simulator, whatever NEON_API_URL says: the pace is set when a simulator starts
            log("7. provisioning: requests against the floor (simulator at operation pace %g)" % args.operation_pace)
            paced = simctl.SimulatorHandle.start(sys.executable, operation_pace=args.operation_pace)
            try:
                results["provisioning"] = scenarios.provisioning(paced, args.operation_pace, log=log)
            finally:
                paced.stop()
        if "fleet" in args.parts:
            log("8. fleet: one baseline over %s projects (%s; %d run%s each), paced over %d" % (
                ", ".join(str(size) for size in args.fleet_sizes) or "no", ", ".join(args.fleet_ways), args.fleet_runs,
                "" if args.fleet_runs == 1 else "s", args.fleet_limited))
            playbook = os.path.join(os.path.dirname(scenarios.ansible_executable() or sys.executable), "ansible-playbook")
            results["fleet"] = {}
            if args.fleet_sizes:
                own = simctl.SimulatorHandle.start(sys.executable, operation_pace=args.operation_pace)
                try:
                    results["fleet"] = fleet.fleet(own, collection, playbook, args.fleet_sizes, args.fleet_ways,
                                                   args.fleet_runs, args.fleet_forks,
                                                   shipped_up_to=args.fleet_shipped_up_to, log=log)
                finally:
                    own.stop()
            if args.fleet_limited:
                # a simulator of its own: its limit per key, and a pace file of its own (another URL)
                own = simctl.SimulatorHandle.start(sys.executable, operation_pace=args.operation_pace)
                try:
                    results["fleet"]["limited"] = fleet.limited(own, collection, playbook, args.fleet_limited,
                                                                args.fleet_limited_forks, log=log)
                finally:
                    own.stop()
        if "simulator" in args.parts:
            log("9. the simulator: start-up, and %d branches with real computes" % args.real_branches)
            results["simulator"] = simulator_part.simulator(simctl.SIMULATOR_DIR, args.runs, args.real_branches,
                                                            log=log)
    finally:
        if sim is not None:
            sim.stop()
        collection.remove()

    info["load average (1, 5, 15 min) at the end"] = report.load_average()
    command = "python benchmarks/run.py"
    if argv is None and len(sys.argv) > 1:
        command += " " + " ".join(sys.argv[1:])
    if sim is not None and not sim.started_here:
        command += " (simulator given in NEON_API_URL)"
    built = report.Report(results, vars(args)).build()
    text = built.rst(info, command)
    print(text)
    if "fleet" in results:
        print(built.fleet_rst(info, command))
    if "simulator" in results:
        print(simulator_part.rst(results["simulator"], info, command, report.grid_table))
    log("benchmark: %.0f s in all" % (time.monotonic() - started))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"machine": info, "results": results}, out, indent=1, default=str)
    if args.doc:
        # each section only from the parts that ran, so that one part's run keeps the others' figures
        if any(part in results for part in PARTS if part not in ("provisioning", "fleet", "simulator")):
            report.write_doc(args.doc, built.rst(info, command, provisioning=False))
        if "provisioning" in results:
            report.write_doc(args.doc, built.provisioning_rst(info, command), report.PROVISIONING_MARKS)
        if "fleet" in results:
            report.write_doc(args.doc, built.fleet_rst(info, command), report.FLEET_MARKS)
        if "simulator" in results:
            report.write_doc(args.doc, simulator_part.rst(results["simulator"], info, command, report.grid_table),
                             report.SIMULATOR_MARKS)
        log("benchmark: results written to %s" % args.doc)
    if built.missed:
        log("benchmark: targets missed: %s" % "; ".join(built.missed))
        if args.strict:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
