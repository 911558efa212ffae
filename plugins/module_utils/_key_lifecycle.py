# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the api_key module does: make a named key present (or rotate it), or revoke keys.

Never creates a key twice: a create whose answer was lost is followed by a fresh listing,
and repeated only when that listing proves it was not carried out.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api_keys import (
    create_api_key,
    list_api_keys,
    newest_first,
    public_record,
    revoke_api_key,
)
from ansible_collections.neon.cloud.plugins.module_utils._client import NOT_REPEATED_NOTE, NeonAPIError

NEW_KEY_PLACEHOLDER = "(new)"


def _gave_up_after_listings(error, attempts, started, clock, finding):
    """Reword the last error of requests that were repeated only after a listing proved it safe."""
    error.message = error.message.replace(NOT_REPEATED_NOTE, "") + (
        ". The keys were listed after each of %d attempts and %s; gave up after %d attempts over %.1f s" % (
            attempts, finding, attempts, clock() - started))
    error.args = (error.message,)
    error.attempts = attempts
    return error


def _named(keys, name):
    return [key for key in keys if key.get("name") == name]


def _summary(keys):
    """What the diff shows of keys: ids and names, never secrets."""
    return {"api_keys": [{"id": key.get("id"), "name": key.get("name")} for key in newest_first(keys)]}


def _with_diff(neon, result, before, after):
    if neon.module._diff:
        result["diff"] = dict(before=_summary(before), after=_summary(after))
    return result


def _create_once(neon, name, known_ids):
    """Create the key; after an ambiguous failure, list again before deciding anything."""
    client = neon.client
    started = client.clock()
    for attempt in range(client.retries + 1):
        try:
            return create_api_key(client, name)
        except NeonAPIError as error:
            if not error.ambiguous:
                raise
            appeared = [key for key in _named(list_api_keys(client), name) if key.get("id") not in known_ids]
            if appeared:
                found = newest_first(appeared)[0]
                error.message = (
                    "%s. The keys were listed again: the service did create key %s (%r), but its secret was lost "
                    "with the answer and cannot be shown again. Nothing was created twice. Revoke that key "
                    "(state=absent, id=%s) and run the task again, or keep it if its secret is not needed." % (
                        error.message, found.get("id"), name, found.get("id")))
                neon.fail_from(error, changed=True, api_key=public_record(found))
            if error.in_flight:
                # The create may still land after this listing: asking again could make a second key.
                error.message += (
                    ". The keys were listed again and no key named %r is there yet, but the service may still be "
                    "carrying it out, so it was not asked again (that could create a second key). Check with "
                    "neon.cloud.api_key_info in a moment: run the task again if no key appeared; a key that appears "
                    "late cannot show its secret, so revoke it or use rotate=true if you need one." % name)
                error.args = (error.message,)
                raise error
            if attempt == client.retries:
                if attempt:
                    # Each attempt was repeated only after a listing proved the previous one was not carried out.
                    _gave_up_after_listings(error, attempt + 1, started, client.clock,
                                            "no key named %r had appeared, so no key was created" % name)
                raise
            # The listing shows it was not carried out: asking again cannot make a second key.
    raise NeonAPIError("POST /api_keys was not attempted")  # pragma: no cover - the loop always returns or raises


def _revoke_one(client, key, revoked):
    """Revoke one key, adding it to ``revoked``; the NeonAPIError that stopped it, or None.

    After an answer that leaves the outcome open, the keys are listed: a key no longer listed
    was revoked, and a key still listed was not, so revoking it again is safe (when the first
    request lands late after all, the repeat answers 404, which also means revoked).
    """
    started = client.clock()
    for attempt in range(client.retries + 1):
        try:
            revoked.append(revoke_api_key(client, key["id"]))
            return None
        except NeonAPIError as error:
            if error.status == 404:
                if attempt:
                    revoked.append(dict(public_record(key), revoked=True))  # an earlier attempt did it
                return None  # revoked meanwhile by someone else: the goal holds
            if not error.ambiguous:
                return error
            if key["id"] not in [item.get("id") for item in list_api_keys(client)]:
                revoked.append(dict(public_record(key), revoked=True))
                return None
            if attempt == client.retries:
                if attempt:
                    _gave_up_after_listings(error, attempt + 1, started, client.clock,
                                            "key %s was still active" % key["id"])
                return error
    return None  # pragma: no cover - the loop always returns


def _revoke_all(neon, keys):
    """Revoke each key; one already gone counts as revoked. Fails with what was done so far."""
    client = neon.client
    revoked = []
    for key in newest_first(keys):
        error = _revoke_one(client, key, revoked)
        if error is not None:
            if error.status == 401 and revoked:
                error.message += (". Keys %s were revoked before this; the key this task authenticates with "
                                  "was probably among them." % ", ".join(str(item.get("id")) for item in revoked))
            neon.fail_from(error, changed=bool(revoked), revoked_keys=revoked)
    return revoked


def ensure_present(neon, name, rotate):
    client = neon.client
    existing = _named(list_api_keys(client), name)
    if existing and not rotate:
        if len(existing) > 1:
            neon.warn("%d active API keys are named %r (ids %s); names are not unique, so none was created. "
                      "Use rotate=true to replace them with one new key." % (
                          len(existing), name, ", ".join(str(key.get("id")) for key in newest_first(existing))))
        result = dict(changed=False, api_key=public_record(newest_first(existing)[0]))
        return _with_diff(neon, result, existing, existing)
    if neon.check_mode:
        result = dict(changed=True, api_key={"name": name})
        if rotate:
            result["revoked_keys"] = [dict(public_record(key), revoked=True) for key in newest_first(existing)]
        after = [{"id": NEW_KEY_PLACEHOLDER, "name": name}] + ([] if rotate else existing)
        return _with_diff(neon, result, existing, after)
    created = _create_once(neon, name, set(key.get("id") for key in existing))
    result = dict(changed=True, api_key=public_record(created), key=created["key"])
    if rotate:
        # Carry on with the new key: one of the old ones may be the key this task authenticates with.
        client.use_api_key(created["key"])
        result["revoked_keys"] = _revoke_all(neon, existing)
    return _with_diff(neon, result, existing, [created] + ([] if rotate else existing))


def ensure_absent(neon, name, key_id):
    keys = list_api_keys(neon.client)
    if key_id is not None:
        targets = [key for key in keys if key.get("id") == key_id]
        if targets and name is not None and targets[0].get("name") != name:
            neon.fail("API key %s is named %r, not %r: nothing was revoked" % (key_id, targets[0].get("name"), name))
    else:
        targets = _named(keys, name)
    if not targets:
        return _with_diff(neon, dict(changed=False, revoked_keys=[]), [], [])
    if neon.check_mode:
        revoked = [dict(public_record(key), revoked=True) for key in newest_first(targets)]
    else:
        revoked = _revoke_all(neon, targets)
    return _with_diff(neon, dict(changed=bool(revoked), revoked_keys=revoked), targets, [])
