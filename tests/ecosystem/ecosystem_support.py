# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Helpers of the ecosystem tests: the API simulator as a process of its own, and the AWX
credential type rendered as AWX renders it. What all suites share is in tests/support/neon_testing.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections
import os
import re
import secrets
import subprocess
import sys
import time

import pytest

from neon_testing import ROOT, SIMULATOR_DIR

SIMULATOR_START_TIMEOUT = 30.0
SIMULATOR_STOP_TIMEOUT = 5.0

Simulator = collections.namedtuple("Simulator", "url key demo_project log_path")


def start_simulator(directory):
    """Start tests/simulator on 127.0.0.1, port 0; return (process, Simulator) once it listens."""
    directory.mkdir(parents=True, exist_ok=True)
    url_file = directory / "url"
    log_path = directory / "simulator.log"
    key = secrets.token_hex(32)  # 64 characters of [a-z0-9], like a real key
    env = dict(os.environ)
    env["PYTHONPATH"] = SIMULATOR_DIR + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
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
