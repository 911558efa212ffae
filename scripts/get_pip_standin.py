"""Offline stand-in for ansible-test's get-pip bootstrap script. Not a tool of ours: a
workaround for machines that cannot reach the host it downloads it from, such as our CI.

What it replaces, and why: ansible-test bootstraps pip into the empty virtual environments it
creates for sanity tests by running ~/.ansible/test/cache/get_pip_<version>.py, which it
downloads from a host that is not reachable from our machines or CI (the package registry is).
It looks in that cache first, so noxfile.py (install_get_pip_standin) copies this file there
under each name the installed ansible-test asks for, before a sanity session runs. A real
get-pip.py already in the cache is left alone.

It is run (through ansible-test's quiet_pip.py, with runpy) with arguments such as
``--disable-pip-version-check pip==24.2 --no-setuptools --no-wheel``: install pip from the
interpreter's bundled wheel with ensurepip, then let that pip install the requested packages
through the normally configured registry.
"""

import ensurepip
import os
import subprocess
import sys

# pip rejects these two get-pip.py-only options
DROPPED = ("--no-setuptools", "--no-wheel")


def main():
    # ensurepip.bootstrap() blanks pip's configuration (PIP_* variables) in
    # os.environ; keep a copy so the real install can reach the registry.
    env = dict(os.environ)
    ensurepip.bootstrap(upgrade=True)
    args = [arg for arg in sys.argv[1:] if arg not in DROPPED]
    if not [arg for arg in args if not arg.startswith("-")]:
        return 0  # nothing to install beyond the bundled pip
    return subprocess.call([sys.executable, "-m", "pip", "install"] + args, env=env)


if __name__ == "__main__":
    sys.exit(main())
