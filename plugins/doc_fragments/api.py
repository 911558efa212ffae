# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):

    # The connection options every module of neon.cloud takes.
    DOCUMENTATION = r"""
options:
  api_key:
    description:
      - The Neon API key used to authenticate.
      - If not set, the value of the E(NEON_API_KEY) environment variable is used.
      - One of the two is required; a task with neither fails, naming both.
      - Never shown in output, logs or diffs.
    type: str
  api_url:
    description:
      - Base URL of the Neon API v2, ending in the version segment. A trailing slash is ignored.
      - If not set, the value of the E(NEON_API_URL) environment variable is used, then the default.
      - Plain C(http://) is accepted only for this machine (C(localhost), C(127.0.0.0/8), C(::1)),
        such as a local simulator, and only when no proxy from the environment would carry it, unless
        O(api_allow_plain_http=true).
      - A URL with a user name or password (C(https://user:pass@host/...)) is refused; the API key is the
        only credential sent. Credentials of C(~/.netrc) are never sent either.
      - Proxies are taken from the environment (E(HTTPS_PROXY), E(HTTP_PROXY), E(ALL_PROXY), E(NO_PROXY)).
    type: str
    default: https://console.neon.tech/api/v2
  api_timeout:
    description:
      - Seconds one HTTP request may take in all - connecting, waiting for the answer and reading the whole
        of it - before it is given up. A request that gets no complete answer in time counts as a network
        error (see O(api_retries)).
    type: float
    default: 30
  api_retries:
    description:
      - How many times to repeat a request that failed in a way that is safe to repeat, such as HTTP 423 (project
        locked), 429 (rate limited) or 503.
      - A request that changes something (POST, PATCH, DELETE) is never repeated once the service may have
        carried it out. Which failures are repeated is listed in the
        R(API behaviour guide, ansible_collections.neon.cloud.docsite.api_behaviour.retries).
      - Set to V(0) to never repeat a request.
    type: int
    default: 5
  api_retry_max_delay:
    description:
      - The longest pause, in seconds, between two attempts of a request.
      - A C(Retry-After) header sent by the service is followed, up to this limit.
    type: float
    default: 30
  api_rate_limit:
    description:
      - The most requests a minute that every task with this API key sends to this O(api_url) from this machine,
        together - all forks, all playbook runs and ad hoc commands at the same time, and the
        C(neon.cloud.projects) inventory - after a burst of up to four seconds' worth of them (at most 40).
        Requests wait for their turn.
      - Neon answers HTTP 429 past about 700 requests a minute per account; the default stays below it. See the
        R(API behaviour guide, ansible_collections.neon.cloud.docsite.api_behaviour.pacing), also for where the
        shared pace is kept.
      - When the service answers HTTP 429, every task that shares the pace pauses for as long as the answer's
        C(Retry-After) asks (at most O(api_retry_max_delay)), not only the one that got it.
      - A request waits for its turn at most O(api_retry_max_delay) seconds; when the pace would hold it longer
        (a very low limit, many runs at once) it is sent then.
      - If not set, the value of the E(NEON_API_RATE_LIMIT) environment variable is used, then the default.
      - Set to V(0) to not pace the requests at all.
    type: float
    default: 650
  api_allow_plain_http:
    description:
      - Allow an O(api_url) with plain C(http://) to a host other than this machine.
      - The API key would cross the network unencrypted; leave this off unless a trusted proxy needs it.
    type: bool
    default: false
  validate_certs:
    description:
      - Whether to verify the TLS certificate of the API.
      - Only set to V(false) for a test service with a self-signed certificate. V(false) holds whatever CA
        bundle variables (E(REQUESTS_CA_BUNDLE), E(CURL_CA_BUNDLE)) the environment sets.
      - A certificate that cannot be verified fails the task at once; it is not retried.
    type: bool
    default: true
  ca_path:
    description:
      - A CA bundle (a PEM file) or a directory of CA certificates to verify the API's TLS certificate
        with, for a service behind a TLS-inspecting proxy or with a certificate of your own CA.
      - If not set, the first of the environment variables E(NEON_CA_PATH), E(REQUESTS_CA_BUNDLE) and
        E(CURL_CA_BUNDLE) that is set is used; without any, the CA bundle that C(requests) ships with.
      - Not used with O(validate_certs=false).
    type: path
requirements:
  - python >= 3.9
  - requests
seealso:
  - name: Neon API reference
    description: The Neon control-plane API v2.
    link: https://api-docs.neon.tech/reference/getting-started-with-neon-api
"""

    # Every module is in the action group neon.cloud.all (meta/runtime.yml).
    ACTION_GROUP = r"""
notes:
  - >-
    The modules talk to the API from the host they run on. For C(localhost), run them with the
    controller's Python, which has C(requests):
    C(ansible_python_interpreter: "{{ ansible_playbook_python }}"), or use C(delegate_to: localhost).
  - >-
    All modules belong to the action group C(neon.cloud.all), so the connection options can be set once with
    C(module_defaults: {group/neon.cloud.all: {api_key: ...}}).
attributes:
  action_group:
    description: Use C(group/neon.cloud.all) in C(module_defaults) to set the connection options of every module at once.
    support: full
    membership:
      - neon.cloud.all
  platform:
    description: Runs where Python with C(requests) can reach the API; usually the controller.
    support: full
    platforms: all
"""

    # The inventory plugin reads the same environment variables as the modules' fallbacks.
    # (Where several are set, Ansible takes the last one listed: NEON_CA_PATH wins.)
    INVENTORY = r"""
options:
  api_key:
    env:
      - name: NEON_API_KEY
  api_url:
    env:
      - name: NEON_API_URL
  api_rate_limit:
    env:
      - name: NEON_API_RATE_LIMIT
  ca_path:
    env:
      - name: CURL_CA_BUNDLE
      - name: REQUESTS_CA_BUNDLE
      - name: NEON_CA_PATH
"""

    # For the modules that change resources (project, branch, role, database, endpoint): waiting for the operations
    # they start.
    WAIT = r"""
options:
  wait:
    description:
      - Wait until every operation the task started has ended, so that what it made can be used right away
        (a branch's compute can be connected to, migrations can run).
      - An operation that ends with V(failed), V(error) or V(cancelled) fails the task; its message names the
        operation (id, action, status, error) and what the task had already changed.
      - What the task finds as asked but not ready yet is waited for too, on every run - a branch still being
        made or reset, a compute starting or suspending, a project, role or database whose operations still run
        (left by a run that timed out, or made by another run at the same time) - and returned as it is then.
      - With V(false), the task returns as soon as the service accepted each change, with the operations it
        started in RV(operations); wait for them later with M(neon.cloud.operation_wait).
    type: bool
    default: true
  wait_timeout:
    description:
      - Seconds to wait in all, for the operations the task started and, when the service refuses a change with
        HTTP 423 because operations of the project are running, for those to end before the change is asked again.
      - The task fails when operations are still running by then; what it changed is in its result.
    type: float
    default: 600
"""

    # For the modules of a branch's roles, databases and computes (role, database, endpoint): where they are.
    BRANCH_ITEM = r"""
options:
  project_id:
    description: The project's id.
    type: str
    required: true
  branch:
    description: The branch, by name or id. Without it, the project's default branch.
    type: str
"""

    # For the modules that only read.
    INFO_MODULE = r"""
attributes:
  check_mode:
    support: full
    details: This module only reads; it runs in check mode as it does outside it.
  diff_mode:
    support: N/A
    details: This module changes nothing, so it has no diff.
"""
