# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Helpers of the ecosystem tests: the local API simulator, ansible commands run with the tools
of the Python that runs pytest, and the AWX credential type rendered as AWX renders it.

(A module of its own, not conftest.py: test modules import from it, and another conftest.py
elsewhere in tests/ would shadow a plain `import conftest`.)
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections
import os
import re
import secrets
import shutil
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIMULATOR_PATH = os.path.join(ROOT, "tests", "simulator")
BIN_DIR = os.path.dirname(sys.executable)
SIMULATOR_START_TIMEOUT = 30.0
SIMULATOR_STOP_TIMEOUT = 5.0

Simulator = collections.namedtuple("Simulator", "url key demo_project log_path")


def tool(name):
    """An executable of the venv that runs pytest (ansible-galaxy, ansible-builder, ...)."""
    path = os.path.join(BIN_DIR, name)
    if not os.path.exists(path):
        found = shutil.which(name)
        if not found:
            pytest.fail("%s is not installed beside %s: pip install -r requirements-test.txt" % (name, sys.executable))
        path = found
    return path


def ansible_env(tmp_path, collections_path=None, **extra):
    """An environment for ansible commands: this Python's tools first, no user config, no colour."""
    env = dict(os.environ)
    for name in list(env):
        if name.startswith("ANSIBLE_") or name.startswith("NEON_"):
            del env[name]
    env.update({
        "PATH": BIN_DIR + os.pathsep + env.get("PATH", ""),
        "ANSIBLE_HOME": str(tmp_path / "ansible-home"),
        "ANSIBLE_LOCAL_TEMP": str(tmp_path / "ansible-tmp"),
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_FORCE_COLOR": "0",
        "ANSIBLE_COLLECTIONS_SCAN_SYS_PATH": "false",
        "ANSIBLE_GALAXY_DISABLE_GPG_VERIFY": "true",
        "ANSIBLE_DEPRECATION_WARNINGS": "false",
        "ANSIBLE_RETRY_FILES_ENABLED": "false",
        "ANSIBLE_INVENTORY_UNPARSED_WARNING": "false",
        "ANSIBLE_LOCALHOST_WARNING": "false",
    })
    if collections_path is not None:
        env["ANSIBLE_COLLECTIONS_PATH"] = str(collections_path)
    env.update({key: str(value) for key, value in extra.items()})
    return env


def run(command, timeout=120, **kwargs):
    """Run a command, failing the test with its output when it does not exit 0."""
    proc = subprocess.run([str(part) for part in command], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=timeout, check=False, **kwargs)
    if proc.returncode != 0:
        pytest.fail("%s exited %d\n--- stdout\n%s\n--- stderr\n%s" % (
            " ".join(str(part) for part in command), proc.returncode, proc.stdout[-6000:], proc.stderr[-6000:]))
    return proc


def galaxy_meta():
    values = {}
    with open(os.path.join(ROOT, "galaxy.yml"), encoding="utf-8") as handle:
        for line in handle:
            match = re.match(r"^(namespace|name|version):\s*['\"]?([A-Za-z0-9_.+-]+)['\"]?\s*$", line)
            if match:
                values[match.group(1)] = match.group(2)
    return values


def start_simulator(directory):
    """Start tests/simulator on 127.0.0.1, port 0; return (process, Simulator) once it listens."""
    directory.mkdir(parents=True, exist_ok=True)
    url_file = directory / "url"
    log_path = directory / "simulator.log"
    key = secrets.token_hex(32)  # 64 characters of [a-z0-9], like a real key
    env = dict(os.environ)
    env["PYTHONPATH"] = SIMULATOR_PATH + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("NEON_SIMULATOR_API_KEY", None)
    with open(str(log_path), "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "neon_simulator", "--port", "0", "--api-key", key, "--url-file", str(url_file)],
            stdout=log, stderr=subprocess.STDOUT, env=env, cwd=str(directory))
    deadline = time.monotonic() + SIMULATOR_START_TIMEOUT
    while not (url_file.exists() and url_file.read_text().strip()):
        if process.poll() is not None:
            pytest.fail("the simulator exited with %s before listening:\n%s" % (process.returncode, log_path.read_text()))
        if time.monotonic() > deadline:
            stop_simulator(process)
            pytest.fail("the simulator did not listen within %.0f s:\n%s" % (SIMULATOR_START_TIMEOUT, log_path.read_text()))
        time.sleep(0.05)
    url = url_file.read_text().strip().splitlines()[0]
    url = url.split("=", 1)[1] if url.startswith("NEON_API_URL=") else url
    demo_project = None
    while demo_project is None and time.monotonic() < deadline:
        match = re.search(r"^NEON_SIM_DEMO_PROJECT=(\S+)", log_path.read_text(), re.MULTILINE)
        demo_project = match.group(1) if match else None
        if demo_project is None:
            time.sleep(0.05)
    assert re.match(r"^http://(127\.0\.0\.1|localhost|\[::1\]):\d+/", url), url
    return process, Simulator(url=url, key=key, demo_project=demo_project, log_path=str(log_path))


def stop_simulator(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=SIMULATOR_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=SIMULATOR_STOP_TIMEOUT)


# --- AWX credential type ------------------------------------------------------------------------

CREDENTIAL_TYPE_FILE = os.path.join(ROOT, "extensions", "awx", "credential_type.yml")
AWX_NAME_PATTERN = re.compile(r"^[a-zA-Z_]+[a-zA-Z0-9_]*$")
SECRET_MASK = "**********"


def load_credential_type():
    import yaml  # ansible-core depends on PyYAML

    with open(CREDENTIAL_TYPE_FILE, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def render_credential_env(credential_type, inputs):
    """Render the env injectors the way AWX does when it launches a job.

    AWX builds a namespace of the credential's non-empty inputs (an empty input is left out,
    so a template sees it undefined), renders each env template with Jinja's
    ImmutableSandboxedEnvironment, and refuses names starting with ANSIBLE_. It also renders a
    "safe" copy with every secret input masked, which is what it stores and shows.
    Returns (env, safe_env).
    """
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    secret_fields = {field["id"] for field in credential_type["inputs"]["fields"] if field.get("secret")}
    namespace, safe_namespace = {}, {}
    for name, value in inputs.items():
        if isinstance(value, bool):
            namespace[name] = safe_namespace[name] = value
            continue
        if name in secret_fields:
            safe_namespace[name] = SECRET_MASK
        elif value:
            safe_namespace[name] = value
        if value:
            namespace[name] = value
    sandbox = ImmutableSandboxedEnvironment()
    env, safe_env = {}, {}
    for name, template in credential_type["injectors"].get("env", {}).items():
        if name.startswith("ANSIBLE_"):
            raise ValueError("AWX does not allow the env variable %s in a credential" % name)
        env[name] = sandbox.from_string(template).render(**namespace)
        safe_env[name] = sandbox.from_string(template).render(**safe_namespace)
    return env, safe_env
