# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Helpers of the ecosystem tests: the AWX credential type rendered as AWX renders it, and stand-ins of
the awx.awx modules. What all suites share is in tests/support/neon_testing.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re

from neon_testing import ROOT

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


# --- awx.awx stand-ins --------------------------------------------------------------------------

FAKE_AWX_MODULE = """#!/usr/bin/python
# WANT_JSON
# A stand-in for the awx.awx module of the same name: records its arguments.
import json
import os
import sys

with open(sys.argv[1]) as handle:
    args = json.load(handle)
record = {"module": %r, "args": dict((k, v) for k, v in args.items() if not k.startswith("_ansible"))}
with open(os.environ["FAKE_AWX_RECORD"], "a") as handle:
    handle.write(json.dumps(record) + "\\n")
print(json.dumps({"changed": True}))
"""
FAKE_AWX_RECORD_ENV = "FAKE_AWX_RECORD"


def fake_awx_collection(base, names=("credential_type", "credential")):
    """``base`` made a collections path holding an awx.awx whose modules ``names`` only append their
    arguments, as one JSON line each, to the file named by $FAKE_AWX_RECORD; returns ``base``."""
    modules = base / "ansible_collections" / "awx" / "awx" / "plugins" / "modules"
    modules.mkdir(parents=True)
    for name in names:
        (modules / (name + ".py")).write_text(FAKE_AWX_MODULE % name)
    return base


def fake_awx_calls(record):
    """The calls the stand-ins recorded in the file ``record`` (a pathlib.Path), in order."""
    return [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []
