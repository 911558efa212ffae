# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests: projects, branches, computes, roles, databases and connection URIs as
the live service provisions them (/work/shared/spec/provisioning-api-notes.md).

No test waits for wall time: operations are scripted (held, failed) or the clock is jumped
forward past them (SETTLE seconds; computes suspend themselves only after 300 s).
"""

from __future__ import annotations

import base64
import json
import re
import time

import pytest

import requests

API_KEY = "sim-selftest-key-0007"
SETTLE = 30
LOCKED = "project already has running conflicting operations, scheduling of new ones is prohibited"
HOST_RE = re.compile(r"^ep-[a-z]+-[a-z]+-[a-z0-9]{8}\.us-east-2\.aws\.neon\.tech$")


def call(sim, method, path, key=API_KEY, **kwargs):
    kwargs.setdefault("timeout", 10)
    return requests.request(method, sim.url + path, headers={"Authorization": "Bearer " + key}, **kwargs)


def ok(response, status=200):
    assert response.status_code == status, response.text
    return response.json()


def refused(response, status, message=None, code=""):
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"code", "message", "request_id"} and body["code"] == code
    if message is not None:
        assert body["message"] == message
    return body


def created_project(sim, settle=True, **project):
    answer = ok(call(sim, "POST", "/projects", json={"project": project}), 201)
    if settle:
        sim.advance_clock(SETTLE)
    return answer


@pytest.fixture(name="made")
def made_fixture(sim):
    """A project made through the API, its operations ended."""
    return created_project(sim, name="prov")


def base(made):
    return "/projects/%s" % made["project"]["id"]


def branch_path(made, branch_id=None):
    return "%s/branches/%s" % (base(made), branch_id or made["branch"]["id"])


def new_branch(sim, made, settle=True, **body):
    answer = ok(call(sim, "POST", base(made) + "/branches", json=body), 201)
    if settle:
        sim.advance_clock(SETTLE)
    return answer


# ---------------------------------------------------------------------- projects


def test_create_project_answers_the_whole_bundle_with_the_password_only_there(sim):
    answer = created_project(sim, settle=False, name="bundle")
    assert set(answer) == {"project", "connection_uris", "roles", "databases", "operations", "branch", "endpoints"}
    project, branch, endpoint = answer["project"], answer["branch"], answer["endpoints"][0]
    assert (project["name"], project["region_id"], project["pg_version"], project["store_passwords"]) == \
        ("bundle", "aws-us-east-2", 17, True)
    assert project["history_retention_seconds"] == 86400
    assert project["consumption_period_start"] == "0001-01-01T00:00:00Z"
    assert (branch["name"], branch["default"], branch["current_state"], branch["pending_state"]) == \
        ("main", True, "init", "ready")
    assert (endpoint["type"], endpoint["current_state"], endpoint["pending_state"]) == ("read_write", "init", "active")
    assert HOST_RE.match(endpoint["host"]) and endpoint["branch_id"] == branch["id"]
    role, database = answer["roles"][0], answer["databases"][0]
    assert (role["name"], database["name"], database["owner_name"]) == ("neondb_owner", "neondb", "neondb_owner")
    assert len(role["password"]) == 12 and isinstance(database["id"], int)
    details = answer["connection_uris"][0]
    assert details["connection_uri"] == "postgresql://neondb_owner:%s@%s/neondb?sslmode=require" % (
        role["password"], endpoint["host"])
    assert details["connection_parameters"]["pooler_host"] == endpoint["host"].replace(".", "-pooler.", 1)
    assert [(op["action"], op.get("endpoint_id")) for op in answer["operations"]] == \
        [("create_timeline", None), ("start_compute", endpoint["id"])]
    assert all(op["status"] in ("scheduling", "running") for op in answer["operations"])
    # later reads: the operations have ended, the states moved, and no password anywhere
    sim.advance_clock(SETTLE)
    pid = project["id"]
    roles = ok(call(sim, "GET", "/projects/%s/branches/%s/roles" % (pid, branch["id"])))["roles"]
    assert roles and all("password" not in item for item in roles)
    assert ok(call(sim, "GET", "/projects/%s/branches/%s" % (pid, branch["id"])))["branch"]["current_state"] == "ready"
    assert ok(call(sim, "GET", "/projects/%s/endpoints/%s" % (pid, endpoint["id"])))["endpoint"]["current_state"] == \
        "active"
    ops = ok(call(sim, "GET", "/projects/%s/operations" % pid))["operations"]
    assert sorted(op["status"] for op in ops) == ["finished", "finished"]
    got = ok(call(sim, "GET", "/projects/" + pid))["project"]
    assert got["owner"]["email"] == "sam@example.com" and got["name"] == "bundle"
    # a BillingSubscriptionType of the OpenAPI document (the neon-api SDK rejects any other value)
    assert got["owner"]["subscription_type"] == "free_v2"
    assert ok(call(sim, "GET", "/projects?limit=1"))["projects"][0]["id"] == pid


def test_create_project_body_branch_names_and_defaults(sim):
    answer = created_project(sim, name="named", region_id="aws-eu-central-1", pg_version=16,
                             default_endpoint_settings={"autoscaling_limit_min_cu": 0.5,
                                                        "autoscaling_limit_max_cu": 2},
                             branch={"name": "production", "database_name": "shop"})
    assert answer["branch"]["name"] == "production"
    assert (answer["roles"][0]["name"], answer["databases"][0]["name"]) == ("shop_owner", "shop")
    endpoint = answer["endpoints"][0]
    assert (endpoint["autoscaling_limit_min_cu"], endpoint["autoscaling_limit_max_cu"]) == (0.5, 2)
    assert endpoint["host"].endswith(".eu-central-1.aws.neon.tech")
    assert answer["project"]["pg_version"] == 16


def test_create_project_without_project_field_is_the_live_400(sim):
    refused(call(sim, "POST", "/projects", json={}), 400,
            "invalid request: decode application/json: invalid: project (field required)")
    refused(call(sim, "POST", "/projects", json={"project": {"region_id": "mars-1"}}), 400)


def test_keys_create_projects_where_they_reach(sim):
    org_key = sim.create_key("organization", org_id=sim.org_id)["key"]
    answer = ok(call(sim, "POST", "/projects", key=org_key, json={"project": {"name": "org-made"}}), 201)
    assert answer["project"]["org_id"] == sim.org_id
    listed = ok(call(sim, "GET", "/projects?search=org-made", key=org_key))["projects"]
    assert [p["id"] for p in listed] == [answer["project"]["id"]]
    mine = ok(call(sim, "POST", "/projects", json={"project": {"org_id": sim.org_id, "name": "via-org-id"}}), 201)
    assert ok(call(sim, "GET", "/projects?org_id=%s&search=via-org-id" % sim.org_id))["projects"][0]["id"] == \
        mine["project"]["id"]
    # the owner block names the organization's plan ("scale") as a BillingSubscriptionType; a plan
    # the enum lacks is "UNKNOWN" (SPEC ProjectOwnerData)
    assert ok(call(sim, "GET", "/projects/" + mine["project"]["id"]))["project"]["owner"]["subscription_type"] == \
        "scale"
    odd = sim.create_organization(name="Odd Plan", plan="enterprise-trial", projects=1)
    assert ok(call(sim, "GET", "/projects/" + odd["projects"][0]["id"]))["project"]["owner"]["subscription_type"] == \
        "UNKNOWN"
    scoped = sim.create_key("project", project_id=answer["project"]["id"])["key"]
    refused(call(sim, "POST", "/projects", key=scoped, json={"project": {}}), 403)
    refused(call(sim, "DELETE", "/projects/" + answer["project"]["id"], key=scoped), 403)
    refused(call(sim, "POST", "/projects", key=org_key, json={"project": {"org_id": "org-other-00000001"}}), 403)


def test_plan_limits_projects_history_and_suspend_timeout(sim):
    personal = len(ok(call(sim, "GET", "/projects?limit=400"))["projects"])
    sim.set_limits(max_projects=personal)
    refused(call(sim, "POST", "/projects", json={"project": {}}), 422,
            "user projects limit of %d exceeded, got %d" % (personal, personal), code="PROJECTS_LIMIT_EXCEEDED")
    sim.set_limits(max_projects=None, max_history_retention_seconds=86400)
    refused(call(sim, "POST", "/projects", json={"project": {"history_retention_seconds": 604800}}), 400,
            'requested history retention seconds exceeds allowed maximum; '
            'requested_history_retention_seconds:"604800", max:"86400"')
    sim.set_limits(suspend_timeout_changeable=False)
    made = created_project(sim, default_endpoint_settings={"suspend_timeout_seconds": 600})
    assert made["project"]["default_endpoint_settings"]["suspend_timeout_seconds"] == 0  # silently, as free plans
    refused(call(sim, "PATCH", "%s/endpoints/%s" % (base(made), made["endpoints"][0]["id"]),
                 json={"endpoint": {"suspend_timeout_seconds": 600}}), 400,
            "suspend interval changing is not allowed for your account")
    sim.reset()
    assert ok(call(sim, "POST", "/projects", json={"project": {}}), 201)  # reset lifts the limits


def test_update_project_starts_apply_storage_config_only_for_history(sim, made):
    renamed = ok(call(sim, "PATCH", base(made), json={"project": {"name": "renamed"}}))
    assert renamed["operations"] == [] and renamed["project"]["name"] == "renamed"
    changed = ok(call(sim, "PATCH", base(made), json={"project": {"history_retention_seconds": 3600}}))
    assert [op["action"] for op in changed["operations"]] == ["apply_storage_config"]
    assert changed["project"]["history_retention_seconds"] == 3600
    refused(call(sim, "PATCH", base(made), json={"project": {"history_retention_seconds": 7200}}), 423, LOCKED)
    sim.advance_clock(SETTLE)
    assert ok(call(sim, "GET", base(made)))["project"]["history_retention_seconds"] == 3600


def test_delete_project_then_it_is_gone(sim, made):
    answer = ok(call(sim, "DELETE", base(made)))
    assert set(answer) == {"project"} and answer["project"]["id"] == made["project"]["id"]
    refused(call(sim, "GET", base(made)), 404, "project not found")
    assert ok(call(sim, "GET", "/projects?search=" + made["project"]["id"]))["projects"] == []


def test_a_project_with_a_protected_branch_cannot_be_deleted(sim, made):
    ok(call(sim, "PATCH", branch_path(made), json={"branch": {"protected": True}}))
    refused(call(sim, "DELETE", base(made)), 400)
    refused(call(sim, "DELETE", branch_path(made)), 400)


# ---------------------------------------------------------------------- operations and 423


def test_423_while_an_operation_runs_and_calls_that_start_none_pass(sim):
    sim.script_operations("create_timeline", hold=True)
    made = created_project(sim)  # the clock moves on; the held operation does not
    refused(call(sim, "POST", base(made) + "/branches", json={}), 423, LOCKED)
    refused(call(sim, "POST", "%s/roles" % branch_path(made), json={"role": {"name": "app"}}), 423, LOCKED)
    assert ok(call(sim, "PATCH", base(made), json={"project": {"name": "still-renamable"}}))["operations"] == []
    assert ok(call(sim, "GET", branch_path(made)))["branch"]["current_state"] == "init"
    sim.release_operations(made["project"]["id"])
    assert ok(call(sim, "GET", branch_path(made)))["branch"]["current_state"] == "ready"
    assert new_branch(sim, made)["branch"]["current_state"] == "init"


def test_scripted_failure_leaves_the_compute_idle(sim):
    sim.script_operations("start_compute", outcome="failed", error="compute did not start", duration=1)
    made = created_project(sim)
    ops = {op["action"]: op for op in ok(call(sim, "GET", base(made) + "/operations"))["operations"]}
    assert (ops["start_compute"]["status"], ops["start_compute"]["error"]) == ("failed", "compute did not start")
    assert ops["create_timeline"]["status"] == "finished"
    endpoint = ok(call(sim, "GET", "%s/endpoints/%s" % (base(made), made["endpoints"][0]["id"])))["endpoint"]
    assert endpoint["current_state"] == "idle" and "pending_state" not in endpoint
    assert ok(call(sim, "POST", "%s/endpoints/%s/start" % (base(made), endpoint["id"])))["operations"][0]["action"] \
        == "start_compute"


def test_next_operations_control_routes(sim):
    control = sim.control_url + "/next_operations"
    plan = requests.post(control, json={"action": "apply_config", "hold": True, "count": 2}, timeout=10)
    assert plan.status_code == 201 and plan.json()["count"] == 2
    assert len(requests.get(control, timeout=10).json()["next_operations"]) == 1
    assert requests.post(control, json={"outcome": "exploded"}, timeout=10).status_code == 400
    assert requests.delete(control, timeout=10).json() == {"removed": 1}
    limits = requests.post(sim.control_url + "/limits", json={"max_branches": 3}, timeout=10).json()
    assert limits["max_branches"] == 3 and requests.get(sim.control_url + "/limits", timeout=10).json() == limits
    assert requests.post(sim.control_url + "/limits", json={"max_branches": -1}, timeout=10).status_code == 400


# ---------------------------------------------------------------------- branches


def test_create_branch_with_a_compute_inherits_the_parent_password(sim, made):
    answer = new_branch(sim, made, settle=False, branch={"name": "dev"}, endpoints=[{"type": "read_write"}])
    branch, endpoint = answer["branch"], answer["endpoints"][0]
    assert (branch["name"], branch["parent_id"], branch["default"]) == ("dev", made["branch"]["id"], False)
    assert [op["action"] for op in answer["operations"]] == ["create_branch", "start_compute"]
    assert "endpoint_id" not in answer["operations"][0] and answer["operations"][1]["endpoint_id"] == endpoint["id"]
    assert [r["name"] for r in answer["roles"]] == ["neondb_owner"] and "password" not in answer["roles"][0]
    password = made["roles"][0]["password"]
    assert answer["connection_uris"][0]["connection_uri"] == \
        "postgresql://neondb_owner:%s@%s/neondb?sslmode=require" % (password, endpoint["host"])
    sim.advance_clock(SETTLE)
    bare = new_branch(sim, made)
    assert "connection_uris" not in bare and bare["endpoints"] == [] and bare["branch"]["name"] == bare["branch"]["id"]


def test_no_connection_uris_when_the_parent_has_two_roles(sim, made):
    ok(call(sim, "POST", "%s/roles" % branch_path(made), json={"role": {"name": "app"}}), 201)
    sim.advance_clock(SETTLE)
    answer = new_branch(sim, made, endpoints=[{"type": "read_write"}])
    assert "connection_uris" not in answer and len(answer["roles"]) == 2


def test_branch_names_are_unique_and_renames_checked(sim, made):
    new_branch(sim, made, branch={"name": "feature"})
    refused(call(sim, "POST", base(made) + "/branches", json={"branch": {"name": "feature"}}), 409,
            'branch already exists; branch_name:"feature"')
    refused(call(sim, "PATCH", branch_path(made), json={"branch": {"name": "feature"}}), 409)
    refused(call(sim, "PATCH", branch_path(made), json={"branch": {"name": "main"}}), 400,
            "cannot set branch to the same name")
    renamed = ok(call(sim, "PATCH", branch_path(made), json={"branch": {"name": "trunk"}}))
    assert renamed["branch"]["name"] == "trunk" and renamed["operations"] == []


def test_branch_deletion_rules_and_204_for_what_is_gone(sim, made):
    parent = new_branch(sim, made, branch={"name": "parent"}, endpoints=[{"type": "read_write"}])["branch"]
    child = new_branch(sim, made, branch={"name": "child", "parent_id": parent["id"]})["branch"]
    refused(call(sim, "DELETE", branch_path(made)), 400, "cannot delete the default branch")
    refused(call(sim, "DELETE", branch_path(made, parent["id"])), 400, "cannot delete a branch that has children")
    assert [op["action"] for op in ok(call(sim, "DELETE", branch_path(made, child["id"])))["operations"]] == \
        ["delete_timeline"]
    sim.advance_clock(SETTLE)
    deleted = ok(call(sim, "DELETE", branch_path(made, parent["id"])))
    assert [op["action"] for op in deleted["operations"]] == ["suspend_compute", "delete_timeline"]
    gone = call(sim, "DELETE", branch_path(made, parent["id"]))
    assert gone.status_code == 204 and gone.content == b""
    refused(call(sim, "GET", branch_path(made, parent["id"])), 404, "branch not found")
    assert [ep["id"] for ep in ok(call(sim, "GET", base(made) + "/endpoints"))["endpoints"]] == \
        [made["endpoints"][0]["id"]]  # the deleted branch's compute went with it


def test_branch_listing_pages_with_an_opaque_cursor_and_sorts(sim, made):
    for name in ("b-one", "b-two", "b-three"):
        new_branch(sim, made, branch={"name": name})
    everything = ok(call(sim, "GET", base(made) + "/branches"))
    assert len(everything["branches"]) == 4 and everything["annotations"] == {}
    # as the live service lists them (recorded traffic): pagination always, and who made each branch
    assert everything["pagination"]["sort_by"] == "updated_at" and "created_by" in everything["branches"][0]
    seen, cursor = [], None
    for _page in range(5):
        query = "?limit=2&sort_by=name&sort_order=asc" + ("&cursor=" + cursor if cursor else "")
        page = ok(call(sim, "GET", base(made) + "/branches" + query))
        seen.extend(b["name"] for b in page["branches"])
        if len(page["branches"]) < 2:
            break
        assert page["pagination"]["sort_order"] == "ASC"
        cursor = page["pagination"]["next"]
        assert json.loads(base64.b64decode(cursor))["branch_id"] == page["branches"][-1]["id"]
    assert seen == ["b-one", "b-three", "b-two", "main"]
    assert ok(call(sim, "GET", base(made) + "/branches?search=b-t"))["branches"][0]["name"] in ("b-two", "b-three")
    assert ok(call(sim, "GET", base(made) + "/branches/count?search=b-"))["count"] == 3
    refused(call(sim, "GET", base(made) + "/branches?cursor=nonsense"), 400)


def test_expiry_rules(sim, made):
    refused(call(sim, "POST", base(made) + "/branches",
                 json={"branch": {"protected": True, "expires_at": "2999-01-01T00:00:00Z"}}), 400)
    soon = requests.get(sim.control_url + "/clock", timeout=10).json()["time"] + 86400
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(soon))
    later = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(soon + 31 * 86400))
    refused(call(sim, "POST", base(made) + "/branches", json={"branch": {"expires_at": later}}), 400)
    refused(call(sim, "POST", base(made) + "/branches", json={"branch": {"protected": True, "expires_at": stamp}}),
            400, "Protected branch cannot have an expiration date", code="PROTECTED_BRANCH_EXPIRATION_NOT_ALLOWED")
    expiring = new_branch(sim, made, branch={"name": "ttl", "expires_at": stamp})["branch"]
    assert expiring["expires_at"] == stamp and expiring["ttl_interval_seconds"] > 0
    refused(call(sim, "POST", base(made) + "/branches", json={"branch": {"parent_id": expiring["id"]}}), 400)
    cleared = ok(call(sim, "PATCH", branch_path(made, expiring["id"]), json={"branch": {"expires_at": None}}))
    assert "expires_at" not in cleared["branch"]


def test_restore_from_parent_takes_its_roles_and_restarts_the_compute(sim, made):
    child = new_branch(sim, made, branch={"name": "reset-me"}, endpoints=[{"type": "read_write"}])
    ok(call(sim, "POST", "%s/roles" % branch_path(made), json={"role": {"name": "late"}}), 201)
    sim.advance_clock(SETTLE)
    path = branch_path(made, child["branch"]["id"])
    answer = ok(call(sim, "POST", path + "/restore", json={"source_branch_id": made["branch"]["id"]}))
    assert answer["branch"]["current_state"] == "resetting" and "last_reset_at" in answer["branch"]
    assert [op["action"] for op in answer["operations"]] == ["create_timeline", "start_compute"]
    sim.advance_clock(SETTLE)
    assert ok(call(sim, "GET", path))["branch"]["current_state"] == "ready"
    assert sorted(r["name"] for r in ok(call(sim, "GET", path + "/roles"))["roles"]) == ["late", "neondb_owner"]
    assert ok(call(sim, "GET", path + "/endpoints"))["endpoints"][0]["id"] == child["endpoints"][0]["id"]
    refused(call(sim, "POST", path + "/restore", json={"source_branch_id": child["branch"]["id"]}), 400)


def test_restore_of_a_parent_needs_preserve_under_name(sim, made):
    middle = new_branch(sim, made, branch={"name": "middle"})["branch"]
    leaf = new_branch(sim, made, branch={"name": "leaf", "parent_id": middle["id"]})["branch"]
    path = branch_path(made, middle["id"])
    refused(call(sim, "POST", path + "/restore", json={"source_branch_id": made["branch"]["id"]}), 400)
    ok(call(sim, "POST", path + "/restore", json={"source_branch_id": made["branch"]["id"],
                                                  "preserve_under_name": "middle-old"}))
    branches = {b["name"]: b for b in ok(call(sim, "GET", base(made) + "/branches"))["branches"]}
    assert branches["leaf"]["parent_id"] == branches["middle-old"]["id"] != middle["id"]
    assert leaf["id"] == branches["leaf"]["id"]


def test_set_as_default_moves_the_flag(sim, made):
    other = new_branch(sim, made, branch={"name": "next-main"})["branch"]
    answer = ok(call(sim, "POST", branch_path(made, other["id"]) + "/set_as_default"))
    assert answer["branch"]["default"] is True and answer["operations"] == []
    assert ok(call(sim, "GET", branch_path(made)))["branch"]["default"] is False
    # no longer refused as the default branch, but as the new default's parent
    refused(call(sim, "DELETE", branch_path(made)), 400, "cannot delete a branch that has children")
    refused(call(sim, "DELETE", branch_path(made, other["id"])), 400, "cannot delete the default branch")


def test_branch_limit_is_422(sim, made):
    sim.set_limits(max_branches=1)
    refused(call(sim, "POST", base(made) + "/branches", json={}), 422, code="BRANCHES_LIMIT_EXCEEDED")


# ---------------------------------------------------------------------- computes


def test_one_read_write_compute_per_branch_and_read_only_ones(sim, made):
    body = {"endpoint": {"branch_id": made["branch"]["id"], "type": "read_write"}}
    refused(call(sim, "POST", base(made) + "/endpoints", json=body), 409,
            'read_write endpoint already exists; branch_id:"%s"' % made["branch"]["id"])
    body["endpoint"]["type"] = "read_only"
    replica = ok(call(sim, "POST", base(made) + "/endpoints", json=body), 201)
    assert [op["action"] for op in replica["operations"]] == ["start_compute"]
    assert replica["endpoint"]["type"] == "read_only" and replica["endpoint"]["current_state"] == "init"
    sim.advance_clock(SETTLE)
    listed = ok(call(sim, "GET", branch_path(made) + "/endpoints"))["endpoints"]
    assert sorted(ep["type"] for ep in listed) == ["read_only", "read_write"]
    refused(call(sim, "POST", base(made) + "/endpoints",
                 json={"endpoint": {"branch_id": made["branch"]["id"], "type": "read_only",
                                    "region_id": "aws-eu-central-1"}}), 400)
    refused(call(sim, "POST", base(made) + "/endpoints",
                 json={"endpoint": {"branch_id": "br-none-none-00000000", "type": "read_only"}}), 404)


def test_suspend_start_restart_and_what_they_start(sim, made):
    path = "%s/endpoints/%s" % (base(made), made["endpoints"][0]["id"])
    suspended = ok(call(sim, "POST", path + "/suspend"))
    assert [op["action"] for op in suspended["operations"]] == ["suspend_compute"]
    assert suspended["endpoint"]["pending_state"] == "idle"
    sim.advance_clock(SETTLE)
    assert ok(call(sim, "GET", path))["endpoint"]["current_state"] == "idle"
    assert ok(call(sim, "POST", path + "/suspend"))["operations"] == []
    assert [op["action"] for op in ok(call(sim, "POST", path + "/restart"))["operations"]] == ["start_compute"]
    sim.advance_clock(SETTLE)
    assert [op["action"] for op in ok(call(sim, "POST", path + "/restart"))["operations"]] == \
        ["suspend_compute", "start_compute"]
    sim.advance_clock(SETTLE)
    assert ok(call(sim, "GET", path))["endpoint"]["current_state"] == "active"
    assert ok(call(sim, "POST", path + "/start"))["operations"] == []


def test_an_active_compute_suspends_itself_after_its_timeout(sim, made):
    path = "%s/endpoints/%s" % (base(made), made["endpoints"][0]["id"])
    assert ok(call(sim, "GET", path))["endpoint"]["current_state"] == "active"
    sim.advance_clock(300)
    endpoint = ok(call(sim, "GET", path))["endpoint"]
    assert endpoint["current_state"] == "idle" and "suspended_at" in endpoint
    actions = [op["action"] for op in ok(call(sim, "GET", base(made) + "/operations"))["operations"]]
    assert actions[0] == "suspend_compute"


def test_update_of_an_idle_compute_is_applied_then_suspended(sim, made):
    path = "%s/endpoints/%s" % (base(made), made["endpoints"][0]["id"])
    ok(call(sim, "POST", path + "/suspend"))
    sim.advance_clock(SETTLE)
    answer = ok(call(sim, "PATCH", path, json={"endpoint": {"autoscaling_limit_max_cu": 2,
                                                            "suspend_timeout_seconds": 600}}))
    assert [op["action"] for op in answer["operations"]] == ["apply_config", "suspend_compute"]
    assert (answer["endpoint"]["autoscaling_limit_max_cu"], answer["endpoint"]["suspend_timeout_seconds"]) == (2, 600)
    refused(call(sim, "PATCH", path, json={"endpoint": {"type": "read_only"}}), 400)


def test_delete_compute_then_204(sim, made):
    path = "%s/endpoints/%s" % (base(made), made["endpoints"][0]["id"])
    answer = ok(call(sim, "DELETE", path))
    assert [op["action"] for op in answer["operations"]] == ["suspend_compute"]
    assert call(sim, "DELETE", path).status_code == 204
    refused(call(sim, "GET", path), 404, "endpoint not found")


# ---------------------------------------------------------------------- roles and databases


def test_role_create_reveal_and_password_only_in_its_answers(sim, made):
    roles = branch_path(made) + "/roles"
    answer = ok(call(sim, "POST", roles, json={"role": {"name": "app"}}), 201)
    assert [op["action"] for op in answer["operations"]] == ["apply_config"]
    password = answer["role"]["password"]
    refused(call(sim, "POST", roles, json={"role": {"name": "app"}}), 409)
    sim.advance_clock(SETTLE)
    assert "password" not in ok(call(sim, "GET", roles + "/app"))["role"]
    assert ok(call(sim, "GET", roles + "/app/reveal_password")) == {"password": password}
    refused(call(sim, "GET", roles + "/nobody/reveal_password"), 404, "role not found")
    sim.set_store_passwords(made["project"]["id"], False)
    refused(call(sim, "GET", roles + "/app/reveal_password"), 412, "storing passwords is disabled")
    refused(call(sim, "GET", base(made) + "/connection_uri?database_name=neondb&role_name=app"), 412)


def test_reveal_password_is_a_get_and_a_post_is_405(sim, made):
    """The neon-api 0.3 SDK POSTs to reveal_password; the route is GET only (SPEC), so the answer is
    the wrong-method 405 (inferred, notes 8): no password, nothing changed."""
    path = branch_path(made) + "/roles/neondb_owner/reveal_password"
    answer = call(sim, "POST", path)
    assert refused(answer, 405, "method POST not allowed") and answer.headers["Allow"] == "GET, HEAD"
    password = made["roles"][0]["password"]
    assert ok(call(sim, "GET", path)) == {"password": password}
    assert sim.password_valid(made["project"]["id"], made["branch"]["id"], "neondb_owner", password)


def test_reset_password_keeps_the_old_one_until_the_operation_ends(sim, made):
    pid, bid = made["project"]["id"], made["branch"]["id"]
    old = made["roles"][0]["password"]
    sim.script_operations("apply_config", hold=True)
    answer = ok(call(sim, "POST", branch_path(made) + "/roles/neondb_owner/reset_password"))
    new = answer["role"]["password"]
    assert new != old and [op["action"] for op in answer["operations"]] == ["apply_config"]
    assert sim.password_valid(pid, bid, "neondb_owner", old) and not sim.password_valid(pid, bid, "neondb_owner", new)
    assert ok(call(sim, "GET", branch_path(made) + "/roles/neondb_owner/reveal_password"))["password"] == old
    sim.release_operations(pid)
    assert sim.password_valid(pid, bid, "neondb_owner", new) and not sim.password_valid(pid, bid, "neondb_owner", old)
    check = requests.post(sim.control_url + "/projects/%s/check_password" % pid,
                          json={"branch_id": bid, "role_name": "neondb_owner", "password": new}, timeout=10)
    assert check.json() == {"valid": True}


def test_databases_with_owners(sim, made):
    dbs = branch_path(made) + "/databases"
    refused(call(sim, "POST", dbs, json={"database": {"name": "shop", "owner_name": "ghost"}}), 404,
            "database owner not found")
    refused(call(sim, "POST", dbs, json={"database": {"name": "postgres", "owner_name": "neondb_owner"}}), 400)
    ok(call(sim, "POST", branch_path(made) + "/roles", json={"role": {"name": "shopper"}}), 201)
    sim.advance_clock(SETTLE)
    created = ok(call(sim, "POST", dbs, json={"database": {"name": "shop", "owner_name": "shopper"}}), 201)
    assert created["database"]["owner_name"] == "shopper" and created["operations"]
    sim.advance_clock(SETTLE)
    refused(call(sim, "POST", dbs, json={"database": {"name": "shop", "owner_name": "shopper"}}), 409)
    refused(call(sim, "DELETE", branch_path(made) + "/roles/shopper"), 400)
    renamed = ok(call(sim, "PATCH", dbs + "/shop", json={"database": {"name": "store",
                                                                      "owner_name": "neondb_owner"}}))
    assert (renamed["database"]["name"], renamed["database"]["owner_name"]) == ("store", "neondb_owner")
    sim.advance_clock(SETTLE)
    refused(call(sim, "GET", dbs + "/shop"), 404, "database not found")
    assert ok(call(sim, "DELETE", branch_path(made) + "/roles/shopper"))["role"]["name"] == "shopper"
    sim.advance_clock(SETTLE)
    assert ok(call(sim, "DELETE", dbs + "/store"))["database"]["name"] == "store"
    assert call(sim, "DELETE", dbs + "/store").status_code == 204
    assert call(sim, "DELETE", branch_path(made) + "/roles/shopper").status_code == 204
    assert [d["name"] for d in ok(call(sim, "GET", dbs))["databases"]] == ["neondb"]


def test_role_change_on_a_branch_without_compute_starts_nothing(sim, made):
    bare = new_branch(sim, made)["branch"]
    answer = ok(call(sim, "POST", branch_path(made, bare["id"]) + "/roles", json={"role": {"name": "x"}}), 201)
    assert answer["operations"] == []


# ---------------------------------------------------------------------- connection URI and seeded projects


def test_connection_uri_default_branch_pooled_and_other_branch(sim, made):
    password, host = made["roles"][0]["password"], made["endpoints"][0]["host"]
    query = "/connection_uri?database_name=neondb&role_name=neondb_owner"
    assert ok(call(sim, "GET", base(made) + query))["uri"] == \
        "postgresql://neondb_owner:%s@%s/neondb?sslmode=require" % (password, host)
    pooled = ok(call(sim, "GET", base(made) + query + "&pooled=true"))["uri"]
    assert "@%s/" % host.replace(".", "-pooler.", 1) in pooled
    dev = new_branch(sim, made, endpoints=[{"type": "read_write"}])
    uri = ok(call(sim, "GET", base(made) + query + "&branch_id=" + dev["branch"]["id"]))["uri"]
    assert dev["endpoints"][0]["host"] in uri and password in uri
    refused(call(sim, "GET", base(made) + "/connection_uri?database_name=neondb&role_name=ghost"), 404)
    refused(call(sim, "GET", base(made) + "/connection_uri?role_name=neondb_owner"), 400)


def test_seeded_project_provisions_its_branches_from_its_operations(sim):
    demo = "/projects/" + sim.demo_project_id
    branches = ok(call(sim, "GET", demo + "/branches?sort_by=created_at&sort_order=asc"))["branches"]
    assert [b["name"] for b in branches][:2] == ["main", "dev"] and branches[0]["default"]
    branch_ids = {b["id"] for b in branches}
    ops = ok(call(sim, "GET", demo + "/operations?limit=50"))["operations"]
    assert {op["branch_id"] for op in ops} <= branch_ids
    endpoint_ids = {ep["id"] for ep in ok(call(sim, "GET", demo + "/endpoints"))["endpoints"]}
    assert {op["endpoint_id"] for op in ops if "endpoint_id" in op} <= endpoint_ids
    assert ok(call(sim, "GET", demo))["project"]["name"] == "demo-project"


# ---------------------------------------------------------------------- pace

@pytest.mark.parametrize("pace, ended", [(1.0, False), (0.1, True)])
def test_operation_pace_scales_how_long_started_operations_take(pace, ended):
    from neon_simulator import Simulator
    from neon_simulator.clock import Clock

    frozen = Clock(wall=lambda: 1.8e9, monotonic=lambda: 0.0)  # moves only when advanced
    simulator = Simulator(api_key=API_KEY, seed=1, host="127.0.0.1", port=0, operation_pace=pace, clock=frozen)
    simulator.start()
    try:
        answer = ok(call(simulator, "POST", "/projects", json={"project": {"name": "paced"}}), 201)
        simulator.advance_clock(0.25)  # past 0.1 x every duration (at most 2 s), within 1 x all of them
        operations = ok(call(simulator, "GET", "/projects/%s/operations" % answer["project"]["id"]))["operations"]
        assert sorted(op["action"] for op in operations) == ["create_timeline", "start_compute"]
        assert all(op["status"] == "finished" for op in operations) is ended
    finally:
        simulator.stop()


def test_operation_pace_must_be_positive():
    from neon_simulator import Simulator

    with pytest.raises(ValueError):
        Simulator(api_key=API_KEY, operation_pace=0)
