# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The simulated service: users, organizations, keys, projects and operations, behind one lock.

Each area's methods are in its own file (keys.py, organizations.py, projects.py, operations.py, provisioning.py,
...), its routes in api_<area>.py. The methods the API calls take the authenticating key and apply access.py's
rules; the methods that set a scene (control API) are in scene.py.
"""

from __future__ import annotations

import threading

from . import seed
from .clock import Clock
from .errors import Conflict, Forbidden, InvalidRequest, NotFound
from .catalog import CatalogMixin
from .computes import ComputesMixin
from .consumption import ConsumptionMixin
from .keys import KeysMixin
from .networking import NetworkingMixin
from .operations import OperationsMixin
from .organizations import OrganizationsMixin
from .projects import ProjectsMixin
from .provisioning import ProvisioningMixin
from .recovery import RecoveryMixin
from .scene import SceneMixin
from .sharing import SharingMixin
from .snapshots import SnapshotsMixin
from .work import Limits, NextOperations

__all__ = ["Conflict", "Forbidden", "InvalidRequest", "NotFound", "State"]


class State(KeysMixin, OrganizationsMixin, ProjectsMixin, OperationsMixin, SceneMixin, ProvisioningMixin, ComputesMixin,
            CatalogMixin, SharingMixin, NetworkingMixin, ConsumptionMixin, RecoveryMixin, SnapshotsMixin):
    """Thread-safe in-memory state of the simulated service."""

    def __init__(self, api_key, seed_value=1, clock=None, extra_keys=True, operation_pace=1.0, real=None):
        if not api_key or not isinstance(api_key, str) or any(c.isspace() for c in api_key):
            raise ValueError("the bootstrap API key must be a non-empty string without spaces")
        self.lock = threading.RLock()
        self.clock = clock or Clock()
        self.seed = seed_value
        self.bootstrap_secret = api_key
        self.extra_keys = extra_keys
        # How long the operations the API starts take, as a share of work.DURATIONS (kept by reset)
        self.operation_pace = operation_pace
        self.user = None              # the bootstrap user as keys show it: {id, name, image}
        self.bootstrap_user_id = None
        self.org_id = seed.ORG_ID     # the seeded organization
        self.users = {}
        self.organizations = {}
        self.keys = {}
        self.keys_by_secret = {}
        self.projects = {}
        self.project_order = []
        self.unavailable = {}         # project id -> answers left that leave it out (None: every answer)
        self.next_key_id = 0
        self.limits = Limits()
        self.next_operations = NextOperations()
        self.next_database_id = 0
        # computes that are real PostgreSQL servers (real_computes.RealComputes, --postgres), or None
        self.real = real
        self.reset()

    # ------------------------------------------------------------------ general
    def now_us(self):
        return self.clock.now_us()

    def before_request(self):
        """Called before a request is answered (app.py): a real compute with a client session open counts as
        in use now, so its answer does not find it suspended by its timeout (real_computes.py)."""
        real = self.real
        if real is not None:
            real.keep_busy_active(self)

    def after_request(self):
        """Called once a request's answer is made, before it is sent (app.py): real computes are made to match
        what it said (real_computes.py)."""
        real = self.real
        if real is not None:
            real.reconcile(self)

    def reset(self):
        """Back to the seeded state (the bootstrap key is active again)."""
        seeded = seed.build(self.seed, self.now_us(), self.bootstrap_secret, self.extra_keys)
        with self.lock:
            self.user = seeded.user.ref()
            self.bootstrap_user_id = seeded.user.id
            self.users = {user.id: user for user in seeded.users}
            self.organizations = {org.id: org for org in seeded.organizations}
            self.keys = {key.id: key for key in seeded.keys}
            self.keys_by_secret = {key.secret: key for key in seeded.keys}
            self.projects = {project.id: project for project in seeded.projects}
            self.project_order = []
            for project in seeded.projects:
                self._insert_in_order(project)
            self.unavailable = {}
            self.next_key_id = seeded.next_key_id
            self.limits = Limits()
            self.next_operations.clear()
            self._reset_provisioning()
            self._reset_sharing()
            self._reset_networking()
            self._reset_consumption()
            self._reset_recovery()
            self._reset_snapshots()
            if self.real is not None:  # every server and all data go: the seeded projects start empty again
                self.real.clear()

    @property
    def demo_project_id(self):
        return seed.DEMO_PROJECT_ID

    def _personal_projects(self, user_id):
        return [p for p in self.project_order if p.org_id is None and p.owner_id == user_id]

    def summary(self):
        def brief(project):
            return {"id": project.id, "name": project.name, "operations": len(project.ops)}

        with self.lock:
            me = self.bootstrap_user_id
            return {
                "seed": self.seed,
                "demo_project_id": seed.DEMO_PROJECT_ID,
                "demo_project_name": seed.DEMO_PROJECT_NAME,
                "org_id": self.org_id,
                "user_id": me,
                # the bootstrap user's personal projects: what GET /projects lists with the bootstrap key
                "projects": [brief(p) for p in self._personal_projects(me)],
                "shared_projects": [brief(p) for p in self.project_order if me in p.shared_with],
                "organizations": [dict(org.render(),
                                       members=[{"user_id": uid, "role": role} for uid, role in org.members.items()],
                                       projects=[brief(p) for p in self.project_order if p.org_id == org.id])
                                  for org in self.organizations.values()],
                "users": [dict(user.control_item(), bootstrap=user.id == me,
                               personal_projects=len(self._personal_projects(user.id)))
                          for user in self.users.values()],
            }
