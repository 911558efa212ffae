# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The project permissions (sharing a project by email) and an organization's members and invitations: State's
area (governance-recovery-api-notes.md sections 2 and 4, "the notes").

The area's object (state.sharing, given the shared data and helpers of shared.py): every ``api_*`` method takes the
authenticating key, holds the state's lock and answers JSON-like data; ``reset`` puts the seeded state back.

Permissions. A grant is kept per project in the order it was made. A grant to the email of a
simulated user (compared without case) puts the user in the project's ``shared_with``, so that the
project appears in that user's ``GET /projects/shared`` and the user's personal key reaches it;
revoking the user's last grant takes it out again. A project shared through the control API
(``POST /_simulator/projects/{id}/share``, the seeded shared project) has no email grant: it is
given one, to the user's email, the first time the project's permissions are read, so the two
views never disagree.

Members. An organization's members are ``Organization.members`` (user id -> role, records.py); a
member's id (a UUID of its own, not the user's) and ``joined_at`` are kept here, made the first
time the member is shown. Invitations are kept here while pending.

Where the notes say "unknown", the choice is in CHOICES below (and in tests/simulator/README.md,
"Project permissions, organization members and invitations").
"""

from __future__ import annotations

import re

from . import access, ids
from .clock import iso_seconds
from .errors import Conflict, Forbidden, InvalidRequest, NotFound
from .records import PERSONAL_KEY, ROLES, User

# ---------------------------------------------------------------------- CHOICES (the notes: unknown)
# A second grant to an email that already has one (compared without case): the service's answer is
# unknown (notes 2). The simulator answers as DUPLICATE_GRANT says, changeable through
# POST /_simulator/sharing {"duplicate_grant": ...} so that a client can be tested against each:
#   "conflict" (the default): 409 MESSAGE_GRANT_EXISTS, nothing made;
#   "existing": 200 with the grant that exists (as if made now);
#   "new": 200 with a second grant to the same email, listed beside the first.
DUPLICATE_GRANT_ANSWERS = ("conflict", "existing", "new")
DUPLICATE_GRANT = "conflict"
MESSAGE_GRANT_EXISTS = "project permission for this email already exists"
# Emails compare without case (a grant to Ana@Example.com is one to ana@example.com); a grant keeps
# the email as it was given. Revoked grants leave GET .../permissions at once (DELETE answers the
# grant with revoked_at); revoking an unknown or revoked grant: 404. The owner is never listed.
# A grant to an email of no simulated user is accepted (TF acceptance test, notes 2) and reaches
# nobody until such a user exists. Any key that reaches the project may list, grant and revoke
# (a grantee "can share further"; a project-scoped key has its project's member rights).
MESSAGE_PERMISSION_NOT_FOUND = "project permission not found"
MESSAGE_EMAIL = "email: must be an email address of 1 to 256 characters"
# Members: PATCH needs an admin (a personal key of an admin, or an organization key); DELETE and
# POST .../invitations need the personal key of an admin (notes 4, DOCS orgs-api): an organization
# key gets 403. The organization's only admin cannot be removed or made a member: 409 (status and
# wording unknown). Unknown member id: 404.
MESSAGE_ADMIN_ONLY = "only an admin can perform this action"
MESSAGE_PERSONAL_ONLY = ("this action requires a personal API key of an organization admin; "
                         "organization API keys are not supported")
MESSAGE_ONLY_ADMIN_REMOVE = "cannot remove the only admin of the organization"
MESSAGE_ONLY_ADMIN_DOWNGRADE = "cannot downgrade the role of the organization's only admin"
MESSAGE_MEMBER_NOT_FOUND = "member not found"
# Invitations (notes 4: unknown): the whole request is refused, nothing made, when an item is
# invalid or repeated within the request (400), or its email is already a member's or pending (409).
# An email of an existing user joins at once with the role invited (SPEC: "automatically join");
# the answer still lists its invitation, which is not pending (GET .../invitations lists pending
# ones only). Messages never repeat an email (the SPEC marks emails sensitive): they name the item.
MESSAGE_ALREADY_MEMBER = "invitations[%d]: this email is already a member of the organization"
MESSAGE_ALREADY_INVITED = "invitations[%d]: an invitation for this email already exists"
MESSAGE_INVITED_TWICE = "invitations[%d]: this email appears more than once in the request"
MESSAGE_INVITATION_NOT_FOUND = "invitation not found"
# Removing a member leaves their project-scoped keys and the grants of projects to their email as they are.

EMAIL_MAX = 256
_EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+$")


def email_key(email):
    """How emails compare: without case."""
    return email.casefold()


def _check_email(value, field):
    if not isinstance(value, str) or not 1 <= len(value) <= EMAIL_MAX or not _EMAIL_RE.match(value):
        raise InvalidRequest(MESSAGE_EMAIL.replace("email", field, 1))
    return value


def _check_role(value, field):
    if value not in ROLES:
        raise InvalidRequest("%s: must be one of %s" % (field, ", ".join(ROLES)))
    return value


class Grant:
    """One project permission: an email the project is shared with."""

    __slots__ = ("id", "email", "granted_us", "revoked_us")

    def __init__(self, email, granted_us):
        self.id = ids.random_uuid()
        self.email = email
        self.granted_us = granted_us
        self.revoked_us = None

    def render(self):
        item = {"id": self.id, "granted_to_email": self.email, "granted_at": iso_seconds(self.granted_us)}
        if self.revoked_us is not None:
            item["revoked_at"] = iso_seconds(self.revoked_us)
        return item


class Sharing:
    """The sharing area of State (see the module's text)."""

    def __init__(self, shared):
        self.shared = shared  # the data and helpers every area uses (shared.py)

    def reset(self):
        """Back to the seeded state (called by State.reset, with the lock held)."""
        self.grants = {}            # project id -> [Grant], in the order made (revoked ones kept, not listed)
        self.member_records = {}    # (org id, user id) -> {"id": member id, "joined_us": ...}
        self.invitations = {}       # org id -> [pending invitation dicts]
        self.duplicate_grant = DUPLICATE_GRANT

    # ------------------------------------------------------------------ helpers (lock held)
    def _user_by_email(self, email):
        wanted = email_key(email)
        return next((user for user in self.shared.users.values() if email_key(user.email) == wanted), None)

    def _active_grants(self, project):
        """The project's active grants, those of users it was shared with through the control API added."""
        grants = self.grants.setdefault(project.id, [])
        covered = {email_key(grant.email) for grant in grants if grant.revoked_us is None}
        for user_id in sorted(project.shared_with):
            user = self.shared.users.get(user_id)
            if user is not None and email_key(user.email) not in covered:
                grants.append(Grant(user.email, project.created_us))
                covered.add(email_key(user.email))
        return [grant for grant in grants if grant.revoked_us is None]

    def _share_with_user_of(self, project, email):
        user = self._user_by_email(email)
        if user is not None and user.id != project.owner_id:
            project.shared_with.add(user.id)

    def _unshare_if_last(self, project, email):
        user = self._user_by_email(email)
        if user is None:
            return
        # the grants as kept (reading them through _active_grants would give the user a grant again)
        if not any(email_key(grant.email) == email_key(user.email) and grant.revoked_us is None
                   for grant in self.grants.get(project.id, [])):
            project.shared_with.discard(user.id)

    def _organization(self, key, org_id):
        """(organization, the key's role in it) or the refusal (access.py)."""
        role = access.organization_role(self.shared, key, org_id)
        return self.shared.organizations[org_id], role

    def _member_record(self, org, user_id):
        record = self.member_records.get((org.id, user_id))
        if record is None:
            user = self.shared.users.get(user_id)
            joined = max(org.created_us, user.created_us if user is not None else org.created_us)
            record = {"id": ids.random_uuid(), "joined_us": joined}
            self.member_records[(org.id, user_id)] = record
        return record

    def member_id(self, org, user_id):
        """The id of ``user_id``'s membership of ``org`` (the one ``GET .../members`` shows; project_roles.py)."""
        return self._member_record(org, user_id)["id"]

    def _render_member(self, org, user_id):
        record = self._member_record(org, user_id)
        return {"id": record["id"], "user_id": user_id, "org_id": org.id, "role": org.members[user_id],
                "joined_at": iso_seconds(record["joined_us"])}

    def _member_by_id(self, org, member_id):
        """The user id of member ``member_id`` of ``org``, or 404."""
        for user_id in org.members:
            if self._member_record(org, user_id)["id"] == member_id:
                return user_id
        raise NotFound(MESSAGE_MEMBER_NOT_FOUND)

    def _join(self, org, user, role):
        org.members[user.id] = role
        org.updated_us = self.shared.now_us()
        self.member_records[(org.id, user.id)] = {"id": ids.random_uuid(), "joined_us": self.shared.now_us()}

    def _pending(self, org_id):
        return self.invitations.setdefault(org_id, [])

    @staticmethod
    def _render_invitation(invitation):
        return {"id": invitation["id"], "email": invitation["email"], "org_id": invitation["org_id"],
                "invited_by": invitation["invited_by"], "invited_at": iso_seconds(invitation["invited_us"]),
                "role": invitation["role"]}

    @staticmethod
    def _require_admin(role):
        if role != "admin":
            raise Forbidden(MESSAGE_ADMIN_ONLY)

    @staticmethod
    def _require_personal(key):
        if key.kind != PERSONAL_KEY:
            raise Forbidden(MESSAGE_PERSONAL_ONLY)

    # ------------------------------------------------------------------ permissions
    def api_list_permissions(self, key, project_id):
        """GET /projects/{project_id}/permissions."""
        with self.shared.lock:
            project = access.check_project(self.shared, key, project_id)
            return {"project_permissions": [grant.render() for grant in self._active_grants(project)]}

    def api_grant_permission(self, key, project_id, body):
        """POST /projects/{project_id}/permissions ``{"email"}``: the grant (not wrapped)."""
        with self.shared.lock:
            project = access.check_project(self.shared, key, project_id)
            if "email" not in body:
                raise InvalidRequest("email: field is required")
            email = _check_email(body["email"], "email")
            existing = [grant for grant in self._active_grants(project) if email_key(grant.email) == email_key(email)]
            if existing and self.duplicate_grant == "conflict":
                raise Conflict(MESSAGE_GRANT_EXISTS)
            if existing and self.duplicate_grant == "existing":
                return existing[0].render()
            grant = Grant(email, self.shared.now_us())
            self.grants[project.id].append(grant)
            self._share_with_user_of(project, email)
            return grant.render()

    def api_revoke_permission(self, key, project_id, permission_id):
        """DELETE /projects/{project_id}/permissions/{permission_id}: the grant with ``revoked_at``."""
        with self.shared.lock:
            project = access.check_project(self.shared, key, project_id)
            grant = next((grant for grant in self._active_grants(project) if grant.id == permission_id), None)
            if grant is None:
                raise NotFound(MESSAGE_PERMISSION_NOT_FOUND)
            grant.revoked_us = self.shared.now_us()
            self._unshare_if_last(project, grant.email)
            return grant.render()

    # ------------------------------------------------------------------ members
    def api_list_members(self, key, org_id):
        """GET /organizations/{org_id}/members: ``{"members": [{"member": Member, "user": {"email"}}]}``."""
        with self.shared.lock:
            org, _role = self._organization(key, org_id)
            return {"members": [{"member": self._render_member(org, user_id),
                                 "user": {"email": self.shared.users[user_id].email}} for user_id in org.members]}

    def api_get_member(self, key, org_id, member_id):
        with self.shared.lock:
            org, _role = self._organization(key, org_id)
            return self._render_member(org, self._member_by_id(org, member_id))

    def api_update_member(self, key, org_id, member_id, body):
        """PATCH .../members/{member_id} ``{"role"}``: the Member. Admins only; never the only admin demoted."""
        with self.shared.lock:
            org, role = self._organization(key, org_id)
            self._require_admin(role)
            if "role" not in body:
                raise InvalidRequest("role: field is required")
            new_role = _check_role(body["role"], "role")
            user_id = self._member_by_id(org, member_id)
            if org.members[user_id] == "admin" and new_role != "admin" and org.admins() == [user_id]:
                raise Conflict(MESSAGE_ONLY_ADMIN_DOWNGRADE)
            if org.members[user_id] != new_role:
                org.members[user_id] = new_role
                org.updated_us = self.shared.now_us()
            return self._render_member(org, user_id)

    def api_remove_member(self, key, org_id, member_id):
        """DELETE .../members/{member_id}: ``{}``. A personal key of an admin; never the only admin."""
        with self.shared.lock:
            org, role = self._organization(key, org_id)
            self._require_personal(key)
            self._require_admin(role)
            user_id = self._member_by_id(org, member_id)
            if org.members[user_id] == "admin" and org.admins() == [user_id]:
                raise Conflict(MESSAGE_ONLY_ADMIN_REMOVE)
            del org.members[user_id]
            self.member_records.pop((org.id, user_id), None)
            org.updated_us = self.shared.now_us()
            return {}

    # ------------------------------------------------------------------ invitations
    def api_list_invitations(self, key, org_id):
        """GET /organizations/{org_id}/invitations: the pending ones."""
        with self.shared.lock:
            org, _role = self._organization(key, org_id)
            return {"invitations": [self._render_invitation(item) for item in self._pending(org.id)]}

    def api_create_invitations(self, key, org_id, body):
        """POST /organizations/{org_id}/invitations ``{"invitations": [{"email", "role"}]}``: every
        invitation made; an existing user's joins at once. All or nothing."""
        with self.shared.lock:
            org, role = self._organization(key, org_id)
            self._require_personal(key)
            self._require_admin(role)
            items = body.get("invitations")
            if not isinstance(items, list) or not items:
                raise InvalidRequest("invitations: must be a non-empty list")
            members = {email_key(self.shared.users[user_id].email) for user_id in org.members}
            pending = {email_key(item["email"]) for item in self._pending(org.id)}
            seen = set()
            wanted = []
            for index, item in enumerate(items):
                if not isinstance(item, dict):
                    raise InvalidRequest("invitations[%d]: must be an object" % index)
                email = _check_email(item.get("email"), "invitations[%d].email" % index)
                wanted_role = _check_role(item.get("role"), "invitations[%d].role" % index)
                if email_key(email) in seen:
                    raise InvalidRequest(MESSAGE_INVITED_TWICE % index)
                seen.add(email_key(email))
                if email_key(email) in members:
                    raise Conflict(MESSAGE_ALREADY_MEMBER % index)
                if email_key(email) in pending:
                    raise Conflict(MESSAGE_ALREADY_INVITED % index)
                wanted.append((email, wanted_role))
            made = []
            for email, wanted_role in wanted:
                invitation = {"id": ids.random_uuid(), "email": email, "org_id": org.id, "invited_by": key.owner_id,
                              "invited_us": self.shared.now_us(), "role": wanted_role}
                made.append(invitation)
                user = self._user_by_email(email)
                if user is not None:
                    self._join(org, user, wanted_role)
                else:
                    self._pending(org.id).append(invitation)
            return {"invitations": [self._render_invitation(item) for item in made]}

    # ------------------------------------------------------------------ control API
    def sharing_settings(self):
        with self.shared.lock:
            return {"duplicate_grant": self.duplicate_grant}

    def set_sharing_settings(self, spec):
        """``{"duplicate_grant": "conflict" | "existing" | "new"}`` (see CHOICES); back to the default on reset."""
        if not isinstance(spec, dict):
            raise InvalidRequest("request body: must be a JSON object")
        unknown = set(spec) - {"duplicate_grant"}
        if unknown:
            raise InvalidRequest("unknown fields: %s" % ", ".join(sorted(unknown)))
        with self.shared.lock:
            if "duplicate_grant" in spec:
                if spec["duplicate_grant"] not in DUPLICATE_GRANT_ANSWERS:
                    raise InvalidRequest("duplicate_grant: must be one of %s" % ", ".join(DUPLICATE_GRANT_ANSWERS))
                self.duplicate_grant = spec["duplicate_grant"]
            return self.sharing_settings()

    def all_grants(self, project_id):
        """Every grant of a project ever made, revoked ones too, in the order made (tests look inside)."""
        with self.shared.lock:
            project = self.shared.project(project_id)
            self._active_grants(project)
            return [grant.render() for grant in self.grants[project.id]]

    def accept_invitation(self, org_id, invitation_id):
        """A pending invitation accepted: its email's user (made now when there is none) joins with its role.
        Answers ``{"member": Member, "user": the user}``."""
        with self.shared.lock:
            org = self.shared.find_organization(org_id)
            pending = self._pending(org.id)
            invitation = next((item for item in pending if item["id"] == invitation_id), None)
            if invitation is None:
                raise NotFound(MESSAGE_INVITATION_NOT_FOUND)
            user = self._user_by_email(invitation["email"])
            if user is None:
                user = User(ids.random_uuid(), invitation["email"].split("@")[0], invitation["email"], self.shared.now_us())
                self.shared.users[user.id] = user
            pending.remove(invitation)
            self._join(org, user, invitation["role"])
            return {"member": self._render_member(org, user.id), "user": user.control_item()}
