"""Offline stand-in for ansible-test's get-pip bootstrap script. Not a tool of ours: a
workaround for machines that cannot reach the host it downloads it from, such as our CI.

What it replaces, and why: ansible-test bootstraps pip into the empty virtual environments it
creates for sanity tests by running ~/.ansible/test/cache/get_pip_<version>.py, which it
downloads from a host that is not reachable from our machines or CI (the package registry is).
It looks in that cache first, so scripts/nox_support/pip_bootstrap.py (install_get_pip_standin) copies this file there
under each name the installed ansible-test asks for, before a sanity session runs. A real
get-pip.py already in the cache is left alone.

It is run (through ansible-test's quiet_pip.py, with runpy) with arguments such as
``--disable-pip-version-check pip==24.2 --no-setuptools --no-wheel``: the pip in the
interpreter's bundled wheel (ensurepip's) runs from that wheel and installs the requested
packages through the normally configured registry, as get-pip.py does from its own copy. It does
not install the bundled pip first only to replace it (half the time, and a cold sanity run makes
some forty of these environments). Where the interpreter has no bundled wheel (a distribution
may strip it), ensurepip installs the bundled pip, which then installs the requested packages.

Faster still when noxfile.py writes a uv binary and its cache into ``UV`` below as it copies this
file (the sanity sessions of kept homes do; ansible-test gives the script no environment variable
of ours): uv installs the requested pip in a fraction of a second where pip takes two or three (a
cold ``make test`` makes some forty-five of these environments). Only the plain form is handed to
uv (requested packages and ``--disable-pip-version-check``); anything else, or a uv that fails,
takes the pip path above.
"""

import ensurepip
import glob
import os
import subprocess
import sys

# pip rejects these two get-pip.py-only options
DROPPED = ("--no-setuptools", "--no-wheel")
# {"binary": uv, "cache": its cache directory, "env": what it needs to reach the registry}, written
# in by scripts/nox_support/pip_bootstrap.py (install_get_pip_standin), or None
UV = None
# The options of the plain form uv is given (uv has no version check to disable)
UV_IGNORED = ("--disable-pip-version-check",)


def bundled_pip_wheel():
    """The pip wheel this interpreter bundles for ensurepip, or None."""
    wheels = sorted(glob.glob(os.path.join(os.path.dirname(ensurepip.__file__), "_bundled", "pip-*.whl")))
    return wheels[-1] if wheels else None


def install_with_uv(args, requested):
    """Install ``requested`` into this interpreter's environment with uv; False when no uv was
    written in, the form is not the plain one, or uv failed (the caller then uses pip)."""
    options = [arg for arg in args if arg.startswith("-")]
    if UV is None or not requested or any(option not in UV_IGNORED for option in options):
        return False
    env = dict(os.environ, **UV["env"])
    try:
        return subprocess.call([UV["binary"], "pip", "install", "--quiet", "--cache-dir", UV["cache"],
                                "--python", sys.executable] + requested, env=env) == 0
    except OSError:
        return False


def main():
    args = [arg for arg in sys.argv[1:] if arg not in DROPPED]
    requested = [arg for arg in args if not arg.startswith("-")]
    if install_with_uv(args, requested):
        return 0
    wheel = bundled_pip_wheel()
    if wheel is not None:
        # pip runs from its wheel (a zip file on sys.path) and installs what was asked for, or
        # itself when nothing was
        return subprocess.call([sys.executable, os.path.join(wheel, "pip"), "install"] + args
                               + ([] if requested else [wheel]))
    # ensurepip.bootstrap() blanks pip's configuration (PIP_* variables) in
    # os.environ; keep a copy so the real install can reach the registry.
    env = dict(os.environ)
    ensurepip.bootstrap(upgrade=True)
    if not requested:
        return 0  # nothing to install beyond the bundled pip
    return subprocess.call([sys.executable, "-m", "pip", "install"] + args, env=env)


if __name__ == "__main__":
    sys.exit(main())
