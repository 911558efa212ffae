# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Organizations as the API shows them: ``/users/me/organizations`` and ``/organizations/{org_id}``. Their
members and invitations are in sharing.py; the control API makes organizations in scene.py."""

from __future__ import annotations

from . import access


class OrganizationsMixin:
    """The organizations' part of State (mixed in)."""

    def user_organizations(self, key):
        """GET /users/me/organizations."""
        with self.lock:
            access.require_personal_key(key)
            return [org.render() for org in access.user_organizations(self, key.owner_id)]

    def get_organization(self, key, org_id):
        with self.lock:
            access.organization_role(self, key, org_id)
            return self.organizations[org_id].render()
