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
- docs: the HTML documentation site (antsibull-docs + Sphinx), warnings are errors.
- galaxy-import: galaxy-importer on the built tarball; any warning fails.
- demo, simulator, bench: the tour, the simulator in the foreground, the benchmark (not run
  by `make test`).
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import json
import os
import pwd
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nox

import antsibull_nox
from antsibull_nox.sessions import prepare_collections

antsibull_nox.load_antsibull_nox_toml()

ROOT = Path(__file__).resolve().parent
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
TEST_SUITES = ("tests/simulator/", "tests/reliability/", "tests/ecosystem/")
FULL_SANITY_CORE = list(ANSIBLE_CORE_PYTHON)[-1]
# The ansible-core of the pytest, docs and demo sessions (the newest one Python 3.11 runs).
MAIN_CORE = "2.19"
MAIN_PYTHON = ANSIBLE_CORE_PYTHON[MAIN_CORE]
# The sanity test that sanity-MAIN_CORE runs from an empty home (see _sanity).
FIRST_RUN_SANITY_TEST = "pep8"
SIMULATOR_START_TIMEOUT = 30.0
INTEGRATION_OPERATION_PACE = 0.25
PYTEST_WORKERS = 3
SIMULATOR_STOP_TIMEOUT = 5.0
LOOPBACK_URL = re.compile(r"^http://(127\.0\.0\.1|localhost|\[::1\]):\d+/")
# What ansible-test must not take for collection content (sanity would lint it as such).
REPOSITORY_TOOLING = (".ci", "benchmarks", "scripts", "noxfile.py", "Makefile")

nox.options.error_on_missing_interpreters = True
# Session virtualenvs made and filled by uv (requirements-nox.txt), which installs a session's
# packages in about a second where pip takes 7-15; never a Python of uv's own download (only the
# package registries are reachable here): the interpreters are the ones found on PATH.
nox.options.default_venv_backend = "uv"
os.environ.setdefault("UV_PYTHON_DOWNLOADS", "never")
# What `nox` (and `make test`) runs, longest first (measured, see CONTRIBUTING.md, "Where the
# minutes go"), so that two at a time (--parallel 2) end close together. demo, simulator, bench and
# integration-all are run by name only.
nox.options.sessions = (
    ["integration-%s" % core for core in FULL_INTEGRATION_CORES[::-1]] + ["pytest"]
    + ["sanity-%s" % core for core in list(ANSIBLE_CORE_PYTHON)[::-1]]
    + ["integration-%s" % core for core in list(ANSIBLE_CORE_PYTHON)[::-1] if core not in FULL_INTEGRATION_CORES]
    + ["units-%s" % core for core in list(ANSIBLE_CORE_PYTHON)[::-1]]
    + ["docs", "galaxy-import", "ansible-lint", "docs-check", "lint", "extra-checks"]
)


def _use_real_interpreters():
    """Put the real pythonX.Y of pyenv first on PATH: its shims of versions that are not the
    global one exist but fail when run, and nox would pick them."""
    found = []
    for version in sorted(set(ANSIBLE_CORE_PYTHON.values())):
        for pyenv_root in _pyenv_roots():
            bins = sorted(glob.glob(os.path.join(pyenv_root, "versions", version + ".*", "bin")))
            if bins:
                found.append(bins[-1])
                break
    if found:
        os.environ["PATH"] = os.pathsep.join(found + [os.environ.get("PATH", "")])


def _pyenv_roots():
    """Where pyenv may keep its versions: $PYENV_ROOT, what `pyenv root` says, and ~/.pyenv of
    both $HOME and the password database (HOME may be another directory, as in CI jobs)."""
    roots = [os.environ.get("PYENV_ROOT")]
    if shutil.which("pyenv"):
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            roots.append(subprocess.run(["pyenv", "root"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        universal_newlines=True, timeout=10, check=False).stdout.strip())
    roots.append(os.path.expanduser("~/.pyenv"))
    with contextlib.suppress(KeyError):
        roots.append(os.path.join(pwd.getpwuid(os.getuid()).pw_dir, ".pyenv"))
    return [root for root in dict.fromkeys(roots) if root]


_use_real_interpreters()


def core_requirement(core):
    major, minor = core.split(".")
    return "ansible-core>=%s.0,<%s.%d" % (core, major, int(minor) + 1)


def install_test_tools(session, core, requirements="tests/requirements.txt"):
    """ansible-core ``core`` and what our tests need beside it."""
    session.install(core_requirement(core), "-r", str(ROOT / requirements))


def collection_copy(session, core):
    """A fresh copy of the work tree (git's files, untracked ones included) below
    .../ansible_collections/neon/cloud, where ansible-test and ansible find the collection,
    without the repository's tooling (not collection content: galaxy.yml leaves it out too)."""
    prepared = prepare_collections(session, ansible_core_version=core, install_in_site_packages=False,
                                   install_out_of_tree=True)
    if prepared is None:
        session.skip("no virtualenv to run ansible-test in")
    for tooling in REPOSITORY_TOOLING:
        path = prepared.current_path / tooling
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    return prepared.current_path


def install_get_pip_standin(session, home, uv=None):
    """ansible-test bootstraps pip into each venv it makes with a get-pip.py that it downloads
    from a host our machines cannot reach. It first looks in ~/.ansible/test/cache/, so our
    offline stand-in (scripts/get_pip_standin.py, see there) goes there under each name this
    ansible-test asks for."""
    source = session.run("python", "-c", "import ansible_test, os; print(os.path.dirname(ansible_test.__file__))",
                         silent=True).strip().splitlines()[-1]
    requirements = Path(source, "_internal", "python_requirements.py").read_text(encoding="utf-8")
    versions = set(re.findall(r"pip=['\"]([0-9][0-9.]*)['\"]|'pip': *'([0-9][0-9.]*)'", requirements))
    versions = {version for pair in versions for version in pair if version}
    if not versions:
        session.error("found no pip version in %s: the get-pip stand-in cannot be installed" % source)
    cache = home / ".ansible" / "test" / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    text = (ROOT / "scripts" / "get_pip_standin.py").read_text(encoding="utf-8")
    if uv:
        # ansible-test runs the stand-in with an environment of its own (PATH, HOME, LC_ALL), so what
        # it needs to find uv is written into it.
        text = text.replace("UV = None\n", "UV = %r\n" % (uv,), 1)
    for version in sorted(versions):
        destination = cache / ("get_pip_%s.py" % version.replace(".", "_"))
        if destination.exists() and "Offline stand-in for ansible-test" not in destination.read_text(encoding="utf-8"):
            continue  # a real get-pip.py: keep it
        # A whole file or none: an ansible-test of another session may read it at any time.
        partial = destination.with_name(".%s.%d" % (destination.name, os.getpid()))
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, destination)


UV_NETWORK_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR", "UV_NATIVE_TLS", "UV_SYSTEM_CERTS", "UV_INDEX_URL",
                        "UV_DEFAULT_INDEX", "UV_EXTRA_INDEX_URL", "UV_FIND_LINKS")


def uv_bootstrap():
    """What lets the get-pip stand-in bootstrap pip into ansible-test's sanity virtualenvs with uv
    (scripts/get_pip_standin.py): the uv installed beside nox (requirements-nox.txt) and the
    caller's uv cache, which the sessions' own installs fill too; None without a uv."""
    uv = shutil.which("uv", path=os.path.dirname(sys.executable)) or shutil.which("uv")
    if not uv:
        return None
    # ansible-test runs the stand-in without our environment: what uv needs to reach the registry
    # as the sessions' installs do (a CA bundle, an index) goes with it; never proxies (a proxy URL
    # may carry a password; without a direct way the stand-in falls back to pip).
    network = dict((name, value) for name, value in os.environ.items() if name in UV_NETWORK_VARIABLES)
    return dict(binary=os.path.abspath(uv), cache=os.environ.get("UV_CACHE_DIR") or str(caller_cache_dir() / "uv"),
                env=network)


def empty_home(session):
    """A new, empty home directory of this session's own, for the tools it runs (HOME).

    Whatever a tool keeps in a home directory (ansible-test its SSH key pair in ~/.ansible/test,
    ansible its ~/.ansible/tmp and ~/.ansible_async) then belongs to one session of one run: two
    sessions running in parallel never meet there, and every run proves the session passes on a
    machine that has never run it, whatever the caller's HOME is. Only the sanity sessions keep
    a home between runs, for ansible-test's virtualenv cache (see sanity_home)."""
    home = Path(session.create_tmp()).resolve() / "home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(mode=0o700, parents=True)
    return home


@contextlib.contextmanager
def exclusive(path):
    """Hold a lock on ``path`` (other sessions running in parallel wait for it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def running_simulator(session, operation_pace=1.0):
    """The API simulator (tests/simulator) on 127.0.0.1 with a random key, stopped afterwards;
    ``operation_pace`` scales how long the operations API calls start take (1: 1-2 s each).

    Yields the variables it announces: NEON_API_URL, NEON_API_KEY, NEON_SIM_DEMO_PROJECT,
    NEON_SIM_CONTROL_URL, NEON_SIM_ORG_ID.
    """
    tmp = Path(session.create_tmp()).resolve()
    url_file = tmp / "simulator.url"
    log_path = tmp / "simulator.log"
    url_file.unlink(missing_ok=True)
    key = secrets.token_hex(32)  # 64 characters of [a-z0-9], like a real key
    python = shutil.which("python", path=os.pathsep.join(session.bin_paths))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "tests" / "simulator"))
    with open(log_path, "w") as log:
        process = subprocess.Popen([python, "-m", "neon_simulator", "--port", "0", "--api-key", key,
                                    "--url-file", str(url_file), "--operation-pace", str(operation_pace)],
                                   stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + SIMULATOR_START_TIMEOUT
        while not (url_file.exists() and url_file.read_text().strip()):
            if process.poll() is not None or time.monotonic() > deadline:
                session.error("the simulator did not start:\n" + log_path.read_text())
            time.sleep(0.1)
        announced = dict(re.findall(r"^(NEON_[A-Z_]+)=(\S+)$", log_path.read_text(), re.MULTILINE))
        announced.update(NEON_API_URL=url_file.read_text().strip(), NEON_API_KEY=key)
        if not LOOPBACK_URL.match(announced["NEON_API_URL"] + "/"):
            session.error("the simulator does not listen on loopback: %s" % announced["NEON_API_URL"])
        session.log("simulator up at %s" % announced["NEON_API_URL"])
        yield announced
    finally:
        process.terminate()
        try:
            process.wait(timeout=SIMULATOR_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=SIMULATOR_STOP_TIMEOUT)
        if process.returncode not in (0, -15):
            session.warn("the simulator exited with %s:\n%s" % (process.returncode, log_path.read_text()[-3000:]))


def write_integration_config(collection, simulator, home):
    """tests/integration/integration_config.yml of the copy: the variables the targets read."""
    values = {
        # Where `async` tasks leave their results for async_status. The default, ~/.ansible_async,
        # is read as ~root (the password database's home of the remote user) by async_status but
        # written below $HOME by the job itself: two places whenever HOME is another directory.
        "ansible_async_dir": str(home / ".ansible_async"),
        # The targets run about 450 module tasks on the local connection: pipelining sends each
        # module on the interpreter's stdin instead of through temporary files (with gather_facts/no
        # in the aliases, integration-2.19 went from 225 to 189 s of CPU).
        "ansible_pipelining": True,
        "neon_api_url": simulator["NEON_API_URL"],
        "neon_api_key": simulator["NEON_API_KEY"],
        "neon_demo_project_id": simulator.get("NEON_SIM_DEMO_PROJECT", ""),
        "neon_sim_control_url": simulator.get("NEON_SIM_CONTROL_URL", ""),
    }
    lines = ["---", "# written by noxfile.py for one simulator run"]
    lines += ["%s: %s" % (name, json.dumps(value)) for name, value in values.items()]  # JSON strings are YAML
    (collection / "tests" / "integration" / "integration_config.yml").write_text("\n".join(lines) + "\n")


def ansible_test_args(session, python, targets=()):
    """ansible-test's options, then what follows `--` on nox's command line, or else ``targets``."""
    return ["--python", python, "--python-interpreter", shutil.which("python", path=os.pathsep.join(session.bin_paths)),
            "--color", "no"] + (list(session.posargs) or list(targets))


def run_sanity(session, collection, python, home, *args, uv=None):
    """ansible-test sanity on ``collection`` with ``home`` as HOME: ansible-test keeps the virtualenvs
    of its sanity tests and the pip bootstrap script below ~/.ansible/test there, without a lock of
    its own, so the sessions that share a home (the same core's, of two runs at once) take turns
    (the lock file lives there too)."""
    with exclusive(home / ".ansible" / "test" / "neon-cloud-sanity.lock"):
        install_get_pip_standin(session, home, uv)
        with session.chdir(collection):
            session.run("ansible-test", "sanity", *ansible_test_args(session, python), *args,
                        env={"HOME": str(home)})


def caller_cache_dir():
    """The caller's cache directory (XDG_CACHE_HOME, else ~/.cache)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def sanity_home(core):
    """The home of ``core``'s sanity session, kept between runs for ansible-test's virtualenvs of the
    sanity tests (building them takes 50-100 s per ansible-core): one per core, below the caller's
    cache directory. The sanity sessions of different cores then run side by side instead of taking
    turns on one home; they would share no virtualenv anyway (each core pins other versions of
    every sanity test's requirements)."""
    return caller_cache_dir() / "neon-cloud" / ("sanity-home-" + core)


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


def run_integration(session, core, python, targets=()):
    """ansible-test integration --local against a fresh API simulator: ``targets`` (names or
    aliases; none: every target), or the targets given after `--`."""
    install_test_tools(session, core)
    collection = collection_copy(session, core)
    home = empty_home(session)
    # Operations that provisioning tasks start end in a quarter of their usual 1-2 s: the targets
    # wait for them all the same (the demo keeps the usual pace, as a user sees it).
    with running_simulator(session, operation_pace=INTEGRATION_OPERATION_PACE) as simulator, session.chdir(collection):
        write_integration_config(collection, simulator, home)
        # --local: modules run with this session's Python, which has requests.
        try:
            session.run("ansible-test", "integration", "--local", *ansible_test_args(session, python, targets),
                        env={"HOME": str(home)})
        finally:
            log_target_times(session, collection)


def _integration(core, python):
    # ansible-test names the group of an alias with a slash after it
    targets = () if core in FULL_INTEGRATION_CORES else (EVERY_CORE_ALIAS + "/",)

    def integration(session):
        """ansible-test integration --local against a fresh API simulator: tests/integration"""
        run_integration(session, core, python, targets)
    integration.__doc__ += (": every target" if not targets
                            else ": the %s group (targets that depend on ansible-core)" % EVERY_CORE_ALIAS)
    return integration


def log_target_times(session, collection):
    """Print how long each integration target took (ansible-test records it in
    tests/output/data/integration-*.json of the copy), slowest first: where a session's minutes go."""
    times = {}
    for path in sorted((collection / "tests" / "output" / "data").glob("integration-*.json")):
        try:
            targets = json.loads(path.read_text(encoding="utf-8")).get("targets") or {}
        except (OSError, ValueError):
            continue
        for name, result in targets.items():
            if isinstance(result, dict) and isinstance(result.get("run_time_seconds"), int):
                times[name] = result["run_time_seconds"]
    if times:
        session.log("integration target times (s): " + ", ".join(
            "%s %d" % (name, seconds) for name, seconds in sorted(times.items(), key=lambda item: -item[1]))
            + "; total %d" % sum(times.values()))


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
    # Most of the suite's time is waiting (timeouts, slow answers, operations): three pytest-xdist
    # workers wait side by side. The report test then runs alone, on the results the workers
    # wrote (tests/reliability/conftest.py).
    session.run("python", "-m", "pytest", "-n", str(PYTEST_WORKERS), "-m", "not report", env=env)
    session.run("python", "-m", "pytest", "-m", "report", env=env)


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
    shutil.copy(ROOT / "scripts" / "docs" / "ansible_refs.py", site)
    with open(site / "conf.py", "a", encoding="utf-8") as conf:
        conf.write(OFFLINE_SPHINX_CONF)
    session.run("bash", str(site / "build.sh"), env=env, external=True)
    output = ROOT / "docs" / "docsite" / "build" / "html"
    shutil.rmtree(output, ignore_errors=True)
    shutil.copytree(site / "build" / "html", output)
    session.log("the documentation site is in %s" % (output / "index.html"))


OFFLINE_SPHINX_CONF = """

# --- neon.cloud (noxfile.py, docs session): an offline build ---
import os as _os
import sys as _sys
_sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
extensions = [extension for extension in extensions if extension != "sphinx.ext.intersphinx"] + ["ansible_refs"]
intersphinx_mapping = {}
"""


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
    with running_simulator(session) as simulator:
        env.update(simulator)
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


@nox.session(python=MAIN_PYTHON, default=False)
def bench(session):
    """benchmarks/run.py: requests and time spent, measured (see the performance guide page)."""
    install_test_tools(session, MAIN_CORE, "requirements-test.txt")
    session.run("python", str(ROOT / "benchmarks" / "run.py"), *session.posargs)  # starts its own simulator
