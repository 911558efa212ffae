# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""README.md: its module table lists exactly the modules there are, it links every page of the
guide, and its relative links (and their #anchors) lead somewhere.

The guide itself (docs/docsite/rst) is checked by the docs sessions: its :ref: links by the Sphinx
build (warnings are errors), its index and module references by antsibull-docs lint-collection-docs.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import unicodedata

import pytest

from neon_testing import ROOT

README = os.path.join(ROOT, "README.md")
GUIDE = os.path.join(ROOT, "docs", "docsite", "rst")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
MD_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
MODULE_ROW = re.compile(r"^\|\s*`neon\.cloud\.(\w+)`\s*\|")
# An RST section title: a line of text, then a line of one punctuation character at least as long.
RST_UNDERLINE = re.compile(r"^([=\-^~*+#\"'`:.])\1*\s*$")


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def modules():
    return sorted(name[:-3] for name in os.listdir(os.path.join(ROOT, "plugins", "modules"))
                  if name.endswith(".py") and not name.startswith("_"))


def readme_lines():
    """README's lines outside code blocks."""
    fenced = False
    for line in read(README).splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            yield line


def github_anchor(heading):
    """The anchor GitHub gives a Markdown heading."""
    text = re.sub(r"`([^`]*)`", r"\1", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def docutils_id(title):
    """The id docutils (and so GitHub, which renders .rst with it) gives a section (docutils.nodes.make_id)."""
    text = title.replace("``", "").lower()
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^a-z0-9]+", "-", " ".join(text.split()))
    return re.sub(r"^[-0-9]+|-+$", "", text)


def anchors(path):
    if path == README:
        return set(github_anchor(m.group(1)) for m in map(MD_HEADING.match, readme_lines()) if m)
    if path.endswith(".rst"):
        lines = read(path).splitlines()
        return set(docutils_id(title) for title, underline in zip(lines, lines[1:])
                   if title.strip() and RST_UNDERLINE.match(underline) and len(underline.rstrip()) >= len(title.rstrip()))
    return set()


def readme_links():
    return [link for line in readme_lines() for link in LINK.findall(line) if not re.match(r"^[a-z]+:", link)]


def test_the_module_table_lists_every_module_and_no_other():
    listed = [m.group(1) for m in map(MODULE_ROW.match, readme_lines()) if m]
    assert sorted(listed) == modules(), "README.md's module table: %s, plugins/modules: %s" % (listed, modules())


def test_every_guide_page_is_linked():
    pages = sorted(name for name in os.listdir(GUIDE) if name.endswith(".rst"))
    linked = set(os.path.normpath(link.partition("#")[0]) for link in readme_links())
    missing = [page for page in pages if os.path.join("docs", "docsite", "rst", page) not in linked]
    assert pages and not missing, "README.md links no page %s" % missing


def test_relative_links_resolve():
    broken = []
    for link in readme_links():
        target, _sep, anchor = link.partition("#")
        full = os.path.normpath(os.path.join(ROOT, target)) if target else README
        if not os.path.exists(full):
            broken.append("%s (no such file)" % link)
        elif anchor and anchor not in anchors(full):
            broken.append("%s (no such heading in %s)" % (link, os.path.relpath(full, ROOT)))
    assert not broken, "broken links in README.md: %s" % broken


# The ids docutils.nodes.make_id gives these titles.
@pytest.mark.parametrize("title, anchor", [
    ('The module fails with "requests is required" on localhost', "the-module-fails-with-requests-is-required-on-localhost"),
    ("Once per play with ``module_defaults``", "once-per-play-with-module-defaults"),
    ("Fault -> what the collection does", "fault-what-the-collection-does"),
    ("2. \u00c4 x", "a-x"),
])
def test_docutils_id(title, anchor):
    assert docutils_id(title) == anchor
