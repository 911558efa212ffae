# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Ansible side of every module: connection options, input checks, one client, results.

A module builds a NeonModule with its own options and passes a function that does the work, or, when it changes
one resource of the walk (_resources/resource.py), the resource's class (``run_resource``). The work returns the
result dict (its ``warnings`` are shown as Ansible warnings) or raises: a NeonAPIError or a TaskFailure becomes one
fail_json carrying what was done, an OptionError one with its sentence alone. Every
message, warning, error and diff leaves through ``_finish``, which removes any piece of a
secret the task holds.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

from ansible.module_utils.basic import AnsibleModule, env_fallback, missing_required_lib

from ansible_collections.neon.cloud.plugins.module_utils._api.client import (
    DEFAULT_API_URL,
    HAS_REQUESTS,
    REQUESTS_IMPORT_ERROR,
    PathParameterError,
)
from ansible_collections.neon.cloud.plugins.module_utils._api.connection import (
    API_KEY_ENV,
    API_URL_ENV,
    CA_PATH_ENV,
    RATE_LIMIT_ENV,
    ConnectionOptionError,
    check_options,
    make_client,
    url_credentials,
)
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, TaskFailure
from ansible_collections.neon.cloud.plugins.module_utils._api.pacing import DEFAULT_PER_MINUTE
from ansible_collections.neon.cloud.plugins.module_utils._api.redaction import SecretScrubber, one_line
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import OptionError, path_problem
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import ResourceTask

OPERATION_ID_PATTERN = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
# Result fields that carry our sentences and excerpts of answers: always scrubbed on the way out.
# Everything else but the secrets returned on purpose (a created key's ``key``, a connection URI and
# its password) is scrubbed when a quick search of it finds a piece of a secret (a service that
# echoes one in a key's name, say).
_SCRUBBED_FIELDS = ("msg", "warnings", "error", "diff")
_SECRET_FIELDS = ("key", "connection_uri", "uri", "password", "secret_server_key", "pub_client_key")

# Documented once in plugins/doc_fragments/api.py; validate-modules checks the two agree.
CONNECTION_ARGUMENT_SPEC = dict(
    # Required, but checked by _connection.check_options, whose message names the environment variable too.
    api_key=dict(type="str", no_log=True, fallback=(env_fallback, [API_KEY_ENV])),
    api_url=dict(type="str", default=DEFAULT_API_URL, fallback=(env_fallback, [API_URL_ENV])),
    api_timeout=dict(type="float", default=30.0),
    api_retries=dict(type="int", default=5),
    api_retry_max_delay=dict(type="float", default=30.0),
    api_rate_limit=dict(type="float", default=DEFAULT_PER_MINUTE, fallback=(env_fallback, [RATE_LIMIT_ENV])),
    api_allow_plain_http=dict(type="bool", default=False),
    validate_certs=dict(type="bool", default=True),
    ca_path=dict(type="path", fallback=(env_fallback, list(CA_PATH_ENV))),
)


class NeonModule:
    """An AnsibleModule with the connection options, their checks and a ready client."""

    def __init__(self, argument_spec, **kwargs):
        spec = dict(CONNECTION_ARGUMENT_SPEC)
        spec.update(argument_spec)
        self.module = AnsibleModule(argument_spec=spec, **kwargs)
        self.params = self.module.params
        self.client = None
        api_key = self.params["api_key"]
        self.scrubber = SecretScrubber([api_key.strip()] if api_key else [])
        if not HAS_REQUESTS:
            self.module.fail_json(msg=missing_required_lib("requests"), exception=str(REQUESTS_IMPORT_ERROR))
        # A user:password in api_url is refused, and must not show in the task's invocation either
        # (api_url is no secret option, so Ansible would print it at -vvv).
        for value in url_credentials(self.params["api_url"]):
            self.module.no_log_values.add(value)
            self.scrubber.add(value)
        try:
            check_options(self.params)
        except ConnectionOptionError as problem:
            self.fail(str(problem))
        self.client = make_client(self.params)
        self.scrubber = self.client.scrubber

    @property
    def check_mode(self):
        return self.module.check_mode

    @property
    def diff(self):
        return self.module._diff

    # ------------------------------------------------------------------------------------------ input checks

    def require_positive(self, name):
        value = self.params.get(name)
        if value is not None and value <= 0:
            self.fail("%s must be greater than 0, got %s" % (name, value))
        if value is not None and not value < float("inf"):  # nan or inf: no usable time limit
            self.fail("%s must be a finite number, got %s" % (name, value))

    def require_path_parameter(self, name, value=None):
        """A value that goes into the URL path: not empty, not ``.`` or ``..`` (_resources/refusal.py, path_problem)."""
        problem = path_problem(name, self.params.get(name) if value is None else value)
        if problem:
            self.fail(problem)

    def require_project_id(self):
        """``project_id`` as a path parameter; in check mode an empty one is a project an earlier task of the play
        would make (_resources/refusal.py, Missing), which the writer takes as made."""
        if not (self.check_mode and not (self.params.get("project_id") or "").strip()):
            self.require_path_parameter("project_id")

    def resource_task(self, *path_parameters, predicts_project=False, waits=True):
        """The ResourceTask of a module that changes resources, once ``path_parameters`` (option
        names) and the wait options (plugins/doc_fragments/api.py, WAIT) are checked. ``predicts_project``:
        the module's resource takes an empty ``project_id`` in check mode as a project an earlier task would
        make (_resources/refusal.py, Missing; docs/docsite/rst/troubleshooting.rst, "A dry run")."""
        for name in path_parameters:
            if name == "project_id" and predicts_project and self.check_mode and \
                    not (self.params.get(name) or "").strip():
                continue
            self.require_path_parameter(name)
        if not waits:  # the module has no wait options
            return ResourceTask(self.client, check_mode=self.check_mode, diff=self.diff)
        self.require_positive("wait_timeout")
        return ResourceTask(self.client, wait=self.params["wait"], wait_timeout=self.params["wait_timeout"],
                            check_mode=self.check_mode, diff=self.diff)

    def run_resource(self, resource):
        """The work of a module that changes one resource (``resource``: its Resource class): the options it checks
        first, its ResourceTask (its path options and the wait options checked), then what the options ask."""
        def work(neon):
            problem = resource.options_problem(neon.params)
            if problem:
                neon.fail(problem)
            task = neon.resource_task(*resource.path_options, predicts_project=resource.predicts_project)
            return resource.run(task, neon.params)

        self.run(work)

    def run_writer(self, writer):
        """The work of a module that changes something outside the walk (``writer``: its Writer class,
        _resources/writer.py): the options it checks first, its ResourceTask (its path options, and the wait
        options when it has them, checked), then the writer built from the options, run."""
        def work(neon):
            problem = writer.options_problem(neon.params)
            if problem:
                neon.fail(problem)
            task = neon.resource_task(*writer.path_options, predicts_project=writer.predicts_project,
                                      waits=writer.waits)
            return writer.from_options(task, neon.params).run()

        self.run(work)

    def require_operation_id(self, value, option):
        if not isinstance(value, str) or not OPERATION_ID_PATTERN.match(value):
            self.fail("%s must be an operation id, a UUID such as 0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10, got %r"
                      % (option, one_line(value, 80)))

    # ------------------------------------------------------------------------------------------ results

    def warn(self, message):
        self.module.warn(self.scrubber.scrub(message))

    def fail(self, msg, **result):
        self._finish(failed=True, msg=msg, **result)

    def fail_from(self, error, **result):
        """One fail_json for an API error: its sentence plus the structured ``error``."""
        result.setdefault("changed", False)
        self.fail(error.describe(), error=error.to_dict(), **result)

    def _finish(self, failed=False, **result):
        pace = getattr(self.client, "pace", None)
        if pace is not None and pace.warning:
            result["warnings"] = list(result.get("warnings") or ()) + [pace.warning]
        for warning in result.pop("warnings", None) or ():
            self.warn(warning)
        for field in _SCRUBBED_FIELDS:
            if field in result:
                result[field] = self.scrubber.scrub_data(result[field])
        data = [field for field in result if field not in _SCRUBBED_FIELDS and field not in _SECRET_FIELDS]
        if self.scrubber.found_in(json.dumps([result[field] for field in data], default=str)):
            for field in data:
                result[field] = self.scrubber.scrub_data(result[field])
        if self.client is not None:
            self.client.close()
        if failed:
            self.module.fail_json(**result)
        self.module.exit_json(**result)

    def run(self, work):
        """Call ``work(self)``, which returns the result dict; failures end the task with what was done."""
        try:
            result = work(self)
        except NeonAPIError as error:
            self.fail_from(error)
        except TaskFailure as failure:
            self.fail(failure.msg, **failure.result)
        except (PathParameterError, OptionError) as error:
            self.fail(str(error))
        self._finish(**result)
