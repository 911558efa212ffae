# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""An organization's members and pending invitations (``neon.cloud.organization_member``, ``_info``).

A person is in one of three states towards an organization, known by their email: a member (with
a role), invited (a pending invitation), or neither. The decision is plan.py's ``decide`` on the
member's one field, ``role``, plus what is the organization's own, all pure and unit-tested here:

- an email already invited is left as it is (the API cannot change or cancel an invitation);
- the organization's only admin is never removed nor made a member (the service refuses it);
- inviting and removing take the personal API key of an admin; changing a role, an admin's key
  or an organization key (the service's rule, docs/docsite/rst/api-behaviour.rst, "Project
  permissions and organization members"). What key the task has is asked of ``GET /auth``
  (_account/identity.py) only when a change is planned, so an unchanged task costs one listing.

``OrganizationMember`` is a Writer (writer.py), its requests ResourceTask's (task.py): an invitation is posted once (a lost answer is looked
for again, never posted blindly; one another run made meanwhile is used), failures say what was
done, and the result carries the diff. None of these requests starts operations.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._account.identity import who_am_i_if_told
from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import api_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.permissions import email_key, email_problem
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import (
    CREATE,
    DELETE,
    NOTHING,
    UPDATE,
    Description,
    Field,
    Plan,
    decide,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal, first_problem, path_problem
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import Found
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import Writer

ADMIN = "admin"
MEMBER_ROLE = "member"
# The roles a task may give (MemberRole of the June 2026 OpenAPI document: "some role values may not be available
# for all organizations", and the service refuses one it does not offer there). A role an answer carries is taken
# as it comes, whatever it is: one the service adds later is shown and compared, never a failure.
ROLES = (ADMIN, MEMBER_ROLE, "collaborator", "editor", "viewer")
PERSONAL = "personal"  # _account/identity.py's key_type of a user's own key
MEMBER_FIELDS = dict(required={"id": (str,), "user_id": (str,), "role": (str,)},
                     optional={"org_id": (str,), "joined_at": (str, type(None))})
INVITATION_FIELDS = dict(required={"email": (str,)},
                         optional={"id": (str,), "org_id": (str,), "role": (str,), "invited_at": (str, type(None)),
                                   "invited_by": (str, type(None))})
MEMBER = Description("organization member", "member", MEMBER_FIELDS, [Field("role")])
ALREADY_STATUS = 409  # an invitation refused because the email is a member or invited already (its words vary)


# ---------------------------------------------------------------------------------------------- decisions (pure)


def find_by_email(items, email):
    """The member or invitation of ``email`` (compared without case), or None."""
    found = [item for item in items if email_key(item["email"]) == email_key(email)]
    return found[0] if found else None


def decide_member(member, invitation, email, role, state):
    """The Plan for ``email`` towards the organization: CREATE (invite), UPDATE (its role), DELETE (remove)
    or NOTHING. ``role`` None leaves a member's role as it is, and invites as a member."""
    if state == "present" and member is None:
        if invitation is not None:
            return Plan(NOTHING, "%s was invited on %s as %s and has not joined yet" % (
                email, invitation.get("invited_at") or "an unknown date", invitation.get("role") or "an unknown role"))
        return Plan(CREATE, "%s is neither a member nor invited" % email,
                    body={"email": email, "role": role or MEMBER_ROLE})
    if state == "absent" and member is None:
        return Plan(NOTHING, "%s is not a member" % email)
    return decide(MEMBER, member, {"role": role}, state=state, name=email)


def only_admin_problem(members, member, plan, org_id):
    """Why the service would refuse ``plan`` because ``member`` is the organization's only admin, or None."""
    if member is None or member["role"] != ADMIN or plan.action not in (UPDATE, DELETE):
        return None
    if plan.action == UPDATE and plan.body.get("role") == ADMIN:
        return None
    if [item for item in members if item["role"] == ADMIN] != [member]:
        return None
    return "%s is the only admin of organization %s, and an organization keeps at least one admin; %s" % (
        member["email"], org_id, "make another member an admin first (neon.cloud.organization_member with role=admin)"
        if plan.action == DELETE else "make another member an admin before making this one a member")


def key_problem(identity, members, plan, org_id):
    """Why this task's key cannot make ``plan``, or None (also when it cannot tell: the service decides).

    ``identity``: GET /auth as _account/identity.py reads it (``key_type``, ``account_id``), or None.
    Inviting and removing need the personal key of an admin; changing a role needs an admin's
    rights (an admin's personal key, or an organization key)."""
    if identity is None or plan.action not in (CREATE, UPDATE, DELETE):
        return None
    doing = {CREATE: "Inviting a member", UPDATE: "Changing a member's role", DELETE: "Removing a member"}[plan.action]
    if plan.action in (CREATE, DELETE) and identity.get("key_type") not in (PERSONAL, None):
        return ("%s of organization %s needs the personal API key of an organization admin: the service does not take "
                "organization or project-scoped API keys for inviting or removing members, and this task's key is "
                "one (%s key, auth_method %s)" % (doing, org_id, identity.get("key_type"), identity.get("auth_method")))
    if identity.get("key_type") != PERSONAL:
        return None
    own = [item for item in members if item["user_id"] == identity.get("account_id")]
    if own and own[0]["role"] != ADMIN:
        return ("%s of organization %s needs an organization admin's %s: this task's key is the personal key of %s, "
                "who is a %s there" % (doing, org_id, "personal API key" if plan.action != UPDATE else
                                       "personal API key (or an organization API key)", own[0]["email"],
                                       own[0]["role"]))
    return None


def shown(member, invitation):
    """What a diff shows of the person: email, role, and whether a member or invited; {} when neither."""
    if member is not None:
        return {"email": member["email"], "role": member["role"], "status": "member"}
    if invitation is not None:
        return {"email": invitation["email"], "role": invitation.get("role"), "status": "invited"}
    return {}


# ---------------------------------------------------------------------------------------------- reading


def organization_path(org_id, *more):
    return api_path("organizations", org_id, *more)


def _read(client, org_id, what):
    path = organization_path(org_id, what)
    try:
        return path, client.get(path)
    except NeonAPIError as error:
        if error.status in (403, 404):
            raise Refusal("Reading the %s of organization %s was refused: %s. An organization's members and "
                          "invitations are read with the personal API key of one of its members or with its "
                          "organization API key; a project-scoped key cannot" % (what, org_id, error.describe()), error)
        raise


def list_members(client, org_id):
    """The organization's members, each the service's Member with the user's ``email`` added: one request."""
    path, data = _read(client, org_id, "members")
    check = answers.Checker("GET", path)
    listed = answers.items_of(data, "GET", path, "members", dict(required={"member": (dict,), "user": (dict,)}))
    members = []
    for index, item in enumerate(listed):
        member = check.fields(item["member"], "members[%d].member" % index, **MEMBER_FIELDS)
        user = check.fields(item["user"], "members[%d].user" % index, required={"email": (str,)})
        members.append(dict(member, email=user["email"]))
    return members


def list_invitations(client, org_id):
    """The organization's pending invitations, each checked: one request."""
    path, data = _read(client, org_id, "invitations")
    return answers.items_of(data, "GET", path, "invitations", INVITATION_FIELDS)


def answered_member(data, method, path, member_id, email):
    """The Member a PATCH answered (no email: the one asked for is added), checked."""
    check = answers.Checker(method, path)
    member = check.fields(data, "the answer", **MEMBER_FIELDS)
    check.same(member, "the answer", "id", member_id)
    return dict(member, email=email)


def answered_invitation(data, path, email):
    """The invitation of ``email`` among those a POST answered, checked; None when it names none."""
    answered = answers.items_of(data, "POST", path, "invitations", INVITATION_FIELDS)
    return find_by_email(answered, email)


# ---------------------------------------------------------------------------------------------- acting


class OrganizationMember(Writer):
    """``email`` towards organization ``org_id``: made a member (invited) with ``role`` (``state`` present), or
    removed (absent)."""

    starts_operations = False  # members and invitations start none
    path_options = ("org_id",)

    @classmethod
    def options_problem(cls, options):
        role_without_member = options["state"] == "absent" and options["role"] is not None
        return first_problem(path_problem("org_id", options["org_id"]), email_problem(options["email"]),
                             "role applies to state=present only (state=absent removes the member whatever their role)"
                             if role_without_member else None)

    @classmethod
    def from_options(cls, task, options):
        return cls(task, options["org_id"], options["email"].strip(), options["role"], options["state"])

    def __init__(self, task, org_id, email, role=None, state="present"):
        super(OrganizationMember, self).__init__(task)
        self.org_id = org_id
        self.email = email
        self.role = role
        self.state = state
        self.members = []

    def _keep(self, member, invitation):
        self.task.kept.update(member=member, invitation=invitation)

    def _listed(self):
        """(member, invitation) of the email as the service lists them now (invitations read only for a non-member)."""
        self.members = list_members(self.client, self.org_id)
        member = find_by_email(self.members, self.email)
        if member is not None:
            return member, None
        return None, find_by_email(list_invitations(self.client, self.org_id), self.email)

    def _find(self):
        return self.unless_refused(self._listed)

    # ------------------------------------------------------------------------------------------ the steps

    def read(self):
        member, invitation = self._listed()
        self._keep(member, invitation)
        return member, invitation

    def decide(self, current):
        """The plan; a Refusal for what the service would refuse (its only admin; a key that may not)."""
        member, invitation = current
        plan = decide_member(member, invitation, self.email, self.role, self.state)
        problem = only_admin_problem(self.members, member, plan, self.org_id)
        if problem is None and plan.changed:
            problem = key_problem(who_am_i_if_told(self.client), self.members, plan, self.org_id)
        if problem:
            raise Refusal(problem)
        self._note_invitation(invitation, self.state)
        return plan

    def diff(self, current, plan):
        return shown(*current), shown(*self._predicted(current[0], current[1], plan))

    def as_planned(self, current, plan, after):
        self._keep(*self._predicted(current[0], current[1], plan))
        return after

    def act(self, current, plan):
        member, invitation = current
        if plan.action == CREATE:
            return self._invite(plan.body["role"])
        if plan.action == UPDATE:
            return self._set_role(member, plan.body["role"]), invitation
        self._remove(member)
        return None, invitation

    def read_again(self, current, done, after):
        self._keep(*done)
        return shown(*done)

    def _note_invitation(self, invitation, state):
        if invitation is None:
            return
        if state == "absent":
            self.task.warnings.append("%s is not a member, but has a pending invitation (sent %s). The API cannot "
                                      "cancel an invitation; cancel it in the Neon Console." % (
                                          self.email, invitation.get("invited_at") or "at an unknown date"))
        elif self.role is not None and invitation.get("role") != self.role:
            self.task.warnings.append("%s was invited as %s, not %s, and has not joined yet; the API cannot change "
                                      "an invitation. Run the task again once they have joined to change the role." % (
                                          self.email, invitation.get("role"), self.role))
        else:
            self.task.warnings.append("%s was invited on %s and has not joined yet (the invitation is pending)." % (
                self.email, invitation.get("invited_at") or "an unknown date"))

    def _predicted(self, member, invitation, plan):
        if plan.action == CREATE:
            return None, {"email": self.email, "role": plan.body["role"], "org_id": self.org_id}
        if plan.action == UPDATE:
            return dict(member, role=plan.body["role"]), None
        if plan.action == DELETE:
            return None, None
        return member, invitation

    # ------------------------------------------------------------------------------------------ changes

    def _found_again(self):
        member, invitation = self._listed()
        found = member or invitation
        return Found(found, ours=True) if found is not None else None

    def _invite(self, role):
        path = organization_path(self.org_id, "invitations")
        label = "the invitation of %s" % self.email
        body = {"invitations": [{"email": self.email, "role": role}]}
        # The email became a member or was invited meanwhile (another run): refused, in words of its own.
        data, found = self.create_or_adopt(
            path, body, label, self._found_again, duplicate_status=ALREADY_STATUS,
            by_another_run=lambda _item: "%s was invited by another run at the same time; this run did not invite "
                                         "them again." % self.email)
        if found is None or found.ours:
            self.task.did("invited %s to organization %s as %s" % (self.email, self.org_id, role))
        invitation = found.item if found is not None and "user_id" not in found.item else None
        if data is not None:
            try:
                invitation = answered_invitation(data, path, self.email)
            except UnexpectedAnswer as error:
                raise self.task.failure("%s was sent, but its answer cannot be used: %s" % (
                    label, error.describe()), error)
        # Someone with a Neon account joins at once (the service's rule): read the members to tell.
        member, pending = self._find()
        if member is not None and member["role"] != role:
            # Joined with another role than invited (the service does not say which it gives): as asked.
            member = self._set_role(member, role)
        if member is None and pending is None:
            self.task.warnings.append("%s was invited, but the organization lists neither a member nor a pending "
                                      "invitation for it yet." % self.email)
        return member, invitation or pending

    def _set_role(self, member, role):
        path = organization_path(self.org_id, "members", member["id"])
        what = "the role of %s from %s to %s" % (self.email, member["role"], role)
        data = self.task.change("PATCH", path, None, {"role": role}, "Changing " + what)
        self.task.did("changed " + what)
        try:
            return answered_member(data, "PATCH", path, member["id"], member["email"])
        except UnexpectedAnswer as error:
            raise self.task.failure("changed %s, but its answer cannot be used: %s" % (what, error.describe()), error)

    def _remove(self, member):
        path = organization_path(self.org_id, "members", member["id"])
        # Its success is the document's empty object; an empty body says the same (api-behaviour.rst).
        removed, _answer = self.delete(
            path, "Removing %s from organization %s" % (self.email, self.org_id), no_content=True,
            gone="%s was removed from organization %s by another run at the same time." % (self.email, self.org_id))
        if removed:
            self.task.did("removed %s (a %s) from organization %s" % (self.email, member["role"], self.org_id))


def organization_people(client, org_id):
    """``organization_member_info``: the members and the pending invitations of the organization (two requests)."""
    return dict(members=list_members(client, org_id), invitations=list_invitations(client, org_id))
