# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every playbook, task list and YAML file the guide shows (the ``.. code-block:: yaml`` and
``yaml+jinja`` blocks of docs/docsite/rst/*.rst) and every module's EXAMPLES, run as a user copies them.

BLOCKS says, for each block, how it is tested and what it needs from outside (a variable the
pipeline passes, a vault password file, the key of another kind): by default it runs with
ansible-playbook against a fresh simulator (a task list in a play on localhost); one that cannot
apply for real runs in check mode, and a YAML file that is no playbook is checked as what it is (an
inventory file with ansible-inventory, the rest against what reads it). A new block is listed in no
table, and test_every_block_is_listed fails until it is: nothing is left out without a reason.

The blocks of a group run in one ansible-playbook, one play each, in the order of their pages, on a
simulator back to its seed: a page that tells one story (create, then reset password, then retire),
one module's EXAMPLES that change something, and, to keep the file within its time (an ansible-playbook
costs a second of CPU before its first task), the pages and EXAMPLES that only read, wait or run in
check mode share a run each. A group's check then asserts what a user would see (the branch gone, the
file encrypted, the credential holding a key that works). The awx.awx modules are stand-ins that record
their arguments (ecosystem_support.fake_awx_collection). Nothing secret is printed: secrets reach the
plays through vars files, and the output shown on a failure has them masked.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import collections
import datetime
import json
import os
import re
import socket
import subprocess
import sys
import textwrap
import time

import pytest
import requests
import yaml

from ecosystem_support import (CREDENTIAL_TYPE_FILE, FAKE_AWX_RECORD_ENV, fake_awx_calls, fake_awx_collection,
                               load_credential_type)
from neon_simulator.launcher import kill_tree, process_gone
from neon_testing import ROOT, ansible_env, psql, tool
from test_simulator_package import check_guide_scene, check_guide_workflow

PAGES = os.path.join(ROOT, "docs", "docsite", "rst")
MODULES = os.path.join(ROOT, "plugins", "modules")
DIRECTIVE = re.compile(r"^(\s*)\.\. code-block:: (yaml|yaml\+jinja)\s*$")
INI_DIRECTIVE = re.compile(r"^(\s*)\.\. code-block:: ini\s*$")
DEMO_PROJECT = "shiny-river-12345678"
ORG_PROJECT = "bold-glade-61830452"  # checkout-api, a project of the seeded organization
VAULT_PASSWORD = "documented-playbooks-vault-password"
SECRET_MASK = "<secret>"


# ---------------------------------------------------------------------------------------------- the blocks

class Unsafe(str):
    """A ``!unsafe`` string of a block: written back with its tag, so Ansible leaves it unrendered."""


class BlockLoader(yaml.SafeLoader):
    """YAML as Ansible reads it, ``!unsafe`` included."""


class BlockDumper(yaml.SafeDumper):
    pass


BlockLoader.add_constructor("!unsafe", lambda loader, node: Unsafe(loader.construct_scalar(node)))
BlockDumper.add_representer(Unsafe, lambda dumper, value: dumper.represent_scalar("!unsafe", str(value)))


class Block:
    """One YAML block: where it is, its text, and what it is."""

    def __init__(self, source, line, text):
        self.source = source
        self.line = line
        self.text = text
        self.data = yaml.load(text, Loader=BlockLoader)  # nosec: a SafeLoader

    @property
    def title(self):
        if isinstance(self.data, list) and self.data and isinstance(self.data[0], dict) and self.data[0].get("name"):
            return self.data[0]["name"]
        return next(line.strip() for line in self.text.splitlines() if line.strip() not in ("", "---"))

    @property
    def kind(self):
        """``playbook``, ``tasks`` (a task list), ``inventory`` (an inventory file of the collection's
        plugin) or ``yaml`` (anything else)."""
        if isinstance(self.data, list) and all(isinstance(item, dict) for item in self.data):
            return "playbook" if all("hosts" in item or "import_playbook" in item for item in self.data) else "tasks"
        if isinstance(self.data, dict) and self.data.get("plugin") == "neon.cloud.projects":
            return "inventory"
        return "yaml"

    def __repr__(self):
        return "%s line %d" % (self.source, self.line)


def rst_blocks(path):
    """The YAML code blocks of a page, dedented, with the line each starts on."""
    return [Block(os.path.basename(path), line, text) for line, text in code_blocks(path, DIRECTIVE)]


def code_blocks(path, directive):
    """(line, text) of each code block of a page whose directive matches ``directive``, dedented."""
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    blocks = []
    for index, line in enumerate(lines):
        match = directive.match(line)
        if not match:
            continue
        indent = len(match.group(1))
        body = []
        for following in lines[index + 1:]:
            if following.strip() and len(following) - len(following.lstrip()) <= indent:
                break
            body.append(following)
        while body and re.match(r"^\s*:[\w-]+:", body[0]):  # the directive's options (:caption: ...)
            body.pop(0)
        text = textwrap.dedent("\n".join(body)).strip("\n")
        blocks.append((index + 1, text + "\n"))
    return blocks


def ansible_cfg_of(page):
    """The ansible.cfg a page shows (an ``ini`` block whose first line is ``# ansible.cfg...``), or None."""
    shown = [text for _line, text in code_blocks(os.path.join(PAGES, page), INI_DIRECTIVE)
             if text.startswith("# ansible.cfg")]
    assert len(shown) <= 1, "%s shows more than one ansible.cfg" % page
    return shown[0] if shown else None


def examples_block(path):
    """A module's EXAMPLES, read from its source (the module is not imported)."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(target, "id", None) == "EXAMPLES" for target in node.targets):
            return Block("%s EXAMPLES" % os.path.basename(path), node.lineno, node.value.value)
    raise AssertionError("%s has no EXAMPLES" % path)


def all_blocks():
    """Every block by its key: '<page>: <its first task's or play's name, else its first line>', or
    '<module>.py EXAMPLES'."""
    blocks = []
    for name in sorted(os.listdir(PAGES)):
        if name.endswith(".rst"):
            blocks.extend(rst_blocks(os.path.join(PAGES, name)))
    for name in sorted(os.listdir(MODULES)):
        if name.endswith(".py") and not name.startswith("_"):
            blocks.append(examples_block(os.path.join(MODULES, name)))
    keyed = collections.OrderedDict()
    for block in blocks:
        key = block.source if block.source.endswith(" EXAMPLES") else "%s: %s" % (block.source, block.title)
        number = 2
        while key in keyed:  # the same first line twice on one page
            key = "%s: %s (%d)" % (block.source, block.title, number)
            number += 1
        keyed[key] = block
    return keyed


# ---------------------------------------------------------------------------------------------- how each is tested

class Run:
    """Run the block with ansible-playbook: a playbook as it is, a task list in a play on localhost.

    group: the ansible-playbook run it is a play of (default: its page, or its module's EXAMPLES).
    Blocks of one group must not disturb each other: the simulator is reset before a group, not
    between its plays.
    check_mode: why it runs in check mode (it cannot apply for real), or None: it runs for real.
    continues: the block whose play it ends (the page says "the playbook above ends with ..."); such a
    block takes the play's vars, environment and check mode, so it may only be given files.
    What it needs from outside, and ``why`` (required with any of them): play_vars and secret_vars
    (the latter from a vars file, never on a command line), play_env (the play's environment),
    hostvars (of localhost in the inventory), files (below the playbook's directory, or ``~/``; None
    makes a directory) and placeholders (text of the block replaced, e.g. the live service's URL).
    A value may be a function of the Scene. xfail: a module bug this block runs into (strict).
    """

    def __init__(self, group=None, check_mode=None, continues=None, why=None, play_vars=None, secret_vars=None,
                 play_env=None, hostvars=None, files=None, placeholders=None, xfail=None):
        self.group = group
        self.check_mode = check_mode
        self.continues = continues
        self.why = why
        self.play_vars = play_vars or {}
        self.secret_vars = secret_vars or {}
        self.play_env = play_env or {}
        self.hostvars = hostvars or {}
        self.files = files or {}
        self.placeholders = placeholders or {}
        self.xfail = xfail

    def needs(self):
        return self.play_vars or self.secret_vars or self.play_env or self.hostvars or self.files or self.placeholders


class Inventory:
    """An inventory file of neon.cloud.projects: ansible-inventory --list against the simulator, then
    ``check(scene, inventory)``. ``setup(scene)`` sets the scene first."""

    def __init__(self, filename, check, setup=None, why=None):
        self.filename = filename
        self.check = check
        self.setup = setup
        self.why = why


class Checked:
    """A YAML file that is not a playbook: ``check(block)`` checks it against what reads it."""

    def __init__(self, check, why):
        self.check = check
        self.why = why


class Covered:
    """Run by another test, named here."""

    def __init__(self, test, why):
        self.test = test
        self.why = why


class Group:
    """What one ansible-playbook run of several blocks needs: a scene set up first (``setup(scene)``),
    an inventory (the file of an Inventory block; default localhost), ``limit`` and its reason, and
    what a user would notice afterwards (``check(scene)``). ``own_test``: a test below runs it.
    ``postgres``: it runs against a simulator whose computes are real PostgreSQL servers (--postgres)."""

    def __init__(self, setup=None, inventory=None, limit=None, why=None, check=None, own_test=None, postgres=False):
        self.setup = setup
        self.inventory = inventory
        self.limit = limit
        self.why = why
        self.check = check
        self.own_test = own_test
        self.postgres = postgres


# ---------------------------------------------------------------------------------------------- running them

AWX_MODULES = ("credential_type", "credential", "inventory", "inventory_source", "job_template", "schedule")
URI_CREDENTIALS = re.compile(r"(postgres(?:ql)?://)[^@\s/]*@")
SECRET_FIELD = re.compile(r'("(?:password|key|uri|connection_uri)"\s*:\s*)"[^"]*"')


class Executable(str):
    """The text of a file the block runs as a command."""


def value_of(value, scene):
    return value(scene) if callable(value) else value


class Scene:
    """One test's simulator (back to its seed), its directories and the environment of its commands."""

    def __init__(self, sim, tmp_path, collection_parent):
        self.sim = sim
        self.tmp = tmp_path
        self.dir = tmp_path / "play"  # the playbook's directory, and the commands' working directory
        self.home = tmp_path / "home"
        self.dir.mkdir()
        self.home.mkdir()
        self.record = tmp_path / "awx-calls.jsonl"
        awx = fake_awx_collection(tmp_path / "awx", AWX_MODULES)
        self.collections = os.pathsep.join([str(collection_parent), str(awx)])
        self.secrets = [sim.api_key]
        self.env = {}
        self.values = {}
        sim.reset()
        # The seeded operations in progress (3 and 5 s) would hold every change to the demo project
        # (HTTP 423): they are over. The operations the API starts end at once: a wait sees them ended at
        # its first poll, and nothing here depends on how long they take.
        sim.advance_clock(60)
        sim.script_operations("*", duration=0, count=10000)

    def secret(self, value):
        """``value``, masked wherever this test shows output."""
        self.secrets.append(value)
        return value

    def path(self, name):
        return self.home / name[2:] if name.startswith("~/") else self.dir / name

    def write(self, name, content, mode=0o644):
        path = self.path(name)
        if content is None:
            path.mkdir(parents=True, exist_ok=True)
            return path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
        path.chmod(mode)
        return path

    def environment(self):
        env = {"HOME": self.home, "NEON_API_KEY": self.sim.api_key, "NEON_API_URL": self.sim.url,
               FAKE_AWX_RECORD_ENV: self.record}
        env.update(self.env)
        return ansible_env(self.tmp, self.collections, **env)

    def mask(self, text):
        for secret in self.secrets:
            if secret:
                text = text.replace(secret, SECRET_MASK)
        text = URI_CREDENTIALS.sub(r"\1%s@" % SECRET_MASK, text)
        return SECRET_FIELD.sub(r'\1"%s"' % SECRET_MASK, text)

    def command(self, argv, timeout=240, fails=False):
        """Run a command in the playbook's directory; fail the test, showing its masked output, when it
        does not exit 0 (``fails``: when it does)."""
        logged = self.sim.requests()
        proc = subprocess.run([str(part) for part in argv], cwd=str(self.dir), env=self.environment(), timeout=timeout,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, check=False)
        if fails and proc.returncode == 0:
            pytest.fail("%s exited 0, and should have failed\n--- stdout\n%s" % (
                os.path.basename(str(argv[0])), self.mask(proc.stdout[-8000:])))
        if proc.returncode != 0 and not fails:
            # What the API refused: a task under no_log shows nothing of its failure.
            refused = ["%s %s?%s: %s" % (entry["method"], entry["path"], entry["query"], entry["status"])
                       for entry in self.sim.requests(since=logged[-1]["seq"] if logged else 0)
                       if (entry["status"] or 500) >= 400]
            pytest.fail("%s exited %d\n--- stdout\n%s\n--- stderr\n%s\n--- API requests refused\n%s" % (
                " ".join(os.path.basename(str(part)) if index == 0 else str(part) for index, part in enumerate(argv)),
                proc.returncode, self.mask(proc.stdout[-8000:]), self.mask(proc.stderr[-4000:]),
                self.mask("\n".join(refused[-20:]))))
        return proc

    def api(self, path, key=None):
        """GET an API path with the simulator's key (or ``key``): the JSON answer, or None for a 404."""
        import requests  # the modules' requirement

        answer = requests.get(self.sim.url + path, timeout=10, headers={
            "Authorization": "Bearer %s" % (key or self.sim.api_key), "Accept": "application/json"})
        if answer.status_code == 404:
            return None
        answer.raise_for_status()
        return answer.json()

    def post(self, path, body=None):
        """POST an API path with the simulator's key (set-up): the JSON answer."""
        import requests  # the modules' requirement

        answer = requests.post(self.sim.url + path, json=body, timeout=60, headers={
            "Authorization": "Bearer %s" % self.sim.api_key, "Accept": "application/json"})
        answer.raise_for_status()
        return answer.json()

    def status(self, path, key):
        import requests

        return requests.get(self.sim.url + path, timeout=10, headers={"Authorization": "Bearer %s" % key}).status_code

    def awx_calls(self):
        return fake_awx_calls(self.record)

    def vault_view(self, name):
        """A file of the run, which must be vault-encrypted (with VAULT_PASSWORD), decrypted."""
        from ansible.parsing.vault import VaultLib, VaultSecret

        raw = self.path(name).read_bytes()
        assert raw.startswith(b"$ANSIBLE_VAULT;"), "%s is not vault-encrypted" % name
        return yaml.safe_load(VaultLib([("default", VaultSecret(VAULT_PASSWORD.encode()))]).decrypt(raw))


def inventory_of_localhost(scene, hostvars):
    """An inventory of localhost that runs modules with this Python (it has requests), with ``hostvars``."""
    host = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
    host.update(hostvars)
    path = scene.tmp / "localhost.yml"
    path.write_text(yaml.safe_dump({"all": {"hosts": {"localhost": host}}}))
    return path


def play_of(key, block, run, scene, secrets_file):
    """The plays of a block, with what the table gives it."""
    text = block.text
    for placeholder, value in run.placeholders.items():
        assert placeholder in text, "%s: the placeholder %r is not in the block" % (key, placeholder)
        text = text.replace(placeholder, str(value_of(value, scene)))
    data = yaml.load(text, Loader=BlockLoader)  # nosec: a SafeLoader
    plays = data if block.kind == "playbook" else [{"name": key, "hosts": "localhost", "gather_facts": False,
                                                    "tasks": data}]
    for play in plays:
        play_vars = {name: value_of(value, scene) for name, value in run.play_vars.items()}
        clash = set(play_vars) & set(play.get("vars") or {})
        assert not clash, "%s: the block sets %s itself" % (key, sorted(clash))
        if play_vars:
            play["vars"] = dict(play.get("vars") or {}, **play_vars)
        if run.secret_vars:
            play["vars_files"] = list(play.get("vars_files") or []) + [str(secrets_file)]
        if run.play_env:
            play["environment"] = dict(play.get("environment") or {}, **run.play_env)
        if run.check_mode:
            play["check_mode"] = True
    return plays


def playbook_of(group, scene):
    """The group's playbook, written beside its files; returns its path and its inventory."""
    plays, hostvars = [], {}
    by_key = {}
    for number, (key, block, run) in enumerate(group_members(group)):
        secrets_file = scene.tmp / ("secrets-%d.yml" % number)
        if run.secret_vars:
            secrets_file.write_text(yaml.safe_dump({name: scene.secret(value_of(value, scene))
                                                    for name, value in run.secret_vars.items()}))
            secrets_file.chmod(0o600)
        for name, content in run.files.items():
            content = value_of(content, scene)
            scene.write(name, content, 0o700 if isinstance(content, Executable) else 0o600)
        hostvars.update({name: value_of(value, scene) for name, value in run.hostvars.items()})
        if run.continues:
            # The tasks end the last play of the block it continues, in that play's check mode.
            assert block.kind == "tasks", key
            by_key[run.continues][-1]["tasks"].extend(yaml.load(block.text, Loader=BlockLoader))  # nosec
            continue
        by_key[key] = play_of(key, block, run, scene, secrets_file)
        plays.extend(by_key[key])
    path = scene.dir / ("%s.yml" % re.sub(r"[^a-z0-9]+", "-", group.lower()).strip("-"))
    path.write_text(yaml.dump(plays, Dumper=BlockDumper, sort_keys=False, width=1000))
    settings = GROUPS.get(group, Group())
    if settings.inventory:
        inventory = scene.write(BLOCKS[settings.inventory].filename, ALL_BLOCKS[settings.inventory].text)
    else:
        inventory = inventory_of_localhost(scene, hostvars)
    return path, inventory


def prepare_group(group, scene):
    """The scene of the group set, its playbook written: the ansible-playbook command that runs it."""
    settings = GROUPS.get(group, Group())
    if settings.setup:
        settings.setup(scene)
    playbook, inventory = playbook_of(group, scene)
    argv = [tool("ansible-playbook"), "-i", inventory, playbook]
    if settings.limit:
        argv += ["--limit", settings.limit]
    return argv


def with_extra_vars(argv, scene, extra_vars):
    """``argv`` with variables as a pipeline passes them (-e), from a file."""
    extra = scene.tmp / "extra-vars.json"
    extra.write_text(json.dumps(extra_vars))
    return argv + ["-e", "@%s" % extra]


# ---------------------------------------------------------------------------------------------- what they need

MIGRATE_STUB = """#!%s
# A stand-in for the application's migration command: records where DATABASE_URL leads, never its password.
import json
import os
import sys
from urllib.parse import urlsplit

url = urlsplit(os.environ["DATABASE_URL"])
with open(os.environ["MIGRATIONS_RECORD"], "a") as handle:
    handle.write(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "scheme": url.scheme, "user": url.username,
                             "host": url.hostname, "database": url.path.lstrip("/"), "password": bool(url.password)}))
    handle.write("\\n")
""" % sys.executable


def migrate_stub(scene):
    scene.env["MIGRATIONS_RECORD"] = str(scene.tmp / "migrations.jsonl")
    return Executable(MIGRATE_STUB)


def migrations(scene):
    path = scene.tmp / "migrations.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def api_key(scene):
    return scene.sim.api_key


def organization_key(scene):
    """A key of the seeded organization (AWX would put it in NEON_API_KEY of the job)."""
    if "organization_key" not in scene.values:
        created = scene.sim.create_key("organization", org_id=scene.sim.org_id, name="job-credential")
        scene.values["organization_key"] = scene.secret(created["key"])
    return scene.values["organization_key"]


def vaulted(text):
    """``text`` encrypted as ``ansible-vault encrypt`` does, with VAULT_PASSWORD."""
    from ansible.parsing.vault import VaultLib, VaultSecret

    return VaultLib([("default", VaultSecret(VAULT_PASSWORD.encode()))]).encrypt(text).decode()


def branch_named(scene, project_id, name):
    branches = scene.api("/projects/%s/branches" % project_id)["branches"]
    return next((branch for branch in branches if branch["name"] == name), None)


def catalog(scene, project_id, branch_name, kind):
    """The names of a branch's roles or databases."""
    branch = branch_named(scene, project_id, branch_name)
    return sorted(item["name"] for item in scene.api("/projects/%s/branches/%s/%s" % (project_id, branch["id"], kind))[kind])


def operation_ids(scene, count):
    """Ids of ended operations of the demo project, as a user copies them from a result."""
    if "operation_ids" not in scene.values:
        operations = scene.api("/projects/%s/operations?limit=%d" % (DEMO_PROJECT, count))["operations"]
        scene.values["operation_ids"] = [operation["id"] for operation in operations]
    return scene.values["operation_ids"]


def ended_operations(scene):
    """Operations of two projects that have ended, as each host's earlier task registered them."""
    started = [scene.sim.start_operations(project, action="create_branch", duration=0)[0]
               for project in (DEMO_PROJECT, ORG_PROJECT)]
    return {"json": {"operations": started}}


# ---------------------------------------------------------------------------------------------- checks of YAML that is no playbook

def check_module_defaults(block):
    """Play keywords: module_defaults of the action group, with the modules' connection options only."""
    with open(os.path.join(ROOT, "plugins", "doc_fragments", "api.py"), encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    fragment = next(node for node in ast.walk(tree) if isinstance(node, ast.Assign)
                    and getattr(node.targets[0], "id", None) == "DOCUMENTATION")
    connection_options = set(yaml.safe_load(fragment.value.value)["options"])
    with open(os.path.join(ROOT, "meta", "runtime.yml"), encoding="utf-8") as handle:
        groups = yaml.safe_load(handle)["action_groups"]
    assert list(block.data) == ["module_defaults"], block.data
    defaults = block.data["module_defaults"]
    assert [name.split("/")[-1] for name in defaults] == ["neon.cloud.all"] and "all" in groups, defaults
    assert set(defaults["group/neon.cloud.all"]) <= connection_options, (defaults, connection_options)


def check_injectors(block):
    """The credential type's injectors, as the collection ships them."""
    assert block.data == {"injectors": load_credential_type()["injectors"]}, CREDENTIAL_TYPE_FILE


EDA = os.path.join(ROOT, "extensions", "eda")


def eda_file(*path):
    with open(os.path.join(EDA, *path), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def check_shipped(*path):
    def check(block):
        """The page shows the file as the collection ships it."""
        assert block.data == eda_file(*path), os.path.join("extensions", "eda", *path)
    return check


def check_eda_vars(block):
    """Every variable the shipped rulebooks read, and no other."""
    wanted = set()
    for name in os.listdir(os.path.join(EDA, "rulebooks")):
        with open(os.path.join(EDA, "rulebooks", name), encoding="utf-8") as handle:
            wanted.update(re.findall(r"\{\{ (neon_[a-z_]+) \}\}", handle.read()))
    assert set(block.data) == wanted, sorted(wanted)


def check_controller_action(block):
    """run_job_template as ansible-rulebook takes it: the job template's name and organization."""
    assert set(block.data["action"]["run_job_template"]) == {"name", "organization"}, block.data


def check_eda_inventory(block):
    """An inventory of the controller itself, reached without SSH (what the rulebooks' playbooks run on)."""
    assert block.data["all"]["hosts"]["localhost"]["ansible_connection"] == "local", block.data


def check_workflow(block):
    """A GitHub Actions workflow: on the pull request's events, it runs the page's playbook with the
    variables that playbook reads, and the key from a repository secret."""
    playbook = ALL_BLOCKS["branch-per-pull-request.rst: A database branch for the pull request"].text
    events = block.data["on"]["pull_request"]["types"]
    assert {"opened", "synchronize", "closed"} <= set(events), events
    steps = block.data["jobs"]["branch"]["steps"]
    runs = [step for step in steps if "ansible-playbook" in step.get("run", "")]
    assert len(runs) == 1, steps
    command = runs[0]["run"]
    for name in ("pr_number", "pr_event"):
        assert "-e %s=" % name in command and name in playbook, (name, command)
    assert runs[0]["env"] == {"NEON_API_KEY": "${{ secrets.NEON_API_KEY }}"}, runs[0]
    assert any("ansible-galaxy collection install neon.cloud" in step.get("run", "") for step in steps), steps


ANON_GUIDE = "branch-per-pull-request.rst: An anonymized database branch for the pull request"
CUSTOMERS = [{"id": 1, "email": "ada@shop.example", "full_name": "Ada Lovelace", "country": "GB"},
             {"id": 2, "email": "alan@shop.example", "full_name": "Alan Turing", "country": "GB"}]


def check_anonymized_workflow(block):
    """The anonymized variant's GitHub Actions job: on the pull request's events, it runs the variant's playbook (the
    file the AWX template names too) with the variables that playbook reads, and the key from a repository secret."""
    playbook = ALL_BLOCKS[ANON_GUIDE].text
    events = block.data["on"]["pull_request"]["types"]
    assert {"opened", "synchronize", "closed"} <= set(events), events
    (job,) = block.data["jobs"].values()
    runs = [step for step in job["steps"] if "ansible-playbook" in step.get("run", "")]
    assert len(runs) == 1, job
    command = runs[0]["run"]
    template = ALL_BLOCKS["branch-per-pull-request.rst: The anonymized pull request branch as an AWX job template"]
    assert "ansible-playbook %s" % template.data[0]["tasks"][0]["awx.awx.job_template"]["playbook"] in command
    for name in ("pr_number", "pr_event"):
        assert "-e %s=" % name in command and name in playbook, (name, command)
    assert runs[0]["env"] == {"NEON_API_KEY": "${{ secrets.NEON_API_KEY }}"}, runs[0]


def shop_with_customers(scene):
    """The project shop as the guide's first playbook leaves it (database shop owned by shop_owner on main), main's
    customers with their emails and names."""
    import requests

    project = {"name": "shop", "branch": {"database_name": "shop", "role_name": "shop_owner"}}
    created = scene.post("/projects", {"project": project})
    scene.sim.advance_clock(30)
    scene.values["shop"] = created["project"]["id"]
    url = "%s/projects/%s/branches/%s/data" % (scene.sim.control_url, created["project"]["id"], created["branch"]["id"])
    requests.post(url, json={"database": "shop", "table": "customers", "rows": CUSTOMERS},
                  timeout=10).raise_for_status()


def anonymized_state(scene, project_id, name):
    """The anonymized branch ``name``: its status and its rules, as the API shows them."""
    branch = branch_named(scene, project_id, name)
    assert branch is not None, name
    path = "/projects/%s/branches/%s" % (project_id, branch["id"])
    return branch, scene.api(path + "/anonymized_status"), scene.api(path + "/masking_rules")["masking_rules"]


def check_anonymized_preview(scene):
    """The pull request's branch is main's copy, masked by the page's two rules; the migration ran against it; the
    AWX template allows simultaneous runs."""
    main = branch_named(scene, scene.values["shop"], "main")
    branch, status, rules = anonymized_state(scene, scene.values["shop"], "pr-7-anonymized")
    assert branch["parent_id"] == main["id"] and status["state"] == "anonymized", status
    assert sorted(rule["column_name"] for rule in rules) == ["email", "full_name"], rules
    (migrated,) = migrations(scene)
    assert (migrated["user"], migrated["database"]) == ("shop_owner", "shop"), migrated
    (template,) = [call["args"] for call in scene.awx_calls() if call["module"] == "job_template"]
    assert template["allow_simultaneous"] is True and template["playbook"] == "pr-branch-anonymized.yml"


def customers_on_demo_main(scene):
    """The demo project's main holds customers with their emails and names (neondb), as the module's EXAMPLES say."""
    import requests

    main = branch_named(scene, DEMO_PROJECT, "main")
    rows = [{"id": row["id"], "email": row["email"], "name": row["full_name"]} for row in CUSTOMERS]
    requests.post(data_url(scene, main), json={"table": "customers", "rows": rows}, timeout=10).raise_for_status()


def check_anonymized_examples(scene):
    """pr-42-anonymized is main's copy, masked by the example's two rules."""
    branch, status, rules = anonymized_state(scene, DEMO_PROJECT, "pr-42-anonymized")
    assert status["state"] == "anonymized" and len(rules) == 2, (status, rules)
    assert branch["parent_id"] == branch_named(scene, DEMO_PROJECT, "main")["id"]


def check_execution_environment_meta(block):
    """The collection's meta/execution-environment.yml, as it is."""
    with open(os.path.join(ROOT, "meta", "execution-environment.yml"), encoding="utf-8") as handle:
        assert block.data == yaml.safe_load(handle)


def check_execution_environment(block):
    """An execution-environment.yml that ansible-builder accepts, installing neon.cloud."""
    from ansible_builder.ee_schema import validate_schema

    validate_schema(block.data)
    assert block.data["version"] == 3
    assert [item["name"] for item in block.data["dependencies"]["galaxy"]["collections"]] == ["neon.cloud"]


# ---------------------------------------------------------------------------------------------- checks of inventories

def check_all_projects(scene, inventory):
    """A personal key: its own projects and those of its organizations, each with local connection."""
    hosts = inventory["_meta"]["hostvars"]
    personal = [project["id"] for project in scene.api("/projects?limit=400")["projects"]]
    organization = [project["id"] for project in scene.api("/projects?limit=400&org_id=" + scene.sim.org_id)["projects"]]
    assert sorted(hosts) == sorted(personal + organization)
    assert hosts[DEMO_PROJECT]["neon_name"] == "demo-project"
    assert hosts[ORG_PROJECT]["neon_org_id"] == scene.sim.org_id
    assert all(host["ansible_connection"] == "local" for host in hosts.values())


def org_inventory_setup(scene):
    """The key in the vault file the lookup reads; NEON_API_KEY wrong, so only the file's key can work."""
    scene.write("neon_api_key.vault", vaulted(scene.sim.api_key + "\n"))
    scene.env["ANSIBLE_VAULT_PASSWORD_FILE"] = str(scene.write("~/.vault-pass", VAULT_PASSWORD))
    scene.env["NEON_API_KEY"] = "not-the-key"


def check_org_projects(scene, inventory):
    hosts = inventory["_meta"]["hostvars"]
    organization = [project["id"] for project in scene.api("/projects?limit=400&org_id=" + scene.sim.org_id)["projects"]]
    assert sorted(hosts) == sorted(organization) and ORG_PROJECT in hosts
    assert {host["neon_org_id"] for host in hosts.values()} == {scene.sim.org_id}


def prod_projects(scene):
    scene.sim.create_project(name="prod-checkout", region_id="aws-us-east-2", pg_version=17)
    scene.sim.create_project(name="staging-checkout", region_id="aws-us-east-2", pg_version=17)


def check_prod_projects(scene, inventory):
    """Only prod- projects, in the groups the page names."""
    hosts = inventory["_meta"]["hostvars"]
    assert [host["neon_name"] for host in hosts.values()] == ["prod-checkout"], sorted(hosts)
    (host,) = hosts
    assert host in inventory["region_aws_us_east_2"]["hosts"] and host in inventory["postgres_17"]["hosts"], inventory
    assert "in_an_organization" not in inventory or host not in inventory["in_an_organization"].get("hosts", [])


def check_cached_projects(scene, inventory):
    """A second run is served from the cache: no request; the cache holds no key."""
    before = scene.sim.requests()
    seq = before[-1]["seq"] if before else 0
    again = inventory_list(scene, "cached.neon.yml")
    assert again == inventory
    assert scene.sim.requests(since=seq) == [], "the second run asked the API"
    cache = scene.home / ".cache" / "neon-inventory"
    files = [os.path.join(folder, name) for folder, _dirs, names in os.walk(str(cache)) for name in names]
    assert files, "nothing was cached in ~/.cache/neon-inventory"
    for name in files:
        with open(name, encoding="utf-8") as handle:
            leaked = scene.sim.api_key in handle.read()
        assert not leaked, "the cache file %s holds the API key" % name


def plain(value):
    """ansible-inventory --list marks untrusted strings ({"__ansible_unsafe": ...}, 2.19+): the values alone."""
    if isinstance(value, dict):
        if set(value) == {"__ansible_unsafe"}:
            return value["__ansible_unsafe"]
        return {name: plain(item) for name, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def inventory_list(scene, filename):
    # A file the plugin fails to parse must fail the command (by default, an empty inventory and a warning).
    scene.env["ANSIBLE_INVENTORY_UNPARSED_FAILED"] = "true"
    proc = scene.command([tool("ansible-inventory"), "-i", filename, "--list"])
    return plain(json.loads(proc.stdout))


# ---------------------------------------------------------------------------------------------- checks of runs

def check_application_database(scene):
    """The credential holds the orders connection through the pooler, the weekly reset stores a new
    password, the vault file is encrypted and holds the same connection, and the retiring plays removed
    the role and its database."""
    calls = scene.awx_calls()
    assert [call["module"] for call in calls] == ["credential", "credential_type", "credential"]
    stored, registered, weekly = (call["args"] for call in calls)
    assert registered["injectors"]["env"]["PGPASSWORD"] == "{{ password }}", "Ansible rendered the injectors"
    inputs = stored["inputs"]
    where = (inputs["database"], inputs["role"], inputs["host"])  # a password is never in an assertion's output
    assert where[:2] == ("orders", "orders") and "-pooler" in where[2], where
    renewed = weekly["inputs"]["password"] not in ("", inputs["password"])
    assert renewed, "the weekly reset stored no new password"
    raw = scene.path("group_vars/orders/vault.yml").read_text()
    encrypted = raw.startswith("$ANSIBLE_VAULT;") and inputs["password"] not in raw
    assert encrypted, "group_vars/orders/vault.yml is not encrypted"
    vault = scene.vault_view("group_vars/orders/vault.yml")
    same = vault["vault_orders_db_password"] == inputs["password"] and inputs["password"] in vault["vault_orders_db_uri"]
    assert same, "the vault file holds another connection than the credential"
    assert "orders" not in catalog(scene, DEMO_PROJECT, "main", "roles")
    assert "orders" not in catalog(scene, DEMO_PROJECT, "main", "databases")


def check_authentication(scene):
    """The play with the vaulted key made the ci-deploy key; the rotation in check mode made none."""
    active = [key for key in scene.sim.keys() if key["name"] == "ci-deploy" and not key["revoked"]]
    assert len(active) == 1, active


def stale_and_fresh_keys(scene):
    """An organization key nobody used for 200 days, and one in use."""
    stale = scene.sim.create_key("organization", org_id=scene.sim.org_id, name="old-reports")
    fresh = scene.sim.create_key("organization", org_id=scene.sim.org_id, name="nightly-sync")
    scene.secret(stale["key"])
    scene.secret(fresh["key"])
    scene.sim.age_key(stale["id"], created_days_ago=200)
    scene.sim.age_key(fresh["id"], created_days_ago=200, last_used_days_ago=1)
    scene.values.update(stale=stale["id"], fresh=fresh["id"])


def check_key_rotation(scene):
    """The credential holds the new key, which works; the stale key was revoked, the used one kept."""
    (stored,) = [call["args"] for call in scene.awx_calls() if call["module"] == "credential"]
    status = scene.status("/auth", stored["inputs"]["api_key"])
    assert status == 200, "the key stored in the credential does not authenticate"
    revoked = {key["id"]: key["revoked"] for key in scene.sim.keys()}
    assert revoked[scene.values["stale"]] and not revoked[scene.values["fresh"]]


def check_branch_examples(scene):
    """pr-42 made, reset and deleted; the load test branch's compute as asked."""
    assert branch_named(scene, DEMO_PROJECT, "pr-42") is None
    load_test = branch_named(scene, DEMO_PROJECT, "load-test")
    (compute,) = scene.api("/projects/%s/branches/%s/endpoints" % (DEMO_PROJECT, load_test["id"]))["endpoints"]
    assert (compute["autoscaling_limit_min_cu"], compute["autoscaling_limit_max_cu"], compute["suspend_timeout_seconds"]) == (1, 4, 600)


def check_database_examples(scene):
    main = branch_named(scene, DEMO_PROJECT, "main")
    database = scene.api("/projects/%s/branches/%s/databases/shop" % (DEMO_PROJECT, main["id"]))["database"]
    assert database["owner_name"] == "shop_admin"


def check_endpoint_examples(scene):
    main = branch_named(scene, DEMO_PROJECT, "main")
    computes = scene.api("/projects/%s/branches/%s/endpoints" % (DEMO_PROJECT, main["id"]))["endpoints"]
    (read_write,) = [compute for compute in computes if compute["type"] == "read_write"]
    assert (read_write["autoscaling_limit_min_cu"], read_write["autoscaling_limit_max_cu"],
            read_write["suspend_timeout_seconds"]) == (1, 4, -1)
    assert [compute["autoscaling_limit_max_cu"] for compute in computes if compute["type"] == "read_only"] == [2]


def check_connection_examples(scene):
    """The migration command ran with the branch's pooled connection string."""
    (migrated,) = migrations(scene)
    assert migrated["scheme"].startswith("postgres") and migrated["password"] and "-pooler" in migrated["host"]


def check_role_examples(scene):
    """The password went into a file that is really encrypted."""
    raw = scene.path("group_vars/all/app_db.yml").read_text()
    assert raw.startswith("$ANSIBLE_VAULT;"), "group_vars/all/app_db.yml is not vault-encrypted"
    stored = bool(scene.vault_view("group_vars/all/app_db.yml").get("app_db_password"))
    assert stored, "the encrypted file holds no app_db_password"


def org_projects(scene):
    return [project["id"] for project in scene.api("/projects?limit=400&org_id=" + scene.sim.org_id)["projects"]]


def _auth_api(scene, method, path, body=None):
    answer = requests.request(method, scene.sim.url + path, headers=scene.sim.headers, json=body, timeout=10)
    return answer.status_code, (answer.json() if answer.content else None)


def _branch_id(scene, project_id, name):
    return branch_named(scene, project_id, name)["id"]


def preview_branches_with_neon_auth(scene):
    """The organization's project with the branches the examples name (pr-41, pr-42), Neon Auth on them and main."""
    for name in ("pr-41", "pr-42"):
        status, _answer = _auth_api(scene, "POST", "/projects/%s/branches" % ORG_PROJECT, {"branch": {"name": name}})
        assert status == 201, status
    scene.sim.advance_clock(30)
    for name in ("main", "pr-41", "pr-42"):
        status, _answer = _auth_api(scene, "POST", "/projects/%s/branches/%s/auth" % (
            ORG_PROJECT, _branch_id(scene, ORG_PROJECT, name)), {"auth_provider": "better_auth"})
        assert status == 201, status


def check_backend_examples(scene):
    """pr-42 trusts its preview URL, has its GitHub client, its Data API and a JWKS URL; pr-41 has no Neon Auth;
    main's magic links last 15 minutes and its only trusted domain is the shop's."""
    pr42 = "/projects/%s/branches/%s" % (ORG_PROJECT, _branch_id(scene, ORG_PROJECT, "pr-42"))
    assert _auth_api(scene, "GET", pr42 + "/auth/domains")[1]["domains"][0]["domain"] == \
        "https://pr-42.preview.example.com"
    providers = {item["id"]: item for item in _auth_api(scene, "GET", pr42 + "/auth/oauth_providers")[1]["providers"]}
    assert providers["github"]["type"] == "standard"
    assert _auth_api(scene, "GET", pr42 + "/data-api/neondb")[1]["settings"]["db_schemas"] == ["public", "api"]
    assert [item["provider_name"] for item in _auth_api(scene, "GET", "/projects/%s/jwks" % ORG_PROJECT)[1]["jwks"]] \
        == ["Clerk"]
    pr41 = "/projects/%s/branches/%s" % (ORG_PROJECT, _branch_id(scene, ORG_PROJECT, "pr-41"))
    assert _auth_api(scene, "GET", pr41 + "/auth")[0] == 404
    main = "/projects/%s/branches/%s" % (ORG_PROJECT, _branch_id(scene, ORG_PROJECT, "main"))
    assert _auth_api(scene, "GET", main + "/auth/plugins")[1]["magic_link"]["expires_in"] == 15
    assert [item["domain"] for item in _auth_api(scene, "GET", main + "/auth/domains")[1]["domains"]] == \
        ["https://shop.example.com"]


def check_app_backend(scene):
    """Production's Neon Auth in the shop database with the app's domain, its keys kept in a file; the preview's
    branch with its own sign-in, GitHub client, QA user and Data API."""
    (project,) = [item for item in scene.api("/projects?limit=400")["projects"] if item["name"] == "shop"]
    main = "/projects/%s/branches/%s" % (project["id"], _branch_id(scene, project["id"], "main"))
    assert _auth_api(scene, "GET", main + "/auth")[1]["db_name"] == "shop"
    assert _auth_api(scene, "GET", main + "/auth/email_provider")[1]["host"] == "smtp.example.com"
    assert json.loads((scene.dir / "shop-auth-keys.json").read_text())["secret"].startswith("ssk_")
    assert _auth_api(scene, "GET", main + "/data-api/shop")[0] == 200
    preview = "/projects/%s/branches/%s" % (project["id"], _branch_id(scene, project["id"], "pr-12"))
    assert [item["domain"] for item in _auth_api(scene, "GET", preview + "/auth/domains")[1]["domains"]] == \
        ["https://pr-12.preview.example.com"]
    assert _auth_api(scene, "GET", preview + "/data-api/neondb")[0] == 200
    users = requests.get("%s/projects/%s/branches/%s/auth/users" % (
        scene.sim.control_url, project["id"], _branch_id(scene, project["id"], "pr-12")), timeout=10).json()["users"]
    assert [(user["email"], user["roles"]) for user in users] == [("qa@example.com", ["admin"])]


def check_baseline_inventory(scene, inventory):
    """The organization's projects only."""
    assert sorted(inventory["_meta"]["hostvars"]) == sorted(org_projects(scene))


def share_with_riley(scene):
    """One of the organization's projects already shared with riley and someone else: the baseline play
    makes riley the only collaborator, the offboarding play takes riley out of every project."""
    import requests

    for email in ("riley@example.com", "alex@example.com"):
        answer = requests.post("%s/projects/%s/permissions" % (scene.sim.url, ORG_PROJECT), json={"email": email},
                               headers={"Authorization": "Bearer %s" % scene.sim.api_key}, timeout=10)
        answer.raise_for_status()


# The advisor's issues of one project of the organization (set through the simulator's control API): the baseline's
# report lists its one SECURITY issue of severity ERROR under that project, and neither the others nor other projects.
ADVISOR_ISSUES = [
    {"name": "rls_disabled_in_public", "level": "ERROR", "detail": "Table `public.orders` is public, but RLS has not "
     "been enabled."},
    {"name": "security_definer_view", "level": "WARN", "detail": "View `public.totals` is SECURITY DEFINER."},
    {"name": "unindexed_foreign_keys", "level": "ERROR", "categories": ["PERFORMANCE"],
     "detail": "Foreign key `orders_user_id_fkey` has no index."},
]


def baseline_scene(scene):
    """A project shared as share_with_riley says, and advisor issues on it."""
    import requests

    share_with_riley(scene)
    answer = requests.post("%s/projects/%s/advisors" % (scene.sim.control_url, ORG_PROJECT),
                           json={"issues": ADVISOR_ISSUES}, timeout=10)
    answer.raise_for_status()


def check_drift_report(scene, stdout):
    """The report shows the spending limit's drift (the organization has none) and lists, under the project that has
    one, its ERROR security issue with its fix, and no other issue of any project."""
    assert '-    "spending_limit_cents": null,' in stdout and '+    "spending_limit_cents": 150000,' in stdout, stdout
    assert '+    "spending_limit_dollars": "1500.00"' in stdout, stdout
    listed = re.findall(r"^ok: \[([^\]]+)\] => \(item=([a-z_]+)\)", stdout, re.M)
    assert listed == [(ORG_PROJECT, "rls_disabled_in_public")], scene.mask(stdout[-6000:])
    assert "ERROR RLS Disabled in Public: Table `public.orders` is public, but RLS has not been enabled. (fix: " \
           "https://neon.com/docs/data-api/database-advisor)" in stdout, scene.mask(stdout[-6000:])


def check_baseline(scene):
    """Every project of the organization holds the baseline's settings and the organization its spending limit;
    riley left the organization and no project is shared with riley (nor with alex, whom the baseline's exclusive
    list left out)."""
    limit = scene.api("/organizations/%s/billing/spending_limit" % scene.sim.org_id)
    assert limit == {"spending_limit_cents": 150000}, limit
    for project_id in org_projects(scene):
        settings = scene.api("/projects/%s" % project_id)["project"]["settings"]
        assert sorted(settings["allowed_ips"]["ips"]) == ["198.51.100.7", "203.0.113.0/24"], (project_id, settings)
        assert settings["maintenance_window"] == {"weekdays": [6, 7], "start_time": "02:00", "end_time": "04:00"}
        assert settings["quota"]["compute_time_seconds"] == 360000 and settings["audit_log_level"] == "extended"
        grants = scene.api("/projects/%s/permissions" % project_id)["project_permissions"]
        assert grants == [], (project_id, grants)
    members = scene.api("/organizations/%s/members" % scene.sim.org_id)["members"]
    assert "riley@example.com" not in [member["user"]["email"] for member in members]


def baseline_ansible_cfg(_scene):
    """The page's ansible.cfg, as a file of its Run."""
    shown = ansible_cfg_of(BASELINE_PAGE)
    assert shown, "%s shows no ansible.cfg" % BASELINE_PAGE
    return shown


def check_baseline_job_templates(scene):
    """The drift report runs in check mode with diff, every night; the fix runs for real."""
    calls = scene.awx_calls()
    assert [call["module"] for call in calls] == ["job_template", "schedule", "job_template"], calls
    report, schedule, fix = (call["args"] for call in calls)
    assert (report["job_type"], report["diff_mode"], fix["job_type"]) == ("check", True, "run")
    assert report["playbook"] == fix["playbook"] and schedule["unified_job_template"] == report["name"]


def check_money_examples(scene):
    """The limit was set once (1,500 US dollars, then found as asked in cents), then removed: none is left."""
    limit = "/api/v2/organizations/%s/billing/spending_limit" % scene.sim.org_id
    changes = [entry["method"] for entry in scene.sim.requests() if entry["path"] == limit and entry["method"] != "GET"]
    assert changes == ["PUT", "DELETE"], changes
    assert scene.api(limit[len("/api/v2"):]) == {"spending_limit_cents": None}


GOOD_ORDERS = [{"id": 1, "total": 25}, {"id": 2, "total": 40}]


def data_url(scene, branch):
    return "%s/projects/%s/branches/%s/data" % (scene.sim.control_url, DEMO_PROJECT, branch["id"])


def main_rows(scene):
    """The orders of the demo project's main branch (the simulator's data stand-in), and main itself."""
    import requests

    main = branch_named(scene, DEMO_PROJECT, "main")
    answer = requests.get(data_url(scene, main), timeout=10)
    answer.raise_for_status()
    return answer.json()["databases"]["neondb"].get("orders"), main


def orders_then_a_bad_change(scene):
    """main holds two orders; a moment later a bad change empties the table: the survey's moment is between."""
    import requests

    main = branch_named(scene, DEMO_PROJECT, "main")
    good = requests.post(data_url(scene, main), json={"table": "orders", "rows": GOOD_ORDERS}, timeout=10)
    good.raise_for_status()
    scene.sim.advance_clock(120)
    moment = datetime.datetime.fromtimestamp(scene.sim.state.clock.time(), tz=datetime.timezone.utc)
    scene.values["moment"] = moment.strftime("%Y-%m-%dT%H:%M:%SZ")  # as an operator types it
    scene.sim.advance_clock(120)
    requests.post(data_url(scene, main), json={"table": "orders", "rows": []}, timeout=10).raise_for_status()


def check_point_in_time_restore(scene):
    """main has its orders of before the bad change back, under its name; the state it replaced is kept."""
    rows, main = main_rows(scene)
    assert rows == GOOD_ORDERS, rows
    kept = branch_named(scene, DEMO_PROJECT, "main-before-INC-42")
    assert kept is not None and main["parent_id"] == kept["id"], (main, kept)


MIGRATION_STUB = """#!%s
# A migration that goes wrong, on the real server of the branch (DATABASE_URL): it empties the orders table,
# then fails.
import os
import subprocess
import sys

subprocess.run([os.environ["PSQL"], "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", os.environ["DATABASE_URL"],
                "-c", "DELETE FROM orders"], check=True, timeout=60)
sys.exit("migration 0042 failed: column orders.total cannot be dropped")
""" % sys.executable


def main_uri(scene):
    """The connection string of the demo project's main branch, as the API gives it now, and main."""
    main = branch_named(scene, DEMO_PROJECT, "main")
    uri = scene.api("/projects/%s/connection_uri?branch_id=%s&role_name=neondb_owner&database_name=neondb" % (
        DEMO_PROJECT, main["id"]))["uri"]
    return uri, main


def real_rows(scene, uri, sql):
    """The rows ``sql`` reads with psql over ``uri`` (a real compute of the simulator's --postgres mode); what
    psql said, masked, when it fails."""
    status, text = psql(scene.sim, uri, sql)
    assert status == 0, scene.mask(text)
    return text.splitlines()


def orders_and_a_failing_migration(scene):
    """On a simulator whose computes are real PostgreSQL servers: main's compute runs (started through the API,
    though a connection would wake it too) and its orders table holds two orders; the migration
    empties the table and fails. What a user would check after the rollback is noted: main's compute and the
    address of its connection string."""
    main = branch_named(scene, DEMO_PROJECT, "main")
    (compute,) = [endpoint for endpoint in scene.api("/projects/%s/branches/%s/endpoints" % (DEMO_PROJECT, main["id"]))[
        "endpoints"] if endpoint["type"] == "read_write"]
    scene.post("/projects/%s/endpoints/%s/start" % (DEMO_PROJECT, compute["id"]))
    scene.env["PSQL"] = os.path.join(scene.sim.state.real.bin_folder, "psql")  # the migration's
    uri, main = main_uri(scene)
    real_rows(scene, uri, "CREATE TABLE orders (id int PRIMARY KEY, total int); "
                          "INSERT INTO orders VALUES %s" % ", ".join("(%(id)d, %(total)d)" % row for row in GOOD_ORDERS))
    scene.values.update(main_id=main["id"], compute=compute["id"], address=uri.split("@")[1].split("/")[0])


def check_rollback(scene):
    """After the rescue: main's server has the snapshot's orders, read with psql over main's connection string,
    which names the same address (the compute moved with the name); main has a new id; the branch the migration
    left is kept as 'main (old)', its orders empty."""
    uri, main = main_uri(scene)
    assert uri.split("@")[1].split("/")[0] == scene.values["address"], "main's connection string changed its address"
    assert real_rows(scene, uri, "SELECT id, total FROM orders ORDER BY id") == [
        "%(id)d|%(total)d" % row for row in GOOD_ORDERS]
    assert main["id"] != scene.values["main_id"] and main["default"], main
    computes = scene.api("/projects/%s/branches/%s/endpoints" % (DEMO_PROJECT, main["id"]))["endpoints"]
    assert scene.values["compute"] in [compute["id"] for compute in computes], computes
    assert branch_named(scene, DEMO_PROJECT, "main (old)") is not None


def psql_on_path(scene):
    """The simulator's PostgreSQL programs (psql) first on the commands' PATH, as the page asks."""
    scene.env["PATH"] = scene.sim.state.real.bin_folder + os.pathsep + os.environ.get("PATH", "")
    scene.values["logged"] = len(scene.sim.requests())


def check_migrated_branch_gone(scene):
    """The branch was made, migrated (the play's own assert read the table back) and deleted: its server and
    data are gone."""
    assert branch_named(scene, DEMO_PROJECT, "pr-42") is None
    made = [entry for entry in scene.sim.requests()[scene.values["logged"]:]
            if entry["method"] == "POST" and entry["path"].endswith("/branches")]
    assert [entry["status"] for entry in made] == [201], made
    assert not [key for key in scene.sim.state.real.branches if key[0] == DEMO_PROJECT and key[1] not in [
        branch["id"] for branch in scene.api("/projects/%s/branches" % DEMO_PROJECT)["branches"]]]


def check_recovery_page(scene):
    """The restore job template asks the survey's four answers; the release branch is the default now."""
    (template,) = [call["args"] for call in scene.awx_calls() if call["module"] == "job_template"]
    asked = [question["variable"] for question in template["survey_spec"]["spec"]]
    assert asked == ["survey_project_id", "survey_branch", "survey_moment", "survey_ticket"], asked
    assert branch_named(scene, DEMO_PROJECT, "release-2026-11")["default"]


def deleted_by_mistake(scene):
    """The demo project's staging deleted, and a project shop-production made and deleted: what the runbooks and
    the recover modules' EXAMPLES bring back."""
    import requests

    headers = {"Authorization": "Bearer %s" % scene.sim.api_key}
    staging = branch_named(scene, DEMO_PROJECT, "staging")
    scene.values["staging"] = staging["id"]
    requests.delete(scene.sim.url + "/projects/%s/branches/%s" % (DEMO_PROJECT, staging["id"]), headers=headers,
                    timeout=10).raise_for_status()
    shop = scene.post("/projects", {"project": {"name": "shop-production"}})["project"]["id"]
    scene.values["shop"] = shop
    scene.sim.advance_clock(30)
    requests.delete(scene.sim.url + "/projects/%s" % shop, headers=headers, timeout=10).raise_for_status()
    assert branch_named(scene, DEMO_PROJECT, "staging") is None and scene.api("/projects/%s" % shop) is None


def check_recovered(scene):
    """staging is back under its id, ready; shop-production is back; nothing is left to recover."""
    staging = branch_named(scene, DEMO_PROJECT, "staging")
    assert staging["id"] == scene.values["staging"] and staging["current_state"] == "ready", staging
    assert scene.api("/projects/%s" % scene.values["shop"])["project"]["name"] == "shop-production"
    assert scene.api("/projects?recoverable=true")["projects"] == []


NEW_ORG = "org-quiet-lake-40817265"  # the organization moving-projects.rst and project_transfer's EXAMPLES move into
CALM_TREE_PROJECTS = ("bold-glade-61830452", "quiet-brook-72914063", "young-forest-83025174")


def new_organization(scene):
    """The destination of moving-projects.rst: a new organization the simulator's user is an admin of."""
    if "new_org" not in scene.values:
        scene.values["new_org"] = scene.sim.create_organization(id=NEW_ORG, name="Quiet Lake", admins=["bootstrap"])["id"]
    return scene.values["new_org"]


def new_organization_key(scene):
    """An organization key of the destination, the vaulted key that accepts the transfer request."""
    created = scene.sim.create_key("organization", org_id=new_organization(scene), name="destination")
    return scene.secret(created["key"])


def check_moved(scene):
    """The old organization's projects and the demo project are in the new organization, and nothing is left."""
    for project_id in CALM_TREE_PROJECTS + (DEMO_PROJECT,):
        assert scene.api("/projects/%s" % project_id)["project"]["org_id"] == NEW_ORG, project_id
    assert scene.api("/projects?org_id=%s" % scene.sim.org_id)["projects"] == []
    moves = [entry for entry in scene.sim.requests() if entry["method"] in ("POST", "PUT") and "transfer" in entry["path"]]
    assert len(moves) == 3, moves  # one bulk request, a request and its acceptance: the EXAMPLES' reruns move nothing


def check_project_member_examples(scene):
    """Riley's role on the checkout project comes from the organization again (the EXAMPLES set it, then removed it)."""
    members = scene.api("/projects/bold-glade-61830452/members")["project_members"]
    riley = next(member for member in members if member["email"] == "riley@example.com")
    assert riley["explicit_project_permission"] is None and riley["project_role"] == "editor", riley
    roles = [entry["method"] for entry in scene.sim.requests() if entry["path"].endswith("/role")]
    assert roles == ["PUT", "DELETE"], roles


# ---------------------------------------------------------------------------------------------- the tables

WRITES_ETC = "it writes a secret below /etc on the controller; in check mode the key is not created, so nothing is written"
PR_GUIDE = "branch-per-pull-request.rst: A database branch for the pull request"
# The EXAMPLES of the modules of an app's backend: one run on the organization's project, its preview branches made
BACKEND_RUN = "EXAMPLES of data_api, jwks, neon_auth, neon_auth_info, neon_auth_oauth_provider, neon_auth_user"
ORDERS = "application-database.rst: The orders service's database"
LIVE_URL = "https://console.neon.tech/api/v2"
# Pages whose plays only read, wait, or change what no other of them reads: one ansible-playbook run.
BASELINE_PAGE = "project-baseline.rst"
BASELINE_PLAY = "%s: Stop unless the inventory lists the organization's projects" % BASELINE_PAGE
BASELINE_INVENTORY = "%s: # baseline.neon.yml" % BASELINE_PAGE
PAGES_RUN = "authentication, inventory (AWX), key-types, pagination, troubleshooting and waiting"
# The EXAMPLES of the modules that only read, or that run in check mode: one run.
READERS_RUN = "EXAMPLES of api_key, api_key_info, auth_info, branch_info, operation_info, project, projects_info"
# The EXAMPLES of the modules of an organization's governance: they change what none of the others reads.
GOVERNANCE_RUN = ("EXAMPLES of consumption_info, organization_member, organization_member_info, project_permission, "
                  "project_vpc_endpoint, vpc_endpoint, vpc_endpoint_info")
# The EXAMPLES of the snapshot modules: one story of the demo project's snapshots, then a schedule.
SNAPSHOTS_RUN = "EXAMPLES of snapshot, snapshot_info, snapshot_restore, snapshot_schedule"
# The EXAMPLES of an organization's spending limit and a project's advisor issues: set, as set, removed; read.
MONEY_RUN = "EXAMPLES of advisor_info, organization_spending_limit"
# The runbooks of what was deleted, then the recover modules' EXAMPLES (which find it recovered: a rerun).
RECOVER_RUN = "recovery: deleted"
# The page on moving projects, then project_transfer's EXAMPLES (which find the projects moved: a rerun).
MOVING_RUN = "moving projects"

BLOCKS = {
    # application-database.rst: one story, in one run
    ORDERS: Run(),
    "application-database.rst: A credential type for an application's Neon database": Run(),
    "application-database.rst: Store the connection in the orders service's credential": Run(continues=ORDERS),
    "application-database.rst: Store the connection in an encrypted vars file": Run(
        continues=ORDERS, files={"~/.ansible/orders.vault-pass": VAULT_PASSWORD, "group_vars/orders/": None},
        why="the vault password file it names, and the directory the page says must exist"),
    "application-database.rst: A new password for the orders role every week": Run(),
    "application-database.rst: Drop the orders database": Run(),
    # authentication.rst
    "authentication.rst: Neon inventory": Run(group=PAGES_RUN),
    "authentication.rst: Manage Neon with a key from Ansible Vault": Run(
        group=PAGES_RUN, secret_vars={"vault_neon_api_key": api_key},
        why="the vaulted variable it names: the simulator's key"),
    "authentication.rst: Rotate the CI key": Run(group=PAGES_RUN, check_mode=WRITES_ETC),
    "authentication.rst: module_defaults:": Checked(
        check_module_defaults, "a piece of a play: module_defaults of the action group, with connection options"),
    # awx.rst
    "awx.rst: injectors:": Checked(check_injectors, "an excerpt of extensions/awx/credential_type.yml"),
    "awx.rst: Register the Neon API credential type in AWX": Covered(
        "test_awx_credential_type.py", "runs it as copied, three ways, against stand-ins of the awx.awx modules"),
    # app-backend.rst: production, then a preview opened, in one run
    "app-backend.rst: Production's sign-in and REST API": Run(
        group="app backend", secret_vars={"vault_smtp_password": "Smtp-9d4e1b6a", "vault_github_client_secret": "Gh-7f3a9c2e"},
        why="the vaulted secrets it names"),
    "app-backend.rst: A preview environment's backend": Run(
        group="app backend", play_vars={"pr_number": 12, "pr_event": "opened"},
        secret_vars={"vault_preview_github_client_secret": "Gh-preview-1b6a"},
        why="what the pipeline passes (the pull request opened) and the vaulted secret it names"),
    # branch-per-pull-request.rst
    PR_GUIDE: Run(group="pull request", files={"app/manage.py": migrate_stub},
                  why="the application's migration command: a stand-in that records where DATABASE_URL leads"),
    "branch-per-pull-request.rst: name: Database branch": Checked(
        check_workflow, "a GitHub Actions workflow: it must run the page's playbook with the variables it reads"),
    ANON_GUIDE: Run(group="anonymized pull request", play_vars={"pr_number": 7, "pr_event": "opened"},
                    files={"app/manage.py": migrate_stub},
                    why="what the pipeline passes (the pull request opened), and the application's migration command: "
                        "a stand-in that records where DATABASE_URL leads"),
    "branch-per-pull-request.rst: name: Anonymized database branch": Checked(
        check_anonymized_workflow, "a GitHub Actions workflow: it must run the variant's playbook with the variables "
                                   "it reads"),
    "branch-per-pull-request.rst: The anonymized pull request branch as an AWX job template": Run(
        group="anonymized pull request"),
    # project-baseline.rst: the baseline play, then the offboarding, over the organization's projects
    BASELINE_INVENTORY: Inventory("baseline.neon.yml", check_baseline_inventory),
    BASELINE_PLAY: Run(group="baseline", files={"ansible.cfg": baseline_ansible_cfg},
                       why="the ansible.cfg the page puts beside the play"),
    "project-baseline.rst: The baseline as AWX job templates - a nightly drift report and the fix": Run(),
    "project-baseline.rst: Offboard a person - out of the organization and out of every project they were given":
        Run(group="baseline"),
    # recovery-runbooks.rst: the restore and the rollback each on a simulator of their own (a branch restored
    # with a state kept is no root branch any more, and only a root branch can be snapshotted)
    "recovery-runbooks.rst: Restore a branch to a moment of its history": Run(
        group="recovery: restore", play_vars={
            "survey_project_id": DEMO_PROJECT, "survey_branch": "main", "survey_ticket": "INC-42",
            "survey_moment": lambda scene: scene.values["moment"]},
        why="the survey's answers: the demo project's main, a moment between its orders and a bad change"),
    "recovery-runbooks.rst: The point-in-time restore as an AWX job template": Run(),
    "recovery-runbooks.rst: Migrate the production branch, rolled back to a snapshot if the migration fails": Run(
        group="recovery: rollback", files={"app/manage.py": lambda scene: Executable(MIGRATION_STUB)},
        why="the application's migration command: a stand-in that empties the orders table and fails"),
    "recovery-runbooks.rst: Staging's schema must be production's before the deploy": Run(),
    "recovery-runbooks.rst: Make the release branch the project's default": Run(),
    "recovery-runbooks.rst: I deleted the wrong branch - bring it back": Run(group=RECOVER_RUN),
    "recovery-runbooks.rst: I deleted the wrong project - bring it back": Run(group=RECOVER_RUN),
    # moving-projects.rst, then project_transfer's EXAMPLES
    "moving-projects.rst: Move every project of the old organization into the new one": Run(group=MOVING_RUN),
    "moving-projects.rst: Hand the demo project to the team's organization": Run(
        group=MOVING_RUN, secret_vars={"vault_destination_org_key": new_organization_key},
        why="the vaulted key it names: an organization key of the destination"),
    "project_transfer.py EXAMPLES": Run(
        group=MOVING_RUN, secret_vars={"vault_destination_org_key": new_organization_key},
        why="the vaulted key it names: an organization key of the destination"),
    "project_member.py EXAMPLES": Run(),
    # execution-environments.rst
    "execution-environments.rst: version: 3": Checked(
        check_execution_environment_meta, "the collection's meta/execution-environment.yml"),
    "execution-environments.rst: version: 3 (2)": Checked(
        check_execution_environment, "an execution-environment.yml: checked with ansible-builder's schema"),
    # inventory.rst
    "inventory.rst: # all.neon.yml": Inventory("all.neon.yml", check_all_projects),
    "inventory.rst: Every project, one host each": Run(group="inventory play"),
    "inventory.rst: # org.neon.yml": Inventory(
        "org.neon.yml", check_org_projects, setup=org_inventory_setup,
        why="neon_api_key.vault, the vault file its lookup reads, and the vault password file"),
    "inventory.rst: # prod.neon.yml": Inventory(
        "prod.neon.yml", check_prod_projects, setup=prod_projects, why="a prod- and a staging- project"),
    "inventory.rst: # cached.neon.yml": Inventory("cached.neon.yml", check_cached_projects),
    "inventory.rst: Neon projects as an AWX inventory": Run(group=PAGES_RUN),
    # key-rotation.rst
    "key-rotation.rst: Rotate the CI key every 30 days, the previous one valid 30 days more": Run(),
    "key-rotation.rst: Keys nobody used for 90 days": Run(),
    # key-types.rst
    "key-types.rst: Check the job's Neon credential": Run(
        group=PAGES_RUN, secret_vars={"job_credential_key": organization_key}, play_env={"NEON_API_KEY": "{{ job_credential_key }}"},
        why="the job's credential: an organization key, which AWX puts into NEON_API_KEY"),
    "key-types.rst: A least-privilege key for the CI of one project": Run(group=PAGES_RUN, check_mode=WRITES_ETC),
    # pagination.rst
    "pagination.rst: First batch of failed operations": Run(group=PAGES_RUN),
    # troubleshooting.rst
    "troubleshooting.rst: Look the project up; a missing one is not an error here": Run(
        group=PAGES_RUN, play_vars={"project_id": "no-such-project-00000000"}, why="a project that does not exist: the case it handles"),
    "troubleshooting.rst: - hosts: localhost": Run(group=PAGES_RUN),
    "troubleshooting.rst: Wait for the branch the app server needs": Run(
        group=PAGES_RUN, play_vars={"neon_project_id": DEMO_PROJECT}, why="the project id the play's hosts carry"),
    # waiting.rst
    "waiting.rst: Create a branch with the API": Run(
        group=PAGES_RUN, placeholders={LIVE_URL: lambda scene: scene.sim.url}, play_vars={"project_id": DEMO_PROJECT},
        secret_vars={"neon_api_key": api_key},
        why="it calls the live service's URL itself: the simulator's instead; the project and key it names"),
    "waiting.rst: Wait for all projects' operations, once, from the controller": Run(
        group=PAGES_RUN, hostvars={"neon_branch": ended_operations}, why="neon_branch, what each host's earlier task registered"),
    "waiting.rst: Let running operations finish before changing the project": Run(
        group=PAGES_RUN, play_vars={"project_id": DEMO_PROJECT}, why="the project it names"),
    # testing-without-neon.rst
    "testing-without-neon.rst: # tests/neon-scene.yml": Checked(
        check_guide_scene, "a scene file of the simulator: set on a simulator, it makes what the page says"),
    "testing-without-neon.rst: The shop's database on staging, and a release branch": Covered(
        "test_simulator_package.py", "the page's CI workflow runs it twice against a simulator started with the "
        "page's scene (its project, its key) and asserts the second run sent no change"),
    "testing-without-neon.rst: The projects are listed even when the service answers 503 twice": Run(
        group="fault injection"),
    "testing-without-neon.rst: The migration of pull request 42 on a branch of its own": Run(
        group="real computes", files={"migrations/0042.sql": "CREATE TABLE invoices (id bigint PRIMARY KEY);\n"},
        why="the pull request's migration"),
    "testing-without-neon.rst: name: Playbook tests": Checked(
        check_guide_workflow, "a GitHub Actions workflow: test_simulator_package.py runs its steps in order"),
    # reacting-to-events.rst: the rulebooks and the decision environment, as shipped (tests/eda runs the first one
    # with ansible-rulebook), what the rulebooks read, and a rulebook of one's own
    "reacting-to-events.rst: A new Neon project gets the baseline": Covered(
        "test_eda_source.py", "a rulebook (not a playbook): the shipped file, as tests/eda runs it with ansible-rulebook"),
    "reacting-to-events.rst: # vars.yml": Checked(check_eda_vars, "the variables of the shipped rulebooks"),
    "reacting-to-events.rst: # inventory.yml": Checked(check_eda_inventory, "an inventory of localhost, no plugin"),
    "reacting-to-events.rst: Tell the team about advisor errors, idle keys and high consumption": Covered(
        "test_eda_source.py", "a rulebook (not a playbook): its source's arguments and the events its conditions name"),
    "reacting-to-events.rst: # A decision environment for EDA controller (an ansible-builder 3 definition): "
    "ansible-rulebook and its Java 17": Checked(check_shipped("decision-environment.yml"),
                                                "extensions/eda/decision-environment.yml"),
    "reacting-to-events.rst: action:": Checked(check_controller_action, "a piece of a rulebook: EDA controller's action"),
    # the modules' EXAMPLES: those that change something each in a run of its own, the others in one
    "api_key.py EXAMPLES": Run(group=READERS_RUN, check_mode=WRITES_ETC),
    "api_key_info.py EXAMPLES": Run(group=READERS_RUN),
    "auth_info.py EXAMPLES": Run(
        group=READERS_RUN, secret_vars={"job_credential_key": organization_key}, play_env={"NEON_API_KEY": "{{ job_credential_key }}"},
        why="the job's credential: an organization key, as the examples assert"),
    "branch.py EXAMPLES": Run(),
    "branch_anonymized.py EXAMPLES": Run(),
    "data_api.py EXAMPLES": Run(group=BACKEND_RUN),
    "jwks.py EXAMPLES": Run(group=BACKEND_RUN),
    "neon_auth.py EXAMPLES": Run(group=BACKEND_RUN),
    "neon_auth_info.py EXAMPLES": Run(group=BACKEND_RUN),
    "neon_auth_oauth_provider.py EXAMPLES": Run(
        group=BACKEND_RUN, secret_vars={"vault_preview_github_secret": "Gh-example-2c1e"}, why="the vaulted secret it names"),
    "neon_auth_user.py EXAMPLES": Run(group=BACKEND_RUN),
    "branch_info.py EXAMPLES": Run(group=READERS_RUN),
    "branch_restore.py EXAMPLES": Run(),
    "branch_recover.py EXAMPLES": Run(group=RECOVER_RUN),
    "project_recover.py EXAMPLES": Run(group=RECOVER_RUN),
    "branch_schema_info.py EXAMPLES": Run(group=READERS_RUN),
    "consumption_info.py EXAMPLES": Run(group=GOVERNANCE_RUN),
    "organization_member.py EXAMPLES": Run(group=GOVERNANCE_RUN),
    "organization_member_info.py EXAMPLES": Run(group=GOVERNANCE_RUN),
    "project_permission.py EXAMPLES": Run(group=GOVERNANCE_RUN),
    "project_vpc_endpoint.py EXAMPLES": Run(group=GOVERNANCE_RUN),
    "vpc_endpoint.py EXAMPLES": Run(group=GOVERNANCE_RUN),
    "vpc_endpoint_info.py EXAMPLES": Run(group=GOVERNANCE_RUN),
    "snapshot.py EXAMPLES": Run(group=SNAPSHOTS_RUN),
    "snapshot_info.py EXAMPLES": Run(group=SNAPSHOTS_RUN),
    "snapshot_restore.py EXAMPLES": Run(group=SNAPSHOTS_RUN),
    "snapshot_schedule.py EXAMPLES": Run(group=SNAPSHOTS_RUN),
    "organization_spending_limit.py EXAMPLES": Run(group=MONEY_RUN),
    "advisor_info.py EXAMPLES": Run(group=MONEY_RUN),
    "connection_info.py EXAMPLES": Run(files={"migrate": migrate_stub},
                                       why="the application's migration command, a stand-in"),
    "database.py EXAMPLES": Run(),
    "endpoint.py EXAMPLES": Run(),
    "operation_info.py EXAMPLES": Run(
        group=READERS_RUN, placeholders={"0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10": lambda scene: operation_ids(scene, 1)[0]},
        why="an operation id, as a user copies it from a result: one of the project's"),
    "operation_wait.py EXAMPLES": Run(
        placeholders={LIVE_URL: lambda scene: scene.sim.url,
                      "0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10": lambda scene: operation_ids(scene, 2)[0],
                      "5f0e3b1a-7c2d-4e8f-9a6b-1d3c5e7f9a20": lambda scene: operation_ids(scene, 2)[1]},
        play_vars={"project_id": DEMO_PROJECT}, secret_vars={"neon_api_key": api_key},
        why="it calls the live service's URL itself: the simulator's instead; the project and key it names, and "
            "operation ids as a user copies them from a result"),
    "project.py EXAMPLES": Run(
        group=READERS_RUN, check_mode="it writes /etc/shop/database-url, renames the demo project and deletes one"),
    "projects_info.py EXAMPLES": Run(group=READERS_RUN, secret_vars={"neon_api_key": api_key}, why="the key variable it names"),
    "role.py EXAMPLES": Run(files={"~/.ansible/app.vault-pass": VAULT_PASSWORD, "group_vars/all/": None},
                            why="the vault password file it names, and the directory the file goes into"),
}

GROUPS = {
    "application-database.rst": Group(check=check_application_database),
    PAGES_RUN: Group(check=check_authentication),
    "pull request": Group(own_test="test_the_pull_request_guide_on_each_event_of_a_pull_request"),
    "inventory play": Group(inventory="inventory.rst: # all.neon.yml", limit="%s:%s" % (DEMO_PROJECT, ORG_PROJECT),
                            why="two of the inventory's 41 hosts: each host costs a module run, and two show the play"),
    "key-rotation.rst": Group(setup=stale_and_fresh_keys, check=check_key_rotation),
    "baseline": Group(setup=baseline_scene, inventory=BASELINE_INVENTORY, check=check_baseline),
    "project-baseline.rst": Group(check=check_baseline_job_templates),
    "recovery: restore": Group(setup=orders_then_a_bad_change, check=check_point_in_time_restore),
    "recovery: rollback": Group(setup=orders_and_a_failing_migration, check=check_rollback, postgres=True,
                                own_test="test_the_rollback_runbook_fails_with_the_migration_and_runs_again"),
    "real computes": Group(setup=psql_on_path, check=check_migrated_branch_gone, postgres=True),
    "fault injection": Group(own_test="test_the_fault_injection_example_runs_twice_against_one_simulator"),
    "recovery-runbooks.rst": Group(check=check_recovery_page),
    RECOVER_RUN: Group(setup=deleted_by_mistake, check=check_recovered),
    MOVING_RUN: Group(setup=new_organization, check=check_moved),
    "project_member.py EXAMPLES": Group(check=check_project_member_examples),
    "branch.py EXAMPLES": Group(check=check_branch_examples),
    "branch_anonymized.py EXAMPLES": Group(setup=customers_on_demo_main, check=check_anonymized_examples),
    "anonymized pull request": Group(setup=shop_with_customers, check=check_anonymized_preview),
    BACKEND_RUN: Group(setup=preview_branches_with_neon_auth, check=check_backend_examples),
    "app backend": Group(check=check_app_backend),
    "connection_info.py EXAMPLES": Group(check=check_connection_examples),
    "database.py EXAMPLES": Group(check=check_database_examples),
    "endpoint.py EXAMPLES": Group(check=check_endpoint_examples),
    "role.py EXAMPLES": Group(check=check_role_examples),
    MONEY_RUN: Group(check=check_money_examples),
}

ALL_BLOCKS = all_blocks()


def group_of(key):
    run = BLOCKS[key]
    return run.group or ALL_BLOCKS[key].source


def group_members(group):
    """(key, block, Run) of the group's blocks, in the order of their page."""
    return [(key, block, BLOCKS[key]) for key, block in ALL_BLOCKS.items()
            if isinstance(BLOCKS.get(key), Run) and group_of(key) == group]


def run_groups():
    groups = []
    for key in ALL_BLOCKS:
        if isinstance(BLOCKS.get(key), Run) and group_of(key) not in groups:
            groups.append(group_of(key))
    return groups


def group_params():
    params = []
    for group in run_groups():
        if GROUPS.get(group, Group()).own_test:
            continue
        bugs = [run.xfail for key, block, run in group_members(group) if run.xfail]
        params.append(pytest.param(group, id=group, marks=[pytest.mark.xfail(strict=True, reason="; ".join(bugs))]
                                   if bugs else []))
    return params


def keys_of(kind):
    return [key for key in ALL_BLOCKS if isinstance(BLOCKS.get(key), kind)]


# ---------------------------------------------------------------------------------------------- the tests

def test_every_block_is_listed():
    """A block no table lists is tested by no one: a new block fails here until BLOCKS says how it runs."""
    unlisted = [key for key in ALL_BLOCKS if key not in BLOCKS]
    stale = [key for key in BLOCKS if key not in ALL_BLOCKS]
    assert not unlisted and not stale, "blocks listed nowhere: %s; listed but gone: %s" % (unlisted, stale)
    for key, entry in BLOCKS.items():
        kind = ALL_BLOCKS[key].kind
        expected = {"playbook": (Run, Covered), "tasks": (Run, Covered), "inventory": (Inventory,), "yaml": (Checked,)}
        assert isinstance(entry, expected[kind]), "%s is a %s, listed as %s" % (key, kind, type(entry).__name__)
        if isinstance(entry, Run):
            assert entry.why or not entry.needs(), "%s: say why it needs what it is given" % key
            assert entry.check_mode is None or isinstance(entry.check_mode, str), key
            if entry.continues:
                assert group_of(entry.continues) == group_of(key), key
                given = (entry.play_vars, entry.secret_vars, entry.play_env, entry.hostvars, entry.placeholders)
                assert not any(given) and not entry.check_mode, "%s takes what its play has: files only" % key
        if isinstance(entry, Covered):
            assert os.path.exists(os.path.join(os.path.dirname(__file__), entry.test)), entry.test
        if isinstance(entry, (Checked, Covered)) or (isinstance(entry, Inventory) and entry.setup):
            assert entry.why, "%s: say why" % key
    assert set(GROUPS) <= set(run_groups()), "GROUPS names a group that runs no block"
    for group, settings in GROUPS.items():
        assert not settings.own_test or callable(globals().get(settings.own_test)), group
        assert not settings.inventory or not any(run.hostvars for key, block, run in group_members(group)), group
        assert not settings.limit or settings.why, group


@pytest.mark.parametrize("key", keys_of(Checked))
def test_yaml_files_of_the_guide(key):
    BLOCKS[key].check(ALL_BLOCKS[key])


@pytest.mark.parametrize("key", keys_of(Inventory))
def test_inventory_files_of_the_guide(key, simulator, collection_parent, tmp_path):
    entry = BLOCKS[key]
    scene = Scene(simulator, tmp_path, collection_parent)
    if entry.setup:
        entry.setup(scene)
    scene.write(entry.filename, ALL_BLOCKS[key].text)
    entry.check(scene, inventory_list(scene, entry.filename))


@pytest.mark.parametrize("group", group_params())
def test_playbooks_of_the_guide_and_examples(group, request, collection_parent, tmp_path):
    """The group's blocks, one play each, in one ansible-playbook run; then what a user would see."""
    postgres = GROUPS.get(group, Group()).postgres
    scene = Scene(request.getfixturevalue("postgres_simulator" if postgres else "simulator"), tmp_path,
                  collection_parent)
    scene.command(prepare_group(group, scene))
    check = GROUPS.get(group, Group()).check
    if check:
        check(scene)


def utc_day():
    return time.strftime("%Y-%m-%d", time.gmtime())


def test_the_pull_request_guide_on_each_event_of_a_pull_request(simulator, collection_parent, tmp_path):
    """The playbook as the pipeline runs it: opened, a push (which changes nothing, as the page says),
    a push asking for a reset, closed."""
    scene = Scene(simulator, tmp_path, collection_parent)
    argv = prepare_group("pull request", scene)

    def event(name, **more):
        before = simulator.requests()
        scene.command(with_extra_vars(argv, scene, dict(pr_number=7, pr_event=name, **more)))
        return simulator.requests(since=before[-1]["seq"] if before else 0)

    day = utc_day()
    event("opened")
    (project,) = [project for project in scene.api("/projects?limit=400")["projects"] if project["name"] == "shop"]
    branch = branch_named(scene, project["id"], "pr-7")
    assert branch and branch["parent_id"] == branch_named(scene, project["id"], "main")["id"]
    assert branch["expires_at"].endswith("T00:00:00Z"), "the expiry is not a day (midnight, UTC)"
    (compute,) = scene.api("/projects/%s/branches/%s/endpoints" % (project["id"], branch["id"]))["endpoints"]
    (migrated,) = migrations(scene)
    assert migrated["argv"] == ["migrate"] and migrated["cwd"] == str(scene.dir / "app")
    preview = "/projects/%s/branches/%s" % (project["id"], branch["id"])
    assert [item["domain"] for item in scene.api(preview + "/auth/domains")["domains"]] == \
        ["https://pr-7.preview.example.com"]
    assert "github" in [item["id"] for item in scene.api(preview + "/auth/oauth_providers")["providers"]]
    assert scene.api(preview + "/data-api/shop")["status"] == "ready"
    assert (migrated["user"], migrated["database"], migrated["password"]) == ("shop_owner", "shop", True)
    assert migrated["host"] == compute["host"].replace(compute["id"], compute["id"] + "-pooler", 1)

    # Pushes change nothing: the expiry moves once a day, so two runs on both sides of midnight (UTC)
    # see it move once; then a push again, on one day.
    for attempt in range(2):
        changes = [(entry["method"], entry["path"]) for entry in event("synchronize") if entry["method"] != "GET"]
        if utc_day() == day:
            break
        day = utc_day()
    assert changes == [], "a push changed something (attempt %d)" % (attempt + 1)
    assert len(migrations(scene)) == 2 + attempt

    reset = event("synchronize", reset=True)
    assert [entry["path"] for entry in reset if entry["method"] == "POST"] == [
        "/api/v2/projects/%s/branches/%s/restore" % (project["id"], branch["id"])]
    assert branch_named(scene, project["id"], "pr-7")["id"] == branch["id"]

    closed = [(entry["method"], entry["path"]) for entry in event("closed") if entry["method"] == "DELETE"]
    assert closed[:2] == [("DELETE", "/api/v2" + preview + "/data-api/shop"), ("DELETE", "/api/v2" + preview + "/auth")]
    assert branch_named(scene, project["id"], "pr-7") is None
    assert len(migrations(scene)) == 3 + attempt, "the migrations ran on close"


def test_the_fault_injection_example_runs_twice_against_one_simulator(simulator, collection_parent, tmp_path):
    """The page's play that injects two 503s and reads the request log, run twice against one simulator, as a
    user reruns it against a simulator left running: the second run finds the first one's 503s in the log and
    passes all the same."""
    scene = Scene(simulator, tmp_path, collection_parent)
    argv = prepare_group("fault injection", scene)
    for attempt in range(2):
        scene.command(argv)
        refused = [entry for entry in simulator.requests() if entry["status"] == 503]
        assert len(refused) == 2 * (attempt + 1), refused  # the log holds each run's two, never cleared here
    assert len({entry["fault"] for entry in refused}) == 2, refused  # a fault of each run


def test_the_rollback_runbook_fails_with_the_migration_and_runs_again(postgres_simulator, collection_parent, tmp_path):
    """Issue 37, 3.1: the runbook rolls main back, deletes the snapshot it restored and fails with the migration's
    failure; run again (the migration fails again), it takes its snapshot - the free plan keeps one - and fails the
    same way, rolling back again. Before, the second run failed at the snapshot ("manual snapshots limit of 1
    exceeded") and its rescue reported a snapshot that was never taken."""
    scene = Scene(postgres_simulator, tmp_path, collection_parent)
    argv = prepare_group("recovery: rollback", scene)
    failure = "migration 0042 failed: column orders.total cannot be dropped"
    first_main = scene.values["main_id"]
    for _attempt in (1, 2):
        before = last_seq(postgres_simulator)
        shown = scene.command(argv, fails=True).stdout
        assert "The migration failed: %s. main is branch" % failure in shown, scene.mask(shown[-4000:])
        assert "Snapshot main before the migration failed" not in shown and "has no snapshot" not in shown
        sent = [(entry["method"], entry["path"].rsplit("/", 1)[-1], entry["status"])
                for entry in postgres_simulator.requests(since=before) if entry["method"] != "GET"]
        assert [item for item in sent if item[1] == "snapshot"] == [("POST", "snapshot", 200)], sent
        assert [item[2] for item in sent if item[1] == "restore"] == [200], sent
        check_rollback(scene)  # main holds the snapshot's orders over the same address, under a new id
        scene.values["main_id"] = branch_named(scene, DEMO_PROJECT, "main")["id"]
        assert scene.api("/projects/%s/snapshots" % DEMO_PROJECT)["snapshots"] == [], "the restored snapshot is kept"
    assert branch_named(scene, DEMO_PROJECT, "main (old)") is not None
    assert branch_named(scene, DEMO_PROJECT, "main (old 2)")["id"] != first_main


def test_the_rollback_runbook_says_the_migrations_failure_first_when_its_rollback_fails_too(
        postgres_simulator, collection_parent, tmp_path):
    """Issue 37, 3.1: the rescue must not mask the first failure: with the snapshot's restore refused too, the play
    fails with the migration's failure, then the rollback's, and deletes nothing."""
    scene = Scene(postgres_simulator, tmp_path, collection_parent)
    argv = prepare_group("recovery: rollback", scene)
    postgres_simulator.add_fault(method="POST", path="/api/v2/projects/%s/snapshots/*/restore" % DEMO_PROJECT,
                                 status=400, count=1)
    before = last_seq(postgres_simulator)
    shown = " ".join(scene.command(argv, fails=True).stdout.split())
    assert "The migration failed: migration 0042 failed: column orders.total cannot be dropped. The rollback " \
        "failed too, main is as the migration left it: " in shown, scene.mask(shown[-4000:])
    assert "HTTP 400: bad request" in shown, scene.mask(shown[-4000:])
    assert [entry for entry in postgres_simulator.requests(since=before) if entry["method"] == "DELETE"] == []
    assert len(scene.api("/projects/%s/snapshots" % DEMO_PROJECT)["snapshots"]) == 1, "the snapshot must be kept"


def test_the_restore_survey_run_again_with_another_moment_says_the_moment_main_holds(
        simulator, collection_parent, tmp_path):
    """Issue 37, 3.5: run again for the same ticket with a new moment, the restore rightly changes nothing and warns;
    the summary line says the moment of the restore main holds, never the new one."""
    scene = Scene(simulator, tmp_path, collection_parent)
    argv = prepare_group("recovery: restore", scene)
    restored = scene.values["moment"]
    first = scene.command(argv).stdout
    assert "holds its data of %s;" % restored in first, scene.mask(first[-3000:])
    later = (datetime.datetime.strptime(restored, "%Y-%m-%dT%H:%M:%SZ") + datetime.timedelta(seconds=60)).strftime(
        "%Y-%m-%dT%H:%M:%SZ")
    before = last_seq(simulator)
    rerun = scene.command(with_extra_vars(argv, scene, {"survey_moment": later}))
    again = rerun.stdout + rerun.stderr  # the warning is on stderr
    assert "was restored before to %s, not to %s as asked now" % (restored, later) in again, scene.mask(again[-3000:])
    assert "holds its data of %s;" % restored in again and "holds its data of %s" % later not in again
    assert [entry for entry in simulator.requests(since=before) if entry["method"] != "GET"] == []
    check_point_in_time_restore(scene)


SNAPSHOT_RESTORE_EXAMPLES = "snapshot_restore.py EXAMPLES"


def snapshot_restore_examples(scene):
    """A playbook of snapshot_restore's EXAMPLES alone (take nightly-check of main, restore it, finalize it)."""
    plays = play_of(SNAPSHOT_RESTORE_EXAMPLES, ALL_BLOCKS[SNAPSHOT_RESTORE_EXAMPLES], BLOCKS[SNAPSHOT_RESTORE_EXAMPLES],
                    scene, None)
    path = scene.dir / "snapshot-restore-examples.yml"
    path.write_text(yaml.dump(plays, Dumper=BlockDumper, sort_keys=False, width=1000))
    return [tool("ansible-playbook"), "-i", inventory_of_localhost(scene, {}), path]


def last_seq(sim):
    logged = sim.requests()
    return logged[-1]["seq"] if logged else 0


def changes_of(sim, since):
    return [(entry["method"], entry["path"], entry["status"]) for entry in sim.requests(since=since)
            if entry["method"] != "GET"]


def check_one_rollback(scene):
    """One snapshot nightly-check, one branch restored from it (main now, finalized), one 'main (old)'; nothing
    twice."""
    (snapshot,) = scene.api("/projects/%s/snapshots" % DEMO_PROJECT)["snapshots"]
    branches = scene.api("/projects/%s/branches" % DEMO_PROJECT)["branches"]
    restored = [branch for branch in branches if branch.get("restored_from") == snapshot["id"]]
    assert [(branch["name"], branch["restore_status"]) for branch in restored] == [("main", "finalized")], restored
    assert [branch["name"] for branch in branches if branch["name"].startswith("main")] in (
        ["main (old)", "main"], ["main", "main (old)"]), branches
    old = branch_named(scene, DEMO_PROJECT, "main (old)")
    assert restored[0]["restored_as"] == snapshot["source_branch_id"] == old["id"]
    sent = [(entry["method"], entry["path"].rsplit("/", 1)[-1], entry["status"]) for entry in scene.sim.requests()
            if entry["method"] == "POST" and entry["path"].endswith(("/snapshot", "/restore", "/finalize_restore"))]
    assert sent == [("POST", "snapshot", 200), ("POST", "restore", 200), ("POST", "finalize_restore", 200)], sent


def rerun_changes_nothing(scene, argv):
    """Run the play ``argv`` again: it passes, reports changed=0 and sends no change."""
    before = last_seq(scene.sim)
    again = scene.command(argv).stdout
    assert re.search(r"localhost\s*: ok=\d+\s+changed=0\s", again), scene.mask(again[-3000:])
    assert changes_of(scene.sim, before) == []


def test_snapshot_restore_examples_run_again_pass_and_change_nothing(simulator, collection_parent, tmp_path):
    """Issue 37, 4.1: after the finalize, main is a new branch; the snapshot of main the play took was taken of the
    branch it replaced (now 'main (old)'). Run again, the play passed no more ("taken of branch br-..., not of branch
    'main'"): it must pass and change nothing."""
    scene = Scene(simulator, tmp_path, collection_parent)
    argv = snapshot_restore_examples(scene)
    scene.command(argv)
    rerun_changes_nothing(scene, argv)
    check_one_rollback(scene)


def test_snapshot_restore_examples_killed_after_the_finalize_run_again_pass(simulator, collection_parent, tmp_path):
    """Issue 37, 4.1: the play killed once the restore was finalized (its computes' restart held in the simulator,
    the module waiting for it), every process of it, then run again: it passes, and nothing was done twice."""
    scene = Scene(simulator, tmp_path, collection_parent)
    argv = snapshot_restore_examples(scene)
    simulator.state.shared.next_operations.clear()
    simulator.script_operations("start_compute", hold=True, project_id=DEMO_PROJECT, count=10)
    simulator.script_operations("*", duration=0, count=10000)
    before = last_seq(simulator)
    proc = subprocess.Popen([str(part) for part in argv], cwd=str(scene.dir), env=scene.environment(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    killed = {}
    try:
        finalized, polled = False, False
        for _poll in range(1200):  # bounded: 120 s at most, for the module to reach the held restart
            log = simulator.requests(since=before)
            finalized = finalized or any(entry["path"].endswith("/finalize_restore") and entry["status"] == 200
                                         for entry in log)
            after = [entry for entry in log if entry["path"].endswith("/finalize_restore")]
            polled = finalized and any(entry["method"] == "GET" and "operations" in entry["path"]
                                       and entry["seq"] > after[0]["seq"] for entry in log)
            if polled or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert polled and proc.poll() is None, "the play did not reach the held restart after its finalize: %s" % (
            scene.mask(proc.communicate(timeout=60)[0][-3000:]) if proc.poll() is not None else "still running")
        killed = kill_tree(proc.pid)
        assert any("python" in command and pid != proc.pid for pid, command in killed.items()), killed
    finally:
        if proc.poll() is None:
            kill_tree(proc.pid)
        proc.communicate(timeout=60)
    for _poll in range(300):  # bounded: 30 s for the killed processes to be gone
        if all(process_gone(pid) for pid in killed):
            break
        time.sleep(0.1)
    assert all(process_gone(pid) for pid in killed), "processes outlived SIGKILL: %s" % killed
    simulator.release_operations(DEMO_PROJECT)
    rerun_changes_nothing(scene, argv)
    check_one_rollback(scene)


# ---------------------------------------------------------------------------------------------- a dry run first

ASSUMED = "in check mode it is taken as made by an earlier task of the play"
TASK_LINE = re.compile(r"^TASK \[(.*)\] \*+$")
HOST_LINE = re.compile(r"^(ok|changed|skipping|fatal|failed): \[")


class DryRun:
    """A group of blocks that set up a new environment, run first with ``--check`` on a fresh simulator, as users
    do (troubleshooting.rst, "A dry run (--check) of a new environment"). ``extra_vars``: what the pipeline
    passes; ``changed``: tasks (by name) it must report as changes; ``assumed``: words of what a warning must say
    check mode took as made by an earlier task; ``shown``: a check of what the run's output shows."""

    def __init__(self, changed, assumed, extra_vars=None, shown=None):
        self.changed = changed
        self.assumed = assumed
        self.extra_vars = extra_vars
        self.shown = shown  # shown(scene, stdout): what the report must show


DRY_RUNS = {
    # the seeded demo project and its main branch exist; the orders role does not
    "application-database.rst": DryRun(
        changed=["The service's own role", "Its database, owned by that role", "Give the role a new password"],
        assumed=["Role 'orders' of branch 'main'"]),
    # the shop project does not exist: every later task is given the null id of a project predicted
    "pull request": DryRun(
        extra_vars={"pr_number": 8, "pr_event": "opened"},
        changed=["Create or find the application's project", "The application's role on main, which the branches made "
                 "from main have too", "The application's database on main, owned by that role",
                 "Create or reuse the branch of the pull request, from main, with a compute"],
        assumed=["The task's project (project_id is empty"]),
    # the organization's projects, none of them held to the baseline yet
    "baseline": DryRun(changed=["Settings - who may connect, when maintenance happens, what a project may spend",
                                "Spending - the organization's monthly limit, alert-only (once for the organization)"],
                       assumed=[], shown=check_drift_report),
}


def task_statuses(output):
    """The status each task of an ansible-playbook run (default output) reported, by its name: the last of its
    hosts' lines."""
    statuses, task = {}, None
    for line in output.splitlines():
        match = TASK_LINE.match(line)
        if match:
            task = match.group(1).split(" : ", 1)[-1]
            continue
        match = HOST_LINE.match(line)
        if match and task is not None:
            statuses[task] = match.group(1) if statuses.get(task) != "changed" else "changed"
    return statuses


@pytest.mark.parametrize("group", sorted(DRY_RUNS))
def test_a_dry_run_of_a_new_environment_predicts_and_sends_nothing(group, simulator, collection_parent, tmp_path):
    """The page's plays, read from the page, with ``--check --diff`` on a fresh simulator: they pass, report the
    changes a real run would make, say what they took as made by an earlier task, and send no change."""
    dry_run = DRY_RUNS[group]
    scene = Scene(simulator, tmp_path, collection_parent)
    argv = prepare_group(group, scene) + ["--check", "--diff"]
    if dry_run.extra_vars:
        argv = with_extra_vars(argv, scene, dry_run.extra_vars)
    logged = simulator.requests()
    proc = scene.command(argv)
    sent = [(entry["method"], entry["path"]) for entry in simulator.requests(since=logged[-1]["seq"] if logged else 0)
            if entry["method"] != "GET"]
    assert sent == [], "the dry run sent changes: %s" % sent
    statuses = task_statuses(proc.stdout)
    output = " ".join((proc.stdout + proc.stderr).split())
    assert [task for task in dry_run.changed if statuses.get(task) != "changed"] == [], scene.mask(proc.stdout[-6000:])
    for words in dry_run.assumed:
        assert words in output and ASSUMED in output, scene.mask(output[-4000:])
    assert ASSUMED in output or not dry_run.assumed
    if dry_run.shown is not None:
        dry_run.shown(scene, proc.stdout)


# The longest pause between two attempts of a request in the inventory file of the baseline test below: its
# runs fail after every attempt (HTTP 500, then nothing listening), and the default pauses (0.25-0.5 s, then up to
# 1, 2, 4 and 8 s) add only waiting.
RETRY_PAUSE = 0.05


def closed_port_url():
    """The URL of an API that is not running: a port bound on 127.0.0.1 that never listens refuses connections."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    return sock, "http://127.0.0.1:%d/api/v2" % sock.getsockname()[1]


def test_the_baseline_and_its_drift_report_fail_when_the_inventory_cannot_be_read(simulator, collection_parent,
                                                                                  tmp_path):
    """project-baseline.rst's play, its inventory file and the ansible.cfg the page shows, as a scheduled job runs
    them while the API fails: the drift report (--check --diff) against an API that answers HTTP 500, the fix
    against one that is not running, and the report where the ansible.cfg is not read. Each run exits non-zero
    with the cause in its output without -v; none plays on with "no hosts matched". The inventory file is the
    page's with one option added, api_retry_max_delay (RETRY_PAUSE): the same attempts, without the pauses between
    them (about 11 s a run by default: 43-46 s of the test's wall time went to 10 s, its CPU time unchanged)."""
    scene = Scene(simulator, tmp_path, collection_parent)
    (key, block), = [(key, block) for key, block in ALL_BLOCKS.items() if block.source == BASELINE_PAGE
                     and block.kind == "playbook" and "Hold every project of the organization to the baseline"
                     in [play.get("name") for play in block.data]]
    scene.write("baseline.yml", yaml.dump(play_of(key, block, Run(), scene, None), Dumper=BlockDumper,
                                          sort_keys=False, width=1000))
    inventory = next(block.text for block in ALL_BLOCKS.values() if block.source == BASELINE_PAGE
                     and block.kind == "inventory")
    assert "api_retry_max_delay" not in inventory, "the page sets the pause itself: drop RETRY_PAUSE"
    scene.write("baseline.neon.yml", inventory.rstrip("\n") + "\napi_retry_max_delay: %s\n" % RETRY_PAUSE)
    config = ansible_cfg_of(BASELINE_PAGE)
    if config is not None:
        scene.write("ansible.cfg", config)

    def run(*options, **env):
        proc = subprocess.run([tool("ansible-playbook"), "-i", "baseline.neon.yml", "baseline.yml"] + list(options),
                              cwd=str(scene.dir), env=dict(scene.environment(), **env), timeout=240,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, check=False)
        output = proc.stdout + proc.stderr
        shown = "exit %d\n%s" % (proc.returncode, scene.mask(output[-6000:]))
        assert simulator.api_key not in output, "the API key is in the output"
        assert proc.returncode != 0, "the run went on without the inventory: %s" % shown
        assert "no hosts matched" not in output, shown
        return proc.returncode, output, shown

    # The nightly drift report, the API answering HTTP 500 to everything: the request, the status, the service's
    # message and the request id of the last attempt, without -v.
    simulator.add_fault(status=500, count=1000)
    _rc, output, shown = run("--check", "--diff")
    (last,) = [entry for entry in simulator.requests() if entry["path"] == "/api/v2/auth"][-1:]
    assert "neon.cloud.projects could not list the projects: GET /auth failed: HTTP 500: internal server error " \
           "(request id %s)" % last["request_id"] in output, shown
    assert "Completely failed to parse inventory source" in output, shown

    # The fix, run by hand while nothing listens at the API's address.
    sock, dead_url = closed_port_url()
    try:
        _rc, output, shown = run(NEON_API_URL=dead_url)
        assert "GET /auth failed: could not connect" in output, shown

        # Where the ansible.cfg is not read (here overridden), the play's first play stops the report.
        rc, output, shown = run("--check", "--diff", NEON_API_URL=dead_url,
                                ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED="false")
        assert rc == 2 and "The inventory holds no project, so nothing was checked" in output, shown
        assert "GET /auth failed: could not connect" in output and "any_unparsed_is_failed = true" in output, shown
    finally:
        sock.close()
