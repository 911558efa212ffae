# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The inventory plugin neon.cloud.projects: what a key reaches (_account/inventory.py) against a
fake of the service's routes, and the plugin's hosts, variables, filters and cache against a
real InventoryData. The integration target inventory_projects runs it through ansible-inventory."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest
from ansible.errors import AnsibleParserError
from ansible.inventory.data import InventoryData
from ansible.parsing.dataloader import DataLoader
from ansible.plugins import inventory as inventory_plugins
from ansible.plugins.loader import inventory_loader
from ansible.template import Templar

from ansible_collections.neon.cloud.plugins.inventory import projects as plugin_module
from ansible_collections.neon.cloud.plugins.inventory.projects import (
    host_variables,
    key_digest,
    variable_name,
)
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError
from ansible_collections.neon.cloud.plugins.module_utils._account.inventory import reachable_projects
from ansible_collections.neon.cloud.plugins.module_utils._api.redaction import SecretScrubber

KEY = "k" * 20 + "0123456789abcdefghijklmnopqrstuvwxyz0123456789ab"


def project(project_id, name=None, region="aws-us-east-2", org_id=None):
    return {"id": project_id, "name": name or project_id, "region_id": region, "pg_version": 17, "org_id": org_id}


class RouteClient:
    """GET by path: /auth, /users/me/organizations, /projects (by org_id), /projects/shared.

    ``projects`` maps an org_id (None: the personal list) to its projects; ``org_id_required``
    makes the personal list answer the service's 400; ``unavailable`` leaves ids out of list pages.
    """

    def __init__(self, key_type="api_key_user", account="user-1", organizations=(), projects=None,
                 shared=(), org_id_required=False, unavailable=()):
        self.auth = {"account_id": account, "auth_method": key_type}
        self.organizations = [{"id": org, "name": org.upper()} for org in organizations]
        self.projects = projects or {}
        self.shared = list(shared)
        self.org_id_required = org_id_required
        self.unavailable = set(unavailable)
        self.calls = []
        self.requests_made = 0
        self.scrubber = SecretScrubber([KEY])

    def get(self, path, params=None, deadline=None):  # pylint: disable=unused-argument
        params = dict((key, value) for key, value in (params or {}).items() if value is not None)
        self.calls.append((path, params))
        self.requests_made += 1
        if path == "/auth":
            return self.auth
        if path == "/users/me/organizations":
            return {"organizations": self.organizations}
        org_id = params.get("org_id")
        if path == "/projects/shared":
            items = self.shared
        elif org_id is None and self.org_id_required:
            raise NeonAPIError("GET", path, "HTTP 400: org_id is required", status=400, api_message="org_id is required")
        else:
            items = self.projects.get(org_id, [])
        search = params.get("search")
        if search:
            items = [item for item in items if search in item["id"]]
        start = 0
        if params.get("cursor"):
            start = [item["id"] for item in items].index(params["cursor"]) + 1
        page = items[start:start + int(params["limit"])]
        shown = [item for item in page if item["id"] not in self.unavailable]
        hidden = [item["id"] for item in page if item["id"] in self.unavailable]
        answer = {"projects": shown, "pagination": {"cursor": page[-1]["id"] if page else params.get("cursor")}}
        if hidden:
            answer["unavailable_project_ids"] = hidden
        return answer


def ids(reach):
    return [item["id"] for item, _shared in reach.projects]


# ---------------------------------------------------------------------------------------------- what a key reaches

def test_personal_key_reaches_its_projects_and_every_organizations():
    client = RouteClient(organizations=["org-a", "org-b"], projects={
        None: [project("p-1")], "org-a": [project("a-1", org_id="org-a")], "org-b": [project("b-1", org_id="org-b")]})
    reach = reachable_projects(client)
    assert ids(reach) == ["p-1", "a-1", "b-1"]
    assert [path for path, _params in client.calls] == ["/auth", "/users/me/organizations", "/projects", "/projects",
                                                        "/projects"]
    assert all(params["limit"] == 400 for path, params in client.calls if path == "/projects")


def test_personal_key_never_fails_on_org_id_required():
    client = RouteClient(organizations=["org-a", "org-b"], org_id_required=True,
                         projects={"org-a": [project("a-1")], "org-b": [project("b-1")]})
    assert ids(reachable_projects(client)) == ["a-1", "b-1"]


def test_organization_and_project_scoped_keys_list_what_the_service_gives_them():
    client = RouteClient(key_type="api_key_org", account="org-a", projects={None: [project("a-1"), project("a-2")]})
    assert ids(reachable_projects(client)) == ["a-1", "a-2"]
    assert [path for path, _params in client.calls] == ["/auth", "/projects"]  # no /users/me/organizations


def test_org_ids_list_only_those_organizations():
    client = RouteClient(organizations=["org-a", "org-b"], projects={
        None: [project("p-1")], "org-a": [project("a-1")], "org-b": [project("b-1")]})
    assert ids(reachable_projects(client, org_ids=["org-b"])) == ["b-1"]
    assert ("/users/me/organizations", {}) not in client.calls


def test_shared_projects_are_added_and_marked():
    client = RouteClient(projects={None: [project("p-1")]}, shared=[project("s-1"), project("p-1")])
    reach = reachable_projects(client, shared=True)
    assert reach.projects == [(project("p-1"), True), (project("s-1"), True)]


def test_pages_of_400_cost_one_request_each_plus_the_short_last_page():
    many = [project("p-%04d" % number) for number in range(1000)]
    client = RouteClient(key_type="api_key_org", account="org-a", projects={None: many})
    assert len(ids(reachable_projects(client))) == 1000
    assert client.requests_made == 1 + 3  # /auth, then ceil(1000/400) pages


def test_unavailable_projects_are_asked_again_and_those_left_are_reported():
    client = RouteClient(key_type="api_key_org", account="org-a",
                         projects={None: [project("p-1"), project("p-2")]}, unavailable=["p-2"])
    reach = reachable_projects(client)
    assert ids(reach) == ["p-1"] and reach.unavailable == ["p-2"]
    assert [params.get("search") for path, params in client.calls if path == "/projects"] == [None, "p-2", "p-2"]


def test_a_project_one_source_could_not_fetch_but_another_listed_is_not_unavailable():
    client = RouteClient(projects={None: [project("p-1"), project("s-1")]}, shared=[project("s-1")],
                         unavailable=["s-1"])
    client.unavailable = set(["s-1"])
    reach = reachable_projects(client, shared=True)
    assert "s-1" not in ids(reach) and reach.unavailable == ["s-1"]  # unavailable everywhere: reported
    partly = RouteClient(projects={None: [project("p-1"), project("s-1")]}, shared=[project("s-1")])
    original_get = partly.get

    def personal_list_misses_it(path, params=None, deadline=None):
        partly.unavailable = set(["s-1"]) if path == "/projects" else set()
        return original_get(path, params, deadline)

    partly.get = personal_list_misses_it
    reach = reachable_projects(partly, shared=True)
    assert "s-1" in ids(reach) and reach.unavailable == []


def test_a_refused_key_is_an_error_not_an_empty_inventory():
    class Refused(RouteClient):
        def get(self, path, params=None, deadline=None):
            raise NeonAPIError("GET", path, "HTTP 401: authentication failed", status=401)

    with pytest.raises(NeonAPIError):
        reachable_projects(Refused())


# ---------------------------------------------------------------------------------------------- variables

def test_every_field_becomes_a_neon_variable_with_a_safe_name():
    variables = host_variables({"id": "p-1", "name": "x", "weird-field.name": 1}, shared=False)
    assert variables == {"neon_id": "p-1", "neon_name": "x", "neon_weird_field_name": 1, "neon_shared": False,
                         "neon_unavailable": False}
    assert variable_name("region_id") == "neon_region_id"


def test_the_cache_digest_differs_per_key_and_holds_no_piece_of_it():
    first, second = key_digest(KEY, "url"), key_digest(KEY[::-1], "url")
    assert first != second and len(first) == 12
    assert not any(KEY[index:index + 6] in first for index in range(len(KEY) - 5))
    assert key_digest(KEY, "url") == first  # stable, so the cache is found again


# ---------------------------------------------------------------------------------------------- the plugin

class FakeCache(dict):
    """A cache plugin's dict interface, kept between two parses."""

    def flush(self):
        self.clear()


def run_plugin(tmp_path, monkeypatch, client, config, cache=None):
    """Parse an inventory file with the plugin, its client replaced by ``client``."""
    path = tmp_path / "test.neon.yml"
    path.write_text(json.dumps(dict({"plugin": "neon.cloud.projects", "api_key": KEY}, **config)))
    monkeypatch.setattr(plugin_module, "make_client", lambda options: client)
    client.close = lambda: None
    inventory = InventoryData()
    plugin = inventory_loader.get("neon.cloud.projects")
    loader = DataLoader()
    plugin.templar = Templar(loader=loader)
    if cache is not None:
        monkeypatch.setattr(inventory_plugins, "get_cache_plugin", lambda *args, **kwargs: cache)
    plugin.parse(inventory, loader, str(path), cache=True)
    return inventory


def test_hosts_are_project_ids_with_variables_and_local_connection(tmp_path, monkeypatch):
    client = RouteClient(key_type="api_key_org", account="org-a",
                         projects={None: [project("p-1", name="same"), project("p-2", name="same")]})
    inventory = run_plugin(tmp_path, monkeypatch, client, {})
    assert sorted(inventory.hosts) == ["p-1", "p-2"]  # two projects of one name are two hosts
    variables = inventory.get_host("p-1").get_vars()
    assert variables["neon_name"] == "same" and variables["neon_region_id"] == "aws-us-east-2"
    assert variables["ansible_connection"] == "local"
    assert variables["neon_shared"] is False and variables["neon_unavailable"] is False
    assert KEY not in json.dumps(dict((name, inventory.get_host(name).get_vars()) for name in inventory.hosts),
                                 default=str)


def test_filters_keyed_groups_and_unavailable_projects(tmp_path, monkeypatch):
    client = RouteClient(key_type="api_key_org", account="org-a", projects={None: [
        project("p-1", region="aws-us-east-2"), project("p-2", region="aws-eu-central-1"), project("p-3")]},
        unavailable=["p-3"])
    inventory = run_plugin(tmp_path, monkeypatch, client, {
        "filters": ["neon_region_id != 'aws-eu-central-1'"],
        "keyed_groups": [{"key": "neon_region_id", "prefix": "region"}]})
    assert sorted(inventory.hosts) == ["p-1", "p-3"]
    assert [host.name for host in inventory.groups["region_aws_us_east_2"].get_hosts()] == ["p-1"]
    assert [host.name for host in inventory.groups["neon_unavailable"].get_hosts()] == ["p-3"]
    assert inventory.get_host("p-3").get_vars()["neon_unavailable"] is True


def test_a_filter_on_an_undefined_variable_fails_only_when_strict(tmp_path, monkeypatch):
    client = RouteClient(key_type="api_key_org", account="org-a", projects={None: [project("p-1")]})
    inventory = run_plugin(tmp_path, monkeypatch, client, {"filters": ["no_such_variable == 1"]})
    assert list(inventory.hosts) == []
    with pytest.raises(AnsibleParserError, match="could not be evaluated for project p-1"):
        run_plugin(tmp_path, monkeypatch, RouteClient(key_type="api_key_org", projects={None: [project("p-1")]}),
                   {"filters": ["no_such_variable == 1"], "strict": True})


def test_bad_options_are_one_clear_error(tmp_path, monkeypatch):
    client = RouteClient()
    with pytest.raises(AnsibleParserError, match="org_ids: each must be an organization id"):
        run_plugin(tmp_path, monkeypatch, client, {"org_ids": ["../auth"]})
    with pytest.raises(AnsibleParserError, match="api_timeout must be greater than 0"):
        run_plugin(tmp_path, monkeypatch, client, {"api_timeout": 0})
    assert client.requests_made == 0


def test_api_errors_become_parser_errors_without_the_key(tmp_path, monkeypatch):
    class Refused(RouteClient):
        def get(self, path, params=None, deadline=None):
            raise NeonAPIError("GET", path, "HTTP 401: authentication failed (key %s)" % KEY[:20], status=401)

    client = Refused()
    with pytest.raises(AnsibleParserError) as caught:
        run_plugin(tmp_path, monkeypatch, client, {})
    assert "GET /auth failed: HTTP 401" in str(caught.value)
    assert KEY[:20] not in str(caught.value)


@pytest.mark.parametrize("stops", [None, "INVENTORY_ANY_UNPARSED_IS_FAILED", "INVENTORY_UNPARSED_IS_FAILED"])
def test_an_api_that_fails_names_the_plugin_the_request_and_how_to_stop_the_run(tmp_path, monkeypatch, stops):
    """Ansible plays on without the hosts of a failed source unless configured to stop: the message says how,
    unless it is configured so."""
    class Failing(RouteClient):
        def get(self, path, params=None, deadline=None):
            raise NeonAPIError("GET", path, "HTTP 500: internal server error", status=500,
                               api_message="internal server error", request_id="6f1c0e2a-0000-4000-8000-000000000001")

    monkeypatch.setattr(plugin_module.C, "INVENTORY_ANY_UNPARSED_IS_FAILED", stops == "INVENTORY_ANY_UNPARSED_IS_FAILED")
    monkeypatch.setattr(plugin_module.C, "INVENTORY_UNPARSED_IS_FAILED", stops == "INVENTORY_UNPARSED_IS_FAILED")
    with pytest.raises(AnsibleParserError) as caught:
        run_plugin(tmp_path, monkeypatch, Failing(), {"org_ids": ["org-a"]})
    message = str(caught.value)
    assert message.startswith("neon.cloud.projects could not list the projects: GET /auth failed: HTTP 500: internal "
                              "server error (request id 6f1c0e2a-0000-4000-8000-000000000001)")
    hint = "set any_unparsed_is_failed = true in the [inventory] section of ansible.cfg"
    assert (hint in message) == (stops is None), message


def test_a_cached_run_makes_no_request_and_the_cache_holds_no_key(tmp_path, monkeypatch):
    cache = FakeCache()
    first = RouteClient(key_type="api_key_org", account="org-a", projects={None: [project("p-1")]})
    run_plugin(tmp_path, monkeypatch, first, {"cache": True}, cache=cache)
    assert first.requests_made == 2 and len(cache) == 1
    assert KEY not in json.dumps(cache) and KEY[:8] not in json.dumps(cache) and KEY[:8] not in "".join(cache)
    second = RouteClient(key_type="api_key_org", account="org-a", projects={None: []})
    inventory = run_plugin(tmp_path, monkeypatch, second, {"cache": True}, cache=cache)
    assert second.requests_made == 0 and list(inventory.hosts) == ["p-1"]
