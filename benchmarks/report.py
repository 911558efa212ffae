# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Medians, targets and the tables of the benchmark, in reStructuredText (grid tables, which read
the same on a terminal): the results section of docs/docsite/rst/performance.rst."""

import datetime
import os
import platform
import re
import statistics
import sys

try:
    from importlib import metadata
except ImportError:  # pragma: no cover - Python < 3.8
    metadata = None

# RST comments around the results section of the page (run.py --doc rewrites what is between them).
BEGIN_MARK = ".. benchmark results: begin (written by benchmarks/run.py --doc)"
END_MARK = ".. benchmark results: end"
# The provisioning part's section (run.py --only provisioning --doc rewrites it alone).
PROVISIONING_MARKS = (".. provisioning results: begin (written by benchmarks/run.py --doc)",
                      ".. provisioning results: end")
# The fleet part's section (run.py --only fleet --doc rewrites it alone).
FLEET_MARKS = (".. fleet results: begin (written by benchmarks/run.py --doc)", ".. fleet results: end")
SIMULATOR_MARKS = (".. simulator results: begin (written by benchmarks/run.py --doc)", ".. simulator results: end")


def median(samples, key):
    return statistics.median(sample[key] for sample in samples)


def _version(distribution):
    if metadata is None:
        return "?"
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine():
    try:
        from ansible.release import __version__ as ansible_core
    except ImportError:
        ansible_core = "not installed"
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": usable,
        "cpu": cpu_model(),
        "os": platform.platform(),
        "python": "%s %s (%s)" % (platform.python_implementation(), platform.python_version(), sys.executable),
        "ansible-core": ansible_core,
        "requests": _version("requests"),
        "urllib3": _version("urllib3"),
        "werkzeug": _version("werkzeug"),
        "load average (1, 5, 15 min) at the start": load_average(),
    }


def load_average():
    return "%.2f %.2f %.2f" % os.getloadavg() if hasattr(os, "getloadavg") else "?"


def _yes(flag):
    return "yes" if flag else "**no**"


def _int(value):
    return "{:,}".format(int(round(value)))


class Report:
    def __init__(self, results, settings):
        self.results = results
        self.settings = settings
        self.rows = []
        self.verdicts = []  # (target, met)

    def row(self, number, measurement, neon, baseline="", ratio="", target="", met=None):
        self.rows.append((str(number), measurement, neon, baseline, ratio, target, "" if met is None else _yes(met)))
        if met is not None:
            self.verdicts.append((measurement, met))

    # ------------------------------------------------------------------ the four parts
    def paging(self, data):
        neon, plain = data["samples"]["neon"], data["samples"]["plain"]
        runs = len(neon)
        neon_rate, plain_rate = median(neon, "items_per_s"), median(plain, "items_per_s")
        ratio = neon_rate / plain_rate
        paired = statistics.median(a["items_per_s"] / b["items_per_s"] for a, b in zip(neon, plain))
        title = "Paging: list %s operations of one project, page %d (median of %d)" % (
            _int(data["total"]), data["page"], runs)
        self.row(1, title + ": items/s", _int(neon_rate), "%s (plain ``requests`` loop)" % _int(plain_rate),
                 "%.2f× (paired runs: %.2f×)" % (ratio, paired), "≥ 0.90×", ratio >= 0.9)
        made = max(sample["requests"] for sample in neon)
        server = max(sample["server_requests"] for sample in neon)
        self.row(1, "Paging: requests made (client / simulator log)", "%d / %d" % (made, server),
                 "%d / %d" % (max(s["requests"] for s in plain), max(s["server_requests"] for s in plain)), "",
                 "ceil(N/page) + at most 1 = %d" % data["expected_requests"],
                 made <= data["expected_requests"] and server == made)
        items_ok = all(sample["items"] == data["total"] for sample in neon + plain)
        self.row(1, "Paging: items listed, TCP connections per listing",
                 "%s, %d" % (_int(neon[0]["items"]), max(s["connections"] for s in neon)),
                 "%s, %d" % (_int(plain[0]["items"]), max(s["connections"] for s in plain)), "",
                 "all items, 1 connection",
                 items_ok and max(s["connections"] for s in neon) == 1)
        for label, (items, made) in data["early"].items():
            if label.startswith("max_results"):
                wanted = int(label.split("=")[1])
                bound = -(-wanted // data["page"])
                self.row(1, "Paging stops early: %s" % label, "%d items, %d requests" % (items, made), "", "",
                         "ceil(%d/%d) = %d requests" % (wanted, data["page"], bound), made <= bound and items == wanted)
            else:
                self.row(1, "Paging stops early: filter %s" % label, "%d items, %d requests" % (items, made), "", "",
                         "first page + 1 (exact cursor) = 2", made <= 2 and items == 10)

    def waiting(self, data):
        neon, naive = data["samples"]["neon"], data["samples"]["naive"]
        runs = len(neon)
        head = "Waiting: %d operations of one project ending over ~%.0f s, poll_interval %g (median of %d)" % (
            data["count"], data["spread"], data["poll_interval"], runs)
        neon_requests, naive_requests = median(neon, "requests"), median(naive, "requests")
        fewer = naive_requests / neon_requests
        self.row(2, head + ": requests made", _int(neon_requests),
                 "%s (one GET per pending operation per poll)" % _int(naive_requests),
                 "%.0f× fewer" % fewer, "≥ 20× fewer", fewer >= 20)
        server_ok = all(sample["server_requests"] == sample["requests"] for sample in neon)
        neon_polls, naive_polls = median(neon, "polls"), median(naive, "polls")
        neon_max, naive_max = max(s["max_per_poll"] for s in neon), max(s["max_per_poll"] for s in naive)
        self.row(2, "Waiting: polls; requests per poll (mean / max)",
                 "%s; %.2f / %d" % (_int(neon_polls), neon_requests / neon_polls, neon_max),
                 "%s; %.0f / %d" % (_int(naive_polls), naive_requests / naive_polls, naive_max), "",
                 "≤ ceil(pending/%d) + 1 every poll" % data["page"],
                 all(s["bound_ok"] for s in neon) and server_ok)
        neon_lag, naive_lag = median(neon, "lag"), median(naive, "lag")
        worst = max(s["lag"] for s in neon)
        limit = data["poll_interval"] + 1.0
        self.row(2, "Waiting: lag from the last operation's end to the wait's return (median; worst)",
                 "%.2f s; %.2f s" % (neon_lag, worst), "%.2f s; %.2f s" % (naive_lag, max(s["lag"] for s in naive)),
                 "", "≤ poll_interval + 1 s = %.1f s" % limit, worst <= limit)
        single = data["single"]
        self.row(2, "Waiting for one operation (2 s, poll_interval 0.5): requests; polls",
                 "%d; %d" % (single["requests"], single["polls"]), "", "", "one GET per poll",
                 single["ended"] and single["requests"] == single["polls"])
        self.row(2, "Waiting: TCP connections per wait", "%d" % max(s["connections"] for s in neon),
                 "%d" % max(s["connections"] for s in naive))

    def tasks(self, data):
        neon, uri = data["samples"]["neon"], data["samples"]["uri"]
        neon_s, uri_s = statistics.median(neon), statistics.median(uri)
        ratio = neon_s / uri_s
        paired = statistics.median(a / b for a, b in zip(neon, uri))
        self.row(3, "Per task: ``ansible localhost -m neon.cloud.projects_info`` wall time (median of %d; min)" % len(neon),
                 "%.3f s; %.3f s" % (neon_s, min(neon)),
                 "%.3f s; %.3f s (``ansible.builtin.uri``, same GET)" % (uri_s, min(uri)),
                 "%.2f× (paired runs: %.2f×; min: %.2f×)" % (ratio, paired, min(neon) / min(uri)), "≤ 1.10×",
                 ratio <= 1.1)

    def keys(self, data):
        for case in data:
            self.row(5, "Key task: %s - requests" % case["label"], "%d (%s)" % (case["requests"], " ".join(case["sequence"])),
                     "", "", "≤ %d (before max_age_days/keep)" % case["ceiling"], case["requests"] <= case["ceiling"])

    def inventory(self, data):
        neon, plain = data["samples"]["neon"], data["samples"]["plain"]
        neon_s, plain_s = median(neon, "seconds"), median(plain, "seconds")
        ratio = neon_s / plain_s
        head = "Inventory: every project a personal key reaches, %s in %d sources (median of %d)" % (
            _int(data["reach"]), len(data["sources"]), len(neon))
        self.row(6, head + ": wall time", "%.3f s" % neon_s, "%.3f s (plain ``requests`` loop, same pages)" % plain_s,
                 "%.2f×" % ratio, "≤ 1.25×", ratio <= 1.25)
        made = max(sample["requests"] for sample in neon)
        server = max(sample["server_requests"] for sample in neon)
        self.row(6, "Inventory: requests made (client / simulator log)", "%d / %d" % (made, server),
                 "%d" % max(sample["requests"] for sample in plain), "",
                 "2 + per source floor(N/%d)+1 = %d" % (data["page"], data["floor"]),
                 made == data["floor"] and server == made and all(s["items"] == data["reach"] for s in neon))
        for command in data["commands"]:
            self.row(6, "``ansible-inventory --list`` %s: wall time; hosts; requests" % command["label"],
                     "%.2f s; %s; %d" % (command["seconds"], _int(command["hosts"]), command["requests"]), "", "",
                     "all hosts; 0 requests" if "cache" in command["label"] else "all hosts",
                     command["hosts"] == data["reach"] and ("cache" not in command["label"] or command["requests"] == 0))

    # ------------------------------------------------------------------ output
    def table(self):
        header = ("#", "Measurement", "neon.cloud", "Baseline", "Ratio", "Target", "Met")
        return grid_table(header, self.rows)

    def imports_table(self, data):
        header = ("Imported", "total", "collection's own code (compile + run)", "``_api/client.py`` (compile + run)")
        rows = []
        for label, samples in data.items():
            own, client = median(samples, "own"), median(samples, "client")
            rows.append((literals(escape(label)), "%.1f ms" % median(samples, "total"),
                         "%.2f ms" % own if own else "-", "%.2f ms" % client if client else "-"))
        return grid_table(header, rows)

    def provisioning_table(self, data):
        header = ("Task", "Changed", "Requests (polls apart)", "Floor", "Met", "Polls (floor)",
                  "Requests sent, in order (polls apart; ``…`` is ``/projects/{p}``)")
        rows = []
        for case in data["rows"]:
            extra = case["requests"] - case["floor"]
            met = "yes" if extra == 0 else ("**no** (+%d)" % extra if extra > 0 else "below the floor (%d)" % extra)
            sent = ", ".join("``%s``" % request for request in case["sequence"])
            if case["errors"]:
                sent += " (answered: %s)" % ", ".join(escape(error) for error in case["errors"])
            rows.append((escape(case["label"]), "yes" if case["changed"] else "no", str(case["requests"]), str(case["floor"]), met,
                         "%d (%d)" % (case["polls"], case["poll_floor"]), sent))
        return grid_table(header, rows)

    def provisioning_floors_table(self, data):
        return grid_table(("Task", "Floor", "The fewest requests the API allows"),
                          [(escape(case["label"]), "%d + %d poll%s" % (case["floor"], case["poll_floor"],
                                                                       "" if case["poll_floor"] == 1 else "s"),
                            escape(case["reason"])) for case in data["rows"]])

    def provisioning_rst(self, info, command):
        """The provisioning part's section."""
        data = self.results["provisioning"]
        met = sum(1 for case in data["rows"] if case["requests"] == case["floor"])
        return "\n".join([
            "Measured %s with ``%s``, against a simulator started with ``--operation-pace %g`` (ansible-core %s; "
            "request counts do not depend on the machine)." % (info["date"], command, data["pace"], info["ansible-core"]),
            "",
            self.provisioning_table(data),
            "",
            "At the floor: %d of %d tasks. Polls at this pace: %d in all, against a floor of %d (one per wait)." % (
                met, len(data["rows"]), sum(case["polls"] for case in data["rows"]),
                sum(case["poll_floor"] for case in data["rows"])),
            "",
            self.provisioning_floors_table(data),
        ]) + "\n"

    def fleet_rst(self, info, command):
        """The fleet part's section: the baseline play, unchanged, side by side (sizes x ways, beside a plain loop),
        then the paced run against Neon's limit."""
        data = self.results["fleet"]
        parts = []
        if data.get("sizes"):
            parts.append(
                "Measured %s with ``%s``: ``ansible-playbook`` (%d forks) over the ``neon.cloud.projects`` inventory "
                "of the projects of one organization, unchanged (``changed=0``), one ``neon.cloud.project`` task with "
                "every setting of the baseline and one ``neon.cloud.project_permission`` task (exclusive) per project; "
                "the modules shipped (``-e neon_cloud_in_controller=false``) and in the controller (the default); "
                "the pace off (``NEON_API_RATE_LIMIT=0``, the simulator has no limit here); CPU of "
                "``ansible-playbook`` and all it ran (ansible-core %s; median of %d run%s; %s)." % (
                    info["date"], command, data["forks"], info["ansible-core"], data["runs"],
                    "" if data["runs"] == 1 else "s", escape(info.get("cpu", "this machine"))))
            parts.append("")
            rows = []
            for size in data["sizes"]:
                shipped = data["cells"].get("%d/shipped" % size)
                for way in data["ways"]:
                    samples = data["cells"].get("%d/%s" % (size, way))
                    if not samples:  # the shipped way left out at this size (--fleet-shipped-up-to)
                        rows.append((str(size), "shipped: not run at this size (``--fleet-shipped-up-to %s``)"
                                     % data.get("shipped_up_to"), "", "", "", ""))
                        continue
                    wall = statistics.median(sample["seconds"] for sample in samples)
                    cpu = statistics.median(sample["cpu"] for sample in samples) / size
                    versus = ""
                    if shipped and way != "shipped":
                        versus = "%.2f" % (wall / statistics.median(sample["seconds"] for sample in shipped))
                    rows.append((str(size), "shipped" if way == "shipped" else "in the controller", "%.1f s" % wall,
                                 "%.3f s" % cpu, "%.2f" % (statistics.median(s["requests"] for s in samples) / size),
                                 versus))
                plain = data["plain"][str(size)]
                rows.append((str(size), "plain ``requests`` loop, the same three reads", "%.1f s" % plain["seconds"],
                             "%.4f s" % (plain["cpu"] / size), "%.2f" % (plain["requests"] / float(size)), ""))
            parts.append(grid_table(("Projects", "Modules", "Wall time", "CPU per project", "Requests per project",
                                     "Wall time / shipped"), rows))
        if data.get("limited"):
            paced = data["limited"]
            if parts:
                parts.append("")
            parts.append(
                "Paced: the simulator limits the key to %d requests a minute (bursts of %d), as Neon limits an account; "
                "%d projects, the modules in the controller, %d forks, the pace as it comes by default. The floor is "
                "every request of the run (the inventory's too) at %d a minute." % (
                    paced["service_per_minute"], paced["service_burst"], paced["size"], paced["forks"],
                    paced["service_per_minute"]))
            parts.append("")
            parts.append(grid_table(("Projects", "Requests", "Floor", "Wall time", "Wall time / floor", "Hosts failed",
                                     "Answers 429"),
                                    [(str(paced["size"]), str(paced["all_requests"]), "%.1f s" % paced["floor"],
                                      "%.1f s" % paced["seconds"], "%.2f" % (paced["seconds"] / paced["floor"]),
                                      str(paced["failed"]), str(paced["limited"]))]))
        return "\n".join(parts) + "\n"

    def rst(self, info, command, provisioning=True):
        """The results section: reStructuredText, also what run.py prints (with the provisioning
        part's section after it, unless ``provisioning`` is false)."""
        parts = []
        parts.append("Measured %s with ``%s``." % (info["date"], command))
        parts.append("")
        parts.append(grid_table(("Machine", ""), [(escape(key), escape(str(value)))
                                                  for key, value in info.items() if key != "date"]))
        if self.rows:
            parts.append("")
            parts.append(self.table())
        if "imports" in self.results:
            parts.append("")
            parts.append("Import time (``python -X importtime -c 'import <module>'``, median of %d; the "
                         "collection's files compiled from source as in AnsiballZ, libraries from their .pyc):"
                         % len(next(iter(self.results["imports"].values()))))
            parts.append("")
            parts.append(self.imports_table(self.results["imports"]))
        if self.verdicts:
            met = sum(1 for _label, flag in self.verdicts if flag)
            parts.append("")
            parts.append("Targets met: %d of %d." % (met, len(self.verdicts)))
        if provisioning and "provisioning" in self.results:
            parts.append("")
            parts.append(self.provisioning_rst(info, command))
        return "\n".join(parts) + "\n"

    def build(self):
        if "paging" in self.results:
            self.paging(self.results["paging"])
        if "waiting" in self.results:
            self.waiting(self.results["waiting"])
        if "tasks" in self.results:
            self.tasks(self.results["tasks"])
        if "keys" in self.results:
            self.keys(self.results["keys"])
        if "inventory" in self.results:
            self.inventory(self.results["inventory"])
        return self

    @property
    def missed(self):
        return [label for label, flag in self.verdicts if not flag]


def escape(text):
    """Plain text for RST: backslashes, inline markup characters and a trailing ``_`` (a reference)."""
    text = re.sub(r"([\\*`|])", r"\\\1", text)
    return re.sub(r"_(?=\W|$)", r"\\_", text)


def literals(text):
    """`code` spans written the Markdown way (in the labels of scenarios.py) as RST literals."""
    return re.sub(r"\\`([^`]+?)\\`", r"``\1``", text)


def _cell(text):
    # A cell that starts like a list item ("-", "+ ...") would be read as a list, one of a single
    # punctuation character ("#") as a section title's underline: escape the first character.
    return "\\" + text if re.match(r"^([-+*](\s|$)|([!-/:-@[-`{-~])\3*$)", text) else text


def grid_table(header, rows):
    """An RST grid table; every cell one line of RST (already marked up)."""
    rows = [[_cell(cell) for cell in row] for row in rows]
    header = [_cell(cell) for cell in header]
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows)]

    def rule(char):
        return "+" + "+".join(char * (width + 2) for width in widths) + "+"

    def line(cells):
        return "|" + "|".join(" %s " % cell.ljust(width) for cell, width in zip(cells, widths)) + "|"

    lines = [rule("-"), line(header), rule("=")]
    for row in rows:
        lines.extend([line(row), rule("-")])
    return "\n".join(lines)


def write_doc(path, block, marks=(BEGIN_MARK, END_MARK)):
    """Replace a results section of ``path`` (between ``marks``, two RST comments) with ``block``."""
    begin_mark, end_mark = marks
    with open(path, encoding="utf-8") as doc:
        text = doc.read()
    start, end = text.find(begin_mark), text.find(end_mark)
    if start < 0 or end < start:
        raise SystemExit("benchmark: %s has no results markers (%s ... %s)" % (path, begin_mark, end_mark))
    # An RST comment ends at the first line that is not indented, after a blank line.
    text = text[:start + len(begin_mark)] + "\n\n" + block.strip("\n") + "\n\n" + text[end:]
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as doc:
        doc.write(text)
    os.replace(tmp, path)
