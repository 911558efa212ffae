# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The vendor's CLI's IP allow list (`neonctl ip-allow list/add/remove/reset`) against the simulator, as a
user runs it against the live service (issue 30, point 6: "the vendor's CLI works against it for what it
has (`ip-allow`, ...)").

What the CLI does (governance-recovery-api-notes.md, section 1, NEONCTL ip_allow.ts): `add` and `remove`
read the project and PATCH the whole `allowed_ips` (the list changed, `protected_branches_only` kept
unless `--protected-only` is given); `reset` sends the list given (possibly none) with
`protected_branches_only: false` without reading, and says the project is open to the internet when
the list is empty. The simulator keeps the other settings as they were, and refuses the allow list on
a plan without IP Allow (a personal project: the free plan) with a message the CLI prints.

The CLI is installed and run by test_vendor_cli.py's fixtures (imported here; see that file).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import requests

# The CLI's fixtures (the installed CLI, and a run of it), used by name
from test_vendor_cli import cli, neonctl  # noqa: F401  pylint: disable=unused-import

ORG_PROJECT = "bold-glade-61830452"  # checkout-api, of the seeded organization (plan scale)


def held(simulator, project_id):
    answer = requests.get(simulator.url + "/projects/%s" % project_id, headers=simulator.headers, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()["project"]["settings"]


def requests_since(simulator, seq):
    return [(entry["method"], entry["path"].rsplit("/", 1)[-1], entry["status"]) for entry in simulator.requests()
            if entry["seq"] > seq]


def last_seq(simulator):
    entries = simulator.requests()
    return entries[-1]["seq"] if entries else 0


def listed(done):
    """What `neonctl ip-allow ...` prints: the project, its list and whether it covers protected branches only."""
    return done.json["IP_addresses"], done.json["protected_branches_only"]


def test_list_add_remove_and_reset_change_only_the_allow_list(simulator, cli):  # noqa: F811
    window = held(simulator, ORG_PROJECT)["maintenance_window"]
    assert listed(cli("ip-allow", "list", "--project-id", ORG_PROJECT)) == ([], False)

    seq = last_seq(simulator)
    added = cli("ip-allow", "add", "192.0.2.1", "203.0.113.0/24", "--project-id", ORG_PROJECT)
    assert added.json["id"] == ORG_PROJECT and listed(added) == (["192.0.2.1", "203.0.113.0/24"], False)
    assert requests_since(simulator, seq) == [("GET", ORG_PROJECT, 200), ("PATCH", ORG_PROJECT, 200)]  # read, then write

    protected = cli("ip-allow", "add", "198.51.100.20-198.51.100.50", "--protected-only", "--project-id", ORG_PROJECT)
    assert sorted(listed(protected)[0]) == ["192.0.2.1", "198.51.100.20-198.51.100.50", "203.0.113.0/24"]
    assert listed(protected)[1] is True

    removed = cli("ip-allow", "remove", "192.0.2.1", "--project-id", ORG_PROJECT)
    assert sorted(listed(removed)[0]) == ["198.51.100.20-198.51.100.50", "203.0.113.0/24"]
    assert listed(removed)[1] is True  # kept: the CLI read it and sent it back
    settings = held(simulator, ORG_PROJECT)
    assert settings["allowed_ips"] == {"ips": listed(removed)[0], "protected_branches_only": True}
    assert settings["maintenance_window"] == window  # the other settings are left as they were

    seq = last_seq(simulator)
    reset = cli("ip-allow", "reset", "--project-id", ORG_PROJECT)
    assert listed(reset) == ([], False)
    assert "now exposed to the internet" in reset.stderr + reset.stdout
    assert requests_since(simulator, seq) == [("PATCH", ORG_PROJECT, 200)]  # reset does not read
    assert held(simulator, ORG_PROJECT)["allowed_ips"] == {"ips": [], "protected_branches_only": False}


def test_the_free_plan_and_a_bad_address_are_refused_with_the_services_message(simulator, cli):  # noqa: F811
    demo = simulator.demo_project_id  # a personal project: the free plan
    refused = cli("ip-allow", "add", "192.0.2.1", "--project-id", demo, check=False)
    assert refused.returncode != 0
    assert "IP Allow (settings.allowed_ips) is not available on your plan (free_v2)" in refused.stderr
    assert held(simulator, demo)["allowed_ips"]["ips"] == []

    bad = cli("ip-allow", "add", "300.1.1.1", "--project-id", ORG_PROJECT, check=False)
    assert bad.returncode != 0 and "'300.1.1.1' is not an IP address, a range or a CIDR block" in bad.stderr
    assert "300.1.1.1" not in held(simulator, ORG_PROJECT)["allowed_ips"]["ips"]
