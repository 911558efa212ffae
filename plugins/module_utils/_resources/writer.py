# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one path of every task that changes something outside the walk, and the result of every task.

The walk (resource.py) makes one object of a collection. What is not one - an organization's member,
a project's grants, a VPC endpoint's assignment, a branch's backup schedule, a restore, API keys - is
a ``Writer``: a class that gives the steps below, and that a module runs with its one entry verb,
``run()``. A module's one call is ``NeonModule(...).run_writer(TheWriter)`` (_module.py): the writer's
``options_problem`` and ``path_options`` are checked, its task made, ``from_options`` builds it. The path
is written once, in ``Writer.run``:

    read -> decide -> check mode (or nothing to change) -> act -> read again -> result

- ``read()``: what the service holds now; a Refusal (no such project, a key that may not read it)
  fails the task before anything is sent.
- ``decide(current)``: the plan (``changed`` says whether it changes anything), pure where it can be;
  a Refusal for what the service would refuse, before anything is sent.
- ``diff(current, plan)``: (before, after) as the diff shows them, after as planned.
- ``as_planned(current, plan, after)``: check mode, or nothing to change: the result as it would be
  (nothing is sent); returns the diff's after.
- ``act(current, plan)``: the change's requests (failures keep what was done: ResourceTask.failure).
- ``read_again(current, done, after)``: the result as it is after the change; returns the diff's after.
- ``result(before, after)``: the task's result, with the diff when Ansible asks for one.

Two requests the writers share are written here once: ``create_or_adopt`` (a create never repeated
blindly, and what another run made meanwhile taken as the result) and ``delete`` (a DELETE that takes
a 404 as done: another run deleted it meanwhile). ``task_result`` shapes every task's result, the
walk's (task.py) too. Nothing here calls Ansible.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, TaskFailure
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal

NOT_FOUND = 404


def task_result(result, warnings=(), diff=False, before=None, after=None):
    """``result`` with its ``warnings`` (when there are any) and, when ``diff`` is asked, ``before`` and
    ``after`` as its diff (never a secret: what the caller shows of an object).

    Warnings go in the result as a list (_module.py shows them as Ansible warnings, scrubbed of secrets)."""
    if warnings:
        result["warnings"] = list(warnings)
    if diff:
        result["diff"] = dict(before=before, after=after)
    return result


class Writer:
    """A task's change outside the walk, made by ``run()`` through the steps a subclass gives.

    ``task`` is the run's ResourceTask (task.py): its requests, waits, failures that say what was done,
    and the result fields kept so far (``task.kept``)."""

    starts_operations = True  # False: none of its requests starts operations, so its result lists none
    path_options = ()  # the module's options that go into a request's path (not empty, not . or ..: _module.py)
    predicts_project = False  # in check mode, an empty project_id is a project an earlier task makes (refusal.Missing)
    waits = False  # the module has the wait options (task.WAIT_ARGUMENT_SPEC): the task waits as they ask

    def __init__(self, task):
        self.task = task
        self.client = task.client

    # ------------------------------------------------------------------------------------------ the module's options

    @classmethod
    def options_problem(cls, options):
        """What the module's ``options`` alone say is wrong, checked before anything else: the task fails with
        this sentence alone. None: nothing."""
        return None

    @classmethod
    def from_options(cls, task, options):
        """The writer the module's ``options`` ask for."""
        return cls(task, options)

    # ------------------------------------------------------------------------------------------ the path

    def run(self):
        """The one entry verb: read, decide, check mode, act, read again, the result."""
        return self.task.keep_on_failure(self._steps)

    def _steps(self):
        current = self.unless_refused(self.read)
        plan = self.unless_refused(self.decide, current)
        before, after = self.diff(current, plan)
        if self.task.check_mode or not plan.changed:
            self.task.changed = plan.changed
            after = self.as_planned(current, plan, after)
        else:
            after = self.read_again(current, self.act(current, plan), after)
        return self.result(before, after)

    def unless_refused(self, step, *args):
        """``step(*args)``, a Refusal turned into the task's failure."""
        try:
            return step(*args)
        except Refusal as refusal:
            raise self.task.refused(refusal)

    # ------------------------------------------------------------------------------------------ the steps

    def read(self):
        """What the service holds now."""
        raise NotImplementedError

    def decide(self, current):
        """The plan, with ``changed``."""
        raise NotImplementedError

    def diff(self, current, plan):
        """(before, after) for the diff, after as planned."""
        raise NotImplementedError

    def as_planned(self, current, plan, after):
        """Check mode, or nothing to change: the result fields as they would be; the diff's after."""
        return after

    def act(self, current, plan):
        """Carry the plan out; what ``read_again`` needs."""
        raise NotImplementedError

    def read_again(self, current, done, after):
        """The result fields as they are after the change; the diff's after."""
        return after

    def result(self, before, after):
        """The task's result with the diff when asked (without ``operations`` when its requests start none)."""
        result = self.task.result()
        if not self.starts_operations:
            del result["operations"]
        return self.task.with_diff(result, before, after)

    # ------------------------------------------------------------------------------------------ shared requests

    def create_or_adopt(self, path, body, label, find_again, project_id=None, duplicate_status=None,
                        by_another_run=None):
        """POST a create once (ResourceTask.create: a lost answer looked for again, never posted blindly):
        (answer, None), or (None, Found) when looking again found it (``Found.ours`` False: another run's).

        ``duplicate_status``: the status of a duplicate the service refuses in words other than "already
        exists"; looking again after it finds another run's. ``by_another_run(item)``: the warning when
        the result is another run's."""
        try:
            data, found = self.task.create(path, body, project_id, label, find_again)
        except TaskFailure as failure:
            if duplicate_status is None or getattr(failure.cause, "status", None) != duplicate_status:
                raise
            data, found = None, find_again()
            if found is None:
                raise
            found.ours = False
        if found is not None and not found.ours and by_another_run is not None:
            self.task.warnings.append(by_another_run(found.item))
        return data, found

    def delete(self, path, label, project_id=None, no_content=False, gone=None):
        """DELETE ``path``: (True, its answer), or (False, None) when it was gone already (HTTP 404: another run
        deleted it meanwhile; ``gone``, when given, is the warning). Any other failure fails the task as
        "``label`` failed", with what was done."""
        try:
            return True, self.task.send("DELETE", path, project_id, no_content=no_content)
        except NeonAPIError as error:
            if error.status != NOT_FOUND:
                raise self.task.failure("%s failed: %s" % (label, error.describe()), error)
            if gone:
                self.task.warnings.append(gone)
            return False, None
