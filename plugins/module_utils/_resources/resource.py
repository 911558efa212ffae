# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The walk every resource task takes, written once: find, decide, check, act, wait, settle, report.

A resource class (projects.py, branches.py, endpoints.py, roles_databases.py, snapshots.py) is its description
(in its own file, with the service's rules about it) plus only what is its own: how it is found, its paths, its
plan (``decide``: the description's plan, with what the service would refuse and what the resource does beyond
create and update), and those changes (``act``: a branch's compute and reset, a compute's start and suspend, a
role's password). Everything else is here, once:

- ``present``: check the options; find the object; ``decide``; refuse what the plan refuses, before anything is
  sent; ``preview`` the plan: the diff, and in check mode the result as it would be, where the walk ends; else create it (once: a lost answer is looked
  for again; another run's create is used with a warning, and the plan is decided again against it), update it,
  make the resource's own changes, wait for the operations each change started, and ``settle``: read it again once
  they have ended, or, when nothing changed, wait for what a timed-out or an overlapping run left running on it.
- ``absent``: find it; refuse what cannot be deleted; delete it and wait.

Requests, waiting and what a failure keeps are task.py's (ResourceTask); nothing here calls Ansible.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import api_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import TaskFailure, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import CREATE, REFUSE, UPDATE, decide, planned
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import Found


def sentence(text):
    """``text`` with a capital first letter, as a message's first word."""
    return text[:1].upper() + text[1:]


class Resource:
    """One object of one resource that a task makes as asked (``present``) or deletes (``absent``).

    What a resource class gives (the hooks; only ``find``, ``collection_path`` and ``run`` are required):

    - ``options_problem``, ``run``, with ``path_options`` and ``predicts_project``: its module's options (its
      module's one call, _module.NeonModule.run_resource, ends in ``run``);
    - ``find``, ``collection_path``: where it is (``find`` also looks again after a create; its own path,
      ``item_path``, is its collection's with its id);
    - ``input_problem``, ``decide``, ``cannot_delete``: what the task will do, or why it refuses;
    - ``create_request``, ``created``, ``answered_instead``: its create, what it answered, and what it gave instead
      (a refusal, or the object found: its answer lost, or another run's);
    - ``act``, ``settle``, ``delete``: its own changes, what it waits for, its delete;
    - ``shown``, ``preview``: what the diff shows of it, and what a plan would make of it (the diff's before and
      after, check mode's result).

    ``present`` and ``absent``, the walk itself, are not hooks: ``run`` gives them what they need (the options in the
    form they are sent, what the object is built with) and wraps what they raise. Nor are ``keep`` (the object in
    every result from then on) and ``item_path``, which a resource calls and none changes.
    """

    description = None  # its Description (plan.py), in the resource's own file
    id_field = "id"  # the field that identifies it in its paths (roles and databases: their name)
    path_options = ()  # the module's options that go into a request's path (not empty, not . or ..: _module.py)
    predicts_project = True  # in check mode, an empty project_id is a project an earlier task makes (refusal.Missing)

    def __init__(self, task, project_id):
        self.task = task
        self.client = task.client
        self.project_id = project_id
        self.label = self.description.kind  # named better by find(), once its parent is known

    # ------------------------------------------------------------------------------------------ its module's options

    @classmethod
    def options_problem(cls, options):
        """What the module's ``options`` alone say is wrong (a name the service refuses), checked before anything
        else: the task fails with this sentence alone. None: nothing."""
        return None

    @classmethod
    def run(cls, task, options):
        """The task the module's ``options`` ask for (``state``): ``present`` or ``absent`` of the object they name,
        built for it, with the options as they are sent (a point in time in the collection's form: _api/points.py).
        An option that cannot be used whatever the service holds raises OptionError (refusal.py)."""
        raise NotImplementedError

    # ------------------------------------------------------------------------------------------ where it is

    def find(self):
        """The object as it is now, or None; finds its parent first (a Refusal when there is none)."""
        raise NotImplementedError

    def collection_path(self):
        """The path of its list, where its create goes unless ``create_request`` says otherwise."""
        raise NotImplementedError

    # ------------------------------------------------------------------------------------------ what the task will do

    def input_problem(self, options):
        """Why the service would refuse these options whatever it holds, or None (checked before any request)."""
        return None

    def decide(self, current, options):
        """The plan for ``options`` against ``current`` (None: it does not exist): decide() of plan.py over the
        description's fields. A resource's own plan says also what the service would refuse beyond the description
        (a REFUSE plan, with the reason) and what it does beyond create and update (``also_changes``)."""
        return decide(self.description, current, options, name=None)

    def cannot_delete(self, current):
        """Why ``current`` cannot be deleted, or None (checked before sending)."""
        return None

    # ------------------------------------------------------------------------------------------ its create

    def create_request(self, plan):
        """The path and the body of the create ``plan`` asks for: its description's object, POSTed to its list."""
        return self.collection_path(), {self.description.key: plan.body}

    def created(self, data, path):
        """The object a create answered, checked (UnexpectedAnswer when it cannot be used). A resource whose create
        answers a secret shown only then (a connection URI, a password) keeps it first, before anything is checked."""
        return answers.item_of(data, "POST", path, self.description.key, self.description.answer_fields)

    def answered_instead(self, outcome):
        """What the create gave instead of the object's answer, ``outcome``: the Found found instead (kept, and
        waited for when ours), or the TaskFailure of a create the service refused. Returns the Found the walk goes on
        with, or None to let a refusal stand.

        A Found: its answer was lost (``outcome.ours``: what only the answer held, a password or a compute, is got
        otherwise), or another run made it (``outcome.ours`` false: the walk decides against it again); by default
        the latter is a warning. A refusal: a resource may take it as another run's create (a compute's, in words the
        service does not document: it returns the Found, which comes back here as one) or raise a failure that says
        more (a snapshot's limit, naming the snapshots that hold it); by default it stands."""
        if not isinstance(outcome, Found):
            return None
        if not outcome.ours:
            self.task.warnings.append("%s was created by another run at the same time%s; this run uses it." % (
                sentence(self.label), self._id_note(outcome.item)))
        return outcome

    # ------------------------------------------------------------------------------------------ its changes

    def act(self, current, plan):
        """The resource's own changes after its create or update (a compute's start, a branch's reset), as its
        ``plan`` says; returns the object."""
        return current

    def settle(self, current, plan):
        """The object once what runs on it has ended; called after every change of this run (whose own operations
        were waited for) and when nothing changed. By default, for an object whose answers hold no state of its own
        (a project): when this run changed nothing, wait for the project's operations still running on it
        (what a timed-out or an overlapping run left), so that ``wait: true`` means ready on every run."""
        if not self.task.changed:
            self.task.settle(self._project_of(current), "%s has operations still running" % self._named(current))
        return current

    def delete(self, current):
        """DELETE it and wait; 204 means an overlapping run deleted it meanwhile."""
        path = self.item_path(current)
        named = self._named(current)
        project_id = self._project_of(current)
        data = self.task.change("DELETE", path, project_id, None, "Deleting %s" % named)
        if data is not None:
            what = "%s was deleted" % named
            self.task.did(what)
            self.task.wait_for_operations_of(data, "DELETE", path, project_id, what)

    # ------------------------------------------------------------------------------------------ what the result shows

    def shown(self, current, plan=None):
        """What a diff shows of the object (never a secret); ``plan``: the plan it was made by (None: deleted)."""
        return self.description.shown(current)

    def preview(self, current, plan):
        """What ``plan`` would make of ``current`` (None: it does not exist yet), before anything is sent:
        ``(before, after, result)``, the diff's before and after, and check mode's result (the fields it keeps: the
        object as it would be, with what comes with it). It sends nothing and keeps nothing: it gives the diff
        outside check mode too, and the walk keeps check mode's result only in check mode."""
        after = planned(current, plan)
        return self.shown(current, plan), self.shown(after, plan), {self.description.key: after}

    # ------------------------------------------------------------------------------------------ the walk

    def present(self, options):
        """Make the object as ``options`` ask (the walk: not overridden)."""
        return self.task.keep_on_failure(self._present, options)

    def absent(self):
        """Delete the object (the walk: not overridden)."""
        return self.task.keep_on_failure(self._absent)

    def _find(self):
        try:
            return self.find()
        except Refusal as refusal:
            raise self.task.refused(refusal)

    def _decide(self, current, options):
        """The plan; a refusal fails the task before anything is sent."""
        try:
            plan = self.decide(current, options)
        except Refusal as refusal:
            raise self.task.refused(refusal)
        if plan.action == REFUSE:
            raise self.task.failure(plan.reason)
        return plan

    def _present(self, options):
        problem = self.input_problem(options)
        if problem:
            raise self.task.failure(problem)
        current = self._find()
        plan = self._decide(current, options)
        before, after, previewed = self.preview(current, plan)
        if self.task.check_mode:
            self.task.changed = plan.changed or plan.also_changes
            self.task.kept.update(previewed)
            return self.task.with_diff(self.task.result(), before, after)
        made_now = False
        if plan.action == CREATE:
            found = self._create(plan)
            current, made_now = found.item, found.ours
            if not found.ours:
                # Another run created it meanwhile: decided again against it, as a rerun would be (never a create).
                plan = self._decide(current, options)
                before, after = self.preview(current, plan)[:2]
        self.keep(current)
        if plan.action == UPDATE:
            current = self.task.update(self.description, self.item_path(current), self._project_of(current),
                                       current, plan, self._named(current), body=plan.update_body(current),
                                       id_field=self.id_field)
            self.keep(current)
        current = self.settle(self.act(current, plan), plan)
        if made_now:
            after = self.shown(current, plan)  # as it was made
        return self.task.with_diff(self.task.result(), before, after)

    def _create(self, plan):
        """POST the create once; a Found (``ours`` false: another run's, which the walk decides against again)."""
        path, body = self.create_request(plan)
        try:
            data, found = self.task.create(path, body, self.project_id, self.label, self._found_again)
        except TaskFailure as failure:
            data, found = None, self.answered_instead(failure)
            if found is None:
                raise
        if found is not None:
            self.keep(found.item)
            if found.ours:  # its answer was lost (task.create warned): its operations are not known, so wait for all
                what = "%s was created%s" % (self.label, self._id_note(found.item))
                self.task.did(what)
                self.task.wait_idle(self._project_of(found.item), what)
            # Another run's is decided against again, and waited for when found not ready (settle).
            return self.answered_instead(found)
        try:
            item = self.created(data, path)
        except UnexpectedAnswer as error:
            self.task.did("%s was created" % self.label)
            raise self.task.failure("%s was created, but its answer cannot be used: %s" % (
                self.label, error.describe()), error)
        what = "%s was created%s" % (self.label, self._id_note(item))
        self.task.did(what)
        self.keep(item)
        self.task.wait_for_operations_of(data, "POST", path, self._project_of(item), what)
        return Found(item, ours=True)

    def _found_again(self):
        current = self.find()  # after a create whose answer left open whether it was made
        return Found(current, ours=True) if current is not None else None

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

    def keep(self, current):
        """Put the object in every result from now on, failures included (what else a resource keeps, such as a
        branch's computes, it keeps itself when it learns it)."""
        self.task.kept[self.description.key] = current

    def item_path(self, current):
        """Its own path (its update's, its delete's): its list's, with its id."""
        return self.collection_path() + api_path(current[self.id_field])

    def _project_of(self, item):
        """The project whose operations a change of ``item`` starts: the task's, or a project's own id (a project
        found by name, or just made, has no ``project_id`` of the task)."""
        return self.project_id if self.project_id is not None else item["id"]

    # ------------------------------------------------------------------------------------------ wording

    def _id_note(self, item):
        return " (id %s)" % item.get("id") if self.id_field == "id" and isinstance(item, dict) else ""

    def _named(self, current):
        """The label with the object's id, for messages about an object that exists."""
        return "%s%s" % (self.label, " (%s)" % current["id"] if self.id_field == "id" else "")
