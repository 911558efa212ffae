# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The control API under /_simulator (JSON, no auth): what tests use to set a scene and look inside."""

from __future__ import annotations

import time
import uuid

from werkzeug.routing import Map, Rule

from .api_consumption import consumption_control_rules
from .api_networking import networking_control_rules
from .api_recovery import recovery_control_rules
from .api_sharing import sharing_control_rules
from .api_snapshots import snapshots_control_rules
from .clock import iso_micro
from .errors import Conflict, InvalidRequest, NotFound
from .records import KEY_KINDS
from .web import API_PREFIX, CONTROL_PREFIX, INTEGER_RE, error_response, json_body, json_response, match_route


def control_map():
    project = CONTROL_PREFIX + "/projects/<project_id>"
    return Map([
        Rule(CONTROL_PREFIX + "/health", methods=["GET"], endpoint="health"),
        Rule(CONTROL_PREFIX + "/info", methods=["GET"], endpoint="info"),
        Rule(CONTROL_PREFIX + "/postgres", methods=["GET"], endpoint="postgres"),
        Rule(CONTROL_PREFIX + "/reset", methods=["POST"], endpoint="reset"),
        Rule(CONTROL_PREFIX + "/keys", methods=["GET"], endpoint="keys"),
        Rule(CONTROL_PREFIX + "/keys", methods=["POST"], endpoint="create_key"),
        Rule(CONTROL_PREFIX + "/keys/<int:key_id>/age", methods=["POST"], endpoint="age_key"),
        Rule(CONTROL_PREFIX + "/barriers", methods=["GET"], endpoint="list_barriers"),
        Rule(CONTROL_PREFIX + "/barriers", methods=["POST"], endpoint="add_barrier"),
        Rule(CONTROL_PREFIX + "/barriers", methods=["DELETE"], endpoint="clear_barriers"),
        Rule(CONTROL_PREFIX + "/users", methods=["GET"], endpoint="list_users"),
        Rule(CONTROL_PREFIX + "/users", methods=["POST"], endpoint="create_user"),
        Rule(CONTROL_PREFIX + "/users/<user_id>", methods=["PATCH"], endpoint="update_user"),
        Rule(CONTROL_PREFIX + "/organizations", methods=["GET"], endpoint="list_organizations"),
        Rule(CONTROL_PREFIX + "/organizations", methods=["POST"], endpoint="create_organization"),
        Rule(CONTROL_PREFIX + "/organizations/<org_id>/members", methods=["POST"], endpoint="add_member"),
        Rule(CONTROL_PREFIX + "/organizations/<org_id>/members/<user_id>", methods=["DELETE"],
             endpoint="remove_member"),
        Rule(CONTROL_PREFIX + "/projects", methods=["POST"], endpoint="create_project"),
        Rule(CONTROL_PREFIX + "/projects/bulk", methods=["POST"], endpoint="create_projects"),
        Rule(project + "/share", methods=["POST"], endpoint="share_project"),
        Rule(project + "/transfer", methods=["POST"], endpoint="transfer_project"),
        Rule(project + "/operations", methods=["POST"], endpoint="start_operations"),
        Rule(project + "/operations/release", methods=["POST"], endpoint="release_operations"),
        Rule(project + "/operations/<operation_id>/release", methods=["POST"], endpoint="release_operation"),
        Rule(project + "/history", methods=["POST"], endpoint="add_history"),
        Rule(project + "/store_passwords", methods=["POST"], endpoint="set_store_passwords"),
        Rule(project + "/check_password", methods=["POST"], endpoint="check_password"),
        Rule(CONTROL_PREFIX + "/next_operations", methods=["GET"], endpoint="list_next_operations"),
        Rule(CONTROL_PREFIX + "/next_operations", methods=["POST"], endpoint="add_next_operations"),
        Rule(CONTROL_PREFIX + "/next_operations", methods=["DELETE"], endpoint="clear_next_operations"),
        Rule(CONTROL_PREFIX + "/limits", methods=["GET"], endpoint="get_limits"),
        Rule(CONTROL_PREFIX + "/limits", methods=["POST"], endpoint="set_limits"),
        Rule(CONTROL_PREFIX + "/unavailable", methods=["GET"], endpoint="list_unavailable"),
        Rule(CONTROL_PREFIX + "/unavailable", methods=["POST"], endpoint="set_unavailable"),
        Rule(CONTROL_PREFIX + "/unavailable", methods=["DELETE"], endpoint="clear_unavailable"),
        Rule(CONTROL_PREFIX + "/rate_limits", methods=["GET"], endpoint="get_rate_limits"),
        Rule(CONTROL_PREFIX + "/rate_limits", methods=["POST"], endpoint="set_rate_limits"),
        Rule(CONTROL_PREFIX + "/faults", methods=["GET"], endpoint="list_faults"),
        Rule(CONTROL_PREFIX + "/faults", methods=["POST"], endpoint="add_fault"),
        Rule(CONTROL_PREFIX + "/faults", methods=["DELETE"], endpoint="clear_faults"),
        Rule(CONTROL_PREFIX + "/requests", methods=["GET"], endpoint="list_requests"),
        Rule(CONTROL_PREFIX + "/requests", methods=["DELETE"], endpoint="clear_requests"),
        Rule(CONTROL_PREFIX + "/clock", methods=["GET"], endpoint="get_clock"),
        Rule(CONTROL_PREFIX + "/clock", methods=["POST"], endpoint="advance_clock"),
    ] + sharing_control_rules() + networking_control_rules() + consumption_control_rules() + recovery_control_rules()
        + snapshots_control_rules())


class ControlRoutes:
    """The /_simulator handlers, mixed into SimulatorApp (state, faults, request_log, reset, rate limits)."""

    def _control(self, request):
        request_id = str(uuid.uuid4())
        endpoint, args, refusal = match_route(self.control_map, request, request_id)
        if refusal is not None:
            return refusal
        try:
            status, payload = getattr(self, "_control_" + endpoint)(request, **args)
        except (InvalidRequest, ValueError) as exc:
            return error_response(400, str(exc), request_id)
        except NotFound as exc:
            return error_response(404, str(exc), request_id)
        except Conflict as exc:
            return error_response(409, str(exc), request_id)
        return json_response(status, payload)

    def _control_health(self, request):
        del request
        return 200, {"ok": True}

    def _control_info(self, request):
        info = self.state.summary()
        info["api_url"] = request.host_url.rstrip("/") + API_PREFIX
        info["rate_limit"] = self.rate_limiter.rate if self.rate_limiter is not None else None
        info["rate_limits"] = self.rate_limits()
        return 200, info

    def _control_postgres(self, request):
        """The real computes (--postgres): the folder of the PostgreSQL programs (psql among them), the servers
        running, what could not be applied; 404 when the computes are not real."""
        del request
        if self.state.real is None:
            raise NotFound("the computes are not real: start the simulator with --postgres")
        return 200, self.state.real.describe(self.state.shared)

    def _control_reset(self, request):
        del request
        self.reset()
        return 200, {"ok": True, "demo_project_id": self.state.demo_project_id}

    def _control_keys(self, request):
        kind = request.args.get("kind")
        if kind is not None and kind not in KEY_KINDS:
            raise InvalidRequest("kind: must be one of %s" % ", ".join(KEY_KINDS))
        return 200, {"keys": self.state.keys.all_keys(kind)}

    def _control_create_key(self, request):
        return 201, self.state.scene.control_create_key(json_body(request, required=False))

    def _control_age_key(self, request, key_id):
        return 200, self.state.keys.age_key(key_id, json_body(request))

    def _control_list_barriers(self, request):
        del request
        return 200, {"barriers": self.barriers.list()}

    def _control_add_barrier(self, request):
        return 201, self.barriers.add(json_body(request))

    def _control_clear_barriers(self, request):
        del request
        return 200, {"removed": self.barriers.clear()}

    def _control_list_users(self, request):
        del request
        return 200, {"users": self.state.scene.list_users()}

    def _control_create_user(self, request):
        return 201, self.state.scene.create_user(json_body(request, required=False))

    def _control_update_user(self, request, user_id):
        return 200, self.state.scene.update_user(user_id, json_body(request))

    def _control_list_organizations(self, request):
        del request
        return 200, {"organizations": self.state.scene.list_organizations()}

    def _control_create_organization(self, request):
        return 201, self.state.scene.create_organization(json_body(request, required=False))

    def _control_add_member(self, request, org_id):
        return 200, self.state.scene.add_member(org_id, json_body(request))

    def _control_remove_member(self, request, org_id, user_id):
        del request
        return 200, self.state.scene.remove_member(org_id, user_id)

    def _control_create_project(self, request):
        return 201, self.state.projects.create_project(json_body(request, required=False))

    def _control_create_projects(self, request):
        return 201, self.state.projects.create_projects(json_body(request))

    def _control_share_project(self, request, project_id):
        return 200, self.state.scene.share_project(project_id, json_body(request, required=False))

    def _control_transfer_project(self, request, project_id):
        return 200, self.state.scene.transfer_project(project_id, json_body(request))

    def _control_start_operations(self, request, project_id):
        body = json_body(request, required=False)
        specs = body["operations"] if "operations" in body else [body]
        return 201, {"operations": self.state.operations.start_operations(project_id, specs)}

    def _control_release_operations(self, request, project_id):
        body = json_body(request, required=False)
        return 200, {"operations": self.state.operations.release_operations(project_id, None, body)}

    def _control_release_operation(self, request, project_id, operation_id):
        body = json_body(request, required=False)
        return 200, {"operation": self.state.operations.release_operations(project_id, operation_id, body)[0]}

    def _control_list_unavailable(self, request):
        del request
        return 200, {"unavailable": self.state.scene.list_unavailable()}

    def _control_set_unavailable(self, request):
        return 200, {"unavailable": self.state.scene.set_unavailable(json_body(request))}

    def _control_clear_unavailable(self, request):
        del request
        return 200, {"removed": self.state.scene.clear_unavailable()}

    def _control_get_rate_limits(self, request):
        del request
        return 200, self.rate_limits()

    def _control_set_rate_limits(self, request):
        return 200, self.set_rate_limits(json_body(request))

    def _control_add_history(self, request, project_id):
        body = json_body(request)
        return 201, self.state.operations.add_history(project_id, body.get("count"), body.get("days", 30.0), body.get("seed"))

    def _control_set_store_passwords(self, request, project_id):
        body = json_body(request)
        return 200, {"project": self.state.provisioning.set_store_passwords(project_id, body.get("store_passwords"))}

    def _control_check_password(self, request, project_id):
        body = json_body(request)
        for name in ("branch_id", "role_name", "password"):
            if not isinstance(body.get(name), str):
                raise InvalidRequest("%s: required string" % name)
        return 200, {"valid": self.state.catalog.password_valid(project_id, body["branch_id"], body["role_name"],
                                                                body["password"])}

    def _control_list_next_operations(self, request):
        del request
        return 200, {"next_operations": self.state.shared.next_operations.list()}

    def _control_add_next_operations(self, request):
        return 201, self.state.shared.next_operations.add(json_body(request, required=False),
                                                          self.state.provisioning.check_operation_fields)

    def _control_clear_next_operations(self, request):
        del request
        return 200, {"removed": self.state.shared.next_operations.clear()}

    def _control_get_limits(self, request):
        del request
        return 200, dict(self.state.shared.limits.values)

    def _control_set_limits(self, request):
        return 200, self.state.shared.limits.update(json_body(request))

    def _control_list_faults(self, request):
        del request
        return 200, {"faults": self.faults.list()}

    def _control_add_fault(self, request):
        return 201, self.faults.add(json_body(request))

    def _control_clear_faults(self, request):
        del request
        return 200, {"removed": self.faults.clear()}

    def _control_list_requests(self, request):
        since = request.args.get("since")
        if since is not None and not INTEGER_RE.match(since):
            raise InvalidRequest("since: invalid integer value %r" % since)
        return 200, {"requests": self.request_log.list(int(since) if since is not None else None)}

    def _control_clear_requests(self, request):
        del request
        return 200, {"removed": self.request_log.clear()}

    def _control_get_clock(self, request):
        del request
        now = self.state.clock.time()
        return 200, {"now": iso_micro(int(round(now * 1e6))), "time": now, "speed": self.state.clock.speed,
                     "real_time": time.time()}

    def _control_advance_clock(self, request):
        body = json_body(request)
        seconds = body.get("advance")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0:
            raise InvalidRequest("advance: must be a non-negative number of seconds")
        self.state.clock.advance(seconds)
        return self._control_get_clock(request)
