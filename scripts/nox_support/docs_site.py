# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The docs session's Sphinx site, made by antsibull-docs sphinx-init, built offline: Sphinx
cannot read the inventories of Ansible's own docs here, so scripts/docs/ansible_refs.py links
exactly the labels of those docs that ours use, and intersphinx is left out."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import shutil

from nox_support import ROOT

OFFLINE_SPHINX_CONF = """

# --- neon.cloud (noxfile.py, docs session): an offline build ---
import os as _os
import sys as _sys
_sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
extensions = [extension for extension in extensions if extension != "sphinx.ext.intersphinx"] + ["ansible_refs"]
intersphinx_mapping = {}
"""


def make_site_offline(site):
    """Put scripts/docs/ansible_refs.py into the site ``site`` and its conf.py to use it instead of intersphinx."""
    shutil.copy(ROOT / "scripts" / "docs" / "ansible_refs.py", site)
    with open(site / "conf.py", "a", encoding="utf-8") as conf:
        conf.write(OFFLINE_SPHINX_CONF)
