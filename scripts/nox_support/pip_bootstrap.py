# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How pip gets into the virtualenvs that ansible-test makes for its sanity tests: our offline
get-pip stand-in (scripts/get_pip_standin.py, copied alone into ansible-test's cache), which asks
uv first when it is told where one is."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import shutil
import sys
from pathlib import Path

from nox_support import ROOT
from nox_support.homes import caller_cache_dir

UV_NETWORK_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR", "UV_NATIVE_TLS", "UV_SYSTEM_CERTS", "UV_INDEX_URL",
                        "UV_DEFAULT_INDEX", "UV_EXTRA_INDEX_URL", "UV_FIND_LINKS")


def install_get_pip_standin(session, home, uv=None):
    """ansible-test bootstraps pip into each venv it makes with a get-pip.py that it downloads
    from a host our machines cannot reach. It first looks in ~/.ansible/test/cache/, so our
    offline stand-in (scripts/get_pip_standin.py, see there) goes there under each name this
    ansible-test asks for."""
    source = session.run("python", "-c", "import ansible_test, os; print(os.path.dirname(ansible_test.__file__))",
                         silent=True).strip().splitlines()[-1]
    requirements = Path(source, "_internal", "python_requirements.py").read_text(encoding="utf-8")
    versions = set(re.findall(r"pip=['\"]([0-9][0-9.]*)['\"]|'pip': *'([0-9][0-9.]*)'", requirements))
    versions = {version for pair in versions for version in pair if version}
    if not versions:
        session.error("found no pip version in %s: the get-pip stand-in cannot be installed" % source)
    cache = home / ".ansible" / "test" / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    text = (ROOT / "scripts" / "get_pip_standin.py").read_text(encoding="utf-8")
    if uv:
        # ansible-test runs the stand-in with an environment of its own (PATH, HOME, LC_ALL), so what
        # it needs to find uv is written into it.
        text = text.replace("UV = None\n", "UV = %r\n" % (uv,), 1)
    for version in sorted(versions):
        destination = cache / ("get_pip_%s.py" % version.replace(".", "_"))
        if destination.exists() and "Offline stand-in for ansible-test" not in destination.read_text(encoding="utf-8"):
            continue  # a real get-pip.py: keep it
        # A whole file or none: an ansible-test of another session may read it at any time.
        partial = destination.with_name(".%s.%d" % (destination.name, os.getpid()))
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, destination)


def uv_bootstrap():
    """What lets the get-pip stand-in bootstrap pip into ansible-test's sanity virtualenvs with uv
    (scripts/get_pip_standin.py): the uv installed beside nox (requirements-nox.txt) and the
    caller's uv cache, which the sessions' own installs fill too; None without a uv."""
    uv = shutil.which("uv", path=os.path.dirname(sys.executable)) or shutil.which("uv")
    if not uv:
        return None
    # ansible-test runs the stand-in without our environment: what uv needs to reach the registry
    # as the sessions' installs do (a CA bundle, an index) goes with it; never proxies (a proxy URL
    # may carry a password; without a direct way the stand-in falls back to pip).
    network = dict((name, value) for name, value in os.environ.items() if name in UV_NETWORK_VARIABLES)
    return dict(binary=os.path.abspath(uv), cache=os.environ.get("UV_CACHE_DIR") or str(caller_cache_dir() / "uv"),
                env=network)
