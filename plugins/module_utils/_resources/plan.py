# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The generic decision: a resource's description and the Plan for (as it is, as asked). Pure.

A resource is described once as data, in its own file (branches.py's BRANCH, ...): which playbook options map to which API
fields (``min_cu`` -> ``autoscaling_limit_min_cu``), which of them can only be set at creation, which
are only sent at creation (what a project provisions), and how values compare. ``decide`` turns
(the object as it is, the options as asked) into a Plan: create, update these fields, delete,
nothing, or refuse with a reason. Nothing here sends a request (resource.py carries plans out), so
the unit tests check every decision alone. What a task refuses before anything is sent is in refusal.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api.timestamps import timestamp

CREATE = "create"
UPDATE = "update"
DELETE = "delete"
NOTHING = "none"
REFUSE = "refuse"


def same_value(before, after):
    return before == after


def same_time(before, after):
    """Two ISO 8601 timestamps of one moment (``Z`` or ``+00:00``, with or without fractions) are equal."""
    if before is None or after is None:
        return before is None and after is None
    first, second = timestamp(before), timestamp(after)
    if first is None or second is None:
        return before == after
    return abs(first - second) < 0.001


class Field:
    """One option of a resource and the API field it maps to.

    ``option`` and ``api`` are dotted paths (``compute.min_cu``,
    ``default_endpoint_settings.autoscaling_limit_min_cu``). ``create_only``: the service cannot
    change it later, so an existing resource that differs is refused. ``compare=False``: only sent
    when creating (what a project provisions at creation), never compared afterwards.
    ``empty_is_null``: the option's empty string means the API's null (``expires_at: ""`` removes
    the expiry). ``same``: how two values compare.
    """

    def __init__(self, option, api=None, create_only=False, compare=True, empty_is_null=False, same=same_value):
        self.option = option
        self.api = api or option
        self.create_only = create_only
        self.compare = compare
        self.empty_is_null = empty_is_null
        self.same = same

    def wanted(self, options):
        """The value asked for, in the API's terms; ``_UNSET`` when the task leaves it alone."""
        value = dig(options, self.option)
        if value is None:
            return _UNSET
        if self.empty_is_null and value == "":
            return None
        return value


class Description:
    """A resource as data: its kind (for messages), the key of one object in requests and answers,
    what an answer's object is checked for (_api/answers.py), and its fields."""

    def __init__(self, kind, key, answer_fields, fields, plural=None):
        self.kind = kind
        self.key = key
        self.plural = plural or key + "s"  # the key of a list of them, and their path segment
        self.answer_fields = answer_fields
        self.fields = list(fields)

    def body(self, options, creating):
        """The API object a create (``creating``) or an update sends for ``options``."""
        body = {}
        for field in self.fields:
            value = field.wanted(options)
            if value is not _UNSET and (creating or field.compare):
                put(body, field.api, value)
        return body

    def shown(self, current):
        """What a diff shows of an object: its compared fields, by option name (never a secret)."""
        shown = {}
        for field in self.fields:
            if field.compare and current is not None:
                put(shown, field.option, dig(current, field.api))
        return shown


class _Unset:
    def __repr__(self):
        return "<unset>"


_UNSET = _Unset()


def dig(data, path):
    """The value at a dotted path of nested dicts, or None."""
    for part in path.split("."):
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


def put(data, path, value):
    parts = path.split(".")
    for part in parts[:-1]:
        data = data.setdefault(part, {})
    data[parts[-1]] = value


class Plan:
    """What a task does to one resource.

    ``action``: create, update, delete, none or refuse. ``body``: the API object to send (create
    or update). ``changes``: option name -> (before, after) of every field that changes.
    ``reason``: one sentence, for the result and for a refusal's message.

    A resource's own plan (its ``decide``, resource.py) may say more: ``also_changes``, whether what it does
    beyond create and update (a branch's reset, a compute's start: its ``act``) changes something (check mode's
    ``changed``); ``update_body``, what its update sends when that is not ``body`` (a project's settings, sent
    whole).
    """

    also_changes = False

    def update_body(self, current):
        """What an update of ``current`` sends for this plan; None: ``body``."""
        return None

    def __init__(self, action, reason, body=None, changes=None):
        self.action = action
        self.reason = reason
        self.body = body or {}
        self.changes = changes or {}

    @property
    def changed(self):
        return self.action in (CREATE, UPDATE, DELETE)

    def __repr__(self):
        return "Plan(%s, %r, %r)" % (self.action, self.body, self.reason)


def describe_value(value):
    return "unset" if value is None else repr(value)


def decide(description, current, options, state="present", name=None):
    """The Plan for ``options`` against ``current`` (the object as listed, or None when absent)."""
    label = "%s %r" % (description.kind, name) if name else description.kind
    if state == "absent":
        if current is None:
            return Plan(NOTHING, "%s does not exist" % label)
        return Plan(DELETE, "%s exists (id %s) and state=absent" % (label, current.get("id")))
    if current is None:
        return Plan(CREATE, "%s does not exist" % label, body=description.body(options, creating=True))
    refused, body, changes = [], {}, {}
    for field in description.fields:
        wanted = field.wanted(options)
        if wanted is _UNSET or not field.compare:
            continue
        before = dig(current, field.api)
        if field.same(before, wanted):
            continue
        if field.create_only:
            refused.append("%s is %s, not %s as asked" % (field.option, describe_value(before), describe_value(wanted)))
            continue
        put(body, field.api, wanted)
        changes[field.option] = (before, wanted)
    if refused:
        # The task's failure adds "Nothing was changed" (task.ResourceTask.failure).
        return Plan(REFUSE, "%s (id %s) exists and %s; %s can only be set when it is created" % (
            label, current.get("id"), "; ".join(refused), "that" if len(refused) == 1 else "those"))
    if not body:
        return Plan(NOTHING, "%s (id %s) is as asked" % (label, current.get("id")))
    return Plan(UPDATE, "%s (id %s) differs in %s" % (label, current.get("id"), ", ".join(sorted(changes))),
                body=body, changes=changes)


def planned(current, plan):
    """The object as it will be after ``plan`` (for check mode and the diff's after)."""
    if plan.action == DELETE:
        return None
    return merged(current or {}, plan.body)


def merged(base, changes):
    result = dict(base)
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merged(result[key], value)
        else:
            result[key] = value
    return result
