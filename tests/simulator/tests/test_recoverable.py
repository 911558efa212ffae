# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulator self-tests: deleted projects and branches kept for 7 days and recovered (recoverable.py; the June 2026
document's recoverProject, recoverProjectBranch, ``recoverable=true`` and ``include_deleted=true``).

The window's end is the simulator's clock jumped forward, never a wait.
"""

from __future__ import annotations

import datetime

import requests

API_KEY = "sim-selftest-key-0040r"
SETTLE = 30
DAY = 86400
RECOVERY_REQUIRED = ("deleted_at", "recoverable_until", "deletion_method")  # SPEC BranchRecoveryInfo


def call(sim, method, path, **kwargs):
    kwargs.setdefault("timeout", 10)
    return requests.request(method, sim.url + path, headers=sim.headers, **kwargs)


def ok(response, status=200):
    assert response.status_code == status, response.text
    return response.json()


def refused(response, status, *words):
    assert response.status_code == status, response.text
    message = response.json()["message"]
    for word in words:
        assert word in message, message
    return message


def project(sim, name="recoverable"):
    made = ok(call(sim, "POST", "/projects", json={"project": {"name": name}}), 201)
    sim.advance_clock(SETTLE)
    return made["project"]["id"], made["branch"]


def branch(sim, pid, name, **spec):
    made = ok(call(sim, "POST", "/projects/%s/branches" % pid,
                   json={"branch": dict(spec, name=name), "endpoints": [{"type": "read_write"}]}), 201)
    sim.advance_clock(SETTLE)
    return made["branch"], made["endpoints"]


def names(listing):
    return sorted(item["name"] for item in listing["branches"])


def test_a_deleted_branch_is_listed_with_include_deleted_only_and_recovered_with_its_computes(sim):
    pid, main = project(sim)
    dev, endpoints = branch(sim, pid, "dev")
    ok(call(sim, "DELETE", "/projects/%s/branches/%s" % (pid, dev["id"])))
    sim.advance_clock(SETTLE)
    assert names(ok(call(sim, "GET", "/projects/%s/branches" % pid))) == ["main"]
    refused(call(sim, "GET", "/projects/%s/branches/%s" % (pid, dev["id"])), 404)
    listed = ok(call(sim, "GET", "/projects/%s/branches?include_deleted=true" % pid))
    assert names(listed) == ["dev", "main"]
    deleted = next(item for item in listed["branches"] if item["id"] == dev["id"])
    assert set(RECOVERY_REQUIRED) <= set(deleted["recovery"])
    assert deleted["recovery"]["deletion_method"] == "user"
    assert "recovery" not in next(item for item in listed["branches"] if item["id"] == main["id"])

    answer = ok(call(sim, "POST", "/projects/%s/branches/%s/recover" % (pid, dev["id"])))
    assert set(answer) == {"branch", "endpoints"}  # SPEC BranchRecoverResponse: no operations
    assert answer["branch"]["id"] == dev["id"] and "recovery" not in answer["branch"]
    assert [item["id"] for item in answer["endpoints"]] == [endpoints[0]["id"]]
    assert answer["endpoints"][0]["current_state"] == "idle"
    assert answer["branch"]["current_state"] == "init"  # its timeline_unarchive runs (a CHOICE of recoverable.py)
    running = ok(call(sim, "GET", "/projects/%s/operations" % pid))["operations"]
    assert running[0]["action"] == "timeline_unarchive" and running[0]["branch_id"] == dev["id"]
    sim.advance_clock(SETTLE)
    assert ok(call(sim, "GET", "/projects/%s/branches/%s" % (pid, dev["id"])))["branch"]["current_state"] == "ready"
    assert names(ok(call(sim, "GET", "/projects/%s/branches?include_deleted=true" % pid))) == ["dev", "main"]
    refused(call(sim, "POST", "/projects/%s/branches/%s/recover" % (pid, dev["id"])), 409, "not deleted")


def test_past_seven_days_on_the_clock_a_deleted_branch_is_gone(sim):
    pid, _main = project(sim)
    dev, _endpoints = branch(sim, pid, "dev")
    ok(call(sim, "DELETE", "/projects/%s/branches/%s" % (pid, dev["id"])))
    sim.advance_clock(7 * DAY - 60)
    listed = ok(call(sim, "GET", "/projects/%s/branches?include_deleted=true" % pid))
    assert "dev" in names(listed)
    sim.advance_clock(120)
    assert names(ok(call(sim, "GET", "/projects/%s/branches?include_deleted=true" % pid))) == ["main"]
    refused(call(sim, "POST", "/projects/%s/branches/%s/recover" % (pid, dev["id"])), 404, "branch not found")


def test_a_ttl_branch_deleted_by_its_ttl_comes_back_without_it(sim):
    pid, _main = project(sim)
    soon = requests.get(sim.control_url + "/clock", timeout=10).json()["time"] + DAY
    expires = datetime.datetime.fromtimestamp(soon, datetime.timezone.utc)
    preview, _endpoints = branch(sim, pid, "preview", expires_at=expires.strftime("%Y-%m-%dT%H:%M:%SZ"))
    assert "expires_at" in preview
    expired = requests.post(sim.control_url + "/projects/%s/branches/%s/expire" % (pid, preview["id"]), timeout=10)
    assert expired.status_code == 200, expired.text
    assert expired.json()["recovery"]["deletion_method"] == "ttl"
    answer = ok(call(sim, "POST", "/projects/%s/branches/%s/recover" % (pid, preview["id"])))
    assert "expires_at" not in answer["branch"] and "ttl_interval_seconds" not in answer["branch"]


def test_a_branch_whose_name_was_taken_since_is_refused_with_409(sim):
    pid, _main = project(sim)
    dev, _endpoints = branch(sim, pid, "dev")
    ok(call(sim, "DELETE", "/projects/%s/branches/%s" % (pid, dev["id"])))
    sim.advance_clock(SETTLE)
    branch(sim, pid, "dev")
    refused(call(sim, "POST", "/projects/%s/branches/%s/recover" % (pid, dev["id"])), 409, "already exists")
    refused(call(sim, "POST", "/projects/%s/branches/br-never-there-123456/recover" % pid), 404)


def test_a_deleted_project_is_listed_with_recoverable_only_and_recovered_within_its_window(sim):
    pid, main = project(sim, "to-recover")
    ok(call(sim, "DELETE", "/projects/%s" % pid))
    refused(call(sim, "GET", "/projects/%s" % pid), 404)
    assert pid not in [item["id"] for item in ok(call(sim, "GET", "/projects?limit=400"))["projects"]]
    listed = ok(call(sim, "GET", "/projects?recoverable=true"))["projects"]
    assert [item["id"] for item in listed] == [pid]
    assert listed[0]["deleted_at"] and listed[0]["recoverable_until"] > listed[0]["deleted_at"]
    refused(call(sim, "GET", "/projects?recoverable=maybe"), 400, "recoverable")

    answer = ok(call(sim, "POST", "/projects/%s/recover" % pid))
    assert set(answer) == {"project", "branches"}  # SPEC ProjectRecoverResponse
    assert answer["project"]["id"] == pid and [item["id"] for item in answer["branches"]] == [main["id"]]
    assert ok(call(sim, "GET", "/projects/%s" % pid))["project"]["name"] == "to-recover"
    assert ok(call(sim, "GET", "/projects?recoverable=true"))["projects"] == []
    refused(call(sim, "POST", "/projects/%s/recover" % pid), 409, "not deleted")


def test_past_seven_days_on_the_clock_a_deleted_project_is_gone(sim):
    pid, _main = project(sim, "gone")
    ok(call(sim, "DELETE", "/projects/%s" % pid))
    sim.advance_clock(7 * DAY + 1)
    assert ok(call(sim, "GET", "/projects?recoverable=true"))["projects"] == []
    refused(call(sim, "POST", "/projects/%s/recover" % pid), 404, "project not found")
