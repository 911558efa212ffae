# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A project's permissions - the emails it is shared with (``neon.cloud.project_permission``).

A project's grants are a set, not one object, so they do not take the one-object walk of
resource.py; they are a Writer (writer.py): ResourceTask (task.py) for requests, a create never
repeated blindly, failures that say what was done, results and diffs; and pure decisions here
(``plan_grants``, ``surplus_grants``), unit-tested without HTTP.

The facts (docs/docsite/rst/api-behaviour.rst, "Project permissions and organization members"):
``GET /projects/{id}/permissions`` lists the grants (``id``, ``granted_to_email``, ``granted_at``,
``revoked_at`` on a revoked one); ``POST`` with ``{"email"}`` answers one grant, not wrapped;
``DELETE .../permissions/{permission_id}`` answers the grant revoked. None starts operations.
What the service does with a second grant to one email is not documented: it may refuse it
(an overlapping run's grant is then looked for and used), answer the grant that exists, or make a
second one. In that last case the grant this run made is revoked again when an earlier grant to
the same email is listed, so that overlapping runs leave one grant whatever the service does.
Emails compare without case.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._api.timestamps import timestamp
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import read_project_list
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import Description, Field
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import first_problem, path_problem
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import Found
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import Writer

EMAIL_MAX = 256  # the API's limit on an email (SPEC: GrantPermissionToProjectRequest, OrganizationInviteCreateRequest)
PERMISSION_FIELDS = dict(required={"id": (str, int), "granted_to_email": (str,)},
                         optional={"granted_at": (str, type(None)), "revoked_at": (str, type(None))})
PERMISSION = Description("project permission", "project_permission", PERMISSION_FIELDS,
                         [Field("email", "granted_to_email")], plural="project_permissions")
ALREADY_GRANTED_STATUS = 409  # a refused duplicate, whatever its words (the status is not documented either)


# ---------------------------------------------------------------------------------------------- emails (pure)


def email_key(email):
    """How two emails compare: without case, and without spaces around them."""
    return email.strip().lower()


def email_problem(email, option="email"):
    """Why ``email`` is no email address the API takes, or None (checked before any request)."""
    if not isinstance(email, str) or not email.strip():
        return "%s must be an email address such as ana@example.com, got %r" % (option, email)
    local, sep, domain = email.strip().rpartition("@")
    if not sep or not local or not domain or any(char.isspace() for char in email.strip()):
        return "%s must be an email address such as ana@example.com, got %r" % (option, email)
    if len(email.strip()) > EMAIL_MAX:
        return "%s must be at most %d characters long, got %d" % (option, EMAIL_MAX, len(email.strip()))
    return None


def unique_emails(emails):
    """``emails`` without repeats (compared without case), each as first given, spaces around it removed."""
    seen, unique = set(), []
    for email in emails:
        if email_key(email) not in seen:
            seen.add(email_key(email))
            unique.append(email.strip())
    return unique


# ---------------------------------------------------------------------------------------------- decisions (pure)


class GrantPlan:
    """The emails to grant and the grants to revoke (each a grant as listed)."""

    def __init__(self, grant, revoke):
        self.grant = grant
        self.revoke = revoke

    @property
    def changed(self):
        return bool(self.grant or self.revoke)

    def __repr__(self):
        return "GrantPlan(grant=%r, revoke=%r)" % (self.grant, [item["granted_to_email"] for item in self.revoke])


def active(grants):
    """The grants in force (a listed grant with ``revoked_at`` is not)."""
    return [grant for grant in grants if not grant.get("revoked_at")]


def plan_grants(grants, emails, state, exclusive=False):
    """What makes the project's grants as asked: ``present`` grants each email without one,
    and with ``exclusive`` revokes every grant to an email not listed; ``absent`` revokes every grant
    to a listed email. Emails compare without case; a grant in force is never made again."""
    grants = active(grants)
    wanted = unique_emails(emails)
    keys = set(email_key(email) for email in wanted)
    granted = set(email_key(grant["granted_to_email"]) for grant in grants)
    if state == "absent":
        return GrantPlan([], [grant for grant in grants if email_key(grant["granted_to_email"]) in keys])
    revoke = [grant for grant in grants if email_key(grant["granted_to_email"]) not in keys] if exclusive else []
    return GrantPlan([email for email in wanted if email_key(email) not in granted], revoke)


def planned_grants(grants, plan):
    """The grants as they will be after ``plan`` (check mode: a grant to be made has no id yet)."""
    revoked = set(id(grant) for grant in plan.revoke)
    kept = [grant for grant in active(grants) if id(grant) not in revoked]
    return kept + [{"id": None, "granted_to_email": email, "granted_at": None} for email in plan.grant]


def emails_of(grants):
    """The emails of the grants in force, sorted without case (what a diff shows)."""
    return sorted((grant["granted_to_email"] for grant in active(grants)), key=lambda email: (email_key(email), email))


def surplus_grants(grants, mine):
    """The grants of ``mine`` (ids this run made) that repeat an earlier grant to the same email.

    A service that takes a second grant to one email lets overlapping runs each make one. Every
    run keeps the earliest (``granted_at``, then the order listed) and revokes its own others, so
    that they leave one grant, whichever run lists first."""
    groups = {}
    for position, grant in enumerate(active(grants)):
        moment = timestamp(grant.get("granted_at"))
        order = (moment if moment is not None else float("inf"), position)
        groups.setdefault(email_key(grant["granted_to_email"]), []).append((order, grant))
    surplus = []
    for group in groups.values():
        ordered = [grant for _order, grant in sorted(group, key=lambda pair: pair[0])]
        surplus.extend(grant for grant in ordered[1:] if grant["id"] in mine)
    return surplus


# ---------------------------------------------------------------------------------------------- reading and acting


def permissions_path(project_id, permission_id=None):
    more = ("permissions",) if permission_id is None else ("permissions", permission_id)
    return project_path(project_id, *more)


def list_permissions(client, project_id):
    """The project's grants in force, each checked: one request. A Refusal for a project the key does not reach."""
    return active(read_project_list(client, project_id, "permissions", PERMISSION.plural, PERMISSION.answer_fields))


def answered_grant(data, method, path, email=None):
    """The one grant a POST or DELETE answered (not wrapped), checked; with ``email``, a grant to it."""
    check = answers.Checker(method, path)
    grant = check.fields(data, "the answer", **PERMISSION_FIELDS)
    if email is not None and email_key(grant["granted_to_email"]) != email_key(email):
        check.fail("the answer.granted_to_email", "is %r, not %r as asked" % (grant["granted_to_email"], email))
    return grant


class ProjectPermissions(Writer):
    """The grants of one project, made as a task asks: ``emails`` granted (``state`` present; with ``exclusive``,
    every other grant revoked) or revoked (absent)."""

    starts_operations = False
    path_options = ("project_id",)

    @classmethod
    def options_problem(cls, options):
        return first_problem(
            path_problem("project_id", options["project_id"]),
            first_problem(*(email_problem(email, "each of emails") for email in options["emails"])),
            "exclusive applies to state=present only (with state=absent, only the grants to emails are revoked)"
            if options["exclusive"] and options["state"] == "absent" else None)

    @classmethod
    def from_options(cls, task, options):
        return cls(task, options["project_id"], options["emails"], options["state"], options["exclusive"])

    def __init__(self, task, project_id, emails, state="present", exclusive=False):
        super(ProjectPermissions, self).__init__(task)
        self.project_id = project_id
        self.emails = emails
        self.state = state
        self.exclusive = exclusive
        self.granted = []  # emails this run granted
        self.revoked = []  # emails of the grants this run revoked
        self.mine = set()  # ids of the grants this run made

    def _keep(self, grants):
        self.task.kept.update(permissions=grants, granted=list(self.granted), revoked=list(self.revoked))

    # ------------------------------------------------------------------------------------------ the steps

    def read(self):
        grants = list_permissions(self.client, self.project_id)
        self._keep(grants)
        return grants

    def decide(self, current):
        return plan_grants(current, self.emails, self.state, self.exclusive)

    def diff(self, current, plan):
        return {"emails": emails_of(current)}, {"emails": emails_of(planned_grants(current, plan))}

    def as_planned(self, current, plan, after):
        self.task.kept.update(permissions=planned_grants(current, plan), granted=list(plan.grant),
                              revoked=[grant["granted_to_email"] for grant in plan.revoke])
        return after

    def act(self, current, plan):
        for email in plan.grant:
            self._grant(email)
        for grant in plan.revoke:
            self._revoke(grant)
        return set(grant["id"] for grant in current)

    def read_again(self, current, done, after):
        """The grants now; a second grant this run made beside another run's is revoked again (surplus_grants)."""
        listed_before = done
        grants = self.unless_refused(list_permissions, self.client, self.project_id)
        for grant in surplus_grants(grants, self.mine):
            self.task.warnings.append(
                "The service made a second grant to %s: another run granted it at the same time. This run's grant "
                "(id %s) was revoked again, leaving the earlier one." % (grant["granted_to_email"], grant["id"]))
            self._revoke(grant, own_surplus=True)
            grants = [item for item in grants if item is not grant]
        # Another run's second grant made meanwhile is revoked by that run, by the same rule: not returned.
        theirs = set(grant["id"] for grant in grants if grant["id"] not in listed_before and grant["id"] not in self.mine)
        doomed = surplus_grants(grants, theirs)
        grants = [grant for grant in grants if not any(grant is other for other in doomed)]
        self._keep(grants)
        return {"emails": emails_of(grants)}

    # ------------------------------------------------------------------------------------------ changes

    def _found_again(self, email):
        def find():
            same = [grant for grant in list_permissions(self.client, self.project_id)
                    if email_key(grant["granted_to_email"]) == email_key(email)]
            return Found(same[0], ours=True) if same else None
        return find

    def _grant(self, email):
        path = permissions_path(self.project_id)
        label = "the grant to %s" % email
        # A duplicate refused in words other than "already exists": another run granted it meanwhile.
        data, found = self.create_or_adopt(
            path, {"email": email}, label, self._found_again(email), duplicate_status=ALREADY_GRANTED_STATUS,
            by_another_run=lambda _grant: "%s was granted by another run at the same time; this run did not grant it "
                                          "again." % email)
        if found is not None and not found.ours:
            return
        if found is not None:  # the answer was lost, and looking again found the grant (task.create warned)
            grant = found.item
        else:
            try:
                grant = answered_grant(data, "POST", path, email)
            except UnexpectedAnswer as error:
                self.task.did("granted %s" % email)
                raise self.task.failure("%s was made, but its answer cannot be used: %s" % (
                    label, error.describe()), error)
        self.mine.add(grant["id"])
        self.granted.append(email)
        self.task.did("granted %s" % email)
        self._keep(self.task.kept.get("permissions"))

    def _revoke(self, grant, own_surplus=False):
        email = grant["granted_to_email"]
        path = permissions_path(self.project_id, grant["id"])
        revoked, data = self.delete(path, "Revoking the grant to %s (id %s)" % (email, grant["id"]), gone=None
                                    if own_surplus else "The grant to %s (id %s) was revoked by another run at the "
                                    "same time." % (email, grant["id"]))
        if not revoked:
            return
        self.task.did("revoked %s" % email if not own_surplus else "revoked this run's second grant to %s" % email)
        try:
            answered_grant(data, "DELETE", path)
        except UnexpectedAnswer as error:
            self.task.warnings.append("The grant to %s was revoked; its answer could not be read (%s)." % (
                email, error.describe()))
        if not own_surplus:
            self.revoked.append(email)
        else:  # another run's grant stands for it: this run granted nothing to that email
            self.granted = [item for item in self.granted if email_key(item) != email_key(email)]
        self._keep(self.task.kept.get("permissions"))
