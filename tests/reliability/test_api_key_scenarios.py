# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The scenarios of neon.cloud.api_key (rotation, max_age_days, keep, revoking, refusals, faults,
organization and project-scoped keys) against the simulator.

Each test runs the module in this process (rel.run_module), as a playbook task would, and checks
what a user would notice: the result, what the service holds afterwards, the requests it took (the
simulator's request log) and that no secret shows in msg, warnings or diff. Keys age through the
simulator (sim.age_key), never by waiting. The api_key integration target keeps one representative
playbook task per behaviour, and what is ansible-core's own (module_defaults with the action group,
no_log, check mode and diff as Ansible prints them, async, templated options); the scenarios live
here (CONTRIBUTING.md, "Integration targets and ansible-core").
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re
import time

import pytest

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok

SECRET = re.compile(r"^[a-z0-9]{64}$")
CHANGES = ("POST", "DELETE")
# projects of the seeded organization (tests/simulator/README.md)
ORG_PROJECT = "bold-glade-61830452"
AGE_MARGIN = 60  # seconds older than the whole days asked: a test's own run time never rounds an age down
OTHER_ORG_PROJECT = "quiet-brook-72914063"


# ---------------------------------------------------------------------------------------------- helpers


def run(sim, module="api_key", check_mode=False, diff=False, **args):
    return rel.task(sim, module, check_mode=check_mode, diff=diff, **args)


def shown(result):
    """What a user reads of a result besides its documented return values: msg, warnings, diff, error."""
    data = result.result or {}
    return json.dumps([data.get("msg"), data.get("warnings"), data.get("diff"), data.get("error")])


def assert_secrets_hidden(result, *secrets):
    text = shown(result)
    for secret in secrets:
        assert secret and secret not in text, "a secret is shown outside the key return value: %s" % text
    for key in (result.result or {}).get("revoked_keys") or []:
        assert "key" not in key


def ids(keys):
    return [key["id"] for key in keys]


def requests_since(sim, seq, methods=None):
    return [entry for entry in sim.requests(since=seq) if methods is None or entry["method"] in methods]


def sim_keys(sim, name):
    """Every key of that name the simulator knows, revoked ones too, oldest first."""
    return [key for key in sim.keys() if key["name"] == name]


def active_ids(sim, name):
    return [key["id"] for key in sim_keys(sim, name) if not key["revoked"]]


def listed_ids(sim, **args):
    """The ids api_key_info lists (newest first), as a later task would see them."""
    return ids(ok(run(sim, "api_key_info", **args))["api_keys"])


def seeded_ci_ids(sim):
    """The two seeded ci-pipeline keys, newest first."""
    found = sorted((key["id"] for key in sim_keys(sim, "ci-pipeline") if not key["revoked"]), reverse=True)
    assert len(found) == 2, found
    return found


def age_key(sim, key_id, created_days_ago, last_used_days_ago=None):
    """Age a key so that the module, which counts days from this machine's clock, finds it that many
    whole days old: the simulator's clock runs ahead of it by what earlier tests advanced it."""
    skew = (sim.clock.time() - time.time() + AGE_MARGIN) / 86400.0
    spec = dict(created_days_ago=created_days_ago + skew)
    if last_used_days_ago is not None:
        spec["last_used_days_ago"] = last_used_days_ago + skew
    return sim.age_key(key_id, **spec)


def make_keys(sim, name, count):
    """Keys made straight through the simulator (set-up), oldest first, with their secrets."""
    return [sim.create_key(name=name) for _index in range(count)]


# ---------------------------------------------------------------------------------------------- rotate


def test_rotation_check_mode_sends_nothing_and_a_rotation_creates_once_and_revokes_each_old_key(fresh_sim):
    sim = fresh_sim
    old_ids = seeded_ci_ids(sim)
    seq = last_seq(sim)
    check = run(sim, name="ci-pipeline", rotate=True, check_mode=True, diff=True)
    data = ok(check)
    assert data["changed"] is True and "key" not in data
    assert data["api_key"] == {"name": "ci-pipeline"}
    assert ids(data["revoked_keys"]) == old_ids and [key["revoked"] for key in data["revoked_keys"]] == [True, True]
    assert ids(data["diff"]["before"]["api_keys"]) == old_ids
    assert data["diff"]["after"] == {"api_keys": [{"id": "(new)", "name": "ci-pipeline"}]}
    assert requests_since(sim, seq, CHANGES) == []
    assert active_ids(sim, "ci-pipeline") == sorted(old_ids)

    seq = last_seq(sim)
    rotated = run(sim, name="ci-pipeline", rotate=True, diff=True)
    data = ok(rotated)
    assert data["changed"] is True and SECRET.match(data["key"])
    assert data["api_key"]["name"] == "ci-pipeline" and data["api_key"]["id"] not in old_ids
    assert "key" not in data["api_key"]
    assert ids(data["revoked_keys"]) == old_ids and [key["revoked"] for key in data["revoked_keys"]] == [True, True]
    assert ids(data["diff"]["before"]["api_keys"]) == old_ids
    assert data["diff"]["after"] == {"api_keys": [{"id": data["api_key"]["id"], "name": "ci-pipeline"}]}
    assert_secrets_hidden(rotated, data["key"])
    assert listed_ids(sim, name="ci-pipeline") == [data["api_key"]["id"]]
    assert active_ids(sim, "ci-pipeline") == [data["api_key"]["id"]]
    changes = requests_since(sim, seq, CHANGES)
    assert [entry["method"] for entry in changes] == ["POST", "DELETE", "DELETE"]
    assert {entry["status"] for entry in changes} == {200}


def test_rotate_is_never_idempotent_it_makes_another_key_and_revokes_the_one_before(sim):
    name = rel.unique_name("rotate-again")
    first = ok(run(sim, name=name))
    again = run(sim, name=name, rotate=True)
    data = ok(again)
    assert data["changed"] is True and SECRET.match(data["key"]) and data["key"] != first["key"]
    assert ids(data["revoked_keys"]) == [first["api_key"]["id"]]
    assert active_ids(sim, name) == [data["api_key"]["id"]]
    assert_secrets_hidden(again, data["key"], first["key"])


def test_rotating_the_key_the_task_authenticates_with_leaves_only_the_new_secret_working(sim):
    name = rel.unique_name("rotate-self")
    own = ok(run(sim, name=name))
    seq = last_seq(sim)
    rotated = rel.run_module("api_key", rel.connection_args(sim, api_key=own["key"], name=name, rotate=True))
    data = ok(rotated)
    assert data["changed"] is True and SECRET.match(data["key"])
    assert ids(data["revoked_keys"]) == [own["api_key"]["id"]]
    assert_secrets_hidden(rotated, own["key"], data["key"])
    # one key created, one revoked
    assert [entry["method"] for entry in requests_since(sim, seq, CHANGES)] == ["POST", "DELETE"]

    with_old = failed(rel.run_module("api_key_info", rel.connection_args(sim, api_key=own["key"])))
    assert with_old["error"]["status"] == 401
    with_new = ok(rel.run_module("api_key_info", rel.connection_args(sim, api_key=data["key"], name=name)))
    assert ids(with_new["api_keys"]) == [data["api_key"]["id"]]


def test_a_rotation_whose_revoke_fails_keeps_the_new_secret_and_names_the_keys_left(sim):
    name = rel.unique_name("rotate-unfinished")
    old = ok(run(sim, name=name))["api_key"]
    sim.add_fault(method="DELETE", path="/api/v2/api_keys/*", status=500, count=rel.PERSISTENT_COUNT)
    unfinished = run(sim, name=name, rotate=True)
    data = failed(unfinished)
    assert data["changed"] is True and SECRET.match(data.get("key", "")), "the new key's secret is lost"
    assert data["api_key"]["id"] != old["id"] and data["revoked_keys"] == []
    assert "The rotation is unfinished: API key %d" % data["api_key"]["id"] in data["msg"]
    assert "older keys still active: %d" % old["id"] in data["msg"]
    assert active_ids(sim, name) == [old["id"], data["api_key"]["id"]]
    assert_secrets_hidden(unfinished, data["key"])


def test_rotate_of_a_name_without_keys_creates_one_and_revokes_nothing(sim):
    name = rel.unique_name("rotate-fresh")
    seq = last_seq(sim)
    data = ok(run(sim, name=name, rotate=True))
    assert data["changed"] is True and SECRET.match(data["key"])
    assert data["revoked_keys"] == []
    assert [entry["method"] for entry in requests_since(sim, seq, CHANGES)] == ["POST"]
    assert active_ids(sim, name) == [data["api_key"]["id"]]


# ---------------------------------------------------------------------------------------------- max_age_days


def test_max_age_days_rotates_a_key_past_it_once_and_leaves_a_younger_one(sim):
    name = rel.unique_name("sched")
    first = ok(run(sim, name=name, max_age_days=30))
    assert first["changed"] is True and first["action"] == "created" and SECRET.match(first["key"])
    first_id = first["api_key"]["id"]
    age_key(sim, first_id, 31, last_used_days_ago=31)

    seq = last_seq(sim)
    check = run(sim, name=name, max_age_days=30, check_mode=True, diff=True)
    data = ok(check)
    assert data["changed"] is True and data["action"] == "rotated" and "key" not in data
    assert "was 31 days old, and max_age_days is 30" in data["reason"]
    assert ids(data["revoked_keys"]) == [first_id]
    assert data["diff"]["after"] == {"api_keys": [{"id": "(new)", "name": name}]}
    assert {entry["method"] for entry in requests_since(sim, seq)} == {"GET"}
    assert active_ids(sim, name) == [first_id]

    due = run(sim, name=name, max_age_days=30)
    data = ok(due)
    assert data["changed"] is True and data["action"] == "rotated" and SECRET.match(data["key"])
    assert "the newest key (id %d) was 31 days old" % first_id in data["reason"]
    assert data["api_key"]["id"] != first_id and ids(data["revoked_keys"]) == [first_id]
    assert active_ids(sim, name) == [data["api_key"]["id"]]
    assert_secrets_hidden(due, data["key"], first["key"])
    due_id = data["api_key"]["id"]

    seq = last_seq(sim)
    again = ok(run(sim, name=name, max_age_days=30))
    assert again["changed"] is False and again["action"] == "none" and "key" not in again
    assert again["api_key"]["id"] == due_id and again["revoked_keys"] == []
    assert requests_since(sim, seq, CHANGES) == []

    age_key(sim, due_id, 29)
    younger = ok(run(sim, name=name, max_age_days=30))
    assert younger["changed"] is False and younger["action"] == "none"
    assert "is 29 days old, younger than max_age_days (30)" in younger["reason"]
    assert younger["api_key"]["id"] == due_id
    assert active_ids(sim, name) == [due_id]


# ---------------------------------------------------------------------------------------------- keep


def test_keep_leaves_exactly_the_newest_keys_in_check_mode_in_a_rotation_and_alone(sim):
    name = rel.unique_name("keep")
    made = ids(make_keys(sim, name, 3))
    for key_id, days in zip(made, (90, 60, 40)):
        age_key(sim, key_id, days)

    seq = last_seq(sim)
    check = ok(run(sim, name=name, max_age_days=30, keep=2, check_mode=True, diff=True))
    assert check["changed"] is True and check["action"] == "rotated"
    assert re.search("was 40 days old.*keep=2 leaves the newest 2 keys", check["reason"]), check["reason"]
    assert ids(check["revoked_keys"]) == [made[1], made[0]]
    assert ids(check["diff"]["after"]["api_keys"]) == ["(new)", made[2]]
    assert requests_since(sim, seq, CHANGES) == []
    assert active_ids(sim, name) == made

    rotated = run(sim, name=name, max_age_days=30, keep=2)
    data = ok(rotated)
    assert data["changed"] is True and data["action"] == "rotated" and SECRET.match(data["key"])
    assert ids(data["revoked_keys"]) == [made[1], made[0]]
    assert listed_ids(sim, name=name) == [data["api_key"]["id"], made[2]]
    assert_secrets_hidden(rotated, data["key"])
    new_id = data["api_key"]["id"]

    trimmed = ok(run(sim, name=name, keep=1))
    assert trimmed["changed"] is True and trimmed["action"] == "trimmed" and "key" not in trimmed
    assert trimmed["api_key"]["id"] == new_id
    assert ids(trimmed["revoked_keys"]) == [made[2]]
    assert listed_ids(sim, name=name) == [new_id]


def test_keep_with_state_absent_is_refused_and_revokes_nothing(sim):
    name = rel.unique_name("keep-absent")
    made = ids(make_keys(sim, name, 1))
    refused = failed(run(sim, name=name, state="absent", keep=1))
    assert refused["msg"] == "keep only applies to state=present"
    assert active_ids(sim, name) == made


# ---------------------------------------------------------------------------------------------- absent


def test_absent_by_name_check_mode_then_revoke_then_nothing_left(fresh_sim):
    sim = fresh_sim
    ci_ids = seeded_ci_ids(sim)
    check = ok(run(sim, name="ci-pipeline", state="absent", check_mode=True, diff=True))
    assert check["changed"] is True and "api_key" not in check
    assert ids(check["revoked_keys"]) == ci_ids
    assert ids(check["diff"]["before"]["api_keys"]) == ci_ids
    assert check["diff"]["after"] == {"api_keys": []}
    assert [key for key in sim.keys() if key["revoked"]] == []

    revoked = ok(run(sim, name="ci-pipeline", state="absent", diff=True))
    assert revoked["changed"] is True
    assert ids(revoked["revoked_keys"]) == ci_ids
    assert [key["revoked"] for key in revoked["revoked_keys"]] == [True, True]
    assert {key["name"] for key in revoked["revoked_keys"]} == {"ci-pipeline"}
    assert ids(revoked["diff"]["before"]["api_keys"]) == ci_ids and revoked["diff"]["after"] == {"api_keys": []}
    assert sorted((key["id"] for key in sim.keys() if key["revoked"]), reverse=True) == ci_ids

    for check_mode in (False, True):
        again = ok(run(sim, name="ci-pipeline", state="absent", check_mode=check_mode))
        assert again["changed"] is False and again["revoked_keys"] == [], check_mode


def test_absent_by_id_revokes_that_key_once_and_no_other(sim):
    by_id, kept = (ok(run(sim, name=rel.unique_name("by-id")))["api_key"] for _run in range(2))
    check = ok(run(sim, id=by_id["id"], state="absent", check_mode=True, diff=True))
    assert check["changed"] is True and ids(check["revoked_keys"]) == [by_id["id"]]
    assert check["diff"]["before"] == {"api_keys": [{"id": by_id["id"], "name": by_id["name"]}]}
    assert check["diff"]["after"] == {"api_keys": []}
    assert active_ids(sim, by_id["name"]) == [by_id["id"]]

    revoked = ok(run(sim, id=by_id["id"], state="absent"))
    assert revoked["changed"] is True and len(revoked["revoked_keys"]) == 1
    assert revoked["revoked_keys"][0]["id"] == by_id["id"] and revoked["revoked_keys"][0]["name"] == by_id["name"]
    assert revoked["revoked_keys"][0]["revoked"] is True
    again = ok(run(sim, id=by_id["id"], state="absent"))
    assert again["changed"] is False and again["revoked_keys"] == []
    left = listed_ids(sim)
    assert by_id["id"] not in left and kept["id"] in left


def test_absent_by_id_with_another_name_fails_and_with_its_own_name_revokes(sim):
    kept = ok(run(sim, name=rel.unique_name("by-id-name")))["api_key"]
    expected = "API key %d is named '%s', not 'not-its-name': nothing was revoked" % (kept["id"], kept["name"])
    for check_mode in (False, True):
        mismatch = failed(run(sim, id=kept["id"], name="not-its-name", state="absent", check_mode=check_mode))
        assert mismatch["msg"] == expected and not mismatch.get("changed"), check_mode
    assert listed_ids(sim, id=kept["id"]) == [kept["id"]]

    matching = ok(run(sim, id=kept["id"], name=kept["name"], state="absent"))
    assert matching["changed"] is True and ids(matching["revoked_keys"]) == [kept["id"]]
    assert active_ids(sim, kept["name"]) == []


def test_absent_of_keys_that_do_not_exist_is_unchanged(sim):
    by_name = ok(run(sim, name=rel.unique_name("never-created"), state="absent", diff=True))
    assert by_name["changed"] is False and by_name["revoked_keys"] == []
    assert by_name["diff"] == {"before": {"api_keys": []}, "after": {"api_keys": []}}
    by_id = ok(run(sim, id=999999999, state="absent"))
    assert by_id["changed"] is False and by_id["revoked_keys"] == []
    by_id_check = ok(run(sim, id=999999999, name="whatever", state="absent", check_mode=True))
    assert by_id_check["changed"] is False


# ---------------------------------------------------------------------------------------------- refusals and faults


@pytest.mark.parametrize("args, msg", [
    (dict(name="n" * 65), "name must be 1 to 64 characters long, got 65"),
    (dict(name=""), "name must be 1 to 64 characters long, got 0"),
    (dict(name="", state="absent"), "name must be 1 to 64 characters long, got 0"),
    (dict(state="absent"), "state=absent needs a name or an id"),
    (dict(state="absent", _check_mode=True), "state=absent needs a name or an id"),
    (dict(), "state=present needs a name"),
    (dict(name="refused-with-id", id=1), None),
    (dict(name="ci-pipeline", state="absent", rotate=True), "rotate only applies to state=present"),
    (dict(name="refused-sched", max_age_days=30, rotate=True), "rotate and max_age_days are mutually exclusive"),
    (dict(name="refused-sched", max_age_days=0), "max_age_days must be greater than 0, got 0"),
], ids=["name-too-long", "empty-name", "empty-name-absent", "absent-nothing", "absent-nothing-check", "present-no-name",
        "present-with-id", "absent-rotate", "rotate-and-max-age", "max-age-0"])
def test_options_refused_before_any_request_say_what_to_fix(sim, args, msg):
    args = dict(args)
    check_mode = args.pop("_check_mode", False)
    keys_before = sim.keys()
    seq = last_seq(sim)
    refused = failed(run(sim, check_mode=check_mode, **args))
    if msg is None:
        assert "id only selects a key to revoke with state=absent" in refused["msg"]
    elif "mutually exclusive" in msg:
        assert msg in refused["msg"]
    else:
        assert refused["msg"] == msg
    assert not refused.get("changed")
    assert requests_since(sim, seq) == []
    assert sim.keys() == keys_before


def test_a_revoked_key_and_an_unknown_key_are_refused_with_401_naming_the_request(sim):
    name = rel.unique_name("revoked")
    doomed = ok(run(sim, name=name))
    ok(run(sim, name=name, state="absent"))
    anything = rel.unique_name("anything")

    refused = rel.run_module("api_key", rel.connection_args(sim, api_key=doomed["key"], name=anything))
    data = failed(refused)
    assert not data.get("changed")
    assert data["msg"].startswith("GET /api_keys failed: HTTP 401: ")
    assert "the API key is missing, invalid or revoked" in data["msg"]
    assert (data["error"]["status"], data["error"]["method"], data["error"]["path"]) == (401, "GET", "/api_keys")
    assert isinstance(data["error"]["request_id"], str) and data["error"]["request_id"]
    assert "(request id %s)" % data["error"]["request_id"] in data["msg"]
    assert data["error"]["retryable"] is False
    assert doomed["key"] not in refused.text()

    unknown = failed(rel.run_module("api_key", rel.connection_args(sim, api_key="x" * 64, name=anything, state="absent")))
    assert (unknown["error"]["status"], unknown["error"]["path"]) == (401, "/api_keys")
    assert sim_keys(sim, anything) == []


def test_a_create_the_service_refuses_fails_with_its_answer_in_error(sim):
    name = rel.unique_name("refused")
    sim.add_fault(method="POST", path="/api/v2/api_keys", status=400, count=1)
    data = failed(run(sim, name=name))
    assert not data.get("changed") and "key" not in data
    assert data["msg"].startswith("POST /api_keys failed: HTTP 400: ")
    assert (data["error"]["status"], data["error"]["method"], data["error"]["path"]) == (400, "POST", "/api_keys")
    assert data["error"]["request_id"]
    assert sim_keys(sim, name) == []


def test_a_create_whose_answer_is_lost_is_reported_and_never_repeated_blindly(sim):
    lost_name = rel.unique_name("lost")
    sim.add_fault(method="POST", path="/api/v2/api_keys", drop=True, apply=True)
    seq = last_seq(sim)
    lost = failed(run(sim, name=lost_name))
    assert lost["changed"] is True and "key" not in lost
    assert lost["api_key"]["name"] == lost_name
    assert "the service did create key %d" % lost["api_key"]["id"] in lost["msg"]
    assert "Nothing was created twice" in lost["msg"]
    assert (lost["error"]["method"], lost["error"]["path"], lost["error"]["ambiguous"]) == ("POST", "/api_keys", True)
    assert len(requests_since(sim, seq, ("POST",))) == 1
    assert len(sim_keys(sim, lost_name)) == 1

    dropped_name = rel.unique_name("dropped")
    sim.add_fault(method="POST", path="/api/v2/api_keys", drop=True)
    seq = last_seq(sim)
    dropped = ok(run(sim, name=dropped_name))
    assert dropped["changed"] is True and SECRET.match(dropped["key"])
    posts = requests_since(sim, seq, ("POST",))
    assert [bool(entry.get("dropped")) for entry in posts] == [True, False]
    assert len(sim_keys(sim, dropped_name)) == 1


# ---------------------------------------------------------------------------------------------- organization keys


def test_an_organization_key_is_created_once_and_a_project_scoped_key_of_its_name_is_another(sim):
    name = rel.unique_name("org-ci")
    check = ok(run(sim, org_id=sim.org_id, name=name, check_mode=True, diff=True))
    assert check["changed"] is True and "key" not in check
    assert check["diff"]["after"] == {"api_keys": [{"id": "(new)", "name": name}]}
    assert sim_keys(sim, name) == []

    org_key = ok(run(sim, org_id=sim.org_id, name=name, diff=True))
    assert org_key["changed"] is True and SECRET.match(org_key["key"])
    assert org_key["api_key"]["key_type"] == "organization" and "project_id" not in org_key["api_key"]
    again = ok(run(sim, org_id=sim.org_id, name=name))
    assert again["changed"] is False and "key" not in again and again["api_key"]["id"] == org_key["api_key"]["id"]

    project_key = ok(run(sim, org_id=sim.org_id, project_id=ORG_PROJECT, name=name))
    assert project_key["changed"] is True and project_key["api_key"]["id"] != org_key["api_key"]["id"]
    assert project_key["api_key"]["project_id"] == ORG_PROJECT
    assert project_key["api_key"]["key_type"] == "project_scoped"
    assert [key["id"] for key in sim_keys(sim, name) if key["kind"] == "organization"] == [org_key["api_key"]["id"]]
    assert [key["project_id"] for key in sim_keys(sim, name) if key["kind"] == "project"] == [ORG_PROJECT]

    # the listing says which kind each key is, and shows no secret
    org_listed = ok(run(sim, "api_key_info", org_id=sim.org_id, name=name))["api_keys"]
    assert ids(org_listed) == [project_key["api_key"]["id"], org_key["api_key"]["id"]]
    assert [key["key_type"] for key in org_listed] == ["project_scoped", "organization"]
    assert [key for key in org_listed if "key" in key] == []
    assert listed_ids(sim, org_id=sim.org_id, project_id=ORG_PROJECT, name=name) == [project_key["api_key"]["id"]]

    # a project-scoped key reaches its project and nothing else
    ok(rel.run_module("operation_info", rel.connection_args(
        sim, api_key=project_key["key"], project_id=ORG_PROJECT, max_results=1)))
    outside = failed(rel.run_module("operation_info", rel.connection_args(
        sim, api_key=project_key["key"], project_id=sim.demo_project_id, max_results=1)))
    assert outside["error"]["status"] == 403


def test_rotate_and_absent_touch_only_the_keys_of_their_own_scope(sim):
    name = rel.unique_name("org-scope")
    org_key = ok(run(sim, org_id=sim.org_id, name=name))["api_key"]
    project_key = ok(run(sim, org_id=sim.org_id, project_id=ORG_PROJECT, name=name))["api_key"]

    rotated = run(sim, org_id=sim.org_id, project_id=ORG_PROJECT, name=name, rotate=True)
    data = ok(rotated)
    assert data["changed"] is True and data["api_key"]["project_id"] == ORG_PROJECT
    assert ids(data["revoked_keys"]) == [project_key["id"]]
    assert active_ids(sim, name) == [org_key["id"], data["api_key"]["id"]]
    assert_secrets_hidden(rotated, data["key"])

    absent_project = ok(run(sim, org_id=sim.org_id, project_id=ORG_PROJECT, name=name, state="absent"))
    assert ids(absent_project["revoked_keys"]) == [data["api_key"]["id"]]
    assert absent_project["revoked_keys"][0]["project_id"] == ORG_PROJECT
    absent_org = ok(run(sim, org_id=sim.org_id, name=name, state="absent"))
    assert ids(absent_org["revoked_keys"]) == [org_key["id"]]
    assert active_ids(sim, name) == []


def test_a_created_key_of_another_scope_than_asked_is_revoked_at_once_and_the_task_fails(sim):
    name = rel.unique_name("org-wrong-scope")
    wrong = sim.create_key(kind="project", project_id=OTHER_ORG_PROJECT, user_id="bootstrap", name=name)
    sim.add_fault(method="POST", path="/api/v2/organizations/*/api_keys", status=200, body=json.dumps({
        "id": wrong["id"], "key": wrong["key"], "name": name, "created_at": "2025-01-16T21:02:04Z",
        "created_by": "someone", "project_id": OTHER_ORG_PROJECT}))
    mismatch = run(sim, org_id=sim.org_id, project_id=ORG_PROJECT, name=name)
    data = failed(mismatch)
    assert data["changed"] is True and "key" not in data
    assert "scoped to project %s, not project %s as asked" % (OTHER_ORG_PROJECT, ORG_PROJECT) in data["msg"]
    assert "revoked at once" in data["msg"]
    assert ids(data["revoked_keys"]) == [wrong["id"]]
    assert active_ids(sim, name) == []
    assert wrong["key"] not in mismatch.text()


def test_a_member_may_create_project_scoped_keys_only(sim):
    name = rel.unique_name("org-member")
    member = [user for user in sim.users() if user["name"] == "Riley Member"][0]
    member_key = sim.create_key(kind="personal", user_id=member["id"])["key"]

    refused = failed(rel.run_module("api_key", rel.connection_args(sim, api_key=member_key, org_id=sim.org_id, name=name)))
    assert not refused.get("changed") and "key" not in refused
    assert refused["error"]["status"] == 403
    assert sim_keys(sim, name) == []
    allowed = ok(rel.run_module("api_key", rel.connection_args(
        sim, api_key=member_key, org_id=sim.org_id, project_id=ORG_PROJECT, name=name)))
    assert allowed["changed"] is True and allowed["api_key"]["key_type"] == "project_scoped"


def test_http_429_on_an_organization_key_create_is_asked_again_and_gives_up_clearly(fresh_sim):
    sim = fresh_sim
    sim.set_rate_limits(org_key_create=0.001, org_key_create_burst=1)  # one more now, then none for long
    seq = last_seq(sim)
    args = dict(org_id=sim.org_id, project_id=ORG_PROJECT, api_retries=2, api_retry_max_delay=0.05)
    first = ok(run(sim, name=rel.unique_name("org-rate"), **args))
    assert first["changed"] is True
    second = failed(run(sim, name=rel.unique_name("org-rate"), **args))
    assert second["error"]["status"] == 429 and second["error"]["attempts"] == 3
    assert "gave up after 3 attempts" in second["msg"]
    assert [entry["status"] for entry in requests_since(sim, seq, ("POST",))] == [200, 429, 429, 429]


# ---------------------------------------------------------------------------------------------- an interrupted run

INTERRUPTED = "most likely no run kept its secret"


def warnings_of(data):
    """The warnings' text (ansible-core 2.19+ may wrap each in an object)."""
    return json.dumps(data.get("warnings") or [])


def test_a_never_used_key_that_a_killed_run_left_is_warned_about_not_made_again_and_rotated_away(sim):
    # A run killed after the service created its key and before the task returned leaves just this: the key,
    # made by the API, never used, and its secret in an answer nobody read.
    name = rel.unique_name("killed")
    left = rel.api(sim, "POST", "/api_keys", json={"key_name": name})
    seq = last_seq(sim)

    rerun = run(sim, name=name, diff=True)
    data = ok(rerun)
    assert data["changed"] is False and data["action"] == "none" and "key" not in data
    assert data["api_key"]["id"] == left["id"] and data["api_key"]["last_used_at"] is None
    warned = warnings_of(data)
    assert "API key %d ('%s'), the newest active key of that name" % (left["id"], name) in warned
    assert INTERRUPTED in warned and "run this task once with rotate=true to replace the key" in warned
    assert_secrets_hidden(rerun, left["key"])
    assert left["key"] not in rerun.text()
    assert requests_since(sim, seq, CHANGES) == []
    assert active_ids(sim, name) == [left["id"]]

    # the schedule finds the key young: it says so, and how long the key would otherwise stay
    scheduled = ok(run(sim, name=name, max_age_days=30))
    assert scheduled["changed"] is False and scheduled["action"] == "none"
    warned = warnings_of(scheduled)
    assert INTERRUPTED in warned and "rotate=true instead of max_age_days" in warned
    assert "max_age_days counts it as a new key, 0 days old, and would not replace it for 30 more days" in warned
    assert active_ids(sim, name) == [left["id"]]

    # the way out: one run with rotate=true, whose secret is returned and works
    rotated = ok(run(sim, name=name, rotate=True))
    assert rotated["changed"] is True and SECRET.match(rotated["key"]) and warnings_of(rotated) == "[]"
    assert ids(rotated["revoked_keys"]) == [left["id"]]
    ok(rel.run_module("api_key_info", rel.connection_args(sim, api_key=rotated["key"], name=name)))
    quiet = ok(run(sim, name=name, max_age_days=30))
    assert quiet["changed"] is False and quiet["api_key"]["id"] == rotated["api_key"]["id"]
    assert warnings_of(quiet) == "[]"  # the new key has been used: nothing to warn about


def test_a_used_newest_key_or_an_older_never_used_one_gives_no_warning(sim):
    name = rel.unique_name("used")
    older = rel.api(sim, "POST", "/api_keys", json={"key_name": name})
    newest = ok(run(sim, name=name, rotate=True, keep=2))
    assert ids(newest["revoked_keys"]) == [] and active_ids(sim, name) == [older["id"], newest["api_key"]["id"]]
    ok(rel.run_module("auth_info", rel.connection_args(sim, api_key=newest["key"])))
    again = ok(run(sim, name=name))
    assert again["api_key"]["id"] == newest["api_key"]["id"] and again["api_key"]["last_used_at"] is not None
    assert INTERRUPTED not in warnings_of(again)
