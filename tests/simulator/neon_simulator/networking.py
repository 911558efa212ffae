# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The private networking: an organization's VPC endpoints per region and a project's VPC endpoint restrictions:
State's area (governance-recovery-api-notes.md section 3, "the notes").

The area's object (state.networking, given the shared data and helpers of shared.py): every ``api_*`` method takes the
authenticating key, holds the state's lock and answers JSON-like data; ``reset`` puts the seeded state back (nothing assigned).

What the notes give [SPEC]: the eight paths and their answers (``VPCEndpointsResponse``,
``VPCEndpointsWithRegionResponse``, ``VPCEndpointDetails``); one POST assigns an endpoint or changes
its label; an endpoint deleted from an organization "cannot be added back"; a project restriction
is allowed "only after it is assigned to the parent organization"; Azure regions are not supported;
``state`` is ``new`` (pending acceptance) or ``accepted``. Everything the notes call unknown is
chosen in CHOICES below (and in tests/simulator/README.md, "Private networking and consumption").
"""

from __future__ import annotations

import re

from . import access, seed
from .errors import Forbidden, InvalidRequest, NotFound, Unprocessable

# ---------------------------------------------------------------------- CHOICES (the notes: unknown)
# How long an assigned endpoint stays ``new`` before it is ``accepted``, on the simulator's clock.
ACCEPT_AFTER_SECONDS = 60
# What an endpoint id must look like: an AWS interface endpoint id, ``vpce-`` and 8 or 17 hex digits.
VPC_ENDPOINT_ID_RE = re.compile(r"^vpce-[0-9a-f]{8,17}$")
# Plans with Private Networking (DOCS: the Scale plan, and the plans above it); others: 403 on assign.
PRIVATE_NETWORKING_PLANS = ("scale", "scale_v3", "business", "enterprise", "direct_sales", "direct_sales_v3")
MESSAGE_ADMIN_ONLY = "only organization admins can assign or delete VPC endpoints"
MESSAGE_PLAN = "Private Networking is not available on the %s plan of organization %s; it needs the Scale plan or above"
MESSAGE_BAD_ID = "vpc_endpoint_id: must be an AWS VPC endpoint id (vpce- and 8 or 17 hexadecimal digits), got %r"
MESSAGE_AZURE = "region %s: VPC endpoints are not supported in Azure regions"
MESSAGE_UNKNOWN_REGION = "region_id: unknown region %r"
MESSAGE_REMOVED = ("VPC endpoint %s was deleted from organization %s and cannot be added back to it")  # 422
MESSAGE_NOT_FOUND = "VPC endpoint %s is not assigned to organization %s in region %s"  # 404
MESSAGE_NO_ORG = ("project %s belongs to no organization: a VPC endpoint restriction needs a VPC endpoint "
                  "assigned to the project's organization")  # 400
MESSAGE_NOT_ASSIGNED = ("VPC endpoint %s is not assigned to organization %s in region %s (the project's region); "
                        "assign it to the organization first")  # 400
MESSAGE_NO_RESTRICTION = "project %s has no VPC endpoint restriction %s"  # 404
# An assign or delete answers 200 with ``{}`` (SPEC: no body schema; the vendor CLI's fixtures answer ``{}``).
# Deleting an organization's endpoint leaves the projects restricted to it as they are (their restrictions
# are the projects' own); they are no longer counted by the endpoint, which is gone.


def _label(body):
    """The ``label`` of an assignment body (VPCEndpointAssignment: required string)."""
    if "label" not in body:
        raise InvalidRequest("label: field is required")
    label = body["label"]
    if not isinstance(label, str):
        raise InvalidRequest("label: must be a string")
    return label


def _endpoint_id(vpc_endpoint_id):
    if not VPC_ENDPOINT_ID_RE.match(vpc_endpoint_id):
        raise InvalidRequest(MESSAGE_BAD_ID % vpc_endpoint_id)
    return vpc_endpoint_id


def _region(region_id):
    if region_id not in seed.REGIONS:
        raise InvalidRequest(MESSAGE_UNKNOWN_REGION % region_id)
    return region_id


class Assignment:
    """An endpoint assigned to an organization in a region."""

    __slots__ = ("vpc_endpoint_id", "region_id", "label", "assigned_us")

    def __init__(self, vpc_endpoint_id, region_id, label, assigned_us):
        self.vpc_endpoint_id = vpc_endpoint_id
        self.region_id = region_id
        self.label = label
        self.assigned_us = assigned_us


class Networking:
    """The networking area of State (see the module's text)."""

    def __init__(self, shared):
        self.shared = shared  # the data and helpers every area uses (shared.py)

    def reset(self):
        """Back to the seeded state (called by State.reset, with the lock held): nothing assigned."""
        self.vpc_assigned = {}     # org id -> {(region id, endpoint id): Assignment}, in assignment order
        self.vpc_removed = set()   # (org id, endpoint id) deleted from the organization: never again
        self.vpc_restricted = {}   # project id -> {endpoint id: label}, in the order they were set

    # ------------------------------------------------------------------ organizations
    def _vpc_state(self, assignment):
        accepted = self.shared.now_us() - assignment.assigned_us >= ACCEPT_AFTER_SECONDS * 1000000
        return "accepted" if accepted else "new"

    def _restricted_to(self, org_id, vpc_endpoint_id):
        """Ids of the organization's projects restricted to the endpoint, in the project list's order."""
        return [project.id for project in self.shared.project_order if project.org_id == org_id
                and vpc_endpoint_id in self.vpc_restricted.get(project.id, {})]

    def api_list_org_vpc_endpoints(self, key, org_id, region_id=None):
        """GET /organizations/{org_id}/vpc/vpc_endpoints (every region, with ``region_id``) or
        .../vpc/region/{region_id}/vpc_endpoints."""
        with self.shared.lock:
            access.organization_role(self.shared, key, org_id)
            if region_id is not None:
                _region(region_id)
            assigned = self.vpc_assigned.get(org_id, {}).values()
            if region_id is None:
                return {"endpoints": [{"vpc_endpoint_id": item.vpc_endpoint_id, "label": item.label,
                                       "region_id": item.region_id} for item in assigned]}
            return {"endpoints": [{"vpc_endpoint_id": item.vpc_endpoint_id, "label": item.label}
                                  for item in assigned if item.region_id == region_id]}

    def _assigned(self, org_id, region_id, vpc_endpoint_id):
        item = self.vpc_assigned.get(org_id, {}).get((region_id, vpc_endpoint_id))
        if item is None:
            raise NotFound(MESSAGE_NOT_FOUND % (vpc_endpoint_id, org_id, region_id))
        return item

    def api_get_org_vpc_endpoint(self, key, org_id, region_id, vpc_endpoint_id):
        """GET .../vpc/region/{region_id}/vpc_endpoints/{vpc_endpoint_id}: VPCEndpointDetails."""
        with self.shared.lock:
            access.organization_role(self.shared, key, org_id)
            _region(region_id)
            item = self._assigned(org_id, region_id, vpc_endpoint_id)
            restricted = self._restricted_to(org_id, vpc_endpoint_id)
            return {"vpc_endpoint_id": item.vpc_endpoint_id, "label": item.label, "state": self._vpc_state(item),
                    "num_restricted_projects": len(restricted), "example_restricted_projects": restricted[:3]}

    def _check_org_change(self, key, org_id, region_id):
        if access.organization_role(self.shared, key, org_id) != "admin":
            raise Forbidden(MESSAGE_ADMIN_ONLY)
        _region(region_id)
        if region_id.startswith("azure-"):
            raise InvalidRequest(MESSAGE_AZURE % region_id)

    def api_assign_org_vpc_endpoint(self, key, org_id, region_id, vpc_endpoint_id, body):
        """POST .../vpc_endpoints/{vpc_endpoint_id} ``{label}``: assigns it, or changes its label."""
        label = _label(body)
        with self.shared.lock:
            self._check_org_change(key, org_id, region_id)
            _endpoint_id(vpc_endpoint_id)
            org = self.shared.organizations[org_id]
            if org.plan not in PRIVATE_NETWORKING_PLANS:
                raise Forbidden(MESSAGE_PLAN % (org.plan, org_id))
            if (org_id, vpc_endpoint_id) in self.vpc_removed:
                raise Unprocessable(MESSAGE_REMOVED % (vpc_endpoint_id, org_id))
            assigned = self.vpc_assigned.setdefault(org_id, {})
            item = assigned.get((region_id, vpc_endpoint_id))
            if item is None:
                assigned[(region_id, vpc_endpoint_id)] = Assignment(vpc_endpoint_id, region_id, label, self.shared.now_us())
            else:
                item.label = label
            return {}

    def api_delete_org_vpc_endpoint(self, key, org_id, region_id, vpc_endpoint_id):
        """DELETE .../vpc_endpoints/{vpc_endpoint_id}: one way, it cannot be assigned to the organization again."""
        with self.shared.lock:
            self._check_org_change(key, org_id, region_id)
            self._assigned(org_id, region_id, vpc_endpoint_id)
            del self.vpc_assigned[org_id][(region_id, vpc_endpoint_id)]
            self.vpc_removed.add((org_id, vpc_endpoint_id))
            return {}

    # ------------------------------------------------------------------ projects
    def api_list_project_vpc_endpoints(self, key, project_id):
        """GET /projects/{project_id}/vpc_endpoints: the project's restrictions."""
        with self.shared.lock:
            self.shared.reachable(key, project_id)
            return {"endpoints": [{"vpc_endpoint_id": endpoint_id, "label": label}
                                  for endpoint_id, label in self.vpc_restricted.get(project_id, {}).items()]}

    def api_restrict_project_vpc_endpoint(self, key, project_id, vpc_endpoint_id, body):
        """POST /projects/{project_id}/vpc_endpoints/{vpc_endpoint_id} ``{label}``: sets or relabels a restriction,
        once the endpoint is assigned to the project's organization in the project's region."""
        label = _label(body)
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            _endpoint_id(vpc_endpoint_id)
            if project.org_id is None:
                raise InvalidRequest(MESSAGE_NO_ORG % project_id)
            region_id = project.data["region_id"]
            if (region_id, vpc_endpoint_id) not in self.vpc_assigned.get(project.org_id, {}):
                raise InvalidRequest(MESSAGE_NOT_ASSIGNED % (vpc_endpoint_id, project.org_id, region_id))
            self.vpc_restricted.setdefault(project_id, {})[vpc_endpoint_id] = label
            return {}

    def api_unrestrict_project_vpc_endpoint(self, key, project_id, vpc_endpoint_id):
        """DELETE /projects/{project_id}/vpc_endpoints/{vpc_endpoint_id}."""
        with self.shared.lock:
            self.shared.reachable(key, project_id)
            restrictions = self.vpc_restricted.get(project_id, {})
            if vpc_endpoint_id not in restrictions:
                raise NotFound(MESSAGE_NO_RESTRICTION % (project_id, vpc_endpoint_id))
            del restrictions[vpc_endpoint_id]
            return {}

    # ------------------------------------------------------------------ control API
    def vpc_summary(self):
        """GET /_simulator/vpc_endpoints: every assignment (with its state), deleted endpoint and restriction."""
        with self.shared.lock:
            return {
                "organizations": {org_id: [{"vpc_endpoint_id": item.vpc_endpoint_id, "region_id": item.region_id,
                                            "label": item.label, "state": self._vpc_state(item)}
                                           for item in assigned.values()]
                                  for org_id, assigned in self.vpc_assigned.items()},
                "deleted": sorted([{"org_id": org_id, "vpc_endpoint_id": endpoint_id}
                                   for org_id, endpoint_id in self.vpc_removed],
                                  key=lambda item: (item["org_id"], item["vpc_endpoint_id"])),
                "projects": {project_id: [{"vpc_endpoint_id": endpoint_id, "label": label}
                                          for endpoint_id, label in restrictions.items()]
                             for project_id, restrictions in self.vpc_restricted.items() if restrictions},
            }
