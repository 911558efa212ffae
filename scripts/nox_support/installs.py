# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a session installs into its own virtualenv: one ansible-core and the tests' requirements."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from nox_support import ROOT


def core_requirement(core):
    """The pip requirement for ansible-core ``core`` ("2.19": any 2.19.x)."""
    major, minor = core.split(".")
    return "ansible-core>=%s.0,<%s.%d" % (core, major, int(minor) + 1)


def install_test_tools(session, core, requirements="tests/requirements.txt"):
    """ansible-core ``core`` and what our tests need beside it."""
    session.install(core_requirement(core), "-r", str(ROOT / requirements))
