# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The simulator package's version is its collection's (pyproject.toml's custom metadata hook).

Built from a clone of the repository, this folder is tests/simulator and the version is galaxy.yml's;
built from an installed collection (``ansible_collections/neon/cloud/tests/simulator``), it is its
MANIFEST.json's, which ansible-galaxy writes from galaxy.yml. A wheel built from the sdist takes the
version the sdist's PKG-INFO holds (hatchling does that before calling this hook).
"""

from __future__ import annotations

import json
import os
import re

from hatchling.metadata.plugin.interface import MetadataHookInterface

COLLECTION = ("neon", "cloud")
GALAXY_FIELD = re.compile(r"^(namespace|name|version):\s*['\"]?([A-Za-z0-9_.+-]+)['\"]?\s*(#.*)?$")


def galaxy_fields(path):
    """namespace, name and version of a galaxy.yml (top-level scalars: no YAML parser at build time)."""
    fields = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            match = GALAXY_FIELD.match(line.rstrip("\n"))
            if match:
                fields.setdefault(match.group(1), match.group(2))
    return fields


def manifest_fields(path):
    with open(path, encoding="utf-8") as handle:
        info = json.load(handle).get("collection_info") or {}
    return {name: info.get(name) for name in ("namespace", "name", "version")}


def collection_version(root):
    """The version of the neon.cloud collection this folder (tests/simulator) belongs to."""
    collection = os.path.dirname(os.path.dirname(os.path.abspath(root)))
    for filename, read in (("galaxy.yml", galaxy_fields), ("MANIFEST.json", manifest_fields)):
        path = os.path.join(collection, filename)
        if not os.path.isfile(path):
            continue
        fields = read(path)
        if (fields.get("namespace"), fields.get("name")) != COLLECTION or not fields.get("version"):
            raise ValueError("%s is not neon.cloud's (or has no version): the simulator's version is the "
                             "collection's" % path)
        return str(fields["version"])
    raise ValueError("found neither galaxy.yml nor MANIFEST.json in %s: build the simulator from tests/simulator "
                     "of a clone of the neon.cloud repository or of an installed neon.cloud collection" % collection)


class CollectionVersionHook(MetadataHookInterface):
    """``version``: the collection's."""

    PLUGIN_NAME = "custom"

    def update(self, metadata):
        if "version" not in metadata:
            metadata["version"] = collection_version(self.root)
