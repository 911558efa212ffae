# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The copy of the collection that ansible-test, ansible-galaxy and ansible see."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import shutil

from antsibull_nox.sessions import prepare_collections

# What ansible-test must not take for collection content (sanity would lint it as such).
REPOSITORY_TOOLING = (".ci", "benchmarks", "scripts", "noxfile.py", "Makefile")


def collection_copy(session, core):
    """A fresh copy of the work tree (git's files, untracked ones included) below
    .../ansible_collections/neon/cloud, where ansible-test and ansible find the collection,
    without the repository's tooling (not collection content: galaxy.yml leaves it out too)."""
    prepared = prepare_collections(session, ansible_core_version=core, install_in_site_packages=False,
                                   install_out_of_tree=True)
    if prepared is None:
        session.skip("no virtualenv to run ansible-test in")
    for tooling in REPOSITORY_TOOLING:
        path = prepared.current_path / tooling
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    return prepared.current_path
