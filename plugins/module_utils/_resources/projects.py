# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A project (``neon.cloud.project``): what is its own beyond the walk of resource.py.

Found by id, or by its exact name among the projects the key reaches (in ``org_id`` when given)
with the reader of _account/projects.py; names are not unique, so two projects of one name is a
refusal naming both, and a listing the service could not finish is never taken to mean "absent".
Its own: the default compute settings, applied to its existing default compute too (the
read-write compute of the default branch), which project-level settings alone never reach
(docs/docsite/rst/api-behaviour.rst); the connection URI a create answers once; and a delete that
answers the project and starts no operations.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._account.projects import ProjectReader
from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError
from ansible_collections.neon.cloud.plugins.module_utils._resources.descriptions import (
    COMPUTE,
    PROJECT,
    READ_WRITE,
    compute_settings_problem,
    default_branch,
    read_write_endpoint,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import list_branches, project_endpoints
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import (
    NOTHING,
    REFUSE,
    UPDATE,
    Plan,
    Refusal,
    decide,
    merged,
    only_one,
    planned,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.resource import Resource


class Project(Resource):
    """The project ``project_id``, or else the one named ``name`` (in ``org_id`` when given)."""

    description = PROJECT

    def __init__(self, task, name=None, project_id=None, org_id=None):
        super(Project, self).__init__(task, project_id)
        self.name = name
        self.org_id = org_id
        self.label = "project %r" % (name or project_id)
        self.unavailable = []
        self.endpoint = None  # its default compute, when compute settings are asked
        self.compute_plan = Plan(NOTHING, "no compute settings asked")

    def find(self):
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

    def find_again(self):
        """After a lost create answer: a listing the service could not finish is never taken to mean that
        the create was not carried out (asking again could make a second project of the name)."""
        current = self.find()
        if current is None and self.unavailable:
            raise self._unknown()
        return current

    def _unknown(self):
        return Refusal("the service could not list every project in time (%s unavailable), so whether a project "
                       "named %r exists is unknown; none was created" % (", ".join(self.unavailable), self.name))

    def collection_path(self):
        return "/projects"

    def item_path(self, current):
        return project_path(current["id"])

    def operations_project(self, item):
        return item["id"] if item is not None else None

    def input_problem(self, options):
        return compute_settings_problem(options.get("compute") or {}, "compute.")

    def decide(self, current, options):
        if current is None and self.unavailable:
            raise self._unknown()
        if current is None and self.project_id is not None:
            raise Refusal("there is no project with id %s that this key reaches; leave id out to create a project "
                          "named %r" % (self.project_id, self.name))
        if current is None and options.get("org_id") is None and self.org_id:
            options = dict(options, org_id=self.org_id)  # the organization the service asked for when listing
        plan = decide(PROJECT, current, options, name=self.name or self.project_id)
        self.endpoint, self.compute_plan = self._compute_plan(current, plan, options.get("compute"))
        return plan

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

    def diff(self, current, plan):
        if current is None:
            return {}, PROJECT.shown(planned(None, plan))
        before = dict(PROJECT.shown(current), default_compute=COMPUTE.shown(self.endpoint) if self.endpoint else None)
        after = dict(PROJECT.shown(planned(current, plan)),
                     default_compute=COMPUTE.shown(planned(self.endpoint, self.compute_plan)) if self.endpoint else None)
        return before, after

    def pending(self, current, plan):
        return self.compute_plan.changed

    def stateless(self):
        return True  # only the project's operations tell whether a change still runs on it

    def update_body(self, current, plan):
        body = dict(plan.body)
        if "default_endpoint_settings" in body:
            # Sent whole, so that settings the task does not name are kept as they are.
            body["default_endpoint_settings"] = merged(current.get("default_endpoint_settings") or {},
                                                       body["default_endpoint_settings"])
        return body

    def take_answer(self, data):
        self.task.keep_created_uri(data)  # shown only in this answer

    def created(self, data, path):
        return answers.item_of(data, "POST", path, "project", answers.FULL_PROJECT_FIELDS)

    def on_found(self, found):
        if found.ours:  # none was there before the create, so one there now is this run's
            self.task.warnings.append("Get the new project's connection URI with neon.cloud.connection_info.")

    def act(self, current, plan):
        if self.compute_plan.action == UPDATE:
            self.task.update(COMPUTE, project_path(current["id"], "endpoints", self.endpoint["id"]), current["id"],
                             self.endpoint, self.compute_plan, "the default compute %s of project %s" % (
                                 self.endpoint["id"], current["id"]))
        return current

    def _named(self, current):
        return "project %r (%s)" % (current.get("name"), current["id"])

    def delete(self, current):
        """DELETE /projects/{id} answers the project and no operations (docs/docsite/rst/api-behaviour.rst);
        a 404 means an overlapping run deleted it meanwhile."""
        try:
            self.task.send("DELETE", self.item_path(current), current["id"])
        except NeonAPIError as error:
            if error.status != 404:
                raise self.task.failure("Deleting %s failed: %s" % (self._named(current), error.describe()), error)
            return
        self.task.did("%s was deleted" % self._named(current))
