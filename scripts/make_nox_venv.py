"""Make the virtualenv that runs nox (`make demo` and `make test` call this first):
``python3.11 scripts/make_nox_venv.py VENV REQUIREMENTS``.

The usual way, `python -m venv` then `pip install -r requirements-nox.txt`, took 13 s on a 2-core
machine with an empty HOME: 6 of them are ensurepip installing a pip that is used once. Here the
virtualenv is made without pip; the pip wheel the interpreter bundles for ensurepip runs straight
from that wheel to install uv (pinned in the requirements file), and uv installs the requirements
(6 s in all, measured side by side). An interpreter without a bundled pip wheel (some distributions
strip it) gets the usual way.
"""

import os
import re
import subprocess
import sys
import venv

# the same pip wheel the get-pip stand-in runs (this script's folder is first on sys.path)
from get_pip_standin import bundled_pip_wheel


def uv_requirement(requirements):
    """The line of the requirements file that names uv (with its version range), or None."""
    with open(requirements, encoding="utf-8") as handle:
        for line in handle:
            if re.match(r"^uv\s*([<>=!~;]|$)", line.strip()):
                return line.strip()
    return None


def main(directory, requirements):
    python = os.path.join(directory, "bin", "python")
    pip_options = ["install", "--quiet", "--disable-pip-version-check"]
    wheel, uv = bundled_pip_wheel(), uv_requirement(requirements)
    symlinks = os.name != "nt"  # as `python -m venv` does
    if wheel is None or uv is None:
        venv.create(directory, with_pip=True, symlinks=symlinks)
        return subprocess.call([python, "-m", "pip"] + pip_options + ["-r", requirements])
    venv.create(directory, with_pip=False, symlinks=symlinks)
    status = subprocess.call([python, os.path.join(wheel, "pip")] + pip_options + [uv])
    if status:
        return status
    return subprocess.call([os.path.join(directory, "bin", "uv"), "pip", "install", "--quiet", "--python", python,
                            "-r", requirements])


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: %s VENV REQUIREMENTS" % sys.argv[0])
    sys.exit(main(sys.argv[1], sys.argv[2]))
