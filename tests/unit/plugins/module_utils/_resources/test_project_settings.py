# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rules of a project's settings (_resources/project_settings.py), without HTTP: what is refused before
sending, how settings compare, what a PATCH sends, what the diff notes."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._api.errors import UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import NOTHING, REFUSE, UPDATE, decide, planned
from ansible_collections.neon.cloud.plugins.module_utils._resources.project_settings import (
    SETTINGS_FIELDS,
    changes_shown,
    check_settings,
    compute_settings_body,
    given_options,
    ip_entry,
    notes,
    one_way_problem,
    pg_settings_problem,
    same_flag,
    same_given_keys,
    same_ips,
    same_quota,
    same_set,
    settings_problem,
    shown_fields,
    update_settings,
    window_problem,
    with_settings_normalised,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.projects import PROJECT

WINDOW = {"weekdays": [6, 7], "start_time": "02:00", "end_time": "04:00"}
HELD = {
    "id": "p-1", "name": "shop", "store_passwords": True,
    "default_endpoint_settings": {"autoscaling_limit_min_cu": 0.25, "pg_settings": {"work_mem": "4MB"}},
    "settings": {
        "allowed_ips": {"ips": ["203.0.113.0/24", "192.0.2.1"], "protected_branches_only": True},
        "maintenance_window": WINDOW,
        "quota": {"compute_time_seconds": 3600, "logical_size_bytes": 1000},
        "enable_logical_replication": False,
        "hipaa": False,
        "block_public_connections": False,
    },
}


def options(settings=None, **given):
    """The module's options as Ansible gives them: every suboption present, None when not given."""
    shape = {
        "allowed_ips": ("ips", "protected_branches_only"),
        "maintenance_window": ("weekdays", "start_time", "end_time"),
        "quota": ("active_time_seconds", "compute_time_seconds", "written_data_bytes", "data_transfer_bytes",
                  "logical_size_bytes"),
        "preload_libraries": ("use_defaults", "enabled_libraries"),
    }
    full = None
    if settings is not None:
        full = dict.fromkeys(("block_public_connections", "block_vpc_connections", "audit_log_level",
                              "enable_logical_replication", "hipaa") + tuple(shape))
        for name, value in settings.items():
            full[name] = dict(dict.fromkeys(shape[name]), **value) if name in shape else value
    result = dict.fromkeys(("name", "org_id", "region_id", "pg_version", "history_retention_seconds", "compute",
                            "store_passwords", "default_branch", "database", "role"))
    result.update(given, settings=full)
    return result


# ---------------------------------------------------------------------------------------------- IP entries


@pytest.mark.parametrize("entry, canonical", [
    ("192.0.2.1", "192.0.2.1"),
    (" 192.0.2.1\t", "192.0.2.1"),
    ("198.51.100.20 - 198.51.100.50", "198.51.100.20-198.51.100.50"),
    ("203.0.113.0/24", "203.0.113.0/24"),
    ("2001:DB8:5432::/48", "2001:db8:5432::/48"),
    ("2001:0db8::0001", "2001:db8::1"),
])
def test_an_address_range_or_block_is_read_whitespace_and_case_aside(entry, canonical):
    assert ip_entry(entry) == canonical


@pytest.mark.parametrize("entry", ["192.0.2.300", "192.0.2.9-192.0.2.1", "192.0.2.1-2001:db8::1", "203.0.113.0/33",
                                   "", "example.com", "192.0.2.1/24/8", None, 42])
def test_what_is_no_address_range_or_block_is_not_read(entry):
    assert ip_entry(entry) is None


def test_ip_lists_compare_as_sets():
    assert same_ips(["192.0.2.1", "203.0.113.0/24"], ["203.0.113.0/24 ", "192.0.2.1", "192.0.2.1"])
    assert same_ips(["2001:db8::/48"], ["2001:DB8::/48"])
    assert same_ips(None, [])  # unset and empty both allow every address
    assert not same_ips(["192.0.2.1"], [])
    assert not same_ips(["192.0.2.1"], ["192.0.2.1", "192.0.2.2"])
    assert same_ips(["not an ip"], ["NOT AN IP"])  # what the service holds that is none of the forms: as text


def test_weekdays_and_libraries_compare_as_sets_flags_and_quotas_by_their_unset_meaning():
    assert same_set([7, 6], [6, 7, 7]) and same_set(None, []) and not same_set([6], [6, 7])
    assert not same_set("67", [6, 7])
    assert same_flag(None, False) and not same_flag(None, True) and same_flag(True, True)
    assert same_quota(None, 0) and same_quota(5, 5) and not same_quota(None, 5)


def test_postgres_settings_compare_only_those_given():
    held = {"work_mem": "4MB", "max_connections": "100"}
    assert same_given_keys(held, {"work_mem": "4MB"})
    assert not same_given_keys(held, {"work_mem": "8MB"})
    assert not same_given_keys(held, {"statement_timeout": "0"})
    assert not same_given_keys(None, {"work_mem": "4MB"}) and same_given_keys(None, {})


# ---------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("settings, words", [
    ({"allowed_ips": {"ips": ["192.0.2.1", "192.0.2.256"]}}, "settings.allowed_ips.ips: '192.0.2.256' is not an IP"),
    ({"maintenance_window": {"weekdays": [0]}}, "settings.maintenance_window.weekdays: 0 is not a weekday"),
    ({"maintenance_window": {"weekdays": [8]}}, "8 is not a weekday; use 1 (Monday) to 7 (Sunday)"),
    ({"maintenance_window": {"weekdays": []}}, "must name at least one day"),
    ({"maintenance_window": {"start_time": "2:00"}}, "settings.maintenance_window.start_time must be a time of day HH:MM"),
    ({"maintenance_window": {"end_time": "24:00"}}, "settings.maintenance_window.end_time must be a time of day HH:MM"),
    ({"maintenance_window": {"start_time": "12:60"}}, "got '12:60'"),
    ({"maintenance_window": {"start_time": "750"}}, "YAML reads an unquoted 12:30 as the number 750: quote the time"),
    ({"quota": {"compute_time_seconds": -1}}, "settings.quota.compute_time_seconds must be 0 (unlimited) or more, got -1"),
    ({"audit_log_level": "hipaa"}, "settings.audit_log_level must be one of base, extended, full, got 'hipaa'"),
    ({"preload_libraries": {"enabled_libraries": [" "]}}, "is not a library name"),
])
def test_bad_settings_are_refused_naming_the_setting(settings, words):
    problem = settings_problem(options(settings)["settings"])
    assert problem is not None and words in problem


def test_good_settings_are_not_refused():
    assert settings_problem(None) is None
    assert settings_problem(options({"allowed_ips": {"ips": []}, "quota": {"active_time_seconds": 0}})["settings"]) is None
    assert settings_problem(options({
        "allowed_ips": {"ips": ["192.0.2.1", "198.51.100.20-198.51.100.50", "2001:db8::/48"]},
        "maintenance_window": {"weekdays": [1, 7], "start_time": "00:00", "end_time": "23:59"},
        "quota": {"compute_time_seconds": 0, "logical_size_bytes": 10 ** 12},
        "audit_log_level": "full",
        "preload_libraries": {"use_defaults": True, "enabled_libraries": ["timescaledb"]},
    })["settings"]) is None


def test_postgres_settings_must_be_text_or_a_number():
    assert pg_settings_problem(None) is None
    assert pg_settings_problem({"work_mem": "64MB", "max_connections": 100, "random_page_cost": 1.1}) is None
    assert "compute.pg_settings.log_connections must be text, got True; quote it (log_connections: 'on')" in \
        pg_settings_problem({"log_connections": True})
    assert "must be text, got None" in pg_settings_problem({"work_mem": None})
    assert "is not a setting name" in pg_settings_problem({"": "1"})


def test_options_are_normalised_before_they_are_compared_and_sent():
    given = options({"allowed_ips": {"ips": [" 192.0.2.1 ", "192.0.2.1", "203.0.113.0 /24", "2001:DB8::1", "2001:db8::1"]},
                     "maintenance_window": {"weekdays": [7, 6, 7]},
                     "preload_libraries": {"enabled_libraries": ["a", " a", "b"]}},
                    compute={"min_cu": None, "pg_settings": {"max_connections": 100, "work_mem": "4MB"}})
    result = with_settings_normalised(given)
    assert result["settings"]["allowed_ips"]["ips"] == ["192.0.2.1", "203.0.113.0/24", "2001:DB8::1"]
    assert result["settings"]["maintenance_window"]["weekdays"] == [6, 7]
    assert result["settings"]["preload_libraries"]["enabled_libraries"] == ["a", "b"]
    assert result["compute"] == {"min_cu": None, "pg_settings": {"max_connections": "100", "work_mem": "4MB"}}
    assert given["settings"]["allowed_ips"]["ips"][0] == " 192.0.2.1 "  # the options given are left as they were
    assert with_settings_normalised(options()) == options()


# ---------------------------------------------------------------------------------------------- refusals before sending


def test_a_partial_maintenance_window_needs_a_window_to_complete_it():
    partial = options({"maintenance_window": {"start_time": "01:00"}})
    problem = window_problem(None, partial)
    assert "missing: weekdays, end_time" in problem
    assert window_problem(dict(HELD, settings={}), partial) == problem
    assert window_problem(HELD, partial) is None  # the project's window gives the others
    assert window_problem(None, options({"maintenance_window": WINDOW})) is None
    assert window_problem(None, options({"quota": {"active_time_seconds": 1}})) is None


def test_one_way_settings_asked_back_are_refused_naming_them():
    problem = one_way_problem(HELD, {"settings.enable_logical_replication": (True, False)})
    assert "settings.enable_logical_replication is on for project p-1" in problem
    assert "cannot turn logical replication off" in problem
    assert "cannot turn HIPAA off" in one_way_problem(HELD, {"settings.hipaa": (True, False)})
    assert one_way_problem(HELD, {"settings.hipaa": (False, True)}) is None
    assert one_way_problem(HELD, {"settings.hipaa": (None, False)}) is None


def test_notes_say_what_cannot_be_taken_back():
    turned_on = dict(HELD, settings=dict(HELD["settings"], enable_logical_replication=True, hipaa=True))
    said = notes(HELD, turned_on)
    assert len(said) == 2
    assert "suspends every active compute" in said[0] and "cannot be undone" in said[0]
    assert "HIPAA compliance cannot be turned off" in said[1]
    opened = dict(HELD, settings=dict(HELD["settings"], allowed_ips={"ips": [], "protected_branches_only": True}))
    assert notes(HELD, opened) == ["settings.allowed_ips.ips: an empty list allows connections from every IP address"]
    assert notes(opened, opened) == [] and notes(HELD, HELD) == []
    blocked = dict(HELD, settings=dict(HELD["settings"], block_public_connections=True))
    assert notes(HELD, blocked) == ["settings.block_public_connections: connections from the public internet are "
                                    "refused from now on, whatever the IP allow list says"]
    assert notes(blocked, blocked) == [] and notes(blocked, HELD) == []
    assert notes(None, {"settings": {"allowed_ips": {"ips": []}}}) == []  # a new project: nothing was restricted
    assert len(notes(None, {"settings": {"enable_logical_replication": True}})) == 1


# ---------------------------------------------------------------------------------------------- the decision and the body


def test_only_the_settings_given_are_compared():
    plan = decide(PROJECT, HELD, with_settings_normalised(options({"allowed_ips": {"ips": ["192.0.2.1", "203.0.113.0/24"]},
                                                                   "quota": {"compute_time_seconds": 3600}})))
    assert plan.action == NOTHING  # same set, other order; the window and the other quota are not asked


def test_a_changed_setting_is_planned_alone_and_its_object_is_sent_whole():
    plan = decide(PROJECT, HELD, with_settings_normalised(options({"allowed_ips": {"ips": ["198.51.100.7"]},
                                                                   "quota": {"active_time_seconds": 60},
                                                                   "maintenance_window": {"start_time": "01:00"}})))
    assert plan.action == UPDATE
    assert sorted(plan.changes) == ["settings.allowed_ips.ips", "settings.maintenance_window.start_time",
                                    "settings.quota.active_time_seconds"]
    assert plan.body == {"settings": {"allowed_ips": {"ips": ["198.51.100.7"]}, "quota": {"active_time_seconds": 60},
                                      "maintenance_window": {"start_time": "01:00"}}}
    sent = update_settings(HELD, plan.body["settings"])
    assert sent == {
        "allowed_ips": {"ips": ["198.51.100.7"], "protected_branches_only": True},  # the part not given, as held
        "quota": {"compute_time_seconds": 3600, "logical_size_bytes": 1000, "active_time_seconds": 60},
        "maintenance_window": {"weekdays": [6, 7], "start_time": "01:00", "end_time": "04:00"},
    }
    assert "enable_logical_replication" not in sent and "hipaa" not in sent  # what is not asked is not sent


def test_allowed_ips_given_only_its_flag_keeps_the_list():
    plan = decide(PROJECT, HELD, options({"allowed_ips": {"protected_branches_only": False}}))
    assert update_settings(HELD, plan.body["settings"])["allowed_ips"] == {
        "ips": ["203.0.113.0/24", "192.0.2.1"], "protected_branches_only": False}
    assert update_settings({"settings": {}}, {"allowed_ips": {"protected_branches_only": True}})["allowed_ips"] == {
        "ips": [], "protected_branches_only": True}


def test_flags_and_levels_are_sent_as_they_are():
    plan = decide(PROJECT, HELD, options({"enable_logical_replication": True, "audit_log_level": "extended",
                                          "block_public_connections": False}))
    assert update_settings(HELD, plan.body["settings"]) == {"enable_logical_replication": True,
                                                            "audit_log_level": "extended"}


def test_store_passwords_differing_is_refused_as_a_creation_setting():
    plan = decide(PROJECT, HELD, options(store_passwords=False))
    assert plan.action == REFUSE and "store_passwords is True, not False" in plan.reason
    assert decide(PROJECT, HELD, options(store_passwords=True)).action == NOTHING
    created = decide(PROJECT, None, options({"hipaa": True}, name="new", store_passwords=False))
    assert created.body == {"name": "new", "store_passwords": False, "settings": {"hipaa": True}}


def test_postgres_settings_of_the_project_merge_with_those_held():
    plan = decide(PROJECT, HELD, with_settings_normalised(options(compute={"pg_settings": {"max_connections": 90}})))
    assert plan.changes == {"compute.pg_settings": ({"work_mem": "4MB"}, {"max_connections": "90"})}
    assert planned(HELD, plan)["default_endpoint_settings"]["pg_settings"] == {"work_mem": "4MB",
                                                                               "max_connections": "90"}
    assert decide(PROJECT, HELD, options(compute={"pg_settings": {"work_mem": "4MB"}})).action == NOTHING


def test_a_compute_sends_its_settings_whole_with_its_postgres_settings_merged():
    endpoint = {"id": "ep-1", "settings": {"pg_settings": {"work_mem": "4MB"}, "pgbouncer_settings": {"a": "1"}}}
    assert compute_settings_body(endpoint, {"max_connections": "90"}) == {
        "pg_settings": {"work_mem": "4MB", "max_connections": "90"}, "pgbouncer_settings": {"a": "1"}}
    assert compute_settings_body({"id": "ep-2"}, {"work_mem": "8MB"}) == {"pg_settings": {"work_mem": "8MB"}}


def test_an_update_s_diff_shows_what_changes_and_nothing_else():
    given = with_settings_normalised(options({"allowed_ips": {"ips": ["192.0.2.1"], "protected_branches_only": True},
                                              "quota": {"compute_time_seconds": 3600, "logical_size_bytes": 5},
                                              "maintenance_window": WINDOW},
                                             name="shop", compute={"pg_settings": {"work_mem": "4MB",
                                                                                   "max_connections": 90}}))
    plan = decide(PROJECT, HELD, given)
    assert changes_shown(PROJECT.fields, plan.changes) == (
        {"settings": {"allowed_ips": {"ips": ["203.0.113.0/24", "192.0.2.1"]}, "quota": {"logical_size_bytes": 1000}},
         "compute": {"pg_settings": {"max_connections": None}}},
        {"settings": {"allowed_ips": {"ips": ["192.0.2.1"]}, "quota": {"logical_size_bytes": 5}},
         "compute": {"pg_settings": {"max_connections": "90"}}})  # the name, the window, the flag, work_mem: as they are
    assert changes_shown(PROJECT.fields, decide(PROJECT, HELD, options(name="shop")).changes) == ({}, {})


def test_the_diff_shows_the_options_named():
    given = options({"allowed_ips": {"ips": ["192.0.2.1"]}, "hipaa": True})
    named = given_options(SETTINGS_FIELDS, given)
    assert named == ["settings.allowed_ips.ips", "settings.hipaa"]
    assert shown_fields(HELD, SETTINGS_FIELDS, named) == {
        "settings": {"allowed_ips": {"ips": ["203.0.113.0/24", "192.0.2.1"]}, "hipaa": False}}
    assert shown_fields(None, SETTINGS_FIELDS, named) == {}


# ---------------------------------------------------------------------------------------------- answers


@pytest.mark.parametrize("project, field", [
    ({"id": "p", "settings": []}, "project.settings"),
    ({"id": "p", "store_passwords": "yes"}, "project.store_passwords"),
    ({"id": "p", "settings": {"allowed_ips": {"ips": "192.0.2.1"}}}, "project.settings.allowed_ips.ips"),
    ({"id": "p", "settings": {"allowed_ips": {"ips": [1]}}}, "project.settings.allowed_ips.ips[0]"),
    ({"id": "p", "settings": {"hipaa": "false"}}, "project.settings.hipaa"),
    ({"id": "p", "settings": {"quota": {"compute_time_seconds": "1"}}}, "project.settings.quota.compute_time_seconds"),
    ({"id": "p", "settings": {"maintenance_window": {"weekdays": ["6"]}}}, "project.settings.maintenance_window.weekdays[0]"),
    ({"id": "p", "settings": {"preload_libraries": {"enabled_libraries": [None]}}},
     "project.settings.preload_libraries.enabled_libraries[0]"),
    ({"id": "p", "default_endpoint_settings": {"pg_settings": "work_mem=4MB"}},
     "project.default_endpoint_settings.pg_settings"),
])
def test_settings_of_an_unexpected_type_are_an_unexpected_answer_naming_the_field(project, field):
    with pytest.raises(UnexpectedAnswer) as caught:
        check_settings(project, "GET", "/projects/p")
    assert caught.value.field == field


def test_settings_as_the_service_answers_them_pass():
    assert check_settings(HELD, "GET", "/projects/p-1") is HELD
    assert check_settings({"id": "p"}, "GET", "/projects/p") == {"id": "p"}
