# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures of the ecosystem tests: a local API simulator, the collection as ansible sees it and
a built collection tarball.

Run from the repository root with the development venv (or `make ecosystem`):
    .venvs/default/bin/python -m pytest tests/ecosystem
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ecosystem_support import ROOT, ansible_env, galaxy_meta, run, start_simulator, stop_simulator, tool


@pytest.fixture(scope="module")
def simulator(tmp_path_factory):
    """A fresh simulator for each test module, stopped afterwards."""
    process, info = start_simulator(tmp_path_factory.mktemp("simulator"))
    try:
        yield info
    finally:
        stop_simulator(process)


@pytest.fixture(scope="session")
def collection_root(tmp_path_factory):
    """A collections path where ansible finds this repository as neon.cloud (a symlink, no copy)."""
    meta = galaxy_meta()
    base = tmp_path_factory.mktemp("collections")
    namespace_dir = base / "ansible_collections" / meta["namespace"]
    namespace_dir.mkdir(parents=True)
    os.symlink(ROOT, str(namespace_dir / meta["name"]))
    return base


@pytest.fixture(scope="session")
def collection_tarball(tmp_path_factory):
    """The collection built by `ansible-galaxy collection build`, once per session."""
    out = tmp_path_factory.mktemp("build")
    run([tool("ansible-galaxy"), "collection", "build", "--output-path", out, ROOT],
        cwd=str(out), env=ansible_env(out))
    meta = galaxy_meta()
    tarball = out / ("%s-%s-%s.tar.gz" % (meta["namespace"], meta["name"], meta["version"]))
    assert tarball.exists(), sorted(os.listdir(str(out)))
    return tarball
