# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The simulated service: one object per area, and the data and helpers they share, behind one lock.

Each area's state is an object of its own file (``state.keys`` is keys.py's Keys, ``state.provisioning``
provisioning.py's Provisioning, ...), its routes in api_<area>.py. Every area object gets the one
:class:`~neon_simulator.shared.Shared` (shared.py: the data, the lock, the helpers more than one area uses) and,
by name, any other area it calls (the scene gets the projects). The methods the API calls take the authenticating
key and apply access.py's rules; the methods that set a scene (control API) are in scene.py.
"""

from __future__ import annotations

from . import seed
from .advisors import Advisors
from .anonymized import Anonymized
from .billing import Billing
from .catalog import Catalog
from .computes import Computes
from .consumption import Consumption
from .data_api import DataApi
from .errors import Conflict, Forbidden, InvalidRequest, NotFound
from .keys import Keys
from .neon_auth import NeonAuth
from .networking import Networking
from .operations import Operations
from .organizations import Organizations
from .platform_info import PlatformInfo
from .project_roles import ProjectRoles
from .projects import Projects
from .provisioning import Provisioning
from .recoverable import Recoverable
from .recovery import Recovery
from .scene import Scene
from .shared import Shared
from .sharing import Sharing
from .snapshots import Snapshots
from .transfers import Transfers

__all__ = ["Conflict", "Forbidden", "InvalidRequest", "NotFound", "State"]


class State:
    """Thread-safe in-memory state of the simulated service: ``shared`` and the areas (see the module's text)."""

    def __init__(self, api_key, seed_value=1, clock=None, extra_keys=True, operation_pace=1.0, real=None):
        self.shared = shared = Shared(api_key, seed_value, clock, extra_keys, operation_pace, real)
        self.lock = shared.lock
        self.clock = shared.clock
        self.keys = Keys(shared)
        self.organizations = Organizations(shared)
        self.projects = Projects(shared)
        self.operations = Operations(shared)
        self.scene = Scene(shared, self.projects)
        self.provisioning = Provisioning(shared)
        self.computes = Computes(shared)
        self.catalog = Catalog(shared)
        self.sharing = Sharing(shared)
        self.networking = Networking(shared)
        self.consumption = Consumption(shared)
        self.recovery = Recovery(shared)
        self.snapshots = Snapshots(shared)
        self.platform_info = PlatformInfo(shared)
        self.neon_auth = NeonAuth(shared)
        self.data_api = DataApi(shared, self.neon_auth)
        self.recoverable = Recoverable(shared, self.projects._project_detail)  # pylint: disable=protected-access
        self.advisors = Advisors(shared)
        self.anonymized = Anonymized(shared, self.provisioning)
        self.transfers = Transfers(shared)
        self.project_roles = ProjectRoles(shared, self.sharing)
        self.billing = Billing(shared)
        self.reset()

    @property
    def real(self):
        """The computes that are real PostgreSQL servers (real_computes.RealComputes, --postgres), or None."""
        return self.shared.real

    @real.setter
    def real(self, value):
        self.shared.real = value

    def before_request(self):
        """Called before a request is answered (app.py): a real compute with a client session open counts as
        in use now, so its answer does not find it suspended by its timeout (real_computes.py)."""
        real = self.shared.real
        if real is not None:
            real.keep_busy_active(self.shared)

    def after_request(self):
        """Called once a request's answer is made, before it is sent (app.py): real computes are made to match
        what it said (real_computes.py)."""
        real = self.shared.real
        if real is not None:
            real.reconcile(self.shared)

    def reset(self):
        """Back to the seeded state (the bootstrap key is active again)."""
        shared = self.shared
        seeded = seed.build(shared.seed, shared.now_us(), shared.bootstrap_secret, shared.extra_keys)
        with shared.lock:
            shared.load(seeded)
            for area in (self.provisioning, self.sharing, self.networking, self.consumption, self.recovery,
                         self.snapshots, self.neon_auth, self.data_api,
                         self.recoverable, self.advisors, self.anonymized, self.transfers, self.project_roles,
                         self.billing):
                area.reset()
            if shared.real is not None:  # every server and all data go: the seeded projects start empty again
                shared.real.clear()

    @property
    def demo_project_id(self):
        return seed.DEMO_PROJECT_ID

    def _personal_projects(self, user_id):
        return [p for p in self.shared.project_order if p.org_id is None and p.owner_id == user_id]

    def summary(self):
        def brief(project):
            return {"id": project.id, "name": project.name, "operations": len(project.ops)}

        shared = self.shared
        with shared.lock:
            me = shared.bootstrap_user_id
            return {
                "seed": shared.seed,
                "demo_project_id": seed.DEMO_PROJECT_ID,
                "demo_project_name": seed.DEMO_PROJECT_NAME,
                "org_id": shared.org_id,
                "user_id": me,
                # the bootstrap user's personal projects: what GET /projects lists with the bootstrap key
                "projects": [brief(p) for p in self._personal_projects(me)],
                "shared_projects": [brief(p) for p in shared.project_order if me in p.shared_with],
                "organizations": [dict(org.render(),
                                       members=[{"user_id": uid, "role": role} for uid, role in org.members.items()],
                                       projects=[brief(p) for p in shared.project_order if p.org_id == org.id])
                                  for org in shared.organizations.values()],
                "users": [dict(user.control_item(), bootstrap=user.id == me,
                               personal_projects=len(self._personal_projects(user.id)))
                          for user in shared.users.values()],
            }
