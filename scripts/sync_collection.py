#!/usr/bin/env python3
"""Mirror the collection's files into .build/COPY/ansible_collections/NS/NAME/.

ansible-test and ansible only find a collection below a path that ends in
ansible_collections/<namespace>/<name>; a symlink does not do for ansible-test
(it resolves os.getcwd()), so we keep a copy. The copy holds exactly the files
git lists (tracked + untracked-but-not-ignored, so work in progress is tested
too) minus repository tooling that is not part of the collection (EXCLUDE).
Files are copied only when size/mtime/mode differ; stale files are removed,
except ansible-test's own output (tests/output) and generated test config.

The copy is made a git repository of its own (`git init`, nothing committed):
ansible-test looks for a .git directory in the collection root *and its
parents*; without one in the copy it would find this repository's, list the
copy's files with `git ls-files` there (where .build/ is ignored), see no
files at all and skip every test ("All targets skipped").

Each test environment ("cell": default, 2.17, ... see lib.sh) has its own
copy, COPY = the cell name, so that runs of different cells (by other people
working in the same tree) don't share tests/output or integration_config.yml;
the scripts hold .build/COPY.lock while they use a copy.

usage: scripts/sync_collection.py [COPY]   (default: default; prints the copy's path)
"""

import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# repository tooling, not collection content (sanity would lint it as such)
EXCLUDE_PREFIXES = (
    ".ci/",
    "scripts/",
    "benchmarks/",
    "Makefile",
    ".build/",
    ".venvs/",
    ".venv/",
    ".ansible/",
)
# generated inside the copy, never deleted by a sync
KEEP_PREFIXES = (
    ".git/",
    ".ansible/",  # ansible-lint's cache (make lint runs it in the copy)
    "tests/output/",
    "tests/integration/integration_config.yml",
    "tests/integration/inventory",
)


def collection_name():
    with open(os.path.join(ROOT, "galaxy.yml"), encoding="utf-8") as handle:
        text = handle.read()
    found = {}
    for key in ("namespace", "name"):
        match = re.search(r"^%s:\s*['\"]?([a-z0-9_]+)" % key, text, re.MULTILINE)
        if not match:
            sys.exit("sync_collection.py: no %s in galaxy.yml" % key)
        found[key] = match.group(1)
    return found["namespace"], found["name"]


def source_files():
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, check=True, stdout=subprocess.PIPE,
    ).stdout.decode("utf-8")
    files = set()
    for rel in out.split("\0"):
        if not rel or rel.startswith(EXCLUDE_PREFIXES):
            continue
        path = os.path.join(ROOT, rel)
        # tracked files deleted in the work tree are listed too: skip them
        if os.path.isfile(path) or os.path.islink(path):
            files.add(rel)
    return files


def same(src, dst):
    try:
        a, b = os.lstat(src), os.lstat(dst)
    except FileNotFoundError:
        return False
    return a.st_size == b.st_size and int(a.st_mtime) == int(b.st_mtime) and a.st_mode == b.st_mode


def main():
    copy = sys.argv[1] if len(sys.argv) > 1 else "default"
    if not re.match(r"^[A-Za-z0-9_.-]+$", copy):
        sys.exit("sync_collection.py: bad copy name %r" % copy)
    namespace, name = collection_name()
    dest = os.path.join(ROOT, ".build", copy, "ansible_collections", namespace, name)
    files = source_files()
    copied = removed = 0
    for rel in sorted(files):
        src, dst = os.path.join(ROOT, rel), os.path.join(dest, rel)
        if same(src, dst):
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.lexists(dst) or os.path.isdir(dst):
            if os.path.isdir(dst) and not os.path.islink(dst):
                shutil.rmtree(dst)
            else:
                os.unlink(dst)
        if os.path.islink(src):
            os.symlink(os.readlink(src), dst)
        else:
            shutil.copy2(src, dst)
        copied += 1
    if not os.path.isdir(os.path.join(dest, ".git")):
        subprocess.run(["git", "init", "-q", dest], check=True)
    # what tools generate in the copy is not content ansible-test should see
    exclude = os.path.join(dest, ".git", "info", "exclude")
    os.makedirs(os.path.dirname(exclude), exist_ok=True)
    with open(exclude, "w", encoding="utf-8") as handle:
        handle.write("".join("/%s\n" % p for p in KEEP_PREFIXES if p != ".git/"))
    for dirpath, dirnames, filenames in os.walk(dest, topdown=False):
        if dirpath == os.path.join(dest, ".git") or dirpath.startswith(os.path.join(dest, ".git") + os.sep):
            continue
        for fname in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            path = os.path.join(dirpath, fname)
            rel = os.path.relpath(path, dest)
            if rel not in files and not rel.startswith(KEEP_PREFIXES):
                os.unlink(path)
                removed += 1
        if dirpath != dest and not os.listdir(dirpath):
            os.rmdir(dirpath)
    print("sync_collection.py: %d files in %s (%d copied, %d removed)"
          % (len(files), os.path.relpath(dest, ROOT), copied, removed), file=sys.stderr)
    print(dest)


if __name__ == "__main__":
    main()
