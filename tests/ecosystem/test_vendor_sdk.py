# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The vendor's Python SDK (`neon-api`, PyPI) against the simulator, as a user drives it against the
live service (issue 22: "the vendor's ... SDK (`neon-api`), pointed at the simulator, work as they
do against the service").

The SDK validates every answer against the OpenAPI schema it was generated from (pydantic
dataclasses, `neon_api/schema.py`), so a field of the wrong shape or an enum value the schema lacks
fails the call: these tests prove the simulator's answers pass that validation, and that what a
user reads from them is right (names, states, hosts, passwords that log in).

No test waits for wall time: the operations the API starts are held (the 423 test) or the
simulated clock is jumped past them (SETTLE).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
from urllib.parse import urlsplit

import pytest

# requirements-test.txt installs it: a session without it fails here rather than skipping
import neon_api.client
from neon_api import NeonAPI, schema
from neon_api.exceptions import NeonAPIError

SETTLE = 30  # simulated seconds: past every unscripted operation (1-2 s), before computes suspend (300 s)


@pytest.fixture
def neon(simulator):
    """The SDK's client on the simulator: base_url is joined to paths without a slash, as its default
    `https://console.neon.tech/api/v2/` is."""
    return NeonAPI(simulator.api_key, base_url=simulator.url + "/")


@pytest.fixture
def raw(monkeypatch):
    """The SDK's documented switch to plain dicts (client.ENABLE_PYDANTIC), for the fields its
    models leave out (`connection_uris`, `endpoints` of a create)."""
    monkeypatch.setattr(neon_api.client, "ENABLE_PYDANTIC", False)


def _uri_parts(uri):
    parts = urlsplit(uri)
    return parts.username, parts.password, parts.hostname, parts.path.lstrip("/"), parts.query


def _new_project(simulator, neon, name):
    """A project made through the SDK, its operations ended. -> (ProjectResponse, project id)."""
    made = neon.project_create(project={"name": name})
    simulator.advance_clock(SETTLE)
    return made, made.project.id


def test_project_create_answers_connection_uris_that_log_in(simulator, neon, raw):
    answer = neon.project_create(project={"name": "sdk-raw", "branch": {"database_name": "shop"}})
    project = answer["project"]
    assert project["name"] == "sdk-raw" and project["pg_version"] == 17
    assert [op["action"] for op in answer["operations"]] == ["create_timeline", "start_compute"]
    (details,) = answer["connection_uris"]
    role, password, host, database, query = _uri_parts(details["connection_uri"])
    assert (role, database, query) == ("shop_owner", "shop", "sslmode=require")
    assert details["connection_parameters"] == {
        "database": "shop", "role": "shop_owner", "password": password, "host": host,
        "pooler_host": host.replace(".", "-pooler.", 1)}
    (endpoint,) = answer["endpoints"]
    assert endpoint["host"] == host and endpoint["type"] == "read_write"
    assert simulator.password_valid(project["id"], answer["branch"]["id"], "shop_owner", password)


def test_project_create_and_get_validate_as_models(simulator, neon):
    made, pid = _new_project(simulator, neon, "sdk-model")
    assert isinstance(made, schema.ProjectResponse) and made.project.name == "sdk-model"
    got = neon.project(pid)  # GET adds the owner block; its subscription_type is an enum of the schema
    assert got.project.id == pid and got.project.owner.email == "sam@example.com"
    assert got.project.owner.subscription_type is schema.BillingSubscriptionType.free_v2
    assert pid in [p.id for p in neon.projects(limit=5).projects]


def test_branches_create_list_delete(simulator, neon):
    _made, pid = _new_project(simulator, neon, "sdk-branches")
    created = neon.branch_create(pid, branch={"name": "pr-1"}, endpoints=[{"type": "read_write"}])
    assert isinstance(created, schema.BranchOperations)
    assert (created.branch.name, created.branch.current_state) == ("pr-1", "init")
    assert [op.action for op in created.operations] == [schema.OperationAction.create_branch,
                                                        schema.OperationAction.start_compute]
    assert {op.status for op in created.operations} <= {schema.OperationStatus.scheduling,
                                                        schema.OperationStatus.running}
    simulator.advance_clock(SETTLE)
    assert {op.status for op in neon.operations(pid).operations} == {schema.OperationStatus.finished}

    # a second branch of that name: the service's 409, raised as the SDK's error with the message
    with pytest.raises(NeonAPIError) as taken:
        neon.branch_create(pid, branch={"name": "pr-1"})
    assert json.loads(str(taken.value))["message"] == 'branch already exists; branch_name:"pr-1"'

    branches = {b.name: b for b in neon.branches(pid).branches}
    assert sorted(branches) == ["main", "pr-1"]
    pr = branches["pr-1"]
    assert (pr.current_state, pr.parent_id, pr.default) == ("ready", branches["main"].id, False)
    assert branches["main"].default is True
    assert neon.branch(pid, pr.id).branch.name == "pr-1"

    deleted = neon.branch_delete(pid, pr.id)
    assert deleted.branch.id == pr.id
    assert [op.action for op in deleted.operations] == [schema.OperationAction.suspend_compute,
                                                        schema.OperationAction.delete_timeline]
    assert [b.name for b in neon.branches(pid).branches] == ["main"]
    # deleting it again: the service answers 204 without a body (notes), which this SDK version
    # cannot decode: a user of neon-api 0.3 sees this error, against the live service as here
    with pytest.raises(ValueError):
        neon.branch_delete(pid, pr.id)
    assert simulator.requests()[-1]["status"] == 204


def test_endpoints_roles_databases_and_connection_uri(simulator, neon):
    _made, pid = _new_project(simulator, neon, "sdk-connect")
    created = neon.branch_create(pid, branch={"name": "pr-2"}, endpoints=[{"type": "read_write"}])
    simulator.advance_clock(SETTLE)
    main = [b for b in neon.branches(pid).branches if b.default][0]

    endpoints = neon.endpoints(pid).endpoints
    assert sorted(e.branch_id for e in endpoints) == sorted([main.id, created.branch.id])
    assert {e.type for e in endpoints} == {schema.EndpointType.read_write}
    assert {e.current_state for e in endpoints} == {schema.EndpointState.active}
    main_endpoint = [e for e in endpoints if e.branch_id == main.id][0]

    roles = neon.roles(pid, created.branch.id).roles
    assert [(r.name, r.password) for r in roles] == [("neondb_owner", None)]  # listings never show a password
    databases = neon.databases(pid, created.branch.id).databases
    assert [(d.name, d.owner_name) for d in databases] == [("neondb", "neondb_owner")]

    # connection_uri of the SDK takes no branch: the project's default branch, its read_write compute
    direct = neon.connection_uri(pid, database_name="neondb", role_name="neondb_owner").uri
    pooled = neon.connection_uri(pid, database_name="neondb", role_name="neondb_owner", pooled=True).uri
    role, password, host, database, query = _uri_parts(direct)
    assert (role, host, database, query) == ("neondb_owner", main_endpoint.host, "neondb", "sslmode=require")
    assert _uri_parts(pooled) == (role, password, host.replace(main_endpoint.id, main_endpoint.id + "-pooler"),
                                  database, query)
    assert simulator.password_valid(pid, main.id, "neondb_owner", password)
    # the child branch inherited the parent's password (an unprotected parent: notes 1)
    assert simulator.password_valid(pid, created.branch.id, "neondb_owner", password)


def test_a_change_while_operations_run_is_refused_with_423(simulator, neon):
    _made, pid = _new_project(simulator, neon, "sdk-locked")
    (held,) = simulator.start_operations(pid, action="apply_config", hold=True)
    try:
        with pytest.raises(NeonAPIError) as locked:
            neon.branch_create(pid, branch={"name": "blocked"})
        assert json.loads(str(locked.value))["message"] == (
            "project already has running conflicting operations, scheduling of new ones is prohibited")
        assert simulator.requests()[-1]["status"] == 423
    finally:
        simulator.release_operations(pid, held["id"])
    assert neon.branch_create(pid, branch={"name": "blocked"}).branch.name == "blocked"
