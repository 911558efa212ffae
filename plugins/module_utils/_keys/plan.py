# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Deciding what an api_key task does: pure functions of a key listing, the options and the time.

Nothing here sends a request. ``_keys/lifecycle.py`` carries the decisions out (requests, retries,
the never-lose-a-secret rule); check mode shows them without acting.

Times are the service's ``created_at`` and ``last_used_at`` (ISO 8601, UTC), compared with the
controller's clock (docs/docsite/rst/key-rotation.rst). ``last_used_at`` is null for a key never used
(docs/docsite/rst/api-behaviour.rst, "API keys").
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
    """What an api_key task does.

    ``action``: ``none`` (left alone), ``created`` (no key existed), ``rotated`` (a new key, older ones
    revoked as ``keep`` says), ``trimmed`` (no new key; keys beyond ``keep`` revoked), ``revoked``
    (``state=absent``: the keys it names revoked).
    ``create``: whether a key is created. ``revoke``: the existing keys to revoke, newest first.
    ``kept``: the existing keys left active, newest first. ``reason``: one sentence. ``warning``: a
    sentence for the task's warnings, or None (``interrupted_run_warning``).
    """

    def __init__(self, action, create, revoke, kept, reason, warning=None):
        self.action = action
        self.create = create
        self.revoke = revoke
        self.kept = kept
        self.reason = reason
        self.warning = warning

    @property
    def changed(self):
        return bool(self.create or self.revoke)


def plan_absent(targets):
    """Decide a ``state=absent`` task from the active keys it names (``targets``): revoke them all, newest first."""
    if not targets:
        return Plan("none", False, [], [], "no active key matches")
    return Plan("revoked", False, newest_first(targets), [], "%d active keys match" % len(targets))


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

    if create and keep is not None and newest is not None and never_used(newest):
        # A rotation after an interrupted run (the newest key never used, its secret perhaps lost): the keys
        # consumers used are kept before the never-used ones, so keep=2 keeps the key that works, not the lost one.
        ranked = [item for item in ordered if not never_used(item)] + [item for item in ordered if never_used(item)]
        kept = newest_first(ranked[:keep - 1])
        passed_over = [item for item in ordered[:keep - 1] if item not in kept]
        if passed_over:
            reason += "; never used, key%s %s revoked before the used key%s %s" % (
                "" if len(passed_over) == 1 else "s", ", ".join(str(item.get("id")) for item in passed_over),
                "" if len(kept) == 1 else "s", ", ".join(str(item.get("id")) for item in kept))
    elif create:
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
    warning = None
    if not create and never_used(kept[0]):
        # The newest key may be one whose secret no run kept: a key its consumers used is then perhaps the only
        # one that works, so a trim leaves it (rotate=true, which returns a new secret, revokes it as keep says).
        held = [item for item in revoke if item.get("last_used_at") is not None]
        if held:
            revoke = [item for item in revoke if item not in held]
            kept = newest_first(kept + held)
            action = "trimmed" if revoke else "none"
            reason += "; key%s %s, used, not revoked while the newest key was never used" % (
                "" if len(held) == 1 else "s", ", ".join(str(item.get("id")) for item in held))
        warning = interrupted_run_warning(kept[0], name, now, max_age_days, held)
    return Plan(action, create, revoke, kept, reason, warning)


def never_used(key):
    """True when the listing says the key was never used (``last_used_at`` null); a record without the field
    says nothing, so it is False."""
    return "last_used_at" in key and key["last_used_at"] is None


def _age_words(seconds):
    """``45 seconds``, ``12 minutes``, ``5 hours``, ``3 days``: the largest whole unit."""
    for unit, size in (("day", DAY), ("hour", 3600.0), ("minute", 60.0)):
        if seconds >= size:
            count = int(seconds // size)
            return "%d %s%s" % (count, unit, "" if count == 1 else "s")
    count = int(max(0, seconds))
    return "%d second%s" % (count, "" if count == 1 else "s")


def _creator(key):
    """The creator's name as the listing gives it (an object with ``name``), or None."""
    creator = key.get("created_by")
    name = creator.get("name") if isinstance(creator, dict) else None
    if isinstance(name, str) and 0 < len(name) <= 64 and name.isprintable():
        return name
    return None


def interrupted_run_warning(key, name, now, max_age_days=None, held=()):
    """What a task that creates no key says when the newest key of its name was never used.

    A run stopped after the service created a key and before the task returned (an AWX job cancelled,
    a runner lost: SIGKILL) leaves exactly that: a key nobody ever used, whose secret only the lost
    answer held. The listing cannot tell it from a key whose secret a run did return and whose
    consumers have not used it yet, so the sentence says "most likely", gives the key's age and
    creator to tell them apart, and the way out: one run with ``rotate=true``.
    """
    moment = timestamp(key.get("created_at"))
    if moment is None:
        when = "at a time the listing does not give in a readable form"
    else:
        when = "%s ago (%s)" % (_age_words(now - moment), key["created_at"])
    creator = _creator(key)
    sentence = (
        "API key %s (%r), the newest active key of that name, was created %s%s and has never been used, so most "
        "likely no run kept its secret: a run stopped after the service created a key and before the task returned "
        "(an AWX job cancelled, a runner lost) leaves such a key, and the service cannot show the secret again. If "
        "you did not store it, run this task once with rotate=true%s to replace the key with one whose secret that "
        "run returns in 'key'" % (
            key.get("id"), name, when, " by %s" % creator if creator else "",
            " instead of max_age_days" if max_age_days is not None else ""))
    if max_age_days is not None and moment is not None:
        age = max(0, int((now - moment) // DAY))
        sentence += ("; until then max_age_days counts it as a new key, %d day%s old, and would not replace it for "
                     "%d more day%s" % (age, "" if age == 1 else "s", max_age_days - age,
                                        "" if max_age_days - age == 1 else "s"))
    if held:
        sentence += ("; keep did not revoke the used key%s %s, which may be the only one%s whose secret your consumers "
                     "hold: rotate=true revokes %s as keep says" % (
                         "" if len(held) == 1 else "s", ", ".join(str(item.get("id")) for item in held),
                         "" if len(held) == 1 else "s", "it" if len(held) == 1 else "them"))
    return sentence + (". If a run did return its secret (its consumers have not used the key yet, or another run "
                       "of this task made it a moment ago), ignore this warning.")


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
