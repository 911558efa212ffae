# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The connection options (plugins/doc_fragments/api.py), checked, and the client they make.

Shared by the modules (_module.py) and the inventory plugin, so that both refuse the same input
with the same words and talk to the API the same way.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

try:
    from urllib.parse import urlsplit
except ImportError:  # pragma: no cover - Python 2 is not supported, keeps the import sanity test quiet
    from urlparse import urlsplit  # type: ignore

from ansible_collections.neon.cloud.plugins.module_utils._api.client import NeonClient
from ansible_collections.neon.cloud.plugins.module_utils._api.redaction import one_line
from ansible_collections.neon.cloud.plugins.module_utils._api.transport import check_api_url

# Keys are 64 characters of [a-z0-9]; anything but visible ASCII cannot go into the Authorization header.
API_KEY_PATTERN = re.compile(r"^[\x21-\x7e]+$")
API_KEY_ENV = "NEON_API_KEY"
API_URL_ENV = "NEON_API_URL"
RATE_LIMIT_ENV = "NEON_API_RATE_LIMIT"
# ca_path falls back to our own variable, then to the CA bundle variables that requests users set.
CA_PATH_ENV = ("NEON_CA_PATH", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")


class ConnectionOptionError(ValueError):
    """A connection option that cannot be used; the message never holds the API key."""


def url_credentials(url):
    """The user name and password of a URL (``https://user:pass@host``), to be hidden wherever it shows."""
    try:
        parts = urlsplit(url or "")
        userinfo = [parts.username, parts.password]
    except ValueError:
        userinfo = [re.sub(r"^[^:]*://", "", url or "").partition("@")[0]] if "@" in (url or "") else []
    return [value for value in userinfo if value]


def _positive(options, name):
    value = options.get(name)
    if value is not None and value <= 0:
        raise ConnectionOptionError("%s must be greater than 0, got %s" % (name, value))
    if value is not None and not value < float("inf"):  # nan or inf: no usable time limit
        raise ConnectionOptionError("%s must be a finite number, got %s" % (name, value))


def key_problem(name, key, empty_hint):
    """What is wrong with the value of ``name``, an API key option (``empty_hint``: what to do when it is empty);
    None: nothing. Never its value: requests would put the whole header, key included, into its error text."""
    if not key.strip():
        return "%s is empty: %s" % (name, empty_hint)
    if not API_KEY_PATTERN.match(key.strip()):
        return ("%s contains spaces, line breaks, control or non-ASCII characters, which cannot be sent in an HTTP "
                "header; check how the key was copied (its value is not shown)" % name)
    return None


def check_options(options):
    """Raise ConnectionOptionError for the first option that cannot be used; returns the stripped key."""
    _positive(options, "api_timeout")
    _positive(options, "api_retry_max_delay")
    rate_limit = options.get("api_rate_limit")
    if rate_limit is not None and not 0 <= rate_limit < float("inf"):
        raise ConnectionOptionError("api_rate_limit must be 0 (not paced) or a number of requests a minute above 0, "
                                    "got %s" % rate_limit)
    if options["api_retries"] < 0:
        raise ConnectionOptionError("api_retries must be 0 or more, got %s" % options["api_retries"])
    api_key = options["api_key"]
    if api_key is None:
        raise ConnectionOptionError("api_key is required: set the api_key option (or group/neon.cloud.all in "
                                    "module_defaults), or the %s environment variable" % API_KEY_ENV)
    problem = key_problem("api_key", api_key, "set the api_key option or the %s environment variable" % API_KEY_ENV)
    if problem:
        raise ConnectionOptionError(problem)
    problem = check_api_url(options["api_url"], options["api_allow_plain_http"])
    if problem:
        raise ConnectionOptionError(problem)
    ca_path = ca_path_in_use(options)
    if ca_path and not os.path.exists(ca_path):
        raise ConnectionOptionError(
            "ca_path %s does not exist: give a CA bundle file (PEM) or a directory of CA certificates (it may come "
            "from the ca_path option or %s)" % (one_line(ca_path, 200), ", ".join(CA_PATH_ENV)))
    return api_key.strip()


def ca_path_in_use(options):
    return options["ca_path"] if options["validate_certs"] else None


def make_client(options, **extra):
    """A NeonClient from checked options (check_options first)."""
    return NeonClient(
        api_key=options["api_key"].strip(),
        api_url=options["api_url"],
        timeout=options["api_timeout"],
        validate_certs=options["validate_certs"],
        ca_path=ca_path_in_use(options),
        retries=options["api_retries"],
        retry_max_delay=options["api_retry_max_delay"],
        rate_limit=options.get("api_rate_limit") or None,  # 0: not paced
        **extra
    )
