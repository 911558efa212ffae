# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugins/plugin_utils/in_controller.py: when a module runs in the controller's process and when it is shipped,
and what a run in the process gives back (the module's own result, nothing of an earlier run, never a traceback
or the key)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import sys

import pytest

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common import warnings as module_warnings

from ansible_collections.neon.cloud.plugins.plugin_utils import in_controller
from ansible_collections.neon.cloud.plugins.plugin_utils.in_controller import (
    InControllerAction,
    encode_args,
    run_in_process,
    same_python,
    ship_reason,
)

KEY = "napi_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
LOCAL = dict(in_controller_var=None, connection="local", become=False, async_val=0, environment=[],
             interpreter=None, has_requests=True, platform="linux", fork_safety_off=False)


def decide(**changes):
    arguments = dict(LOCAL)
    arguments.update(changes)
    return ship_reason(**arguments)


# ------------------------------------------------------------------------------------------------ the decision

@pytest.mark.parametrize("changes", [
    {},
    {"connection": "ansible.builtin.local"},
    {"in_controller_var": True},
    {"in_controller_var": "yes"},
    {"environment": [{}]},
    {"interpreter": sys.executable},
    {"interpreter": "auto_silent"},
    {"platform": "darwin", "fork_safety_off": True},
], ids=["local", "local by its full name", "asked for", "asked for as a string", "an empty environment",
        "this Python", "interpreter discovery", "macOS with the fork safety off"])
def test_a_task_on_the_controller_runs_in_the_process(changes):
    assert decide(**changes) is None


@pytest.mark.parametrize("changes, reason", [
    ({"in_controller_var": False}, "neon_cloud_in_controller is false"),
    ({"in_controller_var": "false"}, "neon_cloud_in_controller is false"),  # -e neon_cloud_in_controller=false
    ({"connection": "ssh"}, "the ssh connection"),
    ({"connection": "community.docker.docker"}, "the community.docker.docker connection"),
    ({"become": True}, "become"),
    ({"async_val": 30}, "async"),
    ({"environment": [{"HTTPS_PROXY": "http://proxy.example:3128"}]}, "environment"),
    ({"interpreter": "/usr/bin/env python3"}, "ansible_python_interpreter"),
    ({"interpreter": "/opt/other-python/bin/python3"}, "ansible_python_interpreter"),
    ({"has_requests": False}, "no requests"),
    ({"platform": "darwin"}, "OBJC_DISABLE_INITIALIZE_FORK_SAFETY=YES"),
], ids=["not wanted", "not wanted, from -e", "remote host", "container", "become", "async", "task environment",
        "env python", "another python", "no requests", "macOS"])
def test_a_task_that_runs_elsewhere_ships_the_module(changes, reason):
    assert reason in decide(**changes)


def test_the_interpreter_asked_for_in_the_environment_or_ansible_cfg_counts(monkeypatch):
    """ANSIBLE_PYTHON_INTERPRETER (as interpreter_python of ansible.cfg) names another Python: the module is shipped
    to it, as it would be without this plugin; unset, it is auto (nothing asked for on purpose)."""
    monkeypatch.delenv("ANSIBLE_PYTHON_INTERPRETER", raising=False)
    assert in_controller.configured_interpreter({}) in in_controller.AUTO_INTERPRETERS
    monkeypatch.setenv("ANSIBLE_PYTHON_INTERPRETER", "/opt/other-python/bin/python3")
    assert in_controller.configured_interpreter({}) == "/opt/other-python/bin/python3"
    assert "ansible_python_interpreter" in decide(interpreter=in_controller.configured_interpreter({}))
    assert in_controller.configured_interpreter({"ansible_python_interpreter": sys.executable}) == sys.executable


def _venv(folder, python):
    """A virtual environment's layout: pyvenv.cfg, and bin/python linking to ``python``."""
    os.makedirs(str(folder / "bin"))
    (folder / "pyvenv.cfg").write_text(u"home = %s\n" % os.path.dirname(python))
    os.symlink(python, str(folder / "bin" / "python"))
    return str(folder / "bin" / "python")


def test_another_virtual_environment_of_the_same_python_is_another_python(tmp_path):
    base = os.path.realpath(sys.executable)
    one = _venv(tmp_path / "one", base)
    other = _venv(tmp_path / "other", base)
    assert not same_python(other, executable=one)  # its packages (requests or not) are not ours
    assert not same_python(base, executable=one)
    assert same_python(one, executable=one)
    link = tmp_path / "one" / "bin" / "python3"
    os.symlink(base, str(link))
    assert same_python(str(link), executable=one)  # another name in the same environment


# ------------------------------------------------------------------------------------------------ a run in the process

class FakeModules:
    """Stands for ansible_collections.neon.cloud.plugins.modules: ``main`` is what the named module runs."""

    def __init__(self, main):
        self.main = main
        self.imported = []

    def import_module(self, name):
        self.imported.append(name)
        return self


@pytest.fixture
def module_main(monkeypatch):
    def install(main):
        fake = FakeModules(main)
        monkeypatch.setattr(in_controller, "importlib", fake)
        return fake
    return install


def _args(**module_args):
    module_args.setdefault("_ansible_check_mode", False)
    return encode_args(module_args)


def test_the_module_reads_the_arguments_ansible_would_ship_and_its_printed_result_comes_back(module_main):
    seen = {}

    def main():
        module = AnsibleModule(argument_spec=dict(name=dict(type="str"), api_key=dict(type="str", no_log=True)),
                               supports_check_mode=True)
        seen.update(name=module.params["name"], check_mode=module.check_mode, diff=module._diff)
        module.exit_json(changed=True, name=module.params["name"])

    fake = module_main(main)
    result = json.loads(run_in_process("branch", _args(name="pr-42", api_key=KEY, _ansible_check_mode=True,
                                                       _ansible_diff=True)))
    assert fake.imported == ["ansible_collections.neon.cloud.plugins.modules.branch"]
    assert seen == dict(name="pr-42", check_mode=True, diff=True)
    assert result["changed"] is True and result["name"] == "pr-42"
    assert KEY not in json.dumps(result)  # invocation shows it as no_log does


def test_a_loop_item_gets_no_warning_of_the_item_before(module_main):
    def main():
        module = AnsibleModule(argument_spec=dict(item=dict(type="str")))
        module.warn("about %s" % module.params["item"])
        module.deprecate("old %s" % module.params["item"], version="9.0.0", collection_name="neon.cloud")
        module.exit_json(changed=False)

    module_main(main)
    first = run_in_process("projects_info", _args(item="a"))
    second = run_in_process("projects_info", _args(item="b"))
    # In the result, as a shipped module returns them (not displayed by the controller at once), each run its own.
    assert "about a" in first and "old a" in first
    assert "about b" in second and "old b" in second
    assert "about a" not in second and "old a" not in second
    assert "about b" in json.dumps(_result(second)["warnings"], default=str)


def test_a_failure_of_the_module_comes_back_as_its_result(module_main):
    def main():
        AnsibleModule(argument_spec=dict(wait_timeout=dict(type="int"))).fail_json(msg="wait_timeout must be greater than 0")

    module_main(main)
    result = json.loads(run_in_process("operation_wait", _args(wait_timeout=0)))
    assert result["failed"] is True
    assert result["msg"] == "wait_timeout must be greater than 0"


def test_an_exception_becomes_a_failed_result_without_traceback_or_key(module_main, monkeypatch):
    monkeypatch.setenv("NEON_API_KEY", KEY[::-1])

    def main():
        raise ValueError("cannot use %s nor %s" % (KEY[5:40], KEY[::-1][3:30]))

    module_main(main)
    text = run_in_process("project", _args(api_key=KEY))
    result = json.loads(text)
    assert result["failed"] is True
    assert result["msg"].startswith("neon.cloud.project failed in the controller: ValueError: cannot use ")
    assert "Traceback" not in text
    for secret in (KEY, KEY[::-1]):
        assert not any(secret[start:start + 8] in text for start in range(len(secret) - 8))


def test_a_module_that_prints_nothing_fails_clearly(module_main):
    module_main(lambda: None)
    result = json.loads(run_in_process("auth_info", _args()))
    assert result == dict(failed=True, msg="neon.cloud.auth_info ended in the controller without a result")


def test_nothing_of_a_run_is_left_for_the_controller(module_main):
    def main():
        AnsibleModule(argument_spec={}).warn("left behind?")
        sys.exit(0)

    module_main(main)
    run_in_process("auth_info", _args())
    from ansible.module_utils import basic
    assert basic._ANSIBLE_ARGS is None
    assert not module_warnings._global_warnings


# ------------------------------------------------------------------------------------------------ the result's cleaning

class _Task:
    resolved_action = action = "neon.cloud.projects_info"


def _action():
    action = InControllerAction.__new__(InControllerAction)  # only what _result_of uses
    action._task = _Task()
    action._used_interpreter = None
    return action


def _result(stdout):
    return _action()._result_of(dict(rc=0, stdout=stdout, stderr="", stdout_lines=stdout.splitlines(), stderr_lines=[]))


def test_the_printed_result_is_cleaned_as_a_shipped_modules(module_main):
    result = _result(json.dumps(dict(changed=False, projects=[], _ansible_suppress_tmpdir_delete=True, warnings=["w"])))
    assert result["changed"] is False and result["projects"] == []
    assert "_ansible_suppress_tmpdir_delete" not in result


def test_output_that_is_no_result_fails_the_task():
    result = _result("not json at all")
    assert result["failed"] is True


# ------------------------------------------------------------------------------------------------ every module routed

COLLECTION_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))


def _plugin_names(kind):
    folder = os.path.join(COLLECTION_ROOT, "plugins", kind)
    return sorted(name[:-3] for name in os.listdir(folder) if name.endswith(".py") and not name.startswith("_"))


def test_every_module_has_the_action_plugin_that_runs_it_in_the_controller():
    """A module without its plugins/action/<name>.py would always be shipped (and slow); one with another action
    plugin would not run as the others do."""
    import importlib
    assert _plugin_names("action") == _plugin_names("modules")
    for name in _plugin_names("action"):
        action = importlib.import_module("ansible_collections.neon.cloud.plugins.action.%s" % name).ActionModule
        assert issubclass(action, InControllerAction), name
