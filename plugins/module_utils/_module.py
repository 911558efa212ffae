# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Ansible side of every module: connection options, input checks, one client, errors.

A module builds a NeonModule with its own options and passes a function that does the work;
every NeonAPIError raised there becomes one fail_json with the structured ``error`` result.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible.module_utils.basic import AnsibleModule, env_fallback, missing_required_lib

from ansible_collections.neon.cloud.plugins.module_utils._client import (
    DEFAULT_API_URL,
    HAS_REQUESTS,
    REQUESTS_IMPORT_ERROR,
    NeonAPIError,
    NeonClient,
    validate_api_url,
)

# Keys are 64 characters of [a-z0-9]; anything but visible ASCII cannot go into the Authorization header.
API_KEY_PATTERN = re.compile(r"^[\x21-\x7e]+$")
OPERATION_ID_PATTERN = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
API_KEY_ENV = "NEON_API_KEY"
API_URL_ENV = "NEON_API_URL"

# Documented once in plugins/doc_fragments/api.py; validate-modules checks the two agree.
CONNECTION_ARGUMENT_SPEC = dict(
    api_key=dict(type="str", required=True, no_log=True, fallback=(env_fallback, [API_KEY_ENV])),
    api_url=dict(type="str", default=DEFAULT_API_URL, fallback=(env_fallback, [API_URL_ENV])),
    api_timeout=dict(type="float", default=30.0),
    api_retries=dict(type="int", default=5),
    api_retry_max_delay=dict(type="float", default=30.0),
    api_allow_plain_http=dict(type="bool", default=False),
    validate_certs=dict(type="bool", default=True),
)


class NeonModule:
    """An AnsibleModule with the connection options, their checks and a ready client."""

    def __init__(self, argument_spec, **kwargs):
        spec = dict(CONNECTION_ARGUMENT_SPEC)
        spec.update(argument_spec)
        self.module = AnsibleModule(argument_spec=spec, **kwargs)
        self.params = self.module.params
        if not HAS_REQUESTS:
            self.module.fail_json(msg=missing_required_lib("requests"), exception=str(REQUESTS_IMPORT_ERROR))
        self.require_positive("api_timeout")
        self.require_positive("api_retry_max_delay")
        if self.params["api_retries"] < 0:
            self.fail("api_retries must be 0 or more, got %s" % self.params["api_retries"])
        if not self.params["api_key"] or not self.params["api_key"].strip():
            self.fail("api_key is empty: set the api_key option or the %s environment variable" % API_KEY_ENV)
        if not API_KEY_PATTERN.match(self.params["api_key"].strip()):
            # Never echo it: requests would put the whole header, key included, into its error text.
            self.fail("api_key contains spaces, line breaks, control or non-ASCII characters, which cannot be sent "
                      "in an HTTP header; check how the key was copied (its value is not shown)")
        problem = validate_api_url(self.params["api_url"], self.params["api_allow_plain_http"])
        if problem:
            self.fail(problem)
        self.client = NeonClient(
            api_key=self.params["api_key"].strip(),
            api_url=self.params["api_url"],
            timeout=self.params["api_timeout"],
            validate_certs=self.params["validate_certs"],
            retries=self.params["api_retries"],
            retry_max_delay=self.params["api_retry_max_delay"],
        )

    @property
    def check_mode(self):
        return self.module.check_mode

    def require_positive(self, name):
        value = self.params.get(name)
        if value is not None and value <= 0:
            self.fail("%s must be greater than 0, got %s" % (name, value))
        if value is not None and not value < float("inf"):  # nan or inf: no usable time limit
            self.fail("%s must be a finite number, got %s" % (name, value))

    def require_text(self, name):
        """A path parameter must not be empty: ``/projects//operations`` would read as another resource."""
        value = self.params.get(name)
        if value is not None and not value.strip():
            self.fail("%s must not be empty" % name)

    def require_operation_id(self, value, option):
        if not isinstance(value, str) or not OPERATION_ID_PATTERN.match(value):
            self.fail("%s must be an operation id, a UUID such as 0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10, got %r"
                      % (option, value))

    def warn(self, message):
        self.module.warn(message)

    def fail(self, msg, **result):
        self.module.fail_json(msg=msg, **result)

    def fail_from(self, error, **result):
        """One fail_json for an API error: its sentence plus the structured ``error``."""
        result.setdefault("changed", False)
        self.module.fail_json(msg=str(error), error=error.to_dict(), **result)

    def run(self, work):
        """Call ``work(self)``, which returns the result dict; API errors fail the task."""
        try:
            result = work(self)
        except NeonAPIError as error:
            self.fail_from(error)
        finally:
            self.client.close()
        self.module.exit_json(**result)
