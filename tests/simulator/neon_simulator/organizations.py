# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Organizations as the API shows them: ``/users/me/organizations`` and ``/organizations/{org_id}``. Their
members and invitations are in sharing.py; the control API makes organizations in scene.py."""

from __future__ import annotations

from . import access


class Organizations:
    """The organizations area of State (see the module's text)."""

    def __init__(self, shared):
        self.shared = shared  # the data and helpers every area uses (shared.py)

    def user_organizations(self, key):
        """GET /users/me/organizations."""
        with self.shared.lock:
            access.require_personal_key(key)
            return [org.render() for org in access.user_organizations(self.shared, key.owner_id)]

    def get_organization(self, key, org_id):
        with self.shared.lock:
            access.organization_role(self.shared, key, org_id)
            return self.shared.organizations[org_id].render()
