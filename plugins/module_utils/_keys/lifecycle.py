# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the api_key module does: make a named key present (or rotate it), or revoke keys.

What to create and revoke is decided by _keys/plan.py (pure functions of the listing, the options and
the time); this module carries it out, as a Writer (_resources/writer.py: read, decide, check mode,
act, the result; its one entry verb ``run()``). After a create it lists again: when overlapping runs created
matching keys at the same time, the lowest id is kept and every other run revokes its own key.

A key matches a task when its name and its scope (its ``project_id``, or none) are the
task's. Two promises hold whatever the service answers:

- A key is never created twice: a create whose answer was lost is followed by a fresh
  listing, and repeated only when that listing proves it was not carried out.
- A key this task created is never lost: whatever fails after the create, the result carries
  ``changed``, ``api_key`` and its secret in ``key``, and the message names the keys left active.

Nothing here calls Ansible: results are dicts (``warnings`` listed in them), failures are
TaskFailure carrying what was done, and _module.py turns both into the task's result.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.neon.cloud.plugins.module_utils._api.create_once import create_once
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, TaskFailure, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._keys.api_keys import (
    KEY_NAME_MAX,
    PROJECT_ID_PATTERN,
    KeyStore,
    newest_first,
    public_record,
)
from ansible_collections.neon.cloud.plugins.module_utils._keys.plan import (
    PlanError,
    kept_among_new,
    plan_absent,
    plan_present,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import path_problem
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import Writer, task_result

NEW_KEY_PLACEHOLDER = "(new)"


def _present_problem(options):
    """What options of state=present alone get wrong, or None."""
    if options["name"] is None:
        return "state=present needs a name"
    if options["id"] is not None:
        return "id only selects a key to revoke with state=absent; use name with state=present"
    for option in ("max_age_days", "keep"):
        if options[option] is not None and options[option] <= 0:
            return "%s must be greater than 0, got %s" % (option, options[option])
    if options["rotate"] and options["max_age_days"] is not None:
        return "rotate and max_age_days are mutually exclusive: rotate makes a new key on every run, " \
               "max_age_days only when the newest key is that old"
    return None


class KeyTask(Writer):
    """One api_key task against ``store`` (a KeyStore): ``state`` present makes key ``name`` (of ``project_id``, or
    none) present, rotated or trimmed as asked; absent revokes the key ``key_id``, or the keys ``name`` names. Check
    mode, diff and warnings are those of ``task`` (a ResourceTask); its results are its own (no operations, the
    diff of the keys' ids and names)."""

    path_options = ("org_id",)

    @classmethod
    def options_problem(cls, options):
        name, project_id = options["name"], options["project_id"]
        if name is not None and not 1 <= len(name) <= KEY_NAME_MAX:
            return "name must be 1 to %d characters long, got %d" % (KEY_NAME_MAX, len(name))
        problem = path_problem("org_id", options["org_id"])
        if problem:
            return problem
        if project_id is not None and not PROJECT_ID_PATTERN.match(project_id):
            return "project_id must be a project id of 1 to 60 characters a-z, 0-9 and -, got %r" % project_id
        if options["state"] == "present":
            return _present_problem(options)
        if name is None and options["id"] is None:
            return "state=absent needs a name or an id"
        for option in ("rotate", "max_age_days", "keep"):
            if options[option] not in (None, False):
                return "%s only applies to state=present" % option
        return None

    @classmethod
    def from_options(cls, task, options):
        return cls(task, KeyStore(task.client, options["org_id"]), options["state"], options["name"], options["id"],
                   options["project_id"], options["rotate"], options["max_age_days"], options["keep"])

    def __init__(self, task, store, state="present", name=None, key_id=None, project_id=None, rotate=False,
                 max_age_days=None, keep=None, now=time.time):
        super(KeyTask, self).__init__(task)
        self.store = store
        self.state = state
        self.name = name
        self.key_id = key_id
        self.project_id = project_id
        self.rotate = rotate
        self.max_age_days = max_age_days
        self.keep = keep
        self.now = now
        self.warnings = task.warnings

    # ------------------------------------------------------------------------------------------ results

    def _matching(self, keys, name, project_id):
        return [key for key in keys if key["name"] == name and key.get("project_id") == project_id]

    @staticmethod
    def _summary(keys):
        """What the diff shows of keys: ids, names and scopes, never secrets."""
        shown = []
        for key in newest_first(keys):
            item = {"id": key.get("id"), "name": key.get("name")}
            if key.get("project_id"):
                item["project_id"] = key["project_id"]
            shown.append(item)
        return {"api_keys": shown}

    def _result(self, before, after, **result):
        return task_result(result, self.warnings, self.task.diff, self._summary(before), self._summary(after))

    def _describe(self, keys):
        return ", ".join(str(key["id"]) for key in newest_first(keys)) or "none"

    # ------------------------------------------------------------------------------------------ the steps

    def read(self):
        """The active keys the task is about: those of its name and scope, or the one of ``key_id`` (one listing)."""
        keys = self.store.list()
        if self.state == "absent" and self.key_id is not None:
            targets = [key for key in keys if key["id"] == self.key_id]
            if targets and self.name is not None and targets[0]["name"] != self.name:
                raise TaskFailure("API key %s is named %r, not %r: nothing was revoked" % (
                    self.key_id, targets[0]["name"], self.name), changed=False)
            return targets
        return self._matching(keys, self.name, self.project_id)

    def decide(self, current):
        """The plan (_keys/plan.py); a plan that creates nothing says first what the user should know of the keys."""
        if self.state == "absent":
            return plan_absent(current)
        try:
            plan = plan_present(current, self.now(), self.name, rotate=self.rotate, max_age_days=self.max_age_days,
                                keep=self.keep)
        except PlanError as exc:
            raise TaskFailure("%s; nothing was created or revoked" % exc, changed=False)
        if not plan.create:
            if self.keep is None and self.max_age_days is None and len(current) > 1:
                self.warnings.append(
                    "%d active API keys are named %r (ids %s); names are not unique, so none was created. "
                    "Use rotate=true to replace them with one new key, or keep to revoke all but the newest." % (
                        len(current), self.name, self._describe(current)))
            if plan.warning:
                self.warnings.append(plan.warning)  # the newest key was never used: maybe an interrupted run's
        return plan

    def diff(self, current, plan):
        """(before, after): the keys before, and the result's fields with the keys after, as planned."""
        if self.state == "absent":
            return current, (dict(changed=plan.changed, revoked_keys=self._would_revoke(plan)), [])
        told = dict(action=plan.action, reason=plan.reason)
        if plan.create:
            planned = dict({"name": self.name}, **({"project_id": self.project_id} if self.project_id else {}))
            return current, (dict(changed=True, api_key=dict(planned), revoked_keys=self._would_revoke(plan), **told),
                             [dict(planned, id=NEW_KEY_PLACEHOLDER)] + plan.kept)
        shown = public_record(plan.kept[0])
        if not plan.revoke:
            return current, (dict(changed=False, api_key=shown, revoked_keys=[], **told), current)
        return current, (dict(changed=True, api_key=shown, revoked_keys=self._would_revoke(plan), **told), plan.kept)

    def act(self, current, plan):
        """The revocations, or the create and what follows it; the result's fields with the keys after."""
        if plan.create:
            return self._create(current, plan)
        revoked, error = self._revoke_all(plan.revoke)
        if self.state == "absent":
            if error is not None:
                left = [key for key in current if key["id"] not in set(item.get("id") for item in revoked)]
                raise TaskFailure("%s. Keys still active: %s%s" % (error.describe(), self._describe(left),
                                                                   self._revoked_note(revoked, error.error)),
                                  cause=error.error, error=error.error.to_dict(), changed=bool(revoked),
                                  revoked_keys=revoked)
            return dict(changed=bool(revoked), revoked_keys=revoked), []
        told = dict(action=plan.action, reason=plan.reason)
        shown = public_record(plan.kept[0])
        if error is not None:
            left = [key for key in plan.revoke if key["id"] not in set(item.get("id") for item in revoked)]
            raise TaskFailure("%s. Keys beyond keep still active: %s%s" % (
                error.describe(), self._describe(left), self._revoked_note(revoked, error.error)),
                cause=error.error, error=error.error.to_dict(), changed=bool(revoked), revoked_keys=revoked,
                api_key=shown, **told)
        return dict(changed=True, api_key=shown, revoked_keys=revoked, **told), plan.kept

    def read_again(self, current, done, after):
        return done

    def result(self, before, after):
        """The result's fields (in their order), with the warnings and the diff of the keys before and after."""
        fields, keys = after
        return self._result(before, keys, **fields)

    # ------------------------------------------------------------------------------------------ present

    @staticmethod
    def _would_revoke(plan):
        return [dict(public_record(key), revoked=True) for key in plan.revoke]

    def _create(self, existing, plan):
        """Create the key once, then converge with overlapping runs and revoke as planned."""
        name, project_id = self.name, self.project_id
        told = dict(action=plan.action, reason=plan.reason)
        created = self._create_once(name, project_id, set(key["id"] for key in existing))
        # From here on the new key's secret is in every result, whatever fails.
        kept = dict(changed=True, api_key=public_record(created), key=created["key"], **told)
        try:
            return self._after_create(created, name, project_id, existing, plan, kept)
        except TaskFailure:
            raise
        except Exception as exc:  # pylint: disable=broad-except  # nothing that fails now may lose the key
            raise TaskFailure(
                "API key %s (%r) was created and its secret is in this result's 'key' (shown only now), but then "
                "the task failed: %s" % (created["id"], name, exc), **self._result(existing, [created] + existing, **kept))

    def _after_create(self, created, name, project_id, existing, plan, kept):
        """Check the new key's scope, converge with runs that created one at the same time, revoke as planned: the
        result's fields with the keys after."""
        self._check_scope(created, name, project_id, existing)
        winner, others = self._converge(created, name, project_id, existing)
        if winner["id"] != created["id"]:
            return self._give_way(created, winner, name, existing, kept)
        if others:
            self.warnings.append(
                "While this task created API key %s (%r), other runs created %s; this run's key has the lowest id, "
                "so it is kept and those runs revoke theirs." % (
                    created["id"], name, "key " + self._describe(others) if len(others) == 1
                    else "keys " + self._describe(others)))
        if not plan.revoke:
            return dict(revoked_keys=[], **kept), [created] + plan.kept
        if not created.get("project_id"):
            # The new key has the reach of the ones it replaces: when the task's own key is among
            # them, the requests after its revocation go on with the new one.
            self.client.fall_back_to(created["key"])
        revoked, error = self._revoke_all(plan.revoke)
        if error is not None:
            left = [key for key in plan.revoke if key["id"] not in set(item.get("id") for item in revoked)]
            raise TaskFailure(
                "%s. The rotation is unfinished: API key %s (%r) was created, and its secret is in this result's "
                "'key' (shown only now: register the result and keep it, e.g. in an always section); older keys "
                "still active: %s%s. Revoke them with state=absent and id, rather than rotating again, which would "
                "create another key." % (
                    error.describe(), created["id"], name, self._describe(left), self._revoked_note(revoked, error.error)),
                cause=error.error, error=error.error.to_dict(), revoked_keys=revoked,
                **self._result(existing, [created] + plan.kept + left, **kept))
        return dict(revoked_keys=revoked, **kept), [created] + plan.kept

    def _converge(self, created, name, project_id, existing):
        """List once more: of the keys this and overlapping runs created, the lowest id is kept (_key_plan)."""
        try:
            listed = self._matching(self.store.list(), name, project_id)
        except NeonAPIError as error:
            self.warnings.append("API key %s was created; listing the keys again, to find keys of that name that "
                                 "other runs created at the same time, failed: %s" % (created["id"], error))
            return created, []
        return kept_among_new(listed, set(key["id"] for key in existing), created)

    def _give_way(self, created, winner, name, existing, kept):
        """Another run created a key with a lower id at the same time: revoke ours, return theirs (no secret): the
        result's fields with the keys after."""
        revoked, error = self._revoke_all([created])
        if error is not None:
            raise TaskFailure(
                "Another run created API key %s (%r) at the same time as this run created key %s; revoking this "
                "run's key, so that one key is left, failed: %s. Key %s is still active and its secret is in this "
                "result's 'key'; revoke it with state=absent, id=%s." % (
                    winner["id"], name, created["id"], error.describe(), created["id"], created["id"]),
                cause=error.error, error=error.error.to_dict(), revoked_keys=revoked,
                **self._result(existing, [winner, created] + existing, **kept))
        reason = ("another run created key %s at the same time; the lowest id is kept, so this run revoked its own "
                  "key %s" % (winner["id"], created["id"]))
        self.warnings.append(
            "Another run created API key %s (%r) at the same time as this one; this run revoked the key it had "
            "created (%s) and returns key %s, whose secret only that run has." % (
                winner["id"], name, created["id"], winner["id"]))
        return dict(changed=True, api_key=public_record(winner), revoked_keys=revoked, action="converged",
                    reason=reason), [winner] + existing

    def _create_once(self, name, project_id, known_ids):
        """Create the key (_api/create_once.py); after an ambiguous failure, list again before deciding anything."""
        def appeared(error):
            made = [key for key in self._matching(self._list_after(error), name, project_id) if key["id"] not in known_ids]
            return newest_first(made)[0] if made else None

        def found(error, key):
            raise self._created_but_unreadable(error, key, name)

        def in_flight(error):
            return TaskFailure(
                "%s. The keys were listed again and no key named %r is there yet, but the service may still "
                "be carrying it out, so it was not asked again (that could create a second key). "
                "Check with neon.cloud.api_key_info in a moment: run the task again if no key appeared; a "
                "key that appears late cannot show its secret, so revoke it or use rotate=true if you need "
                "one." % (error.describe(not_repeated=False), name), cause=error, error=error.to_dict())

        def not_created(error, attempts, elapsed):
            return TaskFailure(
                "%s. The keys were listed after %s and no key named %r had appeared, so no key was created%s" % (
                    error.describe(not_repeated=False, attempts=False),
                    "each of %d attempts" % attempts if attempts > 1 else "the attempt", name,
                    "; gave up after %d attempts over %.1f s" % (attempts, elapsed) if attempts > 1 else ""),
                cause=error, error=error.gave_up(attempts, elapsed).to_dict())

        return create_once(self.client, lambda: self.store.create(name, project_id), appeared, found, in_flight,
                           not_created)

    def _list_after(self, error):
        """The keys, listed to find out what an ambiguous request did."""
        try:
            return self.store.list()
        except NeonAPIError as listing_error:
            raise TaskFailure(
                "%s. Listing the keys to find out whether it was carried out failed too: %s. Check with "
                "neon.cloud.api_key_info before running the task again." % (error.describe(), listing_error.describe()),
                cause=listing_error, error=error.to_dict())

    def _created_but_unreadable(self, error, found, name):
        result = dict(changed=True, api_key=public_record(found), error=error.to_dict())
        if isinstance(error, UnexpectedAnswer) and error.secret:
            # The answer was not what the endpoint answers, but it did carry the secret: keep it.
            result["key"] = error.secret
            return TaskFailure(
                "%s. The keys were listed again: the service did create key %s (%r); its secret is in this result's "
                "'key' (shown only now). Nothing was created twice." % (
                    error.describe(not_repeated=False), found["id"], name), cause=error, **result)
        return TaskFailure(
            "%s. The keys were listed again: the service did create key %s (%r), but its secret was lost with the "
            "answer and cannot be shown again. Nothing was created twice. Revoke that key (state=absent, id=%s) and "
            "run the task again, or keep it if its secret is not needed." % (
                error.describe(not_repeated=False), found["id"], name, found["id"]), cause=error, **result)

    def _check_scope(self, created, name, project_id, existing):
        """A key scoped to another project than asked is revoked at once (docs/docsite/rst/api-behaviour.rst)."""
        if created.get("project_id") == project_id:
            return
        wanted = "project %s" % project_id if project_id else "no project"
        got = "project %s" % created.get("project_id") if created.get("project_id") else "no project"
        revoked, error = self._revoke_all([created])
        kept = dict(changed=True, api_key=public_record(created))
        if error is None:
            raise TaskFailure(
                "The service created API key %s (%r) scoped to %s, not %s as asked; it was revoked at once, "
                "so no key with a scope other than the one asked for is left active." % (
                    created["id"], name, got, wanted), revoked_keys=revoked, **self._result(existing, existing, **kept))
        kept["key"] = created["key"]
        raise TaskFailure(
            "The service created API key %s (%r) scoped to %s, not %s as asked, and revoking it failed: %s. It is "
            "still active and its secret is in this result's 'key'; revoke it with state=absent, id=%s." % (
                created["id"], name, got, wanted, error.describe(), created["id"]),
            cause=error.error, error=error.error.to_dict(), **self._result(existing, [created] + existing, **kept))

    # ------------------------------------------------------------------------------------------ revoking

    def _revoked_note(self, revoked, error):
        if not revoked:
            return ""
        note = "; revoked before this: %s" % self._describe(revoked)
        if error.status == 401:
            note += " (the key this task authenticates with was probably among them)"
        return note

    def _revoke_all(self, keys):
        """Revoke each key, newest first; one already gone counts as revoked.

        Returns (the revoke answers, None) or, at the first key that cannot be revoked,
        (the answers so far, its _RevokeFailure).
        """
        revoked = []
        for key in newest_first(keys):
            error = self._revoke_one(key, revoked)
            if error is not None:
                return revoked, error
        return revoked, None

    def _revoke_one(self, key, revoked):
        """Revoke one key, adding it to ``revoked``; a _RevokeFailure when it could not, or None.

        After an answer that leaves the outcome open, the keys are listed: a key no longer listed
        was revoked, and a key still listed was not, so revoking it again is safe (when the first
        request lands late after all, the repeat answers 404, which also means revoked).
        """
        started = self.client.clock()
        attempts = self.client.retries + 1
        for attempt in range(1, attempts + 1):
            try:
                revoked.append(self.store.revoke(key["id"]))
                return None
            except NeonAPIError as error:
                if error.status == 404:
                    if attempt > 1:
                        revoked.append(dict(public_record(key), revoked=True))  # an earlier attempt did it
                    return None  # revoked meanwhile by someone else: the goal holds
                if not error.ambiguous:
                    return _RevokeFailure(error)
                try:
                    still_listed = key["id"] in [item["id"] for item in self.store.list()]
                except NeonAPIError:
                    return _RevokeFailure(error)
                if not still_listed:
                    revoked.append(dict(public_record(key), revoked=True))
                    return None
                if not error.retryable or attempt == attempts:
                    error.gave_up(attempt, self.client.clock() - started)
                    if attempt == 1:
                        return _RevokeFailure(error, "The keys were listed after it and key %s was still active"
                                              % key["id"])
                    return _RevokeFailure(error, "The keys were listed after each of %d attempts and key %s was still "
                                          "active; gave up after %d attempts over %.1f s" % (
                                              attempt, key["id"], attempt, error.elapsed))
        return None  # pragma: no cover - the loop always returns


class _RevokeFailure:
    """Why a key could not be revoked: the last request error, and what the lifecycle did about it."""

    def __init__(self, error, explanation=None):
        self.error = error
        self.explanation = explanation

    def describe(self):
        if self.explanation is None:
            return self.error.describe()
        return "%s. %s" % (self.error.describe(not_repeated=False, attempts=False), self.explanation)
