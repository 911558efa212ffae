# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests: a project's settings as the service keeps them
(/work/shared/spec/governance-recovery-api-notes.md, section 1): top-level keys merged, ``allowed_ips``
replaced whole, the body's types checked, one-way settings refused, plans refusing what they do not
include, and answers of the OpenAPI ``Project`` shape.

Projects of the seeded organization (plan ``scale``) take every setting; personal projects are on the
free plan. No test waits for wall time: the clock is jumped past the operations a change starts.
"""

from __future__ import annotations

import pytest

import requests

API_KEY = "sim-settings-key-0030"
SETTLE = 30
ORG_ID = "org-calm-tree-21298941"

# ProjectSettingsData of the vendor's OpenAPI document: each key's type (nested objects by their keys).
SETTINGS_SCHEMA = {
    "quota": {"active_time_seconds": int, "compute_time_seconds": int, "written_data_bytes": int,
              "data_transfer_bytes": int, "logical_size_bytes": int},
    "allowed_ips": {"ips": list, "protected_branches_only": bool},
    "enable_logical_replication": bool,
    "maintenance_window": {"weekdays": list, "start_time": str, "end_time": str},
    "block_public_connections": bool,
    "block_vpc_connections": bool,
    "audit_log_level": str,
    "hipaa": bool,
    "preload_libraries": {"use_defaults": bool, "enabled_libraries": list},
}
# Project's required fields (OpenAPI ``Project``).
PROJECT_REQUIRED = ("consumption_period_end", "consumption_period_start", "active_time_seconds", "compute_time_seconds",
                    "written_data_bytes", "data_transfer_bytes", "data_storage_bytes_hour", "id", "platform_id",
                    "region_id", "name", "pg_version", "proxy_host", "branch_logical_size_limit",
                    "branch_logical_size_limit_bytes", "store_passwords", "cpu_used_sec", "provisioner",
                    "creation_source", "history_retention_seconds", "created_at", "updated_at", "owner_id")


def call(sim, method, path, **kwargs):
    kwargs.setdefault("timeout", 10)
    return requests.request(method, sim.url + path, headers={"Authorization": "Bearer " + API_KEY}, **kwargs)


def ok(response, status=200):
    assert response.status_code == status, response.text
    return response.json()


def refused(response, status, message=None):
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"code", "message", "request_id"}
    if message is not None:
        assert body["message"] == message
    return body["message"]


def conforms(project):
    """The project is an OpenAPI Project: its required fields, and settings of the schema's types."""
    missing = [name for name in PROJECT_REQUIRED if name not in project]
    assert not missing, missing
    assert isinstance(project["store_passwords"], bool)
    for name, value in project.get("settings", {}).items():
        kind = SETTINGS_SCHEMA[name]
        if isinstance(kind, dict):
            assert isinstance(value, dict) and set(value) <= set(kind), (name, value)
            for part, part_kind in kind.items():
                assert part not in value or isinstance(value[part], part_kind), (name, part, value)
        else:
            assert isinstance(value, kind) and (kind is not int or not isinstance(value, bool)), (name, value)
    return project


def new_project(sim, org=True, **project):
    body = dict({"name": "settings"}, **project)
    if org:
        body["org_id"] = ORG_ID
    answer = ok(call(sim, "POST", "/projects", json={"project": body}), 201)
    sim.advance_clock(SETTLE)
    return answer["project"]


def patch(sim, project_id, settings=None, **project):
    if settings is not None:
        project["settings"] = settings
    return call(sim, "PATCH", "/projects/%s" % project_id, json={"project": project})


def settings_of(sim, project_id):
    return conforms(ok(call(sim, "GET", "/projects/%s" % project_id))["project"])["settings"]


# ---------------------------------------------------------------------- merging


def test_top_level_keys_merge_and_allowed_ips_is_replaced_whole(sim):
    project = new_project(sim)
    window = {"weekdays": [6], "start_time": "02:00", "end_time": "03:00"}
    ok(patch(sim, project["id"], {"maintenance_window": window, "quota": {"compute_time_seconds": 3600}}))
    ok(patch(sim, project["id"], {"allowed_ips": {"ips": [" 203.0.113.0/24 ", "192.0.2.1"],
                                                  "protected_branches_only": True}}))
    held = settings_of(sim, project["id"])
    assert held["maintenance_window"] == window and held["quota"] == {"compute_time_seconds": 3600}
    assert held["allowed_ips"] == {"ips": ["203.0.113.0/24", "192.0.2.1"], "protected_branches_only": True}

    # TF#133: only protected_branches_only sent -> the list is emptied
    ok(patch(sim, project["id"], {"allowed_ips": {"protected_branches_only": True}}))
    assert settings_of(sim, project["id"])["allowed_ips"] == {"ips": [], "protected_branches_only": True}
    # only ips sent -> protected_branches_only back to false
    ok(patch(sim, project["id"], {"allowed_ips": {"ips": ["192.0.2.1"]}}))
    assert settings_of(sim, project["id"])["allowed_ips"] == {"ips": ["192.0.2.1"], "protected_branches_only": False}


def test_a_quota_sent_is_the_whole_quota(sim):
    project = new_project(sim)
    ok(patch(sim, project["id"], {"quota": {"compute_time_seconds": 3600, "logical_size_bytes": 10}}))
    ok(patch(sim, project["id"], {"quota": {"active_time_seconds": 60}}))
    assert settings_of(sim, project["id"])["quota"] == {"active_time_seconds": 60}


def test_create_takes_settings_and_store_passwords(sim):
    project = new_project(sim, store_passwords=False,
                          settings={"allowed_ips": {"ips": ["198.51.100.20-198.51.100.50"]}, "audit_log_level": "full"},
                          default_endpoint_settings={"pg_settings": {"work_mem": "64MB"}})
    assert project["store_passwords"] is False
    held = settings_of(sim, project["id"])
    assert held["allowed_ips"] == {"ips": ["198.51.100.20-198.51.100.50"], "protected_branches_only": False}
    assert held["audit_log_level"] == "full" and held["enable_logical_replication"] is False
    (endpoint,) = ok(call(sim, "GET", "/projects/%s/endpoints" % project["id"]))["endpoints"]
    assert endpoint["settings"]["pg_settings"] == {"work_mem": "64MB"}  # the new compute takes the defaults


def test_answers_of_create_update_get_and_list_conform_to_the_project_schema(sim):
    project = conforms(new_project(sim, settings={"hipaa": True, "preload_libraries": {"use_defaults": False,
                                                                                       "enabled_libraries": ["timescaledb"]}}))
    assert project["hipaa_enabled_at"]
    conforms(ok(patch(sim, project["id"], {"block_public_connections": True}))["project"])
    listed = ok(call(sim, "GET", "/projects", params={"org_id": ORG_ID}))["projects"]
    assert [item["settings"]["block_public_connections"] for item in listed if item["id"] == project["id"]] == [True]


# ---------------------------------------------------------------------- checking the body


@pytest.mark.parametrize("settings, words", [
    ({"allowed_ips": {"ips": ["192.0.2.300"]}}, "'192.0.2.300' is not an IP address"),
    ({"allowed_ips": {"ips": ["192.0.2.9-192.0.2.1"]}}, "is not an IP address, a range or a CIDR block"),
    ({"allowed_ips": {"ips": "192.0.2.1"}}, "must be a list of strings"),
    ({"allowed_ips": {"protected_branches_only": "yes"}}, "must be true or false"),
    ({"maintenance_window": {"weekdays": [1], "start_time": "02:00"}}, "maintenance_window.end_time: field required"),
    ({"maintenance_window": {"weekdays": [8], "start_time": "02:00", "end_time": "03:00"}}, "weekdays: must be"),
    ({"maintenance_window": {"weekdays": [1], "start_time": "2:00", "end_time": "03:00"}}, "start_time: must be a time"),
    ({"quota": {"compute_time_seconds": -1}}, "quota.compute_time_seconds: must be an integer of 0 or more"),
    ({"quota": {"cpu": 1}}, "settings.quota: unknown field cpu"),
    ({"audit_log_level": "hipaa"}, "audit_log_level: must be one of base, extended, full"),
    ({"hipaa": "true"}, "settings.hipaa: must be true or false"),
    ({"colour": "blue"}, "settings: unknown field colour"),
    ({"preload_libraries": {"enabled_libraries": [1]}}, "must be a list of strings"),
])
def test_a_bad_settings_body_is_400_and_changes_nothing(sim, settings, words):
    project = new_project(sim)
    before = settings_of(sim, project["id"])
    assert words in refused(patch(sim, project["id"], settings), 400)
    assert settings_of(sim, project["id"]) == before


def test_store_passwords_and_non_string_pg_settings_are_refused_on_update(sim):
    project = new_project(sim)
    refused(patch(sim, project["id"], store_passwords=False), 400,
            "store_passwords: can only be set when the project is created")
    assert "every value must be a string" in refused(
        patch(sim, project["id"], default_endpoint_settings={"pg_settings": {"max_connections": 100}}), 400)


# ---------------------------------------------------------------------- one-way settings


def test_logical_replication_suspends_active_computes_and_cannot_be_turned_off(sim):
    project = new_project(sim)
    (endpoint,) = ok(call(sim, "GET", "/projects/%s/endpoints" % project["id"]))["endpoints"]
    assert endpoint["current_state"] == "active"
    answer = ok(patch(sim, project["id"], {"enable_logical_replication": True}))
    assert [op["action"] for op in answer["operations"]] == ["suspend_compute"]
    sim.advance_clock(SETTLE)
    assert settings_of(sim, project["id"])["enable_logical_replication"] is True
    refused(patch(sim, project["id"], {"enable_logical_replication": False}), 400,
            "logical replication cannot be disabled once it is enabled")
    again = ok(patch(sim, project["id"], {"enable_logical_replication": True}))  # asked again: nothing to do
    assert again["operations"] == []


def test_hipaa_cannot_be_turned_off(sim):
    project = new_project(sim)
    ok(patch(sim, project["id"], {"hipaa": True}))
    refused(patch(sim, project["id"], {"hipaa": False}), 400, "disabling HIPAA is not allowed")
    assert settings_of(sim, project["id"])["hipaa"] is True


# ---------------------------------------------------------------------- plans


@pytest.mark.parametrize("settings, named", [
    ({"allowed_ips": {"ips": ["192.0.2.1"]}}, "IP Allow (settings.allowed_ips)"),
    ({"block_public_connections": True}, "Private Networking (settings.block_public_connections)"),
    ({"maintenance_window": {"weekdays": [2], "start_time": "01:00", "end_time": "02:00"}},
     "choosing the maintenance window (settings.maintenance_window)"),
    ({"audit_log_level": "full"}, "audit logging (settings.audit_log_level)"),
    ({"hipaa": True}, "HIPAA (settings.hipaa)"),
])
def test_the_free_plan_refuses_what_it_does_not_include_naming_it(sim, settings, named):
    project = new_project(sim, org=False)
    message = refused(patch(sim, project["id"], settings, name="renamed"), 403)
    assert message.startswith(named) and "is not available on your plan (free_v2)" in message
    after = ok(call(sim, "GET", "/projects/%s" % project["id"]))["project"]
    assert after["name"] == "settings"  # nothing of the request was carried out
    assert "is not available" in refused(call(sim, "POST", "/projects", json={"project": {"settings": settings}}), 403)


def test_the_free_plan_takes_what_turns_nothing_on_and_what_every_plan_has(sim):
    project = new_project(sim, org=False)
    held = settings_of(sim, project["id"])
    ok(patch(sim, project["id"], {"allowed_ips": {"ips": [], "protected_branches_only": False},  # neonctl's reset
                                  "block_public_connections": False, "audit_log_level": "base",
                                  "maintenance_window": held["maintenance_window"],  # as it is
                                  "quota": {"compute_time_seconds": 100}, "enable_logical_replication": True}))
    assert settings_of(sim, project["id"])["quota"] == {"compute_time_seconds": 100}


def test_launch_has_the_maintenance_window_but_not_ip_allow(sim):
    org = sim.create_organization(name="Launch Org", plan="launch")
    project = ok(call(sim, "POST", "/projects", json={"project": {"org_id": org["id"]}}), 201)["project"]
    sim.advance_clock(SETTLE)
    ok(patch(sim, project["id"], {"maintenance_window": {"weekdays": [3], "start_time": "04:00", "end_time": "05:00"}}))
    assert "needs the Scale plan" in refused(patch(sim, project["id"], {"allowed_ips": {"ips": ["192.0.2.1"]}}), 403)
