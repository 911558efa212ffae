# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Projects moved between accounts (the June 2026 document): ``POST /organizations/{source_org_id}/projects/transfer``
(transferProjectsFromOrgToOrg: ``{"destination_org_id", "project_ids"}``, 1 to 400 ids, 200 ``{}``; 406
LimitsUnsatisfiedResponse; 422 ProjectsWithIntegrationResponse), and the request-and-accept transfer of one project:
``POST /projects/{project_id}/transfer_requests`` (``{"ttl_seconds"}``, default 86400: 201
ProjectTransferRequestResponse) and ``PUT /projects/{project_id}/transfer_requests/{request_id}`` (``{"org_id"}``,
optional: 204 without a body; 406 AcceptProjectTransferRequestSatisfiesPlanError).

The area's object is state.transfers (the shared data and helpers of shared.py); its ``api_*`` methods take the
authenticating key, hold the state's lock and answer JSON-like data, or (status, body) for a 406.

CHOICES (the document says only what is above; Neon's guide "Transfer projects" says the API moves up to 400 projects
a request, needs at least the member role in the destination and the admin role in a source organization, and
refuses plans that do not match and projects with a GitHub or Vercel integration):

- Between organizations: the personal API key of a user who is an admin of the source and a member (any role) of
  the destination; an organization key (which reaches one organization only) and a project-scoped key get 403.
  A destination the user does not belong to (or that does not exist): 403, as every organization the key cannot
  see. The destination being the source: 400.
- The request is all or nothing: a project id that is not a project of the source answers 404 naming it, one that
  is in the destination already 409 naming it (MESSAGE_ALREADY_THERE), and nothing moves. Repeated ids count once.
- Plans: a destination whose plan ranks below the source's (PLAN_RANK; an unknown plan ranks with any) answers 406
  with the limit ``subscription_type``; an accepted request into such an organization 406 with the reason
  ``subscription_type``. No simulated project has an integration, so 422 is never answered.
- A transfer request: made with a key that may manage the project (the owner's personal key for a personal project;
  for an organization's, an admin's personal key or the organization's key); a project-scoped key gets 403. It is
  accepted by the recipient's key, which need not reach the project: with ``org_id``, into that organization (a
  member's personal key, or that organization's key); without it, into the key's account (the user's personal
  projects, or the organization of an organization key). An unknown, spent or expired request: 404. A project
  already in the account it would go to: 409, and the request stays unspent. A request is spent once accepted.
- A moved project keeps its id, owner, branches and computes; a project-scoped key of the organization it left stops
  working (access.py), and the explicit project roles given in that organization (project_roles.py) no longer apply.
"""

from __future__ import annotations

from . import access, ids
from .clock import iso_seconds, us_from_seconds
from .errors import Conflict, Forbidden, InvalidRequest, NotFound
from .records import ORGANIZATION_KEY, PERSONAL_KEY, PROJECT_KEY

TRANSFER_MAX = 400
DEFAULT_TTL_SECONDS = 86400
PLAN_RANK = {"free": 0, "launch": 1, "scale": 2, "business": 3, "enterprise": 4}
MESSAGE_PERSONAL_KEY = ("transferring projects between organizations requires the personal API key of a user who is "
                        "an admin of the source organization and a member of the destination")
MESSAGE_SOURCE_ADMIN = "only an admin of organization %s can transfer its projects"
MESSAGE_SAME_ORG = "destination_org_id: the destination is the source organization"
MESSAGE_NOT_IN_SOURCE = "project %s not found in organization %s"
MESSAGE_ALREADY_THERE = "project %s is already in organization %s"
MESSAGE_REQUEST_NOT_FOUND = "transfer request not found, already accepted or expired"
MESSAGE_MANAGE = "only the project's owner or an admin of its organization can create a transfer request"
MESSAGE_ALREADY_OWNED = "the project already belongs to this account"
PATTERN = "must match ^[a-z0-9-]{1,60}$"


def _plan_below(source_plan, destination_plan):
    source, destination = PLAN_RANK.get(source_plan), PLAN_RANK.get(destination_plan)
    return source is not None and destination is not None and destination < source


class Transfers:
    """The transfers area of State (see the module's text)."""

    def __init__(self, shared):
        self.shared = shared

    def reset(self):
        """Back to the seeded state (called by State.reset, with the lock held)."""
        self.requests = {}  # request id -> {"project_id", "created_us", "expires_us", "spent"}

    # ------------------------------------------------------------------ between organizations
    def api_transfer_projects(self, key, source_org_id, body):
        """POST /organizations/{source_org_id}/projects/transfer: ``{}``, or (406, LimitsUnsatisfiedResponse)."""
        destination = body.get("destination_org_id")
        if not isinstance(destination, str) or not ids.ID_RE.match(destination):
            raise InvalidRequest("destination_org_id: required, %s" % PATTERN)
        project_ids = body.get("project_ids")
        if not isinstance(project_ids, list) or not 1 <= len(project_ids) <= TRANSFER_MAX:
            raise InvalidRequest("project_ids: a list of 1 to %d project ids (a maximum of %d a request)"
                                 % (TRANSFER_MAX, TRANSFER_MAX))
        for index, project_id in enumerate(project_ids):
            if not isinstance(project_id, str) or not ids.ID_RE.match(project_id):
                raise InvalidRequest("project_ids[%d]: %s" % (index, PATTERN))
        with self.shared.lock:
            if key.kind != PERSONAL_KEY:
                raise Forbidden(MESSAGE_PERSONAL_KEY)
            if access.organization_role(self.shared, key, source_org_id) != "admin":
                raise Forbidden(MESSAGE_SOURCE_ADMIN % source_org_id)
            access.organization_role(self.shared, key, destination)
            if destination == source_org_id:
                raise InvalidRequest(MESSAGE_SAME_ORG)
            wanted = list(dict.fromkeys(project_ids))
            for project_id in wanted:
                project = self.shared.projects.get(project_id)
                if project is not None and project.org_id == destination:
                    raise Conflict(MESSAGE_ALREADY_THERE % (project_id, destination))
                if project is None or project.org_id != source_org_id:
                    raise NotFound(MESSAGE_NOT_IN_SOURCE % (project_id, source_org_id))
            source_plan = self.shared.organizations[source_org_id].plan
            destination_plan = self.shared.organizations[destination].plan
            if _plan_below(source_plan, destination_plan):
                return 406, {"code": "", "message": "the destination organization's plan is incompatible with the "
                             "source organization's", "limits": [{"name": "subscription_type", "expected": source_plan,
                                                                  "actual": destination_plan}]}
            for project_id in wanted:
                self._move(self.shared.projects[project_id], destination)
            return 200, {}

    def _move(self, project, org_id, owner_id=None):
        if org_id is None:
            project.data.pop("org_id", None)
        else:
            project.data["org_id"] = org_id
        if owner_id is not None:
            project.data["owner_id"] = owner_id
        project.data["updated_at"] = iso_seconds(self.shared.now_us())

    # ------------------------------------------------------------------ a request, accepted
    def api_create_request(self, key, project_id, body):
        """POST /projects/{project_id}/transfer_requests: the request (201)."""
        ttl = body.get("ttl_seconds", DEFAULT_TTL_SECONDS)
        if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl < 1:
            raise InvalidRequest("ttl_seconds: must be a positive integer of seconds")
        with self.shared.lock:
            if key.kind == PROJECT_KEY:
                raise Forbidden(access.MESSAGE_PROJECT_KEY)
            project = self.shared.reachable(key, project_id)
            if key.kind == PERSONAL_KEY:
                if project.org_id is None:
                    allowed = project.owner_id == key.owner_id
                else:
                    org = self.shared.organizations.get(project.org_id)
                    allowed = org is not None and org.role_of(key.owner_id) == "admin"
                if not allowed:
                    raise Forbidden(MESSAGE_MANAGE)
            now_us = self.shared.now_us()
            request_id = ids.random_uuid()
            self.requests[request_id] = {"project_id": project.id, "created_us": now_us,
                                         "expires_us": now_us + us_from_seconds(ttl), "spent": False}
            return {"id": request_id, "project_id": project.id, "created_at": iso_seconds(now_us),
                    "expires_at": iso_seconds(now_us + us_from_seconds(ttl))}

    def api_accept_request(self, key, project_id, request_id, body):
        """PUT /projects/{project_id}/transfer_requests/{request_id}: None (204), or (406, its reasons)."""
        org_id = body.get("org_id")
        if org_id is not None and (not isinstance(org_id, str) or not ids.ID_RE.match(org_id)):
            raise InvalidRequest("org_id: %s" % PATTERN)
        with self.shared.lock:
            if key.kind == PROJECT_KEY:
                raise Forbidden(access.MESSAGE_PROJECT_KEY)
            owner_id = None
            if org_id is not None:
                access.organization_role(self.shared, key, org_id)
            elif key.kind == ORGANIZATION_KEY:
                org_id = key.org_id
            else:
                owner_id = key.owner_id
            request = self.requests.get(request_id)
            project = self.shared.projects.get(project_id)
            if request is None or request["project_id"] != project_id or request["spent"] or project is None \
                    or request["expires_us"] <= self.shared.now_us():
                raise NotFound(MESSAGE_REQUEST_NOT_FOUND)
            if (org_id is not None and project.org_id == org_id) or \
                    (org_id is None and project.org_id is None and project.owner_id == owner_id):
                raise Conflict(MESSAGE_ALREADY_OWNED)
            source = self.shared.organizations.get(project.org_id) if project.org_id else None
            target = self.shared.organizations.get(org_id) if org_id else None
            if source is not None and target is not None and _plan_below(source.plan, target.plan):
                return 406, {"code": "", "message": "the account does not satisfy the plan requirements to own the "
                             "project", "reasons": [{"code": "subscription_type", "message": "the project needs the %s "
                                                     "plan or higher; the organization has %s" % (source.plan,
                                                                                                  target.plan)}]}
            request["spent"] = True
            self._move(project, org_id, owner_id)
            return 204, None
