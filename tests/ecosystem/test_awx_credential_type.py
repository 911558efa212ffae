# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The AWX credential type (extensions/awx/credential_type.yml), and the playbook in the AWX guide
(docs/docsite/rst/awx.rst) that registers it, run as the user would copy it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import textwrap

import pytest

from ecosystem_support import (AWX_NAME_PATTERN, CREDENTIAL_TYPE_FILE, FAKE_AWX_RECORD_ENV, SECRET_MASK,
                               fake_awx_calls, fake_awx_collection, load_credential_type, render_credential_env)
from neon_testing import ROOT, ansible_env, link_collection, run, tool

LIVE_API_URL = "https://console.neon.tech/api/v2"
KEY = "k" * 20 + "0123456789abcdefghijklmnopqrstuvwxyz0123456789ab"  # 64 characters, like a real key


def module_env_names():
    """The env variables the modules and the inventory plugin read (plugins/module_utils/_api/connection.py)."""
    with open(os.path.join(ROOT, "plugins", "module_utils", "_api", "connection.py"), encoding="utf-8") as handle:
        text = handle.read()
    key = re.search(r'^API_KEY_ENV = "([A-Z_]+)"', text, re.MULTILINE).group(1)
    url = re.search(r'^API_URL_ENV = "([A-Z_]+)"', text, re.MULTILINE).group(1)
    return key, url


def test_credential_type_is_valid_for_awx():
    credential_type = load_credential_type()
    assert set(credential_type) <= {"name", "description", "kind", "inputs", "injectors"}
    assert credential_type["kind"] == "cloud"
    fields = credential_type["inputs"]["fields"]
    ids = [field["id"] for field in fields]
    labels = [field["label"] for field in fields]
    assert ids == ["api_key", "api_url"]
    assert len(set(labels)) == len(labels), "AWX wants unique labels"
    for field in fields:
        assert AWX_NAME_PATTERN.match(field["id"])
        assert field.get("type", "string") in ("string", "boolean")
        assert set(field) <= {"id", "label", "type", "secret", "help_text", "default", "multiline", "format",
                              "choices", "ask_at_runtime"}
    by_id = {field["id"]: field for field in fields}
    assert by_id["api_key"]["secret"] is True
    assert not by_id["api_url"].get("secret")
    assert by_id["api_url"]["default"] == LIVE_API_URL
    assert credential_type["inputs"]["required"] == ["api_key"]
    assert set(credential_type["injectors"]) == {"env"}, "only env injectors: nothing in extra_vars or files"
    for name, template in credential_type["injectors"]["env"].items():
        assert AWX_NAME_PATTERN.match(name) and not name.startswith("ANSIBLE_")
        assert all(ord(char) < 128 for char in template)


def test_injectors_set_the_env_variables_the_modules_read():
    credential_type = load_credential_type()
    env, safe_env = render_credential_env(credential_type, {"api_key": KEY, "api_url": "http://127.0.0.1:8080/api/v2"})
    key_name, url_name = module_env_names()
    assert env == {key_name: KEY, url_name: "http://127.0.0.1:8080/api/v2"}
    # what AWX stores with the job and shows: the key masked, the URL as it is
    assert safe_env == {key_name: SECRET_MASK, url_name: "http://127.0.0.1:8080/api/v2"}


@pytest.mark.parametrize("inputs", [{"api_key": KEY}, {"api_key": KEY, "api_url": ""}])
def test_an_empty_api_url_means_the_live_service(inputs):
    env, _safe = render_credential_env(load_credential_type(), inputs)
    assert env == {"NEON_API_KEY": KEY, "NEON_API_URL": LIVE_API_URL}


def test_the_key_is_not_changed_by_rendering():
    # Jinja renders values as they are: no escaping, no trimming of a key with odd characters
    odd = "ab{c}%s'\"\\ <x>"
    env, _safe = render_credential_env(load_credential_type(), {"api_key": odd})
    assert env["NEON_API_KEY"] == odd


@pytest.fixture
def fake_awx(tmp_path):
    """A collections path holding a fake awx.awx whose modules only record their arguments."""
    return fake_awx_collection(tmp_path / "collections")


GUIDE = os.path.join(ROOT, "docs", "docsite", "rst", "awx.rst")
PLAYBOOK_START = ".. awx-credential-type-playbook-start"
PLAYBOOK_END = ".. awx-credential-type-playbook-end"
# The collections path `ansible-galaxy collection install` uses for the user: the playbook reads the file there
# unless told otherwise (~/.ansible/collections/ansible_collections/neon/cloud/extensions/awx/credential_type.yml).
USER_COLLECTIONS = os.path.join(".ansible", "collections")


def guide_playbook():
    """The code block between the two RST comments of the AWX guide, as the user copies it."""
    with open(GUIDE, encoding="utf-8") as handle:
        text = handle.read()
    assert text.count(PLAYBOOK_START) == 1 and text.count(PLAYBOOK_END) == 1, "the markers of the playbook in " + GUIDE
    lines = text.split(PLAYBOOK_START, 1)[1].split(PLAYBOOK_END, 1)[0].strip("\n").splitlines()
    assert lines[0] == ".. code-block:: yaml+jinja" and not lines[1].strip(), lines[:2]
    assert all(not line.strip() or line.startswith("    ") for line in lines[2:]), "one code block, nothing else"
    return textwrap.dedent("\n".join(lines[2:])) + "\n"


def run_awx_playbook(tmp_path, collections_path, *extra_args, **env):
    playbook = tmp_path / "awx_credential_type.yml"
    playbook.write_text(guide_playbook())
    record = tmp_path / "record.jsonl"
    env[FAKE_AWX_RECORD_ENV] = record
    environment = ansible_env(tmp_path, collections_path=collections_path, **env)
    proc = run([tool("ansible-playbook"), str(playbook)] + list(extra_args), cwd=str(tmp_path), env=environment)
    return proc, fake_awx_calls(record)


def test_playbook_registers_the_type_verbatim(tmp_path, fake_awx):
    proc, calls = run_awx_playbook(tmp_path, fake_awx, "-e", "neon_credential_type_file=" + CREDENTIAL_TYPE_FILE)
    assert [call["module"] for call in calls] == ["credential_type"], proc.stdout
    args = calls[0]["args"]
    credential_type = load_credential_type()
    assert args["name"] == credential_type["name"]
    assert args["kind"] == "cloud"
    assert args["state"] == "present"
    assert args["inputs"] == credential_type["inputs"]
    # The injector templates reach AWX as templates: Ansible must not have rendered them.
    assert args["injectors"] == credential_type["injectors"]
    assert args["injectors"]["env"]["NEON_API_KEY"] == "{{ api_key }}"


def test_playbook_creates_a_credential_without_showing_the_key(tmp_path, fake_awx):
    proc, calls = run_awx_playbook(tmp_path, fake_awx, "-e", json.dumps({"neon_credential_name": "Neon test",
                                                                         "neon_credential_type_file": CREDENTIAL_TYPE_FILE}),
                                   NEON_API_KEY=KEY)
    assert [call["module"] for call in calls] == ["credential_type", "credential"]
    args = calls[1]["args"]
    assert args["name"] == "Neon test"
    assert args["credential_type"] == load_credential_type()["name"]
    assert args["inputs"] == {"api_key": KEY, "api_url": LIVE_API_URL}
    assert KEY not in proc.stdout + proc.stderr


def test_playbook_default_is_the_users_install_of_the_collection(tmp_path, fake_awx):
    # Without -e, the file is read from ~/.ansible/collections/..., where ansible-galaxy installs it.
    home = tmp_path / "home"
    link_collection(str(home / USER_COLLECTIONS))
    proc, calls = run_awx_playbook(tmp_path, fake_awx, HOME=str(home))
    assert [call["module"] for call in calls] == ["credential_type"], proc.stdout + proc.stderr
    assert calls[0]["args"]["injectors"] == load_credential_type()["injectors"]
