# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""API keys: ``/api_keys`` (a user's personal keys), ``/organizations/{org_id}/api_keys`` (an organization's
keys, and those scoped to one of its projects), ``/auth``, and the control API's list and aging of keys."""

from __future__ import annotations

from . import access, ids
from .errors import InvalidRequest, NotFound
from .records import ORGANIZATION_KEY, PERSONAL_KEY, PROJECT_KEY

ID_RE = ids.ID_RE


class Keys:
    """The keys area of State (see the module's text)."""

    def __init__(self, shared):
        self.shared = shared  # the data and helpers every area uses (shared.py)

    def authenticate(self, secret, address):
        """The active, usable key with this secret (its last use recorded), or None."""
        with self.shared.lock:
            key = self.shared.keys_by_secret.get(secret)
            if key is None or key.revoked or not access.key_is_usable(self.shared, key):
                return None
            key.last_used_us = self.shared.now_us()
            key.last_used_from_addr = address
            return key

    def create_key(self, name, key=None):
        """POST /api_keys: a personal key of the authenticating key's user (default: the bootstrap user)."""
        self.shared.check_key_name(name)
        with self.shared.lock:
            key = key or self.shared.bootstrap_key()
            access.require_personal_key(key)
            return self.shared.add_key(name, dict(key.created_by)).create_response()

    @staticmethod
    def _newest_first(keys):
        return sorted(keys, key=lambda key: (key.created_us, key.id), reverse=True)

    def list_keys(self, key=None):
        """GET /api_keys: the user's active personal keys, newest first."""
        with self.shared.lock:
            key = key or self.shared.bootstrap_key()
            access.require_personal_key(key)
            mine = [k for k in self.shared.keys.values()
                    if k.kind == PERSONAL_KEY and not k.revoked and k.owner_id == key.owner_id]
            return [k.list_item() for k in self._newest_first(mine)]

    def revoke_key(self, key_id, key=None):
        """DELETE /api_keys/{id}: one of the user's personal keys."""
        with self.shared.lock:
            key = key or self.shared.bootstrap_key()
            access.require_personal_key(key)
            target = self.shared.keys.get(key_id)
            if target is None or target.revoked or target.kind != PERSONAL_KEY or target.owner_id != key.owner_id:
                raise NotFound("API key not found")
            return self._revoke(target)

    def _revoke(self, target):
        target.revoked = True
        target.revoked_us = self.shared.now_us()
        return target.revoke_response()

    def all_keys(self, kind=None):
        with self.shared.lock:
            return [key.control_item() for key in sorted(self.shared.keys.values(), key=lambda key: key.id)
                    if kind is None or key.kind == kind]

    def age_key(self, key_id, spec):
        """Move a key's creation and last use into the past: ``{"created_days_ago": D, "last_used_days_ago":
        D | null}`` (days before the simulator's now; null: never used). Answers the key as /_simulator/keys."""
        unknown = set(spec) - {"created_days_ago", "last_used_days_ago"}
        if unknown:
            raise InvalidRequest("unknown fields: %s" % ", ".join(sorted(unknown)))

        def days(field):
            value = spec[field]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 36500:
                raise InvalidRequest("%s: must be a number of days from 0 to 36500" % field)
            return int(round(value * 86400e6))

        with self.shared.lock:
            key = self.shared.keys.get(key_id)
            if key is None:
                raise NotFound("no key %s" % key_id)
            now = self.shared.now_us()
            created_us = now - days("created_days_ago") if "created_days_ago" in spec else key.created_us
            last_used_us = key.last_used_us
            if "last_used_days_ago" in spec:
                last_used_us = None if spec["last_used_days_ago"] is None else now - days("last_used_days_ago")
            if last_used_us is not None and last_used_us < created_us:
                raise InvalidRequest("a key cannot be last used before it was created")
            key.created_us, key.last_used_us = created_us, last_used_us
            key.last_used_from_addr = "" if last_used_us is None else (key.last_used_from_addr or "127.0.0.1")
            return key.control_item()

    def _org_keys(self, org_id):
        return [k for k in self.shared.keys.values() if k.org_id == org_id and not k.revoked]

    def list_org_keys(self, key, org_id):
        """GET /organizations/{org_id}/api_keys: the organization's active keys, newest first."""
        with self.shared.lock:
            access.organization_role(self.shared, key, org_id)
            return [k.list_item() for k in self._newest_first(self._org_keys(org_id))]

    def create_org_key(self, key, org_id, name, project_id=None):
        """POST /organizations/{org_id}/api_keys: an organization key, or one scoped to ``project_id``."""
        self.shared.check_key_name(name)
        if project_id is not None and (not isinstance(project_id, str) or not ID_RE.match(project_id)):
            raise InvalidRequest("project_id: must match ^[a-z0-9-]{1,60}$")
        with self.shared.lock:
            access.check_org_key_create(self.shared, key, org_id, project_id)
            if project_id is not None:
                project = self.shared.projects.get(project_id)
                if project is None or project.org_id != org_id:
                    raise InvalidRequest("project_id: no project %s in organization %s" % (project_id, org_id))
            kind = ORGANIZATION_KEY if project_id is None else PROJECT_KEY
            created = self.shared.add_key(name, dict(key.created_by), kind, org_id, project_id)
            return created.create_response()

    def revoke_org_key(self, key, org_id, key_id):
        with self.shared.lock:
            access.organization_role(self.shared, key, org_id)
            target = self.shared.keys.get(key_id)
            if target is None or target.revoked or target.org_id != org_id:
                raise NotFound("API key not found")
            access.check_org_key_revoke(self.shared, key, org_id, target)
            return self._revoke(target)

    def auth_details(self, key):
        return access.auth_details(key)
