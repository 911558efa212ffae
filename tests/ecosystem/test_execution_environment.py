# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""ansible-builder: an execution environment that installs neon.cloud gets `requests`.

`ansible-builder create` writes the build context (no container engine needed). The Python
requirements of the collections are found later, inside the image build, by the
introspect.py that builder puts into the context; this test runs that same script on the
collection installed from the built tarball, as the image build does.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import shutil
import sys

import yaml

from neon_testing import ROOT, ansible_env, galaxy_meta, run, tool

EE_DEFINITION = """---
version: 3
images:
  base_image:
    name: quay.io/fedora/python-311:latest
dependencies:
  python_interpreter:
    package_system: python3.11
    python_path: /usr/bin/python3.11
  ansible_core:
    package_pip: ansible-core>=2.17,<2.22
  ansible_runner:
    package_pip: ansible-runner
  galaxy:
    collections:
      - name: collections/{tarball}
        type: file
additional_build_files:
  - src: {tarball_path}
    dest: collections
"""


def test_collection_declares_its_python_requirements():
    with open(os.path.join(ROOT, "meta", "execution-environment.yml"), encoding="utf-8") as handle:
        meta = yaml.safe_load(handle)
    assert meta["version"] == 3
    python_file = meta["dependencies"]["python"]
    assert not os.path.isabs(python_file), "ansible-builder wants a path relative to the collection root"
    with open(os.path.join(ROOT, python_file), encoding="utf-8") as handle:
        names = [re.split(r"[<>=!~;\[ ]", line.strip())[0].lower() for line in handle
                 if line.strip() and not line.startswith("#")]
    assert "requests" in names
    assert "ansible-core" not in names and "ansible" not in names, "the EE brings its own ansible-core"


def test_ansible_builder_context_installs_requests(collection_tarball, tmp_path):
    definition = tmp_path / "execution-environment.yml"
    definition.write_text(EE_DEFINITION.format(tarball=collection_tarball.name, tarball_path=collection_tarball))
    context = tmp_path / "context"
    env = ansible_env(tmp_path)
    run([tool("ansible-builder"), "create", "--file", definition, "--context", context, "--output-filename",
         "Containerfile", "-v", "1"], cwd=str(tmp_path), env=env)

    build = context / "_build"
    containerfile = (context / "Containerfile").read_text()
    assert "ansible-galaxy collection install" in containerfile
    assert "introspect" in containerfile or "assemble" in containerfile
    requirements = yaml.safe_load((build / "requirements.yml").read_text())
    assert requirements["collections"] == [{"name": "collections/" + collection_tarball.name, "type": "file"}]
    assert (build / "collections" / collection_tarball.name).exists()
    introspect = build / "scripts" / "introspect.py"
    assert introspect.exists()

    # What the image build does next: install the collections, then introspect them.
    install_path = tmp_path / "usr-share-ansible-collections"
    run([tool("ansible-galaxy"), "collection", "install", "--offline", "-p", install_path,
         build / "collections" / collection_tarball.name], cwd=str(tmp_path), env=env)
    written = tmp_path / "requirements.txt"
    proc = run([sys.executable, introspect, "introspect", "--sanitize", install_path, "--write-pip", written],
               cwd=str(tmp_path), env=env)
    meta = galaxy_meta()
    lines = [line for line in written.read_text().splitlines() if line.strip()]
    assert any(re.match(r"^requests\b", line) for line in lines), proc.stdout
    collection = "%s.%s" % (meta["namespace"], meta["name"])
    assert all(collection in line for line in lines), "every requirement is attributed to %s: %s" % (collection, lines)
    shutil.rmtree(str(context))
