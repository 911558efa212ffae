# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""meta/runtime.yml's action group ``all`` and the modules must agree.

``module_defaults: {group/neon.cloud.all: ...}`` only reaches modules listed in the group, and
the docs promise it for every module through the ``neon.cloud.api.action_group`` fragment.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import os

import pytest
import yaml

COLLECTION_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PREFIX = "neon.cloud."
FRAGMENT = "neon.cloud.api.action_group"


def module_names(root):
    folder = os.path.join(root, "plugins", "modules")
    return sorted(name[:-3] for name in os.listdir(folder) if name.endswith(".py") and not name.startswith("_"))


def group_members(root):
    with open(os.path.join(root, "meta", "runtime.yml")) as handle:
        runtime = yaml.safe_load(handle) or {}
    members = []
    for entry in (runtime.get("action_groups") or {}).get("all") or []:
        if isinstance(entry, str):  # dict entries are group metadata (extend_group)
            members.append(entry[len(PREFIX):] if entry.startswith(PREFIX) else entry)
    return members


def documentation(path):
    with open(path) as handle:
        tree = ast.parse(handle.read(), path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(target, "id", None) == "DOCUMENTATION" for target in node.targets):
            return yaml.safe_load(ast.literal_eval(node.value)) or {}
    return {}


def action_group_problems(root):
    """Sentences naming every disagreement; empty when the group and the modules agree."""
    problems = []
    modules = module_names(root)
    members = group_members(root)
    for name in modules:
        if name not in members:
            problems.append("module %s is missing from action group 'all' in meta/runtime.yml" % name)
    for name in members:
        if name not in modules:
            problems.append("action group 'all' lists %s, but plugins/modules/%s.py does not exist" % (name, name))
    for name in sorted(set(members)):
        if members.count(name) > 1:
            problems.append("action group 'all' lists %s %d times" % (name, members.count(name)))
    for name in modules:
        fragments = documentation(os.path.join(root, "plugins", "modules", name + ".py")).get("extends_documentation_fragment") or []
        if isinstance(fragments, str):
            fragments = [fragments]
        if FRAGMENT not in fragments:
            problems.append("module %s does not extend the documentation fragment %s" % (name, FRAGMENT))
    return problems


def test_action_group_all_and_modules_agree():
    assert module_names(COLLECTION_ROOT), "no modules found under %s" % COLLECTION_ROOT
    assert action_group_problems(COLLECTION_ROOT) == []


MODULE_TEMPLATE = '''DOCUMENTATION = r"""
module: %s
short_description: test
extends_documentation_fragment:
%s
"""
'''


@pytest.fixture
def fake_collection(tmp_path):
    def build(modules, group, fragments=("neon.cloud.api", FRAGMENT)):
        (tmp_path / "meta").mkdir()
        (tmp_path / "plugins" / "modules").mkdir(parents=True)
        (tmp_path / "meta" / "runtime.yml").write_text(yaml.safe_dump({"requires_ansible": ">=2.17.0", "action_groups": {"all": group}}))
        for name in modules:
            listed = "\n".join("  - %s" % fragment for fragment in (fragments(name) if callable(fragments) else fragments))
            (tmp_path / "plugins" / "modules" / (name + ".py")).write_text(MODULE_TEMPLATE % (name, listed))
        return str(tmp_path)
    return build


def test_agreeing_fake_collection_passes(fake_collection):
    root = fake_collection(["a_info", "b"], ["a_info", "neon.cloud.b", {"metadata": {"extend_group": []}}])
    assert action_group_problems(root) == []


def test_module_missing_from_the_group_fails(fake_collection):
    root = fake_collection(["a_info", "b", "c"], ["a_info", "b"])
    assert action_group_problems(root) == ["module c is missing from action group 'all' in meta/runtime.yml"]


def test_group_entry_without_module_fails(fake_collection):
    root = fake_collection(["a_info"], ["a_info", "gone"])
    assert action_group_problems(root) == ["action group 'all' lists gone, but plugins/modules/gone.py does not exist"]


def test_empty_group_fails_for_every_module(fake_collection):
    root = fake_collection(["a_info", "b"], None)
    assert len(action_group_problems(root)) == 2


def test_module_without_the_fragment_fails(fake_collection):
    root = fake_collection(["a_info", "b"], ["a_info", "b"],
                           fragments=lambda name: ["neon.cloud.api"] if name == "b" else ["neon.cloud.api", FRAGMENT])
    assert action_group_problems(root) == ["module b does not extend the documentation fragment %s" % FRAGMENT]
