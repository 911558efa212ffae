# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: projects
short_description: Neon projects as inventory hosts
version_added: 1.0.0
description:
  - One host per Neon project the API key reaches, named by the project's id (names are not unique).
  - "By default every project the key reaches: for a personal key, the user's personal projects and the projects
    of every organization the user belongs to; for an organization key, that organization's projects; for a
    project-scoped key, its one project. It never fails with C(org_id is required)."
  - Host variables carry every field of the project as the service lists it, prefixed C(neon_)
    (C(neon_id), C(neon_name), C(neon_region_id), C(neon_pg_version), C(neon_org_id), ...), plus C(neon_shared)
    (true for a project shared with the account) and C(neon_unavailable).
  - Projects are not machines to log in to. Every host gets C(ansible_connection=local) and
    C(ansible_python_interpreter) set to the Python that runs Ansible (it has C(requests)), so a play over these
    hosts runs the neon.cloud modules on the controller, one task per project. O(compose) can set other values.
  - A project the service could not fetch in time, even when asked again, is still a host, with only
    C(neon_id) and C(neon_unavailable=true), in the group C(neon_unavailable), and a warning names it. A job
    over the inventory never skips a project silently.
  - Cost - C(GET /auth), for a personal key C(GET /users/me/organizations), then pages of 400 projects (the
    service's maximum) for each source. A run served from the cache makes no request at all.
  - Reads inventory files whose names end in C(neon.yml) or C(neon.yaml), such as C(prod.neon.yml).
author:
  - neon.cloud maintainers (@neon-cloud)
extends_documentation_fragment:
  - neon.cloud.api
  - neon.cloud.api.inventory
  - constructed
  - inventory_cache
options:
  plugin:
    description: The name of this plugin; the file is only read by it when this is set.
    type: str
    required: true
    choices: [neon.cloud.projects]
  org_ids:
    description:
      - Only the projects of these organizations (C(GET /projects?org_id=...) for each), instead of every
        project the key reaches. A personal key's own projects are then not listed.
    type: list
    elements: str
    default: []
  shared:
    description:
      - Also the projects other accounts shared with the account (C(GET /projects/shared)); they have
        C(neon_shared=true).
    type: bool
    default: false
  filters:
    description:
      - Keep only the projects for which every one of these Jinja2 conditionals is true, evaluated over the
        host variables (C(neon_region_id == 'aws-us-east-2'), C(neon_name is match('prod-'))).
      - An undefined variable makes a project be left out, or, with O(strict=true), fails the inventory.
      - Projects that stayed unavailable have no fields to filter on and are always kept.
    type: list
    elements: str
    default: []
notes:
  - O(api_key) may be a template, such as a lookup of a vault or a secrets manager; it is rendered when the
    inventory is read.
  - When the projects cannot be listed (the API down, a refused key, a bad option) the inventory source fails with
    the request that failed, the service's status, message and request id. Ansible then only warns and goes on
    without these hosts, so a play over them matches none and exits 0, unless C(any_unparsed_is_failed = true) is
    set in the C([inventory]) section of C(ansible.cfg) (or C(ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED=true)); a
    scheduled job should set it.
  - The cache holds the projects as listed, never the API key; its key is derived from a one-way digest of the
    API key and the options, so that two keys never share an entry.
seealso:
  - module: neon.cloud.projects_info
  - ref: ansible_collections.neon.cloud.docsite.inventory
    description: The inventory guide - every project, one organization, groups by region, caching, AWX.
"""

EXAMPLES = r"""
# prod.neon.yml - every project the key in NEON_API_KEY reaches
plugin: neon.cloud.projects

---
# org.neon.yml - the projects of one organization, grouped by region, the key from a vault lookup
plugin: neon.cloud.projects
api_key: "{{ lookup('ansible.builtin.unvault', 'neon_api_key.vault') | trim }}"
org_ids:
  - org-calm-tree-21298941
keyed_groups:
  - key: neon_region_id
    prefix: region
  - key: neon_pg_version
    prefix: postgres

---
# prod-only.neon.yml - only projects whose name starts with prod-, cached for an hour
plugin: neon.cloud.projects
filters:
  - neon_name is match('prod-')
cache: true
cache_plugin: ansible.builtin.jsonfile
cache_connection: ~/.cache/neon-inventory
cache_timeout: 3600
compose:
  database_region: neon_region_id
groups:
  postgres_17: neon_pg_version == 17
"""

import hashlib
import re
import sys

from ansible import constants as C
from ansible.errors import AnsibleParserError
from ansible.plugins.inventory import BaseInventoryPlugin, Cacheable, Constructable

try:
    from ansible.template import trust_as_template  # noqa: F401  pylint: disable=unused-import
except ImportError:  # ansible-core < 2.19: strings are templated unless marked unsafe
    from ansible.utils.unsafe_proxy import wrap_var as untrusted
else:  # ansible-core 2.19+: data is never templated unless trusted, and marking it would show in --list
    def untrusted(value):
        return value

from ansible_collections.neon.cloud.plugins.module_utils._api.client import HAS_REQUESTS, PathParameterError
from ansible_collections.neon.cloud.plugins.module_utils._api.connection import (
    ConnectionOptionError,
    check_options,
    make_client,
)
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, TaskFailure
from ansible_collections.neon.cloud.plugins.module_utils._account.inventory import reachable_projects

CONNECTION_OPTIONS = ("api_key", "api_url", "api_timeout", "api_retries", "api_retry_max_delay", "api_rate_limit",
                      "api_allow_plain_http", "validate_certs", "ca_path")
ORG_ID_PATTERN = re.compile(r"^[a-z0-9-]{1,60}$")
UNAVAILABLE_GROUP = "neon_unavailable"
VARIABLE_PREFIX = "neon_"
# The cache key holds a one-way digest of the API key: slow to guess from, and cut short.
CACHE_DIGEST_SALT = b"neon.cloud.projects inventory cache"
CACHE_DIGEST_ROUNDS = 20000
CACHE_FORMAT = 1


def variable_name(field):
    """``neon_<field>``, with anything but letters, digits and _ made _ (fields come from the service)."""
    return VARIABLE_PREFIX + re.sub(r"[^A-Za-z0-9_]", "_", str(field))


def key_digest(api_key, *parts):
    material = "\n".join([api_key] + [str(part) for part in parts]).encode("utf-8")
    return hashlib.pbkdf2_hmac("sha256", material, CACHE_DIGEST_SALT, CACHE_DIGEST_ROUNDS)[:6].hex()


def inventory_failure(text):
    """The error that fails this inventory source. Ansible then only warns and plays on without its hosts
    (a play over them: "no hosts matched", exit 0) unless told to stop, so the message says how."""
    if not (C.INVENTORY_ANY_UNPARSED_IS_FAILED or C.INVENTORY_UNPARSED_IS_FAILED):
        text += (". Without its hosts Ansible goes on and a play over them matches none: set any_unparsed_is_failed "
                 "= true in the [inventory] section of ansible.cfg (or ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED=true) "
                 "to stop here")
    return AnsibleParserError(text)


def host_variables(project, shared):
    """The host variables of one listed project."""
    variables = dict((variable_name(field), value) for field, value in project.items())
    variables.update(neon_shared=shared, neon_unavailable=False)
    return variables


class InventoryModule(BaseInventoryPlugin, Constructable, Cacheable):
    NAME = "neon.cloud.projects"

    def verify_file(self, path):
        return super(InventoryModule, self).verify_file(path) and path.endswith(("neon.yml", "neon.yaml"))

    def parse(self, inventory, loader, path, cache=True):
        super(InventoryModule, self).parse(inventory, loader, path, cache)
        self._read_config_data(path)
        options = self._connection_options()
        org_ids = self._org_ids()
        shared = self.get_option("shared")
        cache_key = "%s_%s" % (self.get_cache_key(path), key_digest(
            options["api_key"].strip(), options["api_url"], ",".join(org_ids), shared))
        use_cache = self.get_option("cache")
        listing = None
        if use_cache and cache:
            listing = self._cached(cache_key)
        if listing is None:
            listing = self._list(options, org_ids, shared)
            if use_cache:
                self._cache[cache_key] = listing
        self._populate(listing)

    # ------------------------------------------------------------------------------------------ options

    def _connection_options(self):
        options = dict((name, self.get_option(name)) for name in CONNECTION_OPTIONS)
        api_key = options["api_key"]
        if isinstance(api_key, str) and self.templar.is_template(api_key):
            api_key = self.templar.template(api_key)  # a lookup, as other inventory plugins allow for tokens
        options["api_key"] = "" if api_key is None else str(api_key)
        if not HAS_REQUESTS:
            raise inventory_failure("the neon.cloud.projects inventory needs the Python library requests on the "
                                    "controller (%s)" % sys.executable)
        try:
            check_options(options)
        except ConnectionOptionError as problem:
            raise inventory_failure(str(problem))
        return options

    def _org_ids(self):
        org_ids = self.get_option("org_ids") or []
        for org_id in org_ids:
            if not isinstance(org_id, str) or not ORG_ID_PATTERN.match(org_id):
                raise inventory_failure("org_ids: each must be an organization id such as org-calm-tree-21298941 "
                                        "(1 to 60 characters a-z, 0-9 and -), got %r" % (org_id,))
        return list(org_ids)

    # ------------------------------------------------------------------------------------------ listing

    def _cached(self, cache_key):
        try:
            listing = self._cache[cache_key]
        except KeyError:
            return None
        if not isinstance(listing, dict) or listing.get("format") != CACHE_FORMAT:
            return None  # written by another version: list again
        return listing

    def _list(self, options, org_ids, shared):
        """What the key reaches, as the cache keeps it: projects as listed, never the key."""
        client = make_client(options)
        scrubber = client.scrubber  # knows the key: no piece of it reaches a message
        try:
            reach = reachable_projects(client, org_ids=org_ids, shared=shared)
        except (NeonAPIError, TaskFailure, PathParameterError) as error:
            cause = error.describe() if isinstance(error, NeonAPIError) else getattr(error, "msg", str(error))
            raise inventory_failure(scrubber.scrub("neon.cloud.projects could not list the projects: %s" % cause))
        finally:
            client.close()
            pace = getattr(client, "pace", None)
            if pace is not None and pace.warning:
                self.display.warning(pace.warning)
        return {
            "format": CACHE_FORMAT,
            "projects": [{"project": project, "shared": is_shared} for project, is_shared in reach.projects],
            "unavailable": list(reach.unavailable),
            "requests": client.requests_made,
        }

    # ------------------------------------------------------------------------------------------ hosts

    def _populate(self, listing):
        strict = self.get_option("strict")
        filters = self.get_option("filters") or []
        for item in listing.get("projects") or []:
            project = item.get("project") if isinstance(item, dict) else None
            if not isinstance(project, dict) or not isinstance(project.get("id"), str):
                continue  # a cache entry of another shape: nothing to make a host of
            variables = host_variables(project, bool(item.get("shared")))
            if not self._passes(filters, variables, project["id"], strict):
                continue
            self._add_host(project["id"], variables, strict)
        unavailable = [project_id for project_id in listing.get("unavailable") or [] if isinstance(project_id, str)]
        if unavailable:
            self.inventory.add_group(UNAVAILABLE_GROUP)
            for project_id in unavailable:
                self._add_host(project_id, dict(neon_id=project_id, neon_shared=False, neon_unavailable=True), strict)
                self.inventory.add_child(UNAVAILABLE_GROUP, project_id)
            self.display.warning(
                "The Neon service could not fetch %d project(s) in time, even when asked again: %s. They are hosts "
                "with neon_unavailable=true, in the group %s, without their other fields." % (
                    len(unavailable), ", ".join(unavailable), UNAVAILABLE_GROUP))

    def _passes(self, filters, variables, project_id, strict):
        for condition in filters:
            try:
                if not self._compose(condition, variables):
                    return False
            except Exception as exc:  # pylint: disable=broad-except  # any template error: the user's filter
                if strict:
                    raise inventory_failure("filters: %r could not be evaluated for project %s: %s" % (
                        condition, project_id, exc))
                return False
        return True

    def _add_host(self, name, variables, strict):
        self.inventory.add_host(name)
        connection = dict(ansible_connection="local", ansible_python_interpreter=sys.executable)
        for key, value in list(connection.items()) + list(variables.items()):
            self.inventory.set_variable(name, key, untrusted(value))
        self._set_composite_vars(self.get_option("compose"), variables, name, strict=strict)
        self._add_host_to_composed_groups(self.get_option("groups"), variables, name, strict=strict)
        self._add_host_to_keyed_groups(self.get_option("keyed_groups"), variables, name, strict=strict)
