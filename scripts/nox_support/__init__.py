# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the sessions of noxfile.py use, one concern per module; noxfile.py itself is the list of
sessions. Imported only by noxfile.py, in nox's own Python (3.11), never by the collection: the
sessions' copies of the collection leave scripts/ out (collection.py), as galaxy.yml does.

- interpreters.py: the real pythonX.Y of pyenv first on PATH, for nox to find.
- installs.py: ansible-core of one version and the test requirements, into a session's virtualenv.
- collection.py: the copy of the work tree below .../ansible_collections/neon/cloud.
- homes.py: the HOME directories the sessions' tools run with (empty ones, sanity's kept ones, their lock).
- pip_bootstrap.py: the offline get-pip stand-in, and the uv it bootstraps pip with.
- simulator.py: the API simulator for a session's run (started, announced, stopped), through the
  simulator's own launcher (tests/simulator/neon_simulator/launcher.py, loaded by its path).
- simulator_wheel.py: the simulator as a package: its wheel built, installed and tried (simulator-wheel).
- ansible_test.py: ansible-test's arguments, and running its sanity and integration tests.
- docs_site.py: what makes the generated Sphinx site build offline.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from pathlib import Path

# The repository's root: this file is scripts/nox_support/__init__.py.
ROOT = Path(__file__).resolve().parents[2]
