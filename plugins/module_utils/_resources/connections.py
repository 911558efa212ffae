# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A branch's connection string (``neon.cloud.connection_info``): the URI the service builds, checked.

The compute is the branch's read-write one, asked of the service by id, and the URI's host is
checked to be that compute's (or its pooler's), so a URI of another branch is never returned as
this one's. A role or database the branch does not have is named, with what it has.

In check mode, a project, branch, read-write compute, role or database that does not exist yet is taken as
made by an earlier task of the play (refusal.Missing): the result is the connection as it would be, without
what only the service gives (the URI, host, port, password, compute id: null), and a warning says so.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.endpoints import branch_endpoints, read_write_endpoint
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import branch_label, locate_branch, project_not_made
from ansible_collections.neon.cloud.plugins.module_utils._resources.roles_databases import DATABASE, ROLE, list_roles_or_databases
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Missing, Refusal, assume

POOLER_SUFFIX = "-pooler"


def connection_details(client, project_id, branch=None, database=None, role=None, pooled=False, check_mode=False,
                       warnings=None):
    """The connection URI of a branch's read-write compute, and its parts (the password among them).

    The compute is the branch's read-write one, passed to the service by id; the service builds the
    URI (``GET /projects/{id}/connection_uri``), and its host is checked to be that compute's (or its
    pooler's), so a URI of another branch is never returned as this one's. In check mode, what does not
    exist yet is taken as made by an earlier task (refusal.Missing; its warning goes into ``warnings``), and the
    connection is returned as it would be.
    """
    warnings = [] if warnings is None else warnings
    found = {}  # the ids of what exists: the branch, its compute
    try:
        return _details(client, project_id, branch, database, role, pooled, check_mode, found)
    except Missing as missing:
        assume(missing, check_mode, warnings)
        return dict(uri=None, host=None, port=None, database=database, role=role, password=None, pooled=pooled,
                    branch_id=found.get("branch_id"), endpoint_id=found.get("endpoint_id"))


def _details(client, project_id, branch, database, role, pooled, check_mode, found):
    missing = project_not_made(project_id) if check_mode else None
    if missing is not None:
        raise missing
    chosen = locate_branch(client, project_id, branch)
    label = branch_label(chosen)
    found["branch_id"] = chosen["id"]
    endpoint = read_write_endpoint(branch_endpoints(client, project_id, chosen["id"]), chosen["id"])
    if endpoint is None:
        raise Missing("branch %s has no read-write compute to connect to; create one with neon.cloud.branch "
                      "(compute: true)" % label, "the read-write compute of branch %s" % label)
    found["endpoint_id"] = endpoint["id"]
    if role is None:
        roles = list_roles_or_databases(client, project_id, chosen["id"], ROLE)
        role = only_name([item for item in roles if not item.get("protected")], "role", label)
    if database is None:
        database = only_name(list_roles_or_databases(client, project_id, chosen["id"], DATABASE),
                             "database", label)
    path = project_path(project_id, "connection_uri")
    params = dict(branch_id=chosen["id"], endpoint_id=endpoint["id"], database_name=database, role_name=role,
                  pooled="true" if pooled else "false")
    try:
        uri = answers.text_answer(client.get(path, params=params), path, "uri")  # {uri}
    except NeonAPIError as error:
        if error.status == 404:
            _missing_names(client, project_id, chosen, role, database, error)
        raise
    parts = uri_parts(uri, path)
    client.remember_secret(parts["password"])
    expected = endpoint.get("host")
    if expected:
        expected = pooled_host(expected) if pooled else expected
        if parts["host"] != expected:
            raise UnexpectedAnswer("GET", path, "the URI's host", "is %r, not the %s of compute %s (%r)" % (
                parts["host"], "pooler" if pooled else "host", endpoint["id"], expected))
    return dict(parts, uri=uri, pooled=pooled, branch_id=chosen["id"], endpoint_id=endpoint["id"])


def _missing_names(client, project_id, branch, role, database, error):
    """After a 404 for a connection URI: a Missing naming the role or database the branch lacks, and
    what it has (two requests, only on this failure); returns when both exist."""
    for description, name in ((ROLE, role), (DATABASE, database)):
        names = sorted(item["name"] for item in list_roles_or_databases(client, project_id, branch["id"], description))
        if name not in names:
            raise Missing("branch %s has no %s %r (its %s: %s); create it with neon.cloud.%s" % (
                branch_label(branch), description.kind, name, description.plural, ", ".join(names) or "none",
                description.kind), "%s %r of branch %s" % (description.kind, name, branch_label(branch)),
                error=error)


def uri_parts(uri, path):
    """host, port, database, role and password of the ``postgresql://`` URI answered to GET ``path``."""
    parts = answers.uri_parts(uri)
    if parts is None:
        raise UnexpectedAnswer("GET", path, "uri", "is not a URI that can be read")
    if parts["scheme"] not in ("postgres", "postgresql") or not parts["host"]:
        raise UnexpectedAnswer("GET", path, "uri", "is not a postgresql:// URI with a host")
    return dict((key, value) for key, value in parts.items() if key != "scheme")


def pooled_host(host):
    """The pooler's host of a compute: ``-pooler`` after the endpoint id, the first label
    (``ep-a-1.us-east-2.aws.neon.tech`` -> ``ep-a-1-pooler.us-east-2.aws.neon.tech``). A compute
    reached by its address (the simulator's real computes: ``127.0.0.1``) has no pooler host of its own."""
    if _is_address(host):
        return host
    first, dot, rest = host.partition(".")
    if first.endswith(POOLER_SUFFIX):
        return host
    return first + POOLER_SUFFIX + dot + rest


def _is_address(host):
    """An IPv4 or IPv6 address rather than a host name."""
    labels = host.split(".")
    return ":" in host or (len(labels) == 4 and all(label.isdigit() for label in labels))


def only_name(items, kind, branch_label):
    """The name of the branch's only role or database, when the task left it out."""
    names = [item["name"] for item in items]
    if len(names) == 1:
        return names[0]
    if not names:
        raise Refusal("branch %s has no %s" % (branch_label, kind))
    raise Refusal("branch %s has %d %ss (%s); say which one with the %s option" % (
        branch_label, len(names), kind, ", ".join(sorted(names)), kind))
