# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The API simulator as a package of its own (issue 32), as a user installs and runs it, and the guide
page "Testing your playbooks without a Neon account" (docs/docsite/rst/testing-without-neon.rst) as
written.

- The wheel pip builds from tests/simulator: the collection's version, Werkzeug as its one dependency,
  the console script and the pytest plugin, nothing but the package.
- Installed into a new virtualenv (nothing of the work tree on its import path): ``neon-simulator`` and
  ``python -m neon_simulator`` start, answer with the key they printed, load a scene file, stop on SIGTERM.
- The pytest plugin: the page's pytest.ini, scene and test file, run by that virtualenv's pytest; and in a
  repository with the collection installed into ``collections/``, as the page installs it, where plain
  ``pytest`` (and ``pytest .``) runs the user's tests and only those.
- Scene files: the page's scene sets what the page says; JSON alike; wrong files refused naming the entry.
- The page's SDK snippet, against a simulator.
- The page's GitHub Actions workflow: its ``run:`` steps, in order, in a workspace holding the page's
  playbook and scene, with a new virtualenv standing in for setup-python and the collection tarball built
  from this work tree standing in for Galaxy.

check_guide_scene and check_guide_workflow are the checks test_documented_playbooks.py's table gives the
page's scene file and workflow.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import fcntl
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import zipfile

import pytest
import requests
import yaml

from neon_simulator import Simulator
from neon_simulator.__main__ import main as simulator_main
from neon_simulator.launcher import PRINTED, SimulatorDidNotStart, launch
from neon_simulator.scene_file import SceneError, apply_scene, load_scene, parse_scene
from neon_testing import ROOT, SIMULATOR_DIR, ansible_env, galaxy_meta, run, tool

PAGE = os.path.join(ROOT, "docs", "docsite", "rst", "testing-without-neon.rst")
DIRECTIVE = re.compile(r"^(\s*)\.\. code-block:: ([\w+]+)\s*$")
SCENE_PATH = "tests/neon-scene.yml"  # where the page's pytest.ini and workflow find the scene
SCENE_KEY = "shop-ci-test-key"
START_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0


# ---------------------------------------------------------------------------------------------- the page

def page_blocks(language):
    """The page's code blocks of one language, dedented, in page order."""
    with open(PAGE, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    blocks = []
    for index, line in enumerate(lines):
        match = DIRECTIVE.match(line)
        if not match or match.group(2) != language:
            continue
        body = []
        for following in lines[index + 1:]:
            if following.strip() and len(following) - len(following.lstrip()) <= len(match.group(1)):
                break
            body.append(following)
        blocks.append(textwrap.dedent("\n".join(body)).strip("\n") + "\n")
    return blocks


def page_block(language, first_line):
    """The page's block of ``language`` whose first line is ``first_line``."""
    found = [block for block in page_blocks(language) if block.splitlines()[0].strip() == first_line]
    assert len(found) == 1, "%s: %d %s blocks start with %r" % (PAGE, len(found), language, first_line)
    return found[0]


def guide_test_file():
    """The page's pytest test file: (its path in the user's repository, as its first line names it, its text)."""
    found = [block for block in page_blocks("python") if re.match(r"^# (\S+/)?test_\w+\.py$", block.splitlines()[0])]
    assert len(found) == 1, "%s: %d python blocks start with a test file's name" % (PAGE, len(found))
    return found[0].splitlines()[0][2:], found[0]


def guide_scene():
    return page_block("yaml", "# " + SCENE_PATH)


def guide_playbook():
    return page_block("yaml+jinja", "# site.yml")


def guide_workflow():
    return yaml.safe_load(page_block("yaml", "name: Playbook tests"))


# ---------------------------------------------------------------------------------------------- processes

def clean_env(**extra):
    """The caller's environment without what would lead a run to this work tree or a real account."""
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("ANSIBLE_", "NEON_")) and name not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update({name: str(value) for name, value in extra.items()})
    return env


def new_venv(path):
    """A new virtualenv with pip (the stdlib's venv, as a user makes one); returns its bin directory."""
    run([sys.executable, "-m", "venv", path], timeout=120)
    return os.path.join(str(path), "bin")


def started(command, tmp_path, name, **how):
    """Start an installed simulator command in ``tmp_path`` with the simulator's launcher (``--port 0``, its URL
    file, the key of ``how``): the launcher's SimulatorProcess once it listens."""
    try:
        return launch(command=command, env=clean_env(), cwd=tmp_path, log_path=tmp_path / ("%s.out" % name),
                      start_timeout=START_TIMEOUT, stop_timeout=STOP_TIMEOUT, **how)
    except SimulatorDidNotStart as error:
        pytest.fail(str(error))


def api(values, path, key=None):
    return requests.get(values["NEON_API_URL"] + path, timeout=10,
                        headers={"Authorization": "Bearer %s" % (key or values["NEON_API_KEY"])})


# ---------------------------------------------------------------------------------------------- the wheel and its virtualenv

@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """The wheel pip builds from tests/simulator, installed (with PyYAML and pytest) into a new virtualenv.
    Returns (wheel path, the virtualenv's bin directory). Made once per pytest run: the pytest-xdist
    workers (nox -s pytest) share the run's folder, and one builds while the others wait for it."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # pytest-N/, the run's, above each worker's popen-gwX/
    tmp = base / "simulator-package"
    with open(str(base / "simulator-package.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            made = tmp / "made"
            if not made.exists():
                shutil.rmtree(str(tmp), ignore_errors=True)
                bin_dir = new_venv(tmp / "venv")
                pip = [os.path.join(bin_dir, "python"), "-m", "pip", "--disable-pip-version-check", "-q"]
                run(pip + ["wheel", "--no-deps", "-w", tmp / "dist", SIMULATOR_DIR], timeout=300, env=clean_env())
                (wheel,) = (tmp / "dist").glob("neon_simulator-*.whl")
                run(pip + ["install", "%s[yaml]" % wheel, "pytest"], timeout=300, env=clean_env())
                made.write_text(str(wheel))
            return pathlib.Path(made.read_text()), os.path.join(str(tmp / "venv"), "bin")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def test_the_wheel_is_the_simulator_at_the_collections_version(package):
    wheel, bin_dir = package
    version = galaxy_meta()["version"]
    assert wheel.name == "neon_simulator-%s-py3-none-any.whl" % version
    with zipfile.ZipFile(str(wheel)) as archive:
        names = archive.namelist()
        info = "neon_simulator-%s.dist-info/" % version
        metadata = archive.read(info + "METADATA").decode()
        entry_points = archive.read(info + "entry_points.txt").decode()
    assert not [name for name in names if not name.startswith(("neon_simulator/", info))], names
    assert "neon_simulator/scene_file.py" in names and "neon_simulator/pytest_plugin.py" in names
    assert "neon_simulator/openapi/neon-api-v2.json" in names  # the vendor's document, for the 501 answers
    assert "Version: %s\n" % version in metadata and "Name: neon-simulator\n" in metadata
    requires = sorted(line for line in metadata.splitlines() if line.startswith("Requires-Dist:"))
    assert requires == ["Requires-Dist: pgserver>=0.1.4; extra == 'postgres'", "Requires-Dist: pyyaml>=5.1; extra == 'yaml'",
                        "Requires-Dist: werkzeug<4,>=3.0"], requires  # the real computes' server is an extra
    assert "neon-simulator = neon_simulator.__main__:main" in entry_points
    assert "[pytest11]\nneon_simulator = neon_simulator.pytest_plugin" in entry_points
    # installed, it is imported from the virtualenv, never from the work tree
    where = run([os.path.join(bin_dir, "python"), "-c", "import neon_simulator; print(neon_simulator.__file__)"],
                cwd=str(wheel.parent), env=clean_env()).stdout.strip()
    assert where.startswith(os.path.dirname(bin_dir)) and "site-packages" in where, where


def test_the_command_and_python_m_start_answer_and_stop(package, tmp_path):
    bin_dir = package[1]
    script, python = os.path.join(bin_dir, "neon-simulator"), os.path.join(bin_dir, "python")
    helped = run([script, "--help"], env=clean_env()).stdout
    assert helped.startswith("usage: neon-simulator") and "--scene FILE" in helped, helped
    assert run([python, "-m", "neon_simulator", "--help"], env=clean_env()).stdout.startswith(
        "usage: python3 -m neon_simulator")

    # the console script, with a key it makes up and prints
    url_file = tmp_path / "neon.url"
    process = started([script], tmp_path, "script", api_key=PRINTED, url_file=url_file)
    values = process.environment()
    try:
        assert re.match(r"^[a-z0-9]{64}$", values["NEON_API_KEY"])
        assert url_file.read_text().strip() == values["NEON_API_URL"]
        answer = api(values, "/projects?limit=1")
        assert answer.status_code == 200 and answer.json()["projects"][0]["id"] == values["NEON_SIM_DEMO_PROJECT"]
        assert api(values, "/projects", key="not-the-key").status_code == 401
        # a documented operation it does not serve: 501 naming it, from the document the wheel carries
        unserved = api(values, "/projects/%s/auth/integrations" % values["NEON_SIM_DEMO_PROJECT"])
        assert unserved.status_code == 501 and unserved.json()["code"] == "NOT_SIMULATED", unserved.text
    finally:
        assert process.stop() == 0
    assert not url_file.exists()  # removed on exit

    # python -m, with the guide's scene (YAML: the [yaml] extra is installed)
    (tmp_path / "scene.yml").write_text(guide_scene())
    process = started([python, "-m", "neon_simulator"], tmp_path, "module", api_key="dev-key",
                      options=["--scene", "scene.yml"])
    values = process.environment()
    try:
        assert "NEON_API_KEY" not in process.printed  # given, so not printed
        answer = api(values, "/projects", key=SCENE_KEY)
        assert answer.status_code == 200 and [p["id"] for p in answer.json()["projects"]] == ["acme-shop"]
        assert api(values, "/projects/%s" % values["NEON_SIM_DEMO_PROJECT"], key=SCENE_KEY).status_code == 403
    finally:
        assert process.stop() == 0

    # a scene it cannot set: exit 2, the entry named, nothing served
    (tmp_path / "bad.json").write_text(json.dumps({"keys": [{"kind": "project", "project_id": "nowhere"}]}))
    refused = subprocess.run([script, "--scene", "bad.json"], cwd=str(tmp_path), env=clean_env(), timeout=30,
                             capture_output=True, text=True, check=False)
    assert refused.returncode == 2 and refused.stdout == "", (refused.stdout, refused.stderr)
    assert refused.stderr.strip() == "--scene: bad.json: keys[0]: project_id: must name a project of an organization"


PLUGIN_EXTRA_TEST = '''
import os
import subprocess
import sys


def test_a_tool_the_test_starts_reaches_the_same_simulator(neon_simulator, neon_simulator_env):
    assert neon_simulator_env["NEON_API_URL"] == neon_simulator.url
    assert neon_simulator_env["NEON_SIM_CONTROL_URL"] == neon_simulator.control_url
    code = ("import os, urllib.request; print(urllib.request.urlopen(urllib.request.Request("
            "os.environ['NEON_API_URL'] + '/projects?limit=1', headers={'Authorization': 'Bearer ' + "
            "os.environ['NEON_API_KEY']})).status)")
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, **neon_simulator_env),
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "200"
    assert [entry["path"] for entry in neon_simulator.requests()] == ["/api/v2/projects"]


def test_a_test_moves_the_clock_30_days_on(neon_simulator):
    neon_simulator.advance_clock(30 * 86400)


def test_the_next_test_starts_at_the_real_time(neon_simulator):
    import time
    assert abs(neon_simulator.clock.time() - time.time()) < 60
'''


def user_repository(path):
    """The user's repository as the page has it: the scene, pytest.ini and the test file, each where the page
    puts it. Returns the test file's path (relative) and the names of its tests."""
    test_path, test_text = guide_test_file()
    for name, text in ((SCENE_PATH, guide_scene()), ("pytest.ini", page_block("ini", "# pytest.ini")),
                       (test_path, test_text)):
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    return test_path, re.findall(r"^def (test_\w+)\(", test_text, re.MULTILINE)


def test_the_pytest_fixture_as_the_guide_configures_it(package, tmp_path):
    """The page's pytest.ini, scene and test file, run by the virtualenv's pytest (the plugin found by its
    entry point: nothing here imports it), plus a test of neon_simulator_env beside the page's."""
    bin_dir = package[1]
    test_path, names = user_repository(tmp_path)
    (tmp_path / test_path).parent.joinpath("test_env.py").write_text(PLUGIN_EXTRA_TEST)
    ran = subprocess.run([os.path.join(bin_dir, "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                         cwd=str(tmp_path), env=clean_env(), timeout=120, capture_output=True, text=True, check=False)
    expected = len(names) + len(re.findall(r"^def test_", PLUGIN_EXTRA_TEST, re.MULTILINE))
    assert ran.returncode == 0 and re.search(r"^%d passed" % expected, ran.stdout, re.MULTILINE), (
        ran.stdout[-4000:] + ran.stderr)

    # a scene the plugin cannot read fails the tests that ask for the fixture, saying which setting
    broken = subprocess.run([os.path.join(bin_dir, "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "-o", "neon_simulator_scene=missing.yml",
                             str((tmp_path / test_path).parent / "test_env.py")],
                            cwd=str(tmp_path), env=clean_env(), timeout=120, capture_output=True, text=True, check=False)
    assert broken.returncode != 0 and "neon_simulator_scene: cannot read the scene file" in broken.stdout, broken.stdout


OTHER_COLLECTIONS_TEST = '''
def test_of_another_collection():
    raise AssertionError("a test of another installed collection ran")
'''


def test_plain_pytest_beside_the_installed_collection_runs_the_users_tests_only(package, tmp_path, collection_tarball):
    """The user's repository with the collection installed into collections/, as "Installing it" does (the
    tarball built from this work tree standing in for Galaxy), and the page's scene, pytest.ini and test file.
    ``pytest .`` (a path given: the configuration's testpaths is not used) runs the page's tests and nothing
    of the collection's own, which need its development set-up; plain ``pytest`` runs only the page's tests
    with another collection, whose tests would fail, installed beside it too (the page's testpaths)."""
    bin_dir = package[1]
    repo = tmp_path / "repo"
    repo.mkdir()
    test_path, names = user_repository(repo)
    run([tool("ansible-galaxy"), "collection", "install", collection_tarball, "-p", "collections"],
        cwd=str(repo), env=ansible_env(tmp_path), timeout=240)
    installed = repo / "collections" / "ansible_collections" / "neon" / "cloud"
    assert (installed / "tests" / "unit").is_dir() and (installed / "tests" / "conftest.py").is_file()  # shipped
    expected = sorted("%s::%s PASSED" % (test_path, name) for name in names)

    def users_tests_only(args):
        ran = subprocess.run([os.path.join(bin_dir, "pytest"), "-rA"] + args, cwd=str(repo), env=clean_env(),
                             timeout=180, capture_output=True, text=True, check=False)
        shown = "pytest %s exited %d:\n%s%s" % (" ".join(args), ran.returncode, ran.stdout[-6000:], ran.stderr[-2000:])
        reported = sorted(" ".join(reversed(line.split(" ", 1))) for line in ran.stdout.splitlines()
                          if re.match(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) ", line))
        assert ran.returncode == 0 and reported == expected, shown
        assert re.search(r"^=+ %d passed in " % len(names), ran.stdout, re.MULTILINE), shown

    users_tests_only(["."])
    other = repo / "collections" / "ansible_collections" / "other" / "thing" / "tests" / "unit"
    other.mkdir(parents=True)
    (other / "test_other.py").write_text(OTHER_COLLECTIONS_TEST)
    users_tests_only([])


# ---------------------------------------------------------------------------------------------- scene files

def check_guide_scene(block):
    """The page's scene file sets what the page says (test_documented_playbooks.py's check of the block)."""
    with Simulator(api_key="dev-key") as sim:
        made = apply_scene(sim, parse_scene(block.text, "neon-scene.yml"))
        assert made == {"users": 1, "organizations": 1, "projects": 1, "branches": 2, "keys": 1}, made
        assert_guide_scene(sim)


def assert_guide_scene(sim):
    headers = {"Authorization": "Bearer " + SCENE_KEY}

    def get(path, key_headers=None):
        return requests.get(sim.url + path, headers=key_headers or sim.headers, timeout=10)

    (org,) = [org for org in sim.organizations() if org["id"] == "org-acme-00000001"]
    (dana,) = [user for user in sim.users() if user["email"] == "dana@example.com"]
    assert org["name"] == "Acme" and org["projects"] == ["acme-shop"]
    assert {(member["user_id"], member["role"]) for member in org["members"]} == {
        (sim.state.shared.bootstrap_user_id, "admin"), (dana["id"], "member")}
    # the project-scoped key reaches its project only
    assert [project["id"] for project in get("/projects", headers).json()["projects"]] == ["acme-shop"]
    assert get("/projects/%s" % sim.demo_project_id, headers).status_code == 403
    project = get("/projects/acme-shop", headers).json()["project"]
    assert (project["name"], project["region_id"], project["org_id"]) == ("shop", "aws-eu-central-1", org["id"])
    branches = {branch["name"]: branch for branch in get("/projects/acme-shop/branches", headers).json()["branches"]}
    assert sorted(branches) == ["main", "preview", "staging"]
    assert branches["main"]["default"] and branches["staging"]["parent_id"] == branches["main"]["id"]
    assert branches["preview"]["parent_id"] == branches["staging"]["id"]
    assert {branch["current_state"] for branch in branches.values()} == {"ready"}
    computes = {ep["branch_id"]: ep for ep in get("/projects/acme-shop/endpoints", headers).json()["endpoints"]}
    assert set(computes) == {branches["main"]["id"], branches["staging"]["id"]}  # preview: compute: false
    assert computes[branches["staging"]["id"]]["current_state"] == "active"
    roles = get("/projects/acme-shop/branches/%s/roles" % branches["staging"]["id"], headers).json()["roles"]
    assert [role["name"] for role in roles] == ["neondb_owner"]
    # the operations that made them have ended: a change is taken at once (no 423)
    made = requests.post(sim.url + "/projects/acme-shop/branches", headers=headers, json={}, timeout=10)
    assert made.status_code == 201, made.text


def test_the_guides_scene_as_yaml_and_as_json(tmp_path):
    (tmp_path / "neon-scene.yml").write_text(guide_scene())
    (tmp_path / "neon-scene.json").write_text(json.dumps(yaml.safe_load(guide_scene())))
    for name in ("neon-scene.yml", "neon-scene.json"):
        with Simulator(api_key="dev-key") as sim:
            load_scene(sim, str(tmp_path / name))
            assert_guide_scene(sim)
            sim.reset()  # back to the seed, without the scene
            assert "acme-shop" not in sim.state.shared.projects and SCENE_KEY not in sim.state.shared.keys_by_secret


@pytest.mark.parametrize("scene, message", [
    ({"projects": [{"id": "p-1", "branches": [{"name": "dev", "colour": "red"}]}]},
     "projects[0].branches[0]: unknown fields colour (allowed: name, parent, protected, compute)"),
    ({"projects": [{"id": "p-1", "branches": [{"name": "b", "parent": "nope"}]}]},
     "projects[0].branches[0].parent: project p-1 has no branch 'nope' (a parent comes before its children)"),
    ({"organizations": [{"members": ["nobody@example.com"]}]},
     "organizations[0].members[0]: unknown user 'nobody@example.com' (\"bootstrap\", a user id, or a user's email)"),
    ({"organizations": [{"projects": [{"id": "p-1", "region_id": "mars-1"}]}]},
     "organizations[0].projects[0]: region_id: unknown region, one of"),
    ({"keys": [{"kind": "personal", "key": "two words"}]}, "keys[0].key: must be a non-empty string without whitespace"),
    ({"keys": [{"kind": "personal", "key": "dev-key"}]}, "keys[0].key: already the secret of another key"),
    ({"branches": []}, "scene: unknown sections branches (a scene has users, organizations, projects, keys)"),
    ({"projects": {"id": "p-1"}}, "scene: projects must be a list"),
])
def test_a_scene_the_simulator_cannot_set_is_refused_naming_the_entry(scene, message):
    with Simulator(api_key="dev-key") as sim:
        with pytest.raises(SceneError) as refused:
            apply_scene(sim, scene)
        assert str(refused.value).startswith(message), str(refused.value)


def test_a_yaml_scene_without_pyyaml_says_what_to_install(tmp_path, monkeypatch, capsys):
    (tmp_path / "scene.yml").write_text(guide_scene())
    monkeypatch.setitem(sys.modules, "yaml", None)  # import yaml fails
    assert simulator_main(["--scene", str(tmp_path / "scene.yml"), "--api-key", "dev-key"]) == 2
    error = capsys.readouterr().err
    assert "scene.yml is not JSON, and reading YAML needs PyYAML (pip install 'neon-simulator[yaml]'" in error
    (tmp_path / "scene.json").write_text("{\"projects\": [")
    assert simulator_main(["--scene", str(tmp_path / "scene.json"), "--api-key", "dev-key"]) == 2
    assert "--scene: scene.json: not valid JSON" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------- the page's other snippets

def test_the_sdk_snippet_of_the_guide():
    """Run by this Python, which has the SDK (requirements-test.txt), against a simulator of key dev-key."""
    snippet = page_block("python", "from neon_api import NeonAPI")
    with Simulator(api_key="dev-key") as sim:
        code = snippet.replace("http://127.0.0.1:8080/api/v2/", sim.url + "/")
        assert code != snippet
        printed = run([sys.executable, "-c", code], env=clean_env()).stdout
        listed = requests.get(sim.url + "/projects", headers=sim.headers, timeout=10).json()["projects"]
    assert printed.strip() == repr([project["name"] for project in listed])


def check_guide_workflow(block):
    """The page's workflow (test_documented_playbooks.py's check of the block): a push and pull request
    job that installs the simulator from the installed collection, starts it with the page's scene, runs
    the page's playbook twice with the scene's key, checks the log and always stops the simulator.
    test_the_ci_workflow_of_the_guide_runs_step_by_step runs it."""
    steps = block.data["jobs"]["playbooks"]["steps"]
    assert [step.get("uses") for step in steps[:2]] == ["actions/checkout@v4", "actions/setup-python@v5"], steps
    runs = [step["run"] for step in steps if "run" in step]
    assert "ansible-galaxy collection install neon.cloud" in runs[0]
    assert "pip install \"./collections/ansible_collections/neon/cloud/tests/simulator[yaml]\"" in runs[0]
    assert "neon-simulator --scene %s " % SCENE_PATH in runs[1]
    assert runs[2].count("ansible-playbook site.yml") == 2
    assert [step for step in steps if "run" in step][2]["env"] == {"NEON_API_KEY": SCENE_KEY}
    assert steps[-1] == {"name": "Stop the simulator", "if": "always()", "run": "kill \"$NEON_SIM_PID\""}


# ---------------------------------------------------------------------------------------------- the CI workflow, step by step

class Runner:
    """GitHub Actions' runner, as far as the page's workflow needs it: each ``run:`` in bash -eo pipefail
    in the workspace, with the job's environment (what earlier steps appended to $GITHUB_ENV) and the
    step's ``env``; a step with ``if: always()`` runs after a failure too, the others do not."""

    def __init__(self, tmp_path, bin_dir):
        self.workspace = tmp_path / "workspace"
        self.temp = tmp_path / "runner-temp"
        self.github_env = self.temp / "github-env"
        for folder in (self.workspace, self.temp, tmp_path / "home"):
            folder.mkdir()
        self.github_env.write_text("")
        self.env = clean_env(PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""), HOME=tmp_path / "home",
                             CI="true", GITHUB_ACTIONS="true", GITHUB_WORKSPACE=self.workspace,
                             GITHUB_ENV=self.github_env, RUNNER_TEMP=self.temp)
        self.groups = []  # the process group of each step: what they left running is stopped at the end
        self.log = []

    def job_env(self):
        env = dict(self.env)
        for line in self.github_env.read_text().splitlines():
            if "=" in line:
                name, value = line.split("=", 1)
                env[name] = value
        return env

    def run(self, number, step, command):
        script = self.temp / ("step-%d.sh" % number)
        script.write_text(command)
        output = self.temp / ("step-%d.out" % number)
        env = self.job_env()
        env.update({name: str(value) for name, value in (step.get("env") or {}).items()})
        with open(str(output), "w", encoding="utf-8") as sink:
            process = subprocess.Popen(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                                       cwd=str(self.workspace), env=env, stdout=sink, stderr=subprocess.STDOUT,
                                       start_new_session=True)
        self.groups.append(process.pid)
        try:
            code = process.wait(timeout=240)
        except subprocess.TimeoutExpired:
            code = "timed out"
        text = output.read_text()
        title = step.get("name", command.splitlines()[0])
        self.log.append("--- step %d: %s (exit %s)\n%s" % (number, title, code, text[-3000:]))
        return code, text

    def stop_what_is_left(self):
        for group in self.groups:
            try:
                os.killpg(group, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                continue


def test_the_ci_workflow_of_the_guide_runs_step_by_step(tmp_path, collection_tarball):
    workflow = guide_workflow()
    steps = workflow["jobs"]["playbooks"]["steps"]
    # actions/setup-python: a new virtualenv, first on PATH
    runner = Runner(tmp_path, new_venv(tmp_path / "python"))
    # actions/checkout: the repository holds the page's playbook and scene
    (runner.workspace / "tests").mkdir()
    (runner.workspace / "site.yml").write_text(guide_playbook())
    (runner.workspace / SCENE_PATH).write_text(guide_scene())
    # Galaxy: the collection built from this work tree
    galaxy = "ansible-galaxy collection install neon.cloud"
    failed, outputs = None, {}
    try:
        for number, step in enumerate(steps):
            if "uses" in step:
                assert step["uses"].split("@")[0] in ("actions/checkout", "actions/setup-python"), step
                continue
            if failed is not None and step.get("if") != "always()":
                continue
            command = step["run"]
            if galaxy in command:
                assert command.count(galaxy) == 1
                command = command.replace(galaxy, "ansible-galaxy collection install %s" % collection_tarball)
            code, outputs[step["name"]] = runner.run(number, step, command)
            if code != 0 and failed is None:
                failed = step["name"]
    finally:
        runner.stop_what_is_left()
    assert failed is None, "the step %r failed:\n%s" % (failed, "\n".join(runner.log))

    runs = outputs["Run the playbook twice with the scene's project-scoped key"]
    recaps = re.findall(r"^localhost\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=0\s+failed=0", runs, re.MULTILINE)
    assert recaps == [("3", "3"), ("3", "0")], runs[-3000:]  # created, then found as asked
    checked = outputs["The second run sent no change"]
    assert re.search(r"^\d+ requests, changes: \[\]$", checked, re.MULTILINE), checked
    # the stop step stopped it: the simulator's pid is gone
    pid = int(runner.job_env()["NEON_SIM_PID"])
    deadline = time.monotonic() + STOP_TIMEOUT
    while time.monotonic() < deadline and os.path.exists("/proc/%d" % pid) and not _zombie(pid):
        time.sleep(0.1)
    assert not os.path.exists("/proc/%d" % pid) or _zombie(pid), "the simulator still runs after the stop step"


def _zombie(pid):
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8") as handle:
            return handle.read().split(") ", 1)[1].startswith("Z")
    except (OSError, IndexError):
        return True
