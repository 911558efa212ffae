# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A project (``neon.cloud.project``): what is its own beyond the walk of resource.py.

Found by id, or by its exact name among the projects the key reaches (in ``org_id`` when given)
with the reader of _account/projects.py; names are not unique, so two projects of one name is a
refusal naming both, and a listing the service could not finish is never taken to mean "absent".
Its own: the default compute settings (Postgres settings among them), applied to its existing
default compute too (the read-write compute of the default branch), which project-level settings
alone never reach (docs/docsite/rst/api-behaviour.rst); its ``settings``, whose rules are
project_settings.py's (what a PATCH sends of them, one-way settings refused, what the diff shows
and warns of); the connection URI a create answers once; and a delete that answers the project
and starts no operations.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._account.availability import (
    available_libraries,
    available_regions,
    libraries_at_create,
    libraries_problem,
    region_problem,
)
from ansible_collections.neon.cloud.plugins.module_utils._account.projects import ProjectReader
from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError
from ansible_collections.neon.cloud.plugins.module_utils._resources.endpoints import (
    COMPUTE,
    ENDPOINT_FIELDS,
    READ_WRITE,
    compute_settings_problem,
    project_endpoints,
    read_write_endpoint,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import default_branch, list_branches
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import (
    CREATE,
    NOTHING,
    REFUSE,
    UPDATE,
    Description,
    Field,
    Plan,
    decide,
    dig,
    merged,
    planned,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal, only_one
from ansible_collections.neon.cloud.plugins.module_utils._resources.project_settings import (
    COMPUTE_PG_SETTINGS,
    SETTINGS_FIELDS,
    changes_shown,
    check_settings,
    compute_settings_body,
    given_options,
    notes,
    one_way_problem,
    pg_settings_problem,
    settings_problem,
    shown_fields,
    update_settings,
    window_problem,
    with_settings_normalised,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.resource import Resource
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import Found

# What the collection reads of a project (docs/docsite/rst/api-behaviour.rst): the fields a decision compares; unknown
# fields are kept as they come. A listing reads fewer (_account/projects.py, PROJECT_FIELDS).
_TEXT_OR_NULL = (str, type(None))
FULL_PROJECT_FIELDS = dict(
    required={"id": (str,)},
    optional={"name": (str,), "region_id": (str,), "org_id": _TEXT_OR_NULL, "pg_version": (int,),
              "history_retention_seconds": (int,), "default_endpoint_settings": (dict, type(None))},
)
PROJECT = Description("project", "project", FULL_PROJECT_FIELDS, [
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
    # settings, compute.pg_settings and store_passwords: their rules are project_settings.py's.
] + SETTINGS_FIELDS)
# The default compute as a task may ask for it: COMPUTE's settings and its Postgres settings.
DEFAULT_COMPUTE = Description("compute", "endpoint", ENDPOINT_FIELDS, COMPUTE.fields + [COMPUTE_PG_SETTINGS])
# What a create's diff (and a delete's) shows of a project: its compared fields, and of its settings those given.
# An update's diff shows only what changes (project_settings.changes_shown).
SHOWN_AT_CREATION = [field.option for field in PROJECT.fields if field.compare and field not in SETTINGS_FIELDS]
# The module's options that are the project's own fields (its plan's options).
PLAN_OPTIONS = ("name", "org_id", "region_id", "pg_version", "history_retention_seconds", "compute", "settings",
                "store_passwords", "default_branch", "database", "role")


NO_COMPUTE_SETTINGS = Plan(NOTHING, "no compute settings asked")


class ProjectPlan(Plan):
    """What a task does to a project: the project's own plan (``plan``), and beyond it ``compute`` (the plan for
    its default compute, ``endpoint``: its settings applied there too), ``shown_options`` (the settings a create's
    diff shows: those given) and ``notes`` (what a change of settings does that cannot be taken back: the diff and
    warnings say it)."""

    def __init__(self, plan):
        super(ProjectPlan, self).__init__(plan.action, plan.reason, plan.body, plan.changes)
        self.compute = NO_COMPUTE_SETTINGS
        self.endpoint = None
        self.shown_options = []
        self.notes = []

    @property
    def also_changes(self):
        return self.compute.changed

    def update_body(self, current):
        """The project's PATCH: its default compute settings and its settings sent whole, so that those the task
        does not name are kept as they are."""
        body = dict(self.body)
        if "default_endpoint_settings" in body:
            body["default_endpoint_settings"] = merged(current.get("default_endpoint_settings") or {},
                                                       body["default_endpoint_settings"])
        if "settings" in body:
            body["settings"] = update_settings(current, body["settings"])
        return body


class Project(Resource):
    """The project ``project_id``, or else the one named ``name`` (in ``org_id`` when given)."""

    description = PROJECT
    path_options = ("id", "org_id")
    predicts_project = False

    def __init__(self, task, name=None, project_id=None, org_id=None, asks_settings=False, making=False):
        super(Project, self).__init__(task, project_id)
        self.name = name
        self.org_id = org_id
        self.label = "project %r" % (name or project_id)
        self.unavailable = []
        self.not_found = None  # the HTTP 404 that answered the read of project_id
        self.asks_settings = asks_settings  # whether the task compares the project's settings (read with it)
        self.making = making  # whether the task would create it (present): an unfinished listing is then refused

    @classmethod
    def options_problem(cls, options):
        if options["name"] is not None and not 1 <= len(options["name"]) <= 256:
            return "name must be 1 to 256 characters long, got %d" % len(options["name"])
        return None

    @classmethod
    def run(cls, task, options):
        if options["state"] == "absent":
            return cls(task, name=options["name"], project_id=options["id"], org_id=options["org_id"]).absent()
        wanted = dict((option, options[option]) for option in PLAN_OPTIONS)
        project = cls(task, name=options["name"], project_id=options["id"], org_id=options["org_id"], making=True,
                      asks_settings=any(dig(wanted, field.option) is not None for field in SETTINGS_FIELDS))
        return project.present(wanted)

    def find(self):
        if self.project_id is not None:
            return self._read(self.project_id)
        found = ProjectReader(self.client, name=self.name, org_id=self.org_id).read()
        self.org_id = self.org_id or found.org_id
        self.unavailable = found.unavailable
        self.task.warnings.extend(found.warnings)
        where = " in organization %s" % self.org_id if self.org_id else ""
        project = only_one(found.projects, "projects", self.name, where)
        if project is None and self.unavailable and self.making:
            # Never taken to mean "absent" by a task that would create it, nor, after a lost create answer, to mean
            # that the create was not carried out: either could make a second project of the name.
            raise self._unknown()
        if project is not None:  # listed with the fields of a list; a decision compares more of them
            answers.Checker("GET", "/projects").fields(project, "projects[id=%s]" % project["id"],
                                                       **FULL_PROJECT_FIELDS)
            if self.asks_settings and "settings" not in project:
                return self._read(project["id"])  # listed without them: the project's own answer has them
            if self.asks_settings:
                check_settings(project, "GET", "/projects")
        return project

    def _read(self, project_id):
        """GET the project (None when there is none): its settings come with it."""
        path = project_path(project_id)
        try:
            data = self.client.get(path)
        except NeonAPIError as error:
            if error.status == 404:
                self.not_found = error
                return None
            raise
        project = answers.item_of(data, "GET", path, "project", FULL_PROJECT_FIELDS, project_id)
        return check_settings(project, "GET", path) if self.asks_settings else project

    def _unknown(self):
        return Refusal("the service could not list every project in time (%s unavailable), so whether a project "
                       "named %r exists is unknown; none was created" % (", ".join(self.unavailable), self.name))

    def _no_such_id(self):
        """The sentence for an ``id`` the service answered 404: a project is only created without ``id``, so only a
        task that also names the project is told how to create one."""
        error = self.not_found
        said = ": %s" % error.api_message if error is not None and error.api_message else ""
        request = ", request id %s" % error.request_id if error is not None and error.request_id else ""
        text = "project id %s does not exist, or this API key does not reach it (HTTP 404%s%s)" % (
            self.project_id, said, request)
        if self.name is None:
            return text + (": it may have been deleted, or belong to an account or organization the key does not "
                           "reach; check id, or list the key's projects with neon.cloud.projects_info")
        return text + "; to create a project named %r, leave id out" % self.name

    def collection_path(self):
        return "/projects"

    def input_problem(self, options):
        compute = options.get("compute") or {}
        return compute_settings_problem(compute, "compute.") or pg_settings_problem(compute.get("pg_settings")) or \
            settings_problem(options.get("settings"))

    def decide(self, current, options):
        """The project's plan (a ProjectPlan) with its default compute's, or the refusal of what the service would
        refuse: a maintenance window given in part with none to complete it, a one-way setting asked back."""
        options = with_settings_normalised(options)
        if current is None and self.project_id is not None:
            raise Refusal(self._no_such_id())
        if current is None and options.get("org_id") is None and self.org_id:
            options = dict(options, org_id=self.org_id)  # the organization the service asked for when listing
        plan = ProjectPlan(decide(PROJECT, current, options, name=self.name or self.project_id))
        plan.endpoint, plan.compute = self._compute_plan(current, plan, options.get("compute"))
        plan.shown_options = given_options(SETTINGS_FIELDS, options) if current is None else []
        plan.notes = notes(current, planned(current, plan)) if plan.action in (CREATE, UPDATE) else []
        if plan.action == REFUSE:
            return plan
        problem = window_problem(current, options) or one_way_problem(current, plan.changes) or \
            self._unavailable(current, plan, options)
        return Plan(REFUSE, problem) if problem else plan

    def _unavailable(self, current, plan, options):
        """What the service does not offer of what the plan would send (None: nothing), read only when it sends it
        (docs/docsite/rst/api-behaviour.rst, "Regions and preload libraries"): a create's region (``GET /regions``,
        the organization's: one request); the preload libraries a create enables, those of its Postgres version
        (``pg_version``, else the document's default 17) as a project of that version the key sees (in the
        organization and region the project would be made in, when known) lists them: ``GET /projects`` pages of 400
        read only until one is found, then its ``available_preload_libraries`` (one request); none found, or its list
        not readable, a warning says they were not checked and nothing is refused; the preload libraries an update
        adds (the project's ``available_preload_libraries``: one request). A task that creates without naming
        libraries, or finds the project as asked, costs no request here."""
        if current is None:
            org_id = options.get("org_id")
            if options.get("region_id") is not None:
                problem = region_problem(options["region_id"], available_regions(self.client, org_id), org_id)
                if problem:
                    return problem
            wanted = dig(options, "settings.preload_libraries.enabled_libraries")
            if not wanted:
                return None
            problem, warning = libraries_at_create(self.client, wanted, options.get("pg_version"), org_id,
                                                   options.get("region_id"))
            if warning and warning not in self.task.warnings:
                self.task.warnings.append(warning)
            return problem
        libraries = plan.changes.get("settings.preload_libraries.enabled_libraries")
        if libraries is not None:
            added = [name for name in libraries[1] if name not in (libraries[0] or [])]
            if added:
                return libraries_problem(added, available_libraries(self.client, current["id"]), current["id"])
        return None

    def _compute_plan(self, current, plan, compute):
        """The default compute and the plan for it: (endpoint or None, Plan).

        The project's computes are listed (one request); when every read-write one is as asked there is
        nothing to change, whichever is the default branch's. Otherwise the branches tell which one is.
        """
        if current is None or not compute or plan.action == REFUSE:
            return None, NO_COMPUTE_SETTINGS
        endpoints = project_endpoints(self.client, current["id"])
        read_write = [endpoint for endpoint in endpoints if endpoint["type"] == READ_WRITE]
        if read_write and all(decide(DEFAULT_COMPUTE, endpoint, compute).action == NOTHING for endpoint in read_write):
            return None, Plan(NOTHING, "every read-write compute is as asked")
        default = default_branch(list_branches(self.client, current["id"]))
        endpoint = read_write_endpoint(endpoints, default["id"]) if default else None
        if endpoint is None:
            self.task.warnings.append("Project %s has no read-write compute on its default branch; the compute settings "
                                      "apply to the computes created from now on." % current["id"])
            return None, Plan(NOTHING, "no default compute")
        return endpoint, decide(DEFAULT_COMPUTE, endpoint, compute, name=None)

    def shown(self, current, plan=None):
        """What a create's (or a delete's) diff shows: its compared fields, and of its settings those given."""
        return shown_fields(current, PROJECT.fields, SHOWN_AT_CREATION + (plan.shown_options if plan else []))

    def preview(self, current, plan):
        """The diff of a create: the project as asked. Of an update: what changes and nothing else, the project's fields
        and settings and its default compute's (``default_compute``), each before and after. Check mode's result: the
        project as it would be; one not made yet has a null id (only the service gives one), which later tasks of the
        dry run take as a project an earlier task makes (refusal.Missing)."""
        predicted = planned(current, plan)
        if current is None:
            before, after = {}, self.shown(predicted, plan)
        else:
            before, after = changes_shown(PROJECT.fields, plan.changes)
            compute_before, compute_after = changes_shown(DEFAULT_COMPUTE.fields, plan.compute.changes)
            if compute_after:
                before["default_compute"], after["default_compute"] = compute_before, compute_after
        if plan.notes:
            after["notes"] = list(plan.notes)
            for note in plan.notes:
                warning = "%s: %s." % (self.label if current is None else self._named(current), note)
                if warning not in self.task.warnings:
                    self.task.warnings.append(warning)
        return before, after, {"project": predicted if current is not None else dict(predicted, id=None)}

    def created(self, data, path):
        self.task.keep_created_uri(data)  # shown only in this answer, so kept before anything in it is checked
        return answers.item_of(data, "POST", path, "project", FULL_PROJECT_FIELDS)

    def answered_instead(self, outcome):
        if not isinstance(outcome, Found):
            return None  # a refusal stands
        if outcome.ours:  # none was there before the create, so one there now is this run's
            self.task.warnings.append("Get the new project's connection URI with neon.cloud.connection_info.")
        return outcome

    def act(self, current, plan):
        """Its default compute's settings, when they differ from those asked."""
        if plan.compute.action == UPDATE:
            body = dict(plan.compute.body)
            if "settings" in body:  # its settings sent whole, its Postgres settings merged with those given
                body["settings"] = compute_settings_body(plan.endpoint, body["settings"]["pg_settings"])
            self.task.update(DEFAULT_COMPUTE, project_path(current["id"], "endpoints", plan.endpoint["id"]),
                             current["id"], plan.endpoint, plan.compute, "the default compute %s of project %s" % (
                                 plan.endpoint["id"], current["id"]), body=body)
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
