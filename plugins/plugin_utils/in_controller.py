# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The action plugin of every API module: the module runs in the controller's worker process when the task runs
on the controller, and is shipped as usual otherwise (docs/docsite/rst/performance.rst, "Two ways to run a module").

In the controller, the module's own ``main()`` runs with exactly the arguments Ansible would ship
(``_update_module_args``: check mode, diff, no_log, verbosity and the other internal keys, serialized as
the module's serialization profile asks), its printed JSON result is parsed by ansible-core's own
``_parse_returned_data`` and cleaned as ``_execute_module`` cleans a shipped module's result. So the
argument checks, warnings, deprecations, ``invocation``, ``no_log`` scrubbing, check mode and diff are
the module's and ansible-core's, as when it is shipped; only the AnsiballZ file, its transfer, the new
Python and its imports are saved.

The module is shipped (``ActionBase._execute_module`` as for any module) when the task does not run in
this Python: a connection other than ``local`` (a remote host, or a task delegated to one), ``become``,
``async``, a task ``environment:``, an ``ansible_python_interpreter`` (or ``interpreter_python`` of ansible.cfg, or
``ANSIBLE_PYTHON_INTERPRETER``) naming another Python than the controller's, ``requests`` missing here, a macOS
controller without OBJC_DISABLE_INITIALIZE_FORK_SAFETY=YES, or the variable ``neon_cloud_in_controller`` false.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import io
import json
import os
import sys
from contextlib import redirect_stdout

from ansible import constants as C
from ansible.module_utils.common.text.converters import to_text
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action.normal import ActionModule as NormalAction
from ansible.utils.display import Display

# What every module imports, imported here: ansible-core loads this file in the parent process before it
# forks a worker per task (the strategy's class_only load), so the workers find these modules ready.
from ansible.module_utils import basic
from ansible.module_utils.common import warnings as module_warnings
from ansible_collections.neon.cloud.plugins.module_utils import _module  # noqa: F401  pylint: disable=unused-import
from ansible_collections.neon.cloud.plugins.module_utils._api.connection import API_KEY_ENV
from ansible_collections.neon.cloud.plugins.module_utils._api.redaction import SecretScrubber, one_line
from ansible_collections.neon.cloud.plugins.module_utils._api.transport import HAS_REQUESTS

try:
    from ansible.module_utils.common.json import Direction, get_module_encoder  # ansible-core 2.19 and later
    from ansible.module_utils import _internal as core_internal
    from ansible.module_utils._internal import _traceback as core_traceback
    AnsibleJSONEncoder = None
except ImportError:  # ansible-core 2.17 and 2.18
    Direction = get_module_encoder = core_internal = core_traceback = None
    from ansible.parsing.ajson import AnsibleJSONEncoder
try:
    from ansible.vars.clean import remove_internal_keys
except ImportError:  # pragma: no cover  (every supported core has it)
    remove_internal_keys = None
try:
    from ansible.utils.unsafe_proxy import wrap_var  # ansible-core 2.17 and 2.18 mark module results unsafe with it
except ImportError:  # pragma: no cover
    wrap_var = None

IN_CONTROLLER_VAR = "neon_cloud_in_controller"
MODULES_PACKAGE = "ansible_collections.neon.cloud.plugins.modules"
# Our modules declare no serialization profile, so ansible-core ships their arguments with this one (2.19+).
PROFILE = "legacy"
LOCAL_CONNECTIONS = ("local", "ansible.builtin.local", "ansible.legacy.local")
AUTO_INTERPRETERS = ("auto", "auto_silent", "auto_legacy", "auto_legacy_silent")

display = Display()


def ship_reason(in_controller_var, connection, become, async_val, environment, interpreter, has_requests=HAS_REQUESTS,
                platform=sys.platform, fork_safety_off=None):
    """Why the module must be shipped rather than run here (a sentence for -vvv), or None to run it here.

    ``in_controller_var``: the templated value of neon_cloud_in_controller (None when unset);
    ``connection``: the connection plugin's name; ``environment``: the task's templated environment entries;
    ``interpreter``: the Python asked for the host the task runs on (ansible_python_interpreter, else the
    ANSIBLE_PYTHON_INTERPRETER variable or interpreter_python of ansible.cfg; None or ``auto``: none on purpose).
    ``platform``, ``fork_safety_off``: on macOS, a forked worker that reads the system's proxy settings (requests does,
    through urllib) may be aborted by the Objective-C runtime unless OBJC_DISABLE_INITIALIZE_FORK_SAFETY is YES; a
    shipped module runs in a Python of its own and is safe.
    """
    if fork_safety_off is None:
        fork_safety_off = os.environ.get("OBJC_DISABLE_INITIALIZE_FORK_SAFETY") == "YES"
    if in_controller_var is not None and not boolean(in_controller_var, strict=False):
        return "%s is false" % IN_CONTROLLER_VAR
    if connection not in LOCAL_CONNECTIONS:
        return "the task runs through the %s connection" % connection
    if become:
        return "the task uses become"
    if async_val:
        return "the task is async"
    if any(entry for entry in environment or ()):
        return "the task sets an environment"
    if interpreter is not None and not same_python(interpreter):
        return "ansible_python_interpreter is %s, not this controller's Python %s" % (interpreter, sys.executable)
    if not has_requests:
        return "the controller's Python has no requests"
    if platform == "darwin" and not fork_safety_off:
        return ("the controller is macOS, where a forked worker may not read the system's proxy settings "
                "(OBJC_DISABLE_INITIALIZE_FORK_SAFETY=YES lets modules run in the controller)")
    return None


def configured_interpreter(host_vars):
    """The Python asked for by Ansible's configuration (INTERPRETER_PYTHON: ansible.cfg's interpreter_python, the
    ANSIBLE_PYTHON_INTERPRETER variable), ``auto`` by default; None when it cannot be read."""
    try:
        return C.config.get_config_value("INTERPRETER_PYTHON", variables=host_vars)
    except Exception:  # pylint: disable=broad-except
        return None  # an unreadable setting: decided as if none were given


def _venv_of(path):
    """The virtual environment a Python started as ``path`` is in (the folder holding pyvenv.cfg), or None."""
    for folder in (os.path.dirname(path), os.path.dirname(os.path.dirname(path))):
        if os.path.isfile(os.path.join(folder, "pyvenv.cfg")):
            return os.path.realpath(folder)
    return None


def same_python(interpreter, executable=None):
    """Whether ``interpreter`` (a path, or a name on PATH) starts this very Python: the same binary and the same
    virtual environment (a virtual environment's python is a link to the system's, with other packages)."""
    executable = executable or sys.executable
    interpreter = to_text(interpreter).strip()
    if interpreter in AUTO_INTERPRETERS:
        return True  # nothing asked for on purpose: any Python found will do, this one included
    if not os.path.isabs(interpreter):
        return False  # "/usr/bin/env python3", "python3": another Python, possibly
    if os.path.abspath(interpreter) == os.path.abspath(executable):
        return True
    if not os.path.exists(interpreter) or os.path.realpath(interpreter) != os.path.realpath(executable):
        return False
    return _venv_of(interpreter) == _venv_of(executable)


class InControllerAction(NormalAction):
    """ansible.builtin.normal, but a module that would run in this controller's Python runs in this process."""

    def _execute_module(self, module_name=None, module_args=None, tmp=None, task_vars=None, persist_files=False,
                        delete_remote_tmp=None, wrap_async=False, **kwargs):
        task_vars = task_vars if task_vars is not None else {}
        reason = "a wrapped async task" if wrap_async else self._ship_reason(task_vars)
        if reason is not None:
            display.vvv("neon.cloud: the module is shipped: %s" % reason, host=self._play_context.remote_addr)
            return super(InControllerAction, self)._execute_module(
                module_name=module_name, module_args=module_args, tmp=tmp, task_vars=task_vars,
                persist_files=persist_files, delete_remote_tmp=delete_remote_tmp, wrap_async=wrap_async, **kwargs)
        display.vvv("neon.cloud: the module runs in the controller's process", host=self._play_context.remote_addr)
        if module_name is None:
            module_name = self._task.action
        if module_args is None:
            module_args = self._task.args
        self._update_module_args(module_name, module_args, task_vars, **kwargs)
        stdout = run_in_process(self._resolved_module_name(module_name), encode_args(module_args))
        return self._result_of(dict(rc=0, stdout=stdout, stderr="", stdout_lines=stdout.splitlines(), stderr_lines=[]))

    # ---------------------------------------------------------------------------------------------- the decision

    def _ship_reason(self, task_vars):
        host_vars = task_vars
        if self._task.delegate_to:
            host_vars = (task_vars.get("ansible_delegated_vars") or {}).get(self._task.delegate_to) or {}
        environment = [self._templar.template(entry) for entry in (self._task.environment or ())]
        interpreter = host_vars.get("ansible_python_interpreter")
        if interpreter is None:  # the ANSIBLE_PYTHON_INTERPRETER variable, or interpreter_python in ansible.cfg
            interpreter = configured_interpreter(host_vars)
        return ship_reason(
            in_controller_var=self._templated(task_vars.get(IN_CONTROLLER_VAR)),
            connection=getattr(self._connection, "transport", None),
            become=self._play_context.become,
            async_val=self._task.async_val,
            environment=environment,
            interpreter=self._templated(interpreter),
        )

    def _templated(self, value):
        return self._templar.template(value) if isinstance(value, str) else value

    def _resolved_module_name(self, module_name):
        resolved = getattr(self._task, "resolved_action", None) or module_name
        return resolved.rpartition(".")[2]

    # ---------------------------------------------------------------------------------------------- the result

    def _result_of(self, res):
        """The module's printed result, parsed and cleaned as ``_execute_module`` does for a shipped module."""
        if get_module_encoder is not None:  # ansible-core 2.19 and later: results decoded by their profile
            data = self._parse_returned_data(res, PROFILE)
        else:
            data = self._parse_returned_data(res)
        if not isinstance(data, dict):  # ansible-core 2.21: a UnifiedTaskResult
            data.remove_internal_keys()
            return data.as_result_dict(for_round_trip=True)
        data.pop("_ansible_suppress_tmpdir_delete", None)
        remove_internal_keys(data)
        for name in ("stdout", "stderr"):
            if name in data and name + "_lines" not in data:
                data[name + "_lines"] = (data.get(name) or u"").splitlines()
        if get_module_encoder is None:  # ansible-core 2.17 and 2.18 mark a module's whole result unsafe
            data = wrap_var(data)
        return data


def encode_args(module_args):
    """The arguments as the module reads them when shipped: ``{"ANSIBLE_MODULE_ARGS": ...}`` in JSON, bytes."""
    params = dict(ANSIBLE_MODULE_ARGS=module_args)
    if get_module_encoder is not None:
        return json.dumps(params, cls=get_module_encoder(PROFILE, Direction.CONTROLLER_TO_MODULE)).encode()
    return json.dumps(params, cls=AnsibleJSONEncoder, vault_to_text=True).encode()


def run_in_process(name, json_args):
    """Run ``plugins/modules/<name>.py``'s main() with ``json_args`` as AnsiballZ would hand them over; return what it
    printed. An exception of the module becomes a failed result naming it (never a traceback, never the API key)."""
    output = io.StringIO()
    controller_side = _enter_module_side()
    _reset_module_state(json_args)
    try:
        with redirect_stdout(output):
            try:
                importlib.import_module("%s.%s" % (MODULES_PACKAGE, name)).main()
            except SystemExit:
                pass  # exit_json and fail_json print the result, then exit
            except Exception as error:  # pylint: disable=broad-except  # becomes the task's failure, as a shipped module's
                output = io.StringIO(json.dumps(unexpected_failure(name, error, json_args)))
    finally:
        _reset_module_state(None)
        _leave_module_side(controller_side)
    text = output.getvalue()
    if not text.strip():
        return json.dumps(dict(failed=True, msg="neon.cloud.%s ended in the controller without a result" % name))
    return text


def unexpected_failure(name, error, json_args):
    """A failed result for an exception that escaped the module: its type and its one-line message, with every
    piece of the API key (the task's, or the environment's) removed."""
    scrubber = SecretScrubber()
    try:
        api_key = json.loads(json_args.decode()).get("ANSIBLE_MODULE_ARGS", {}).get("api_key")
    except (ValueError, AttributeError):
        api_key = None
    for secret in (api_key, os.environ.get(API_KEY_ENV)):
        if isinstance(secret, str):
            scrubber.add(secret.strip())
    message = scrubber.scrub(one_line(str(error), 300))
    return dict(failed=True, changed=False,
                msg="neon.cloud.%s failed in the controller: %s: %s" % (name, type(error).__name__, message))


def _enter_module_side():
    """On ansible-core 2.19 and later, module_utils code knows it runs in the controller (``is_controller``): a
    warning or deprecation is then displayed at once instead of going into the module's result, and tracebacks
    follow the controller's settings. For the module's run, module_utils act as in a shipped module; what the
    controller had is returned, for ``_leave_module_side``."""
    if core_internal is None:
        return None
    saved = (core_internal.is_controller, core_traceback._is_traceback_enabled)
    core_internal.is_controller = False
    core_traceback._is_traceback_enabled = core_traceback._is_module_traceback_enabled
    core_traceback._module_tracebacks_enabled_events = None  # read again from this run's _ansible_tracebacks_for
    return saved


def _leave_module_side(saved):
    if saved is not None:
        core_internal.is_controller, core_traceback._is_traceback_enabled = saved
        core_traceback._module_tracebacks_enabled_events = None


def _reset_module_state(json_args):
    """What a module run leaves in module-level state of ansible-core's module_utils, cleared before and after each
    run (a loop runs every item in one worker process): the arguments AnsibleModule reads and the global warnings
    and deprecations, which exit_json adds to every result."""
    basic._ANSIBLE_ARGS = json_args
    if hasattr(basic, "_ANSIBLE_PROFILE"):  # ansible-core 2.19 and later
        basic._ANSIBLE_PROFILE = PROFILE if json_args is not None else None
    if hasattr(basic, "_PARSED_MODULE_ARGS"):
        basic._PARSED_MODULE_ARGS = None
    module_warnings._global_warnings.clear()
    module_warnings._global_deprecations.clear()
