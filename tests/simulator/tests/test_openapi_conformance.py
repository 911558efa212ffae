# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The simulator against the vendor's OpenAPI document (tests/simulator/openapi/neon-api-v2.json: the June 2026 one,
146 operations, issue 40; the 2025-10-26 one before it, issue 32).

One scenario (the ``answers`` fixture, once per module) drives the simulator through every operation it serves:
projects, branches, computes, roles, databases, permissions, organizations and their keys, members and
invitations, private networking, snapshots and restores, schema, consumption, regions, the current user, a
project's advisor issues, an organization's spending limit. Every answer is recorded under the document operation
its request names. Then, per operation of the document (``test_operation``, one case each, so a new one cannot
escape):

- every answer of the scenario has a status the operation documents (a success status explicitly; an error
  status explicitly or through ``default``) and a body valid against that response's schema (``$ref``s
  resolved, OpenAPI 3.0's ``nullable`` honoured, ``date-time`` and integer formats checked), with a JSON content
  type; where that response has no content (a 204, the VPC endpoint assignments' 200), no body at all
  (Content-Length 0, no JSON content type; not even ``{}``), since the client takes an empty body as success only
  there (issue 37);
- every request of the scenario that the simulator took (a 2xx answer) is one the document allows: its JSON body
  valid against the operation's request body schema, its query parameters documented, the required ones given, each
  valid against its schema (a request meant to be refused, answered 4xx, is not held to it);
- the operation was answered with a success at least once, or, not served, a probe of it was answered
  **501** ``NOT_SIMULATED`` naming it (a deprecated operation too: it may stay unserved). A route added for an
  operation the scenario does not drive fails here until the scenario drives it.

``test_recorded_live_fields`` checks the other kind of gap: fields the live service was recorded sending
that the simulator leaves out (a schema cannot catch those: they are optional there), and
``test_routes_are_documented`` that every served route is a documented operation.
"""

from __future__ import annotations

import json
import re
import time
import urllib.parse
import uuid

import jsonschema
import pytest
import requests

from neon_simulator.openapi import document

API_KEY = "sim-selftest-key-openapi"
ORG = "org-calm-tree-21298941"  # the seeded organization (scale plan): the bootstrap user is its admin
REGION = "aws-us-east-2"
VPCE = "vpce-0a1b2c3d4e5f67890"
SETTLE = 30  # seconds of simulated time past the operations a change starts (they take 1-2 s)

DOCUMENT = document()

# Routes served that the document does not have (the backup schedules, served before the 2025-10-26 document had
# them, are getSnapshotSchedule and setSnapshotSchedule of the June 2026 one): project members' roles, new in August
# 2026 (listProjectMembers, setProjectMemberRole, removeProjectMemberRole), whose shapes tests/test_project_roles.py
# checks against the generated client they come from.
UNDOCUMENTED_ROUTES = {("GET", "/projects/{}/members"), ("PUT", "/projects/{}/members/{}/role"),
                       ("DELETE", "/projects/{}/members/{}/role")}

# What the live service was recorded sending (neondatabase/neon-api-python tests/cassettes/test_integration/*.yaml,
# 16 Jan 2025, at 2dbcfa6; provisioning-api-notes.md, "CASSETTE"): per operation, the fields of the answer (""),
# of an object in it ("project") or of every item of a list in it ("branches[]", "[]" for a bare array) present in
# every recording of it. Fields that come and go with a state (pending_state, endpoint_id) are left out.
RECORDED = {
    "createApiKey": {"": ["created_at", "created_by", "id", "key", "name"]},
    "listApiKeys": {"[]": ["created_at", "created_by", "id", "last_used_at", "last_used_from_addr", "name"]},
    "revokeApiKey": {"": ["created_by", "id", "last_used_at", "last_used_from_addr", "name", "revoked"]},
    "listProjects": {"": ["applications", "integrations", "pagination", "projects"]},
    "getProject": {"project": [
        "active_time_seconds", "branch_logical_size_limit", "branch_logical_size_limit_bytes", "compute_time_seconds",
        "consumption_period_end", "consumption_period_start", "cpu_used_sec", "created_at", "creation_source",
        "data_storage_bytes_hour", "data_transfer_bytes", "default_endpoint_settings", "history_retention_seconds",
        "id", "name", "owner", "owner_id", "pg_version", "platform_id", "provisioner", "proxy_host", "region_id",
        "settings", "store_passwords", "synthetic_storage_size", "updated_at", "written_data_bytes"]},
    "createProject": {
        "": ["branch", "connection_uris", "databases", "endpoints", "operations", "project", "roles"],
        "connection_uris[]": ["connection_parameters", "connection_uri"],
        "roles[]": ["branch_id", "created_at", "name", "password", "protected", "updated_at"],
        "databases[]": ["branch_id", "created_at", "id", "name", "owner_name", "updated_at"],
        "operations[]": ["action", "branch_id", "created_at", "failures_count", "id", "project_id", "status",
                         "total_duration_ms", "updated_at"],
        "branch": ["active_time_seconds", "compute_time_seconds", "cpu_used_sec", "created_at", "creation_source",
                   "current_state", "data_transfer_bytes", "default", "id", "name", "primary", "project_id",
                   "protected", "state_changed_at", "updated_at", "written_data_bytes"],
        "endpoints[]": ["autoscaling_limit_max_cu", "autoscaling_limit_min_cu", "branch_id", "created_at",
                        "creation_source", "current_state", "disabled", "host", "id", "passwordless_access",
                        "pooler_enabled", "pooler_mode", "project_id", "provisioner", "proxy_host", "region_id",
                        "settings", "suspend_timeout_seconds", "type", "updated_at"]},
    "updateProject": {"": ["operations", "project"]},
    "deleteProject": {"": ["project"]},
    "listProjectBranches": {
        "": ["annotations", "branches", "pagination"],
        "branches[]": ["active_time_seconds", "compute_time_seconds", "cpu_used_sec", "created_at", "created_by",
                       "creation_source", "current_state", "data_transfer_bytes", "default", "id", "name", "primary",
                       "project_id", "protected", "state_changed_at", "updated_at", "written_data_bytes"],
        "pagination": ["next", "sort_by", "sort_order"]},
    "listProjectEndpoints": {"endpoints[]": [
        "autoscaling_limit_max_cu", "autoscaling_limit_min_cu", "branch_id", "created_at", "creation_source",
        "current_state", "disabled", "host", "id", "last_active", "passwordless_access", "pooler_enabled",
        "pooler_mode", "project_id", "provisioner", "proxy_host", "region_id", "settings", "suspend_timeout_seconds",
        "type", "updated_at"]},
    "getProjectEndpoint": {"endpoint": ["host", "id", "last_active", "passwordless_access", "pooler_mode",
                                        "proxy_host", "region_id", "suspend_timeout_seconds", "type"]},
    "listProjectOperations": {"": ["operations", "pagination"], "pagination": ["cursor"],
                              "operations[]": ["action", "branch_id", "created_at", "failures_count", "id",
                                               "project_id", "status", "total_duration_ms", "updated_at"]},
    "getProjectOperation": {"operation": ["action", "branch_id", "created_at", "failures_count", "id", "project_id",
                                          "status", "total_duration_ms", "updated_at"]},
    "listProjectBranchDatabases": {"databases[]": ["branch_id", "created_at", "id", "name", "owner_name",
                                                   "updated_at"]},
    "listProjectBranchRoles": {"roles[]": ["branch_id", "created_at", "name", "protected", "updated_at"]},
    "getProjectBranchRole": {"role": ["branch_id", "created_at", "name", "protected", "updated_at"]},
    "getConnectionURI": {"": ["uri"]},
    "getCurrentUserInfo": {
        "": ["active_seconds_limit", "auth_accounts", "billing_account", "branches_limit", "email", "id", "image",
             "last_name", "login", "max_autoscaling_limit", "name", "plan", "projects_limit"],
        "auth_accounts[]": ["email", "image", "login", "name", "provider"]},
}

# Non-conformances in files other engineers own right now: (operation id) -> reason. Each case is xfail(strict).
KNOWN_NONCONFORMANCE = {}
KNOWN_UNRECORDED = {}


# ---------------------------------------------------------------------- the document's schemas as JSON Schema
def json_schema(schema):
    """An OpenAPI 3.0 schema object as JSON Schema draft 4 (which 3.0's keywords follow: boolean
    ``exclusiveMinimum``, ``$ref`` siblings ignored): ``nullable: true`` admits null, OpenAPI's own keywords go."""
    if isinstance(schema, list):
        return [json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for name, value in schema.items():
        if name in ("properties", "patternProperties"):
            out[name] = {field: json_schema(sub) for field, sub in value.items()}
        elif name in ("items", "additionalProperties", "not", "allOf", "anyOf", "oneOf"):
            out[name] = json_schema(value)
        elif name in ("nullable", "discriminator", "example", "xml", "externalDocs", "readOnly", "writeOnly",
                      "deprecated") or name.startswith("x-"):
            continue
        else:
            out[name] = value
    mapping = (schema.get("discriminator") or {}).get("mapping")
    if mapping and "oneOf" in schema:
        # The discriminator picks the one schema (its property's value names it); without it, a lax schema such as
        # SharedEmailServer (no required fields) would match every answer beside the right one.
        named = {ref: name for name, ref in mapping.items()}
        field = schema["discriminator"]["propertyName"]
        out["oneOf"] = [{"allOf": [json_schema(item), {"properties": {field: {"enum": [named[item["$ref"]]]}},
                                                       "required": [field]}]}
                        if item.get("$ref") in named else json_schema(item) for item in schema["oneOf"]]
    if schema.get("nullable") is True:
        out = {"anyOf": [{"type": "null"}, out]}
    return out


COMPONENTS = {"schemas": {name: json_schema(schema) for name, schema in DOCUMENT.data["components"]["schemas"].items()}}
FORMATS = jsonschema.FormatChecker(formats=())
DATE_TIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
INTEGER_RANGES = {"int32": (-2 ** 31, 2 ** 31 - 1), "int64": (-2 ** 63, 2 ** 63 - 1), "uint64": (0, 2 ** 64 - 1)}


@FORMATS.checks("date-time")
def _date_time(value):
    return not isinstance(value, str) or bool(DATE_TIME_RE.match(value))


@FORMATS.checks("uuid")
def _uuid(value):
    if not isinstance(value, str):
        return True
    try:
        return str(uuid.UUID(value)) == value.lower()
    except ValueError:
        return False


for _name, (_low, _high) in INTEGER_RANGES.items():
    FORMATS.checks(_name)(lambda value, low=_low, high=_high: not isinstance(value, int) or low <= value <= high)


def schema_problems(schema, body):
    """The body's problems against an OpenAPI schema, one line each (path in the body: message)."""
    validator = jsonschema.Draft4Validator({"allOf": [json_schema(schema)], "components": COMPONENTS},
                                           format_checker=FORMATS)
    return ["%s: %s" % ("/".join(str(part) for part in error.absolute_path) or "(body)", error.message)
            for error in sorted(validator.iter_errors(body), key=lambda e: list(e.absolute_path))]


def response_spec(operation, status):
    """The documented response for ``status`` (None: not documented): a success must be listed itself, an error
    may fall under ``default``."""
    responses = operation.spec["responses"]
    spec = responses.get(str(status))
    if spec is None and status >= 400:
        spec = responses.get("default")
    if spec is not None and "$ref" in spec:
        spec = DOCUMENT.data["components"]["responses"][spec["$ref"].split("/")[-1]]
    return spec


def documents_content(spec):
    """Whether a documented response has content (a body); a 204 and a VPC assignment's 200 have none."""
    return bool(spec.get("content"))


def answer_problems(operation, status, body_bytes, headers):
    """What is wrong with an answer to ``operation`` by the document: its status, then its body and content type."""
    spec = response_spec(operation, status)
    if spec is None:
        return ["status %d is not documented (documented: %s)" % (status, ", ".join(operation.spec["responses"]))]
    content_type = headers.get("Content-Type", "")
    if not documents_content(spec):
        # no content documented: no body at all, as the service answers (not even {}), and nothing called JSON
        problems = []
        if body_bytes:
            problems.append("status %d documents no content, answered a body: %r" % (status, body_bytes[:200]))
        if headers.get("Content-Length", "0") != "0":
            problems.append("status %d documents no content, answered Content-Length %s" % (
                status, headers["Content-Length"]))
        if "json" in content_type:
            problems.append("status %d documents no content, answered Content-Type %s" % (status, content_type))
        return problems
    schema = (spec.get("content") or {}).get("application/json", {}).get("schema")
    if not body_bytes.strip():
        return ["status %d documents content, answered no body" % status]
    if content_type.split(";")[0].strip() != "application/json":
        return ["status %d documents JSON, answered Content-Type %r" % (status, content_type)]
    try:
        body = json.loads(body_bytes)
    except ValueError:
        return ["status %d: the body is not JSON: %r" % (status, body_bytes[:200])]
    return ["status %d: %s" % (status, problem) for problem in schema_problems(schema or {}, body)]


def _parameters(operation):
    """The operation's query parameters by name (its own and its path's, ``$ref``s resolved)."""
    path_item = DOCUMENT.data["paths"][operation.template]
    found = {}
    for parameter in path_item.get("parameters", []) + operation.spec.get("parameters", []):
        if "$ref" in parameter:
            parameter = DOCUMENT.data["components"]["parameters"][parameter["$ref"].split("/")[-1]]
        if parameter.get("in") == "query":
            found[parameter["name"]] = parameter
    return found


def request_problems(operation, query, body):
    """What is wrong with a request to ``operation`` by the document: its query parameters (``query``: name ->
    [values]), then its JSON body (None: none sent)."""
    parameters = _parameters(operation)
    problems = ["query parameter %s is not documented" % name for name in sorted(set(query) - set(parameters))]
    problems += ["query parameter %s is required" % name for name, spec in sorted(parameters.items())
                 if spec.get("required") and name not in query]
    for name, values in sorted(query.items()):
        schema = (parameters.get(name) or {}).get("schema")
        if schema is None:
            continue
        resolved = schema
        while "$ref" in resolved:
            resolved = DOCUMENT.data["components"]["schemas"][resolved["$ref"].split("/")[-1]]
        if resolved.get("type") == "array" and parameters[name].get("explode") is False:
            values = [",".join(values)]
        for value in values:
            problems += ["query %s=%s: %s" % (name, value, problem)
                         for problem in schema_problems(schema, _query_value(resolved, value))]
    content = (operation.spec.get("requestBody") or {}).get("content") or {}
    schema = (content.get("application/json") or {}).get("schema")
    if body is not None and schema is None:
        problems.append("a JSON body, where the document gives none")
    elif body is not None:
        problems += ["body %s" % problem for problem in schema_problems(schema, body)]
    elif (operation.spec.get("requestBody") or {}).get("required"):
        problems.append("no body, where the document requires one")
    return problems


def _query_value(schema, value):
    """A query string value as the type its schema gives (an array: comma-separated, as the vendor's clients send)."""
    kind = schema.get("type")
    try:
        if kind == "integer":
            return int(value)
        if kind == "number":
            return float(value)
    except ValueError:
        return value
    if kind == "boolean":
        return {"true": True, "false": False}.get(value, value)
    if kind == "array":
        item = schema.get("items") or {}
        while "$ref" in item:
            item = DOCUMENT.data["components"]["schemas"][item["$ref"].split("/")[-1]]
        return [_query_value(item, part) for part in value.split(",")]
    return value


# ---------------------------------------------------------------------- the scenario
class Client:
    """Sends the scenario's requests and records each answer under the document operation it names."""

    def __init__(self, sim):
        self.sim = sim
        self.answers = {}  # operation id -> [(method, path, status, body bytes, headers)]
        self.requests = {}  # operation id -> [(method, path, status, query {name: [values]}, JSON body or None)]
        self.extras = []  # answers of the undocumented routes

    def call(self, method, path, expect=200, key=API_KEY, **kwargs):
        headers = {"Authorization": "Bearer " + key, "X-Request-ID": str(uuid.uuid4())}
        response = requests.request(method, self.sim.url + path, headers=headers, timeout=10, **kwargs)
        operation, _methods = DOCUMENT.match(method, path.partition("?")[0])
        record = (method, path, response.status_code, response.content, response.headers)
        if operation is None:
            self.extras.append(record)
        else:
            self.answers.setdefault(operation.operation_id, []).append(record)
            query = dict(urllib.parse.parse_qs(urllib.parse.urlsplit(response.request.url).query,
                                               keep_blank_values=True))
            sent = json.loads(response.request.body) if response.request.body else None
            self.requests.setdefault(operation.operation_id, []).append((method, path, response.status_code, query, sent))
        assert response.status_code == expect, (method, path, response.status_code, response.text)
        return response.json() if response.content else None

    def settle(self):
        self.sim.advance_clock(SETTLE)


def iso(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def write_rows(sim, pid, branch_id, table, rows, columns):
    """A write to a branch's data stand-in (control API), so that schemas have tables and can differ."""
    answer = requests.post("%s/projects/%s/branches/%s/data" % (sim.control_url, pid, branch_id), timeout=10,
                           json={"database": "neondb", "table": table, "rows": rows, "columns": columns})
    assert answer.status_code == 200, answer.text
    return answer.json()


def _accounts(api):
    api.call("GET", "/auth")
    api.call("GET", "/users/me")
    api.call("GET", "/users/me/organizations")
    api.call("GET", "/regions")
    api.call("GET", "/regions?org_id=%s" % ORG)
    api.call("GET", "/regions?org_id=Not_An_Id", expect=400)
    made = api.call("POST", "/api_keys", json={"key_name": "conformance"})
    api.call("GET", "/api_keys")
    api.call("DELETE", "/api_keys/%d" % made["id"])


def _organization(api):
    api.call("GET", "/organizations/%s" % ORG)
    made = api.call("POST", "/organizations/%s/api_keys" % ORG, json={"key_name": "ci"})
    api.call("GET", "/organizations/%s/api_keys" % ORG)
    api.call("DELETE", "/organizations/%s/api_keys/%d" % (ORG, made["id"]))
    members = api.call("GET", "/organizations/%s/members" % ORG)["members"]
    riley = next(m["member"]["id"] for m in members if m["user"]["email"] == "riley@example.com")
    api.call("GET", "/organizations/%s/members/%s" % (ORG, riley))
    api.call("PATCH", "/organizations/%s/members/%s" % (ORG, riley), json={"role": "admin"})
    api.call("DELETE", "/organizations/%s/members/%s" % (ORG, riley))
    api.call("POST", "/organizations/%s/invitations" % ORG,
             json={"invitations": [{"email": "newcomer@example.com", "role": "member"}]})
    api.call("POST", "/organizations/%s/invitations" % ORG,
             json={"invitations": [{"email": "riley@example.com", "role": "admin"}]})
    api.call("PATCH", "/organizations/%s/members/%s" % (ORG, riley), json={"role": "owner"}, expect=400)
    api.call("GET", "/organizations/%s/invitations" % ORG)


def _projects(api):
    """A project of the organization (a paid plan: networking, snapshots), and a personal one deleted."""
    api.call("GET", "/projects")
    api.call("GET", "/projects?org_id=%s&limit=2" % ORG)
    api.call("GET", "/projects/shared")
    settings = {"allowed_ips": {"ips": ["192.0.2.0/24"], "protected_branches_only": False},
                "quota": {"active_time_seconds": 360000, "logical_size_bytes": 10 ** 10},
                "maintenance_window": {"weekdays": [6], "start_time": "01:00", "end_time": "02:00"},
                "preload_libraries": {"use_defaults": False, "enabled_libraries": ["pg_cron"]},
                "audit_log_level": "extended"}
    made = api.call("POST", "/projects", expect=201,
                    json={"project": {"name": "conformance", "region_id": REGION, "org_id": ORG, "settings": settings,
                                      "default_endpoint_settings": {"autoscaling_limit_max_cu": 2}}})
    api.settle()
    pid = made["project"]["id"]
    api.call("GET", "/projects/%s" % pid)
    api.call("PATCH", "/projects/%s" % pid, json={"project": {"name": "conformance-2"}})
    replication = {"history_retention_seconds": 172800, "settings": {"enable_logical_replication": True}}
    api.call("PATCH", "/projects/%s" % pid, json={"project": replication})
    api.settle()
    api.call("PATCH", "/projects/%s" % pid, json={"project": {"bogus": 1, "history_retention_seconds": -1}},
             expect=400)
    org_key = api.call("POST", "/organizations/%s/api_keys" % ORG, json={"key_name": "lister"})["key"]
    api.call("GET", "/projects", key=org_key)
    api.call("GET", "/projects/shared", key=org_key)
    api.call("GET", "/users/me", key=org_key, expect=403)
    api.call("GET", "/projects/%s/available_preload_libraries" % pid)
    api.sim.script_operations("apply_config", outcome="failed", error="config did not apply", project_id=pid)
    api.call("POST", "/projects/%s/branches/%s/roles" % (pid, made["branch"]["id"]), expect=201,
             json={"role": {"name": "failing"}})
    api.settle()
    api.sim.script_operations("*", hold=True, project_id=pid)
    held = api.call("POST", "/projects/%s/branches/%s/roles" % (pid, made["branch"]["id"]), expect=201,
                    json={"role": {"name": "held"}})
    api.call("POST", "/projects/%s/branches" % pid, expect=423)  # GeneralError, by default
    operations = api.call("GET", "/projects/%s/operations?limit=5" % pid)["operations"]
    api.call("GET", "/projects/%s/operations?limit=5&cursor=%s" % (pid, operations[-1]["created_at"]))
    api.sim.release_operations(pid)
    api.settle()
    for operation in operations[:3] + held["operations"]:
        api.call("GET", "/projects/%s/operations/%s" % (pid, operation["id"]))
    api.call("GET", "/projects/%s/operations?limit=1000" % pid)
    api.call("GET", "/projects/young-forest-83025174/operations")  # a seeded project of ORG without operations
    api.call("GET", "/projects/%s" % "no-such-project-1", expect=404)  # an error: GeneralError, by default
    throwaway = api.call("POST", "/projects", expect=201, json={"project": {"name": "throwaway"}})
    api.settle()
    api.call("DELETE", "/projects/%s" % throwaway["project"]["id"])
    api.call("GET", "/projects?recoverable=true")  # the deleted one, with deleted_at and recoverable_until
    api.call("POST", "/projects/%s/recover" % throwaway["project"]["id"])
    api.settle()
    api.call("POST", "/projects/%s/recover" % throwaway["project"]["id"], expect=409)  # not deleted any more
    api.call("DELETE", "/projects/%s" % throwaway["project"]["id"])
    grant = api.call("POST", "/projects/%s/permissions" % pid, json={"email": "partner@example.com"})
    api.call("GET", "/projects/%s/permissions" % pid)
    api.call("DELETE", "/projects/%s/permissions/%s" % (pid, grant["id"]))
    return made


def _branches(api, pid, main):
    base = "/projects/%s" % pid
    dev = api.call("POST", base + "/branches", expect=201,
                   json={"branch": {"name": "dev"}, "endpoints": [{"type": "read_write"}]})["branch"]["id"]
    api.settle()
    api.call("GET", base + "/branches")
    api.call("GET", base + "/branches?limit=1&sort_by=name&sort_order=asc")
    api.call("GET", base + "/branches/count")
    api.call("GET", base + "/branches/%s" % dev)
    api.call("PATCH", base + "/branches/%s" % dev, json={"branch": {"name": "develop"}})
    api.call("GET", base + "/branches/%s/endpoints" % dev)
    api.call("GET", base + "/connection_uri?database_name=neondb&role_name=neondb_owner&branch_id=%s" % dev)
    api.call("POST", base + "/branches", expect=409, json={"branch": {"name": "develop"}})
    before = write_rows(api.sim, pid, main, "orders", [{"id": 1, "total": 10}], {"id": "bigint", "total": "numeric"})
    api.sim.advance_clock(5)
    write_rows(api.sim, pid, main, "customers", [{"id": 1, "name": "Ada"}], {"id": "bigint", "name": "text"})
    api.call("POST", base + "/branches/%s/restore" % dev, json={"source_branch_id": main})
    api.settle()
    api.call("POST", base + "/branches/%s/restore" % dev, json={"source_branch_id": dev, "preserve_under_name": "kept",
                                                                "source_timestamp": before["timestamp"]})
    api.settle()
    api.call("GET", base + "/branches/%s/schema?db_name=neondb" % main)
    api.call("GET", base + "/branches/%s/schema?db_name=neondb&format=json" % main)
    api.call("GET", base + "/branches/%s/schema?db_name=neondb&lsn=%s" % (main, before["lsn"]))
    api.call("GET", base + "/branches/%s/compare_schema?db_name=neondb&base_branch_id=%s" % (dev, main))
    api.call("GET", base + "/branches/%s/compare_schema?db_name=neondb" % dev)
    api.call("GET", base + "/branches/%s/schema?db_name=nodb" % main, expect=404)
    soon = iso(api.sim.state.clock.time() + 86400)
    expiring = api.call("POST", base + "/branches", expect=201, json={"branch": {"name": "ttl", "expires_at": soon}})
    api.settle()
    guarded = {"branch": {"name": "guarded", "protected": True}, "endpoints": [{"type": "read_only"}]}
    api.call("POST", base + "/branches", expect=201, json=guarded)
    api.settle()
    api.call("POST", base + "/branches", expect=201, json={"branch": {"name": "layout", "init_source": "schema-only"}})
    api.settle()
    api.call("GET", base + "/branches/%s" % expiring["branch"]["id"])
    api.call("PATCH", base + "/branches/%s" % expiring["branch"]["id"], json={"branch": {"expires_at": None}})
    api.call("GET", base + "/branches?search=e&sort_by=created_at")
    api.call("GET", base + "/branches?search=nothing-matches")
    api.call("POST", base + "/branches/%s/set_as_default" % dev)
    api.call("POST", base + "/branches/%s/set_as_default" % main)
    scratch = api.call("POST", base + "/branches", expect=201)["branch"]["id"]
    api.settle()
    api.call("DELETE", base + "/branches/%s" % scratch)
    api.settle()
    api.call("DELETE", base + "/branches/%s" % scratch, expect=204)
    api.call("GET", base + "/branches?include_deleted=true")  # scratch with its recovery
    api.call("POST", base + "/branches/%s/recover" % scratch)
    api.settle()
    api.call("POST", base + "/branches/%s/recover" % scratch, expect=409)  # not deleted any more
    api.call("POST", base + "/branches/br-never-deleted-000000/recover", expect=404)
    api.call("DELETE", base + "/branches/%s" % scratch)
    api.settle()
    return dev


def _computes(api, pid, dev):
    base = "/projects/%s" % pid
    api.call("GET", base + "/endpoints")
    endpoint = api.call("POST", base + "/endpoints", expect=201, json={"endpoint": {
        "branch_id": dev, "type": "read_only", "pooler_enabled": True, "autoscaling_limit_min_cu": 0.5,
        "autoscaling_limit_max_cu": 2, "settings": {"pg_settings": {"work_mem": "8MB"}}}})["endpoint"]["id"]
    api.call("POST", base + "/endpoints", expect=409, json={"endpoint": {"branch_id": dev, "type": "read_write"}})
    api.settle()
    path = base + "/endpoints/%s" % endpoint
    api.call("GET", path)
    api.call("PATCH", path, json={"endpoint": {"suspend_timeout_seconds": 600}})
    api.settle()
    for action in ("suspend", "start", "restart"):
        api.call("POST", path + "/" + action)
        api.settle()
    api.call("DELETE", path)
    api.settle()
    api.call("DELETE", path, expect=204)


def _roles_databases(api, pid, main):
    branch = "/projects/%s/branches/%s" % (pid, main)
    api.call("GET", branch + "/roles")
    api.call("POST", branch + "/roles", expect=201, json={"role": {"name": "app"}})
    api.settle()
    api.call("GET", branch + "/roles/app")
    api.call("GET", branch + "/roles/app/reveal_password")
    api.call("POST", branch + "/roles/app/reset_password")
    api.settle()
    api.call("GET", branch + "/databases")
    api.call("POST", branch + "/databases", expect=201, json={"database": {"name": "shop", "owner_name": "app"}})
    api.settle()
    api.call("GET", branch + "/databases/shop")
    api.call("PATCH", branch + "/databases/shop", json={"database": {"owner_name": "neondb_owner"}})
    api.settle()
    api.call("DELETE", branch + "/databases/shop")
    api.settle()
    api.call("DELETE", branch + "/databases/shop", expect=204)
    api.call("DELETE", branch + "/roles/app")
    api.settle()
    api.call("DELETE", branch + "/roles/app", expect=204)


def _networking(api, pid):
    region = "/organizations/%s/vpc/region/%s/vpc_endpoints" % (ORG, REGION)
    api.call("POST", region + "/" + VPCE, json={"label": "prod vpc"})
    api.call("GET", region)
    api.call("GET", region + "/" + VPCE)
    api.call("GET", "/organizations/%s/vpc/vpc_endpoints" % ORG)
    api.call("POST", "/projects/%s/vpc_endpoints/%s" % (pid, VPCE), json={"label": "prod vpc"})
    api.call("GET", "/projects/%s/vpc_endpoints" % pid)
    api.call("DELETE", "/projects/%s/vpc_endpoints/%s" % (pid, VPCE))
    api.call("DELETE", region + "/" + VPCE)


def _snapshots(api, pid, main):
    base = "/projects/%s" % pid
    snapshot = api.call("POST", base + "/branches/%s/snapshot?name=before" % main)["snapshot"]["id"]
    api.settle()
    api.call("GET", base + "/snapshots")
    api.call("PATCH", base + "/snapshots/%s" % snapshot, json={"snapshot": {"name": "before-migration"}})
    expiry = {"name": "before-migration", "expires_at": "2099-01-01T00:00:00Z"}
    assert api.call("PATCH", base + "/snapshots/%s" % snapshot, json={"snapshot": expiry})["snapshot"]["expires_at"] \
        == "2099-01-01T00:00:00Z"
    assert "expires_at" not in api.call("PATCH", base + "/snapshots/%s" % snapshot,
                                        json={"snapshot": {"expires_at": None}})["snapshot"]
    restored = api.call("POST", base + "/snapshots/%s/restore" % snapshot,
                        json={"name": "rolled-back", "finalize_restore": False})["branch"]["id"]
    api.settle()
    api.call("POST", base + "/branches/%s/finalize_restore" % restored, json={})
    api.settle()
    api.call("GET", base + "/branches/%s/backup_schedule" % restored)
    api.call("PUT", base + "/branches/%s/backup_schedule" % restored,
             json={"schedule": [{"frequency": "daily", "hour": 2, "retention_seconds": 604800}]})
    api.call("DELETE", base + "/snapshots/%s" % snapshot, expect=202)
    api.settle()
    again = api.call("POST", base + "/branches/%s/snapshot?name=nightly" % main)["snapshot"]["id"]
    api.settle()
    api.call("POST", base + "/snapshots/%s/restore" % again, json={"finalize_restore": True, "target_branch_id": main})
    api.settle()
    api.call("GET", base + "/snapshots")
    api.call("GET", base + "/branches")


def _consumption(api, pid):
    now = api.sim.state.clock.time()
    span = {"from": iso(now - 2 * 86400), "to": iso(now), "granularity": "daily", "org_id": ORG}
    api.call("GET", "/consumption_history/account", params=span)
    api.call("GET", "/consumption_history/account", params=dict(span, granularity="hourly", **{"from": iso(now - 6 * 3600)}))
    metrics = "active_time_seconds,data_storage_bytes_hour"
    api.call("GET", "/consumption_history/account", params=dict(span, granularity="monthly", metrics=metrics))
    api.call("GET", "/consumption_history/projects", params=dict(span, project_ids=pid, limit=5))
    api.call("GET", "/consumption_history/projects", params=dict(span, limit=1))
    api.call("GET", "/consumption_history/account", params=dict(span, granularity="weekly"), expect=400)
    current = "compute_unit_seconds,root_branch_bytes_month,extra_branches_month"
    page = api.call("GET", "/consumption_history/v2/projects", params=dict(span, metrics=current, limit=2))
    api.call("GET", "/consumption_history/v2/projects", params=dict(span, metrics=current, limit=2,
                                                                    cursor=page["pagination"]["cursor"]))
    api.call("GET", "/consumption_history/v2/projects", params=dict(span, metrics="compute_unit_seconds",
                                                                    project_ids=pid, granularity="hourly",
                                                                    **{"from": iso(now - 6 * 3600)}))
    branches = api.call("GET", "/consumption_history/v2/branches",
                        params=dict(span, metrics="compute_unit_seconds,public_network_transfer_bytes", project_ids=pid,
                                    limit=1))
    api.call("GET", "/consumption_history/v2/branches", params=dict(
        span, metrics="compute_unit_seconds", project_ids=pid, cursor=branches["pagination"]["cursor"]))
    api.call("GET", "/consumption_history/v2/branches", params=dict(span, metrics="compute_unit_seconds"), expect=400)


def _data_api_and_jwks(api, pid, main):
    """The Data API and JWKS operations (data_api.py; tests/test_neon_auth.py drives the branch-scoped Neon Auth
    routes and checks their answers against the document too)."""
    path = "/projects/%s/branches/%s/data-api/neondb" % (pid, main)
    api.call("POST", path, expect=201, json={"auth_provider": "external", "jwks_url": "https://id.example.com/jwks"})
    api.call("GET", path)
    api.call("PATCH", path, expect=201, json={"settings": {"db_max_rows": 100}})
    api.call("DELETE", path)
    added = api.call("POST", "/projects/%s/jwks" % pid, expect=201,
                     json={"jwks_url": "https://id.example.com/jwks", "provider_name": "Clerk"})
    api.call("GET", "/projects/%s/jwks" % pid)
    api.call("DELETE", "/projects/%s/jwks/%s" % (pid, added["jwks"]["id"]))


def _advisors(api, pid):
    """A project's advisor issues (advisors.py), some set through the control route, read whole and filtered."""
    issues = [{"level": "ERROR"}, {"name": "unindexed_fk", "level": "WARN", "categories": ["PERFORMANCE"]}]
    requests.post(api.sim.control_url + "/projects/%s/advisors" % pid, json={"issues": issues}, timeout=10)
    api.call("GET", "/projects/%s/advisors" % pid)
    api.call("GET", "/projects/%s/advisors" % pid, params={"min_severity": "WARN", "category": "PERFORMANCE"})
    api.call("GET", "/projects/%s/advisors" % pid, params={"min_severity": "ERROR", "category": "SECURITY",
                                                           "database_name": "neondb"})


def _spending_limit(api):
    """The organization's spending limit (billing.py): none, set, read, removed, removed again (idempotent)."""
    path = "/organizations/%s/billing/spending_limit" % ORG
    api.call("GET", path)
    api.call("PUT", path, json={"spending_limit_cents": 150000})
    api.call("GET", path)
    api.call("PUT", path, expect=400, json={"spending_limit_cents": 0})
    api.call("DELETE", path)
    api.call("DELETE", path)


def _anonymized(api, pid, main):
    """The five anonymized branch operations (anonymized.py): a branch made with rules and a run started with it,
    its status through each state, the rules read and replaced, a run started again, one scripted to fail, and
    the refusals (a branch that is not anonymized, a run while one goes on, a rule without a function or value)."""
    write_rows(api.sim, pid, main, "users", [{"id": 1, "email": "ada@example.com", "phone": "+44 20 7946 0000"}],
               {"id": "bigint", "email": "text", "phone": "text"})
    email = {"database_name": "neondb", "schema_name": "public", "table_name": "users", "column_name": "email",
             "masking_function": "anon.fake_email()"}
    made = api.call("POST", "/projects/%s/branch_anonymized" % pid, expect=201, json={
        "branch_create": {"branch": {"parent_id": main, "name": "masked"}, "endpoints": [{"type": "read_write"}]},
        "masking_rules": [email], "start_anonymization": True, "annotation_value": {"purpose": "pr-7"}})
    base = "/projects/%s/branches/%s" % (pid, made["branch"]["id"])
    assert api.call("GET", base + "/anonymized_status")["state"] == "created"
    api.sim.advance_clock(2.5)
    assert api.call("GET", base + "/anonymized_status")["state"] == "anonymizing"
    api.settle()
    assert api.call("GET", base + "/anonymized_status")["state"] == "anonymized"
    api.call("GET", base + "/masking_rules")
    phone = dict({name: email[name] for name in ("database_name", "schema_name", "table_name")},
                 column_name="phone", masking_value="REDACTED")
    api.call("PATCH", base + "/masking_rules", json={"masking_rules": [phone, email]})
    assert api.call("POST", base + "/anonymize")["state"] == "anonymizing"
    api.call("POST", base + "/anonymize", expect=409)  # a run goes on
    api.settle()
    api.sim.script_anonymization(outcome="error", message="masking failed on neondb.public.users")
    api.call("POST", base + "/anonymize")
    api.settle()
    assert api.call("GET", base + "/anonymized_status")["state"] == "error"
    plain = "/projects/%s/branches/%s" % (pid, main)
    api.call("GET", plain + "/anonymized_status", expect=404)
    api.call("GET", plain + "/masking_rules", expect=404)
    api.call("PATCH", base + "/masking_rules", json={"masking_rules": [dict(phone, masking_value=None)]},
             expect=400)  # neither a function nor a value
    bare = api.call("POST", "/projects/%s/branch_anonymized" % pid, expect=201, json={})  # from the default branch
    api.settle()
    assert api.call("GET", "/projects/%s/branches/%s/anonymized_status" % (pid, bare["branch"]["id"]))["state"] \
        == "initialized"


def _transfers(api):
    """Projects moved between organizations (transfers.py): two of the seeded organization's into a new one, more than
    400 ids refused; one project moved by a request that the destination's organization key accepts."""
    destination = api.sim.create_organization(name="conformance-destination", admins=["bootstrap"])["id"]
    moved = [api.sim.create_project(name="moved-%d" % number, org_id=ORG)["id"] for number in range(2)]
    path = "/organizations/%s/projects/transfer" % ORG
    api.call("POST", path, json={"destination_org_id": destination, "project_ids": moved})
    api.call("POST", path, expect=400, json={"destination_org_id": destination, "project_ids": moved * 201})
    api.call("POST", path, expect=409, json={"destination_org_id": destination, "project_ids": moved})
    lower = api.sim.create_organization(name="conformance-launch", plan="launch", admins=["bootstrap"])["id"]
    one = api.sim.create_project(name="requested", org_id=ORG)["id"]
    api.call("POST", path, expect=406, json={"destination_org_id": lower, "project_ids": [one]})
    made = api.call("POST", "/projects/%s/transfer_requests" % one, expect=201, json={"ttl_seconds": 3600})
    accept = "/projects/%s/transfer_requests/%s" % (one, made["id"])
    api.call("PUT", accept, expect=406, json={"org_id": lower})
    destination_key = api.sim.create_key("organization", org_id=destination, name="destination")["key"]
    api.call("PUT", accept, expect=204, key=destination_key, json={})
    api.call("PUT", accept, expect=404, key=destination_key, json={})


def _neon_auth(api, pid, main):
    """The 28 branch-scoped Neon Auth operations (neon_auth.py), enabled to disabled; tests/test_neon_auth.py holds
    their refusals."""
    base = "/projects/%s/branches/%s/auth" % (pid, main)
    api.call("POST", base, expect=201, json={"auth_provider": "better_auth"})
    api.call("GET", base)
    api.call("POST", base + "/domains", expect=201, json={"domain": "https://pr-7.example.com", "auth_provider": "better_auth"})
    api.call("GET", base + "/domains")
    api.call("DELETE", base + "/domains", json={"auth_provider": "better_auth", "domains": [{"domain": "https://pr-7.example.com"}]})
    api.call("GET", base + "/oauth_providers")
    api.call("POST", base + "/oauth_providers", json={"id": "microsoft", "client_id": "cid", "client_secret": "s3cret",
                                                      "microsoft_tenant_id": "t"})
    api.call("PATCH", base + "/oauth_providers/microsoft", json={"client_id": "cid2"})
    api.call("DELETE", base + "/oauth_providers/microsoft")
    user = api.call("POST", base + "/users", expect=201, json={"email": "ada@example.com", "name": "Ada"})
    api.call("PUT", base + "/users/%s/role" % user["id"], json={"roles": ["admin"]})
    api.call("DELETE", base + "/users/%s" % user["id"], expect=204)
    api.call("GET", base + "/email_and_password")
    api.call("PATCH", base + "/email_and_password", json={"disable_sign_up": True})
    smtp = {"type": "standard", "host": "smtp.example.com", "port": 587, "username": "u", "password": "p",
            "sender_email": "auth@example.com", "sender_name": "Shop"}
    api.call("GET", base + "/email_provider")
    api.call("PATCH", base + "/email_provider", json=smtp)
    api.call("GET", base + "/allow_localhost")
    api.call("PATCH", base + "/allow_localhost", json={"allow_localhost": False})
    api.call("GET", base + "/plugins")
    api.call("PATCH", base + "/plugins/organization", json={"creator_role": "admin"})
    api.call("PATCH", base + "/config", json={"name": "Shop"})
    api.call("PATCH", base + "/plugins/magic-link", json={"enabled": True})
    api.call("GET", base + "/plugins/phone-number")
    api.call("PATCH", base + "/plugins/phone-number", json={"enabled": True})
    api.call("GET", base + "/webhooks")
    api.call("PUT", base + "/webhooks", json={"enabled": True, "webhook_url": "https://hooks.example.com/auth",
                                              "enabled_events": ["user.created"]})
    api.call("POST", base + "/send_test_email", json=dict(smtp, recipient_email="ops@example.com"))
    api.call("DELETE", base, json={"delete_data": True})


def _probe(api, operation, ids):
    """A request for an operation the scenario did not drive, its path filled with the scenario's ids."""
    path = re.sub(r"\{([a-z_]+)\}", lambda match: ids.get(match.group(1), "x1"), operation.template)
    body = {} if operation.method in ("POST", "PUT", "PATCH") else None
    response = requests.request(operation.method, api.sim.url + path, json=body, timeout=10,
                                headers={"Authorization": "Bearer " + API_KEY})
    return operation.method, path, response.status_code, response.content, response.headers


@pytest.fixture(scope="module", name="answers")
def answers_fixture(server):
    """The scenario's answers (operation id -> [(method, path, status, body, headers)]), the probes' of the operations it
    did not drive, and the undocumented routes' answers."""
    server.reset()
    api = Client(server)
    started = time.monotonic()
    _accounts(api)
    _organization(api)
    made = _projects(api)
    pid, main = made["project"]["id"], made["branch"]["id"]
    dev = _branches(api, pid, main)
    _computes(api, pid, dev)
    _roles_databases(api, pid, main)
    _networking(api, pid)
    _snapshots(api, pid, main)
    _consumption(api, pid)
    _data_api_and_jwks(api, pid, main)
    _neon_auth(api, pid, main)
    _advisors(api, pid)
    _anonymized(api, pid, main)
    _transfers(api)
    _spending_limit(api)
    ids = {"project_id": pid, "branch_id": main, "database_name": "neondb", "role_name": "neondb_owner",
           "org_id": ORG, "source_org_id": ORG, "region_id": REGION}
    probes = {op.operation_id: _probe(api, op, ids) for op in DOCUMENT.operations()
              if op.operation_id not in api.answers}
    result = {"answers": api.answers, "requests": api.requests, "probes": probes, "extras": api.extras,
              "seconds": time.monotonic() - started}
    server.reset()
    return result


# ---------------------------------------------------------------------- the checks
def _operation_cases():
    cases = []
    for operation in DOCUMENT.operations():
        marks = []
        if operation.operation_id in KNOWN_NONCONFORMANCE:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_NONCONFORMANCE[operation.operation_id]))
        cases.append(pytest.param(operation, id=operation.operation_id, marks=marks))
    return cases


@pytest.mark.parametrize("operation", _operation_cases())
def test_operation(answers, operation):
    """Served: every answer conforms, every request taken is a documented one, and one answer at least is a success;
    not served: 501 naming the operation."""
    recorded = answers["answers"].get(operation.operation_id, [])
    problems = ["%s %s: %s" % (method, path, problem) for method, path, status, body, headers in recorded
                for problem in answer_problems(operation, status, body, headers)]
    assert not problems, "\n".join(problems)
    problems = ["%s %s: %s" % (method, path, problem) for method, path, status, query, sent
                in answers["requests"].get(operation.operation_id, []) if 200 <= status < 300
                for problem in request_problems(operation, query, sent)]
    assert not problems, "requests the document does not allow:\n" + "\n".join(problems)
    if any(200 <= status < 300 for _method, _path, status, _body, _headers in recorded):
        return
    assert not recorded, "the scenario drove %s but had no success answer" % operation
    method, path, status, body, headers = answers["probes"][operation.operation_id]
    assert status == 501, ("%s %s answered %d, not 501: a served operation the scenario does not drive yet (add it "
                           "to the scenario)" % (method, path, status))
    assert not answer_problems(operation, status, body, headers)  # a GeneralError, by `default`
    error = json.loads(body)
    assert error["code"] == "NOT_SIMULATED"
    named = "%s (%s %s)" % (operation.operation_id, operation.method, operation.template)
    assert error["message"] == named + " is not simulated"
    assert isinstance(error.get("request_id"), str) and error["request_id"]


def _fields(body, where):
    """The field names at ``where`` of an answer: "" the answer, "x" the object x, "x[]" every item of list x."""
    if where == "":
        return [set(body)]
    if where == "[]":
        return [set(item) for item in body]
    if where.endswith("[]"):
        return [set(item) for item in body.get(where[:-2], [])]
    return [set(body.get(where) or {})]


def _recorded_cases():
    return [pytest.param(operation_id, id=operation_id, marks=[pytest.mark.xfail(
        strict=True, reason=KNOWN_UNRECORDED[operation_id])] if operation_id in KNOWN_UNRECORDED else [])
        for operation_id in RECORDED]


@pytest.mark.parametrize("operation_id", _recorded_cases())
def test_recorded_live_fields(answers, operation_id):
    """Each field the live service was recorded sending in an answer is in the simulator's successes too."""
    successes = [json.loads(body) for _method, _path, status, body, _headers
                 in answers["answers"].get(operation_id, []) if 200 <= status < 300 and body]
    # comparable: every list the recordings name has items, as in the recordings (an empty page has no cursor)
    lists = [where for where in RECORDED[operation_id] if where.endswith("[]")]
    comparable = [body for body in successes if all(_fields(body, where) for where in lists)]
    assert comparable, "the scenario has no success answer of %s like the recorded ones" % operation_id
    missing = set()
    for body in comparable:
        for where, fields in RECORDED[operation_id].items():
            for present in _fields(body, where):
                missing.update("%s.%s" % (where or "(answer)", field) for field in fields if field not in present)
    assert not missing, "left out: %s" % ", ".join(sorted(missing))


def test_routes_are_documented(server):
    """Every /api/v2 route the simulator serves is an operation of the document, or a known newer one."""
    undocumented = set()
    for rule in server.app.api_map.iter_rules():
        template = re.sub(r"<[^>]+>", "{}", rule.rule[len("/api/v2"):])
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            operation, _methods = DOCUMENT.match(method, template.replace("{}", "x1"))
            if operation is None:
                undocumented.add((method, template))
    assert undocumented == UNDOCUMENTED_ROUTES


def test_the_scenario_uses_only_documented_routes(answers):
    """Every request of the scenario names an operation of the document (so every answer is checked)."""
    assert [(method, path) for method, path, _status, _body, _headers in answers["extras"]] == []


def test_the_scenario_is_quick(answers):
    """The scenario and its probes stay well within the suite's budget (issue 32: under about 20 s)."""
    assert answers["seconds"] < 15, answers["seconds"]


def test_a_documented_path_with_another_method_is_405_and_an_undocumented_path_404(sim):
    api = Client(sim)
    headers = {"Authorization": "Bearer " + API_KEY}
    jwks = requests.request("PUT", sim.url + "/projects/%s/jwks" % sim.demo_project_id, headers=headers, timeout=10)
    assert jwks.status_code == 405 and jwks.headers["Allow"] == "GET, HEAD, POST"
    assert jwks.json()["message"] == "method PUT not allowed"
    nowhere = requests.get(sim.url + "/projects/%s/no_such_thing" % sim.demo_project_id, headers=headers, timeout=10)
    assert nowhere.status_code == 404 and nowhere.json()["message"] == "not found"
    unauthenticated = requests.get(sim.url + "/projects/%s/jwks" % sim.demo_project_id, timeout=10)
    assert unauthenticated.status_code == 401  # the key is checked before anything else
    # a documented operation not served (the project-level Neon Auth ones, deprecated in the June 2026 document)
    assert api.call("GET", "/projects/%s/auth/integrations" % sim.demo_project_id, expect=501)["code"] == "NOT_SIMULATED"


def test_the_schema_check_catches_what_it_should():
    """The validator itself: a missing required field, a wrong type, a bad date-time, null where it is not
    nullable are each reported; null where the document says nullable is not."""
    branch = {"$ref": "#/components/schemas/Branch"}
    good = {"id": "br-a-1", "project_id": "p-1", "name": "main", "current_state": "ready",
            "state_changed_at": "2025-01-16T21:02:01Z", "creation_source": "console", "created_at": "2025-01-16T21:02:01Z",
            "updated_at": "2025-01-16T21:02:01Z", "default": True, "protected": False, "cpu_used_sec": 0,
            "active_time_seconds": 0, "compute_time_seconds": 0, "written_data_bytes": 0, "data_transfer_bytes": 0}
    assert schema_problems(branch, good) == []
    assert any("'name' is a required property" in p for p in schema_problems(branch, {k: v for k, v in good.items()
                                                                                      if k != "name"}))
    assert any("is not of type 'boolean'" in p for p in schema_problems(branch, dict(good, default="yes")))
    assert any("date-time" in p for p in schema_problems(branch, dict(good, created_at="2025-01-16 21:02")))
    assert schema_problems(branch, dict(good, parent_id=None))  # not nullable
    nullable = [(name, field) for name, schema in DOCUMENT.data["components"]["schemas"].items()
                for field, sub in (schema.get("properties") or {}).items() if sub.get("nullable") is True]
    assert nullable, "the document has nullable fields"
    name, field = nullable[0]
    assert not [p for p in schema_problems({"$ref": "#/components/schemas/" + name}, {field: None}) if field in p]


def test_the_body_check_holds_a_success_without_content_to_no_body_and_the_reverse():
    """The check of ``test_operation`` itself: where the document gives a success no content, a body (even ``{}``),
    a Content-Length or a JSON content type is reported; where it gives content, an empty answer is."""
    assign, = [op for op in DOCUMENT.operations() if op.method == "POST"
               and op.template == "/projects/{project_id}/vpc_endpoints/{vpc_endpoint_id}"]
    listing, = [op for op in DOCUMENT.operations() if op.method == "GET"
                and op.template == "/projects/{project_id}/vpc_endpoints"]
    none = requests.structures.CaseInsensitiveDict({"Content-Length": "0"})
    json_type = requests.structures.CaseInsensitiveDict({"Content-Type": "application/json", "Content-Length": "2"})
    assert answer_problems(assign, 200, b"", none) == []
    assert answer_problems(assign, 200, b"{}", json_type) == [
        "status 200 documents no content, answered a body: b'{}'", "status 200 documents no content, answered "
        "Content-Length 2", "status 200 documents no content, answered Content-Type application/json"]
    assert answer_problems(listing, 200, b"", none) == ["status 200 documents content, answered no body"]
    assert answer_problems(listing, 200, b'{"endpoints": []}', json_type) == []
    assert answer_problems(listing, 200, b'{"endpoints": []}', requests.structures.CaseInsensitiveDict(
        {"Content-Type": "text/plain"})) == ["status 200 documents JSON, answered Content-Type 'text/plain'"]


def test_the_request_check_catches_what_it_should():
    """The request check of ``test_operation`` itself: an undocumented or missing required query parameter, a value
    its schema refuses, a body the request schema refuses, and a missing required body are each reported."""
    def operation(method, template):
        found, = [op for op in DOCUMENT.operations() if op.method == method and op.template == template]
        return found

    per_project = operation("GET", "/consumption_history/v2/projects")
    good = {"from": ["2026-06-01T00:00:00Z"], "to": ["2026-06-02T00:00:00Z"], "granularity": ["daily"],
            "org_id": ["org-a-1"], "metrics": ["compute_unit_seconds,root_branch_bytes_month"]}
    assert request_problems(per_project, good, None) == []
    assert request_problems(per_project, dict(good, bogus=["1"]), None) == ["query parameter bogus is not documented"]
    assert request_problems(per_project, {k: v for k, v in good.items() if k != "org_id"}, None) == [
        "query parameter org_id is required"]
    assert request_problems(per_project, dict(good, granularity=["weekly"]), None)
    member = operation("PATCH", "/organizations/{org_id}/members/{member_id}")
    assert request_problems(member, {}, {"role": "viewer"}) == []
    assert request_problems(member, {}, {"role": "owner"})
    assert request_problems(member, {}, None) == ["no body, where the document requires one"]
