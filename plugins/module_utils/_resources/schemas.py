# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A database's schema on a branch, now or at a point of its history, and the difference between two
(``neon.cloud.branch_schema_info``).

The service answers a database's schema as pg_dump-style SQL or as JSON tables
(``GET .../branches/{id}/schema``), and compares two branches' schemas itself
(``GET .../branches/{id}/compare_schema``: a unified diff, empty or absent when they are the same;
docs/docsite/rst/api-behaviour.rst, "Restore, default branch and schema"). Both are reads; each
answer is checked before it is used; ``diff_result`` (pure) is what a playbook asserts on. A point of a
branch's history is checked before any request and sent in its canonical form (_api/points.py);
``schema_info`` is the whole of what the module does.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.points import lsn_as_sent, point_problem, timestamp_as_sent
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import choose_branch, list_branches

SQL = "sql"
JSON = "json"
FORMATS = (SQL, JSON)
# What a JSON schema is checked for (SPEC BranchSchemaJSON): tables, each with its schema, name and columns.
TABLE_FIELDS = dict(required={"schema": (str,), "name": (str,), "columns": (list,)})
COLUMN_FIELDS = dict(required={"name": (str,), "type": (str,)})


def schema_input_problem(timestamp=None, lsn=None, compare_to=None):
    """Why the points asked (``timestamp`` or ``lsn``, and ``compare_to``'s) cannot be sent, or None: checked
    before any request."""
    problem = point_problem("timestamp", timestamp, "lsn", lsn)
    if problem is None and compare_to:
        problem = point_problem("compare_to.timestamp", compare_to.get("timestamp"), "compare_to.lsn",
                                compare_to.get("lsn"))
    return problem


def point_params(timestamp=None, lsn=None, prefix=""):
    """The query parameters of a point of a branch's history (none: its head), in the form the collection sends
    them (UTC ending in Z, an LSN as PostgreSQL writes it); the client leaves out those that are None."""
    return {prefix + "timestamp": timestamp_as_sent(timestamp), prefix + "lsn": lsn_as_sent(lsn)}


def schema_answer(data, path, schema_format):
    """The ``sql`` (a string) or ``json`` (``{"tables": [...]}``) a schema answer holds, checked. An answer without
    it is an empty schema (the SPEC marks both optional; the vendor's CLI reads a missing ``sql`` as "")."""
    check = answers.Checker("GET", path)
    check.fields(data, "the answer", optional={SQL: (str,), JSON: (dict,)})
    if schema_format == SQL:
        return data.get(SQL, "")
    schema = data.get(JSON, {"tables": []})
    tables = check.each(check.list(schema.get("tables", []), "json.tables"), "json.tables", **TABLE_FIELDS)
    for index, table in enumerate(tables):
        check.each(table["columns"], "json.tables[%d].columns" % index, **COLUMN_FIELDS)
    return {"tables": tables}


def diff_result(data, path):
    """``schema_diff`` (the service's unified ``diff``, "" when the schemas are the same) and ``differs`` of a
    compare_schema answer, checked: an absent, null or blank diff means the same schema. (Not ``diff``: Ansible
    takes a result's ``diff`` for the before and after of a task's --diff output.)"""
    check = answers.Checker("GET", path)
    check.fields(data, "the answer", optional={"diff": (str, type(None))})
    diff = data.get("diff") or ""
    return {"schema_diff": diff, "differs": bool(diff.strip())}


def read_schema(client, project_id, branch_id, database, timestamp=None, lsn=None, schema_format=SQL):
    """The schema of ``database`` on the branch, at a point (None: now), as SQL text or JSON tables: one request."""
    path = project_path(project_id, "branches", branch_id, "schema")
    params = dict(point_params(timestamp, lsn), db_name=database, format=schema_format)
    return schema_answer(client.get(path, params=params), path, schema_format)


def compare_schemas(client, project_id, branch_id, database, base_branch_id, point=None, base_point=None):
    """How the branch's schema of ``database`` differs from the base branch's, each at its point (a dict of
    ``timestamp`` and ``lsn``; None: now): ``diff_result``, one request."""
    path = project_path(project_id, "branches", branch_id, "compare_schema")
    params = dict(point_params(**(point or {})), db_name=database, base_branch_id=base_branch_id)
    params.update(point_params(prefix="base_", **(base_point or {})))
    return diff_result(client.get(path, params=params), path)


def schema_info(client, project_id, branch, database, timestamp=None, lsn=None, schema_format=SQL, compare_to=None):
    """What ``branch_schema_info`` returns: the schema of ``database`` on ``branch`` (a name or an id) at a point
    (None: now) in ``schema_format``, or with ``compare_to`` (``branch``, ``timestamp``, ``lsn``) how it differs
    from that branch's (``diff_result``). Two requests: the project's branches, then the schema or the comparison."""
    branches = list_branches(client, project_id)
    chosen = choose_branch(branches, branch, project_id, "branch")
    point = dict(timestamp=timestamp, lsn=lsn)
    if not compare_to:
        schema = read_schema(client, project_id, chosen["id"], database, schema_format=schema_format, **point)
        return {"changed": False, "branch_id": chosen["id"], schema_format: schema}
    base = choose_branch(branches, compare_to["branch"], project_id, "compare_to.branch")
    result = compare_schemas(client, project_id, chosen["id"], database, base["id"], point,
                             dict(timestamp=compare_to.get("timestamp"), lsn=compare_to.get("lsn")))
    return dict(result, changed=False, branch_id=chosen["id"], compare_to_branch_id=base["id"])
