# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A project's settings (``settings``, ``compute.pg_settings``, ``store_passwords``): the service's rules. Pure.

The facts are in docs/docsite/rst/api-behaviour.rst ("Project settings"):

- ``settings`` is the API's ``ProjectSettingsData``. What a task gives is compared and sent; what it
  does not give is left as it is (the service keeps the top-level keys a PATCH does not name).
- The service replaces ``allowed_ips`` as a whole object: a PATCH with only ``ips`` resets
  ``protected_branches_only`` and one with only ``protected_branches_only`` empties the list. So both
  go, the one not given taken from the project as read. ``quota``, ``maintenance_window`` and
  ``preload_libraries`` are sent whole too, merged with what the project holds (how the service
  merges their parts is not documented); a maintenance window needs all three of its parts.
- IP lists compare as sets: order, repeats and whitespace do not matter, nor the case of an IPv6
  address. An empty list allows every address. Weekdays and preload libraries compare as sets too.
  An unset flag is off, an unset quota (or 0) is unlimited.
- Logical replication and HIPAA, once on, cannot be turned off; turning logical replication on
  suspends the project's active computes. ``store_passwords`` can only be chosen at creation.

The fields are PROJECT's (projects.py); projects.py carries the plan out with the body built here.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re

from ansible_collections.neon.cloud.plugins.module_utils._api.answers import Checker
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import Field, dig, merged, put

AUDIT_LOG_LEVELS = ("base", "extended", "full")
QUOTAS = ("active_time_seconds", "compute_time_seconds", "written_data_bytes", "data_transfer_bytes",
          "logical_size_bytes")
WINDOW_PARTS = ("weekdays", "start_time", "end_time")
WEEKDAYS = (1, 7)  # 1 is Monday, 7 Sunday
TIME = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")
# Objects of ``settings`` that are sent whole, merged with the project's current value.
WHOLE_OBJECTS = ("quota", "maintenance_window", "preload_libraries")
ONE_WAY = ("enable_logical_replication", "hipaa")


# ---------------------------------------------------------------------------------------------- comparing


def ip_entry(text):
    """The canonical text of an allow-list entry (a single address, a dash range or a CIDR block,
    IPv4 or IPv6, whitespace ignored), or None when it is none of them."""
    if not isinstance(text, str):
        return None
    entry = "".join(text.split())
    try:
        if "-" in entry:
            first, last = [ipaddress.ip_address(part) for part in entry.split("-", 1)]
            if first.version != last.version or first > last:
                return None
            return "%s-%s" % (first, last)
        if "/" in entry:
            return str(ipaddress.ip_interface(entry))
        return str(ipaddress.ip_address(entry))
    except ValueError:
        return None


def _ip_key(text):
    """What an entry compares as: its canonical text, else (an entry the service holds that is none of
    the three forms) the entry without whitespace, in lower case."""
    return ip_entry(text) or "".join(str(text).split()).lower()


def same_ips(before, after):
    """Two allow lists are the same set of entries; unset and empty are both "every address"."""
    return set(_ip_key(entry) for entry in before or []) == set(_ip_key(entry) for entry in after or [])


def same_set(before, after):
    """Two lists of the same items, whatever their order and repeats (weekdays, libraries); unset is empty."""
    if before is not None and not isinstance(before, list):
        return False
    return set(before or []) == set(after or [])


def same_flag(before, after):
    """A flag the service leaves out when it is off: unset is false."""
    return bool(before) == bool(after)


def same_quota(before, after):
    """A quota of 0 or unset is unlimited (the API's words: "a zero or empty quota value means unlimited")."""
    return (before or 0) == (after or 0)


def same_given_keys(before, after):
    """Postgres settings: every one given has the value given (as text); those not given are left alone."""
    if not isinstance(before, dict):
        return not after
    return all(before.get(name) == value for name, value in (after or {}).items())


# The fields of PROJECT (projects.py) this file is about, by option name -> API field.
SETTINGS_FIELDS = [
    Field("settings.allowed_ips.ips", same=same_ips),
    Field("settings.allowed_ips.protected_branches_only", same=same_flag),
    Field("settings.block_public_connections", same=same_flag),
    Field("settings.block_vpc_connections", same=same_flag),
    Field("settings.maintenance_window.weekdays", same=same_set),
    Field("settings.maintenance_window.start_time"),
    Field("settings.maintenance_window.end_time"),
] + [Field("settings.quota." + quota, same=same_quota) for quota in QUOTAS] + [
    Field("settings.audit_log_level"),
    Field("settings.preload_libraries.use_defaults"),
    Field("settings.preload_libraries.enabled_libraries", same=same_set),
    Field("settings.enable_logical_replication", same=same_flag),
    Field("settings.hipaa", same=same_flag),
    Field("compute.pg_settings", "default_endpoint_settings.pg_settings", same=same_given_keys),
    # Absent from the update body (the OpenAPI document): set at creation only.
    Field("store_passwords", create_only=True),
]
# The default compute's Postgres settings (the project resource adds it to COMPUTE's fields).
COMPUTE_PG_SETTINGS = Field("pg_settings", "settings.pg_settings", same=same_given_keys)


# ---------------------------------------------------------------------------------------------- input


def _number_hint(value):
    """What an unquoted ``HH:MM`` became in YAML 1.1 (a number of minutes: ``12:30`` is 750)."""
    if value.isdigit() and int(value) < 24 * 60:
        return " (YAML reads an unquoted %02d:%02d as the number %s: quote the time)" % (
            int(value) // 60, int(value) % 60, value)
    return ""


def settings_problem(settings):
    """Why ``settings`` (the module's option, suboptions None when not given) cannot be sent, or None."""
    if not settings:
        return None
    ips = dig(settings, "allowed_ips.ips")
    for entry in ips or []:
        if ip_entry(entry) is None:
            return "settings.allowed_ips.ips: %r is not an IP address, a range (198.51.100.20-198.51.100.50) or a " \
                   "CIDR block (203.0.113.0/24), IPv4 or IPv6" % (entry,)
    window = settings.get("maintenance_window") or {}
    weekdays = window.get("weekdays")
    if weekdays is not None:
        if not weekdays:
            return "settings.maintenance_window.weekdays must name at least one day, 1 (Monday) to 7 (Sunday)"
        for day in weekdays:
            if isinstance(day, bool) or not isinstance(day, int) or not WEEKDAYS[0] <= day <= WEEKDAYS[1]:
                return "settings.maintenance_window.weekdays: %r is not a weekday; use 1 (Monday) to 7 (Sunday)" % (day,)
    for part in ("start_time", "end_time"):
        value = window.get(part)
        if value is not None and not (isinstance(value, str) and TIME.match(value)):
            return "settings.maintenance_window.%s must be a time of day HH:MM in UTC (00:00 to 23:59), got %r%s" % (
                part, value, _number_hint(str(value)))
    for quota in QUOTAS:
        value = dig(settings, "quota." + quota)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            return "settings.quota.%s must be 0 (unlimited) or more, got %r" % (quota, value)
    level = settings.get("audit_log_level")
    if level is not None and level not in AUDIT_LOG_LEVELS:
        return "settings.audit_log_level must be one of %s, got %r" % (", ".join(AUDIT_LOG_LEVELS), level)
    for library in dig(settings, "preload_libraries.enabled_libraries") or []:
        if not isinstance(library, str) or not library.strip():
            return "settings.preload_libraries.enabled_libraries: %r is not a library name" % (library,)
    return None


def pg_settings_problem(pg_settings, prefix="compute.pg_settings"):
    """Why these Postgres settings (a dict of names to text) cannot be sent, or None."""
    if pg_settings is None:
        return None
    for name, value in pg_settings.items():
        if not isinstance(name, str) or not name.strip():
            return "%s: %r is not a setting name" % (prefix, name)
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            return "%s.%s must be text, got %r; quote it (%s: 'on')" % (prefix, name, value, name) \
                if isinstance(value, bool) else "%s.%s must be text, got %r" % (prefix, name, value)
    return None


def _unique(items, key=None):
    """``items`` without repeats (by ``key``), in their order."""
    seen, kept = set(), []
    for item in items:
        if (key or str)(item) not in seen:
            seen.add((key or str)(item))
            kept.append(item)
    return kept


def with_settings_normalised(options):
    """``options`` with their ``settings`` and ``compute.pg_settings`` as they are compared and sent (a copy; the
    other options as given): the IP entries without whitespace, lists without repeats, weekdays in order,
    Postgres settings as text. Call after the problems above."""
    settings = options.get("settings")
    compute = options.get("compute")
    if not settings and not (compute and compute.get("pg_settings") is not None):
        return options
    options = dict(options)
    if settings:
        settings = dict((name, dict(value) if isinstance(value, dict) else value) for name, value in settings.items())
        if dig(settings, "allowed_ips.ips") is not None:
            settings["allowed_ips"]["ips"] = _unique(("".join(entry.split()) for entry in settings["allowed_ips"]["ips"]),
                                                     key=_ip_key)
        if dig(settings, "maintenance_window.weekdays") is not None:
            settings["maintenance_window"]["weekdays"] = sorted(set(settings["maintenance_window"]["weekdays"]))
        if dig(settings, "preload_libraries.enabled_libraries") is not None:
            libraries = settings["preload_libraries"]["enabled_libraries"]
            settings["preload_libraries"]["enabled_libraries"] = _unique(library.strip() for library in libraries)
        options["settings"] = settings
    if compute and compute.get("pg_settings") is not None:
        options["compute"] = dict(compute, pg_settings=pg_settings_text(compute["pg_settings"]))
    return options


def pg_settings_text(pg_settings):
    """Postgres settings as the API holds them: every value text (``100`` is ``"100"``)."""
    return dict((name, value if isinstance(value, str) else str(value)) for name, value in pg_settings.items())


# ---------------------------------------------------------------------------------------------- refusals before sending


def window_problem(current, options):
    """Why a maintenance window given in part cannot be sent, or None: the service takes the three parts
    together, and those not given come from the project's current window, when it has a whole one."""
    window = dig(options, "settings.maintenance_window")
    if not window:
        return None
    given = [part for part in WINDOW_PARTS if window.get(part) is not None]
    if not given:
        return None
    held = dig(current, "settings.maintenance_window") if current is not None else None
    held = held if isinstance(held, dict) else {}
    missing = [part for part in WINDOW_PARTS if window.get(part) is None and held.get(part) is None]
    if missing:
        return "settings.maintenance_window needs weekdays, start_time and end_time together, and the project has " \
               "no maintenance window to take the others from; missing: %s" % ", ".join(missing)
    return None


def one_way_problem(current, changes):
    """Why ``changes`` (option -> (before, after)) ask the service for what it will not do, or None:
    logical replication and HIPAA stay on once on."""
    for setting in ONE_WAY:
        before, after = changes.get("settings." + setting, (None, None))
        if before is True and after is False:
            what = "logical replication" if setting == "enable_logical_replication" else "HIPAA"
            return "settings.%s is on for project %s, and the service cannot turn %s off once it is on; leave " \
                   "settings.%s out, or true" % (setting, (current or {}).get("id"), what, setting)
    return None


def notes(before, after):
    """Sentences for the diff and the warnings about what the change from ``before`` to ``after`` (the
    project as it is, None when created, and as it will be) does that cannot be taken back, or that
    cuts or opens connections at once."""
    said = []
    if not dig(before, "settings.enable_logical_replication") and dig(after, "settings.enable_logical_replication"):
        said.append("settings.enable_logical_replication: turning logical replication on suspends every active "
                    "compute of the project (their connections drop) and cannot be undone")
    if not dig(before, "settings.hipaa") and dig(after, "settings.hipaa"):
        said.append("settings.hipaa: HIPAA compliance cannot be turned off once it is on")
    if before is not None and not dig(before, "settings.block_public_connections") and \
            dig(after, "settings.block_public_connections"):
        said.append("settings.block_public_connections: connections from the public internet are refused from now "
                    "on, whatever the IP allow list says")
    if before is not None and dig(before, "settings.allowed_ips.ips") and \
            not dig(after, "settings.allowed_ips.ips") and isinstance(dig(after, "settings.allowed_ips"), dict):
        said.append("settings.allowed_ips.ips: an empty list allows connections from every IP address")
    return said


# ---------------------------------------------------------------------------------------------- the body


def update_settings(current, settings):
    """The ``settings`` a PATCH sends for the changed ``settings`` of a plan: ``allowed_ips`` whole (the
    part not changed as the project holds it), ``quota``, ``maintenance_window`` and ``preload_libraries``
    merged with the project's, every other key as it is."""
    held = (current or {}).get("settings")
    held = held if isinstance(held, dict) else {}
    body = dict(settings)
    if "allowed_ips" in body:
        now = held.get("allowed_ips") if isinstance(held.get("allowed_ips"), dict) else {}
        body["allowed_ips"] = dict({"ips": list(now.get("ips") or []),
                                    "protected_branches_only": bool(now.get("protected_branches_only"))},
                                   **body["allowed_ips"])
    for name in WHOLE_OBJECTS:
        if name in body:
            body[name] = merged(held.get(name) if isinstance(held.get(name), dict) else {}, body[name])
    return body


def compute_settings_body(endpoint, pg_settings):
    """The ``settings`` a compute's PATCH sends for ``pg_settings``: its settings as they are, with its
    Postgres settings merged with those given (the others kept)."""
    held = endpoint.get("settings") if isinstance(endpoint.get("settings"), dict) else {}
    now = held.get("pg_settings") if isinstance(held.get("pg_settings"), dict) else {}
    return dict(held, pg_settings=dict(now, **pg_settings))


# ---------------------------------------------------------------------------------------------- what is shown


def given_options(fields, options):
    """The option names of ``fields`` that ``options`` give."""
    return [field.option for field in fields if dig(options, field.option) is not None]


def changes_shown(fields, changes):
    """The two sides of an update's diff, (before, after): of ``changes`` (a plan's: option -> (before, after)),
    each option of ``fields`` that changes, nested by option name, and nothing else. Of Postgres settings (compared
    by the names given), only the names whose value changes."""
    before, after = {}, {}
    for field in fields:
        if field.option not in changes:
            continue
        old, new = changes[field.option]
        if field.same is same_given_keys:
            held = old if isinstance(old, dict) else {}
            names = [name for name, value in (new or {}).items() if held.get(name) != value]
            old, new = dict((name, held.get(name)) for name in names), dict((name, new[name]) for name in names)
        put(before, field.option, old)
        put(after, field.option, new)
    return before, after


def shown_fields(project, fields, option_names):
    """The values of ``option_names`` (of ``fields``) in ``project``, nested by option name (a diff's side)."""
    shown = {}
    for field in fields:
        if field.option in option_names and project is not None:
            put(shown, field.option, dig(project, field.api))
    return shown


# ---------------------------------------------------------------------------------------------- answers


_FLAG = (bool, type(None))
_LIST = (list, type(None))
_OBJECT = (dict, type(None))
_TEXT = (str, type(None))
_COUNT = (int, type(None))


def check_settings(project, method, path):
    """The settings of a project answer (``settings``, ``store_passwords``, ``default_endpoint_settings.pg_settings``)
    of the types the decision compares; an UnexpectedAnswer names the field otherwise."""
    check = Checker(method, path)
    check.fields(project, "project", optional={"settings": _OBJECT, "store_passwords": _FLAG})
    settings = project.get("settings") or {}
    check.fields(settings, "project.settings", optional={
        "allowed_ips": _OBJECT, "quota": _OBJECT, "maintenance_window": _OBJECT, "preload_libraries": _OBJECT,
        "block_public_connections": _FLAG, "block_vpc_connections": _FLAG, "enable_logical_replication": _FLAG,
        "hipaa": _FLAG, "audit_log_level": _TEXT})
    where = "project.settings."
    allowed = settings.get("allowed_ips") or {}
    check.fields(allowed, where + "allowed_ips", optional={"ips": _LIST, "protected_branches_only": _FLAG})
    for index, entry in enumerate(allowed.get("ips") or []):
        check.value(entry, "%sallowed_ips.ips[%d]" % (where, index), (str,))
    window = settings.get("maintenance_window") or {}
    check.fields(window, where + "maintenance_window", optional={"weekdays": _LIST, "start_time": _TEXT,
                                                                 "end_time": _TEXT})
    for index, day in enumerate(window.get("weekdays") or []):
        check.value(day, "%smaintenance_window.weekdays[%d]" % (where, index), (int,))
    check.fields(settings.get("quota") or {}, where + "quota", optional=dict((quota, _COUNT) for quota in QUOTAS))
    libraries = settings.get("preload_libraries") or {}
    check.fields(libraries, where + "preload_libraries", optional={"use_defaults": _FLAG, "enabled_libraries": _LIST})
    for index, library in enumerate(libraries.get("enabled_libraries") or []):
        check.value(library, "%spreload_libraries.enabled_libraries[%d]" % (where, index), (str,))
    defaults = project.get("default_endpoint_settings") or {}
    check.fields(defaults, "project.default_endpoint_settings", optional={"pg_settings": _OBJECT})
    return project
