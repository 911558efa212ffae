# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The simulator as a process of its own: started, waited for (bounded), stopped with everything it started.

    from neon_simulator.launcher import launch
    with launch(source="tests/simulator", operation_pace=0.1) as sim:   # python -m neon_simulator from that folder
        sim.url, sim.api_key, sim.control_url, sim.printed, sim.environment(), sim.log_path, sim.process
    # stopped: SIGTERM, then (past the bound) the whole process tree killed; nothing of it left running

The one way the repository starts a simulator process: the nox sessions (scripts/nox_support/simulator.py:
integration, demo), the wheel's smoke test (scripts/nox_support/simulator_wheel.py, which runs the installed
``neon-simulator``), the benchmark (benchmarks/simctl.py, benchmarks/simulator.py) and tests that need one in
another process. A test of this process's own uses :class:`~neon_simulator.Simulator` in-process instead.

The simulator listens on 127.0.0.1 on a free port (``--port 0``) and writes its API URL to ``--url-file`` once
it listens, after the ``NEON_*`` lines it prints (tests/simulator/README.md, "Command line"): that file is what
the launcher waits for. A simulator that exits first, or does not listen within ``start_timeout``, raises
:class:`SimulatorDidNotStart` naming its log and its last lines, and leaves nothing running.

With ``--postgres`` the computes are real PostgreSQL servers, children of the simulator (run as ``nobody`` when
the simulator runs as root): :meth:`SimulatorProcess.stop` stops them with it, and kills whatever of its tree
outlives the bound. A simulator that died first (killed, crashed) leaves its servers running with no parent to
find them by: the stop then finds them by their data folders, under the work folder the simulator printed
(``NEON_SIM_PG_WORKDIR``), each server's ``postmaster.pid`` naming it, and removes that folder.

The process-tree helpers (:func:`process_tree`, :func:`kill_tree`, :func:`process_gone`, Linux ``/proc``) are
the tests' too: a cancelled AWX job kills ansible-playbook and all it started.

Only the standard library: nox's own Python (without Werkzeug) loads this file by its path.
"""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from urllib.parse import urlsplit

START_TIMEOUT = 30.0  # seconds until it listens (it takes well under one; --postgres makes a cluster first)
STOP_TIMEOUT = 30.0  # seconds for each step of a stop (with --postgres it stops each server first)
POLL_SECONDS = 0.005  # the wait for the URL file: fine enough for the benchmark's start-up measure
LOG_TAIL = 3000  # characters of the log in an error
ANNOUNCED = re.compile(r"^(NEON_[A-Z_]+)=(\S+)$", re.MULTILINE)
ENV_API_KEY = "NEON_SIMULATOR_API_KEY"  # read by the command line when --api-key is not given (__main__.py)
PG_WORKDIR_PREFIX = "neon-sim-pg-"  # the work folder --postgres makes (pg_binaries.WORKDIR_PREFIX)
PG_WORKDIR_DEPTH = 4  # how deep a server's data folder lies in it (template, computes/ID/data, ...)


class _Printed:
    def __repr__(self):
        return "PRINTED"


PRINTED = _Printed()  # api_key=PRINTED: the simulator makes up the key and prints it (NEON_API_KEY=...)


class SimulatorDidNotStart(RuntimeError):
    """The simulator exited, or did not listen in time; the message names its log and ends with its last lines."""

    def __init__(self, message, log_path=None, returncode=None):
        super().__init__(message)
        self.log_path = log_path
        self.returncode = returncode


def new_api_key():
    """A key shaped like a real one: 64 characters of [a-z0-9]."""
    return secrets.token_hex(32)


def is_loopback(host):
    """True when ``host`` is localhost or a loopback address."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_loopback_url(url):
    """True when ``url``'s host is localhost or a loopback address."""
    return is_loopback(urlsplit(url or "").hostname or "")


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


class SimulatorProcess:
    """A started simulator: ``url`` (…/api/v2), ``api_key``, ``base_url``, ``control_url``, ``printed`` (the
    ``NEON_*`` values it printed: NEON_API_KEY only when it made the key up), ``process`` (the Popen),
    ``log_path``, ``url_file``."""

    def __init__(self, process, url, api_key, printed, log_path, url_file, workdir, stop_timeout):
        self.process = process
        self.url = url
        self.api_key = api_key
        self.printed = printed
        self.log_path = log_path
        self.url_file = url_file
        self.base_url = url[:-len("/api/v2")] if url.endswith("/api/v2") else url
        self.control_url = printed.get("NEON_SIM_CONTROL_URL") or self.base_url + "/_simulator"
        self.stop_timeout = stop_timeout
        self._workdir = workdir  # the launcher's own folder, removed on stop (None: the caller's paths)

    @property
    def headers(self):
        return {"Authorization": "Bearer " + self.api_key, "Accept": "application/json"}

    def environment(self):
        """The variables a tool needs to reach it: what it printed (NEON_SIM_DEMO_PROJECT, NEON_SIM_CONTROL_URL,
        NEON_SIM_ORG_ID, NEON_SIM_PG_BIN with --postgres), NEON_API_URL and NEON_API_KEY."""
        return dict(self.printed, NEON_API_URL=self.url, NEON_API_KEY=self.api_key)

    def log(self):
        """What it printed so far (its standard output and error)."""
        return _read(self.log_path)

    def stop(self, timeout=None):
        """SIGTERM (the simulator stops its servers and exits 0), then past ``timeout`` (default: the launch's)
        its whole tree killed; any child that outlived it killed too. Returns the exit status (negative: the
        signal). Stopping again returns the same."""
        timeout = self.stop_timeout if timeout is None else timeout
        code = stop_process(self.process, timeout)
        pg_workdir = self.printed.get("NEON_SIM_PG_WORKDIR")
        if pg_workdir and os.path.isdir(pg_workdir):  # the simulator died before it could stop its servers
            stop_servers_under(pg_workdir, timeout)
            if os.path.basename(pg_workdir.rstrip(os.sep)).startswith(PG_WORKDIR_PREFIX):
                shutil.rmtree(pg_workdir, ignore_errors=True)
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None
        return code

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.stop()


def launch(source=None, api_key=None, operation_pace=None, postgres=False, options=(), command=None,
           env=None, cwd=None, log_path=None, url_file=None, start_timeout=START_TIMEOUT, stop_timeout=STOP_TIMEOUT):
    """A simulator process on 127.0.0.1 with a free port, once it listens: a :class:`SimulatorProcess`.

    - ``source``: the folder holding the ``neon_simulator`` package to run (tests/simulator of a clone; it is
      then the whole PYTHONPATH). None: the installed package (PYTHONPATH removed from the environment).
    - ``command``: how to run it (default ``[sys.executable, "-m", "neon_simulator"]``; e.g. an installed
      ``neon-simulator`` script). The launcher adds ``--host 127.0.0.1 --port 0 --url-file FILE``, the key,
      ``--operation-pace``, ``--postgres``, then ``options`` (more of the command line's options).
    - ``api_key``: the bootstrap key; None: a new random one; :data:`PRINTED`: the simulator makes one up and
      prints it (``NEON_SIMULATOR_API_KEY`` is left out of its environment).
    - ``env``: its environment (default this process's), ``cwd``: its folder.
    - ``log_path``, ``url_file``: where its output goes and where it writes its URL; by default in a new
      temporary folder, removed on stop (kept when it did not start: the error names the log).
    - ``start_timeout``: seconds until it listens; ``stop_timeout``: seconds for each step of its stop.
    """
    workdir = None
    if log_path is None or url_file is None:
        workdir = tempfile.mkdtemp(prefix="neon-simulator-")
    log_path = str(log_path or os.path.join(workdir, "simulator.log"))
    url_file = str(url_file or os.path.join(workdir, "url"))
    if os.path.exists(url_file):
        os.unlink(url_file)  # an earlier run's: the wait below must see this run's
    env = dict(os.environ if env is None else env)
    if source is None:
        env.pop("PYTHONPATH", None)  # the installed package, nothing of a work tree
    else:
        env["PYTHONPATH"] = str(source)
    argv = [str(part) for part in (command or [sys.executable, "-m", "neon_simulator"])]
    argv += ["--host", "127.0.0.1", "--port", "0", "--url-file", url_file]
    if api_key is PRINTED:
        env.pop(ENV_API_KEY, None)
    else:
        api_key = api_key or new_api_key()
        argv += ["--api-key", api_key]
    if operation_pace is not None:
        argv += ["--operation-pace", repr(float(operation_pace))]
    if postgres:
        argv.append("--postgres")
    argv += [str(option) for option in options]
    with open(log_path, "w", encoding="utf-8") as log:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,  # pylint: disable=consider-using-with
                                   stderr=subprocess.STDOUT, env=env, cwd=None if cwd is None else str(cwd))

    def did_not_start(why):
        stop_process(process, stop_timeout)
        output = _read(log_path)
        raise SimulatorDidNotStart("the simulator (%s) %s; its log %s ends:\n%s" % (
            " ".join(argv[:argv.index("--host")]), why, log_path, output[-LOG_TAIL:] or "(nothing)"),
            log_path=log_path, returncode=process.returncode)

    deadline = time.monotonic() + start_timeout
    try:
        while True:
            url = _read(url_file).strip()  # written atomically once it listens, after the NEON_* lines
            if url:
                break
            if process.poll() is not None:
                did_not_start("exited with status %s before it listened" % process.returncode)
            if time.monotonic() > deadline:
                did_not_start("did not listen within %g s" % start_timeout)
            time.sleep(POLL_SECONDS)
        printed = dict(ANNOUNCED.findall(_read(log_path)))
        if api_key is PRINTED:
            api_key = printed.get("NEON_API_KEY")
            if not api_key:
                did_not_start("listens at %s but printed no NEON_API_KEY" % url)
        if not is_loopback_url(url):
            did_not_start("listens at %s, not on loopback" % url)
    except BaseException:
        stop_process(process, stop_timeout)  # an interrupt too: nothing left running
        raise
    return SimulatorProcess(process, url, api_key, printed, log_path, url_file, workdir, stop_timeout)


def stop_process(process, timeout=STOP_TIMEOUT):
    """Stop ``process`` (a Popen) and everything it started: SIGTERM, then past ``timeout`` SIGKILL to its whole
    tree; its children that outlive it (a server it could not stop) are killed too. Returns its exit status."""
    children = _identities(process_tree(process.pid)[1:]) if process.poll() is None else {}
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        children.update(_identities(process_tree(process.pid)[1:]))
        kill_tree(process.pid)
        process.wait(timeout=timeout)
    left = [pid for pid, started in children.items() if not process_gone(pid) and _started(pid) == started]
    for pid in left:  # reparented away from it once it ended: theirs are found from them
        kill_tree(pid)
    deadline = time.monotonic() + timeout
    while not all(process_gone(pid) for pid in left) and time.monotonic() < deadline:
        time.sleep(0.05)
    return process.returncode


# ---------------------------------------------------------------------------------------------- process trees

# An AWX job cancelled or a runner lost kills ansible-playbook and everything it started (Ansible's workers start
# sessions of their own, so a process group is not enough): the kill tests kill the whole tree, walked in /proc, as
# the launcher does with a simulator that outlives its stop and the servers of its real computes.

def _stat_fields(pid):
    """The fields of /proc/PID/stat after the command's name (state first), or None once it ended."""
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8", errors="replace") as handle:
            stat = handle.read()
    except OSError:
        return None
    # pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after its last ')'
    return stat[stat.rindex(")") + 2:].split()


def _started(pid):
    """When ``pid`` started (clock ticks after boot): tells it from a later process given the same number."""
    fields = _stat_fields(pid)
    return None if fields is None else fields[19]


def _identities(pids):
    return {pid: _started(pid) for pid in pids}


def _parents():
    """{pid: parent pid} of every process now running (Linux /proc)."""
    parents = {}
    try:
        entries = os.listdir("/proc")
    except OSError:  # not Linux: the process alone
        entries = []
    for entry in entries:
        if entry.isdigit():
            fields = _stat_fields(int(entry))
            if fields is not None:  # else ended meanwhile
                parents[int(entry)] = int(fields[1])
    return parents


def process_tree(root):
    """``root`` and all its descendants, ``root`` first."""
    parents = _parents()
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(child for child, parent in parents.items() if parent == pid and child not in found)
    return found


def servers_under(folder, depth=PG_WORKDIR_DEPTH):
    """{pid: data folder} of the PostgreSQL servers that still run on a data folder under ``folder``: each
    folder's ``postmaster.pid`` names its server (first line), and that process's command line names the folder
    (a pid reused since by another process is left alone)."""
    found = {}
    base = os.path.abspath(folder)
    for place, folders, files in os.walk(base):
        if place[len(base):].count(os.sep) >= depth:
            folders[:] = []
        if "postmaster.pid" not in files:
            continue
        try:
            with open(os.path.join(place, "postmaster.pid"), encoding="ascii", errors="replace") as handle:
                pid = int(handle.readline().strip())
        except (OSError, ValueError):
            continue
        if pid > 1 and not process_gone(pid) and place in _command(pid):
            found[pid] = place
    return found


def stop_servers_under(folder, timeout=STOP_TIMEOUT):
    """Stop the servers :func:`servers_under` finds: SIGQUIT (PostgreSQL's immediate shutdown, its children
    with it), then past ``timeout`` their trees killed. Returns the data folders of the servers it found."""
    servers = servers_under(folder)
    for pid in servers:
        try:
            os.kill(pid, signal.SIGQUIT)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    while not all(process_gone(pid) for pid in servers) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in servers:
        if not process_gone(pid):
            kill_tree(pid)
    return sorted(servers.values())


def _command(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def process_gone(pid):
    """True once ``pid`` no longer runs (ended, or a zombie nobody reaped yet)."""
    fields = _stat_fields(pid)
    return fields is None or fields[0] in "ZX"


def kill_tree(root):
    """SIGKILL ``root`` and every descendant, as a cancelled job's runner does; returns their command lines.

    Each process is stopped first, so none can start another or be reparented away before the kill, and the
    tree is walked until a walk finds nothing new.
    """
    stopped = []
    while True:
        new = [pid for pid in process_tree(root) if pid not in stopped]
        if not new:
            break
        for pid in new:
            try:
                os.kill(pid, signal.SIGSTOP)
            except ProcessLookupError:  # ended between the walk and now
                pass
        stopped.extend(new)
    commands = {pid: _command(pid) for pid in stopped}
    for pid in stopped:
        try:
            os.kill(pid, signal.SIGKILL)  # a stopped process dies of it too
        except ProcessLookupError:
            pass
    return commands
