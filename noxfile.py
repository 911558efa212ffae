# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The test sessions of the neon.cloud collection: `nox -l` lists them, `nox -s NAME` runs one.

`make test` runs every default session, two at a time (`nox --parallel 2`); `make demo` runs
the `demo` session. Sessions from antsibull-nox (configured in antsibull-nox.toml): lint
(codeqa, yamllint, antsibull-nox-config), docs-check, extra-checks, ansible-lint. Our own
sessions, below:

- sanity-X.Y, units-X.Y, integration-X.Y: ansible-test for each supported ansible-core, with the
  Python it needs, without containers (antsibull-nox's own ansible-test sessions need docker).
  They run on a copy of the collection below .../ansible_collections/neon/cloud, which
  antsibull-nox's prepare_collections makes; integration runs against a fresh API simulator.
- pytest: the plain-pytest suites (tests/simulator/tests, tests/ecosystem, tests/reliability;
  see pyproject.toml).
- eda: a shipped rulebook run by ansible-rulebook (pinned; Java 17) against the simulator (tests/eda).
- docs: the HTML documentation site (antsibull-docs + Sphinx), warnings are errors.
- galaxy-import: galaxy-importer on the built tarball; any warning fails.
- simulator-wheel: the API simulator's wheel (tests/simulator), built, installed and started.
- demo, simulator, bench: the tour, the simulator in the foreground, the benchmark (not run
  by `make test`).
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import nox

import antsibull_nox

antsibull_nox.load_antsibull_nox_toml()

ROOT = Path(__file__).resolve().parent
# What the sessions use lives in scripts/nox_support/, one concern per module (its __init__.py
# lists them). nox loads this file by its path, so neither this directory nor scripts/ is on
# sys.path (nox's own bin directory is): scripts/ goes first, wherever nox is run from.
sys.path.insert(0, str(ROOT / "scripts"))

from nox_support.ansible_test import ansible_test_args, run_integration, run_sanity  # noqa: E402
from nox_support.collection import collection_copy  # noqa: E402
from nox_support.docs_site import make_site_offline  # noqa: E402
from nox_support.homes import empty_home, sanity_home  # noqa: E402
from nox_support.installs import core_requirement, install_test_tools  # noqa: E402
from nox_support.interpreters import use_real_interpreters  # noqa: E402
from nox_support.pip_bootstrap import uv_bootstrap  # noqa: E402
from nox_support.simulator import running_simulator  # noqa: E402
from nox_support.simulator_wheel import DEFAULT_WHEEL_DIR, build_simulator_wheel, install_wheel, smoke_test  # noqa: E402

# Each supported ansible-core, oldest first, and the Python its ansible-test runs on here.
ANSIBLE_CORE_PYTHON = {"2.17": "3.11", "2.18": "3.11", "2.19": "3.11", "2.20": "3.12", "2.21": "3.13"}
# Integration: every target on the oldest and the newest ansible-core (one of each templating
# engine), the targets whose aliases name EVERY_CORE_ALIAS on every one; `nox -s integration-all`
# runs every target on every core (CONTRIBUTING.md, "Integration targets and ansible-core").
FULL_INTEGRATION_CORES = (list(ANSIBLE_CORE_PYTHON)[0], list(ANSIBLE_CORE_PYTHON)[-1])  # oldest first
EVERY_CORE_ALIAS = "every_core"
# The repository's own Python test suites, which the pytest session runs (on one core, MAIN_CORE)
# and the integration sessions start (the simulator): ansible-test sanity lints them on the newest
# core only (its pylint is the strictest, its Python the newest); on the others, sanity covers
# what each core runs: plugins/, tests/unit and tests/integration, and everything that is not Python.
# (pylint of these 14,000 lines took 23 of 61 s per core.)
TEST_SUITES = ("tests/simulator/", "tests/reliability/", "tests/ecosystem/", "tests/eda/")
FULL_SANITY_CORE = list(ANSIBLE_CORE_PYTHON)[-1]
# The ansible-core of the pytest, docs and demo sessions (the newest one Python 3.11 runs).
MAIN_CORE = "2.19"
MAIN_PYTHON = ANSIBLE_CORE_PYTHON[MAIN_CORE]
# The sanity test that sanity-MAIN_CORE runs from an empty home (see _sanity).
FIRST_RUN_SANITY_TEST = "pep8"
PYTEST_WORKERS = 3
# The file of the reliability report test (marker `report`), which the pytest session runs last, alone.
REPORT_TEST = "tests/reliability/test_report.py"

nox.options.error_on_missing_interpreters = True
# Session virtualenvs made and filled by uv (requirements-nox.txt), which installs a session's
# packages in about a second where pip takes 7-15; never a Python of uv's own download (only the
# package registries are reachable here): the interpreters are the ones found on PATH.
nox.options.default_venv_backend = "uv"
os.environ.setdefault("UV_PYTHON_DOWNLOADS", "never")
# Python keeps what it compiles (__pycache__, ignored by git and by galaxy.yml's build_ignore) in the
# sessions, whatever the caller's environment says: uv installs no .pyc, and with PYTHONDONTWRITEBYTECODE
# set (these machines set it) every ansible-playbook, ansible-test and pytest process compiled
# ansible-core, requests and the collection from source again. Two documented-playbook tests took
# 20.5 CPU-s so against 14.8 with the bytecode kept (28 % less, measured side by side); the code run
# is the same. (AnsiballZ's own modules, imported from the zip, are compiled in every run either way.)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
# What `nox` (and `make test`) runs, longest first (measured, see CONTRIBUTING.md, "Where the
# minutes go"), so that two at a time (--parallel 2) end close together. pytest, the longest, goes
# first, beside the two full integration sessions in turn: an integration session leaves a fifth of a
# core idle while its playbooks wait (0.80-0.83 core in use when the two ran side by side), which
# pytest's workers take up; two integration sessions together left it idle. demo, simulator, bench
# and integration-all are run by name only.
nox.options.sessions = (
    ["pytest"] + ["integration-%s" % core for core in FULL_INTEGRATION_CORES[::-1]]
    + ["sanity-%s" % core for core in list(ANSIBLE_CORE_PYTHON)[::-1]]
    + ["integration-%s" % core for core in list(ANSIBLE_CORE_PYTHON)[::-1] if core not in FULL_INTEGRATION_CORES]
    + ["units-%s" % core for core in list(ANSIBLE_CORE_PYTHON)[::-1]]
    + ["eda", "docs", "galaxy-import", "ansible-lint", "docs-check", "lint", "extra-checks", "simulator-wheel"]
)

# The real pythonX.Y of pyenv first on PATH (nox would otherwise pick pyenv's failing shims).
use_real_interpreters(ANSIBLE_CORE_PYTHON.values())


def _sanity(core, python):
    def sanity(session):
        """ansible-test sanity, without ignore files (tests/sanity/ignore-*.txt is refused)"""
        ignore_files = sorted(glob.glob(str(ROOT / "tests" / "sanity" / "ignore-*.txt")))
        if ignore_files:
            session.error("sanity ignore files are not allowed here, fix the code instead: %s" % ignore_files)
        install_test_tools(session, core)
        collection = collection_copy(session, core)
        # A home kept between runs, with this core's virtualenvs of earlier runs. ansible-test runs
        # pip in them with an environment of its own (PATH, HOME, LC_ALL: no PIP_CACHE_DIR reaches
        # it), so pip's cache is the kept home's; pip itself is put into each new virtualenv by uv
        # (uv_bootstrap), from the caller's uv cache.
        uv = uv_bootstrap()
        scope = [] if core == FULL_SANITY_CORE or session.posargs else [
            option for suite in TEST_SUITES for option in ("--exclude", suite)]
        if core != MAIN_CORE or session.posargs:
            run_sanity(session, collection, python, sanity_home(core), *scope, uv=uv)
            return
        # One test from an empty home, as on a machine that never ran ansible-test: its virtualenv,
        # ~/.ansible/test and the pip bootstrap made from nothing (by pip, as without uv), the wheels
        # downloaded afresh. The other tests from the kept home; none runs twice.
        run_sanity(session, collection, python, empty_home(session), "--test", FIRST_RUN_SANITY_TEST, *scope)
        run_sanity(session, collection, python, sanity_home(core), "--skip-test", FIRST_RUN_SANITY_TEST, *scope, uv=uv)
    return sanity


def _units(core, python):
    def units(session):
        """ansible-test units --local: tests/unit (module_utils, the action group)"""
        install_test_tools(session, core)
        collection = collection_copy(session, core)
        with session.chdir(collection):
            # One pytest worker: `make test` runs two sessions at once on two cores already, and a
            # second worker (ansible-test's default, -n auto) cost 11 s more CPU for no shorter run
            # (18 s either way, measured with units-2.19 alone).
            session.run("ansible-test", "units", "--local", "--num-workers", "1", *ansible_test_args(session, python),
                        env={"HOME": str(empty_home(session))})
    return units


def _integration(core, python):
    # ansible-test names the group of an alias with a slash after it
    targets = () if core in FULL_INTEGRATION_CORES else (EVERY_CORE_ALIAS + "/",)

    def integration(session):
        """ansible-test integration --local against a fresh API simulator: tests/integration"""
        run_integration(session, core, python, targets)
    integration.__doc__ += (": every target" if not targets
                            else ": the %s group (targets that depend on ansible-core)" % EVERY_CORE_ALIAS)
    return integration


for _core, _python in ANSIBLE_CORE_PYTHON.items():
    for _kind, _factory in (("sanity", _sanity), ("units", _units), ("integration", _integration)):
        _session = _factory(_core, _python)
        _session.__doc__ = "%s; ansible-core %s on Python %s" % (_session.__doc__, _core, _python)
        nox.session(name="%s-%s" % (_kind, _core), python=_python, tags=[_kind, "ansible-core-" + _core],
                    allow_parallel=True)(_session)


@nox.session(name="integration-all", default=False)
@nox.parametrize("python,core", [(python, core) for core, python in ANSIBLE_CORE_PYTHON.items()],
                 ids=list(ANSIBLE_CORE_PYTHON))
def integration_all(session, core):
    """Every integration target on every supported ansible-core, one session each (before a release)"""
    run_integration(session, core, session.python)


@nox.session(python=MAIN_PYTHON, allow_parallel=True)
def pytest(session):
    """The plain-pytest suites: tests/simulator/tests, tests/ecosystem, tests/reliability (one pytest session)"""
    install_test_tools(session, MAIN_CORE, "requirements-test.txt")
    env = {"HOME": str(empty_home(session))}
    if session.posargs:
        session.run("python", "-m", "pytest", *session.posargs, env=env)
        return
    # Three pytest-xdist workers: the suite is mostly ansible-playbook runs, CPU-bound (1.7 of the 2 cores
    # when it runs alone), with waits between (timeouts, slow answers, operations) that a third fills.
    # The report test then runs alone, on the results the workers wrote (tests/reliability/conftest.py),
    # collected from its own file (the whole suite's collection, to deselect all but it, took 10 CPU-s;
    # its file, 2).
    session.run("python", "-m", "pytest", "-n", str(PYTEST_WORKERS), "-m", "not report", "--durations=30", env=env)
    session.run("python", "-m", "pytest", "-m", "report", REPORT_TEST, env=env)


# The Event-Driven Ansible engine the eda session runs the shipped rulebooks with (it needs a Java 17 runtime).
ANSIBLE_RULEBOOK = "ansible-rulebook==1.3.2"


@nox.session(python=MAIN_PYTHON)
def eda(session):
    """tests/eda: a shipped rulebook run by the real engine (ansible-rulebook, pinned, with Java 17) against the
    simulator; JAVA_HOME from the environment, else the first Java 17 under /usr/lib/jvm."""
    install_test_tools(session, MAIN_CORE)
    session.install(ANSIBLE_RULEBOOK)
    java_home = os.environ.get("JAVA_HOME") or next(iter(sorted(glob.glob("/usr/lib/jvm/*17*"))), None)
    if not java_home or not os.path.exists(os.path.join(java_home, "bin", "java")):
        session.error("ansible-rulebook needs a Java 17 runtime: set JAVA_HOME (none under /usr/lib/jvm/*17*)")
    env = {"HOME": str(empty_home(session)), "JAVA_HOME": java_home}
    session.run("python", "-m", "pytest", *(session.posargs or ["tests/eda"]), env=env)


@nox.session(python=MAIN_PYTHON)
def docs(session):
    """The documentation site (HTML): the module pages from the plugins' own documentation and
    the guide from docs/docsite/rst, built with antsibull-docs and Sphinx, offline, warnings as
    errors. Output: docs/docsite/build/html/index.html."""
    session.install(core_requirement(MAIN_CORE), "antsibull-docs>=2.28,<3")
    tmp = Path(session.create_tmp()).resolve()
    shutil.rmtree(tmp, ignore_errors=True)  # Sphinx builds incrementally, and would skip pages it thinks unchanged
    site = tmp / "site"
    site.mkdir(mode=0o700, parents=True)  # sphinx-init wants a directory only its owner may write
    namespace = tmp / "collections" / "ansible_collections" / "neon"
    namespace.mkdir(parents=True)
    (namespace / "cloud").symlink_to(ROOT)
    env = {"ANSIBLE_COLLECTIONS_PATH": str(tmp / "collections"), "ANSIBLE_COLLECTIONS_SCAN_SYS_PATH": "false"}
    session.run("antsibull-docs", "sphinx-init", "--use-current", "--fail-on-error", "--squash-hierarchy",
                "--project", "neon.cloud", "--copyright", "neon.cloud contributors", "--title", "neon.cloud",
                "--dest-dir", str(site), "neon.cloud", env=env, silent=True)
    session.install("-r", str(site / "requirements.txt"))
    # Offline, Sphinx cannot read the inventories of Ansible's own docs: scripts/docs/ansible_refs.py
    # links exactly the labels of those docs that ours use, and intersphinx is left out.
    make_site_offline(site)
    session.run("bash", str(site / "build.sh"), env=env, external=True)
    output = ROOT / "docs" / "docsite" / "build" / "html"
    shutil.rmtree(output, ignore_errors=True)
    shutil.copytree(site / "build" / "html", output)
    session.log("the documentation site is in %s" % (output / "index.html"))


@nox.session(name="galaxy-import", python=MAIN_PYTHON)
def galaxy_import(session):
    """Build the collection and run galaxy-importer on the tarball, as Galaxy does on upload
    (tests/galaxy-importer.cfg: ansible-test and ansible-lint off, which other sessions run).
    Any warning or error fails."""
    # antsibull-nox's build-import-check only reports the importer's warnings; this session fails on them.
    session.install(core_requirement(MAIN_CORE), "galaxy-importer")
    collection = collection_copy(session, MAIN_CORE)
    tmp = Path(tempfile.mkdtemp(prefix="neon-galaxy-import-"))
    try:
        session.run("ansible-galaxy", "collection", "build", "--output-path", str(tmp), str(collection), silent=True)
        tarball = next(tmp.glob("*.tar.gz"))
        with session.chdir(tmp):  # the importer writes importer_result.json where it runs
            output = session.run("python", "-m", "galaxy_importer.main", str(tarball), silent=True, success_codes=[0, 1],
                                 env={"GALAXY_IMPORTER_CONFIG": str(ROOT / "tests" / "galaxy-importer.cfg")})
        result = json.loads((tmp / "importer_result.json").read_text()) if (tmp / "importer_result.json").exists() else {}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(output, end="")
    lines = output.splitlines()
    problems = [line for line in lines if line.startswith(("WARNING", "ERROR", "CRITICAL"))]
    if not lines or lines[-1] != "Importer processing completed successfully":
        problems.append("galaxy-importer did not complete the import")
    for content in result.get("docs_blob", {}).get("contents", []):
        if content.get("content_type") == "module" and not (content.get("doc_strings") or {}).get("doc"):
            problems.append("module %s: galaxy-importer found no documentation" % content.get("content_name"))
    if problems:
        session.error("galaxy-importer: %d problem(s):\n%s" % (len(problems), "\n".join(problems)))
    session.log("galaxy-importer: no warning, no error")


# The demo's inventory file: every project the simulator's key reaches, grouped by region.
DEMO_INVENTORY = """plugin: neon.cloud.projects
keyed_groups:
  - key: neon_region_id
    prefix: region
"""


@nox.session(python=MAIN_PYTHON, default=False)
def demo(session):
    """The tour: build and install the collection as a user would, run playbooks/demo.yml
    against a fresh simulator."""
    install_test_tools(session, MAIN_CORE, "requirements-test.txt")
    tmp = Path(session.create_tmp()).resolve()
    dist, collections = tmp / "dist", tmp / "collections"
    shutil.rmtree(dist, ignore_errors=True)
    session.run("ansible-galaxy", "collection", "build", "--force", "--output-path", str(dist), str(ROOT), silent=True)
    tarball = next(dist.glob("*.tar.gz"))
    session.run("ansible-galaxy", "collection", "install", "--force", "--offline", "-p", str(collections),
                str(tarball), silent=True)
    env = {
        "ANSIBLE_COLLECTIONS_PATH": str(collections),
        # interpreter discovery on localhost may pick a Python without requests
        "ANSIBLE_PYTHON_INTERPRETER": shutil.which("python", path=os.pathsep.join(session.bin_paths)),
        "ANSIBLE_LOCALHOST_WARNING": "false",
        "ANSIBLE_INVENTORY_UNPARSED_WARNING": "false",
    }
    inventory = tmp / "demo.neon.yml"
    inventory.write_text(DEMO_INVENTORY)
    # the pull request's play runs against a second simulator, whose computes are real PostgreSQL servers
    # (--postgres, the pgserver wheel of requirements-test.txt): its migration runs with that server's psql
    with running_simulator(session) as simulator, running_simulator(session, postgres=True) as real:
        env.update(simulator)
        env.update(NEON_PG_API_URL=real["NEON_API_URL"], NEON_PG_API_KEY=real["NEON_API_KEY"],
                   NEON_PG_PSQL=os.path.join(real["NEON_SIM_PG_BIN"], "psql"))
        session.run("ansible-playbook", str(ROOT / "playbooks" / "demo.yml"), *session.posargs, env=env)
        session.log("The inventory of the account (neon.cloud.projects), from %s:\n%s" % (inventory, DEMO_INVENTORY))
        session.run("ansible-inventory", "-i", str(inventory), "--graph", env=env)
        session.run("ansible-playbook", "-i", str(inventory), str(ROOT / "playbooks" / "demo_inventory.yml"), env=env)


@nox.session(python=MAIN_PYTHON, default=False)
def simulator(session):
    """The API simulator in the foreground (port 8080, key dev-key; pass other options after --)."""
    install_test_tools(session, MAIN_CORE, "requirements-test.txt")
    args = list(session.posargs) or ["--port", "8080", "--api-key", "dev-key"]
    session.run("python", "-m", "neon_simulator", *args, env={"PYTHONPATH": str(ROOT / "tests" / "simulator")})


@nox.session(name="simulator-wheel", python=list(ANSIBLE_CORE_PYTHON.values())[-1])
def simulator_wheel(session):
    """The API simulator as a package (tests/simulator/pyproject.toml): its wheel built into .build/simulator/
    (or the folder given after --), installed into this new virtualenv, then `neon-simulator --help`, a start,
    GET /projects with the key it printed, a stop; on the newest Python (the pytest session runs MAIN_PYTHON)."""
    wheel = build_simulator_wheel(session, Path(session.posargs[0]).resolve() if session.posargs else DEFAULT_WHEEL_DIR)
    install_wheel(session, wheel)
    smoke_test(session, wheel)
    session.log("the wheel is %s" % wheel)


@nox.session(python=MAIN_PYTHON, default=False)
def bench(session):
    """benchmarks/run.py: requests and time spent, measured (see the performance guide page)."""
    install_test_tools(session, MAIN_CORE, "requirements-test.txt")
    session.run("python", str(ROOT / "benchmarks" / "run.py"), *session.posargs)  # starts its own simulator
