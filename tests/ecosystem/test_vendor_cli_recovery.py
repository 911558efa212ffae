# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The vendor's CLI (`neonctl`) against the simulator for recovery (issue 31, point 5): `branches restore` (from a
branch's own history with a name to preserve, and to another branch's head), `branches set-default` and
`branches schema-diff`, as a user runs them against the live service.

The CLI is installed and run by test_vendor_cli.py's fixtures (`neonctl`, `cli`: offline but for the simulator,
its own HOME and config). Points are given as LSNs: the CLI refuses a timestamp later than the machine's clock,
and the simulator's clock runs ahead of it once a test jumps it forward. Rows are written through the simulator's
control API (its data stand-in), so a restore shows in what the branch holds.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import requests

import test_vendor_cli
from test_vendor_cli import SETTLE, _api, _project

# The CLI's fixtures, used by name (pytest finds fixtures among a test module's names).
neonctl = test_vendor_cli.neonctl
cli = test_vendor_cli.cli

ORDERS = [{"id": 1, "total": 5}]


def _write(simulator, pid, branch_id, rows, **extra):
    answer = requests.post("%s/projects/%s/branches/%s/data" % (simulator.control_url, pid, branch_id),
                           json=dict(extra, table="orders", rows=rows), timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def _rows(simulator, pid, branch_id):
    answer = requests.get("%s/projects/%s/branches/%s/data" % (simulator.control_url, pid, branch_id), timeout=10)
    return answer.json()["databases"]["neondb"].get("orders")


def _branches(simulator, pid):
    return dict((b["name"], b) for b in _api(simulator, "/projects/%s/branches" % pid)["branches"])


def test_branches_restore_from_its_own_history_and_to_another_branchs_head(simulator, cli):
    _made, pid = _project(simulator, cli, "cli-restore")
    main = _branches(simulator, pid)["main"]
    good = _write(simulator, pid, main["id"], ORDERS)
    simulator.advance_clock(60)
    _write(simulator, pid, main["id"], [])  # the bad change

    out = cli("branches", "restore", "main", "^self@" + good["lsn"], "--project-id", pid,
              "--preserve-under-name", "main-before-restore").json
    simulator.advance_clock(SETTLE)
    listed = _branches(simulator, pid)
    kept = listed["main-before-restore"]
    # the CLI prints the restored branch, then the backup it finds as the restored branch's parent
    assert (out["restored_branch"]["id"], out["restored_branch"]["name"]) == (main["id"], "main")
    assert out["restored_branch"]["last_reset_at"]
    assert (out["backup_branch"]["id"], out["backup_branch"]["name"]) == (kept["id"], "main-before-restore")
    assert _rows(simulator, pid, main["id"]) == ORDERS and _rows(simulator, pid, kept["id"]) == []
    assert listed["main"]["parent_lsn"] == good["lsn"] and listed["main"]["current_state"] == "ready"

    # from its own history without a name to preserve: the service's 400, exit 1, nothing changed
    refused = cli("branches", "restore", "main", "^self@" + good["lsn"], "--project-id", pid, check=False)
    assert refused.returncode == 1 and "preserve_under_name: required" in refused.stderr
    assert simulator.requests()[-1]["status"] == 400

    preview = cli("branches", "create", "--project-id", pid, "--name", "preview", "--parent", "main-before-restore")
    simulator.advance_clock(SETTLE)
    head = cli("branches", "restore", "preview", "main", "--project-id", pid).json  # main's head, no backup
    simulator.advance_clock(SETTLE)
    assert head["id"] == preview.json["branch"]["id"] and "backup_branch" not in head
    assert _rows(simulator, pid, head["id"]) == ORDERS
    assert _branches(simulator, pid)["preview"]["parent_id"] == main["id"]


def test_branches_set_default(simulator, cli):
    _made, pid = _project(simulator, cli, "cli-default")
    cli("branches", "create", "--project-id", pid, "--name", "release")
    simulator.advance_clock(SETTLE)
    made = cli("branches", "set-default", "release", "--project-id", pid).json
    request = simulator.requests()[-1]
    assert (made["name"], made["default"]) == ("release", True)
    listed = _branches(simulator, pid)
    assert listed["release"]["default"] is True and listed["main"]["default"] is False
    assert (request["method"], request["path"], request["status"]) == (
        "POST", "/api/v2/projects/%s/branches/%s/set_as_default" % (pid, listed["release"]["id"]), 200)


def test_branches_schema_diff(simulator, cli):
    _made, pid = _project(simulator, cli, "cli-schema")
    main = _branches(simulator, pid)["main"]
    _write(simulator, pid, main["id"], ORDERS)
    simulator.advance_clock(1)
    staging = cli("branches", "create", "--project-id", pid, "--name", "staging", "--parent", "main").json["branch"]
    simulator.advance_clock(SETTLE)
    before = _write(simulator, pid, staging["id"], ORDERS)  # the same rows: the same schema
    simulator.advance_clock(1)
    _write(simulator, pid, staging["id"], [dict(ORDERS[0], email="a@example.com")])  # a migration on staging

    drift = cli("branches", "schema-diff", "main", "staging", "--project-id", pid, "--database", "neondb").stdout
    assert "+    email text" in drift and "CREATE TABLE public.orders" in drift
    same = cli("branches", "schema-diff", "main", "staging@" + before["lsn"], "--project-id", pid,
               "--database", "neondb").stdout
    assert "email" not in same and "+    " not in same
    schema_reads = [r for r in simulator.requests() if r["path"].endswith("/schema")]
    assert schema_reads and {r["status"] for r in schema_reads} == {200}
    assert all("db_name=neondb" in r["query"] for r in schema_reads)
