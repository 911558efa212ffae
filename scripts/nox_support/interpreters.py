# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Pythons the sessions need, as nox finds them (on PATH), from pyenv's real installations."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import glob
import os
import pwd
import shutil
import subprocess


def use_real_interpreters(versions):
    """Put the real pythonX.Y of pyenv, for each of ``versions`` ("3.11", ...), first on PATH: its shims
    of versions that are not the global one exist but fail when run, and nox would pick them."""
    found = []
    for version in sorted(set(versions)):
        for pyenv_root in pyenv_roots():
            bins = sorted(glob.glob(os.path.join(pyenv_root, "versions", version + ".*", "bin")))
            if bins:
                found.append(bins[-1])
                break
    if found:
        os.environ["PATH"] = os.pathsep.join(found + [os.environ.get("PATH", "")])


def pyenv_roots():
    """Where pyenv may keep its versions: $PYENV_ROOT, what `pyenv root` says, and ~/.pyenv of
    both $HOME and the password database (HOME may be another directory, as in CI jobs)."""
    roots = [os.environ.get("PYENV_ROOT")]
    if shutil.which("pyenv"):
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            roots.append(subprocess.run(["pyenv", "root"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        universal_newlines=True, timeout=10, check=False).stdout.strip())
    roots.append(os.path.expanduser("~/.pyenv"))
    with contextlib.suppress(KeyError):
        roots.append(os.path.join(pwd.getpwuid(os.getuid()).pw_dir, ".pyenv"))
    return [root for root in dict.fromkeys(roots) if root]
