# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The compute endpoints API (notes section 4): list, create, get, update, delete, start,
suspend, restart. The area's object is state.computes; what it shares with provisioning (a project's
resources, a compute's state, starting operations) is in shared.py.

A compute is ``init`` (pending ``active``) until its ``start_compute`` ends, ``active`` while it
runs, ``idle`` once suspended: by ``/suspend``, or by itself after its suspend timeout.
"""

from __future__ import annotations

import random

from . import ids
from .errors import Conflict, InvalidRequest
from .provisioning import ENDPOINT_TYPES, MESSAGE_DELETE_PROTECTED_COMPUTE, MESSAGE_READ_WRITE_EXISTS, compute_settings
from .records import Endpoint
from .shared import read_object, read_string

# Fields PATCH may change (SPEC: no type, no region_id)
UPDATABLE = ("autoscaling_limit_min_cu", "autoscaling_limit_max_cu", "suspend_timeout_seconds", "settings",
             "pooler_enabled", "pooler_mode", "disabled", "name", "provisioner", "branch_id",
             "passwordless_access")
MESSAGE_DISABLED = "endpoint is disabled"  # inferred: starting a disabled compute


class Computes:
    """The /endpoints area of State (see the module's text)."""

    def __init__(self, shared):
        self.shared = shared  # the data and helpers every area uses (shared.py)

    def _endpoint_answer(self, project, endpoint, ops):
        now_us = self.shared.now_us()
        return {"endpoint": self.shared.render_endpoint(project, endpoint, now_us), "operations": self.shared.rendered(ops)}

    def api_list_endpoints(self, key, project_id, branch_id=None):
        """GET /projects/{id}/endpoints, or those of one branch (.../branches/{b}/endpoints)."""
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            resources = self.shared.resources(project)
            now_us = self.shared.now_us()
            if branch_id is not None:
                self.shared.branch(project, branch_id)
                endpoints = resources.endpoints_of(branch_id)
            else:
                endpoints = list(resources.endpoints.values())
            return {"endpoints": [self.shared.render_endpoint(project, ep, now_us) for ep in endpoints]}

    def api_get_endpoint(self, key, project_id, endpoint_id):
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            endpoint = self.shared.endpoint(project, endpoint_id)
            return {"endpoint": self.shared.render_endpoint(project, endpoint, self.shared.now_us())}

    def _check_one_read_write(self, project, branch_id, endpoint_type, endpoint=None):
        existing = self.shared.resources(project).read_write_endpoint(branch_id)
        if endpoint_type == "read_write" and existing is not None and existing is not endpoint:
            raise Conflict(MESSAGE_READ_WRITE_EXISTS % branch_id)

    def api_create_endpoint(self, key, project_id, body):
        """POST /projects/{id}/endpoints: 201 with ``start_compute``; one read_write compute per branch."""
        spec = compute_settings(dict(read_object(body, "endpoint")))
        branch_id = read_string(spec, "branch_id", 60, required=True)
        endpoint_type = spec.get("type")
        if endpoint_type not in ENDPOINT_TYPES:
            raise InvalidRequest("type: must be read_write or read_only")
        read_string(spec, "name", 64)
        self.shared.check_suspend_timeout(spec)
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            self.shared.refuse_unreal("a read-only compute", endpoint_type == "read_only")
            region_id = spec.get("region_id")
            if region_id is not None and region_id != project.data["region_id"]:
                raise InvalidRequest("region_id: must be the project's region %s" % project.data["region_id"])
            self.shared.branch(project, branch_id)
            self._check_one_read_write(project, branch_id, endpoint_type)
            now_us = self.shared.now_us()
            self.shared.check_unlocked(project, now_us)
            endpoint = Endpoint(ids.endpoint_id(random.SystemRandom()), project, branch_id, endpoint_type, now_us,
                                spec, creation_source="api")
            self.shared.resources(project).add_endpoint(endpoint)
            ops = self.shared.start(project, [("start_compute", branch_id, endpoint.id)])
            endpoint.state.start("active", ops[0], fallback="idle")
            return self._endpoint_answer(project, endpoint, ops)

    def api_update_endpoint(self, key, project_id, endpoint_id, body):
        """PATCH .../endpoints/{id}: ``apply_config``, then ``suspend_compute`` if the compute was idle
        or is being disabled (notes section 4)."""
        spec = compute_settings(dict(read_object(body, "endpoint")))
        unknown = set(spec) - set(UPDATABLE)
        if unknown:
            raise InvalidRequest("endpoint: fields that cannot be updated: %s" % ", ".join(sorted(unknown)))
        read_string(spec, "name", 64)
        self.shared.check_suspend_timeout(spec)
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            endpoint = self.shared.endpoint(project, endpoint_id)
            now_us = self.shared.now_us()
            target = spec.get("branch_id", endpoint.branch_id)
            if target != endpoint.branch_id:  # deprecated: moving a compute to another branch
                self.shared.branch(project, target)
                self._check_one_read_write(project, target, endpoint.type, endpoint)
            state = self.shared.compute_state(project, endpoint, now_us)
            items = [("apply_config", target, endpoint.id)]
            if state == "idle" or (spec.get("disabled") and state == "active"):
                items.append(("suspend_compute", target, endpoint.id))
            ops = self.shared.run(project, items, now_us)
            if spec.get("disabled") and state == "active":
                endpoint.state.start("idle", ops[-1])
                endpoint.suspended_us = ops[-1].end_us
            endpoint.branch_id = target
            for name, attribute in (("autoscaling_limit_min_cu", "min_cu"), ("autoscaling_limit_max_cu", "max_cu"),
                                    ("suspend_timeout_seconds", "suspend_timeout"), ("name", "name"),
                                    ("provisioner", "provisioner"), ("pooler_enabled", "pooler_enabled"),
                                    ("disabled", "disabled")):
                if spec.get(name) is not None:
                    setattr(endpoint, attribute, spec[name])
            if spec.get("settings"):
                endpoint.settings = dict(endpoint.settings, **spec["settings"])
            endpoint.updated_us = now_us
            return self._endpoint_answer(project, endpoint, ops)

    def api_delete_endpoint(self, key, project_id, endpoint_id):
        """DELETE .../endpoints/{id}: 204 if absent; ``suspend_compute`` if active, none if idle (DOC-EP)."""
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            resources = self.shared.resources(project)
            endpoint = resources.endpoints.get(endpoint_id)
            if endpoint is None:
                return None
            if resources.branches[endpoint.branch_id].protected:
                raise InvalidRequest(MESSAGE_DELETE_PROTECTED_COMPUTE)
            now_us = self.shared.now_us()
            items = []
            if self.shared.compute_state(project, endpoint, now_us) == "active":
                items.append(("suspend_compute", endpoint.branch_id, endpoint.id))
            ops = self.shared.run(project, items, now_us)
            answer = self._endpoint_answer(project, endpoint, ops)
            del resources.endpoints[endpoint.id]
            return answer

    def api_endpoint_action(self, key, project_id, endpoint_id, action):
        """POST .../endpoints/{id}/start, /suspend or /restart. Operations (inferred from their names
        and SPEC's "suspend immediately followed by start"): start ``start_compute`` unless active;
        suspend ``suspend_compute`` unless idle; restart both when active, ``start_compute`` when idle."""
        with self.shared.lock:
            project = self.shared.reachable(key, project_id)
            endpoint = self.shared.endpoint(project, endpoint_id)
            now_us = self.shared.now_us()
            state = self.shared.compute_state(project, endpoint, now_us)
            if endpoint.disabled and action != "suspend":
                raise InvalidRequest(MESSAGE_DISABLED)
            where = (endpoint.branch_id, endpoint.id)
            items = []
            if action == "suspend" and state != "idle":
                items = [("suspend_compute",) + where]
            elif action == "start" and state != "active":
                items = [("start_compute",) + where]
            elif action == "restart":
                items = ([("suspend_compute",) + where] if state != "idle" else []) + [("start_compute",) + where]
            ops = self.shared.run(project, items, now_us)
            if self.shared.real is not None and action == "restart":  # its server restarts too
                self.shared.real.restart(project.id, endpoint.id)
            if ops:
                suspending = ops[-1].action == "suspend_compute"
                endpoint.state.start("idle" if suspending else "active", ops[-1], fallback="idle")
                if suspending:
                    endpoint.suspended_us = ops[-1].end_us
                else:
                    endpoint.started_us = now_us
            return self._endpoint_answer(project, endpoint, ops)
