# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Deciding what an api_key task does: pure functions of a key listing, the options and the time.

Nothing here sends a request. ``_keys/lifecycle.py`` carries the decisions out (requests, retries,
the never-lose-a-secret rule); check mode shows them without acting.

Times are the service's ``created_at`` and ``last_used_at`` (ISO 8601, UTC), compared with the
controller's clock (docs/docsite/rst/key-rotation.rst).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api.timestamps import timestamp

DAY = 86400.0


class PlanError(Exception):
    """A decision needs a time the listing does not give in a readable form."""


def days_ago(value, now):
    """Whole days between a timestamp of the API and ``now`` (never negative), or None."""
    moment = timestamp(value)
    if moment is None:
        return None
    return max(0, int((now - moment) // DAY))


def _created(key):
    moment = timestamp(key.get("created_at"))
    if moment is None:
        raise PlanError("API key %s has no readable created_at (%s), so its age is unknown" % (
            key.get("id"), _excerpt(key.get("created_at"))))
    return moment


def _excerpt(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def newest_first(keys):
    """Keys by ``created_at`` then id, newest first; unreadable times sort by id alone, after readable ones."""
    def order(key):
        moment = timestamp(key.get("created_at"))
        return (moment is not None, moment or 0.0, key["id"] if isinstance(key.get("id"), int) else 0)
    return sorted(keys, key=order, reverse=True)


def age_in_days(key, now):
    return (now - _created(key)) / DAY


class Plan:
    """What a ``state=present`` task does.

    ``action``: ``none`` (left alone), ``created`` (no key existed), ``rotated`` (a new key, older ones
    revoked as ``keep`` says), ``trimmed`` (no new key; keys beyond ``keep`` revoked).
    ``create``: whether a key is created. ``revoke``: the existing keys to revoke, newest first.
    ``kept``: the existing keys left active, newest first. ``reason``: one sentence.
    """

    def __init__(self, action, create, revoke, kept, reason):
        self.action = action
        self.create = create
        self.revoke = revoke
        self.kept = kept
        self.reason = reason


def plan_present(existing, now, name, rotate=False, max_age_days=None, keep=None):
    """Decide a ``state=present`` task from the matching active keys (``existing``) and the time ``now``.

    - No matching key: create one.
    - ``rotate``: create one; ``max_age_days``: create one when the newest key is at least that old.
    - ``keep``: at most that many keys stay active afterwards, the newest ones (a new key counts).
      Without it a rotation revokes every older key and a task that creates nothing revokes nothing.
    """
    ordered = newest_first(existing)
    newest = ordered[0] if ordered else None
    if newest is None:
        create, reason = True, "no active key named %r existed" % name
    elif rotate:
        create, reason = True, "rotate=true: a new key replaces key %s" % newest["id"]
    elif max_age_days is not None and age_in_days(newest, now) >= max_age_days:
        create, reason = True, "the newest key (id %s) was %d days old, and max_age_days is %d" % (
            newest["id"], int(age_in_days(newest, now)), max_age_days)
    elif max_age_days is not None:
        create, reason = False, "the newest key (id %s) is %d days old, younger than max_age_days (%d)" % (
            newest["id"], int(age_in_days(newest, now)), max_age_days)
    else:
        create, reason = False, "an active key named %r exists (id %s)" % (name, newest["id"])

    if create:
        kept = ordered[:keep - 1] if keep is not None else ([] if newest is not None else ordered)
    else:
        kept = ordered[:keep] if keep is not None else ordered
    kept_ids = set(key["id"] for key in kept)
    revoke = [key for key in ordered if key["id"] not in kept_ids]

    if create:
        action = "rotated" if newest is not None else "created"
    elif revoke:
        action = "trimmed"
    else:
        action = "none"
    if revoke and keep is not None:
        reason += "; keep=%d leaves the newest %s" % (keep, "key" if keep == 1 else "%d keys" % keep)
    return Plan(action, create, revoke, kept, reason)


def kept_among_new(listed_after, known_ids, created):
    """After this run created ``created``: the key every overlapping run keeps.

    ``listed_after`` are the matching keys listed after the create, ``known_ids`` the ids of those
    listed before it. Keys in neither were created by other runs at the same time; of those and this
    run's own key, the lowest id is kept - a rule every run can apply on its own, since ids grow and a
    run that created a higher id lists the lower one after its own create.
    Returns (the kept key, the other new keys).
    """
    new = dict((key["id"], key) for key in listed_after if key["id"] not in known_ids)
    new[created["id"]] = created
    kept_id = min(new)
    others = [new[key_id] for key_id in sorted(new) if key_id != created["id"]]
    return new[kept_id], others


def unused_for(key, now, days):
    """True when the key was not used for at least ``days`` days: last used that long ago, or never
    used and created that long ago."""
    last_used = key.get("last_used_at")
    if last_used is None:
        return age_in_days(key, now) >= days
    moment = timestamp(last_used)
    if moment is None:
        raise PlanError("API key %s has no readable last_used_at (%s)" % (key.get("id"), _excerpt(last_used)))
    return (now - moment) / DAY >= days


def with_ages(key, now):
    """The key with ``created_days_ago`` and ``last_used_days_ago`` (None when never used or unreadable)."""
    return dict(key, created_days_ago=days_ago(key.get("created_at"), now),
                last_used_days_ago=days_ago(key.get("last_used_at"), now))
