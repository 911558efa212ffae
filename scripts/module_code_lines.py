#!/usr/bin/env python3
# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Own code lines of modules: the non-blank, non-comment lines of a module file outside its DOCUMENTATION,
EXAMPLES and RETURN strings (imports, ``work``, ``main`` and the argument spec count; the docs do not).

    python3 scripts/module_code_lines.py                        # every module of plugins/modules/
    python3 scripts/module_code_lines.py branch project         # some of them
    python3 scripts/module_code_lines.py --rev 4631b8e branch   # as they were at a commit (git show)
    python3 scripts/module_code_lines.py path/to/network.py     # any module file (another collection's)

One line per module, ``lines name``, then the total when more than one was counted.
"""

from __future__ import absolute_import, division, print_function

import argparse
import ast
import os
import subprocess
import sys

DOC_STRINGS = ("DOCUMENTATION", "EXAMPLES", "RETURN")
MODULES = os.path.join("plugins", "modules")


def code_lines(source):
    """The count of non-blank, non-comment lines of ``source`` outside its DOCUMENTATION, EXAMPLES and RETURN."""
    skipped = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(isinstance(target, ast.Name) and target.id in DOC_STRINGS
                                                for target in node.targets):
            skipped.update(range(node.lineno, node.end_lineno + 1))
    return sum(1 for number, line in enumerate(source.splitlines(), start=1)
               if number not in skipped and line.strip() and not line.strip().startswith("#"))


def read(name, rev):
    """The text of module ``name`` (a module name or a path), in the work tree or at commit ``rev``."""
    path = name if name.endswith(".py") else os.path.join(MODULES, name + ".py")
    if rev is None:
        with open(path, encoding="utf-8") as handle:
            return path, handle.read()
    return path, subprocess.run(["git", "show", "%s:%s" % (rev, path)], check=True, capture_output=True,
                                text=True).stdout


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="module names or paths (default: every module)")
    parser.add_argument("--rev", help="count the files as they were at this git commit")
    args = parser.parse_args(argv)
    names = args.modules or sorted(name[:-3] for name in os.listdir(MODULES)
                                   if name.endswith(".py") and not name.startswith("_"))
    total = 0
    for name in names:
        path, source = read(name, args.rev)
        count = code_lines(source)
        total += count
        print("%4d %s" % (count, os.path.basename(path)[:-3]))
    if len(names) > 1:
        print("%4d total" % total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
