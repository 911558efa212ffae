# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Shared pieces of the reliability suite: an in-process module runner, the fault classes and the module targets of the fault matrix.

scripts/gen_reliability_report.py imports this file too (FAULTS, TARGETS, MODES) to know what a
complete run looks like.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import email.utils
import importlib
import io
import json
import os
import re
import subprocess
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS_ENV = "NEON_RELIABILITY_RESULTS"
DEFAULT_RESULTS = os.path.join(ROOT, "tests", "output", "reliability", "results.json")
DOC_PATH = os.path.join(ROOT, "docs", "docsite", "rst", "reliability.rst")

# Connection settings of every matrix run: small pauses keep the suite fast; the policy is the same.
RETRIES = 3  # so a fault that persists costs RETRIES + 1 attempts
MAX_DELAY = 0.05
API_TIMEOUT = 1.0
SLOW_API_TIMEOUT = 0.3  # the "slow" fault answers after SLOW_LATENCY, past this api_timeout
SLOW_LATENCY = 0.45
# No pace (api_rate_limit 0) unless a test asks for one: the pace is shared by everything that uses the
# simulator's key, so a 429 one test provokes would hold the next tests' requests, and their timing would depend
# on the order the tests ran in. The pace itself: test_shared_pace.py and the unit tests of _api/pacing.py.
PACE = 0
TRANSIENT_COUNT = 2  # faulty answers before the service heals
PERSISTENT_COUNT = 1000  # never runs out within one task
WAIT_TIMEOUT = 0.8  # operation_wait's timeout when a 423 persists: the wait polls through a lock until then
WAIT_TIMEOUT_LONG = 10  # operation_wait's timeout otherwise: the client's retries of any fault fit well within it
WAIT_POLL = 0.1
OPERATION_DURATION = 0.25


# ---------------------------------------------------------------------------------------------- running modules

OWN_FAULT = "neon.cloud met a fault of its own"


class ModuleRun:
    """What one in-process module run gave: exit code, result dict, raw output, crash text."""

    def __init__(self, rc, stdout, crash, elapsed):
        self.rc = rc
        self.stdout = stdout
        self.crash = crash
        self.elapsed = elapsed
        self.result = None
        if crash is None:
            try:
                self.result = json.loads(stdout)
            except ValueError:
                self.crash = "module output is not JSON: %r" % stdout[-2000:]
        if OWN_FAULT in str((self.result or {}).get("msg")):
            # A fault of the collection's code, which a module reports as a failure (_resources/task.py, fault)
            # rather than a traceback: a crash all the same to every test that checks for one.
            self.crash = "the module met a fault of its own: %s" % self.result["msg"]

    @property
    def failed(self):
        return self.rc != 0 or bool((self.result or {}).get("failed"))

    @property
    def msg(self):
        return (self.result or {}).get("msg", "")

    def text(self):
        """Everything the run produced, for searching secrets and tracebacks."""
        return self.stdout + (self.crash or "")

    def describe(self):
        return "rc=%s elapsed=%.2f crash=%s\n%s" % (self.rc, self.elapsed, self.crash, self.stdout[-4000:])


def task(sim, module, check_mode=False, diff=False, **args):
    """One ``module`` task against ``sim``, in this process, as a playbook task would run it: it must
    not crash, and its output must not show the simulator's key."""
    result = run_module(module, connection_args(sim, **args), check_mode=check_mode, diff=diff)
    assert result.crash is None, result.describe()
    assert sim.api_key not in result.text(), "the API key leaked"
    return result


def ok(result):
    """The result of a task that must have succeeded."""
    assert not result.failed, result.describe()
    return result.result


def failed(result):
    """The result of a task that must have failed."""
    assert result.failed, result.describe()
    return result.result


def last_seq(sim):
    """The sequence number of the simulator's last logged request (0 before any)."""
    entries = sim.requests()
    return entries[-1]["seq"] if entries else 0


@contextlib.contextmanager
def as_a_module_process():
    """ansible-core 2.19+ shows a module's warnings on the controller's display instead of in its result once
    this process has imported controller code (``_internal.is_controller``: another test read a vault file or
    an inventory here). A module process never has: while a module runs here, it is not the controller."""
    try:
        from ansible.module_utils import _internal as ansible_internal
    except ImportError:  # ansible-core before 2.19: warnings always go to the result
        yield
        return
    controller = getattr(ansible_internal, "is_controller", False)
    ansible_internal.is_controller = False
    try:
        yield
    finally:
        ansible_internal.is_controller = controller


def run_module(name, args, check_mode=False, diff=False):
    """Run plugins/modules/<name>.py's main() in this process, as AnsiballZ would."""
    from ansible.module_utils.testing import patch_module_args

    from ansible.module_utils.common import warnings as ansible_warnings

    # A module's warnings gather in ansible's module-wide lists: a module process runs one module,
    # this process many, so one run's warnings must not show in the next one's result.
    ansible_warnings._global_warnings.clear()  # pylint: disable=protected-access
    ansible_warnings._global_deprecations.clear()  # pylint: disable=protected-access
    module = importlib.import_module("ansible_collections.neon.cloud.plugins.modules.%s" % name)
    args = dict(args, _ansible_check_mode=check_mode, _ansible_diff=diff, _ansible_verbosity=3)
    out = io.StringIO()
    rc = None
    crash = None
    started = time.monotonic()
    with patch_module_args(args), contextlib.redirect_stdout(out), as_a_module_process():
        try:
            module.main()
            rc = 0
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception:  # pylint: disable=broad-except  # a crash is a result: the test reports it
            crash = traceback.format_exc()
    return ModuleRun(rc, out.getvalue(), crash, time.monotonic() - started)


def start_module_processes(collection_parent, tmp_path, name, argsets):
    """Module processes of plugins/modules/<name>.py started at once, one per args dict, as
    simultaneous playbook runs (AWX jobs) run one task: each its own process, its arguments in a
    file as AnsiballZ's debug mode reads them. Collect them with module_process_results()."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([collection_parent, os.environ.get("PYTHONPATH", "")]))
    processes = []
    for index, args in enumerate(argsets):
        path = tmp_path / ("%s-%d-args.json" % (name, index))
        path.write_text(json.dumps({"ANSIBLE_MODULE_ARGS": args}))
        processes.append(subprocess.Popen(
            [sys.executable, "-m", "ansible_collections.neon.cloud.plugins.modules.%s" % name, str(path)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, env=env))
    return processes


def module_process_results(processes, timeout):
    """The result dict of each process, in order; none may crash."""
    results = []
    for process in processes:
        stdout, stderr = process.communicate(timeout=timeout)
        assert "Traceback" not in stdout + stderr, stdout + stderr
        results.append(json.loads(stdout))
    return results


def results_path():
    """Where the suite's results are written (tests/reliability/conftest.py) and read."""
    return os.environ.get(RESULTS_ENV) or DEFAULT_RESULTS


def connection_args(sim, slow=False, **extra):
    args = dict(api_key=sim.api_key, api_url=sim.url, api_retries=RETRIES, api_retry_max_delay=MAX_DELAY,
                api_timeout=SLOW_API_TIMEOUT if slow else API_TIMEOUT, api_rate_limit=PACE)
    args.update(extra)
    return args


# ---------------------------------------------------------------------------------------------- normalising

_NORMALISE = (
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"), "<time>"),
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<uuid>"),
    (re.compile(r"over \d+(\.\d+)? s"), "over <t> s"),
    (re.compile(r"https?://127\.0\.0\.1:\d+"), "<sim>"),
    (re.compile(r"key \d{6,}"), "key <id>"),
    (re.compile(r"id=\d{6,}"), "id=<id>"),
    # a key's id in an excerpt of a cut answer: how many keys came before depends on which tests
    # ran first in the same simulator (pytest-xdist shares them out anew each run)
    (re.compile(r'"id":\d{6,}'), '"id":<id>'),
    (re.compile(r"/api_keys/\d+"), "/api_keys/<id>"),
    (re.compile(r"(?<=still active: )\d{6,}"), "<id>"),
    (re.compile(r"HTTPConnectionPool\(host='127\.0\.0\.1', port=\d+\)"), "HTTPConnectionPool(<sim>)"),
    (re.compile(r"\brel-[a-z-]*\d+\b"), "<name>"),
    (re.compile(r"\b[a-z]+-[a-z]+-\d{8}\b"), "<project>"),
    (re.compile(r"\b(br|ep)-[a-z]+-[a-z]+-[a-z0-9]{8}\b"), "<\\1>"),
)


def normalise(text, timing=False):
    """A message without the parts that change from run to run (ids, ports, durations).

    ``timing``: also the attempt counts that depend on timing (a wait's deadline cuts retries short).
    """
    text = text or ""
    for pattern, replacement in _NORMALISE:
        text = pattern.sub(replacement, text)
    if timing:
        text = re.sub(r"; gave up after \d+ attempts over <t> s", "", text)
        text = re.sub(r"\) (scheduling|running), failures_count", ") <status>, failures_count", text)
    return _shorten_excerpts(text)


_EXCERPT_START = re.compile(r"(not valid JSON: |not a JSON error: |, got )")
# As many characters of an excerpt as every run shows: an answer cut in half ends where half its
# length falls, which moves with the lengths of the key id and name in it (48 characters showed
# '"name":"r' in one run and '"name":"' in another: a flaky report).
EXCERPT_SHOWN = 30


def _shorten_excerpts(text):
    """Body excerpts cut to their first characters: where the module cut them depends on ids' lengths."""
    out = []
    position = 0
    for match in _EXCERPT_START.finditer(text):
        if match.start() < position:
            continue
        end = text.find(" (request id", match.end())
        end = len(text) if end < 0 else end
        body = text[match.end():end]
        out.append(text[position:match.end()])
        out.append(body if len(body) <= EXCERPT_SHOWN else body[:EXCERPT_SHOWN] + "...")
        position = end
    out.append(text[position:])
    return "".join(out)


# ---------------------------------------------------------------------------------------------- fault classes

class FaultClass:
    def __init__(self, fault_id, label, spec, slow=False):
        self.id = fault_id
        self.label = label
        self._spec = spec
        self.slow = slow

    def spec(self):
        spec = dict(self._spec)
        if spec.get("retry_after") == "<http-date>":
            spec["retry_after"] = email.utils.formatdate(time.time() + 2, usegmt=True)
        return spec


FAULTS = [
    FaultClass("429", "HTTP 429, no Retry-After", dict(status=429)),
    FaultClass("429-ra", "HTTP 429, Retry-After: 1 (seconds)", dict(status=429, retry_after="1")),
    FaultClass("429-date", "HTTP 429, Retry-After as an HTTP date", dict(status=429, retry_after="<http-date>")),
    FaultClass("423", "HTTP 423 Locked", dict(status=423)),
    FaultClass("500", "HTTP 500 (JSON error)", dict(status=500)),
    FaultClass("502", "HTTP 502 (JSON error)", dict(status=502)),
    FaultClass("503", "HTTP 503 (JSON error)", dict(status=503)),
    FaultClass("504", "HTTP 504 (JSON error)", dict(status=504)),
    FaultClass("drop", "connection dropped, request not carried out", dict(drop=True)),
    FaultClass("drop-applied", "connection dropped after the service carried it out", dict(drop=True, apply=True)),
    FaultClass("slow", "answer later than api_timeout (read timeout)", dict(latency=SLOW_LATENCY), slow=True),
    FaultClass("html", "HTML error page (CDN, HTTP 502)", dict(body="html")),
    FaultClass("html-200", "HTML page with HTTP 200", dict(body="html", status=200)),
    FaultClass("empty", "empty body (HTTP 502)", dict(body="empty")),
    FaultClass("truncated", "truncated JSON (HTTP 200, half the real answer)", dict(body="truncated")),
    FaultClass("malformed", "malformed JSON (HTTP 200)", dict(body="malformed")),
    FaultClass("wrongshape", "JSON of the wrong shape (HTTP 200)", dict(body="wrongshape")),
]
FAULTS_BY_ID = dict((fault.id, fault) for fault in FAULTS)
MODES = ("transient", "persistent")

RETRY_ANY_METHOD = ("429", "429-ra", "429-date", "423", "503")
WAITED_OUT = ("423",)  # a wait polls through these until its timeout; any other fault ends it as it fails a read
CARRIED_OUT = ("drop-applied", "truncated")  # the real request ran before the faulty answer
AMBIGUOUS = ("500", "502", "504", "drop", "slow", "html", "html-200", "empty", "malformed")  # + CARRIED_OUT

FAULT_MESSAGES = {
    "429": r"HTTP 429: too many requests",
    "429-ra": r"HTTP 429: too many requests",
    "429-date": r"HTTP 429: too many requests",
    "423": r"HTTP 423: project already has running conflicting operations",
    "500": r"HTTP 500: internal server error",
    "502": r"HTTP 502: bad gateway",
    "503": r"HTTP 503: service unavailable",
    "504": r"HTTP 504: gateway timeout",
    "drop": r"the connection failed: ",
    "drop-applied": r"the connection failed: ",
    "slow": r"no answer within 0\.3 s \(api_timeout\)",
    "html": r"HTTP 502: the service answered a body that is not a JSON error: <html>.*502 Bad Gateway",
    "html-200": r"HTTP 200 but the body is not valid JSON: <html>",
    "empty": r"HTTP 502: the service answered an empty body",
    "truncated": r"HTTP 200 but the body is not valid JSON: [{\[]",
    "malformed": r"HTTP 200 but the body is not valid JSON: \{\"operations\": ",
    "wrongshape": r"unexpected answer \(HTTP 200\): .+ must be .+, got ",
}


# ---------------------------------------------------------------------------------------------- targets

class Target:
    """One module doing one kind of request, with the route the fault is put on."""

    def __init__(self, target_id, module, label, method, path, kind, prepare, check, pages=1,
                 keys_path="/api_keys"):
        self.id = target_id
        self.module = module
        self.label = label
        self.method = method
        self.path = path  # fnmatch glob of the simulator's fault
        self.kind = kind  # get | post | delete | wait
        self.prepare = prepare
        self.check = check
        self.pages = pages  # requests to the route when nothing goes wrong
        self.keys_path = keys_path  # where the keys it creates or revokes are listed (below /api/v2)

    @property
    def route(self):
        """The request as messages name it, as a regular expression (``POST /api_keys``)."""
        return r"%s %s" % (self.method, re.escape(self.keys_path) + (r"/\d+" if self.kind == "delete" else ""))


_counter = [0]


def unique_name(prefix="rel"):
    """A name no earlier test used (since the last restart_names())."""
    _counter[0] += 1
    return "%s-%d" % (prefix, _counter[0])


def restart_names():
    """After a simulator reset: the same test gets the same names (and ids) in every run."""
    _counter[0] = 0


def api(sim, method, path, **kwargs):
    """A direct request to the simulator's API with the bootstrap key (test set-up only)."""
    import requests
    response = requests.request(method, sim.url + path, headers=sim.headers, timeout=10, **kwargs)
    response.raise_for_status()
    return response.json()


def _prep_key_info(sim, ctx):
    return {}


def _check_key_info(sim, ctx, result):
    assert [key for key in result["api_keys"] if key["name"] == "bootstrap"], result


def _prep_key_list(sim, ctx):
    return dict(name="bootstrap", state="present")


def _check_key_list(sim, ctx, result):
    assert result["changed"] is False and result["api_key"]["name"] == "bootstrap", result
    assert "key" not in result


def _prep_key_create(sim, ctx):
    ctx["name"] = unique_name()
    return dict(name=ctx["name"], state="present")


def _check_key_create(sim, ctx, result):
    assert result["changed"] is True and result["api_key"]["name"] == ctx["name"], result
    assert re.match(r"^[a-z0-9]{64}$", result["key"]), "no secret in key"
    assert "key" not in result["api_key"]


def _prep_key_revoke(sim, ctx):
    created = api(sim, "POST", "/api_keys", json={"key_name": unique_name("rel-revoke")})
    ctx["id"] = created["id"]
    return dict(id=created["id"], state="absent")


def _check_key_revoke(sim, ctx, result):
    assert result["changed"] is True and [key["id"] for key in result["revoked_keys"]] == [ctx["id"]], result
    assert [key for key in sim.keys() if key["id"] == ctx["id"]][0]["revoked"] is True


# Organization keys: the seeded organization, which the bootstrap key's user administers, and a
# project of it; the keys are project-scoped, the least-privilege kind.
ORG_ID = "org-calm-tree-21298941"
ORG_PROJECT = "bold-glade-61830452"
ORG_KEYS = "/organizations/%s/api_keys" % ORG_ID


def _prep_org_key_create(sim, ctx):
    ctx["name"] = unique_name("rel-org")
    return dict(name=ctx["name"], state="present", org_id=ORG_ID, project_id=ORG_PROJECT)


def _check_org_key_create(sim, ctx, result):
    _check_key_create(sim, ctx, result)
    assert result["api_key"]["project_id"] == ORG_PROJECT and result["api_key"]["key_type"] == "project_scoped"


def _prep_org_key_revoke(sim, ctx):
    created = api(sim, "POST", ORG_KEYS, json={"key_name": unique_name("rel-org-revoke"), "project_id": ORG_PROJECT})
    ctx["id"] = created["id"]
    return dict(id=created["id"], state="absent", org_id=ORG_ID)


def _prep_projects(sim, ctx):
    return dict(project_id=sim.demo_project_id)


def _check_projects(sim, ctx, result):
    assert [project["id"] for project in result["projects"]] == [sim.demo_project_id], result


def _prep_ops_list(sim, ctx):
    return dict(project_id=sim.demo_project_id, page_size=100, max_results=150)


def _check_ops_list(sim, ctx, result):
    assert len(result["operations"]) == 150 and result["cursor"], result
    assert len(set(operation["id"] for operation in result["operations"])) == 150


def _prep_ops_one(sim, ctx):
    newest = api(sim, "GET", "/projects/%s/operations" % sim.demo_project_id, params={"limit": 5})["operations"]
    ctx["operation_id"] = newest[-1]["id"]
    return dict(project_id=sim.demo_project_id, operation_id=ctx["operation_id"])


def _check_ops_one(sim, ctx, result):
    assert result["operation"]["id"] == ctx["operation_id"], result


def _start_operation(sim, ctx):
    name = unique_name("rel-project")
    project = sim.create_project(name=name, id="reliability-wait-%08d" % _counter[0])
    ctx["project_id"] = project["id"]
    ctx["operation_id"] = sim.start_operations(project["id"], action="create_branch",
                                               duration=OPERATION_DURATION, scheduling=0.05)[0]["id"]


def _prep_wait_ids(sim, ctx):
    _start_operation(sim, ctx)
    return dict(project_id=ctx["project_id"], operation_ids=[ctx["operation_id"]], poll_interval=WAIT_POLL)


def _prep_wait_idle(sim, ctx):
    _start_operation(sim, ctx)
    return dict(project_id=ctx["project_id"], poll_interval=WAIT_POLL)


def _check_wait(sim, ctx, result):
    assert [(operation["id"], operation["status"]) for operation in result["operations"]] == [
        (ctx["operation_id"], "finished")], result
    assert result["failed_operations"] == []


def _check_wait_idle(sim, ctx, result):
    """The project is idle; the operation is listed unless it ended before the first listing got through."""
    assert [(operation["id"], operation["status"]) for operation in result["operations"]] in (
        [], [(ctx["operation_id"], "finished")]), result
    status = api(sim, "GET", "/projects/%s/operations/%s" % (ctx["project_id"], ctx["operation_id"]))
    assert status["operation"]["status"] == "finished"


TARGETS = [
    Target("api_key_info", "api_key_info", "api_key_info: GET /api_keys", "GET", "/api/v2/api_keys", "get",
           _prep_key_info, _check_key_info),
    Target("api_key.list", "api_key", "api_key (key exists): GET /api_keys", "GET", "/api/v2/api_keys", "get",
           _prep_key_list, _check_key_list),
    Target("api_key.create", "api_key", "api_key (create): POST /api_keys", "POST", "/api/v2/api_keys", "post",
           _prep_key_create, _check_key_create),
    Target("api_key.revoke", "api_key", "api_key (state=absent): DELETE /api_keys/{id}", "DELETE",
           "/api/v2/api_keys/*", "delete", _prep_key_revoke, _check_key_revoke),
    Target("api_key.org_create", "api_key", "api_key (create a project-scoped key): POST /organizations/{org_id}/api_keys",
           "POST", "/api/v2/organizations/*/api_keys", "post", _prep_org_key_create, _check_org_key_create,
           keys_path=ORG_KEYS),
    Target("api_key.org_revoke", "api_key", "api_key (revoke an organization key): DELETE /organizations/{org_id}/api_keys/{id}",
           "DELETE", "/api/v2/organizations/*/api_keys/*", "delete", _prep_org_key_revoke, _check_key_revoke,
           keys_path=ORG_KEYS),
    Target("projects_info", "projects_info", "projects_info: GET /projects", "GET", "/api/v2/projects", "get",
           _prep_projects, _check_projects),
    Target("operation_info.list", "operation_info", "operation_info (list, 2 pages): GET .../operations", "GET",
           "/api/v2/projects/*/operations", "get", _prep_ops_list, _check_ops_list, pages=2),
    Target("operation_info.one", "operation_info", "operation_info (one): GET .../operations/{id}", "GET",
           "/api/v2/projects/*/operations/*", "get", _prep_ops_one, _check_ops_one),
    Target("operation_wait.ids", "operation_wait", "operation_wait (by id): polls GET .../operations/{id}", "GET",
           "/api/v2/projects/*/operations/*", "wait", _prep_wait_ids, _check_wait),
    Target("operation_wait.idle", "operation_wait", "operation_wait (project idle): polls GET .../operations",
           "GET", "/api/v2/projects/*/operations", "wait", _prep_wait_idle, _check_wait_idle),
]
TARGETS_BY_ID = dict((target.id, target) for target in TARGETS)


# ---------------------------------------------------------------------------------------------- expectations

class Expected:
    """What the collection must do for one (target, fault, mode)."""

    def __init__(self, outcome, message=None, route_requests=None, keys_created=None, changed=None):
        self.outcome = outcome  # healed | failed
        self.message = message  # regex the failure message must match
        self.route_requests = route_requests  # requests to the faulted route, when deterministic
        self.keys_created = keys_created  # api_key create: keys the service made with that name
        self.changed = changed


def wait_timeout(fault_id, mode):
    """operation_wait's timeout in the fault matrix."""
    return WAIT_TIMEOUT if mode == "persistent" and fault_id in WAITED_OUT else WAIT_TIMEOUT_LONG


def expected(target, fault_id, mode):
    transient = mode == "transient"
    attempts = RETRIES + 1
    fault_text = FAULT_MESSAGES[fault_id]
    route = "%s %s" % (target.method, r"/\S+")
    if fault_id == "wrongshape":  # a 200 of the wrong shape is not a fault that heals by waiting
        message = r"^%s failed: %s" % (route, fault_text)
        if target.kind == "post":
            return Expected("failed", message, route_requests=1, keys_created=0)
        return Expected("failed", message, route_requests=1)
    if target.kind in ("get", "wait") or fault_id in RETRY_ANY_METHOD:
        if transient:
            return Expected("healed", route_requests=None if target.kind == "wait" else TRANSIENT_COUNT + target.pages,
                            keys_created=1 if target.kind == "post" else None)
        if target.kind == "wait" and fault_id in WAITED_OUT:
            waited = (" with 1 of 1 operations still in progress: .*" if target.id == "operation_wait.ids"
                      else ": the project's operations could not be listed")
            return Expected("failed", r"^Timed out after %s s%s\. The last poll failed: GET /\S+ failed: %s" % (
                WAIT_TIMEOUT, waited, fault_text))
        # a wait's poll fails as a read does once the client has spent its retries (issue 28)
        return Expected("failed", r"^%s failed: %s.*; gave up after %d attempts over \d+\.\d s" % (
            route, fault_text, attempts), route_requests=attempts, keys_created=0 if target.kind == "post" else None)
    # POST or DELETE, and a fault after which the request may have been carried out
    if target.kind == "post":
        if fault_id in CARRIED_OUT:
            return Expected("failed", r"^%s failed: %s.*the service did create key \d+ .*"
                                      r"Nothing was created twice" % (target.route, fault_text),
                            route_requests=1, keys_created=1, changed=True)
        if fault_id in ("slow", "504"):  # maybe still running on the service: asking again could make a second key
            return Expected("failed", r"^%s failed: %s.*may still be carrying it out.*"
                                      r"was not asked again" % (target.route, fault_text), route_requests=1,
                            keys_created=1 if fault_id == "slow" else 0)
        if transient:
            return Expected("healed", route_requests=TRANSIENT_COUNT + 1, keys_created=1)
        return Expected("failed", r"^%s failed: %s.*listed after each of %d attempts.*no key was "
                                  r"created.*over \d+\.\d s" % (target.route, fault_text, attempts),
                        route_requests=attempts, keys_created=0)
    # DELETE: the keys are listed again; a key still listed is revoked again (a 404 then means done)
    if transient or fault_id in CARRIED_OUT or fault_id == "slow":
        return Expected("healed", changed=True)
    return Expected("failed", r"^%s failed: %s.*listed after each of %d attempts.*still active" % (
        target.route, fault_text, attempts), route_requests=attempts)
