# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""VPC endpoints (Private Networking): an organization's assignment of a VPC endpoint in a region
(``neon.cloud.vpc_endpoint``), a project's restriction to one (``neon.cloud.project_vpc_endpoint``), and
reading them (``neon.cloud.vpc_endpoint_info``).

The service's facts (docs/docsite/rst/api-behaviour.rst, "Private networking"): both are addressed by
the endpoint's id, which the task gives; one POST with ``{label}`` assigns the endpoint or changes
its label (there is no PATCH), a DELETE removes it, and none of them starts operations. Removing an
endpoint from an organization is one way: it cannot be assigned to that organization again. Azure
regions are not supported. A project can be restricted to an endpoint only once the endpoint is
assigned to the project's organization; the service refuses otherwise, with its own message.

Because of that shape (an upsert by id, no operations) an assignment is not the walk of resource.py,
whose create posts to a collection, looks a lost create up by name and changes with a PATCH: it is
``VpcAssignment`` below, written once for both: a Writer (writer.py), with ResourceTask's requests,
failures and results and plan.py's pure decision. A POST whose answer was lost is not sent again (the request may have been
carried out); running the task again converges, as the POST is the same every time.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.neon.cloud.plugins.module_utils._api.answers import Checker
from ansible_collections.neon.cloud.plugins.module_utils._api.client import api_path, project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import no_such_project
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import (
    CREATE,
    DELETE,
    NOTHING,
    Description,
    Field,
    Plan,
    decide,
    merged,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal, first_problem, path_problem
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import Writer

# An AWS interface endpoint id: "vpce-" and 8 or 17 hexadecimal digits (Azure regions are not supported).
VPC_ENDPOINT_ID = re.compile(r"^vpce-[0-9a-f]{8,17}$")
AZURE_PREFIX = "azure-"
NOT_FOUND = 404
# What the collection reads of the service's objects (VPCEndpoint, VPCEndpointWithRegion, VPCEndpointDetails).
VPC_ENDPOINT_FIELDS = dict(required={"vpc_endpoint_id": (str,), "label": (str,)}, optional={"region_id": (str,)})
VPC_ENDPOINT_DETAILS_FIELDS = dict(required={"vpc_endpoint_id": (str,), "label": (str,), "state": (str,),
                                             "num_restricted_projects": (int,)},
                                   optional={"example_restricted_projects": (list,)})
# Both assignments are described by their label: the only thing a POST sets, and the only one compared.
VPC_ASSIGNMENT = Description("VPC endpoint", "vpc_endpoint", VPC_ENDPOINT_FIELDS, [Field("label")])


# ---------------------------------------------------------------------------------------------- pure rules


def vpc_endpoint_id_problem(vpc_endpoint_id):
    """Why ``vpc_endpoint_id`` is no VPC endpoint id the service takes, or None."""
    if VPC_ENDPOINT_ID.match(vpc_endpoint_id or ""):
        return None
    return "vpc_endpoint_id must be an AWS VPC endpoint id: vpce- and 8 or 17 hexadecimal digits in lower case, " \
        "such as vpce-0a1b2c3d4e5f67890; got %r" % vpc_endpoint_id


def vpc_region_problem(region_id):
    """Why VPC endpoints cannot be assigned in ``region_id``, or None."""
    if (region_id or "").startswith(AZURE_PREFIX):
        return "region_id %s is an Azure region, and the service does not support VPC endpoints in Azure regions " \
            "(Private Networking is AWS PrivateLink)" % region_id
    return None


def vpc_assignment_plan(current, label, state, named):
    """The Plan for an assignment as it is (``current``, None when there is none) and as asked: ``state``
    present with ``label`` (None: any label, ``""`` when it is made) or absent. ``named``: the words for it."""
    if state == "absent":
        if current is None:
            return Plan(NOTHING, "%s is not assigned" % named)
        return Plan(DELETE, "%s is assigned and state=absent" % named)
    plan = decide(VPC_ASSIGNMENT, current, {"label": label})
    if plan.action == CREATE and "label" not in plan.body:
        plan.body["label"] = ""  # the service requires a label; an empty one, as the vendor's CLI sends
    return plan


def one_way_note(vpc_endpoint_id, org_id):
    """What removing an endpoint from an organization means, for the warning and the diff."""
    return "VPC endpoint %s is removed from organization %s for good: the service does not let it be assigned to " \
        "that organization again" % (vpc_endpoint_id, org_id)


# ---------------------------------------------------------------------------------------------- answers


def vpc_endpoint_list(data, path, with_region=False):
    """``{"endpoints": [{vpc_endpoint_id, label[, region_id]}]}``, each checked."""
    check = Checker("GET", path)
    check.object(data)
    if "endpoints" not in data:
        check.fail("endpoints", "is missing")
    fields = VPC_ENDPOINT_FIELDS
    if with_region:
        fields = dict(required=dict(VPC_ENDPOINT_FIELDS["required"], region_id=(str,)), optional={})
    return check.each(check.list(data["endpoints"], "endpoints"), "endpoints", **fields)


def vpc_endpoint_details(data, path, vpc_endpoint_id):
    """VPCEndpointDetails of the endpoint asked for and no other."""
    check = Checker("GET", path)
    item = check.fields(data, "the answer", **VPC_ENDPOINT_DETAILS_FIELDS)
    check.same(item, "the answer", "vpc_endpoint_id", vpc_endpoint_id)
    for index, project_id in enumerate(item.get("example_restricted_projects") or []):
        check.value(project_id, "the answer.example_restricted_projects[%d]" % index, (str,))
    return item


# ---------------------------------------------------------------------------------------------- reading


def region_vpc_endpoints_path(org_id, region_id):
    return api_path("organizations", org_id, "vpc", "region", region_id, "vpc_endpoints")


def read_vpc_endpoint(client, org_id, region_id, vpc_endpoint_id):
    """The endpoint's details with its ``region_id``, or None when it is not assigned there (HTTP 404).

    A 404 may also be the service's answer for an organization the key does not reach (the consumption endpoints
    answer 404 for an organization the account is not a member of; the VPC endpoints' answer is not documented):
    the region's list, read then, tells the two apart (``check_organization_reached``), so that an organization
    out of reach is never taken for "not assigned" (which check mode would report as a change)."""
    path = region_vpc_endpoints_path(org_id, region_id) + api_path(vpc_endpoint_id)
    try:
        data = client.get(path)
    except NeonAPIError as error:
        if error.status == NOT_FOUND:
            check_organization_reached(client, org_id, region_id)
            return None
        raise
    return dict(vpc_endpoint_details(data, path, vpc_endpoint_id), region_id=region_id)


def check_organization_reached(client, org_id, region_id):
    """Read the organization's endpoints of ``region_id`` (one request): a Refusal naming the organization when
    the service refuses this key that list (HTTP 403 or 404), as it does for an organization the key cannot
    reach."""
    path = region_vpc_endpoints_path(org_id, region_id)
    try:
        vpc_endpoint_list(client.get(path), path)
    except NeonAPIError as error:
        if error.status in (403, NOT_FOUND):
            raise Refusal(unreachable_organization(org_id, error), error)
        raise


def unreachable_organization(org_id, error):
    """The sentence for an organization whose VPC endpoints the service does not show this key."""
    said = ": %s" % error.api_message if error.api_message else ""
    return "organization %s is not one this API key reaches (HTTP %s%s%s), so whether the VPC endpoint is assigned " \
        "there is unknown; nothing was changed. Check org_id, or use a key of a member of that organization (list " \
        "the key's organizations with neon.cloud.auth_info)" % (
            org_id, error.status, said, ", request id %s" % error.request_id if error.request_id else "")


def organization_vpc_endpoints(client, org_id, region_id=None, details=True):
    """The organization's endpoints, of every region (one request) or of ``region_id``, each with its
    ``region_id``; with ``details``, each read again for its state and restricted projects (one request each;
    one removed meanwhile is left out)."""
    if region_id is None:
        path = api_path("organizations", org_id, "vpc", "vpc_endpoints")
        endpoints = vpc_endpoint_list(client.get(path), path, with_region=True)
    else:
        path = region_vpc_endpoints_path(org_id, region_id)
        endpoints = [dict(item, region_id=region_id) for item in vpc_endpoint_list(client.get(path), path)]
    if not details:
        return endpoints
    detailed = [read_vpc_endpoint(client, org_id, item["region_id"], item["vpc_endpoint_id"]) for item in endpoints]
    return [item for item in detailed if item is not None]


def project_vpc_endpoints(client, project_id):
    """The VPC endpoints the project is restricted to (one request); a Refusal when there is no such project."""
    path = project_path(project_id, "vpc_endpoints")
    try:
        return vpc_endpoint_list(client.get(path), path)
    except NeonAPIError as error:
        if error.status == NOT_FOUND:
            raise Refusal(no_such_project(project_id, error), error)
        raise


# ---------------------------------------------------------------------------------------------- the writer


class VpcAssignment(Writer):
    """One endpoint's assignment that a task makes as asked (``state`` present, with ``label``) or removes
    (absent): read, decide, check mode, one POST or DELETE, the result (writer.py). The subclasses say where
    it is."""

    description = VPC_ASSIGNMENT
    starts_operations = False
    made, making = "assigned", "Assigning"  # what a POST of a new one does, in the words of its resource

    def __init__(self, task, vpc_endpoint_id, label=None, state="present"):
        super(VpcAssignment, self).__init__(task)
        self.vpc_endpoint_id = vpc_endpoint_id
        self.label = label
        self.state = state

    # ------------------------------------------------------------------------------------------ what each says

    @property
    def named(self):
        raise NotImplementedError

    def find(self):
        """The assignment as the service holds it now, or None."""
        raise NotImplementedError

    def path(self):
        """Where its POST and DELETE go."""
        raise NotImplementedError

    def identity(self):
        """What names it in results: the endpoint's id, and where it is."""
        return {"vpc_endpoint_id": self.vpc_endpoint_id}

    def project_id(self):
        """The project whose running operations a refusal with HTTP 423 waits for (None: the client retries)."""
        return None

    def after_change(self, assigned):
        """The assignment to return once this run has changed it (by default, as it was set)."""
        return assigned

    def removal_note(self):
        """A warning for a removal that cannot be undone, or "" (none)."""
        return ""

    # ------------------------------------------------------------------------------------------ the steps

    def shown(self, item):
        return {} if item is None else {"vpc_endpoint_id": item["vpc_endpoint_id"], "label": item["label"]}

    def keep(self, item):
        self.task.kept[self.description.key] = item

    def read(self):
        current = self.find()
        if self.state == "absent":
            self.keep(current)
        return current

    def decide(self, current):
        return vpc_assignment_plan(current, self.label, self.state, self.named)

    def assigned(self, current, plan):
        """The assignment as ``plan`` leaves it (present)."""
        return merged(current or self.identity(), plan.body)

    def diff(self, current, plan):
        if self.state == "absent":
            return self.shown(current), {}
        return self.shown(current), self.shown(self.assigned(current, plan))

    def as_planned(self, current, plan, after):
        if self.state == "present":
            self.keep(self.assigned(current, plan) if plan.changed else current)
        return after

    def act(self, current, plan):
        if self.state == "absent":
            removed, _answer = self.delete(self.path(), "Removing %s" % self.named, self.project_id(), no_content=True)
            if removed:
                self.task.did("%s was removed" % self.named)
            else:  # another run removed it meanwhile: nothing was done here, so nothing changed and the diff is empty
                self.keep(None)
            return None
        assigned = self.assigned(current, plan)
        if current is None:
            what = "%s was %s" % (self.named, self.made)
        else:
            what = "the label of %s was changed from %r to %r" % (self.named, current["label"], assigned["label"])
        # The answer has no documented body (api-behaviour.rst): what was set is what was sent.
        self.task.change("POST", self.path(), self.project_id(), {"label": assigned["label"]},
                         "%s %s" % (self.making, self.named), no_content=True)
        self.task.did(what)
        self.keep(assigned)
        return assigned

    def read_again(self, current, done, after):
        if done is not None:
            self.keep(self.after_change(done))
        return after

    def result(self, before, after):
        """A removal this run made (or would make) is in the diff with its note, and warned of; one another run
        made meanwhile is not in it."""
        note = self.removal_note() if self.state == "absent" and self.task.changed else ""
        if note:
            self.task.warnings.append(note)
        if self.state == "absent" and not self.task.changed:
            before = {}
        result = super(VpcAssignment, self).result(before, after)
        if note and "diff" in result:
            result["diff"]["after_header"] = note
        return result


class OrganizationVpcEndpoint(VpcAssignment):
    """A VPC endpoint assigned to an organization in a region (its details: ``state``, restricted projects)."""

    path_options = ("org_id", "region_id", "vpc_endpoint_id")

    @classmethod
    def options_problem(cls, options):
        return first_problem(*[path_problem(name, options[name]) for name in cls.path_options] + [
            vpc_region_problem(options["region_id"]), vpc_endpoint_id_problem(options["vpc_endpoint_id"])])

    @classmethod
    def from_options(cls, task, options):
        return cls(task, options["org_id"], options["region_id"], options["vpc_endpoint_id"], options["label"],
                   options["state"])

    def __init__(self, task, org_id, region_id, vpc_endpoint_id, label=None, state="present"):
        super(OrganizationVpcEndpoint, self).__init__(task, vpc_endpoint_id, label, state)
        self.org_id = org_id
        self.region_id = region_id

    @property
    def named(self):
        return "VPC endpoint %s of organization %s in region %s" % (self.vpc_endpoint_id, self.org_id, self.region_id)

    def find(self):
        return read_vpc_endpoint(self.client, self.org_id, self.region_id, self.vpc_endpoint_id)

    def path(self):
        return region_vpc_endpoints_path(self.org_id, self.region_id) + api_path(self.vpc_endpoint_id)

    def identity(self):
        return {"vpc_endpoint_id": self.vpc_endpoint_id, "region_id": self.region_id}

    def after_change(self, assigned):
        """Its details as the service holds them now (its state: ``new`` until the service accepts it)."""
        return self.find() or assigned

    def removal_note(self):
        return one_way_note(self.vpc_endpoint_id, self.org_id)


class ProjectVpcRestriction(VpcAssignment):
    """A project restricted to a VPC endpoint (the endpoint assigned to the project's organization first)."""

    made, making = "set", "Setting"
    path_options = ("project_id", "vpc_endpoint_id")

    @classmethod
    def options_problem(cls, options):
        return first_problem(*[path_problem(name, options[name]) for name in cls.path_options] + [
            vpc_endpoint_id_problem(options["vpc_endpoint_id"])])

    @classmethod
    def from_options(cls, task, options):
        return cls(task, options["project_id"], options["vpc_endpoint_id"], options["label"], options["state"])

    def __init__(self, task, project_id, vpc_endpoint_id, label=None, state="present"):
        super(ProjectVpcRestriction, self).__init__(task, vpc_endpoint_id, label, state)
        self.project = project_id

    @property
    def named(self):
        return "the restriction of project %s to VPC endpoint %s" % (self.project, self.vpc_endpoint_id)

    def find(self):
        found = [item for item in project_vpc_endpoints(self.client, self.project)
                 if item["vpc_endpoint_id"] == self.vpc_endpoint_id]
        return found[0] if found else None

    def path(self):
        return project_path(self.project, "vpc_endpoints", self.vpc_endpoint_id)

    def project_id(self):
        return self.project
