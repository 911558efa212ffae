# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the sanity-X.Y, units-X.Y and integration-X.Y sessions run ansible-test: its arguments,
sanity in a home it keeps between runs, and integration against a fresh API simulator (the
targets' variables written for it, the time of each target printed after it)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shutil

from nox_support.collection import collection_copy
from nox_support.homes import empty_home, exclusive
from nox_support.installs import install_test_tools
from nox_support.pip_bootstrap import install_get_pip_standin
from nox_support.simulator import running_simulator

INTEGRATION_OPERATION_PACE = 0.25


def ansible_test_args(session, python, targets=()):
    """ansible-test's options, then what follows `--` on nox's command line, or else ``targets``."""
    return ["--python", python, "--python-interpreter", shutil.which("python", path=os.pathsep.join(session.bin_paths)),
            "--color", "no"] + (list(session.posargs) or list(targets))


def run_sanity(session, collection, python, home, *args, uv=None):
    """ansible-test sanity on ``collection`` with ``home`` as HOME: ansible-test keeps the virtualenvs
    of its sanity tests and the pip bootstrap script below ~/.ansible/test there, without a lock of
    its own, so the sessions that share a home (the same core's, of two runs at once) take turns
    (the lock file lives there too)."""
    with exclusive(home / ".ansible" / "test" / "neon-cloud-sanity.lock"):
        install_get_pip_standin(session, home, uv)
        with session.chdir(collection):
            session.run("ansible-test", "sanity", *ansible_test_args(session, python), *args,
                        env={"HOME": str(home)})


def run_integration(session, core, python, targets=()):
    """ansible-test integration --local against a fresh API simulator: ``targets`` (names or
    aliases; none: every target), or the targets given after `--`."""
    install_test_tools(session, core)
    collection = collection_copy(session, core)
    home = empty_home(session)
    # Operations that provisioning tasks start end in a quarter of their usual 1-2 s: the targets
    # wait for them all the same (the demo keeps the usual pace, as a user sees it).
    with running_simulator(session, operation_pace=INTEGRATION_OPERATION_PACE) as simulator, session.chdir(collection):
        write_integration_config(collection, simulator, home)
        # --local: modules run with this session's Python, which has requests.
        try:
            session.run("ansible-test", "integration", "--local", *ansible_test_args(session, python, targets),
                        env={"HOME": str(home)})
        finally:
            log_target_times(session, collection)


def write_integration_config(collection, simulator, home):
    """tests/integration/integration_config.yml of the copy: the variables the targets read."""
    values = {
        # Where `async` tasks leave their results for async_status. The default, ~/.ansible_async,
        # is read as ~root (the password database's home of the remote user) by async_status but
        # written below $HOME by the job itself: two places whenever HOME is another directory.
        "ansible_async_dir": str(home / ".ansible_async"),
        # The targets run about 450 module tasks on the local connection: pipelining sends each
        # module on the interpreter's stdin instead of through temporary files (with gather_facts/no
        # in the aliases, integration-2.19 went from 225 to 189 s of CPU).
        "ansible_pipelining": True,
        "neon_api_url": simulator["NEON_API_URL"],
        "neon_api_key": simulator["NEON_API_KEY"],
        "neon_demo_project_id": simulator.get("NEON_SIM_DEMO_PROJECT", ""),
        "neon_sim_control_url": simulator.get("NEON_SIM_CONTROL_URL", ""),
    }
    lines = ["---", "# written by noxfile.py for one simulator run"]
    lines += ["%s: %s" % (name, json.dumps(value)) for name, value in values.items()]  # JSON strings are YAML
    (collection / "tests" / "integration" / "integration_config.yml").write_text("\n".join(lines) + "\n")


def log_target_times(session, collection):
    """Print how long each integration target took (ansible-test records it in
    tests/output/data/integration-*.json of the copy), slowest first: where a session's minutes go."""
    times = {}
    for path in sorted((collection / "tests" / "output" / "data").glob("integration-*.json")):
        try:
            targets = json.loads(path.read_text(encoding="utf-8")).get("targets") or {}
        except (OSError, ValueError):
            continue
        for name, result in targets.items():
            if isinstance(result, dict) and isinstance(result.get("run_time_seconds"), int):
                times[name] = result["run_time_seconds"]
    if times:
        session.log("integration target times (s): " + ", ".join(
            "%s %d" % (name, seconds) for name, seconds in sorted(times.items(), key=lambda item: -item[1]))
            + "; total %d" % sum(times.values()))
