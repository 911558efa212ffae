# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bad input: one clear fail_json per case, no traceback, and (for what can be checked before
talking to the service) no request sent at all."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

import pytest

import neon_reliability as rel

DEMO = "shiny-river-12345678"
UNKNOWN_OP = "0a9c6d1e-8f3b-4d7a-9e2c-5b1f4a3d2c10"
NAN = float("nan")
INF = float("inf")

# (case id, module, args, message regex, requests the service may see)
CASES = [
    ("key name empty", "api_key", dict(name=""), r"^name must be 1 to 64 characters long, got 0$", 0),
    ("key name 65 characters", "api_key", dict(name="x" * 65), r"^name must be 1 to 64 characters long, got 65$", 0),
    ("state=absent without name or id", "api_key", dict(state="absent"), r"^state=absent needs a name or an id$", 0),
    ("state=present without name", "api_key", dict(), r"^state=present needs a name$", 0),
    ("timeout 0", "operation_wait", dict(project_id=DEMO, timeout=0), r"^timeout must be greater than 0, got 0", 0),
    ("timeout negative", "operation_wait", dict(project_id=DEMO, timeout=-5),
     r"^timeout must be greater than 0, got -5", 0),
    ("timeout nan", "operation_wait", dict(project_id=DEMO, timeout=NAN), r"^timeout must be a finite number, got nan", 0),
    ("poll_interval 0", "operation_wait", dict(project_id=DEMO, poll_interval=0),
     r"^poll_interval must be greater than 0, got 0", 0),
    ("poll_interval negative", "operation_wait", dict(project_id=DEMO, poll_interval=-1),
     r"^poll_interval must be greater than 0, got -1", 0),
    ("poll_interval greater than timeout", "operation_wait", dict(project_id=DEMO, timeout=1, poll_interval=2),
     r"^poll_interval \(2\.0\) must not be greater than timeout \(1\.0\)$", 0),
    ("api_timeout 0", "projects_info", dict(api_timeout=0), r"^api_timeout must be greater than 0, got 0", 0),
    ("api_timeout negative", "api_key_info", dict(api_timeout=-1), r"^api_timeout must be greater than 0, got -1", 0),
    ("api_timeout inf", "api_key_info", dict(api_timeout=INF), r"^api_timeout must be a finite number, got inf", 0),
    ("api_retry_max_delay 0", "projects_info", dict(api_retry_max_delay=0),
     r"^api_retry_max_delay must be greater than 0, got 0", 0),
    ("api_retries negative", "projects_info", dict(api_retries=-1), r"^api_retries must be 0 or more, got -1$", 0),
    ("page_size 0", "operation_info", dict(project_id=DEMO, page_size=0), r"^page_size must be from 1 to 1000, got 0$", 0),
    ("page_size negative", "operation_info", dict(project_id=DEMO, page_size=-3),
     r"^page_size must be from 1 to 1000, got -3$", 0),
    ("page_size 1001", "operation_info", dict(project_id=DEMO, page_size=1001),
     r"^page_size must be from 1 to 1000, got 1001$", 0),
    ("max_results 0", "operation_info", dict(project_id=DEMO, max_results=0), r"^max_results must be greater than 0", 0),
    ("malformed operation_id", "operation_info", dict(project_id=DEMO, operation_id="op-1"),
     r"^operation_id must be an operation id, a UUID .*got 'op-1'$", 0),
    ("malformed operation_ids entry", "operation_wait", dict(project_id=DEMO, operation_ids=[UNKNOWN_OP, "nope"]),
     r"^operation_ids must be an operation id, a UUID .*got 'nope'$", 0),
    ("malformed operations[].id", "operation_wait", dict(operations=[{"id": "x/../y", "project_id": DEMO}]),
     r"^operations\[0\]\.id must be an operation id, a UUID .*got 'x/\.\./y'$", 0),
    ("operations entry without id", "operation_wait", dict(project_id=DEMO, operations=[{"status": "running"}]),
     r"^operations\[0\] has no id: give operation objects as the API returns them$", 0),
    ("operations entry without project", "operation_wait", dict(operations=[{"id": UNKNOWN_OP}]),
     r"^operations\[0\] \(%s\) has no project_id: set the project_id option$" % UNKNOWN_OP, 0),
    ("operation_ids and operations", "operation_wait",
     dict(project_id=DEMO, operation_ids=[UNKNOWN_OP], operations=[{"id": UNKNOWN_OP}]),
     r"parameters are mutually exclusive: operation_ids\|operations", 0),
    ("empty project_id (operation_info)", "operation_info", dict(project_id=" "), r"^project_id must not be empty$", 0),
    ("empty project_id (operation_wait)", "operation_wait", dict(project_id=""), r"^project_id must not be empty$", 0),
    ("unknown project (operation_info)", "operation_info", dict(project_id="nosuchproject-000"),
     r"^GET /projects/nosuchproject-000/operations\?limit=1000 failed: HTTP 404: project not found "
     r"\(request id [0-9a-f-]{36}\)$", 1),
    ("unknown project (operation_wait)", "operation_wait", dict(project_id="nosuchproject-000"),
     r"^GET /projects/nosuchproject-000/operations\?limit=1000 failed: HTTP 404: project not found", 1),
    ("unknown operation (operation_info)", "operation_info", dict(project_id=DEMO, operation_id=UNKNOWN_OP),
     r"^GET /projects/%s/operations/%s failed: HTTP 404: operation not found" % (DEMO, UNKNOWN_OP), 1),
    ("unknown operation (operation_wait)", "operation_wait", dict(project_id=DEMO, operation_ids=[UNKNOWN_OP]),
     r"^GET /projects/%s/operations/%s failed: HTTP 404: operation not found" % (DEMO, UNKNOWN_OP), 1),
    ("api_url ftp://", "projects_info", dict(api_url="ftp://console.neon.tech/api/v2"),
     r"^api_url must be an http\(s\) URL such as https://console\.neon\.tech/api/v2, got 'ftp://", 0),
    ("api_url without scheme", "projects_info", dict(api_url="console.neon.tech/api/v2"),
     r"^api_url must be an http\(s\) URL .*got 'console\.neon\.tech/api/v2'$", 0),
    ("api_url unparseable", "api_key_info", dict(api_url="http://[::1"), r"^api_url must be an http\(s\) URL", 0),
    ("api_url empty", "api_key_info", dict(api_url=""), r"^api_url must be an http\(s\) URL", 0),
    ("plain http to another host", "projects_info", dict(api_url="http://neon.example.com/api/v2"),
     r"^api_url http://neon\.example\.com/api/v2 uses plain http to a host that is not this machine: .*"
     r"api_allow_plain_http=true", 0),
    ("plain http to a look-alike of 127.0.0.1", "projects_info", dict(api_url="http://127.0.0.1.example.com/api/v2"),
     r"uses plain http to a host that is not this machine", 0),
    ("api_key empty", "api_key_info", dict(api_key=""),
     r"^api_key is empty: set the api_key option or the NEON_API_KEY environment variable$", 0),
    ("api_key with a line break", "api_key_info", dict(api_key="abcdef\nghijkl"),
     r"^api_key contains spaces, line breaks, control or non-ASCII characters.*\(its value is not shown\)$", 0),
    ("api_key not ASCII", "api_key_info", dict(api_key="ключ-1234"), r"^api_key contains spaces", 0),
    ("api_key missing, NEON_API_KEY unset", "api_key_info", dict(api_key=None),
     r"^api_key is required: set the api_key option \(or group/neon\.cloud\.all in module_defaults\), or the "
     r"NEON_API_KEY environment variable$", 0),
    ("compute min_cu above max_cu (branch)", "branch", dict(project_id=DEMO, name="pr-1", compute=dict(min_cu=2, max_cu=1)),
     r"^compute\.min_cu \(2\) must not be more than compute\.max_cu \(1\)\. Nothing was changed$", 0),
    ("compute min_cu above max_cu (project)", "project", dict(name="shop", compute=dict(min_cu=2, max_cu=1)),
     r"^compute\.min_cu \(2\.0\) must not be more than compute\.max_cu \(1\.0\)\. Nothing was changed$", 0),
    ("unknown project (branch)", "branch", dict(project_id="nosuchproject-000", name="pr-1"),
     r"^there is no project nosuchproject-000 that this API key reaches \(HTTP 404: project not found, request id "
     r"[0-9a-f-]{36}\); check project_id, or list the key's projects with neon\.cloud\.projects_info\. Nothing was "
     r"changed$", 1),
    ("unknown project (role)", "role", dict(project_id="nosuchproject-000", name="app"),
     r"^there is no project nosuchproject-000 that this API key reaches \(HTTP 404", 1),
    ("unknown project (connection_info)", "connection_info", dict(project_id="nosuchproject-000"),
     r"^there is no project nosuchproject-000 that this API key reaches \(HTTP 404", 1),
    ("unknown project id, no name (project)", "project", dict(id="nosuchproject-000"),
     r"^project id nosuchproject-000 does not exist, or this API key does not reach it \(HTTP 404: project not found, "
     r"request id [0-9a-f-]{36}\): it may have been deleted, or belong to an account or organization the key does not "
     r"reach; check id, or list the key's projects with neon\.cloud\.projects_info\. Nothing was changed$", 1),
    ("unknown project id, with a name (project)", "project", dict(id="nosuchproject-000", name="shop"),
     r"^project id nosuchproject-000 does not exist, or this API key does not reach it \(HTTP 404: project not found, "
     r"request id [0-9a-f-]{36}\); to create a project named 'shop', leave id out\. Nothing was changed$", 1),
    ("connection_info: a role the branch does not have", "connection_info",
     dict(project_id=DEMO, role="ghost", database="ghost_db"),
     r"^branch '[^']+' \(br-[^)]+\) has no role 'ghost' \(its roles: [^)]+\); create it with neon\.cloud\.role$", 4),
    ("revoke: id and a different name", "api_key", dict(state="absent", id=184311, name="not-its-name"),
     r"^API key 184311 is named 'ci-pipeline', not 'not-its-name': nothing was revoked$", 1),
]


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_bad_input(sim, auth_key, results, case):
    name, module, extra, message, max_requests = case
    args = rel.connection_args(sim)
    args.update(extra)
    run = rel.run_module(module, args)
    sent = len(sim.requests())
    results["bad_input"].append(dict(case=name, module=module, failed=run.failed, traceback=run.crash is not None,
                                     requests=sent, message=rel.normalise(run.msg)))
    assert run.crash is None, run.describe()
    assert run.failed and run.rc == 1, run.describe()
    assert re.search(message, run.msg), "%r does not match %r" % (run.msg, message)
    assert sent <= max_requests, "requests were sent for input that should be refused first"
    assert auth_key not in run.text()


def test_plain_http_to_another_host_with_opt_in_is_attempted(sim, results):
    """api_allow_plain_http=true lets it through (to an address nothing answers on: a connection failure)."""
    args = rel.connection_args(sim, api_url="http://192.0.2.1:9/api/v2", api_allow_plain_http=True,
                               api_timeout=0.3, api_retries=0)
    run = rel.run_module("projects_info", args)
    results["bad_input"].append(dict(case="plain http to another host, api_allow_plain_http=true",
                                     module="projects_info", failed=run.failed, traceback=run.crash is not None,
                                     requests=0, message=rel.normalise(run.msg)))
    assert run.crash is None and run.failed
    assert "plain http" not in run.msg
    assert re.search(r"^GET /projects\?limit=400 failed: (could not connect|no answer within 0\.3 s)", run.msg), run.msg


@pytest.mark.parametrize("url_host", ["127.0.0.1", "localhost"])
def test_plain_http_to_this_machine_is_fine(sim, url_host):
    args = rel.connection_args(sim, api_url=sim.url.replace("127.0.0.1", url_host))
    run = rel.run_module("projects_info", dict(args, project_id=sim.demo_project_id))
    assert run.rc == 0 and len(run.result["projects"]) == 1, run.describe()


def test_key_name_of_64_characters_is_fine(sim):
    run = rel.run_module("api_key", rel.connection_args(sim, name="k" * 64), check_mode=True)
    assert run.rc == 0 and run.result["changed"] is True, run.describe()
