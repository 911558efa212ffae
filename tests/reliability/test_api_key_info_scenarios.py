# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The scenarios of neon.cloud.api_key_info (the list and its fields, filters, revoked keys, a key the
service does not know, unused_days for each kind of key) against the simulator.

Each test runs the module in this process (rel.run_module), as a playbook task would, and checks
what a user would notice: the keys listed, the requests it took (the simulator's request log) and
that no secret shows in the result. Keys age through the simulator (sim.age_key), never by waiting.
Tests that count the seeded keys start from the seeded state (fresh_sim). The api_key_info
integration target keeps one representative playbook task per behaviour; the scenarios live here
(CONTRIBUTING.md, "Integration targets and ansible-core").
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import time

import pytest

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok

AGE_MARGIN = 60  # seconds older than the whole days asked: a test's own run time never rounds an age down
ORG_ID = "org-calm-tree-21298941"
ORG_PROJECT = "bold-glade-61830452"
OTHER_PROJECT = "quiet-brook-72914063"  # another project of the seeded organization
# the seeded keys' names, newest first (tests/simulator/README.md)
SEEDED_NAMES = ["bootstrap", "ci-pipeline", "ci-pipeline"]
# the older seeded ci-pipeline key was last used from two addresses
SEEDED_ADDRESSES = "113.203.180.132,35.160.120.126"
KEY_TYPES = {"personal": "personal", "organization": "organization", "project": "project_scoped"}
SCOPES = {
    "personal": {},
    "organization": {"org_id": ORG_ID},
    "project": {"org_id": ORG_ID, "project_id": ORG_PROJECT},
}
# a stale key of each scope, made beside the keys of the kind a test lists
DECOYS = {
    "personal": {"kind": "personal"},
    "organization": {"kind": "organization", "org_id": ORG_ID},
    "this-project": {"kind": "project", "org_id": ORG_ID, "project_id": ORG_PROJECT},
    "other-project": {"kind": "project", "org_id": ORG_ID, "project_id": OTHER_PROJECT},
}
DECOY_TYPES = {"personal": "personal", "organization": "organization", "this-project": "project_scoped",
               "other-project": "project_scoped"}
# an organization's list holds its organization keys and its project-scoped keys
DECOYS_LISTED = {
    "personal": ["personal"],
    "organization": ["organization", "this-project", "other-project"],
    "project": ["this-project"],
}


# ---------------------------------------------------------------------------------------------- helpers


def run(sim, module="api_key_info", check_mode=False, **args):
    """One task; ``api_key`` in ``args`` replaces the bootstrap key."""
    return rel.task(sim, module, check_mode=check_mode, **args)


def ids(keys):
    return [key["id"] for key in keys]


def listed(sim, **args):
    return ok(run(sim, **args))["api_keys"]


def age_key(sim, key_id, created_days_ago, last_used_days_ago=None):
    """Age a key so that the module, which counts days from this machine's clock, finds it that many
    whole days old: the simulator's clock runs ahead of it by what earlier tests advanced it."""
    skew = (sim.clock.time() - time.time() + AGE_MARGIN) / 86400.0
    spec = dict(created_days_ago=created_days_ago + skew)
    if last_used_days_ago is not None:
        spec["last_used_days_ago"] = last_used_days_ago + skew
    return sim.age_key(key_id, **spec)


# ---------------------------------------------------------------------------------------------- the list and its filters


def test_every_active_key_is_listed_newest_first_with_its_fields_and_without_a_secret(fresh_sim):
    sim = fresh_sim
    seq = last_seq(sim)
    result = run(sim)
    data = ok(result)
    keys = data["api_keys"]
    assert data["changed"] is False
    assert ids(keys) == sorted((key["id"] for key in sim.keys() if not key["revoked"]), reverse=True)
    assert [key["name"] for key in keys] == SEEDED_NAMES
    assert [key for key in keys if "key" in key] == []
    for field in ("created_at", "last_used_at", "last_used_from_addr", "created_by", "created_days_ago",
                  "last_used_days_ago"):
        assert all(field in key for key in keys), field
    assert {key["key_type"] for key in keys} == {"personal"}
    assert keys[0]["created_by"]["id"]
    assert keys[0]["last_used_at"] is not None  # the bootstrap key was just used by this very request
    assert keys[0]["last_used_days_ago"] == 0
    assert keys[2]["last_used_from_addr"] == SEEDED_ADDRESSES
    assert keys[1]["last_used_at"] is None and keys[1]["last_used_from_addr"] == ""
    assert keys[1]["last_used_days_ago"] is None
    assert sim.api_key not in json.dumps(data)
    log = sim.requests(since=seq)
    assert [(entry["method"], entry["path"], entry["status"]) for entry in log] == [("GET", "/api/v2/api_keys", 200)]

    check = ok(run(sim, check_mode=True))
    assert check["changed"] is False and ids(check["api_keys"]) == ids(keys)


def test_filters_select_exact_matches_and_unknown_values_give_an_empty_list(fresh_sim):
    sim = fresh_sim
    every = listed(sim)
    assert ids(listed(sim, name="ci-pipeline")) == ids(every[1:])
    by_id = listed(sim, id=every[2]["id"])
    assert ids(by_id) == [every[2]["id"]] and by_id[0]["name"] == "ci-pipeline"
    assert ids(listed(sim, name="ci-pipeline", id=every[1]["id"])) == [every[1]["id"]]
    assert listed(sim, name="ci-pipeline", id=every[0]["id"]) == []
    unknown_name = ok(run(sim, name="no-such-key"))
    assert unknown_name["changed"] is False and unknown_name["api_keys"] == []
    assert listed(sim, id=999999999) == []
    for near in ("ci", "CI-PIPELINE", "ci-pipeline-x"):  # not a substring, not case-insensitive
        assert listed(sim, name=near) == [], near


def test_revoked_keys_are_not_listed(fresh_sim):
    sim = fresh_sim
    every = listed(sim)
    revoked = ok(run(sim, "api_key", id=every[2]["id"], state="absent"))
    assert revoked["changed"] is True
    assert ids(listed(sim, name="ci-pipeline")) == [every[1]["id"]]
    assert listed(sim, id=every[2]["id"]) == []


def test_a_key_the_service_does_not_know_fails_with_the_request_that_failed(sim):
    data = failed(run(sim, api_key="not-a-key"))
    error = data["error"]
    assert (error["status"], error["method"], error["path"]) == (401, "GET", "/api_keys")
    assert error["request_id"]
    assert "missing, invalid or revoked" in data["msg"]
    assert "api_keys" not in data


# ---------------------------------------------------------------------------------------------- unused_days


@pytest.mark.parametrize("kind", ["personal", "organization", "project"])
def test_unused_days_lists_exactly_the_keys_nobody_used_for_that_long_and_check_mode_revokes_none(fresh_sim, kind):
    sim = fresh_sim
    scope = SCOPES[kind]
    ages = {  # (created days ago, last used days ago or None: never), whether 90 days unused
        "never-old": (100, None, True),
        "never-new": (5, None, False),
        "used-long-ago": (200, 95, True),
        "used-lately": (200, 3, False),
        "never-at-90": (90, None, True),
        "never-at-89": (89, None, False),
        "used-at-90": (200, 90, True),
        "used-at-89": (200, 89, False),
    }
    made = {}
    for label, (created, used, _stale) in ages.items():
        key = sim.create_key(kind=kind, name="stale-%s-%s" % (kind, label), **scope)
        age_key(sim, key["id"], created, used)
        made[label] = key
    # stale keys of the other scopes: listed only where the service lists their scope
    decoys = {}
    for decoy, spec in DECOYS.items():
        key = sim.create_key(name="decoy-%s-%s" % (kind, decoy), **spec)
        age_key(sim, key["id"], 100)
        decoys[decoy] = key

    seq = last_seq(sim)
    data = ok(run(sim, unused_days=90, **scope))
    assert data["changed"] is False
    mine = dict((key["name"].split("-", 2)[2], key) for key in data["api_keys"]
                if key["name"].startswith("stale-%s-" % kind))
    assert sorted(mine) == sorted(label for label, age in ages.items() if age[2])
    for label, key in mine.items():
        assert key["id"] == made[label]["id"]
        assert (key["created_days_ago"], key["last_used_days_ago"]) == ages[label][:2], label
        assert key["key_type"] == KEY_TYPES[kind], label
    listed_decoys = dict((key["name"].split("-", 2)[2], key) for key in data["api_keys"]
                         if key["name"].startswith("decoy-%s-" % kind))
    assert sorted(listed_decoys) == sorted(DECOYS_LISTED[kind])
    for decoy, key in listed_decoys.items():
        assert key["id"] == decoys[decoy]["id"] and key["key_type"] == DECOY_TYPES[decoy], decoy
    # every other key listed is stale too (the seeded ones)
    for key in data["api_keys"]:
        if key["last_used_days_ago"] is None:
            assert key["created_days_ago"] >= 90, key
        else:
            assert key["last_used_days_ago"] >= 90, key
    assert all(made[label]["key"] not in json.dumps(data) for label in made)
    assert [entry["method"] for entry in sim.requests(since=seq)] == ["GET"]

    # revoke them, check mode first: every one would change, none does
    seq = last_seq(sim)
    for key in mine.values():
        revoke = ok(run(sim, "api_key", check_mode=True, id=key["id"], state="absent", org_id=scope.get("org_id")))
        assert revoke["changed"] is True, key
    assert [entry for entry in sim.requests(since=seq) if entry["method"] != "GET"] == []
    after = ok(run(sim, unused_days=90, **scope))
    assert sorted(ids(after["api_keys"])) == sorted(ids(data["api_keys"]))


@pytest.mark.parametrize("days", [0, -1])
def test_unused_days_below_1_is_refused_before_any_request(sim, days):
    seq = last_seq(sim)
    data = failed(run(sim, unused_days=days))
    assert data["msg"] == "unused_days must be greater than 0, got %d" % days
    assert sim.requests(since=seq) == []
