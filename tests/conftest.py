# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one setup of the plain-pytest suites (tests/ecosystem, tests/reliability).

They run in one pytest session, `nox -s pytest` (configured in pyproject.toml, which puts
tests/support and tests/simulator on the import path). ansible-test units loads this file too
(it reads conftest.py files from the collection root down): it defines fixtures, and keeps the
collection's tests out of a pytest run that is not rooted in the collection (pytest_ignore_collect).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import sys

import pytest

# NEON_TEST_COLLECTIONS: a collections path holding ansible_collections/neon/cloud to test instead
# of this work tree (an installed tarball, or a copy with an older plugins/).
COLLECTIONS_ENV = "NEON_TEST_COLLECTIONS"
COLLECTION_ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def pytest_ignore_collect(config):
    """Nothing below tests/ is collected by a pytest run whose root is outside the collection.

    Our runs are rooted in the collection: nox's (pyproject.toml) and ansible-test's (--rootdir, the
    collection's root). A user's repository with the collection installed into
    collections/ansible_collections/neon/cloud is not: its plain ``pytest`` would collect these tests,
    which need this repository's development set-up, and stop on their imports (the guide page
    "Testing your playbooks without a Neon account", The pytest fixture)."""
    root = os.path.realpath(str(config.rootpath))
    if root != COLLECTION_ROOT and not root.startswith(COLLECTION_ROOT + os.sep):
        return True
    return None


@pytest.fixture(scope="session")
def collection_parent(tmp_path_factory):
    """A collections path where ansible finds neon.cloud; this process can import it from there too."""
    from neon_testing import link_collection

    parent = os.environ.get(COLLECTIONS_ENV) or link_collection(tmp_path_factory.mktemp("collections"))
    if parent not in sys.path:
        sys.path.insert(0, parent)  # in-process module runs import ansible_collections.neon.cloud
    return parent
