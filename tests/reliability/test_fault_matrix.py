# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every module against every fault class, once transient (2 faulty answers) and once persistent.

The modules run in-process through their main() (the code AnsiballZ would run), against the
simulator with injected faults. Each run checks the outcome, the message, the request count from
the simulator's log, that no key was created twice, that no traceback escaped and that the auth
key is nowhere in the output. Each run's facts are recorded for docs/docsite/rst/reliability.rst.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import fnmatch
import re
import time

import pytest

import neon_reliability as rel


@pytest.fixture
def matrix_sim(sim_session):
    """The seeded state for every run, so that the same run gives the same ids, names and messages."""
    sim_session.reset()
    rel.restart_names()
    return sim_session


def _route(requests, target):
    """The logged requests to the faulted route."""
    return [entry for entry in requests if entry["method"] == target.method
            and fnmatch.fnmatchcase(entry["path"], target.path)]


def _observe(sim, target, ctx, run, keys_before):
    requests = sim.requests()
    route = _route(requests, target)
    facts = dict(
        target=target.id, outcome="healed" if not run.failed else "failed",
        traceback=run.crash is not None or "Traceback" in run.text(),
        route_requests=len(route), total_requests=len(requests),
        faulty_answers=len([entry for entry in route if entry["fault"] is not None]),
        message=rel.normalise(run.msg, timing=target.kind == "wait"), changed=(run.result or {}).get("changed"),
        elapsed=round(run.elapsed, 3),
    )
    # the secret of every key made during the run: it may show only as the result's `key`
    ids_before = set(key["id"] for key in keys_before)
    shown = (run.result or {}).get("key")
    made_secrets = [secret for secret, key in list(sim.state.shared.keys_by_secret.items()) if key.id not in ids_before]
    facts["secret_leaks"] = sum(run.text().count(secret) - (1 if secret == shown else 0) for secret in made_secrets)
    if target.kind == "post":
        made = [key for key in sim.keys() if key["name"] == ctx["name"] and key not in keys_before]
        facts["keys_created"] = len(made)
        facts["duplicates"] = max(0, len(made) - 1)
        facts["listings"] = len([entry for entry in requests if entry["method"] == "GET"
                                 and entry["path"] == "/api/v2" + target.keys_path])
        facts["secret_shown"] = bool((run.result or {}).get("key"))
    if target.kind == "delete":
        facts["listings"] = len([entry for entry in requests if entry["method"] == "GET"
                                 and entry["path"] == "/api/v2" + target.keys_path])
        facts["revoked"] = [key for key in sim.keys() if key["id"] == ctx["id"]][0]["revoked"]
    return facts


@pytest.mark.parametrize("mode", rel.MODES)
@pytest.mark.parametrize("fault", rel.FAULTS, ids=[fault.id for fault in rel.FAULTS])
@pytest.mark.parametrize("target", rel.TARGETS, ids=[target.id for target in rel.TARGETS])
def test_fault(matrix_sim, auth_key, results, target, fault, mode):
    sim = matrix_sim
    ctx = {}
    args = rel.connection_args(sim, slow=fault.slow, **target.prepare(sim, ctx))
    if target.kind == "wait":
        args["timeout"] = rel.wait_timeout(fault.id, mode)
    keys_before = sim.keys()
    sim.clear_requests()
    sim.add_fault(method=target.method, path=target.path,
                  count=rel.TRANSIENT_COUNT if mode == "transient" else rel.PERSISTENT_COUNT, **fault.spec())
    run = rel.run_module(target.module, args)
    sim.clear_faults()
    want = rel.expected(target, fault.id, mode)
    if fault.slow:  # let the late answers land before looking at the log and the keys
        time.sleep(rel.SLOW_LATENCY - rel.SLOW_API_TIMEOUT + 0.15)
        # a request is logged once answered: on a busy machine the last slow one lands later (bounded wait)
        for _poll in range(200):
            if want.route_requests is None or len(_route(sim.requests(), target)) >= want.route_requests:
                break
            time.sleep(0.05)
    facts = _observe(sim, target, ctx, run, keys_before)
    facts.update(fault=fault.id, mode=mode, counted=want.route_requests is not None)
    results["matrix"].append(facts)

    assert run.crash is None and not facts["traceback"], run.describe()
    assert auth_key not in run.text(), "the auth key is in the output"
    assert facts["secret_leaks"] == 0, "a created key's secret is in the output outside `key`"
    assert facts["outcome"] == want.outcome, run.describe()
    if want.outcome == "healed":
        target.check(sim, ctx, run.result)
        assert facts["faulty_answers"] >= 1, "the fault was never hit"
    else:
        assert re.search(want.message, run.msg, re.DOTALL), "message %r does not match %r" % (run.msg, want.message)
        assert "\n" not in run.msg.strip() and len(run.msg) < 2000, run.msg
        assert (run.result or {}).get("key") is None
    if want.route_requests is not None:
        assert facts["route_requests"] == want.route_requests, run.describe()
    if want.keys_created is not None:
        assert facts["keys_created"] == want.keys_created, run.describe()
    if want.changed is not None:
        assert facts["changed"] is want.changed, run.describe()
    if target.kind == "post":
        assert facts["duplicates"] == 0
        assert facts["secret_shown"] is (want.outcome == "healed")
    if target.kind == "delete":
        assert facts["revoked"] is (want.outcome == "healed")
    if target.kind == "wait":
        # the wait never lasts longer than timeout + one request's api_timeout (+ start-up slack)
        assert run.result["elapsed"] <= args["timeout"] + args["api_timeout"], run.result["elapsed"]
        assert run.elapsed <= args["timeout"] + args["api_timeout"] + 0.3, run.elapsed
