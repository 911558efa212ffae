# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every operation the collection sends, against the vendor's OpenAPI document: which successes have no content
(issue 37, point 2).

``SENT`` lists each request the collection's code makes (``plugins/module_utils/``: the client calls of ``_api/``,
``_resources/``, ``_keys/`` and ``_account/``), by method and path template. ``NO_CONTENT`` is where the code tells
the client that the operation's documented success carries nothing (``no_content=True``), so that an empty body
is its success (docs/docsite/rst/api-behaviour.rst, "Successes without a body"). The checks:

- every operation sent is one the document has (or one of the few newer routes it lacks) and the simulator serves;
- ``NO_CONTENT`` holds exactly the operations sent whose documented success (other than a 204, which is empty for
  any operation) has no content or only the document's EmptyResponse, an object without fields.

Run as a script, it prints that table for any documents given (the simulator's by default), e.g. for the newer
document another engineer may swap in::

    python tests/simulator/tests/test_collection_operations.py tests/simulator/openapi/neon-api-v2.json NEW.json
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # neon_simulator, when run as a script

from neon_simulator.openapi import DOCUMENT_PATHS, Document, document  # noqa: E402  pylint: disable=wrong-import-position

# (method, path template): every request the collection sends, grouped by where the code sends it.
A = "/projects/{project_id}/branches/{branch_id}/auth"
DATA_API = "/projects/{project_id}/branches/{branch_id}/data-api/{database_name}"
SENT = [
    # _account/identity.py, _account/projects.py, _account/consumption.py, _keys/api_keys.py
    ("GET", "/auth"), ("GET", "/users/me/organizations"), ("GET", "/organizations/{org_id}"),
    ("GET", "/projects"), ("GET", "/projects/shared"),
    ("GET", "/consumption_history/v2/projects"), ("GET", "/consumption_history/v2/branches"),
    ("GET", "/api_keys"), ("POST", "/api_keys"), ("DELETE", "/api_keys/{key_id}"),
    ("GET", "/organizations/{org_id}/api_keys"), ("POST", "/organizations/{org_id}/api_keys"),
    ("DELETE", "/organizations/{org_id}/api_keys/{key_id}"),
    # _account/availability.py
    ("GET", "/regions"), ("GET", "/projects/{project_id}/available_preload_libraries"),
    # _api/operations.py
    ("GET", "/projects/{project_id}/operations"), ("GET", "/projects/{project_id}/operations/{operation_id}"),
    # _resources/members.py, permissions.py
    ("GET", "/organizations/{org_id}/members"), ("PATCH", "/organizations/{org_id}/members/{member_id}"),
    ("DELETE", "/organizations/{org_id}/members/{member_id}"),
    ("GET", "/organizations/{org_id}/invitations"), ("POST", "/organizations/{org_id}/invitations"),
    ("GET", "/projects/{project_id}/permissions"), ("POST", "/projects/{project_id}/permissions"),
    ("DELETE", "/projects/{project_id}/permissions/{permission_id}"),
    # _resources/vpc_endpoints.py
    ("GET", "/organizations/{org_id}/vpc/vpc_endpoints"),
    ("GET", "/organizations/{org_id}/vpc/region/{region_id}/vpc_endpoints"),
    ("GET", "/organizations/{org_id}/vpc/region/{region_id}/vpc_endpoints/{vpc_endpoint_id}"),
    ("POST", "/organizations/{org_id}/vpc/region/{region_id}/vpc_endpoints/{vpc_endpoint_id}"),
    ("DELETE", "/organizations/{org_id}/vpc/region/{region_id}/vpc_endpoints/{vpc_endpoint_id}"),
    ("GET", "/projects/{project_id}/vpc_endpoints"),
    ("POST", "/projects/{project_id}/vpc_endpoints/{vpc_endpoint_id}"),
    ("DELETE", "/projects/{project_id}/vpc_endpoints/{vpc_endpoint_id}"),
    # _resources/projects.py, project_settings.py, connections.py
    ("POST", "/projects"), ("GET", "/projects/{project_id}"), ("PATCH", "/projects/{project_id}"),
    ("DELETE", "/projects/{project_id}"), ("GET", "/projects/{project_id}/connection_uri"),
    # _resources/finding.py, branches.py, restores.py, schemas.py
    ("GET", "/projects/{project_id}/branches"), ("POST", "/projects/{project_id}/branches"),
    ("GET", "/projects/{project_id}/branches/{branch_id}"), ("PATCH", "/projects/{project_id}/branches/{branch_id}"),
    ("DELETE", "/projects/{project_id}/branches/{branch_id}"),
    ("POST", "/projects/{project_id}/branches/{branch_id}/restore"),
    ("POST", "/projects/{project_id}/branches/{branch_id}/set_as_default"),
    ("GET", "/projects/{project_id}/branches/{branch_id}/schema"),
    ("GET", "/projects/{project_id}/branches/{branch_id}/compare_schema"),
    ("GET", "/projects/{project_id}/branches/{branch_id}/endpoints"),
    # _resources/roles_databases.py
    ("GET", "/projects/{project_id}/branches/{branch_id}/roles"),
    ("POST", "/projects/{project_id}/branches/{branch_id}/roles"),
    ("DELETE", "/projects/{project_id}/branches/{branch_id}/roles/{role_name}"),
    ("POST", "/projects/{project_id}/branches/{branch_id}/roles/{role_name}/reset_password"),
    ("GET", "/projects/{project_id}/branches/{branch_id}/roles/{role_name}/reveal_password"),
    ("GET", "/projects/{project_id}/branches/{branch_id}/databases"),
    ("POST", "/projects/{project_id}/branches/{branch_id}/databases"),
    ("PATCH", "/projects/{project_id}/branches/{branch_id}/databases/{database_name}"),
    ("DELETE", "/projects/{project_id}/branches/{branch_id}/databases/{database_name}"),
    # _resources/endpoints.py (computes)
    ("GET", "/projects/{project_id}/endpoints"), ("POST", "/projects/{project_id}/endpoints"),
    ("GET", "/projects/{project_id}/endpoints/{endpoint_id}"),
    ("PATCH", "/projects/{project_id}/endpoints/{endpoint_id}"),
    ("DELETE", "/projects/{project_id}/endpoints/{endpoint_id}"),
    ("POST", "/projects/{project_id}/endpoints/{endpoint_id}/start"),
    ("POST", "/projects/{project_id}/endpoints/{endpoint_id}/suspend"),
    ("POST", "/projects/{project_id}/endpoints/{endpoint_id}/restart"),
    # _resources/snapshots.py, snapshot_restores.py, schedules.py
    ("POST", "/projects/{project_id}/branches/{branch_id}/snapshot"), ("GET", "/projects/{project_id}/snapshots"),
    ("PATCH", "/projects/{project_id}/snapshots/{snapshot_id}"),
    ("DELETE", "/projects/{project_id}/snapshots/{snapshot_id}"),
    ("POST", "/projects/{project_id}/snapshots/{snapshot_id}/restore"),
    ("POST", "/projects/{project_id}/branches/{branch_id}/finalize_restore"),
    ("GET", "/projects/{project_id}/branches/{branch_id}/backup_schedule"),
    ("PUT", "/projects/{project_id}/branches/{branch_id}/backup_schedule"),
    # _resources/neon_auth.py, neon_auth_oauth.py, neon_auth_users.py
    ("GET", A), ("POST", A), ("DELETE", A),
    ("GET", A + "/domains"), ("POST", A + "/domains"), ("DELETE", A + "/domains"),
    ("PATCH", A + "/config"), ("GET", A + "/allow_localhost"), ("PATCH", A + "/allow_localhost"),
    ("GET", A + "/email_and_password"), ("PATCH", A + "/email_and_password"),
    ("GET", A + "/email_provider"), ("PATCH", A + "/email_provider"), ("GET", A + "/plugins"),
    ("PATCH", A + "/plugins/organization"), ("PATCH", A + "/plugins/magic-link"),
    ("GET", A + "/plugins/phone-number"), ("PATCH", A + "/plugins/phone-number"),
    ("GET", A + "/webhooks"), ("PUT", A + "/webhooks"),
    ("GET", A + "/oauth_providers"), ("POST", A + "/oauth_providers"),
    ("PATCH", A + "/oauth_providers/{oauth_provider_id}"), ("DELETE", A + "/oauth_providers/{oauth_provider_id}"),
    ("POST", A + "/users"), ("PUT", A + "/users/{auth_user_id}/role"), ("DELETE", A + "/users/{auth_user_id}"),
    # _resources/data_api.py, jwks.py
    ("GET", DATA_API), ("POST", DATA_API), ("PATCH", DATA_API), ("DELETE", DATA_API),
    ("GET", "/projects/{project_id}/jwks"), ("POST", "/projects/{project_id}/jwks"),
    ("DELETE", "/projects/{project_id}/jwks/{jwks_id}"),
    # _resources/anonymized_branches.py
    ("POST", "/projects/{project_id}/branch_anonymized"),
    ("GET", "/projects/{project_id}/branches/{branch_id}/masking_rules"),
    ("PATCH", "/projects/{project_id}/branches/{branch_id}/masking_rules"),
    ("POST", "/projects/{project_id}/branches/{branch_id}/anonymize"),
    ("GET", "/projects/{project_id}/branches/{branch_id}/anonymized_status"),
    # _resources/recoveries.py
    ("POST", "/projects/{project_id}/recover"), ("POST", "/projects/{project_id}/branches/{branch_id}/recover"),
    # _resources/transfers.py, project_members.py
    ("POST", "/organizations/{source_org_id}/projects/transfer"),
    ("POST", "/projects/{project_id}/transfer_requests"), ("PUT", "/projects/{project_id}/transfer_requests/{request_id}"),
    ("GET", "/projects/{project_id}/members"), ("PUT", "/projects/{project_id}/members/{member_id}/role"),
    ("DELETE", "/projects/{project_id}/members/{member_id}/role"),
    # _resources/spending_limits.py, advisors.py
    ("GET", "/organizations/{org_id}/billing/spending_limit"), ("PUT", "/organizations/{org_id}/billing/spending_limit"),
    ("DELETE", "/organizations/{org_id}/billing/spending_limit"),
    ("GET", "/projects/{project_id}/advisors"),
]

# Where the collection passes no_content=True, and the file of plugins/module_utils/_resources/ that does: the VPC
# endpoint assignments (no content in the document), a backup schedule's PUT, a member's and a spending limit's removal
# (the document's EmptyResponse; the API reference says the PUT's answer is empty), and Neon Auth's and the Data API's answers the
# June 2026 document gives no content.
NO_CONTENT_SENT_BY = {
    ("POST", "/organizations/{org_id}/vpc/region/{region_id}/vpc_endpoints/{vpc_endpoint_id}"): "vpc_endpoints.py",
    ("DELETE", "/organizations/{org_id}/vpc/region/{region_id}/vpc_endpoints/{vpc_endpoint_id}"): "vpc_endpoints.py",
    ("POST", "/projects/{project_id}/vpc_endpoints/{vpc_endpoint_id}"): "vpc_endpoints.py",
    ("DELETE", "/projects/{project_id}/vpc_endpoints/{vpc_endpoint_id}"): "vpc_endpoints.py",
    ("PUT", "/projects/{project_id}/branches/{branch_id}/backup_schedule"): "schedules.py",
    ("DELETE", "/organizations/{org_id}/members/{member_id}"): "members.py",
    ("DELETE", A): "neon_auth.py",
    ("POST", A + "/domains"): "neon_auth.py",
    ("DELETE", A + "/domains"): "neon_auth.py",
    ("DELETE", A + "/oauth_providers/{oauth_provider_id}"): "neon_auth_oauth.py",
    ("PATCH", DATA_API): "data_api.py",
    ("DELETE", DATA_API): "data_api.py",
    ("POST", "/organizations/{source_org_id}/projects/transfer"): "transfers.py",
    ("DELETE", "/organizations/{org_id}/billing/spending_limit"): "spending_limits.py",
}
NO_CONTENT = set(NO_CONTENT_SENT_BY)
MODULE_UTILS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "plugins", "module_utils")

# Sent, but not in the 2025-10 document the simulator is judged by (the 2026-06 document has them).
NEWER_THAN_THE_DOCUMENT = {("GET", "/projects/{project_id}/branches/{branch_id}/backup_schedule"),
                           ("PUT", "/projects/{project_id}/branches/{branch_id}/backup_schedule"),
                           # August 2026: project members' roles (tests/test_project_roles.py checks their shapes)
                           ("GET", "/projects/{project_id}/members"),
                           ("PUT", "/projects/{project_id}/members/{member_id}/role"),
                           ("DELETE", "/projects/{project_id}/members/{member_id}/role")}

EMPTY_RESPONSE = "#/components/schemas/EmptyResponse"
API_KEY = "sim-selftest-key-operations"  # the module's simulator (conftest.py), whose routes are looked at


def successes(doc, method, template):
    """``{status: what its answer carries}`` of the operation's 2xx responses: "none" (no content), "empty object"
    (the EmptyResponse schema) or "JSON"; None when the document does not have the operation."""
    operation = doc.data["paths"].get(template, {}).get(method.lower())
    if operation is None:
        return None
    found = {}
    for status, response in operation.get("responses", {}).items():
        if not status.startswith("2"):
            continue
        if "$ref" in response:
            response = doc.data["components"]["responses"][response["$ref"].split("/")[-1]]
        media = (response.get("content") or {}).get("application/json")
        if not response.get("content"):
            found[int(status)] = "none"
        elif (media or {}).get("schema", {}).get("$ref") == EMPTY_RESPONSE:
            found[int(status)] = "empty object"
        else:
            found[int(status)] = "JSON"
    return found


def carries_nothing(found):
    """Whether a success other than a 204 carries nothing: no content, or an object without fields."""
    return any(kind != "JSON" for status, kind in found.items() if status != 204)


DOCUMENT = document()


def test_the_list_has_each_operation_once():
    assert len(set(SENT)) == len(SENT)
    assert NO_CONTENT <= set(SENT)


@pytest.mark.parametrize("method, template", SENT, ids=["%s %s" % pair for pair in SENT])
def test_each_operation_sent_is_documented_and_served(server, method, template):
    found = successes(DOCUMENT, method, template)
    if (method, template) in NEWER_THAN_THE_DOCUMENT and found is None:
        pass  # checked against its component schemas by test_openapi_conformance.py
    else:
        assert found, "%s %s is not an operation of the document" % (method, template)
    path = "/api/v2" + re.sub(r"\{[a-z_]+\}", "x1", template)
    adapter = server.app.api_map.bind("127.0.0.1")
    assert adapter.test(path, method), "the simulator does not serve %s %s" % (method, template)


def test_an_empty_body_is_success_exactly_where_the_document_gives_the_success_no_content():
    """The operations whose success (other than a 204) carries nothing are the ones the code declares no_content."""
    nothing = {(method, template) for method, template in SENT
               if carries_nothing(successes(DOCUMENT, method, template) or {})}
    undocumented = {pair for pair in NO_CONTENT if successes(DOCUMENT, *pair) is None}
    assert nothing | undocumented == NO_CONTENT
    assert undocumented <= NEWER_THAN_THE_DOCUMENT


def declared_no_content():
    """``{(file, method)}`` of every call in plugins/module_utils/ that passes ``no_content=True``, the method being
    the call's first argument (a string), or DELETE for a writer's ``delete`` (writer.py: a DELETE that takes 404
    as done)."""
    found = set()
    for folder, _dirs, files in os.walk(MODULE_UTILS):
        for name in files:
            if not name.endswith(".py"):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                tree = ast.parse(handle.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and any(
                        keyword.arg == "no_content" and isinstance(keyword.value, ast.Constant) and keyword.value.value
                        is True for keyword in node.keywords):
                    method = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
                    if isinstance(node.func, ast.Attribute) and node.func.attr == "delete":
                        method = "DELETE"
                    found.add((name, method))
    return found


def test_the_code_declares_no_content_where_the_list_says():
    """The table above is the code's: each no_content=True call is one of its operations' (file and method)."""
    assert declared_no_content() == {(name, method) for (method, _template), name in NO_CONTENT_SENT_BY.items()}


def table(paths):
    """The table of SENT against the documents at ``paths``: one line per operation."""
    docs = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            docs.append(Document(json.load(handle)))
    lines = ["%-6s %-84s %s" % ("", "", " | ".join("%-22s" % os.path.basename(path)[:22] for path in paths))]
    for method, template in SENT:
        cells = []
        for doc in docs:
            found = successes(doc, method, template)
            shown = "(not in it)" if found is None else ", ".join("%d %s" % item for item in sorted(found.items()))
            cells.append("%-22s" % shown)
        mark = "  no_content" if (method, template) in NO_CONTENT else ""
        lines.append("%-6s %-84s %s%s" % (method, template, " | ".join(cells), mark))
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(sys.argv[1:] or [path for path in DOCUMENT_PATHS if os.path.isfile(path)][:1]))
