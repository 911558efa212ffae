# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The control API under /_simulator (JSON, no auth): what tests use to set a scene and look inside. The routes of
the simulator itself are here; an area's control routes are in its api_<area>.py (the scene's in api_scene.py)."""

from __future__ import annotations

import time
import uuid

from werkzeug.routing import Map, Rule

from .api_advisors import advisors_control_rules
from .api_anonymized import anonymized_control_rules
from .api_catalog import catalog_control_rules
from .api_consumption import consumption_control_rules
from .api_keys import keys_control_rules
from .api_neon_auth import neon_auth_control_rules
from .api_networking import networking_control_rules
from .api_operations import operations_control_rules
from .api_projects import projects_control_rules
from .api_recoverable import recoverable_control_rules
from .api_recovery import recovery_control_rules
from .api_scene import scene_control_rules
from .api_sharing import sharing_control_rules
from .api_snapshots import snapshots_control_rules
from .clock import iso_micro
from .errors import Conflict, InvalidRequest, NotFound
from .web import API_PREFIX, CONTROL_PREFIX, INTEGER_RE, error_response, json_body, json_response, match_route


def control_map():
    """The simulator's own control routes (health, info, reset, barriers, scripted operations, plan limits, rate
    limits, faults, request log, clock), then each area's (``<area>_control_rules`` of its api_<area>.py)."""
    return Map([
        Rule(CONTROL_PREFIX + "/health", methods=["GET"], endpoint="health"),
        Rule(CONTROL_PREFIX + "/info", methods=["GET"], endpoint="info"),
        Rule(CONTROL_PREFIX + "/postgres", methods=["GET"], endpoint="postgres"),
        Rule(CONTROL_PREFIX + "/reset", methods=["POST"], endpoint="reset"),
        Rule(CONTROL_PREFIX + "/barriers", methods=["GET"], endpoint="list_barriers"),
        Rule(CONTROL_PREFIX + "/barriers", methods=["POST"], endpoint="add_barrier"),
        Rule(CONTROL_PREFIX + "/barriers", methods=["DELETE"], endpoint="clear_barriers"),
        Rule(CONTROL_PREFIX + "/next_operations", methods=["GET"], endpoint="list_next_operations"),
        Rule(CONTROL_PREFIX + "/next_operations", methods=["POST"], endpoint="add_next_operations"),
        Rule(CONTROL_PREFIX + "/next_operations", methods=["DELETE"], endpoint="clear_next_operations"),
        Rule(CONTROL_PREFIX + "/limits", methods=["GET"], endpoint="get_limits"),
        Rule(CONTROL_PREFIX + "/limits", methods=["POST"], endpoint="set_limits"),
        Rule(CONTROL_PREFIX + "/rate_limits", methods=["GET"], endpoint="get_rate_limits"),
        Rule(CONTROL_PREFIX + "/rate_limits", methods=["POST"], endpoint="set_rate_limits"),
        Rule(CONTROL_PREFIX + "/faults", methods=["GET"], endpoint="list_faults"),
        Rule(CONTROL_PREFIX + "/faults", methods=["POST"], endpoint="add_fault"),
        Rule(CONTROL_PREFIX + "/faults", methods=["DELETE"], endpoint="clear_faults"),
        Rule(CONTROL_PREFIX + "/requests", methods=["GET"], endpoint="list_requests"),
        Rule(CONTROL_PREFIX + "/requests", methods=["DELETE"], endpoint="clear_requests"),
        Rule(CONTROL_PREFIX + "/clock", methods=["GET"], endpoint="get_clock"),
        Rule(CONTROL_PREFIX + "/clock", methods=["POST"], endpoint="advance_clock"),
    ] + keys_control_rules() + scene_control_rules() + projects_control_rules() + operations_control_rules()
        + catalog_control_rules() + sharing_control_rules() + networking_control_rules()
        + consumption_control_rules() + recovery_control_rules() + snapshots_control_rules()
        + neon_auth_control_rules() + recoverable_control_rules()
        + advisors_control_rules() + anonymized_control_rules())


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

    def _control_list_barriers(self, request):
        del request
        return 200, {"barriers": self.barriers.list()}

    def _control_add_barrier(self, request):
        return 201, self.barriers.add(json_body(request))

    def _control_clear_barriers(self, request):
        del request
        return 200, {"removed": self.barriers.clear()}

    def _control_get_rate_limits(self, request):
        del request
        return 200, self.rate_limits()

    def _control_set_rate_limits(self, request):
        return 200, self.set_rate_limits(json_body(request))

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
