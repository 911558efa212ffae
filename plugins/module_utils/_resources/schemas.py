# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A database's schema on a branch, now or at a point of its history, and the difference between two
(``neon.cloud.branch_schema_info``).

The service answers a database's schema as pg_dump-style SQL or as JSON tables
(``GET .../branches/{id}/schema``), and compares two branches' schemas itself
(``GET .../branches/{id}/compare_schema``: a unified diff, empty or absent when they are the same;
docs/docsite/rst/api-behaviour.rst, "Restore, default branch and schema"). Both are reads; each
answer is checked before it is used; ``diff_result`` (pure) is what a playbook asserts on.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path

SQL = "sql"
JSON = "json"
FORMATS = (SQL, JSON)
# What a JSON schema is checked for (SPEC BranchSchemaJSON): tables, each with its schema, name and columns.
TABLE_FIELDS = dict(required={"schema": (str,), "name": (str,), "columns": (list,)})
COLUMN_FIELDS = dict(required={"name": (str,), "type": (str,)})


def point_params(timestamp=None, lsn=None, prefix=""):
    """The query parameters of a point of a branch's history (none: its head)."""
    return {prefix + "timestamp": timestamp, prefix + "lsn": lsn}


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
