# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Answers checked at one boundary: every field the collection uses, before it uses it.

Each function takes the decoded JSON of one answer and returns the service's own objects
(unknown fields kept, as users see them), after checking that each field the code relies on
is there and of the right type, and that an answer about one object is about the object that
was asked for. Anything else raises UnexpectedAnswer naming the method, path and field.
Field types follow docs/docsite/rst/api-behaviour.rst.

Here are the checks every answer goes through (``Checker``, ``item_of``, ``items_of``, ``page``), the secrets
a create answers (connection URIs), and the answers of what this layer and the ones just above it read (API keys,
operations, identity). What the collection reads of a project, a branch, a compute, a role, a database or a
snapshot is with that resource, in its own file under _resources/ (a project listing's fields: _account/projects.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

try:
    from urllib.parse import unquote, urlsplit
except ImportError:  # pragma: no cover - Python 2 is not supported, keeps the import sanity test quiet
    from urllib import unquote  # type: ignore
    from urlparse import urlsplit  # type: ignore

from ansible_collections.neon.cloud.plugins.module_utils._api.errors import PaginationError, UnexpectedAnswer

POSTGRES_PORT = 5432

_MISSING = object()
_TYPE_NAMES = {
    str: "a string",
    int: "an integer",
    bool: "true or false",
    dict: "an object",
    list: "a list",
    type(None): "null",
}


def _shown(value):
    """A short description of a value that came back: never a whole structure."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str) and len(value) > 40:
        return repr(value[:40]) + "..."
    return repr(value)


def _wanted(types):
    return " or ".join(_TYPE_NAMES.get(kind, kind.__name__) for kind in types)


class Checker:
    """Checks one answer of ``method path``; each problem is an UnexpectedAnswer.

    Types are compared exactly (``type(value) in types``): JSON decodes to dict, list, str, int,
    float, bool and None only, and an exact match keeps ``true`` from passing for an integer.
    """

    def __init__(self, method, path):
        self.method = method
        self.path = path

    def fail(self, field, problem):
        raise UnexpectedAnswer(self.method, self.path, field, problem)

    def value(self, value, field, types):
        if type(value) not in types:
            self.fail(field, "must be %s, got %s" % (_wanted(types), _shown(value)))
        return value

    def object(self, value, field="the answer"):
        return self.value(value, field, (dict,))

    def list(self, value, field="the answer"):
        return self.value(value, field, (list,))

    def fields(self, item, where, required=None, optional=None):
        """Check ``item`` (an object): ``required`` fields present with their types, ``optional``
        ones of their types when present."""
        if not isinstance(item, dict):
            self.object(item, where)
        for name, types in (required or {}).items():
            if type(item.get(name, _MISSING)) not in types:
                if name not in item:
                    self.fail("%s.%s" % (where, name), "is missing")
                self.value(item[name], "%s.%s" % (where, name), types)
        for name, types in (optional or {}).items():
            if name in item and type(item[name]) not in types:
                self.value(item[name], "%s.%s" % (where, name), types)
        return item

    def each(self, items, where, required=None, optional=None):
        """``fields`` for every item of the list ``items``, a field at a time over the whole list
        (a page holds up to 1000 items of one shape; this is what paging spends its time on)."""
        required = required or {}
        optional = optional or {}
        bad = [index for index, item in enumerate(items) if not isinstance(item, dict)]
        for name, types in required.items():
            if not bad:
                bad = [index for index, item in enumerate(items) if type(item.get(name, _MISSING)) not in types]
        for name, types in optional.items():
            if not bad:
                bad = [index for index, item in enumerate(items) if name in item and type(item[name]) not in types]
        if bad:
            self.fields(items[bad[0]], "%s[%d]" % (where, bad[0]), required, optional)
        return items

    def same(self, item, where, name, expected):
        if item.get(name) != expected:
            self.fail("%s.%s" % (where, name), "is %s, not %r as asked" % (_shown(item.get(name)), expected))


# ---------------------------------------------------------------------------------------------- API keys

KEY_FIELDS = dict(required={"id": (int,), "name": (str,)}, optional={"project_id": (str, type(None))})


def key_list(data, method, path):
    """GET .../api_keys: a bare array of keys (docs/docsite/rst/api-behaviour.rst)."""
    check = Checker(method, path)
    return check.each(check.list(data), "", **KEY_FIELDS)


def created_key(data, method, path, project_id=None):
    """POST .../api_keys: the new key with its secret in ``key``."""
    check = Checker(method, path)
    check.fields(data, "the answer", required={"id": (int,), "key": (str,)},
                 optional={"name": (str,), "project_id": (str, type(None))})
    if not data["key"]:
        check.fail("the answer.key", "is empty")
    return data


def revoked_key(data, method, path, key_id):
    """DELETE .../api_keys/{id}: the key, revoked."""
    check = Checker(method, path)
    check.fields(data, "the answer", optional={"id": (int,), "name": (str,), "revoked": (bool,)})
    if "id" in data:
        check.same(data, "the answer", "id", key_id)
    return data


# ---------------------------------------------------------------------------------------------- operations

# What the collection reads of an operation: the id and status (waits), project_id (the answer is
# about the project asked for), created_at (a wait's list positions), and the fields
# operation_info filters on (a filter compares them, so a list or object must not slip in).
OPERATION_FIELDS = dict(
    required={"id": (str,), "status": (str,)},
    optional={"project_id": (str,), "created_at": (str, type(None)), "action": (str,),
              "branch_id": (str, type(None)), "endpoint_id": (str, type(None))},
)


def operation(data, method, path, project_id, operation_id):
    """GET /projects/{project_id}/operations/{operation_id}: that operation and no other."""
    check = Checker(method, path)
    check.object(data)
    if "operation" not in data:
        check.fail("operation", "is missing")
    item = check.fields(data["operation"], "operation", **OPERATION_FIELDS)
    check.same(item, "operation", "id", operation_id)
    if "project_id" in item:
        check.same(item, "operation", "project_id", project_id)
    return item


# An operation in a list shown as it is (operation_info): the id, and the types of the rest.
LISTED_OPERATION_FIELDS = dict(required={"id": (str,)}, optional=dict(OPERATION_FIELDS["optional"], status=(str,)))


# ---------------------------------------------------------------------------------------------- lists

# The least any list item must have: an object with an id.
ID_FIELDS = dict(required={"id": (str, int)})


# ---------------------------------------------------------------------------------------------- pages

class Page:
    """One page of a cursor-paged list: its items and the cursor the service answered."""

    def __init__(self, items, cursor, data):
        self.items = items
        self.cursor = cursor
        self.data = data


def page(data, path, item_key, item_fields):
    """A page of ``GET path``: the list ``item_key`` (each item checked against ``item_fields``,
    a dict of ``required`` and ``optional`` field types) and ``pagination.cursor``."""
    check = Checker("GET", path)
    check.object(data)
    if item_key not in data:
        check.fail(item_key, "is missing")
    items = check.each(check.list(data[item_key], item_key), item_key, **item_fields)
    pagination = data.get("pagination")
    cursor = None
    if isinstance(pagination, dict):
        # Projects and operations answer ``cursor``; branches answer an opaque ``next``.
        cursor = pagination.get("cursor", pagination.get("next"))
    elif pagination is not None:
        cursor = pagination  # an old shape: the cursor itself
    if cursor is not None and not isinstance(cursor, str):
        raise PaginationError(path, "the pagination cursor is %s, not a string" % _shown(cursor))
    return Page(items, cursor or None, data)


def unavailable_ids(page_data, path):
    """``unavailable_project_ids`` of a project list page: the ids the service could not fetch in time."""
    check = Checker("GET", path)
    ids = page_data.get("unavailable_project_ids")
    if ids is None:
        return []
    for index, item in enumerate(check.list(ids, "unavailable_project_ids")):
        check.value(item, "unavailable_project_ids[%d]" % index, (str,))
    return ids


# ---------------------------------------------------------------------------------------------- identity

ORGANIZATION_FIELDS = dict(required={"id": (str,)},
                           optional={"name": (str,), "handle": (str,), "plan": (str,)})


def auth(data, path):
    """GET /auth: who the key is (docs/docsite/rst/api-behaviour.rst)."""
    check = Checker("GET", path)
    return check.fields(data, "the answer", required={"auth_method": (str,)},
                        optional={"account_id": (str, type(None))})


def organizations(data, path):
    """GET /users/me/organizations: ``{"organizations": [...]}``."""
    check = Checker("GET", path)
    check.object(data)
    if "organizations" not in data:
        check.fail("organizations", "is missing")
    return check.each(check.list(data["organizations"], "organizations"), "organizations", **ORGANIZATION_FIELDS)


def organization(data, path, org_id):
    """GET /organizations/{org_id}: that organization."""
    check = Checker("GET", path)
    check.fields(data, "the answer", **ORGANIZATION_FIELDS)
    check.same(data, "the answer", "id", org_id)
    return data


# ---------------------------------------------------------------------------------------------- objects

def _member(check, data, name):
    check.object(data)
    if name not in data:
        check.fail(name, "is missing")
    return data[name]


def item_of(data, method, path, name, fields, item_id=None, id_field="id"):
    """``{name: {...}}``: the object, checked; with ``item_id``, the object asked for and no other
    (``id_field`` is what identifies it: ``name`` for roles and databases)."""
    check = Checker(method, path)
    item = check.fields(_member(check, data, name), name, **fields)
    if item_id is not None:
        check.same(item, name, id_field, item_id)
    return item


def items_of(data, method, path, name, fields):
    """``{name: [...]}``: the list, each item checked."""
    check = Checker(method, path)
    return check.each(check.list(_member(check, data, name), name), name, **fields)


def started_operations(data, method, path, project_id):
    """The ``operations`` a change answered (none when the key is absent), each about ``project_id``."""
    check = Checker(method, path)
    check.object(data)
    if data.get("operations") is None:
        return []
    operations = check.each(check.list(data["operations"], "operations"), "operations", **OPERATION_FIELDS)
    for index, item in enumerate(operations):
        if "project_id" in item:
            check.same(item, "operations[%d]" % index, "project_id", project_id)
    return operations


def connection_uris(data):
    """The ``connection_uri`` strings of a create answer's ``connection_uris`` (may be absent).

    A secret shown only in this answer: every one that is a non-empty string is taken, whatever
    else the answer holds (an answer that cannot be used otherwise fails later, with them kept).
    """
    listed = data.get("connection_uris") if isinstance(data, dict) else None
    if not isinstance(listed, list):
        return []
    return [item["connection_uri"] for item in listed
            if isinstance(item, dict) and isinstance(item.get("connection_uri"), str) and item["connection_uri"]]


def uri_parts(uri):
    """scheme, host, port, database, role and password of a connection URI (``postgresql://...``), or
    None when it cannot be read; the one place URIs the service answers are taken apart."""
    try:
        split = urlsplit(uri)
        port = split.port
    except (ValueError, TypeError, AttributeError):
        return None
    return dict(scheme=split.scheme, host=split.hostname, port=port or POSTGRES_PORT,
                database=unquote(split.path.lstrip("/")), role=unquote(split.username or ""),
                password=unquote(split.password or ""))


def text_answer(data, path, name):
    """The one non-empty string ``name`` of a GET's answer ``{name: ...}`` (a connection URI, a password)."""
    check = Checker("GET", path)
    text = check.value(_member(check, data, name), name, (str,))
    if not text:
        check.fail(name, "is empty")
    return text
