# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The API simulator (tests/simulator) for the length of a session's run: started on loopback with
a random key, its announced variables handed to the session, stopped afterwards; and the simulator's
launcher (tests/simulator/neon_simulator/launcher.py), which starts and stops every simulator process
of the sessions."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import importlib.util
import os
import shutil
import sys
from pathlib import Path

from nox_support import ROOT

SIMULATOR_SOURCE = ROOT / "tests" / "simulator"


def _load_launcher():
    """neon_simulator/launcher.py, loaded by its path: nox's Python has no Werkzeug, which the package's
    ``__init__`` imports; the launcher needs only the standard library."""
    name = "neon_simulator_launcher"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, SIMULATOR_SOURCE / "neon_simulator" / "launcher.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


launcher = _load_launcher()


@contextlib.contextmanager
def running_simulator(session, operation_pace=1.0, postgres=False):
    """The API simulator (tests/simulator) on 127.0.0.1 with a random key, stopped afterwards;
    ``operation_pace`` scales how long the operations API calls start take (1: 1-2 s each);
    ``postgres``: its computes are real PostgreSQL servers (--postgres).

    Yields the variables it announces: NEON_API_URL, NEON_API_KEY, NEON_SIM_DEMO_PROJECT,
    NEON_SIM_CONTROL_URL, NEON_SIM_ORG_ID (and NEON_SIM_PG_BIN with ``postgres``).
    """
    tmp = Path(session.create_tmp()).resolve()
    name = "simulator-postgres" if postgres else "simulator"
    python = shutil.which("python", path=os.pathsep.join(session.bin_paths))
    try:
        simulator = launcher.launch(source=SIMULATOR_SOURCE, command=[python, "-m", "neon_simulator"],
                                    operation_pace=operation_pace, postgres=postgres,
                                    log_path=tmp / (name + ".log"), url_file=tmp / (name + ".url"))
    except launcher.SimulatorDidNotStart as error:
        session.error(str(error))
    try:
        session.log("simulator up at %s" % simulator.url)
        yield simulator.environment()
    finally:
        code = simulator.stop()
        if code not in (0, -15):
            session.warn("the simulator exited with %s:\n%s" % (code, simulator.log()[-3000:]))
