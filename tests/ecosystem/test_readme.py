# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""README.md: its module table lists exactly the modules there are, it links every page of the
guide, its relative links (and their #anchors) lead somewhere, and its first steps from a clone
(build, install, the simulator, an ad hoc command) work as written.

The guide itself (docs/docsite/rst) is checked by the docs sessions: its :ref: links by the Sphinx
build (warnings are errors), its index and module references by antsibull-docs lint-collection-docs.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import shlex
import shutil
import unicodedata

import pytest

from neon_simulator.launcher import SimulatorDidNotStart, launch
from neon_testing import COPY_IGNORE, ROOT, ansible_env, galaxy_meta, run

README = os.path.join(ROOT, "README.md")
GUIDE = os.path.join(ROOT, "docs", "docsite", "rst")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
MD_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
MODULE_ROW = re.compile(r"^\|\s*`neon\.cloud\.(\w+)`\s*\|")
# An RST section title: a line of text, then a line of one punctuation character at least as long.
RST_UNDERLINE = re.compile(r"^([=\-^~*+#\"'`:.])\1*\s*$")
FIRST_STEPS = "From a clone, without make or nox"
# What a copy of the clone for the first steps leaves out besides COPY_IGNORE: caches and builds.
CLONE_IGNORE = shutil.ignore_patterns(".cache", "*.tar.gz", "build")
ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
SIMULATOR_START_TIMEOUT = 30  # seconds for the simulator to listen (it takes well under one)


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


# --- First steps from a clone ------------------------------------------------------------------


def section_commands(title):
    """The commands (``$ ...`` lines of its code blocks) of README's section ``title``, in order."""
    commands, inside, fenced = [], False, False
    for line in read(README).splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        heading = None if fenced else MD_HEADING.match(line)
        if heading:
            inside = heading.group(1) == title
        elif inside and fenced and line.startswith("$ "):
            commands.append(line[2:])
    return commands


def copy_of_the_clone(target):
    """This work tree as a fresh clone has it: no virtualenvs, caches, builds or tarballs."""
    def ignore(directory, names):
        return set(COPY_IGNORE(directory, names)) | set(CLONE_IGNORE(directory, names))

    shutil.copytree(ROOT, str(target), ignore=ignore)
    return target


def start_simulator(command, clone, env, logs):
    """The README's simulator command, on a free port instead of 8080 (which another program may
    hold): its interpreter, variables and key given to the simulator's launcher, which starts it with
    ``--port 0`` and waits until it listens. Returns the launcher's SimulatorProcess."""
    assert "--port 8080" in command, command
    words = shlex.split(command.replace("--port 8080", ""))
    env = dict(env)
    while ENV_ASSIGNMENT.match(words[0]):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    assert "--api-key" in words, "the README's simulator command no longer gives --api-key: %s" % command
    at = words.index("--api-key")
    api_key = words[at + 1]
    del words[at:at + 2]
    try:
        return launch(source=env.pop("PYTHONPATH", None), command=words, api_key=api_key, env=env, cwd=clone,
                      log_path=logs, start_timeout=SIMULATOR_START_TIMEOUT)
    except SimulatorDidNotStart as error:
        pytest.fail("the README's simulator command did not listen: %s" % error)


def test_the_first_steps_from_a_clone_work_as_written(tmp_path):
    """Each command of README's first steps, as written, in a copy of the clone with an empty HOME:
    the build, the install into $HOME/ansible-collections, ansible-doc and an ad hoc command that find
    the installed copy through ANSIBLE_COLLECTIONS_PATH, against the simulator started with the
    one-line command. Left out: pip (the test's Python has requests and Werkzeug, and its virtualenv
    no pip); changed: the simulator's port 8080, to a free one."""
    commands = section_commands(FIRST_STEPS)
    simulator = [command for command in commands if "-m neon_simulator" in command]
    pip = [command for command in commands if "-m pip install -r requirements.txt" in command]
    assert len(simulator) == 1 and len(pip) == 1, commands
    steps = [command for command in commands if command not in simulator + pip]
    for needed in ("ansible-galaxy collection build", "ansible-galaxy collection install", "ANSIBLE_COLLECTIONS_PATH=",
                   "ansible-doc neon.cloud.", "NEON_API_URL=http://127.0.0.1:8080/", "ansible localhost -m neon.cloud."):
        assert [step for step in steps if needed in step], "README's first steps do not run %r: %s" % (needed, steps)

    clone = copy_of_the_clone(tmp_path / "clone")
    home = tmp_path / "home"
    home.mkdir()
    env = ansible_env(tmp_path, HOME=home)
    sim = start_simulator(simulator[0], clone, env, tmp_path / "simulator.log")
    url = sim.url
    try:
        # each command's output after a line of its own, to tell them apart
        script = "\n".join("echo '>>> %d'\n%s" % (number, step.replace("http://127.0.0.1:8080/api/v2", url))
                           for number, step in enumerate(steps))
        proc = run(["bash", "-euo", "pipefail", "-c", script], cwd=str(clone), env=env, timeout=180)
    finally:
        sim.stop()
    outputs = dict((steps[int(number)], text) for number, text in re.findall(r"^>>> (\d+)\n(.*?)(?=^>>> |\Z)", proc.stdout, re.S | re.M))

    meta = galaxy_meta()
    assert (clone / ("%s-%s-%s.tar.gz" % (meta["namespace"], meta["name"], meta["version"]))).is_file()
    installed = home / "ansible-collections" / "ansible_collections" / meta["namespace"] / meta["name"]
    assert (installed / "MANIFEST.json").is_file()
    docs = [text for step, text in outputs.items() if step.startswith("ansible-doc ")]
    assert len(docs) == 1 and str(installed / "plugins" / "modules") in docs[0], docs
    adhoc = [text for step, text in outputs.items() if step.startswith("ansible localhost ")]
    assert len(adhoc) == 1 and adhoc[0].startswith("localhost | SUCCESS => "), adhoc
    assert '"id": "shiny-river-12345678"' in adhoc[0] and '"failed"' not in adhoc[0], adhoc[0]
