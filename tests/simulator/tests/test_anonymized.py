# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests of anonymized branches (anonymized.py): the states on the simulator's clock, the rules
replaced whole, scripted and held initializations and runs, and the refusals. No test waits for wall time: the
clock is moved on, or a phase is held and released. tests/test_openapi_conformance.py checks the answers against the
document; tests/test_real_computes.py masks for real."""

from __future__ import annotations

import pytest
import requests

API_KEY = "sim-selftest-key-anonymized"
PROJECT = "shiny-river-12345678"  # the seeded demo project
EMAIL = {"database_name": "neondb", "schema_name": "public", "table_name": "users", "column_name": "email",
         "masking_function": "anon.fake_email()"}
PHONE = {"database_name": "neondb", "schema_name": "public", "table_name": "users", "column_name": "phone",
         "masking_value": "REDACTED"}


def call(sim, method, path, expect=200, **kwargs):
    response = requests.request(method, sim.url + path, headers=sim.headers, timeout=10, **kwargs)
    assert response.status_code == expect, (method, path, response.status_code, response.text)
    return response.json() if response.content else None


@pytest.fixture(name="main")
def main_fixture(sim):
    """The demo project's default branch, with a ``users`` table in its data stand-in; its operations ended."""
    sim.advance_clock(60)
    branches = call(sim, "GET", "/projects/%s/branches" % PROJECT)["branches"]
    main = next(branch["id"] for branch in branches if branch["default"])
    written = requests.post("%s/projects/%s/branches/%s/data" % (sim.control_url, PROJECT, main), timeout=10, json={
        "database": "neondb", "table": "users", "columns": {"id": "bigint", "email": "text", "phone": "text"},
        "rows": [{"id": 1, "email": "ada@example.com", "phone": "+44 20 7946 0000"}]})
    assert written.status_code == 200, written.text
    return main


def anonymized(sim, main, expect=201, **body):
    body.setdefault("branch_create", {"branch": {"parent_id": main}})
    return call(sim, "POST", "/projects/%s/branch_anonymized" % PROJECT, expect=expect, json=body)


def status(sim, branch_id, expect=200):
    return call(sim, "GET", "/projects/%s/branches/%s/anonymized_status" % (PROJECT, branch_id), expect=expect)


def test_a_branch_made_with_start_anonymization_moves_through_its_states_on_the_clock(sim, main):
    made = anonymized(sim, main, masking_rules=[EMAIL, PHONE], start_anonymization=True,
                      branch_create={"branch": {"parent_id": main, "name": "masked"},
                                     "endpoints": [{"type": "read_write"}]})
    branch_id = made["branch"]["id"]
    assert made["branch"]["name"] == "masked" and made["branch"]["parent_id"] == main
    assert [op["action"] for op in made["operations"]] == ["create_branch", "start_compute"]
    assert len(made["endpoints"]) == 1
    first = status(sim, branch_id)
    assert first["state"] == "created" and "last_run" not in first
    sim.advance_clock(2.5)
    running = status(sim, branch_id)
    assert running["state"] == "anonymizing"
    assert running["status_message"] == "Anonymizing table neondb.public.users (1/1)"
    assert running["last_run"]["masked_columns"] == 0 and "completed_at" not in running["last_run"]
    assert running["last_run"]["triggered_by_username"] == "Sam Simulator"
    sim.advance_clock(5)
    done = status(sim, branch_id)
    assert done["state"] == "anonymized" and "failed_at" not in done
    assert done["last_run"]["masked_columns"] == 2 and done["last_run"]["completed_at"] >= done["last_run"]["started_at"]
    assert done["updated_at"] == done["last_run"]["completed_at"]


def test_without_start_anonymization_the_branch_waits_initialized_until_a_run_is_started(sim, main):
    branch_id = anonymized(sim, main, masking_rules=[EMAIL])["branch"]["id"]
    sim.advance_clock(30)
    assert status(sim, branch_id)["state"] == "initialized"
    started = call(sim, "POST", "/projects/%s/branches/%s/anonymize" % (PROJECT, branch_id))
    assert started["state"] == "anonymizing" and "started_at" in started["last_run"]
    sim.advance_clock(30)
    assert status(sim, branch_id)["state"] == "anonymized"
    again = call(sim, "POST", "/projects/%s/branches/%s/anonymize" % (PROJECT, branch_id))  # from anonymized: allowed
    assert again["state"] == "anonymizing"


def test_a_run_cannot_start_while_created_or_anonymizing(sim, main):
    branch_id = anonymized(sim, main, masking_rules=[EMAIL])["branch"]["id"]
    refused = call(sim, "POST", "/projects/%s/branches/%s/anonymize" % (PROJECT, branch_id), expect=409)
    assert refused["message"] == ("anonymization cannot start while the branch is created: it starts from the states "
                                  "initialized, error and anonymized")
    sim.advance_clock(30)
    call(sim, "POST", "/projects/%s/branches/%s/anonymize" % (PROJECT, branch_id))
    assert "anonymizing" in call(sim, "POST", "/projects/%s/branches/%s/anonymize" % (PROJECT, branch_id),
                                 expect=409)["message"]


def test_the_rules_are_replaced_whole_and_read_back_as_given(sim, main):
    branch_id = anonymized(sim, main, masking_rules=[EMAIL])["branch"]["id"]
    path = "/projects/%s/branches/%s/masking_rules" % (PROJECT, branch_id)
    assert call(sim, "GET", path) == {"masking_rules": [EMAIL]}
    assert call(sim, "PATCH", path, json={"masking_rules": [PHONE]}) == {"masking_rules": [PHONE]}
    assert call(sim, "GET", path) == {"masking_rules": [PHONE]}  # the email rule is gone, not kept beside it
    assert call(sim, "PATCH", path, json={"masking_rules": []}) == {"masking_rules": []}
    call(sim, "PATCH", path, json={}, expect=400)  # masking_rules is required
    assert call(sim, "PUT", path, json={"masking_rules": [EMAIL]}, expect=405)["message"] == "method PUT not allowed"


@pytest.mark.parametrize("rule, message", [
    ({k: v for k, v in EMAIL.items() if k != "table_name"}, "masking_rules[0].table_name: field required"),
    (dict(EMAIL, masking_value="x"), "masking_rules[0]: give masking_function or masking_value (one of them, not both)"),
    ({k: v for k, v in EMAIL.items() if k != "masking_function"},
     "masking_rules[0]: give masking_function or masking_value (one of them, not both)"),
    (dict(EMAIL, column_name=""), "masking_rules[0].column_name: must be a non-empty string"),
    ("email", "masking_rules[0]: must be an object"),
])
def test_a_bad_rule_is_refused_before_any_change(sim, main, rule, message):
    before = len(call(sim, "GET", "/projects/%s/branches" % PROJECT)["branches"])
    assert anonymized(sim, main, expect=400, masking_rules=[rule])["message"] == message
    assert len(call(sim, "GET", "/projects/%s/branches" % PROJECT)["branches"]) == before


def test_two_rules_for_one_column_are_refused(sim, main):
    branch_id = anonymized(sim, main)["branch"]["id"]
    refused = call(sim, "PATCH", "/projects/%s/branches/%s/masking_rules" % (PROJECT, branch_id), expect=400,
                   json={"masking_rules": [EMAIL, dict(EMAIL, masking_function="anon.hash(email)")]})
    assert refused["message"] == "masking_rules[1]: column neondb.public.users.email has a rule already (masking_rules[0])"


def test_a_branch_that_is_not_anonymized_answers_404_to_all_four(sim, main):
    base = "/projects/%s/branches/%s" % (PROJECT, main)
    for method, path, body in (("GET", "/anonymized_status", None), ("GET", "/masking_rules", None),
                               ("PATCH", "/masking_rules", {"masking_rules": [EMAIL]}), ("POST", "/anonymize", None)):
        answer = call(sim, method, base + path, expect=404, json=body)
        assert answer["message"] == "branch %s is not an anonymized branch" % main
    missing = "/projects/%s/branches/br-no-such-branch-1" % PROJECT
    assert call(sim, "GET", missing + "/anonymized_status", expect=404)["message"] == "branch not found"
    assert call(sim, "GET", "/projects/no-such-project-1/branches/%s/masking_rules" % main, expect=404)
    anonymized(sim, main, expect=404, branch_create={"branch": {"parent_id": "br-no-such-branch-1"}})


def test_a_deleted_anonymized_branch_is_gone_and_a_reset_forgets_them(sim, main):
    branch_id = anonymized(sim, main)["branch"]["id"]
    sim.advance_clock(30)
    call(sim, "DELETE", "/projects/%s/branches/%s" % (PROJECT, branch_id))
    assert status(sim, branch_id, expect=404)["message"] == "branch not found"
    sim.script_anonymization(outcome="error")
    sim.reset()
    assert sim.state.anonymized.branches == {} and sim.state.anonymized.list_scripts() == []


def test_a_rule_naming_what_the_branch_lacks_ends_the_run_in_error_naming_it(sim, main):
    missing = dict(EMAIL, column_name="emial")
    branch_id = anonymized(sim, main, masking_rules=[missing], start_anonymization=True)["branch"]["id"]
    sim.advance_clock(30)
    failed = status(sim, branch_id)
    assert failed["state"] == "error" and failed["failed_at"] == failed["last_run"]["completed_at"]
    assert failed["status_message"] == ("column emial does not exist in table public.users of database neondb "
                                        "(masking rule for neondb.public.users.emial)")
    assert failed["last_run"]["masked_columns"] == 0
    path = "/projects/%s/branches/%s" % (PROJECT, branch_id)
    call(sim, "PATCH", path + "/masking_rules", json={"masking_rules": [dict(EMAIL, database_name="shop")]})
    call(sim, "POST", path + "/anonymize")  # from error: allowed
    sim.advance_clock(30)
    assert status(sim, branch_id)["status_message"] == \
        "database shop does not exist in branch %s (masking rule for shop.public.users.email)" % branch_id


def test_a_scripted_run_fails_with_its_message_and_the_next_succeeds(sim, main):
    script = sim.script_anonymization(outcome="error", message="out of memory while masking neondb.public.users")
    assert script["phase"] == "anonymize" and script["count"] == 1
    branch_id = anonymized(sim, main, masking_rules=[EMAIL], start_anonymization=True)["branch"]["id"]
    sim.advance_clock(30)
    failed = status(sim, branch_id)
    assert (failed["state"], failed["status_message"]) == ("error", "out of memory while masking neondb.public.users")
    call(sim, "POST", "/projects/%s/branches/%s/anonymize" % (PROJECT, branch_id))
    sim.advance_clock(30)
    assert status(sim, branch_id)["state"] == "anonymized"


def test_a_scripted_initialization_error_keeps_the_run_from_starting(sim, main):
    answer = requests.post(sim.control_url + "/next_anonymizations", timeout=10, json={
        "phase": "initialize", "outcome": "initialization_error", "message": "anon extension could not be loaded"})
    assert answer.status_code == 201, answer.text
    branch_id = anonymized(sim, main, masking_rules=[EMAIL], start_anonymization=True)["branch"]["id"]
    sim.advance_clock(30)
    failed = status(sim, branch_id)
    assert (failed["state"], failed["status_message"]) == ("initialization_error", "anon extension could not be loaded")
    assert "last_run" not in failed and "failed_at" in failed
    assert "initialization_error" in call(sim, "POST", "/projects/%s/branches/%s/anonymize" % (PROJECT, branch_id),
                                          expect=409)["message"]


def test_a_held_run_stays_anonymizing_whatever_the_clock_until_released(sim, main):
    sim.script_anonymization(hold=True)
    branch_id = anonymized(sim, main, masking_rules=[EMAIL], start_anonymization=True)["branch"]["id"]
    sim.advance_clock(86400)
    assert status(sim, branch_id)["state"] == "anonymizing"
    released = sim.release_anonymization(PROJECT, branch_id, outcome="error", message="cancelled by the test")
    assert (released["state"], released["status_message"]) == ("error", "cancelled by the test")
    with pytest.raises(Exception, match="no held initialization or run"):
        sim.release_anonymization(PROJECT, branch_id)


def test_a_held_initialization_is_released_through_the_control_api(sim, main):
    sim.script_anonymization(phase="initialize", hold=True)
    branch_id = anonymized(sim, main, masking_rules=[EMAIL], start_anonymization=True)["branch"]["id"]
    sim.advance_clock(86400)
    assert status(sim, branch_id)["state"] == "created"
    answer = requests.post("%s/projects/%s/branches/%s/anonymization/release" % (sim.control_url, PROJECT, branch_id),
                           json={}, timeout=10)
    assert answer.status_code == 200 and answer.json()["state"] == "anonymizing"  # the run asked for starts
    sim.advance_clock(30)
    assert status(sim, branch_id)["state"] == "anonymized"


@pytest.mark.parametrize("spec, message", [
    ({"phase": "vacuum"}, "phase: must be initialize or anonymize"),
    ({"outcome": "initialization_error"}, "outcome: must be anonymized or error (phase anonymize)"),
    ({"colour": "red"}, "unknown fields: colour"),
])
def test_a_bad_script_is_refused(sim, spec, message):
    answer = requests.post(sim.control_url + "/next_anonymizations", json=spec, timeout=10)
    assert answer.status_code == 400 and answer.json()["message"] == message
