# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The resource walk (_resources/resource.py) through the project and branch resources, against a fake service.

A real NeonClient talks to FakeNeon through neon_fakes' scripted transport, on a simulated clock:
operations finish a few seconds after they start, and faults (423, a lost answer, "already
exists") are scripted per request. The tests check what a user sees: the result, the message, how
many requests were spent and that nothing was created twice.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
import requests

from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, TaskFailure
from ansible_collections.neon.cloud.plugins.module_utils._resources.branches import Branch, branches_with_endpoints
from ansible_collections.neon.cloud.plugins.module_utils._resources.connections import connection_details
from ansible_collections.neon.cloud.plugins.module_utils._resources.projects import PLAN_OPTIONS, Project
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import ResourceTask
from ansible_collections.neon.cloud.tests.unit.plugins.module_utils.neon_fakes import FakeClock, make_client, make_response

PASSWORD = "AbC123xYz789"
OP_SECONDS = 3.0
BRANCH_SETTINGS = ("name", "parent", "parent_timestamp", "parent_lsn", "protected", "expires_at")
PROJECT_SETTINGS = ("name", "org_id", "region_id", "pg_version", "history_retention_seconds", "compute",
                    "default_branch", "database", "role")


def connection_reset():
    return requests.exceptions.ConnectionError("('Connection aborted.', RemoteDisconnected('Remote end closed connection'))")


class Lazy:
    """A fault whose answer is made when it is sent (it may change the fake's state first)."""

    def __init__(self, make):
        self.make = make


class FakeNeon:
    """Projects, branches, computes and operations in memory, answering as the notes say the service does."""

    def __init__(self, clock):
        self.clock = clock
        self.counter = 0
        self.projects = {}
        self.branches = {}
        self.endpoints = {}
        self.operations = {}
        self.faults = []  # (method, path suffix, action) - action: a response, an exception, or "then-reset"
        self.log = []
        self.fail_actions = set()  # operation actions that end as "failed"

    def next_id(self, prefix):
        self.counter += 1
        return "%s-%04d" % (prefix, self.counter)

    # ------------------------------------------------------------------------------------------ state

    def add_project(self, name="shop", **fields):
        project_id = self.next_id("p")
        self.projects[project_id] = dict({"id": project_id, "name": name, "region_id": "aws-eu-central-1",
                                          "pg_version": 17, "history_retention_seconds": 86400,
                                          "default_endpoint_settings": {"autoscaling_limit_min_cu": 0.25,
                                                                        "autoscaling_limit_max_cu": 0.25,
                                                                        "suspend_timeout_seconds": 0}}, **fields)
        self.branches[project_id] = []
        self.endpoints[project_id] = []
        self.operations[project_id] = []
        main = self.add_branch(project_id, "main", default=True)
        self.add_endpoint(project_id, main["id"])
        return project_id

    def add_branch(self, project_id, name, **fields):
        branch = dict({"id": self.next_id("br"), "name": name, "project_id": project_id, "default": False,
                       "protected": False, "current_state": "ready"}, **fields)
        self.branches[project_id].append(branch)
        return branch

    def add_endpoint(self, project_id, branch_id, kind="read_write", **fields):
        endpoint_id = self.next_id("ep")
        endpoint = dict({"id": endpoint_id, "type": kind, "branch_id": branch_id, "project_id": project_id,
                         "host": "%s.eu-central-1.aws.neon.tech" % endpoint_id, "autoscaling_limit_min_cu": 0.25,
                         "autoscaling_limit_max_cu": 0.25, "suspend_timeout_seconds": 0}, **fields)
        self.endpoints[project_id].append(endpoint)
        return endpoint

    def start(self, project_id, action, branch_id=None):
        operation = {"id": self._uuid(),
                     "project_id": project_id, "branch_id": branch_id, "action": action, "status": "running",
                     "failures_count": 0, "created_at": "2025-01-16T12:00:%09.6fZ" % (self.clock() % 60),
                     "ends": self.clock() + OP_SECONDS}
        self.operations[project_id].insert(0, operation)
        return self.shown_operation(operation)

    def _uuid(self):
        self.counter += 1
        return "0a9c6d1e-8f3b-4d7a-9e2c-%012d" % self.counter

    def shown_operation(self, operation):
        shown = dict((key, value) for key, value in operation.items() if key != "ends")
        if self.clock() >= operation["ends"]:
            shown["status"] = "failed" if operation["action"] in self.fail_actions else "finished"
            if shown["status"] == "failed":
                shown["error"] = "compute could not start"
        return shown

    def running(self, project_id):
        return [op for op in self.operations.get(project_id, []) if self.shown_operation(op)["status"] == "running"]

    # ------------------------------------------------------------------------------------------ HTTP

    def handler(self, request):
        parts = urlsplit(request.url)
        path = parts.path[len("/api/v2"):]
        query = dict((key, values[0]) for key, values in parse_qs(parts.query).items())
        body = json.loads(request.body) if request.body else None
        self.log.append((request.method, path))
        for index, (method, suffix, action) in enumerate(self.faults):
            if method == request.method and path.endswith(suffix):
                del self.faults[index]
                if action == "carried-out-then-reset":
                    self.route(request.method, path, query, body)
                    return connection_reset()
                if isinstance(action, Lazy):
                    return action.make()
                return action
        return self.route(request.method, path, query, body)

    def route(self, method, path, query, body):
        segments = [unquote(segment) for segment in path.split("/")[1:]]
        if segments == ["projects"] and method == "GET":
            found = [p for p in self.projects.values() if not query.get("search") or query["search"] in p["name"]]
            return make_response(200, {"projects": found, "pagination": {"cursor": found[-1]["id"] if found else ""}})
        if segments == ["projects"] and method == "POST":
            return self.create_project(body["project"])
        project_id = segments[1]
        if project_id not in self.projects:
            return make_response(404, {"code": "", "message": "project not found"})
        rest = segments[2:]
        if method in ("POST", "PATCH", "DELETE") and self.running(project_id):
            return make_response(423, {"code": "", "message": "project already has running conflicting operations, "
                                                              "scheduling of new ones is prohibited"})
        if not rest:
            if method == "GET":
                return make_response(200, {"project": self.projects[project_id]})
            if method == "PATCH":
                self.projects[project_id].update(body["project"])
                return make_response(200, {"project": self.projects[project_id], "operations": []})
        if rest == ["branches"] and method == "GET":
            items = self.branches[project_id]
            return make_response(200, {"branches": items, "pagination": {"next": "opaque", "sort_by": "updated_at"}})
        if rest == ["branches"] and method == "POST":
            return self.create_branch(project_id, body)
        if rest == ["endpoints"] and method == "GET":
            return make_response(200, {"endpoints": self.endpoints[project_id]})
        if len(rest) == 3 and rest[0] == "branches" and rest[2] == "endpoints":
            return make_response(200, {"endpoints": [e for e in self.endpoints[project_id] if e["branch_id"] == rest[1]]})
        if len(rest) == 2 and rest[0] == "endpoints" and method == "PATCH":
            endpoint = [e for e in self.endpoints[project_id] if e["id"] == rest[1]][0]
            endpoint.update(body["endpoint"])
            return make_response(200, {"endpoint": endpoint, "operations": [
                self.start(project_id, "apply_config", endpoint["branch_id"])]})
        if len(rest) == 2 and rest[0] == "branches" and method == "GET":
            return make_response(200, {"branch": [b for b in self.branches[project_id] if b["id"] == rest[1]][0]})
        if len(rest) == 2 and rest[0] == "branches" and method == "PATCH":
            branch = [b for b in self.branches[project_id] if b["id"] == rest[1]][0]
            branch.update(body["branch"])
            return make_response(200, {"branch": branch, "operations": []})
        if len(rest) == 2 and rest[0] == "branches" and method == "DELETE":
            gone = [b for b in self.branches[project_id] if b["id"] == rest[1]]
            if not gone:
                return make_response(204)
            self.branches[project_id].remove(gone[0])
            return make_response(200, {"branch": gone[0], "operations": [
                self.start(project_id, "delete_timeline", rest[1])]})
        if rest == ["connection_uri"]:
            endpoint = [e for e in self.endpoints[project_id] if e["id"] == query["endpoint_id"]][0]
            host = endpoint["host"].replace(".", "-pooler.", 1) if query.get("pooled") == "true" else endpoint["host"]
            return make_response(200, {"uri": "postgresql://%s:%s@%s/%s?sslmode=require" % (
                query["role_name"], PASSWORD, host, query["database_name"])})
        if len(rest) == 3 and rest[2] in ("roles", "databases"):
            return make_response(200, {rest[2]: [{"name": "neondb_owner"}] if rest[2] == "roles" else [{"name": "neondb"}]})
        if len(rest) == 2 and rest[0] == "operations":
            operation = [op for op in self.operations[project_id] if op["id"] == rest[1]][0]
            return make_response(200, {"operation": self.shown_operation(operation)})
        if rest == ["operations"]:
            items = [self.shown_operation(op) for op in self.operations[project_id]][:int(query.get("limit", 10))]
            return make_response(200, {"operations": items, "pagination": {"cursor": "end"}})
        raise AssertionError("the fake does not serve %s %s" % (method, path))

    def create_project(self, asked):
        project_id = self.add_project(asked.get("name", "unnamed"))
        project = self.projects[project_id]
        endpoint = self.endpoints[project_id][0]
        uri = "postgresql://neondb_owner:%s@%s/neondb?sslmode=require" % (PASSWORD, endpoint["host"])
        operations = [self.start(project_id, "create_timeline"), self.start(project_id, "start_compute")]
        return make_response(201, {"project": project, "connection_uris": [{"connection_uri": uri}],
                                   "roles": [{"name": "neondb_owner", "password": PASSWORD}],
                                   "operations": operations, "branch": self.branches[project_id][0],
                                   "endpoints": [endpoint], "databases": [{"name": "neondb"}]})

    def create_branch(self, project_id, body):
        asked = body.get("branch", {})
        if any(b["name"] == asked.get("name") for b in self.branches[project_id]):
            return make_response(409, {"code": "", "message": "branch already exists; branch_name:%r" % asked["name"]})
        default = [b for b in self.branches[project_id] if b["default"]][0]
        branch = self.add_branch(project_id, asked["name"], parent_id=asked.get("parent_id", default["id"]),
                                 current_state="init")
        operations = [self.start(project_id, "create_branch", branch["id"])]
        endpoints = []
        for wanted in body.get("endpoints", []):
            endpoints.append(self.add_endpoint(project_id, branch["id"], wanted["type"],
                                               **dict((k, v) for k, v in wanted.items() if k != "type")))
            operations.append(self.start(project_id, "start_compute", branch["id"]))
        return make_response(201, {"branch": branch, "endpoints": endpoints, "operations": operations,
                                   "roles": [], "databases": []})


@pytest.fixture
def neon():
    clock = FakeClock()
    fake = FakeNeon(clock)
    client, adapter = make_client(fake.handler, clock=clock, cost=0.05)
    fake.client = client
    fake.adapter = adapter
    fake.started_at = clock()
    return fake


class BranchTask:
    """A branch module's task: ``present(options, compute, reset_from_parent)`` or ``absent()``."""

    def __init__(self, task, project_id, name):
        self.task, self.project_id, self.name = task, project_id, name

    def present(self, settings, compute, reset_from_parent):
        return Branch(self.task, self.project_id, self.name, compute=compute,
                      reset_from_parent=reset_from_parent).present(settings)

    def absent(self):
        return Branch(self.task, self.project_id, self.name).absent()


def branch_task(neon, name="pr-1", check_mode=False, wait=True, wait_timeout=120.0, project_id=None):
    task = ResourceTask(neon.client, wait=wait, wait_timeout=wait_timeout, check_mode=check_mode, diff=True)
    return BranchTask(task, project_id or list(neon.projects)[0], name)


def options(**given):
    return dict(dict.fromkeys(BRANCH_SETTINGS), **given)


def changes_sent(neon):
    return [(method, path) for method, path in neon.log if method != "GET"]


# ---------------------------------------------------------------------------------------------- branch


def test_new_branch_is_created_with_a_read_write_compute_and_waited_for(neon):
    neon.add_project()
    result = branch_task(neon).present(options(name="pr-1", parent="main"), True, False)
    assert result["changed"] is True
    assert result["branch"]["name"] == "pr-1"
    assert result["endpoints"][0]["type"] == "read_write"
    assert [op["status"] for op in result["operations"]] == ["finished", "finished"]
    assert result["diff"]["before"] == {}


def test_branch_as_asked_costs_two_requests_and_changes_nothing(neon):
    project_id = neon.add_project()
    main = neon.branches[project_id][0]
    neon.add_endpoint(project_id, neon.add_branch(project_id, "pr-1", parent_id=main["id"])["id"])
    before = neon.client.requests_made
    result = branch_task(neon).present(options(name="pr-1", parent="main"), True, False)
    assert result["changed"] is False
    assert neon.client.requests_made - before == 2
    assert changes_sent(neon) == []


def test_check_mode_sends_no_change(neon):
    neon.add_project()
    result = branch_task(neon, check_mode=True).present(options(name="pr-1"), {"max_cu": 2}, False)
    assert result["changed"] is True
    assert changes_sent(neon) == []
    assert result["diff"]["after"]["compute"] == {"max_cu": 2, "min_cu": None, "suspend_timeout_seconds": None}


def test_locked_project_is_waited_for_then_asked_again(neon):
    project_id = neon.add_project()
    neon.start(project_id, "apply_config")  # another task's operation holds the project for OP_SECONDS
    result = branch_task(neon).present(options(name="pr-1"), False, False)
    assert result["changed"] is True
    posts = [entry for entry in neon.log if entry[0] == "POST"]
    assert len(posts) == 2  # refused with 423 once, asked again once the operation had ended
    assert neon.clock() - neon.started_at >= OP_SECONDS


def test_lock_that_outlasts_wait_timeout_fails_and_says_nothing_changed(neon):
    project_id = neon.add_project()
    neon.start(project_id, "apply_config")
    neon.operations[project_id][0]["ends"] += 1000
    with pytest.raises(TaskFailure) as caught:
        branch_task(neon, wait_timeout=10).present(options(name="pr-1"), False, False)
    assert "HTTP 423" in caught.value.msg and "wait_timeout (10 s)" in caught.value.msg
    assert caught.value.result["changed"] is False
    assert "Nothing was changed" in caught.value.msg


def test_already_exists_from_an_overlapping_run_uses_its_branch(neon):
    project_id = neon.add_project()

    def other_run_created_it():
        neon.add_branch(project_id, "pr-1", parent_id=neon.branches[project_id][0]["id"])
        return make_response(409, {"code": "", "message": "branch already exists; branch_name:\"pr-1\""})

    neon.faults.append(("POST", "/branches", Lazy(other_run_created_it)))
    result = branch_task(neon).present(options(name="pr-1"), False, False)
    assert result["changed"] is False
    assert [b["name"] for b in neon.branches[project_id]].count("pr-1") == 1
    assert "another run" in result["warnings"][0]


def test_lost_create_answer_is_looked_for_and_never_repeated(neon):
    project_id = neon.add_project()
    neon.faults.append(("POST", "/branches", "carried-out-then-reset"))
    result = branch_task(neon).present(options(name="pr-1"), True, False)
    assert result["changed"] is True
    assert [b["name"] for b in neon.branches[project_id]].count("pr-1") == 1
    assert len([entry for entry in neon.log if entry[0] == "POST"]) == 1
    assert result["endpoints"][0]["type"] == "read_write"


def test_create_that_did_not_happen_is_asked_again_after_looking(neon):
    project_id = neon.add_project()
    neon.faults.append(("POST", "/branches", connection_reset()))
    result = branch_task(neon).present(options(name="pr-1"), False, False)
    assert result["changed"] is True
    assert [b["name"] for b in neon.branches[project_id]].count("pr-1") == 1
    assert len([entry for entry in neon.log if entry[0] == "POST"]) == 2


def test_failed_operation_fails_the_task_naming_it_and_what_was_done(neon):
    neon.add_project()
    neon.fail_actions.add("start_compute")
    with pytest.raises(TaskFailure) as caught:
        branch_task(neon).present(options(name="pr-1"), True, False)
    message = caught.value.msg
    assert "start_compute" in message and "failed" in message and "compute could not start" in message
    assert "Changed by this task so far: branch 'pr-1' was created" in message
    assert caught.value.result["changed"] is True
    assert caught.value.result["branch"]["name"] == "pr-1"


def test_wait_false_returns_the_operations_at_once(neon):
    neon.add_project()
    result = branch_task(neon, wait=False).present(options(name="pr-1"), True, False)
    assert [op["status"] for op in result["operations"]] == ["running", "running"]
    assert neon.clock() - neon.started_at < OP_SECONDS


def test_unknown_parent_is_refused_before_any_change(neon):
    neon.add_project()
    with pytest.raises(TaskFailure) as caught:
        branch_task(neon).present(options(name="pr-1", parent="nope"), True, False)
    assert "parent 'nope' is neither the name nor the id" in caught.value.msg
    assert changes_sent(neon) == []


@pytest.mark.parametrize("fields, reason", [
    ({"default": True}, "default branch"),
    ({"protected": True}, "protected"),
])
def test_default_or_protected_branch_is_never_deleted(neon, fields, reason):
    project_id = neon.add_project()
    neon.add_branch(project_id, "keep", **fields)
    with pytest.raises(TaskFailure) as caught:
        branch_task(neon, name="keep").absent()
    assert reason in caught.value.msg
    assert changes_sent(neon) == []


def test_parent_branch_is_not_deleted_and_its_children_are_named(neon):
    project_id = neon.add_project()
    parent = neon.add_branch(project_id, "dev")
    neon.add_branch(project_id, "pr-9", parent_id=parent["id"])
    with pytest.raises(TaskFailure) as caught:
        branch_task(neon, name="dev").absent()
    assert "'pr-9'" in caught.value.msg
    assert changes_sent(neon) == []


def test_delete_waits_and_a_second_run_changes_nothing(neon):
    project_id = neon.add_project()
    neon.add_branch(project_id, "pr-1")
    assert branch_task(neon).absent()["changed"] is True
    assert branch_task(neon).absent()["changed"] is False


def test_compute_settings_update_the_read_write_compute(neon):
    project_id = neon.add_project()
    branch = neon.add_branch(project_id, "pr-1")
    neon.add_endpoint(project_id, branch["id"], "read_only")
    compute = neon.add_endpoint(project_id, branch["id"])
    result = branch_task(neon).present(options(name="pr-1"), {"max_cu": 2}, False)
    assert result["changed"] is True
    assert compute["autoscaling_limit_max_cu"] == 2
    assert result["endpoints"][0]["id"] == compute["id"]


# ---------------------------------------------------------------------------------------------- project


class ProjectTask:
    """A project module's task, through ``Project.run`` as the module calls it: ``present(options)`` or ``absent()``."""

    def __init__(self, task, name, project_id):
        self.task, self.name, self.project_id = task, name, project_id

    def present(self, settings):
        return Project.run(self.task, dict(dict.fromkeys(PLAN_OPTIONS), state="present", id=self.project_id, **settings))

    def absent(self):
        return Project.run(self.task, dict(dict.fromkeys(PLAN_OPTIONS), state="absent", id=self.project_id, name=self.name))


def project_task(neon, name="shop", project_id=None, check_mode=False):
    task = ResourceTask(neon.client, wait=True, wait_timeout=120.0, check_mode=check_mode, diff=True)
    return ProjectTask(task, name, project_id)


def project_options(**given):
    return dict(dict.fromkeys(PROJECT_SETTINGS), **given)


def test_new_project_returns_its_connection_uri_once(neon):
    result = project_task(neon).present(project_options(name="shop"))
    assert result["changed"] is True
    assert PASSWORD in result["connection_uri"]
    assert PASSWORD not in json.dumps(result["diff"])
    assert project_task(neon).present(project_options(name="shop")).get("connection_uri") is None


def test_new_project_uri_is_kept_when_waiting_then_fails_and_never_in_the_message(neon):
    neon.fail_actions.add("start_compute")
    with pytest.raises(TaskFailure) as caught:
        project_task(neon).present(project_options(name="shop"))
    assert PASSWORD in caught.value.result["connection_uri"]
    assert caught.value.result["changed"] is True
    shown = dict(caught.value.result, connection_uri=None)  # the one field that returns it on purpose
    assert PASSWORD not in caught.value.msg and PASSWORD not in json.dumps(shown)
    assert neon.client.scrubber.scrub("echoed " + PASSWORD) == "echoed <redacted>"  # every later message is scrubbed of it


def test_two_projects_of_the_name_fail_naming_both_and_change_nothing(neon):
    first, second = neon.add_project("shop"), neon.add_project("shop")
    with pytest.raises(TaskFailure) as caught:
        project_task(neon).present(project_options(name="shop", history_retention_seconds=60))
    assert first in caught.value.msg and second in caught.value.msg
    assert changes_sent(neon) == []


def test_create_only_setting_that_differs_fails_and_changes_nothing(neon):
    neon.add_project("shop")
    with pytest.raises(TaskFailure) as caught:
        project_task(neon).present(project_options(name="shop", region_id="aws-us-east-2", history_retention_seconds=60))
    assert "region_id is 'aws-eu-central-1', not 'aws-us-east-2'" in caught.value.msg
    assert changes_sent(neon) == []


def test_project_compute_settings_reach_the_existing_default_compute(neon):
    project_id = neon.add_project("shop")
    result = project_task(neon).present(project_options(name="shop", compute={"max_cu": 2}))
    assert result["changed"] is True
    assert neon.projects[project_id]["default_endpoint_settings"]["autoscaling_limit_max_cu"] == 2
    assert neon.projects[project_id]["default_endpoint_settings"]["autoscaling_limit_min_cu"] == 0.25
    assert neon.endpoints[project_id][0]["autoscaling_limit_max_cu"] == 2
    before = neon.client.requests_made
    again = project_task(neon).present(project_options(name="shop", compute={"max_cu": 2}))
    assert again["changed"] is False
    # The projects, their computes, and the project's newest operations (none still running to wait for).
    assert neon.client.requests_made - before == 3


# ---------------------------------------------------------------------------------------------- reading


def test_branch_info_gives_each_branch_its_computes_read_write_first(neon):
    project_id = neon.add_project()
    branch = neon.add_branch(project_id, "pr-1")
    neon.add_endpoint(project_id, branch["id"], "read_only")
    compute = neon.add_endpoint(project_id, branch["id"])
    found = branches_with_endpoints(neon.client, project_id, "pr-1")
    assert [item["id"] for item in found[0]["endpoints"]] == [compute["id"], found[0]["endpoints"][1]["id"]]
    assert branches_with_endpoints(neon.client, project_id, "nope") == []


def test_connection_details_use_the_read_write_compute_and_its_pooler(neon):
    project_id = neon.add_project()
    branch = neon.add_branch(project_id, "pr-1")
    neon.add_endpoint(project_id, branch["id"], "read_only")
    compute = neon.add_endpoint(project_id, branch["id"])
    details = connection_details(neon.client, project_id, branch="pr-1", pooled=True)
    assert details["endpoint_id"] == compute["id"]
    assert details["host"] == compute["host"].replace(".", "-pooler.", 1)
    assert (details["role"], details["database"], details["password"], details["port"]) == (
        "neondb_owner", "neondb", PASSWORD, 5432)


def test_request_error_after_a_create_still_reports_the_change(neon):
    project_id = neon.add_project()
    neon.faults.append(("POST", "/branches", "carried-out-then-reset"))
    neon.faults.extend([("GET", "/endpoints", make_response(400, {"code": "", "message": "bad request"}))])
    with pytest.raises(TaskFailure) as caught:
        branch_task(neon).present(options(name="pr-1"), True, False)
    assert caught.value.result["changed"] is True
    assert caught.value.result["branch"]["name"] == "pr-1"
    assert "HTTP 400: bad request" in caught.value.msg
    assert "Changed by this task so far: branch 'pr-1' was created" in caught.value.msg
    assert [b["name"] for b in neon.branches[project_id]].count("pr-1") == 1


def test_branch_deleted_meanwhile_answers_204_and_the_task_changes_nothing(neon):
    project_id = neon.add_project()
    branch = neon.add_branch(project_id, "pr-1")

    def other_run_deleted_it():
        neon.branches[project_id].remove(branch)
        return make_response(204)

    neon.faults.append(("DELETE", branch["id"], Lazy(other_run_deleted_it)))
    result = branch_task(neon).absent()
    assert result["changed"] is False
    assert result["operations"] == []


def test_new_branch_uri_is_kept_when_the_rest_of_its_answer_cannot_be_used(neon):
    project_id = neon.add_project()
    uri = "postgresql://neondb_owner:%s@ep-x.eu-central-1.aws.neon.tech/neondb?sslmode=require" % PASSWORD

    def created_with_a_bad_compute():
        branch = neon.add_branch(project_id, "pr-1")
        return make_response(201, {"branch": branch, "endpoints": [{"id": "ep-x"}], "operations": [],
                                   "connection_uris": [{"connection_uri": uri}]})

    neon.faults.append(("POST", "/branches", Lazy(created_with_a_bad_compute)))
    with pytest.raises(TaskFailure) as caught:
        branch_task(neon).present(options(name="pr-1"), True, False)
    assert caught.value.result["connection_uri"] == uri  # shown once: never lost
    assert caught.value.result["changed"] is True
    assert "endpoints[0].type" in caught.value.msg and PASSWORD not in caught.value.msg


def test_new_project_uri_is_kept_whatever_else_its_connection_details_hold(neon):
    def created_with_odd_parameters():
        answer = json.loads(neon.create_project({"name": "shop"}).text)
        answer["connection_uris"][0]["connection_parameters"] = "not an object"
        return make_response(201, answer)

    neon.faults.append(("POST", "/projects", Lazy(created_with_odd_parameters)))
    result = project_task(neon).present(project_options(name="shop"))
    assert PASSWORD in result["connection_uri"]


def test_branch_settings_are_updated_once_and_a_second_run_changes_nothing(neon):
    project_id = neon.add_project()
    branch = neon.add_branch(project_id, "pr-1", expires_at="2025-02-01T00:00:00Z")
    neon.add_endpoint(project_id, branch["id"])
    result = branch_task(neon).present(options(name="pr-1", protected=True, expires_at=""), True, False)
    assert result["changed"] is True
    assert branch["protected"] is True and branch["expires_at"] is None
    assert changes_sent(neon) == [("PATCH", "/projects/%s/branches/%s" % (project_id, branch["id"]))]
    assert result["diff"] == {"before": dict(result["diff"]["after"], protected=False, expires_at="2025-02-01T00:00:00Z"),
                              "after": result["diff"]["after"]}
    before = neon.client.requests_made
    assert branch_task(neon).present(options(name="pr-1", protected=True, expires_at=""), True, False)["changed"] is False
    assert neon.client.requests_made - before == 2


def test_update_answered_with_another_object_fails_saying_what_was_done(neon):
    project_id = neon.add_project()
    branch = neon.add_branch(project_id, "pr-1")
    neon.faults.append(("PATCH", branch["id"], make_response(200, {"branch": {"id": "br-other", "name": "x"},
                                                                   "operations": []})))
    with pytest.raises(TaskFailure) as caught:
        branch_task(neon).present(options(name="pr-1", protected=True), False, False)
    assert "branch.id is 'br-other', not %r as asked" % branch["id"] in caught.value.msg
    assert "Changed by this task so far: updated branch 'pr-1'" in caught.value.msg
    assert caught.value.result["changed"] is True


def test_an_update_answered_502_does_not_claim_that_nothing_was_changed(neon):
    """A PATCH without a clear answer may have been carried out: the message says so, not "Nothing was changed"."""
    project_id = neon.add_project()
    branch = neon.add_branch(project_id, "pr-1")
    neon.faults.append(("PATCH", branch["id"], make_response(502, {"code": "", "message": "bad gateway"})))
    with pytest.raises(TaskFailure) as caught:
        branch_task(neon).present(options(name="pr-1", protected=True), False, False)
    assert "HTTP 502" in caught.value.msg and "Nothing was changed" not in caught.value.msg
    assert "Whether the service carried it out is unknown: run the task again" in caught.value.msg
    assert len([entry for entry in neon.log if entry[0] == "PATCH"]) == 1  # never sent blindly again


def test_project_create_refused_with_423_fails_clearly_without_polling_a_project_of_none(neon):
    neon.client.retries = 0
    neon.faults.append(("POST", "/projects", make_response(423, {"code": "", "message": "locked"})))
    with pytest.raises(TaskFailure) as caught:
        project_task(neon).present(project_options(name="shop"))
    assert "HTTP 423: locked" in caught.value.msg
    assert not [path for _method, path in neon.log if "None" in path]


def test_project_found_by_name_with_settings_of_the_wrong_type_fails_clearly(neon):
    project_id = neon.add_project("shop")
    neon.projects[project_id]["default_endpoint_settings"] = "fast"
    with pytest.raises(NeonAPIError) as caught:  # the module's one fail_json of a request error
        project_task(neon).present(project_options(name="shop", compute={"max_cu": 2}))
    assert "default_endpoint_settings must be an object or null, got 'fast'" in str(caught.value)
    assert changes_sent(neon) == []


# ---------------------------------------------------------------------------------------------- after a change


def test_a_refusal_after_a_create_fails_as_changed_with_what_was_done(neon):
    project_id = neon.add_project()

    def a_second_read_write_compute():
        branch = [item for item in neon.branches[project_id] if item["name"] == "pr-1"][0]
        neon.add_endpoint(project_id, branch["id"])  # the re-read after the wait lists two read-write computes
        return neon.route("GET", "/projects/%s/branches/%s/endpoints" % (project_id, branch["id"]), {}, None)

    neon.faults.append(("GET", "/endpoints", Lazy(a_second_read_write_compute)))
    with pytest.raises(TaskFailure) as caught:
        branch_task(neon).present(options(name="pr-1"), True, False)
    assert "2 read-write computes" in caught.value.msg
    assert "Changed by this task so far: branch 'pr-1' was created" in caught.value.msg
    assert caught.value.result["changed"] is True and caught.value.result["branch"]["name"] == "pr-1"
    assert caught.value.result["operations"]


def test_a_compute_added_to_a_branch_by_another_run_is_used_with_a_warning_not_claimed(neon):
    project_id = neon.add_project()
    branch = neon.add_branch(project_id, "pr-1")

    def the_other_run_added_it():
        neon.add_endpoint(project_id, branch["id"])
        return make_response(409, {"code": "", "message": "read-write endpoint already exists"})

    neon.faults.append(("POST", "/endpoints", Lazy(the_other_run_added_it)))
    result = branch_task(neon).present(options(name="pr-1"), True, False)
    assert result["changed"] is False
    assert "created by another run at the same time" in json.dumps(result["warnings"])
    assert [item["type"] for item in result["endpoints"]] == ["read_write"]


def test_a_lost_project_create_is_not_sent_again_while_the_listing_is_incomplete(neon):
    def lost_and_the_listing_incomplete():
        neon.faults.extend([("GET", "/projects", make_response(200, {"projects": [], "unavailable_project_ids": ["p-late"]}))
                            for _round in range(4)])
        return connection_reset()

    neon.faults.append(("POST", "/projects", Lazy(lost_and_the_listing_incomplete)))
    with pytest.raises(TaskFailure) as caught:
        project_task(neon).present(project_options(name="shop"))
    assert "could not list every project in time (p-late unavailable)" in caught.value.msg
    assert len([entry for entry in neon.log if entry[0] == "POST"]) == 1  # never sent twice


def test_an_incomplete_listing_is_never_taken_for_absent_by_a_task_that_would_create_the_project(neon):
    neon.faults.append(("GET", "/projects", make_response(200, {"projects": [], "unavailable_project_ids": ["p-late"]})))
    with pytest.raises(TaskFailure) as caught:
        project_task(neon).present(project_options(name="shop"))
    assert "could not list every project in time (p-late unavailable)" in caught.value.msg
    assert caught.value.result["changed"] is False
    assert [entry for entry in neon.log if entry[0] != "GET"] == []  # nothing created


def test_an_incomplete_listing_leaves_nothing_to_delete(neon):
    neon.faults.append(("GET", "/projects", make_response(200, {"projects": [], "unavailable_project_ids": ["p-late"]})))
    result = project_task(neon).absent()
    assert result["changed"] is False
    assert [entry for entry in neon.log if entry[0] != "GET"] == []
