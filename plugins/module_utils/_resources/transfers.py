# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Projects moved into an organization (``neon.cloud.project_transfer``), two ways (docs/docsite/rst/api-behaviour.rst,
"Moving projects between accounts"):

- between organizations, with one key: ``POST /organizations/{source_org_id}/projects/transfer``
  ``{"destination_org_id", "project_ids"}`` (at most 400 ids a request; 200 with an empty object). The personal API
  key of a user who is an admin of the source and a member of the destination.
- by a transfer request, one project at a time, with two keys: ``POST /projects/{id}/transfer_requests`` with the
  key of the account the project is in (201, the request's ``id``), then ``PUT
  /projects/{id}/transfer_requests/{request_id}`` ``{"org_id"}`` with the destination's key (204). The request's id
  is a claim link (a PUT without ``org_id`` moves the project into the caller's own account), so it is a secret of
  the task: never shown. The request is made with a short ``ttl_seconds`` (``request_ttl``), so that one left
  unaccepted (the accept refused, or its answer lost) dies soon.

Rerun-safe: where each project is now is read first (the two organizations' project lists, or each project with the
destination's key, then the source's), and a project already in the destination is not moved again. More than 400
ids are sent as requests of 400: a run that fails part way has moved whole requests, and its rerun moves what is
left. A request refused because a project is in the destination already (another run moved it meanwhile) is read
again and what is left sent once more.

``transfer_plan`` and ``batches`` are pure and unit-tested; ``ProjectTransfer`` is a Writer (writer.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
from collections import OrderedDict

from ansible_collections.neon.cloud.plugins.module_utils._account.projects import ProjectReader
from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import api_path, project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.connection import key_problem, make_client
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import no_such_project
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Missing, OptionError, Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import Writer

TRANSFER_MAX = 400  # project ids a request (TransferProjectsToOrganizationRequest, maxItems)
CONFLICT = 409
ID_PATTERN = re.compile(r"^[a-z0-9-]{1,60}$")
PERSONAL = None  # where a personal project is: in no organization
REQUEST_FIELDS = dict(required={"id": (str,)}, optional={"project_id": (str,), "created_at": (str,),
                                                         "expires_at": (str,)})
PROJECT_FIELDS = dict(required={"id": (str,)}, optional={"org_id": (str, type(None)), "name": (str,)})
BULK_KEY = ("moving projects between organizations takes the personal API key of a user who is an admin of the source "
            "organization and a member of the destination (an organization key reaches one organization only)")
UNAUTHORIZED = 401
# A transfer request's life (ttl_seconds): at least this, and the time one accept request can take with its retries
# (request_ttl); the document sets no minimum (docs/docsite/rst/api-behaviour.rst, "Moving projects between accounts").
REQUEST_TTL_MARGIN = 60
DESTINATION_KEY_REFUSED = ("the service did not accept destination_api_key itself (HTTP 401): it is wrong, revoked "
                           "or expired (api_key was not the key refused)")
REQUEST_KEYS = ("a transfer request is made with api_key, the personal key of the project's owner or of an admin of "
                "its organization (or its organization key), and accepted with destination_api_key, a key of the "
                "destination organization")


def request_ttl(params):
    """The ``ttl_seconds`` of a transfer request: the longest one accept request may take (each attempt's
    api_timeout, the waits between retries) and a margin, so the accept that follows at once has its time and a
    request left unaccepted expires within minutes, not the service's default 24 hours."""
    retries = max(0, int(params.get("api_retries") or 0))
    longest = (retries + 1) * float(params.get("api_timeout") or 0) + retries * float(
        params.get("api_retry_max_delay") or 0)
    return int(longest) + 1 + REQUEST_TTL_MARGIN


def options_problem(params):
    """What the options alone get wrong (checked before any request)."""
    ids = params.get("project_ids") or []
    if not ids:
        return "project_ids must name at least one project"
    for index, project_id in enumerate(ids):
        if project_id and not ID_PATTERN.match(project_id):
            return "project_ids[%d] is not a project id (lower-case letters, digits and -, at most 60), got %r" % (
                index, project_id)
    destination = params.get("destination_org_id")
    if not destination or not ID_PATTERN.match(destination):
        return "destination_org_id must be an organization id such as org-calm-tree-21298941, got %r" % (destination,)
    source = params.get("source_org_id")
    if params.get("destination_api_key") is not None:
        problem = key_problem("destination_api_key", params["destination_api_key"],
                              "give the key of the destination organization")
        if problem:
            return problem
        if source:
            return ("source_org_id is for moving projects between organizations with one key; with "
                    "destination_api_key each project moves by a transfer request from wherever it is: leave one out")
        return None
    if not source:
        return ("source_org_id is required to move projects between organizations with one key; or give "
                "destination_api_key to move each project by a transfer request that the destination's key accepts")
    if not ID_PATTERN.match(source):
        return "source_org_id must be an organization id such as org-calm-tree-21298941, got %r" % (source,)
    if source == destination:
        return "source_org_id and destination_org_id are the same organization, %s" % source
    return None


def unique(ids):
    """The ids in their order, each once."""
    seen = set()
    return [item for item in ids if not (item in seen or seen.add(item))]


def transfer_plan(where, destination):
    """(to move, already there) of ``where`` (project id -> the organization it is in, None for personal; pure)."""
    already = [project_id for project_id, org_id in where.items() if org_id == destination]
    return [project_id for project_id in where if project_id not in already], already


def batches(ids, size=TRANSFER_MAX):
    """``ids`` in requests of at most ``size`` (pure)."""
    return [ids[start:start + size] for start in range(0, len(ids), size)]


class TransferPlan:
    def __init__(self, to_move, already):
        self.to_move = to_move
        self.already = already

    @property
    def changed(self):
        return bool(self.to_move)


class ProjectTransfer(Writer):
    """Projects moved into ``destination_org_id`` (see the module's text)."""

    starts_operations = False

    def __init__(self, task, params):
        super(ProjectTransfer, self).__init__(task)
        self.params = params
        empty = [index for index, project_id in enumerate(params["project_ids"]) if not project_id]
        if empty and not task.check_mode:
            raise OptionError("project_ids[%d] is empty: give the id of a project (in check mode, an empty id is a "
                              "project an earlier task of the play would make)" % empty[0])
        self.ids = unique(params["project_ids"])
        self.destination = params["destination_org_id"]
        self.source = params.get("source_org_id")
        self.destination_client = None
        if params.get("destination_api_key"):
            key = params["destination_api_key"].strip()
            self.client.remember_secret(key)
            self.destination_client = make_client(dict(params, api_key=key))
            self.destination_client.remember_secret(params["api_key"].strip())

    @classmethod
    def options_problem(cls, options):
        return options_problem(options)

    def run(self):
        try:
            return super(ProjectTransfer, self).run()
        finally:
            if self.destination_client is not None:
                self.destination_client.close()

    # ------------------------------------------------------------------------------------------ reading

    def read(self):
        """Project id -> the organization it is in now (None: personal)."""
        where = {}
        for project_id in self.ids:
            if not project_id:
                where[project_id] = self.task.assume(Missing(
                    "project_ids has an empty project id", "a project of project_ids (empty here)", stand_in=PERSONAL))
        asked = [project_id for project_id in self.ids if project_id]
        if self.destination_client is None:
            where.update(self._read_organizations(asked))
        else:
            for project_id in asked:
                where[project_id] = self._read_one(project_id)
        return OrderedDict((project_id, where[project_id]) for project_id in self.ids)  # in the order asked

    def _listed(self, org_id):
        try:
            found = ProjectReader(self.client, org_id=org_id, org_id_fallback=False).read()
        except NeonAPIError as error:
            if error.status in (401, 403, 404):
                raise Refusal("Listing the projects of organization %s was refused: %s; %s" % (
                    org_id, error.describe(), BULK_KEY), error)
            raise
        return found

    def _read_organizations(self, asked):
        """Where each asked project is, from the two organizations' listings: the source's read first, then the
        destination's, so that a project another run moves meanwhile (source to destination, the one way a transfer
        goes) is seen in one of them at least; seen in both, it has moved, and the destination's listing tells."""
        source, destination = self._listed(self.source), self._listed(self.destination)
        here = dict((project["id"], self.source) for project in source.projects)
        here.update((project["id"], self.destination) for project in destination.projects)
        moved = [project["id"] for project in source.projects if project["id"] in asked and
                 here[project["id"]] == self.destination]
        if moved:
            self.task.warnings.append("project(s) %s were moved to organization %s by another run at the same time (in "
                                      "the source when this run listed it, in the destination a moment later); this "
                                      "run does not move them again" % (", ".join(sorted(set(moved))), self.destination))
        unavailable = set(destination.unavailable) | set(source.unavailable)
        where = {}
        for project_id in asked:
            if project_id in here:
                where[project_id] = here[project_id]
            elif project_id in unavailable:
                raise Refusal("the service could not read project %s in time, so where it is is unknown: run the "
                              "task again" % project_id)
            else:
                where[project_id] = self.task.assume(Missing(
                    "project %s is in neither organization %s nor %s (as this key lists them)" % (
                        project_id, self.source, self.destination),
                    "project %s" % project_id, stand_in=self.source))
        return where

    def _get(self, client, project_id):
        """The project as ``client``'s key reads it, or None when that key does not reach it (403 or 404)."""
        path = project_path(project_id)
        try:
            data = client.get(path)
        except NeonAPIError as error:
            if error.status in (403, 404):
                return None
            if error.status == UNAUTHORIZED and client is self.destination_client:
                raise Refusal("Reading project %s with destination_api_key failed: %s; %s" % (
                    project_id, error.describe(), DESTINATION_KEY_REFUSED), error)
            raise
        try:
            return answers.item_of(data, "GET", path, "project", PROJECT_FIELDS, project_id)
        except UnexpectedAnswer as error:
            raise Refusal("the answer about project %s cannot be used: %s" % (project_id, error.describe()), error)

    def _read_one(self, project_id):
        """Where one project is: the destination's key first (it reaches the project once moved), then api_key's."""
        seen = self._get(self.destination_client, project_id)
        if seen is not None and seen.get("org_id") == self.destination:
            return self.destination
        path = project_path(project_id)
        try:
            data = self.client.get(path)
        except NeonAPIError as error:
            if error.status in (403, 404):
                return self.task.assume(Missing(no_such_project(project_id, error), "project %s" % project_id,
                                                stand_in=PERSONAL, error=error))
            raise
        try:
            return answers.item_of(data, "GET", path, "project", PROJECT_FIELDS, project_id).get("org_id")
        except UnexpectedAnswer as error:
            raise Refusal("the answer about project %s cannot be used: %s" % (project_id, error.describe()), error)

    # ------------------------------------------------------------------------------------------ deciding

    def decide(self, current):
        to_move, already = transfer_plan(current, self.destination)
        self.task.kept.update(destination_org_id=self.destination, transferred=[], already_in_destination=already)
        return TransferPlan(to_move, already)

    def diff(self, current, plan):
        before = dict(projects=dict((project_id, current[project_id]) for project_id in self.ids))
        after = dict(projects=dict((project_id, self.destination) for project_id in self.ids))
        return before, after

    def as_planned(self, current, plan, after):
        self.task.kept["transferred"] = list(plan.to_move)
        return after

    # ------------------------------------------------------------------------------------------ acting

    def act(self, current, plan):
        if self.destination_client is None:
            sent = batches(plan.to_move)
            for number, batch in enumerate(sent, 1):
                self._move_batch(batch, "request %d of %d" % (number, len(sent)) if len(sent) > 1 else "the request")
        else:
            for project_id in plan.to_move:
                self._move_by_request(project_id)
        return None

    def _moved(self, ids, how=""):
        self.task.kept["transferred"].extend(ids)
        self.task.did("moved %s to organization %s%s" % (
            "project %s" % ids[0] if len(ids) == 1 else "%d projects (%s)" % (len(ids), ", ".join(ids)),
            self.destination, how))

    def _move_batch(self, batch, which, again=True):
        """One request of ``batch`` (``which``: "request 2 of 3", in a message)."""
        path = api_path("organizations", self.source, "projects", "transfer")
        label = "Moving %d project(s) from organization %s to %s" % (len(batch), self.source, self.destination)
        try:
            self.task.send("POST", path, None, {"destination_org_id": self.destination, "project_ids": batch},
                           no_content=True)
        except NeonAPIError as error:
            msg = "%s failed: %s" % (label, error.describe())
            if error.status in (401, 403):
                raise self.task.failure("%s; %s" % (msg, BULK_KEY), error)
            if error.ambiguous and self.task.done:  # else the failure's ending says its outcome is unknown
                raise self.task.failure(
                    "%s; whether %s moved its %d project(s) (%s) is unknown: run the task again, it reads where each "
                    "project is" % (msg, which, len(batch), ", ".join(batch)), error)
            if error.status != CONFLICT or not again:
                raise self.task.failure(msg, error)
            self._after_conflict(batch, which, msg, error)
            return
        self._moved(batch)

    def _after_conflict(self, batch, which, msg, error):
        """A request refused because a project is in the destination already: another run moved it meanwhile. What is
        still in the source is sent once more; the rest is reported as another run's."""
        try:
            where = self._read_organizations(batch)
        except Refusal as refusal:
            raise self.task.failure("%s; reading again where its projects are: %s" % (msg, refusal.msg),
                                    refusal.cause or error)
        left, there = transfer_plan(dict((project_id, where[project_id]) for project_id in batch), self.destination)
        if len(there) == 0:
            raise self.task.failure(msg, error)
        self.task.kept["already_in_destination"].extend(there)
        self.task.warnings.append("project(s) %s were moved to organization %s by another run at the same time (this "
                                  "run's request was refused: %s)" % (", ".join(there), self.destination,
                                                                      error.describe()))
        left = [project_id for project_id in left if where[project_id] == self.source]
        if left:
            self._move_batch(left, which, again=False)

    def _keep_secret(self, request_id):
        """A transfer request's id: a claim link (accepted without org_id, it moves the project into the caller's own
        account), so no message, result or error of this task shows it."""
        if isinstance(request_id, str) and request_id:
            for client in (self.client, self.destination_client):
                client.remember_secret(request_id)

    def _move_by_request(self, project_id):
        made_path = project_path(project_id, "transfer_requests")
        try:
            data = self.task.send("POST", made_path, None, {"ttl_seconds": request_ttl(self.params)})
        except NeonAPIError as error:
            msg = "Creating a transfer request for project %s failed: %s" % (project_id, error.describe())
            if error.status in (401, 403):
                msg += "; " + REQUEST_KEYS
            raise self.task.failure(msg, error)
        if isinstance(data, dict):
            self._keep_secret(data.get("id"))
        try:
            request = answers.Checker("POST", made_path).fields(data, "the answer", **REQUEST_FIELDS)
        except UnexpectedAnswer as error:
            self.task.did("made a transfer request for project %s, which expires unaccepted" % project_id)
            raise self.task.failure("the transfer request's answer cannot be used: %s" % error.describe(), error)
        path = project_path(project_id, "transfer_requests", request["id"])
        try:
            self.destination_client.request("PUT", path, body={"org_id": self.destination})
        except NeonAPIError as error:
            self._not_accepted(project_id, request, error)
            return
        self._moved([project_id], " by a transfer request")

    def _not_accepted(self, project_id, request, error):
        """The accept of this run's transfer request failed: another run's move, or the task's failure saying that a
        request was made (and when it expires), or that whether the project moved is unknown."""
        if error.status == CONFLICT:
            seen = self._get(self.destination_client, project_id)
            if seen is not None and seen.get("org_id") == self.destination:
                self.task.kept["already_in_destination"].append(project_id)
                self.task.warnings.append("project %s was moved to organization %s by another run at the same "
                                          "time (accepting this run's request was refused: %s)" % (
                                              project_id, self.destination, error.describe()))
                return
        msg = "Accepting the transfer request of project %s with destination_api_key failed: %s" % (
            project_id, error.describe())
        if error.ambiguous:
            self.task.did("made a transfer request for project %s and sent its accept, whose answer was lost" %
                          project_id)
            raise self.task.failure("%s; whether project %s moved to organization %s is unknown: run the task again, "
                                    "it reads where the project is" % (msg, project_id, self.destination), error)
        if error.status == UNAUTHORIZED:
            msg += "; " + DESTINATION_KEY_REFUSED
        elif error.status == 403:
            msg += "; " + REQUEST_KEYS
        self.task.did("made a transfer request for project %s, which expires unaccepted %s" % (
            project_id, "at %s" % request["expires_at"] if request.get("expires_at") else "soon"))
        raise self.task.failure(msg, error)
