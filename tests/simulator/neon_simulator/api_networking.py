# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The networking routes: /api/v2 (private networking: an organization's VPC endpoints per region and a project's
VPC endpoint restrictions) and their control API, HTTP in, State's ``api_*`` methods (networking.py) out. """

from __future__ import annotations

from werkzeug.routing import Rule

from .errors import InvalidRequest
from .ids import ID_RE
from .web import API_PREFIX, CONTROL_PREFIX, json_body

ORG_VPC = API_PREFIX + "/organizations/<org_id>/vpc"
REGION_VPC = ORG_VPC + "/region/<region_id>/vpc_endpoints"
PROJECT_VPC = API_PREFIX + "/projects/<project_id>/vpc_endpoints"


def networking_rules():
    """The /api/v2 rules (werkzeug Rule, endpoint ``x`` served by ``_api_x``)."""
    return [
        Rule(ORG_VPC + "/vpc_endpoints", methods=["GET"], endpoint="list_org_vpc_endpoints_all_regions"),
        Rule(REGION_VPC, methods=["GET"], endpoint="list_org_vpc_endpoints"),
        Rule(REGION_VPC + "/<vpc_endpoint_id>", methods=["GET"], endpoint="get_org_vpc_endpoint"),
        Rule(REGION_VPC + "/<vpc_endpoint_id>", methods=["POST"], endpoint="assign_org_vpc_endpoint"),
        Rule(REGION_VPC + "/<vpc_endpoint_id>", methods=["DELETE"], endpoint="delete_org_vpc_endpoint"),
        Rule(PROJECT_VPC, methods=["GET"], endpoint="list_project_vpc_endpoints"),
        Rule(PROJECT_VPC + "/<vpc_endpoint_id>", methods=["POST"], endpoint="restrict_project_vpc_endpoint"),
        Rule(PROJECT_VPC + "/<vpc_endpoint_id>", methods=["DELETE"], endpoint="unrestrict_project_vpc_endpoint"),
    ]


def networking_control_rules():
    """The /_simulator rules (endpoint ``x`` served by ``_control_x``)."""
    return [Rule(CONTROL_PREFIX + "/vpc_endpoints", methods=["GET"], endpoint="vpc_endpoints")]


def _org(org_id):
    if not ID_RE.match(org_id):
        raise InvalidRequest("org_id: must match ^[a-z0-9-]{1,60}$, got %r" % org_id)
    return org_id


class NetworkingRoutes:
    """The handlers, mixed into SimulatorApp: each answers (status, payload). The document gives the assignments'
    POST and DELETE (an organization's and a project's) a 200 without content: they answer no body (None)."""

    def _api_list_org_vpc_endpoints_all_regions(self, request, key, org_id):
        del request
        return 200, self.state.networking.api_list_org_vpc_endpoints(key, _org(org_id))

    def _api_list_org_vpc_endpoints(self, request, key, org_id, region_id):
        del request
        return 200, self.state.networking.api_list_org_vpc_endpoints(key, _org(org_id), region_id)

    def _api_get_org_vpc_endpoint(self, request, key, org_id, region_id, vpc_endpoint_id):
        del request
        return 200, self.state.networking.api_get_org_vpc_endpoint(key, _org(org_id), region_id, vpc_endpoint_id)

    def _api_assign_org_vpc_endpoint(self, request, key, org_id, region_id, vpc_endpoint_id):
        self.state.networking.api_assign_org_vpc_endpoint(key, _org(org_id), region_id, vpc_endpoint_id, json_body(request))
        return 200, None

    def _api_delete_org_vpc_endpoint(self, request, key, org_id, region_id, vpc_endpoint_id):
        del request
        self.state.networking.api_delete_org_vpc_endpoint(key, _org(org_id), region_id, vpc_endpoint_id)
        return 200, None

    def _api_list_project_vpc_endpoints(self, request, key, project_id):
        del request
        return 200, self.state.networking.api_list_project_vpc_endpoints(key, project_id)

    def _api_restrict_project_vpc_endpoint(self, request, key, project_id, vpc_endpoint_id):
        self.state.networking.api_restrict_project_vpc_endpoint(key, project_id, vpc_endpoint_id, json_body(request))
        return 200, None

    def _api_unrestrict_project_vpc_endpoint(self, request, key, project_id, vpc_endpoint_id):
        del request
        self.state.networking.api_unrestrict_project_vpc_endpoint(key, project_id, vpc_endpoint_id)
        return 200, None

    def _control_vpc_endpoints(self, request):
        del request
        return 200, self.state.networking.vpc_summary()
