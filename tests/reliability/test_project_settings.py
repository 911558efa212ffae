# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""neon.cloud.project's settings (issue 30) against the simulator, run in this process as a playbook task.

What a user would notice: the drift a check run shows and the change the real run makes (exactly
that), settings not given left alone, warnings and notes about what cannot be taken back, refusals
made before anything is sent, the plan's refusal naming the setting with nothing sent after it, the
default compute's Postgres settings, and an unchanged project costing no more requests than before.
Projects of the seeded organization (plan scale) take every setting; personal projects are on the
free plan. Waiting is driven through the simulator (held operations), never by racing the clock.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok
from test_provisioning_modules import RUN_TIMEOUT, changes_since, new_project, requests_since, run, wait_for_request

WINDOW = {"weekdays": [6], "start_time": "02:00", "end_time": "03:00"}


def org_project(sim, **settings):
    """A project of the seeded organization (plan scale) with ``settings``, its operations ended."""
    return new_project(sim, org_id=rel.ORG_ID, settings=settings)["project"]


def held(sim, project_id):
    return rel.api(sim, "GET", "/projects/%s" % project_id)["project"]


def compute_of(sim, project_id):
    (endpoint,) = rel.api(sim, "GET", "/projects/%s/endpoints" % project_id)["endpoints"]
    return endpoint


# ---------------------------------------------------------------------------------------------- drift first


def test_check_diff_shows_each_setting_that_differs_and_the_real_run_changes_exactly_that(sim):
    project = org_project(sim, allowed_ips={"ips": ["192.0.2.1"], "protected_branches_only": True},
                          maintenance_window=WINDOW, quota={"compute_time_seconds": 100}, audit_log_level="base")
    pid = project["id"]
    before = held(sim, pid)
    baseline = dict(id=pid, settings=dict(
        allowed_ips=dict(ips=["203.0.113.0/24", "192.0.2.1"]),          # differs
        maintenance_window=dict(WINDOW, weekdays=[6, 6]),                 # the same
        quota=dict(compute_time_seconds=100, logical_size_bytes=1000),    # one of two differs
        audit_log_level="base",                                           # the same
    ))

    seq = last_seq(sim)
    drift = ok(run(sim, "project", check_mode=True, diff=True, **baseline))
    assert drift["changed"] is True and changes_since(sim, seq) == []
    # What changes, and nothing else: the unchanged settings (the window, the other quota, the audit level) and
    # the project's own fields (name, region, Postgres version, organization, retention, compute) are absent.
    assert drift["diff"]["before"] == {"settings": {"allowed_ips": {"ips": ["192.0.2.1"]},
                                                    "quota": {"logical_size_bytes": None}}}
    assert drift["diff"]["after"] == {"settings": {"allowed_ips": {"ips": ["203.0.113.0/24", "192.0.2.1"]},
                                                   "quota": {"logical_size_bytes": 1000}}}
    assert not drift.get("warnings")
    assert drift["project"]["settings"]["allowed_ips"]["ips"] == ["203.0.113.0/24", "192.0.2.1"]  # as it would be
    assert held(sim, pid)["settings"] == before["settings"]

    applied = ok(run(sim, "project", diff=True, **baseline))
    assert applied["changed"] is True and applied["diff"] == drift["diff"]
    assert [method for method, _path in changes_since(sim, seq)] == ["PATCH"]
    after = held(sim, pid)["settings"]
    assert after["allowed_ips"] == {"ips": ["203.0.113.0/24", "192.0.2.1"], "protected_branches_only": True}
    assert after["quota"] == {"compute_time_seconds": 100, "logical_size_bytes": 1000}
    assert dict(after, allowed_ips=None, quota=None) == dict(before["settings"], allowed_ips=None, quota=None)
    assert applied["project"]["settings"] == after

    seq = last_seq(sim)
    again = ok(run(sim, "project", check_mode=True, diff=True, **baseline))
    assert again["changed"] is False and again["diff"] == {"before": {}, "after": {}}  # nothing changes: nothing shown
    assert ok(run(sim, "project", **baseline))["changed"] is False and changes_since(sim, seq) == []


def test_an_unchanged_project_costs_no_more_requests_than_without_settings(sim):
    settings = dict(allowed_ips=dict(ips=["192.0.2.1"]), maintenance_window=WINDOW, hipaa=False,
                    quota=dict(active_time_seconds=0))
    pid = org_project(sim, allowed_ips={"ips": ["192.0.2.1"]}, maintenance_window=WINDOW)["id"]
    counts = []
    for args in (dict(id=pid), dict(id=pid, settings=settings), dict(name=held(sim, pid)["name"], org_id=rel.ORG_ID),
                 dict(name=held(sim, pid)["name"], org_id=rel.ORG_ID, settings=settings)):
        seq = last_seq(sim)
        assert ok(run(sim, "project", **args))["changed"] is False
        counts.append(len(requests_since(sim, seq)))
        assert changes_since(sim, seq) == []
    assert counts[0] == counts[1] and counts[2] == counts[3], counts


# ---------------------------------------------------------------------------------------------- what is not given


def test_settings_not_given_are_left_alone_and_allowed_ips_keeps_its_other_part(sim):
    pid = org_project(sim, allowed_ips={"ips": ["192.0.2.1"], "protected_branches_only": True},
                      maintenance_window=WINDOW, quota={"compute_time_seconds": 100, "logical_size_bytes": 5})["id"]

    ok(run(sim, "project", id=pid, settings=dict(allowed_ips=dict(ips=["198.51.100.7"]))))
    ok(run(sim, "project", id=pid, settings=dict(quota=dict(active_time_seconds=60))))
    ok(run(sim, "project", id=pid, settings=dict(maintenance_window=dict(start_time="01:00"))))
    settings = held(sim, pid)["settings"]
    assert settings["allowed_ips"] == {"ips": ["198.51.100.7"], "protected_branches_only": True}
    assert settings["quota"] == {"compute_time_seconds": 100, "logical_size_bytes": 5, "active_time_seconds": 60}
    assert settings["maintenance_window"] == dict(WINDOW, start_time="01:00")

    ok(run(sim, "project", id=pid, settings=dict(allowed_ips=dict(protected_branches_only=False))))
    assert held(sim, pid)["settings"]["allowed_ips"] == {"ips": ["198.51.100.7"], "protected_branches_only": False}


def test_a_partial_window_with_none_to_complete_it_is_refused_before_any_change(sim):
    name = rel.unique_name("window")  # a new project: no window to take the others from
    seq = last_seq(sim)
    failure = failed(run(sim, "project", name=name, org_id=rel.ORG_ID,
                         settings=dict(maintenance_window=dict(weekdays=[1], start_time="01:00"))))
    assert "settings.maintenance_window needs weekdays, start_time and end_time together" in failure["msg"]
    assert "missing: end_time" in failure["msg"] and changes_since(sim, seq) == []


# ---------------------------------------------------------------------------------------------- notes and one-way settings


def test_an_emptied_allow_list_is_said_in_the_diff_and_a_warning(sim):
    pid = org_project(sim, allowed_ips={"ips": ["192.0.2.1"]})["id"]
    result = ok(run(sim, "project", diff=True, id=pid, settings=dict(allowed_ips=dict(ips=[]))))
    note = "settings.allowed_ips.ips: an empty list allows connections from every IP address"
    assert result["changed"] is True and result["diff"]["after"]["notes"] == [note]
    assert note in json.dumps(result["warnings"])
    assert held(sim, pid)["settings"]["allowed_ips"]["ips"] == []
    quiet = ok(run(sim, "project", id=pid, settings=dict(allowed_ips=dict(ips=[]))))
    assert quiet["changed"] is False and not quiet.get("warnings")  # already open: nothing to say


def test_logical_replication_turned_on_warns_waits_for_the_suspends_and_cannot_be_asked_back(sim):
    pid = org_project(sim)["id"]
    assert compute_of(sim, pid)["current_state"] == "active"
    checked = ok(run(sim, "project", check_mode=True, diff=True, id=pid,
                     settings=dict(enable_logical_replication=True)))
    (note,) = checked["diff"]["after"]["notes"]
    assert "suspends every active compute" in note and "cannot be undone" in note
    assert "cannot be undone" in json.dumps(checked["warnings"])

    turned = ok(run(sim, "project", id=pid, settings=dict(enable_logical_replication=True)))
    assert [(op["action"], op["status"]) for op in turned["operations"]] == [("suspend_compute", "finished")]
    assert compute_of(sim, pid)["current_state"] == "idle"
    assert held(sim, pid)["settings"]["enable_logical_replication"] is True

    for check_mode in (True, False):
        seq = last_seq(sim)
        failure = failed(run(sim, "project", check_mode=check_mode, id=pid,
                             settings=dict(enable_logical_replication=False)))
        assert "settings.enable_logical_replication is on for project %s" % pid in failure["msg"]
        assert "cannot turn logical replication off" in failure["msg"]
        assert requests_since(sim, seq) == [("GET", "/api/v2/projects/%s" % pid)]  # the read, nothing sent


def test_hipaa_off_where_it_is_on_is_refused_with_no_request_sent(sim):
    pid = org_project(sim, hipaa=True)["id"]
    seq = last_seq(sim)
    failure = failed(run(sim, "project", id=pid, name="renamed", settings=dict(hipaa=False)))
    assert "settings.hipaa is on" in failure["msg"] and "cannot turn HIPAA off" in failure["msg"]
    assert failure["changed"] is False and changes_since(sim, seq) == []
    assert held(sim, pid)["name"] != "renamed"


def test_store_passwords_differing_from_the_project_is_refused_before_any_change(sim):
    pid = org_project(sim)["id"]
    seq = last_seq(sim)
    failure = failed(run(sim, "project", id=pid, store_passwords=False))
    assert "store_passwords is True, not False" in failure["msg"] and "can only be set when it is created" in failure["msg"]
    assert changes_since(sim, seq) == []
    name = rel.unique_name("nopass")
    created = ok(run(sim, "project", name=name, org_id=rel.ORG_ID, store_passwords=False))
    assert held(sim, created["project"]["id"])["store_passwords"] is False
    assert ok(run(sim, "project", name=name, org_id=rel.ORG_ID, store_passwords=False))["changed"] is False


# ---------------------------------------------------------------------------------------------- refusals


def test_bad_settings_fail_with_a_clear_message_and_no_request(sim):
    pid = org_project(sim)["id"]
    for settings, words in (
            (dict(allowed_ips=dict(ips=["192.0.2.1", "10.0.0.300"])), "'10.0.0.300' is not an IP address"),
            (dict(maintenance_window=dict(weekdays=[0], start_time="01:00", end_time="02:00")), "0 is not a weekday"),
            (dict(maintenance_window=dict(weekdays=[1], start_time="1am", end_time="02:00")), "HH:MM"),
            (dict(quota=dict(written_data_bytes=-5)), "settings.quota.written_data_bytes must be 0 (unlimited) or more"),
            (dict(audit_log_level="verbose"), "audit_log_level"),
    ):
        seq = last_seq(sim)
        failure = failed(run(sim, "project", id=pid, settings=settings))
        assert words in failure["msg"], failure["msg"]
        assert requests_since(sim, seq) == []
    seq = last_seq(sim)
    failure = failed(run(sim, "project", id=pid, compute=dict(pg_settings=dict(log_connections=True))))
    assert "compute.pg_settings.log_connections must be text" in failure["msg"] and requests_since(sim, seq) == []


def test_a_setting_the_plan_refuses_fails_naming_it_and_nothing_is_sent_after_it(sim):
    project = new_project(sim)["project"]  # a personal project: the free plan
    pid = project["id"]
    endpoint = compute_of(sim, pid)
    seq = last_seq(sim)
    failure = failed(run(sim, "project", id=pid, settings=dict(allowed_ips=dict(ips=["192.0.2.1"])),
                         compute=dict(pg_settings=dict(work_mem="8MB"))))
    assert "settings.allowed_ips.ips" in failure["msg"]
    assert "HTTP 403" in failure["msg"] and "IP Allow (settings.allowed_ips) is not available on your plan" in failure["msg"]
    assert failure["changed"] is False and "Nothing was changed" in failure["msg"]
    assert changes_since(sim, seq) == [("PATCH", "/api/v2/projects/%s" % pid)]  # the default compute's update not sent
    assert compute_of(sim, pid)["settings"] == endpoint["settings"]
    assert held(sim, pid)["settings"]["allowed_ips"]["ips"] == []


# ---------------------------------------------------------------------------------------------- the default compute


def test_pg_settings_reach_the_project_defaults_and_the_existing_default_compute(sim):
    pid = org_project(sim)["id"]
    rel.api(sim, "PATCH", "/projects/%s/endpoints/%s" % (pid, compute_of(sim, pid)["id"]),
            json={"endpoint": {"settings": {"pg_settings": {"work_mem": "4MB"}}}})
    sim.advance_clock(30)
    checked = ok(run(sim, "project", check_mode=True, diff=True, id=pid,
                     compute=dict(pg_settings=dict(max_connections=90, work_mem="4MB"))))
    assert checked["changed"] is True
    # The project's defaults had no Postgres settings: both change there. The compute had work_mem already: only
    # max_connections changes on it, and work_mem is absent from its side of the diff; so are its other settings.
    assert checked["diff"]["before"] == {"compute": {"pg_settings": {"max_connections": None, "work_mem": None}},
                                         "default_compute": {"pg_settings": {"max_connections": None}}}
    assert checked["diff"]["after"] == {"compute": {"pg_settings": {"max_connections": "90", "work_mem": "4MB"}},
                                        "default_compute": {"pg_settings": {"max_connections": "90"}}}

    result = ok(run(sim, "project", id=pid, compute=dict(pg_settings=dict(max_connections=90, work_mem="4MB"))))
    assert result["changed"] is True
    assert result["project"]["default_endpoint_settings"]["pg_settings"] == {"max_connections": "90", "work_mem": "4MB"}
    assert compute_of(sim, pid)["settings"]["pg_settings"] == {"work_mem": "4MB", "max_connections": "90"}
    assert all(op["status"] == "finished" for op in result["operations"])
    assert "apply_config" in [op["action"] for op in result["operations"]]

    seq = last_seq(sim)
    again = ok(run(sim, "project", id=pid, compute=dict(pg_settings=dict(max_connections="90"))))
    assert again["changed"] is False and changes_since(sim, seq) == []


# ---------------------------------------------------------------------------------------------- what resources promise


def test_a_423_while_another_operation_runs_is_waited_out(sim, collection_parent, tmp_path):
    pid = org_project(sim)["id"]
    held_operation = sim.start_operations(pid, action="apply_config", hold=True)[0]
    seq = last_seq(sim)
    process, = rel.start_module_processes(collection_parent, tmp_path, "project", [
        rel.connection_args(sim, id=pid, api_timeout=30, settings=dict(enable_logical_replication=True))])
    try:
        wait_for_request(sim, seq, "PATCH", "/projects/%s" % pid, status=423)
        assert held(sim, pid)["settings"]["enable_logical_replication"] is False  # refused, not carried out
        wait_for_request(sim, seq, "GET", "/operations")
    finally:
        sim.release_operations(pid, held_operation["id"])
    result, = rel.module_process_results([process], RUN_TIMEOUT)
    assert not result.get("failed"), result
    assert result["changed"] is True and held(sim, pid)["settings"]["enable_logical_replication"] is True
    statuses = [entry["status"] for entry in sim.requests(since=seq) if entry["method"] == "PATCH"]
    assert statuses[-1] == 200 and set(statuses) == {423, 200}


def test_overlapping_runs_of_one_baseline_converge(sim, collection_parent, tmp_path):
    pid = org_project(sim, maintenance_window=WINDOW)["id"]
    sim.add_barrier(method="GET", path="/api/v2/projects/%s" % pid, parties=2, timeout=60)
    baseline = dict(allowed_ips=dict(ips=["192.0.2.1"]), quota=dict(compute_time_seconds=10), audit_log_level="full")
    args = rel.connection_args(sim, id=pid, api_timeout=RUN_TIMEOUT - 10, settings=baseline)
    results = rel.module_process_results(rel.start_module_processes(collection_parent, tmp_path, "project", [args, args]),
                                         RUN_TIMEOUT)
    assert [result.get("failed", False) for result in results] == [False, False], results
    settings = held(sim, pid)["settings"]
    assert settings["allowed_ips"]["ips"] == ["192.0.2.1"] and settings["quota"] == {"compute_time_seconds": 10}
    assert settings["audit_log_level"] == "full" and settings["maintenance_window"] == WINDOW
    assert ok(run(sim, "project", id=pid, settings=baseline))["changed"] is False
