# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A member's role on one project of an organization (``neon.cloud.project_member``; August 2026).

``GET /projects/{id}/members`` lists the organization's members with their project permissions (``limit`` up to
500, ``pagination.next`` as the cursor); ``PUT /projects/{id}/members/{member_id}/role`` ``{"role"}`` sets a member's
explicit role (viewer, editor, admin) and ``DELETE`` of the same path removes it, leaving the organization role's
default; both are idempotent and answer the member as it is then. Their shapes come from the client generated from
Neon's published document of 2026-08-20 (docs/docsite/rst/api-behaviour.rst, "Project members' roles").

The decision is the member's explicit permission against the one asked (``role_plan``, pure and unit-tested):
present sets it unless it is already that; absent removes it unless there is none. Values the service adds later
(a role, a permission level, a grant source) are shown as they come, never a failure.

``ProjectMemberRole`` is a Writer (writer.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path, query_string
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import (
    NeonAPIError,
    PaginationError,
    UnexpectedAnswer,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.permissions import email_key
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import Writer

ROLES = ("viewer", "editor", "admin")
PAGE_SIZE = 500  # the list's largest page (ListProjectMembersParams: limit 1-500)
MAX_PAGES = 1000
CONFLICT = 409
FORBIDDEN = 403
TEXT = (str, type(None))
MEMBER_FIELDS = dict(required={"member_id": (str,), "user_id": (str,), "org_role": (str,)},
                     optional={"email": TEXT, "name": TEXT, "project_role": TEXT,
                               "org_default_project_permission": TEXT, "explicit_project_permission": TEXT,
                               "effective_project_permission": TEXT, "grant_source": TEXT, "project_id": (str,),
                               "credential_rotation_recommended": (bool, type(None)),
                               "org_api_key_rotation_recommended": (bool, type(None))})
SHOWN = ("email", "org_role", "explicit_project_permission", "project_role")
KEYS = ("a project's members are read with a key that reaches the project (an organization key, or the personal key "
        "of a member of its organization with access to the project); their roles are changed with a key that has "
        "the project's admin role (an organization key, an organization admin's personal key, or a member's whose "
        "project role is admin)")


def options_problem(params):
    if params["state"] == "present" and not params.get("role"):
        return "role is required to set a member's project role (state=present): one of %s" % ", ".join(ROLES)
    if params["state"] == "absent" and params.get("role"):
        return "role is not used with state=absent (the member's explicit project role is removed, whatever it is)"
    return None


def role_plan(member, params):
    """"set", "remove" or "none" for ``member`` (a ProjectMember) as ``params`` ask (pure)."""
    explicit = member.get("explicit_project_permission")
    if params["state"] == "absent":
        return "remove" if explicit else "none"
    return "none" if (explicit or "").lower() == params["role"] else "set"


def shown(member):
    """What the diff shows of a member: email, organization role, explicit and effective project role."""
    return dict((name, member.get(name)) for name in SHOWN) if member is not None else None


def predicted(member, params):
    """The member as the plan would leave it (the diff's after, check mode's ``member``)."""
    after = dict(member)
    if params["state"] == "absent":
        after["explicit_project_permission"] = None
        default = member.get("org_default_project_permission")
        after["project_role"] = "admin" if member.get("org_role") == "admin" else (default.lower() if default else None)
    else:
        after["explicit_project_permission"] = params["role"].upper()
        after["project_role"] = "admin" if member.get("org_role") == "admin" else params["role"]
    after.pop("grant_source", None)
    return after


class RolePlan:
    def __init__(self, action, member):
        self.action = action
        self.member = member

    @property
    def changed(self):
        return self.action != "none"


class ProjectMemberRole(Writer):
    """The explicit role of one member of ``params["project_id"]`` (see the module's text)."""

    path_options = ("project_id",)
    starts_operations = False

    def __init__(self, task, params):
        super(ProjectMemberRole, self).__init__(task)
        self.params = params
        self.project_id = params["project_id"]

    @classmethod
    def options_problem(cls, options):
        return options_problem(options)

    def read(self):
        """Every member the key lists, page by page."""
        path = project_path(self.project_id, "members")
        members, cursor, used = [], None, set()
        for _page in range(MAX_PAGES):
            try:
                data = self.client.get(path, params={"limit": PAGE_SIZE, "cursor": cursor})
            except NeonAPIError as error:
                if error.status in (403, 404):
                    raise Refusal(self._refused(error), error)
                raise
            items = answers.items_of(data, "GET", path, "project_members", MEMBER_FIELDS)
            members.extend(items)
            pagination = data.get("pagination")
            cursor = pagination.get("next") if isinstance(pagination, dict) else None
            if not cursor or len(items) < PAGE_SIZE:
                return members
            if not isinstance(cursor, str) or cursor in used:
                raise PaginationError(path, "the service answered the cursor %r again: the list does not advance"
                                      % (cursor,))
            used.add(cursor)
        raise PaginationError(path, "gave up after %d pages; the list does not end" % MAX_PAGES)

    def _refused(self, error):
        if error.status == 404:
            return ("there is no project %s whose members this key can list (%s): the project does not exist, is not "
                    "an organization's (a personal project has no project roles: share it with "
                    "neon.cloud.project_permission), or the key has no access to it; %s" % (
                        self.project_id, error.describe(), KEYS))
        return "Listing the members of project %s was refused: %s; %s" % (self.project_id, error.describe(), KEYS)

    def _find(self, members):
        if self.params.get("member_id"):
            found = [member for member in members if member["member_id"] == self.params["member_id"]]
            asked = "member id %s" % self.params["member_id"]
        else:
            wanted = email_key(self.params["email"])
            found = [member for member in members if email_key(member.get("email") or "") == wanted]
            asked = self.params["email"]
        if not found:
            raise Refusal("%s is not among the members of project %s's organization that this key lists (%d); invite "
                          "them to the organization first (neon.cloud.organization_member), or read the members with "
                          "a key that has the project's admin role, which lists those without access too"
                          % (asked, self.project_id, len(members)))
        return found[0]

    def decide(self, current):
        self.task.kept["project_members"] = current
        member = self._find(current)
        self.task.kept["member"] = member
        return RolePlan(role_plan(member, self.params), member)

    def diff(self, current, plan):
        before = shown(plan.member)
        return before, (shown(predicted(plan.member, self.params)) if plan.changed else before)

    def as_planned(self, current, plan, after):
        if plan.changed:
            self.task.kept["member"] = predicted(plan.member, self.params)
        return after

    def act(self, current, plan):
        path = project_path(self.project_id, "members", plan.member["member_id"], "role")
        confirm = "confirm_self_lockout" if plan.action == "remove" else "confirm_self_demotion"
        if self.params.get("confirm_self_change"):
            path += "?" + query_string({confirm: "true"})
        who = plan.member.get("email") or plan.member["member_id"]
        if plan.action == "set":
            method, body, done = "PUT", {"role": self.params["role"]}, "the project role of %s was set to %s" % (
                who, self.params["role"])
            label = "Setting the project role of %s on project %s to %s" % (who, self.project_id, self.params["role"])
        else:
            method, body, done = "DELETE", None, "the explicit project role of %s was removed" % who
            label = "Removing the project role of %s on project %s" % (who, self.project_id)
        try:
            data = self.task.send(method, path, None, body)
        except NeonAPIError as error:
            msg = "%s failed: %s" % (label, error.describe())
            if error.status == CONFLICT and not self.params.get("confirm_self_change"):
                msg += ("; this lowers the key's own access to the project, which the service does only with "
                        "confirm_self_change=true")
            elif error.status == FORBIDDEN:
                msg += "; " + KEYS
            raise self.task.failure(msg, error)
        self.task.did(done)
        try:
            member = answers.Checker(plan.action == "set" and "PUT" or "DELETE", path).fields(
                data, "the answer", **MEMBER_FIELDS)
        except UnexpectedAnswer as error:
            raise self.task.failure("its answer cannot be used: %s" % error.describe(), error)
        self.task.kept["member"] = member
        self.task.kept["project_members"] = [
            dict(item, **dict((name, member.get(name)) for name in SHOWN + ("effective_project_permission",)))
            if item["member_id"] == member["member_id"] else item for item in current]
        for hint, what in (("credential_rotation_recommended", "rotating the database passwords they know"),
                           ("org_api_key_rotation_recommended", "rotating the project-scoped API keys they made")):
            if member.get(hint):
                self.task.warnings.append("the service recommends %s: %s's access to project %s was lowered" % (
                    what, who, self.project_id))
        return member

    def read_again(self, current, done, after):
        return shown(done)
