# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""docs/modules/ matches the modules' own documentation, and the guide's links resolve."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import subprocess
import sys

import pytest

from ecosystem_support import ROOT

GENERATOR = os.path.join(ROOT, "scripts", "gen_module_docs.py")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def test_module_reference_is_up_to_date():
    proc = subprocess.run([sys.executable, GENERATOR, "--check"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, cwd=ROOT, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr + proc.stdout


def test_every_module_is_in_the_reference_and_the_readme():
    modules = sorted(name[:-3] for name in os.listdir(os.path.join(ROOT, "plugins", "modules"))
                     if name.endswith(".py") and not name.startswith("_"))
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    for module in modules:
        assert os.path.exists(os.path.join(ROOT, "docs", "modules", module + ".md"))
        assert "(docs/modules/%s.md)" % module in readme, "README.md's module table lacks %s" % module


def markdown_files():
    files = [os.path.join(ROOT, "README.md")]
    for folder, _dirs, names in os.walk(os.path.join(ROOT, "docs")):
        files.extend(os.path.join(folder, name) for name in names if name.endswith(".md"))
    return sorted(files)


def github_anchor(heading):
    text = re.sub(r"`([^`]*)`", r"\1", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors_and_links(path):
    anchors, links, fenced = set(), [], False
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if FENCE.match(line):
                fenced = not fenced
                continue
            if fenced:
                continue
            heading = HEADING.match(line)
            if heading:
                anchors.add(github_anchor(heading.group(1)))
            links.extend(LINK.findall(line))
    return anchors, links


@pytest.mark.parametrize("path", markdown_files(), ids=lambda path: os.path.relpath(path, ROOT))
def test_relative_links_resolve(path):
    _anchors, links = anchors_and_links(path)
    broken = []
    for link in links:
        if re.match(r"^[a-z]+:", link):
            continue  # https:, mailto: ...
        target, _sep, anchor = link.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(path), target)) if target else path
        if not os.path.exists(full):
            broken.append("%s (no such file)" % link)
        elif anchor and full.endswith(".md") and anchor not in anchors_and_links(full)[0]:
            broken.append("%s (no such heading)" % link)
    assert not broken, "broken links in %s: %s" % (os.path.relpath(path, ROOT), broken)
