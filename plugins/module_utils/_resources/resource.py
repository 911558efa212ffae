# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The walk every resource task takes, written once: find, decide, check, act, wait, settle, report.

A resource class (projects.py, branches.py, endpoints.py, roles_databases.py, snapshots.py) is its description
(in its own file, with the service's rules about it) plus only what is its own: how it is found, its paths, what the service would
refuse beyond the description, and the changes it makes beyond create, update and delete (a
branch's compute and reset, a compute's start and suspend, a role's password). Everything else is
here, once:

- ``present``: find the object; ``decide`` (plan.py, pure) against the options; refuse what the
  plan or the resource refuses, before anything is sent; in check mode return the object as it
  would be and the diff; else create it (once: a lost answer is looked for again, another run's
  create is used with a warning and decided against again), update it, make the resource's own
  changes, wait for the operations each change started, and read it again once they have ended;
  when nothing changed, wait for what a timed-out or an overlapping run left running on it.
- ``absent``: find it; refuse what cannot be deleted; delete it and wait.

Requests, waiting and what a failure keeps are task.py's (ResourceTask); nothing here calls Ansible.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import api_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import TaskFailure, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import (
    branch_stand_in,
    locate_branch,
    project_to_be_made,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import CREATE, REFUSE, UPDATE, decide, planned
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Missing, Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import Found

# How many times a plan is made: once, and once more against what another run created meanwhile.
ROUNDS = 2


def sentence(text):
    """``text`` with a capital first letter, as a message's first word."""
    return text[:1].upper() + text[1:]


class Resource:
    """One object of one resource that a task makes as asked (``present``) or deletes (``absent``)."""

    description = None  # its Description (plan.py), in the resource's own file
    id_field = "id"  # the field that identifies it in its paths (roles and databases: their name)

    def __init__(self, task, project_id):
        self.task = task
        self.client = task.client
        self.project_id = project_id
        self.label = self.description.kind  # named better by find(), once its parent is known

    # ------------------------------------------------------------------------------------------ what a resource says

    def find(self):
        """The object as it is now, or None; finds its parent first (a Refusal when there is none)."""
        raise NotImplementedError

    def collection_path(self):
        raise NotImplementedError

    def branch_named(self, wanted):
        """The branch ``wanted`` (a name or an id; None: the default branch) of the task's project: one request.
        In check mode, a branch or a project that an earlier task of the play would make is taken as made (the rule
        of refusal.Missing, with a warning): a stand-in without an id, of which nothing is read."""
        if project_to_be_made(self.project_id, self.task):
            return branch_stand_in(wanted)
        try:
            return locate_branch(self.client, self.project_id, wanted)
        except Missing as missing:
            return self.task.assume(missing)

    def item_path(self, current):
        return self.collection_path() + api_path(current[self.id_field])

    def input_problem(self, options):
        """Why the service would refuse these options whatever it holds, or None (checked before any request)."""
        return None

    def problem(self, plan, current):
        """Why the service would refuse ``plan`` beyond what the description says, or None (checked before sending)."""
        return None

    def cannot_delete(self, current):
        """Why ``current`` cannot be deleted, or None (checked before sending)."""
        return None

    def create_body(self, plan):
        return {self.description.key: plan.body}

    def take_answer(self, data):
        """Keep what only a create's answer holds (a secret), before anything else in it is checked."""

    def created(self, data, path):
        """The object a create answered, checked (UnexpectedAnswer when it cannot be used)."""
        return answers.item_of(data, "POST", path, self.description.key, self.description.answer_fields)

    def update_body(self, current, plan):
        """What an update sends (None: the plan's body)."""
        return None

    def create_refused(self, failure):
        """A Found when a refused create was made meanwhile by another run in words the service does not
        document (a compute's); None to let the failure stand."""
        return None

    def on_found(self, found):
        """After a create that another run made (``found.ours`` false) or whose answer was lost."""
        if not found.ours:
            self.task.warnings.append("%s was created by another run at the same time%s; this run uses it." % (
                sentence(self.label), self._id_note(found.item)))

    def operations_project(self, item):
        """The project whose operations a change of ``item`` starts (a project's own id once it exists)."""
        return self.project_id

    def act(self, current, plan):
        """The resource's own changes after its plan (a compute's start, a branch's reset); returns the object."""
        return current

    def pending(self, current, plan):
        """Whether ``act`` would change something (check mode's ``changed``)."""
        return False

    def not_ready(self, current):
        """A sentence when ``current`` is still being made or changed by its own state, else None."""
        return None

    def stateless(self):
        """Whether only the project's operations tell that it is still being changed (a project, role, database)."""
        return False

    def settle_scope(self, current):
        """The branch and compute ids whose running operations concern ``current`` (None: any)."""
        return None, None

    def read_again(self, current):
        """The object as it is now, after its operations ended (by default the object as it is: a resource
        whose answers show it being made reads it again)."""
        return current

    def after_change(self, current):
        """The object to return after this run changed it: ``read_again`` unless ``act`` already did."""
        return self.read_again(current)

    def shown(self, current):
        """What a diff shows of the object (never a secret)."""
        return self.description.shown(current)

    def diff(self, current, plan):
        return self.shown(current), self.shown(planned(current, plan))

    def predicted(self, current, plan):
        """The object as it would be after ``plan`` (check mode's result)."""
        return planned(current, plan)

    def keep(self, current):
        """Put the object in every result from now on, failures included."""
        self.task.kept[self.description.key] = current

    # ------------------------------------------------------------------------------------------ the walk

    def present(self, options):
        return self.task.keep_on_failure(self._present, options)

    def absent(self):
        return self.task.keep_on_failure(self._absent)

    def decide(self, current, options):
        """The Plan for ``options`` (decide() of plan.py: the description's fields)."""
        return decide(self.description, current, options, name=None)

    def _find(self):
        try:
            return self.find()
        except Refusal as refusal:
            raise self.task.refused(refusal)

    def _present(self, options):
        problem = self.input_problem(options)
        if problem:
            raise self.task.failure(problem)
        current, made_now = self._find(), False
        for _round in range(ROUNDS):
            try:
                plan = self.decide(current, options)
                problem = plan.reason if plan.action == REFUSE else self.problem(plan, current)
            except Refusal as refusal:
                raise self.task.refused(refusal)
            if problem:
                raise self.task.failure(problem)
            before, after = self.diff(current, plan)
            if self.task.check_mode:
                self.task.changed = plan.changed or self.pending(current, plan)
                self.keep(self.predicted(current, plan))
                return self.task.with_diff(self.task.result(), before, after)
            if plan.action != CREATE:
                break
            found = self._create(plan)
            current, made_now = found.item, found.ours
            if found.ours:
                break
            # Another run created it meanwhile: decided again against it, as a rerun would be.
        else:
            raise AssertionError("a create found again is never created again")  # pragma: no cover
        self.keep(current)
        if plan.action == UPDATE:
            current = self.task.update(self.description, self.item_path(current), self.operations_project(current),
                                       current, plan, self._named(current), body=self.update_body(current, plan),
                                       id_field=self.id_field)
            self.keep(current)
        current = self.act(current, plan)
        if self.task.changed:
            current = self.after_change(current)
        if self._settle(current):
            current = self.read_again(current)
        if made_now:
            after = self.shown(current)  # as it was made
        return self.task.with_diff(self.task.result(), before, after)

    def _create(self, plan):
        """POST the create once; a Found (``ours`` false: another run's, which the walk decides against again)."""
        path = self.collection_path()
        try:
            data, found = self.task.create(path, self.create_body(plan), self.project_id, self.label,
                                           self._found_again)
        except TaskFailure as failure:
            data, found = None, self.create_refused(failure)
            if found is None:
                raise
        if found is not None:
            self.keep(found.item)
            if found.ours:  # its answer was lost (task.create warned): its operations are not known, so wait for all
                what = "%s was created%s" % (self.label, self._id_note(found.item))
                self.task.did(what)
                self.task.wait_idle(self.operations_project(found.item), what)
            # Another run's is decided against again, and waited for when found not ready (_settle).
            self.on_found(found)
            return found
        self.take_answer(data)
        try:
            item = self.created(data, path)
        except UnexpectedAnswer as error:
            self.task.did("%s was created" % self.label)
            raise self.task.failure("%s was created, but its answer cannot be used: %s" % (
                self.label, error.describe()), error)
        what = "%s was created%s" % (self.label, self._id_note(item))
        self.task.did(what)
        self.keep(item)
        self.task.wait_for_operations_of(data, "POST", path, self.operations_project(item), what)
        return Found(item, ours=True)

    def find_again(self):
        """The object as it is now, looked for again after a create whose answer left open whether it was made."""
        return self.find()

    def _found_again(self):
        current = self.find_again()
        return Found(current, ours=True) if current is not None else None

    def _settle(self, current):
        """Wait for what still runs on the object; whether it waited. After a change of this run (whose
        operations were waited for), only when its own state still says so (found being made, then
        changed); otherwise also for what runs on a stateless one."""
        not_ready = self.not_ready(current)
        if not_ready is None and (self.task.changed or not self.stateless()):
            return False
        branch_id, endpoint_id = self.settle_scope(current)
        what = not_ready or "%s has operations still running" % self._named(current)
        return self.task.settle(self.operations_project(current), what,
                                unsettled=True if not_ready else None, branch_id=branch_id, endpoint_id=endpoint_id)

    def _absent(self):
        current = self._find()
        self.keep(current)
        if current is None:
            return self.task.with_diff(self.task.result(), {}, {})
        problem = self.cannot_delete(current)
        if problem:
            raise self.task.failure("%s cannot be deleted: %s" % (sentence(self._named(current)), problem))
        before = self.shown(current)
        if self.task.check_mode:
            self.task.changed = True
            return self.task.with_diff(self.task.result(), before, {})
        self.delete(current)
        return self.task.with_diff(self.task.result(), before, {})

    def delete(self, current):
        """DELETE it and wait; 204 means an overlapping run deleted it meanwhile."""
        path = self.item_path(current)
        named = self._named(current)
        project_id = self.operations_project(current)
        data = self.task.change("DELETE", path, project_id, None, "Deleting %s" % named)
        if data is not None:
            what = "%s was deleted" % named
            self.task.did(what)
            self.task.wait_for_operations_of(data, "DELETE", path, project_id, what)

    # ------------------------------------------------------------------------------------------ wording

    def _id_note(self, item):
        return " (id %s)" % item.get("id") if self.id_field == "id" and isinstance(item, dict) else ""

    def _named(self, current):
        """The label with the object's id, for messages about an object that exists."""
        return "%s%s" % (self.label, " (%s)" % current["id"] if self.id_field == "id" else "")
