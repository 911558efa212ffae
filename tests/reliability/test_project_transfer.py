# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""project_transfer against the simulator: projects moved between organizations (one key, up to 400 a request) and
by a transfer request the destination's key accepts (issue 40).

Each test runs the module in this process (rel.run_module), as a playbook task would, and checks what a user would
notice: where the projects are afterwards, what the result and the diff say, which requests were sent (the
simulator's request log); that a rerun, check mode and refused input send no change; overlapping runs are module
processes held by a barrier until both have read.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import requests

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok
from test_provisioning_modules import RUN_TIMEOUT, changes_since, requests_since, run

ORG = "org-calm-tree-21298941"  # the seeded organization: the simulator's key is its admin's
TRANSFER = "/api/v2/organizations/%s/projects/transfer" % ORG


def organization(sim, plan="scale", admins=("bootstrap",)):
    return sim.create_organization(name=rel.unique_name("dest"), plan=plan, admins=list(admins))["id"]


def org_projects(sim, count):
    return [sim.create_project(name=rel.unique_name("move"), org_id=ORG)["id"] for _number in range(count)]


def org_of(sim, project_id):
    return rel.api(sim, "GET", "/projects/%s" % project_id)["project"].get("org_id")


def transfer(sim, check_mode=False, diff=False, **args):
    return run(sim, "project_transfer", check_mode=check_mode, diff=diff, **args)


def posts(sim, seq):
    return [path for method, path in changes_since(sim, seq) if method in ("POST", "PUT")]


# ---------------------------------------------------------------------------------------------- between organizations


def test_projects_move_and_a_rerun_reads_and_moves_nothing(sim):
    dest = organization(sim)
    ids = org_projects(sim, 3)
    seq = last_seq(sim)
    moved = ok(transfer(sim, diff=True, source_org_id=ORG, destination_org_id=dest, project_ids=ids))
    assert moved["changed"] is True and moved["transferred"] == ids and moved["already_in_destination"] == []
    assert moved["diff"] == {"before": {"projects": dict.fromkeys(ids, ORG)}, "after": {"projects": dict.fromkeys(ids, dest)}}
    assert [org_of(sim, pid) for pid in ids] == [dest] * 3
    assert posts(sim, seq) == [TRANSFER]  # one request for the three

    seq = last_seq(sim)
    again = ok(transfer(sim, source_org_id=ORG, destination_org_id=dest, project_ids=ids))
    assert again["changed"] is False and again["transferred"] == [] and again["already_in_destination"] == ids
    assert changes_since(sim, seq) == []


def test_a_project_another_run_moves_between_the_two_listings_is_found_moved_not_lost(sim, monkeypatch):
    """The order two runs at once may interleave in: this run lists one organization, another run moves the project,
    this run lists the other. Whichever moment the move falls at, the project is found where it is."""
    from ansible_collections.neon.cloud.plugins.module_utils._resources import transfers

    dest = organization(sim)
    ids = org_projects(sim, 1)
    listed = []
    real_read = transfers.ProjectReader.read

    def read(reader):
        answer = real_read(reader)
        listed.append(reader)
        if len(listed) == 1:  # another run's transfer, right after this run's first listing
            rel.api(sim, "POST", "/organizations/%s/projects/transfer" % ORG,
                    json={"destination_org_id": dest, "project_ids": ids})
        return answer

    monkeypatch.setattr(transfers.ProjectReader, "read", read)
    seq = last_seq(sim)
    found = ok(transfer(sim, source_org_id=ORG, destination_org_id=dest, project_ids=ids))
    assert len(listed) == 2
    assert found["changed"] is False and found["already_in_destination"] == ids and found["transferred"] == []
    assert "by another run at the same time" in json.dumps(found["warnings"])
    assert posts(sim, seq) == [TRANSFER]  # the other run's only
    assert org_of(sim, ids[0]) == dest


def test_check_mode_names_what_would_move_and_sends_nothing(sim):
    dest = organization(sim)
    ids = org_projects(sim, 2)
    ok(transfer(sim, source_org_id=ORG, destination_org_id=dest, project_ids=ids[:1]))
    seq = last_seq(sim)
    checked = ok(transfer(sim, check_mode=True, diff=True, source_org_id=ORG, destination_org_id=dest, project_ids=ids))
    assert checked["changed"] is True and checked["transferred"] == ids[1:]
    assert checked["already_in_destination"] == ids[:1]
    assert checked["diff"]["before"]["projects"] == {ids[0]: dest, ids[1]: ORG}
    assert changes_since(sim, seq) == [] and org_of(sim, ids[1]) == ORG


def test_more_than_400_projects_go_as_requests_of_400(sim):
    dest = organization(sim)
    source = sim.create_organization(name=rel.unique_name("big"), admins=["bootstrap"], projects=401)
    ids = [project["id"] for project in source["projects"]]
    seq = last_seq(sim)
    moved = ok(transfer(sim, source_org_id=source["id"], destination_org_id=dest, project_ids=ids))
    assert moved["transferred"] == ids
    sent = [entry for entry in sim.requests(since=seq) if entry["method"] == "POST"]
    assert [entry["path"] for entry in sent] == ["/api/v2/organizations/%s/projects/transfer" % source["id"]] * 2
    assert sum(1 for pid in ids if org_of(sim, pid) == dest) == 401


def test_a_refusal_of_the_service_is_explained_and_moves_nothing(sim):
    lower = organization(sim, plan="launch")
    ids = org_projects(sim, 1)
    result = failed(transfer(sim, source_org_id=ORG, destination_org_id=lower, project_ids=ids))
    assert "HTTP 406" in result["msg"] and "Nothing was changed" in result["msg"]
    assert org_of(sim, ids[0]) == ORG
    org_key = sim.create_key("organization", org_id=ORG, name=rel.unique_name("org"))["key"]
    seq = last_seq(sim)
    refused = failed(transfer(sim, api_key=org_key, source_org_id=ORG, destination_org_id=organization(sim),
                              project_ids=ids))
    assert "personal API key of a user who is an admin of the source organization" in refused["msg"]
    assert changes_since(sim, seq) == []


def test_bad_input_fails_before_any_request(sim):
    seq = last_seq(sim)
    cases = [
        (dict(source_org_id=ORG, destination_org_id=ORG, project_ids=["a-b-1"]), "are the same organization"),
        (dict(destination_org_id="org-x-1", project_ids=["a-b-1"]), "source_org_id is required"),
        (dict(source_org_id=ORG, destination_org_id="org-x-1", project_ids=["Not An Id"]), "project_ids[0] is not"),
        (dict(source_org_id=ORG, destination_org_id="org-x-1", project_ids=[]), "at least one project"),
        (dict(source_org_id=ORG, destination_org_id="org-x-1", destination_api_key="k", project_ids=["a-b-1"]),
         "leave one out"),
    ]
    for args, words in cases:
        assert words in failed(transfer(sim, **args))["msg"]
    assert sim.requests(since=seq) == []


def test_an_empty_id_is_a_project_an_earlier_task_makes_in_check_mode_and_refused_otherwise(sim):
    dest = organization(sim)
    ids = org_projects(sim, 1)
    seq = last_seq(sim)
    checked = ok(transfer(sim, check_mode=True, source_org_id=ORG, destination_org_id=dest, project_ids=ids + [""]))
    assert checked["transferred"] == ids + [""] and "taken as made by an earlier task" in json.dumps(checked["warnings"])
    refused = failed(transfer(sim, source_org_id=ORG, destination_org_id=dest, project_ids=ids + [""]))
    assert "project_ids[1] is empty" in refused["msg"]
    assert [method for method, _path in requests_since(sim, seq)] == ["GET", "GET"]  # check mode's two listings only
    assert org_of(sim, ids[0]) == ORG


def test_a_project_in_neither_organization_is_named_and_nothing_moves(sim):
    dest = organization(sim)
    ids = org_projects(sim, 1)
    seq = last_seq(sim)
    result = failed(transfer(sim, source_org_id=ORG, destination_org_id=dest, project_ids=ids + ["shiny-river-12345678"]))
    assert "project shiny-river-12345678 is in neither organization" in result["msg"]
    assert changes_since(sim, seq) == [] and org_of(sim, ids[0]) == ORG


def test_two_runs_at_once_move_each_project_once(sim, collection_parent, tmp_path):
    dest = organization(sim)
    ids = org_projects(sim, 2)
    sim.add_barrier(method="GET", path="/api/v2/projects", parties=2)  # both runs' first listings
    args = rel.connection_args(sim, source_org_id=ORG, destination_org_id=dest, project_ids=ids)
    seq = last_seq(sim)
    results = rel.module_process_results(
        rel.start_module_processes(collection_parent, tmp_path, "project_transfer", [args, args]), RUN_TIMEOUT)
    assert all(not result.get("failed") for result in results), results
    assert sorted(len(result["transferred"]) for result in results) == [0, 2]
    other = next(result for result in results if not result["transferred"])
    assert sorted(other["already_in_destination"]) == sorted(ids) and "another run" in json.dumps(other["warnings"])
    assert [org_of(sim, pid) for pid in ids] == [dest] * 2
    assert len([path for path in posts(sim, seq) if path == TRANSFER]) == 2  # the second refused, read again: done


# ---------------------------------------------------------------------------------------------- by a transfer request


def test_a_personal_project_moves_by_a_request_the_destinations_key_accepts(sim):
    dest = organization(sim)
    dest_key = sim.create_key("organization", org_id=dest, name=rel.unique_name("dest"))["key"]
    pid = rel.api(sim, "POST", "/projects", json={"project": {"name": rel.unique_name("personal")}})["project"]["id"]
    sim.advance_clock(30)
    seq = last_seq(sim)
    checked = ok(transfer(sim, check_mode=True, diff=True, destination_org_id=dest, destination_api_key=dest_key,
                          project_ids=[pid]))
    assert checked["transferred"] == [pid] and checked["diff"]["before"] == {"projects": {pid: None}}
    assert changes_since(sim, seq) == []

    moved = ok(transfer(sim, destination_org_id=dest, destination_api_key=dest_key, project_ids=[pid]))
    assert moved["changed"] is True and moved["transferred"] == [pid]
    assert dest_key not in json.dumps(moved)
    assert [method for method, _path in changes_since(sim, seq)] == ["POST", "PUT"]
    status, body = as_key(sim, dest_key, "/projects/%s" % pid)
    assert status == 200 and body["project"]["org_id"] == dest  # the destination's key reaches it now

    seq = last_seq(sim)
    again = ok(transfer(sim, destination_org_id=dest, destination_api_key=dest_key, project_ids=[pid]))
    assert again["changed"] is False and again["already_in_destination"] == [pid]
    assert changes_since(sim, seq) == []


def test_a_destination_key_that_may_not_accept_is_explained_and_the_project_stays(sim):
    dest = organization(sim)
    stranger = sim.create_user(name=rel.unique_name("Stranger"), email="%s@example.com" % rel.unique_name("s"))
    stranger_key = sim.create_key("personal", user_id=stranger["id"], name=rel.unique_name("s"))["key"]
    pid = org_projects(sim, 1)[0]
    result = failed(transfer(sim, destination_org_id=dest, destination_api_key=stranger_key, project_ids=[pid]))
    assert "Accepting the transfer request" in result["msg"] and "HTTP 403" in result["msg"]
    assert "destination_api_key, a key of the destination organization" in result["msg"]
    assert stranger_key not in json.dumps(result)
    assert org_of(sim, pid) == ORG


def as_key(sim, key, path):
    response = requests.get(sim.url + path, headers={"Authorization": "Bearer " + key}, timeout=10)
    return response.status_code, response.json()


# ---------------------------------------------------------------------------------------------- review fixes


def requests_of(sim, project_id):
    """The simulator's transfer requests of ``project_id``: (id, its life in seconds)."""
    return [(request_id, (request["expires_us"] - request["created_us"]) / 1e6)
            for request_id, request in sim.state.transfers.requests.items() if request["project_id"] == project_id]


def test_a_refused_accept_keeps_the_request_id_secret_and_says_a_short_lived_request_was_made(sim):
    dest = organization(sim)
    stranger = sim.create_user(name=rel.unique_name("Stranger"), email="%s@example.com" % rel.unique_name("s"))
    stranger_key = sim.create_key("personal", user_id=stranger["id"], name=rel.unique_name("s"))["key"]
    pid = org_projects(sim, 1)[0]
    run_ = transfer(sim, destination_org_id=dest, destination_api_key=stranger_key, project_ids=[pid])
    result = failed(run_)
    [(request_id, life)] = requests_of(sim, pid)
    assert request_id not in run_.text() and request_id[:8] not in run_.text()  # a claim link: never shown
    assert life <= 600  # not the service's default 24 hours
    assert result["changed"] is True and "Nothing was changed" not in result["msg"]
    assert "made a transfer request for project %s, which expires unaccepted at 20" % pid in result["msg"]
    assert "HTTP 403" in result["msg"] and "destination_api_key, a key of the destination organization" in result["msg"]
    assert org_of(sim, pid) == ORG


def test_a_lost_accept_answer_says_whether_the_project_moved_is_unknown_and_a_rerun_reads_it(sim):
    dest = organization(sim)
    dest_key = sim.create_key("organization", org_id=dest, name=rel.unique_name("dest"))["key"]
    pid = org_projects(sim, 1)[0]
    sim.add_fault(method="PUT", path="/api/v2/projects/%s/transfer_requests/*" % pid, status=502, apply=True)
    run_ = transfer(sim, destination_org_id=dest, destination_api_key=dest_key, project_ids=[pid])
    result = failed(run_)
    [(request_id, _life)] = requests_of(sim, pid)
    assert request_id not in run_.text() and request_id[:8] not in run_.text()
    assert result["changed"] is True and "expires unaccepted" not in result["msg"]
    assert "whether project %s moved to organization %s is unknown: run the task again" % (pid, dest) in result["msg"]
    assert org_of(sim, pid) == dest  # it did move: the answer alone was lost
    again = ok(transfer(sim, destination_org_id=dest, destination_api_key=dest_key, project_ids=[pid]))
    assert again["changed"] is False and again["already_in_destination"] == [pid]


def big_source(sim, count):
    source = sim.create_organization(name=rel.unique_name("big"), admins=["bootstrap"], projects=count)
    return source["id"], [project["id"] for project in source["projects"]]


def after_first_request(monkeypatch, then):
    """``then()`` once the module has moved its first request of 400 (in this process: no race)."""
    from ansible_collections.neon.cloud.plugins.module_utils._resources import transfers

    moved = transfers.ProjectTransfer._moved

    def moved_then(writer, ids, how=""):
        moved(writer, ids, how)
        then()
    monkeypatch.setattr(transfers.ProjectTransfer, "_moved", moved_then)


def test_a_lost_answer_of_a_later_request_names_its_projects_as_unknown(sim, monkeypatch):
    dest = organization(sim)
    source, ids = big_source(sim, 401)
    path = "/api/v2/organizations/%s/projects/transfer" % source
    after_first_request(monkeypatch, lambda: sim.add_fault(method="POST", path=path, status=502, count=1))
    result = failed(transfer(sim, source_org_id=source, destination_org_id=dest, project_ids=ids))
    assert "whether request 2 of 2 moved its 1 project(s) (%s) is unknown: run the task again" % ids[400] in result["msg"]
    assert "Changed by this task so far: moved 400 projects" in result["msg"]
    assert result["changed"] is True and result["transferred"] == ids[:400]


def test_a_refusal_after_a_conflict_does_not_say_nothing_moved_when_a_request_did(sim, monkeypatch):
    dest = organization(sim)
    source, ids = big_source(sim, 402)

    def meanwhile():
        sim.transfer_project(ids[400], dest)  # another run's move: the second request is refused (409)
        sim.transfer_project(ids[401], organization(sim))  # and this one is in neither organization now
    after_first_request(monkeypatch, meanwhile)
    result = failed(transfer(sim, source_org_id=source, destination_org_id=dest, project_ids=ids))
    assert "HTTP 409" in result["msg"] and "project %s is in neither organization" % ids[401] in result["msg"]
    assert "nothing was moved" not in result["msg"].lower() and "Nothing was changed" not in result["msg"]
    assert "Changed by this task so far: moved 400 projects" in result["msg"] and result["changed"] is True


def test_a_refusal_ends_its_message_once(sim):
    name = rel.unique_name("member")
    user = sim.create_user(name=name, email="%s@example.com" % name)
    sim.add_member(ORG, user["id"], "member")  # lists both organizations, but is no admin of the source
    dest = organization(sim)
    sim.add_member(dest, user["id"], "member")
    key = sim.create_key("personal", user_id=user["id"], name=name)["key"]
    refused = failed(transfer(sim, api_key=key, source_org_id=ORG, destination_org_id=dest,
                              project_ids=org_projects(sim, 1)))
    assert "HTTP 403" in refused["msg"] and "personal API key of a user who is an admin" in refused["msg"]
    assert refused["msg"].count("Nothing was changed") == 1 and refused["msg"].endswith("Nothing was changed")


def test_destination_api_key_is_checked_as_api_key_is_before_any_request(sim):
    seq = last_seq(sim)
    for key, words in (("   ", "destination_api_key is empty"), ("abc def-secret", "destination_api_key contains"),
                       ("abc\x07secret", "destination_api_key contains"), (u"cl\u00e9-secret", "destination_api_key contains"),
                       (u"key-\u043a\u043b\u044e\u0447", "destination_api_key contains")):
        run_ = transfer(sim, destination_org_id="org-x-1", destination_api_key=key, project_ids=["a-b-1"])
        assert words in failed(run_)["msg"] and "secret" not in run_.text() and "Traceback" not in run_.text()
    assert sim.requests(since=seq) == []


def test_a_refused_destination_key_is_explained_as_the_destination_key(sim):
    pid = org_projects(sim, 1)[0]
    seq = last_seq(sim)
    result = failed(transfer(sim, destination_org_id=organization(sim), destination_api_key="not-a-key-of-anyone",
                             project_ids=[pid]))
    assert "HTTP 401" in result["msg"] and "did not accept destination_api_key itself" in result["msg"]
    assert result["changed"] is False and changes_since(sim, seq) == [] and org_of(sim, pid) == ORG
