# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The simulator the benchmark runs against, and the collection made importable.

The simulator runs in its own process, so that its work does not share the benchmark's
interpreter lock: one given in the environment (a loopback NEON_API_URL with NEON_API_KEY, as
a caller may set them), or else one this module starts on 127.0.0.1 and stops
again. Only a loopback URL is ever used: the benchmark sends thousands of requests and must
never reach the live service.
"""

import os
import shutil
import sys
import tempfile

import requests

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIMULATOR_DIR = os.path.join(REPO, "tests", "simulator")
if SIMULATOR_DIR not in sys.path:
    sys.path.insert(0, SIMULATOR_DIR)
from neon_simulator.launcher import SimulatorDidNotStart, is_loopback_url, launch  # noqa: E402  pylint: disable=wrong-import-position
START_TIMEOUT = 30.0


class SimulatorHandle:
    """API URL, key and control calls of one simulator (started here or given)."""

    def __init__(self, api_url, api_key, process=None):
        if not is_loopback_url(api_url):
            raise SystemExit("benchmark: refusing %s: the benchmark runs against the local simulator only "
                             "(a loopback NEON_API_URL)" % api_url)
        self.api_url = api_url.rstrip("/")
        self.api_key = api_key
        self.base_url = self.api_url[:-len("/api/v2")] if self.api_url.endswith("/api/v2") else self.api_url
        self.control_url = self.base_url + "/_simulator"
        self.process = process  # the launcher's SimulatorProcess of one started here
        self.http = requests.Session()
        self.started_here = process is not None

    @property
    def headers(self):
        return {"Authorization": "Bearer " + self.api_key, "Accept": "application/json"}

    # ------------------------------------------------------------------ lifecycle
    @classmethod
    def from_env_or_start(cls, python=None):
        url, key = os.environ.get("NEON_API_URL"), os.environ.get("NEON_API_KEY")
        if url and key and is_loopback_url(url):
            handle = cls(url, key)
            handle.check()
            return handle
        if url:
            print("benchmark: ignoring NEON_API_URL=%s (not a local simulator); starting one" % url,
                  file=sys.stderr, flush=True)
        return cls.start(python or sys.executable)

    @classmethod
    def start(cls, python, operation_pace=None):
        """A simulator of this process's own; ``operation_pace`` scales how long the operations API calls
        start take (the simulator's --operation-pace; its default, 1, when None)."""
        try:
            launched = launch(source=SIMULATOR_DIR, command=[python, "-m", "neon_simulator"],
                              operation_pace=operation_pace, start_timeout=START_TIMEOUT)
        except SimulatorDidNotStart as error:
            raise SystemExit("benchmark: %s" % error) from None
        handle = cls(launched.url, launched.api_key, launched)
        handle.check()
        return handle

    def check(self):
        try:
            answer = self.http.get(self.control_url + "/health", timeout=10)
        except requests.RequestException as exc:
            raise SystemExit("benchmark: no simulator at %s: %s" % (self.control_url, exc)) from None
        if answer.status_code != 200:
            raise SystemExit("benchmark: %s/health answered HTTP %s" % (self.control_url, answer.status_code))

    def stop(self):
        self.http.close()
        if self.process is not None:
            self.process.stop()

    # ------------------------------------------------------------------ control API
    def _control(self, method, path, **kwargs):
        answer = self.http.request(method, self.control_url + path, timeout=60, **kwargs)
        if answer.status_code >= 400:
            raise SystemExit("benchmark: %s %s answered HTTP %s: %s"
                             % (method, path, answer.status_code, answer.text[:300]))
        return answer.json()

    def create_project(self, name):
        return self._control("POST", "/projects", json={"name": name})["id"]

    def add_history(self, project_id, count, seed=None):
        return self._control("POST", "/projects/%s/history" % project_id,
                             json={"count": count, "days": 30, "seed": seed})

    def start_operations(self, project_id, specs):
        return self._control("POST", "/projects/%s/operations" % project_id, json={"operations": specs})["operations"]

    def create_organization(self, name):
        return self._control("POST", "/organizations", json={"name": name})["id"]

    def create_projects(self, count, org_id):
        return self._control("POST", "/projects/bulk", json={"count": count, "org_id": org_id, "name_prefix": "bench"})

    def info(self):
        return self._control("GET", "/info")

    def create_key(self, name):
        return self._control("POST", "/keys", json={"name": name})

    def age_key(self, key_id, created_days_ago):
        return self._control("POST", "/keys/%d/age" % key_id, json={"created_days_ago": created_days_ago})

    def script_operations(self, spec):
        """POST /_simulator/next_operations: fields for the next operations the API starts."""
        return self._control("POST", "/next_operations", json=spec)

    def set_rate_limits(self, **spec):
        """POST /_simulator/rate_limits: ``per_key`` (requests a second, None: off), ``per_key_burst``, ..."""
        return self._control("POST", "/rate_limits", json=spec)

    def clear_requests(self):
        self._control("DELETE", "/requests")

    def requests_log(self):
        return self._control("GET", "/requests")["requests"]


class CollectionPath:
    """A temporary copy of the collection at ``.../ansible_collections/neon/cloud``.

    Only what a module run needs is copied (galaxy.yml, meta/, plugins/), without .pyc files:
    the collection's code is compiled from source on import, as it is inside AnsiballZ.
    """

    PARTS = ("galaxy.yml", "meta", "plugins")

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="neon-bench-")
        self.link = os.path.join(self.root, "ansible_collections", "neon", "cloud")
        os.makedirs(self.link)
        for part in self.PARTS:
            source = os.path.join(REPO, part)
            if os.path.isdir(source):
                shutil.copytree(source, os.path.join(self.link, part),
                                ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            elif os.path.exists(source):
                shutil.copy2(source, self.link)

    def add_to_sys_path(self):
        if self.root not in sys.path:
            sys.path.insert(0, self.root)

    def remove(self):
        shutil.rmtree(self.root, ignore_errors=True)
