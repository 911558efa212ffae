# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The project task: a project as asked, its default compute included, or no project.

A project is found by id, or by its exact name among the projects the key reaches (in
``org_id`` when given) with the reader of _account/projects.py; names are not unique, so two projects of
one name is a refusal naming both. The compute settings are the project's default compute
settings and are applied to its existing default compute too (the read-write compute of the
default branch), which project-level settings alone never reach (docs/docsite/rst/api-behaviour.rst).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._branches import (
    COMPUTE,
    list_branches,
    project_endpoints,
    project_path,
)
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._account.projects import ProjectReader
from ansible_collections.neon.cloud.plugins.module_utils._resource_plan import (
    CREATE,
    NOTHING,
    READ_WRITE,
    REFUSE,
    UPDATE,
    Description,
    Field,
    Plan,
    Refusal,
    compute_settings_problem,
    decide,
    default_branch,
    merged,
    only_one,
    planned,
    read_write_endpoint,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources import Found

PROJECT = Description("project", "project", answers.FULL_PROJECT_FIELDS, [
    Field("name"),
    Field("region_id", create_only=True),
    Field("pg_version", create_only=True),
    Field("org_id", create_only=True),
    Field("history_retention_seconds"),
    Field("compute.min_cu", "default_endpoint_settings.autoscaling_limit_min_cu"),
    Field("compute.max_cu", "default_endpoint_settings.autoscaling_limit_max_cu"),
    Field("compute.suspend_timeout_seconds", "default_endpoint_settings.suspend_timeout_seconds"),
    # What creation provisions: sent only then (they can be renamed later, as any branch, role or database).
    Field("default_branch", "branch.name", compare=False),
    Field("database", "branch.database_name", compare=False),
    Field("role", "branch.role_name", compare=False),
])


class ProjectTask:
    """One ``neon.cloud.project`` task."""

    def __init__(self, task, name=None, project_id=None, org_id=None):
        self.task = task
        self.client = task.client
        self.name = name
        self.project_id = project_id
        self.org_id = org_id
        self.label = "project %r" % (name or project_id)
        self.unavailable = []

    def _find(self):
        if self.project_id is not None:
            path = project_path(self.project_id)
            try:
                data = self.client.get(path)
            except NeonAPIError as error:
                if error.status == 404:
                    return None
                raise
            return answers.item_of(data, "GET", path, "project", answers.FULL_PROJECT_FIELDS, self.project_id)
        found = ProjectReader(self.client, name=self.name, org_id=self.org_id).read()
        self.org_id = self.org_id or found.org_id
        self.unavailable = found.unavailable
        self.task.warnings.extend(found.warnings)
        where = " in organization %s" % self.org_id if self.org_id else ""
        project = only_one(found.projects, "projects", self.name, where)
        if project is not None:  # listed with the fields of a list; a decision compares more of them
            answers.Checker("GET", "/projects").fields(project, "projects[id=%s]" % project["id"],
                                                       **answers.FULL_PROJECT_FIELDS)
        return project

    # ------------------------------------------------------------------------------------------ absent

    def absent(self):
        return self.task.run(self._absent)

    def _absent(self):
        try:
            current = self._find()
        except Refusal as refusal:
            raise self.task.refused(refusal)
        plan = decide(PROJECT, current, {}, state="absent", name=self.name or self.project_id)
        if plan.action == NOTHING:
            return self.task.with_diff(self.task.result(project=None), {}, {})
        before = PROJECT.shown(current)
        self.task.kept["project"] = current
        if self.task.check_mode:
            self.task.changed = True
            return self.task.with_diff(self.task.result(), before, {})
        path = project_path(current["id"])
        try:
            self.task.send("DELETE", path, current["id"])
        except NeonAPIError as error:
            if error.status != 404:
                raise self.task.failure("Deleting project %r (%s) failed: %s" % (
                    current.get("name"), current["id"], error.describe()), error)
            return self.task.with_diff(self.task.result(), before, {})  # deleted meanwhile
        # DELETE /projects/{id} answers the project and no operations (docs/docsite/rst/api-behaviour.rst).
        self.task.did("project %r (%s) was deleted" % (current.get("name"), current["id"]))
        return self.task.with_diff(self.task.result(), before, {})

    # ------------------------------------------------------------------------------------------ present

    def present(self, options):
        return self.task.run(self._present, options)

    def _present(self, options):
        problem = compute_settings_problem(options.get("compute") or {}, "compute.")
        if problem:
            raise self.task.failure(problem)
        try:
            current = self._find()
            if current is None and self.project_id is not None:
                raise Refusal("there is no project with id %s that this key reaches; leave id out to create a project "
                              "named %r" % (self.project_id, self.name))
            if current is None and self.unavailable:
                raise Refusal("the service could not list every project in time (%s unavailable), so whether a project "
                              "named %r exists is unknown; none was created" % (", ".join(self.unavailable), self.name))
            if current is None and options.get("org_id") is None and self.org_id:
                options = dict(options, org_id=self.org_id)  # the organization the service asked for when listing
            plan = decide(PROJECT, current, options, name=self.name or self.project_id)
            endpoint, compute_plan = self._compute_plan(current, plan, options.get("compute"))
        except Refusal as refusal:
            raise self.task.refused(refusal)
        if plan.action == REFUSE:
            raise self.task.failure(plan.reason)
        if plan.action == CREATE:
            return self._create(plan)
        before = dict(PROJECT.shown(current), default_compute=COMPUTE.shown(endpoint) if endpoint else None)
        after = dict(PROJECT.shown(planned(current, plan)),
                     default_compute=COMPUTE.shown(planned(endpoint, compute_plan)) if endpoint else None)
        self.task.kept["project"] = current
        if self.task.check_mode:
            self.task.changed = plan.changed or compute_plan.changed
            self.task.kept["project"] = planned(current, plan)
            return self.task.with_diff(self.task.result(), before, after)
        if not plan.changed and not compute_plan.changed:
            self.task.settle(current["id"], "project %r (%s) has operations still running" % (
                current.get("name"), current["id"]))  # what a timed-out or an overlapping run left running
            return self.task.with_diff(self.task.result(), before, after)
        if plan.action == UPDATE:
            body = dict(plan.body)
            if "default_endpoint_settings" in body:
                # Sent whole, so that settings the task does not name are kept as they are.
                body["default_endpoint_settings"] = merged(current.get("default_endpoint_settings") or {},
                                                           body["default_endpoint_settings"])
            self.task.kept["project"] = self.task.update(
                PROJECT, project_path(current["id"]), current["id"], current, plan,
                "project %r (%s)" % (current.get("name"), current["id"]), body=body)
        if compute_plan.action == UPDATE:
            self.task.update(COMPUTE, project_path(current["id"], "endpoints", endpoint["id"]), current["id"], endpoint,
                             compute_plan, "the default compute %s of project %s" % (endpoint["id"], current["id"]))
        return self.task.with_diff(self.task.result(), before, after)

    def _compute_plan(self, current, plan, compute):
        """The default compute and the plan for it: (endpoint or None, Plan).

        The project's computes are listed (one request); when every read-write one is as asked there is
        nothing to change, whichever is the default branch's. Otherwise the branches tell which one is.
        """
        if current is None or not compute or plan.action == REFUSE:
            return None, Plan(NOTHING, "no compute settings asked")
        endpoints = project_endpoints(self.client, current["id"])
        read_write = [endpoint for endpoint in endpoints if endpoint["type"] == READ_WRITE]
        if read_write and all(decide(COMPUTE, endpoint, compute).action == NOTHING for endpoint in read_write):
            return None, Plan(NOTHING, "every read-write compute is as asked")
        default = default_branch(list_branches(self.client, current["id"]))
        endpoint = read_write_endpoint(endpoints, default["id"]) if default else None
        if endpoint is None:
            self.task.warnings.append("Project %s has no read-write compute on its default branch; the compute settings "
                                      "apply to the computes created from now on." % current["id"])
            return None, Plan(NOTHING, "no default compute")
        return endpoint, decide(COMPUTE, endpoint, compute, name=None)

    def _create(self, plan):
        if self.task.check_mode:
            self.task.changed = True
            return self.task.with_diff(self.task.result(project=dict(plan.body)), {}, PROJECT.shown(plan.body))
        path = "/projects"
        data, found = self.task.create(path, {"project": plan.body}, None, self.label, self._find_again)
        if found is not None:
            what = "%s was created (id %s)" % (self.label, found.item["id"])
            self.task.did(what)
            self.task.kept["project"] = found.item
            self.task.warnings.append("Get the new project's connection URI with neon.cloud.connection_info.")
            self.task.wait_idle(found.item["id"], what)
            return self.task.with_diff(self.task.result(), {}, PROJECT.shown(found.item))
        # Shown only in this answer: kept before anything else in it is checked, so that no failure loses it.
        self.task.keep_created_uri(data)
        try:
            project = answers.item_of(data, "POST", path, "project", answers.FULL_PROJECT_FIELDS)
        except UnexpectedAnswer as error:
            self.task.did("%s was created" % self.label)
            raise self.task.failure("%s was created, but its answer cannot be used: %s" % (
                self.label, error.describe()), error)
        what = "%s was created (id %s)" % (self.label, project["id"])
        self.task.did(what)
        self.task.kept["project"] = project
        self.task.started(data, "POST", path, project["id"], what)
        return self.task.with_diff(self.task.result(), {}, PROJECT.shown(project))

    def _find_again(self):
        current = self._find()  # none was there before the create, so one there now is this run's
        return Found(current, ours=True) if current is not None else None
