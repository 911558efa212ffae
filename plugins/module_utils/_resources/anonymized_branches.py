# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""An anonymized branch (``neon.cloud.branch_anonymized``): a copy of a parent branch whose columns are masked by
its masking rules, static masking with PostgreSQL Anonymizer (Neon's June 2026 document, beta).

``POST /projects/{id}/branch_anonymized`` creates it (a ``branch_create`` body, its ``masking_rules`` and
``start_anonymization``; answered as a branch create, with operations); ``GET`` and ``PATCH
.../branches/{id}/masking_rules`` read its rules and replace them whole; ``POST .../anonymize`` starts a masking
run (from ``initialized``, ``error`` or ``anonymized``), and ``GET .../anonymized_status`` follows it through its
states: ``created``, ``initialized``, ``initialization_error``, ``anonymizing``, ``anonymized``, ``error``
(docs/docsite/rst/api-behaviour.rst, "Anonymized branches").

The document marks every field of a rule ``x-sensitive``. The module keeps what masks out of the output: a rule's
``masking_function`` (it may hold a salt or a seed) and ``masking_value`` are ``no_log`` suboptions, and nothing
here puts either into a message, a warning or the diff (the diff shows a fingerprint of each rule's masking). As
no_log hides a string only as written, and the service may echo one altered (a status message, an error), each is
a secret to the client's SecretScrubber too, in the forms masking_forms gives, and so are those of the rules the
service holds, as soon as they are read. A
rule's database, schema, table and column are shown as any other name of the branch (neon.cloud.branch_schema_info
lists them): Ansible hides a no_log string wherever it appears, within words too, so hiding them garbled the
returned ids and names and every message that held one of those words (``name`` in ``br-nameless-...``,
``neondb`` in a connection URI). Messages name a rule by its place (``rule 2``) and say what it asked for.

Found by name among the project's branches and its parent resolved as every branch's (finding.py); the pure rules
(``rules_problem``, ``schema_problem``, ``masking_plan``, ``diff_rules``) are unit-tested; ``AnonymizedBranch``
is a Writer (writer.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import os
import re

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError, TaskFailure, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._resources.branches import parent_problem
from ansible_collections.neon.cloud.plugins.module_utils._resources.finding import (
    BRANCH_FIELDS,
    branch_label,
    choose_branch,
    default_branch,
    list_branches,
    project_to_be_made,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Missing, Refusal, only_one
from ansible_collections.neon.cloud.plugins.module_utils._resources.roles_databases import (
    DATABASE,
    list_roles_or_databases,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.schemas import JSON, read_schema
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import Found
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import Writer

# The states of an anonymized branch (SPEC AnonymizedBranchStatusResponse.state).
CREATED = "created"
INITIALIZED = "initialized"
INITIALIZATION_ERROR = "initialization_error"
ANONYMIZING = "anonymizing"
ANONYMIZED = "anonymized"
ERROR = "error"
FAILED_STATES = (ERROR, INITIALIZATION_ERROR)
ENDED_STATES = (ANONYMIZED,) + FAILED_STATES
# The anonymize option: mask when the branch is made or its rules change (or its last run did not end masked), or
# on every run.
WHEN_CHANGED = "changed"
ALWAYS = "always"

NAME_FIELDS = ("database_name", "schema_name", "table_name", "column_name")
MASKING_FIELDS = ("masking_function", "masking_value")
RULE_FIELDS = NAME_FIELDS + MASKING_FIELDS
RULE_ANSWER_FIELDS = dict(required=dict((name, (str,)) for name in NAME_FIELDS),
                          optional=dict((name, (str, type(None))) for name in MASKING_FIELDS))
STATUS_FIELDS = dict(required={"state": (str,)},
                     optional={"branch_id": (str,), "project_id": (str,), "status_message": (str, type(None)),
                               "created_at": (str,), "updated_at": (str,), "failed_at": (str, type(None)),
                               "last_run": (dict, type(None))})
CONFLICT = 409  # a masking run asked in a state it cannot start from (another run's began meanwhile)
# The states a masking run starts from (the service refuses one in any other).
STARTS_FROM = (INITIALIZED, ERROR, ANONYMIZED)
# A GET of anonymized_status for a branch that is no anonymized branch (the document says only they have one).
NOT_ANONYMIZED = (400, 404, 409, 412, 422)
# Polls of the masking's state: the first after half a second, each next twice as long, up to 5 s (as operations).
MAX_POLL_INTERVAL = 5.0


# ---------------------------------------------------------------------------------------------- the rules (pure)


def rule_of(rule):
    """A rule as compared and sent: its six fields, a masking field that is empty or absent left out."""
    kept = dict((name, rule.get(name)) for name in NAME_FIELDS)
    for name in MASKING_FIELDS:
        if rule.get(name) not in (None, ""):
            kept[name] = rule[name]
    return kept


def function_key(function):
    """A masking function as compared: its whitespace outside quotes (single-quoted strings, double-quoted
    identifiers) dropped where it touches anything but a letter, digit or underscore, and else one space, so that
    ``anon.fake_email( )`` and ``anon.fake_email()`` are one function (the service may echo either), while
    ``'a b'`` and ``'ab'`` stay two. Names are compared exactly: a quoted PostgreSQL identifier is case-sensitive."""
    if not isinstance(function, str):
        return function
    kept = []
    quote = None
    index = 0
    while index < len(function):
        char = function[index]
        if quote is None and char.isspace():
            end = index
            while end < len(function) and function[end].isspace():
                end += 1
            before = kept[-1] if kept else ""
            after = function[end] if end < len(function) else ""
            if _wordy(before) and _wordy(after):
                kept.append(" ")
            index = end
            continue
        if quote is None and char in "'\"":
            quote = char
        elif char == quote:
            quote = None  # a doubled quote ('it''s') closes and opens again: the same text either way
        kept.append(char)
        index += 1
    return "".join(kept)


def _wordy(char):
    return bool(char) and (char.isalnum() or char == "_")


def rule_key(rule):
    """A rule as one hashable value (what the set comparison compares): its masking function as function_key
    reads it."""
    return tuple(function_key(rule.get(name)) if name == "masking_function" else rule.get(name)
                 for name in RULE_FIELDS)


def same_rules(current, wanted):
    """Whether two lists of rules are the same set (order and repeats do not matter): the service replaces them
    whole, so this is the one comparison."""
    return set(rule_key(rule_of(rule)) for rule in current) == set(rule_key(rule_of(rule)) for rule in wanted)


def rules_problem(rules):
    """Why ``rules`` (the option) cannot be sent, whatever the service holds, or None. A rule is named by its place
    (``rule 2``) and what it masks, never by its function or value (no_log). Checked before any request."""
    if not rules:
        return "masking_rules must hold at least one rule: an anonymized branch without rules is a copy of its " \
               "parent's data, unmasked"
    columns = {}
    for number, rule in enumerate(rules, 1):
        for name in NAME_FIELDS:
            value = rule.get(name)
            if not isinstance(value, str) or not value.strip():
                return "rule %d of masking_rules has no %s: each rule names the database, schema, table and column " \
                       "it masks" % (number, name)
        given = [name for name in MASKING_FIELDS if rule.get(name) not in (None, "")]
        if not given:
            return "rule %d of masking_rules has neither a masking_function nor a masking_value: it would leave its " \
                   "column unmasked; give one (a PostgreSQL Anonymizer function, or a literal value)" % number
        if len(given) > 1:
            return "rule %d of masking_rules has both a masking_function and a masking_value: give one of them" % number
        column = tuple(rule[name] for name in NAME_FIELDS)
        if column in columns:
            return "rules %d and %d of masking_rules mask the same column, %s: give one rule per column" % (
                columns[column], number, column_label(rule))
        columns[column] = number
    return None


def column_label(rule):
    """The column a rule masks, as a message or the diff names it: ``database.schema.table.column``."""
    return ".".join(rule[name] for name in NAME_FIELDS)


def schema_problem(rules, databases, tables_of, where):
    """Why ``rules`` name what the branch ``where`` (a label) does not have, or None: the first rule naming a
    database, schema, table or column it has not, what it asked for, and what the branch has there. ``databases``:
    its databases' names; ``tables_of(database)``: that database's tables (schemas.py's JSON tables: schema, name,
    columns). Nothing of a rule's masking function or value is in it (no_log)."""
    def listed(names):
        return ", ".join(names) or "none"

    for number, rule in enumerate(rules, 1):
        lead = "rule %d of masking_rules: " % number
        database, schema, table, column = (rule[name] for name in NAME_FIELDS)
        if database not in databases:
            return lead + "%s has no database %s; its databases are: %s" % (
                where, _quoted(database), listed(sorted(databases)))
        tables = tables_of(database)
        schemas = sorted(set(item["schema"] for item in tables))
        if schema not in schemas:
            return lead + "database %s of %s has no schema %s with tables; its schemas with tables are: %s" % (
                _quoted(database), where, _quoted(schema), listed(schemas))
        in_schema = [item for item in tables if item["schema"] == schema]
        named = [item for item in in_schema if item["name"] == table]
        if not named:
            return lead + "schema %s (database %s) of %s has no table %s; its tables there are: %s" % (
                _quoted(schema), database, where, _quoted(table), listed(sorted(item["name"] for item in in_schema)))
        columns = [item["name"] for item in named[0]["columns"]]
        if column not in columns:
            return lead + "table %s (schema %s, database %s) of %s has no column %s; its columns are: %s" % (
                _quoted(table), schema, database, where, _quoted(column), listed(columns))
    return None


def _quoted(name):
    return "'%s'" % name


def diff_rules(rules, salt):
    """The rules as the diff shows them, sorted: each as the column it masks, whether by a function or a value, and a
    fingerprint of that function or value (``neondb.public.customers.email: masking_function (fingerprint
    3f2a9c1b7d0e)``). The fingerprint is the same for the same masking within one run (``salt``, random per run), so
    that the diff shows which rules stay, go, come and mask otherwise, and nothing of how they mask."""
    shown = []
    for rule in rules:
        kept = rule_of(rule)
        given = [name for name in MASKING_FIELDS if name in kept]
        for name in given:
            masking = json.dumps([name, function_key(kept[name]) if name == "masking_function" else kept[name]])
            digest = hashlib.sha256(salt + masking.encode("utf-8")).hexdigest()
            shown.append("%s: %s (fingerprint %s)" % (column_label(kept), name, digest[:12]))
        if not given:  # the service's rule with neither (none of ours is sent so)
            shown.append("%s: no masking" % column_label(kept))
    return sorted(set(shown))


class MaskingPlan:
    """What a task does: ``create`` the branch (with its rules, masking started), or for one that exists
    ``set_rules`` (replace them whole) and ``anonymize`` (a masking run); ``why`` says why it masks."""

    def __init__(self, create=False, set_rules=False, anonymize=False, why=None):
        self.create = create
        self.set_rules = set_rules
        self.anonymize = anonymize
        self.why = why

    @property
    def changed(self):
        return self.create or self.set_rules or self.anonymize

    def __repr__(self):
        return "MaskingPlan(create=%r, set_rules=%r, anonymize=%r, why=%r)" % (
            self.create, self.set_rules, self.anonymize, self.why)


def masking_plan(branch, current_rules, state, wanted_rules, anonymize):
    """The plan for the branch as it is (``branch`` None: not made; ``current_rules`` its rules, ``state`` its
    masking state once what runs on it has ended) and as asked (``wanted_rules``; ``anonymize``: ``changed`` or
    ``always``). Pure. A branch whose masking never began or failed (``initialized``, ``error``) holds data that may
    be unmasked: it is masked again. ``initialization_error`` cannot be masked (the service starts a run from
    ``initialized``, ``error`` or ``anonymized`` only): a Refusal saying what exists."""
    if branch is None:
        return MaskingPlan(create=True, anonymize=True, why="the branch is made")
    if state == INITIALIZATION_ERROR:
        raise Refusal("%s exists, but its anonymization failed to initialize (state initialization_error), so it "
                      "cannot be masked: delete it (neon.cloud.branch, state: absent) and run the task again" %
                      branch_label(branch))
    set_rules = not same_rules(current_rules, wanted_rules)
    if set_rules:
        return MaskingPlan(set_rules=True, anonymize=True, why="its masking rules changed")
    if state in (INITIALIZED, ERROR):
        return MaskingPlan(anonymize=True, why="its last masking did not end masked (state %s)" % state)
    if anonymize == ALWAYS:
        return MaskingPlan(anonymize=True, why="anonymize is always")
    return MaskingPlan()


def options_problem(options):
    """What the module's options alone say is wrong (before any request)."""
    if not 1 <= len(options["name"]) <= 256:
        return "name must be 1 to 256 characters long, got %d" % len(options["name"])
    if options.get("parent") is not None and not options["parent"].strip():
        return "parent must not be empty: leave it out for the project's default branch"
    return rules_problem(options.get("masking_rules") or [])


# A single-quoted SQL literal in a masking function (its salt or seed, say), '' standing for a quote within it.
_QUOTED_LITERAL = re.compile(r"'((?:[^']|'')*)'")


def masking_forms(rule):
    """The forms in which a rule's masking function and value may come back in the service's text, each to be
    hidden as a secret (the client's SecretScrubber adds their JSON-, Python- and percent-escaped forms): as given,
    as function_key reads a function, with its whitespace runs made one space (as a message on one line shows it),
    and with its single quotes doubled (as SQL quotes a literal). Sorted (form, pieces) pairs: a function is hidden
    whole only (``pieces`` False), since a run of its characters is most often a column's name it takes as argument
    (``_email`` of ``anon.partial_email(email)``), which the task shows; the quoted literals in it (a salt, a seed)
    and a value, which are data of their own, are hidden piece by piece too (``pieces`` True), so that a cut echo of
    them shows no run of their characters long enough to count (SecretScrubber)."""
    forms = set()
    for name in MASKING_FIELDS:
        masking = rule.get(name)
        if not isinstance(masking, str) or not masking:
            continue
        function = name == "masking_function"
        for form in (masking, function_key(masking) if function else masking, " ".join(masking.split())):
            forms.update(((form, not function), (form.replace("'", "''"), not function)))
        if function:
            for literal in _QUOTED_LITERAL.findall(masking):
                forms.update(((literal, True), (literal.replace("''", "'"), True)))
    return sorted(forms)


def ended_badly(branch, status):
    """The failure's sentence for a masking that ended in ``error`` or ``initialization_error`` (``status`` as
    read: its message scrubbed of the rules' masking)."""
    said = status.get("status_message") or "no status message"
    if status["state"] == INITIALIZATION_ERROR:
        advice = "delete it (neon.cloud.branch, state: absent) and run the task again"
    else:
        advice = "its data may be partly unmasked: fix the rule or delete the branch; a rerun masks it again"
    return "the masking of %s ended in state %s: %s. The branch exists (id %s); %s" % (
        branch_label(branch), status["state"], said, branch["id"], advice)


# ---------------------------------------------------------------------------------------------- the writer


class AnonymizedBranch(Writer):
    """The anonymized branch ``name`` of ``project_id``, made from ``parent`` with ``masking_rules`` (see the
    module's text)."""

    path_options = ("project_id",)
    predicts_project = True
    waits = True

    @classmethod
    def options_problem(cls, options):
        return options_problem(options)

    def __init__(self, task, options):
        super(AnonymizedBranch, self).__init__(task)
        self.project_id = options["project_id"]
        self.name = options["name"]
        self.parent_asked = options.get("parent")
        self.rules = [rule_of(rule) for rule in options["masking_rules"]]
        self._remember_masking(self.rules)
        self.anonymize = options["anonymize"]
        self.branches = []
        self.branch = None
        self.parent = None
        self.salt = os.urandom(16)
        self.label = "anonymized branch %r" % self.name

    def _remember_masking(self, rules):
        """Each rule's masking function and value are secrets to the client from here on: Ansible's no_log hides
        only a string as given, and the service's text may echo one altered (whitespace made one space, cut,
        JSON- or SQL-escaped), in a status message or an error. The client's scrubber hides every form
        (masking_forms), in every message and result of the task: a function whole, its quoted literals and a value
        piece by piece too (a form shorter than SECRET_MIN is left to no_log; one shorter than SECRET_PIECES_FROM is
        hidden whole only, not a cut piece of it)."""
        for rule in rules:
            for form, pieces in masking_forms(rule):
                self.client.remember_secret(form, pieces)

    def _scrubbed(self, status):
        """The status with its message scrubbed of every secret the client knows (the rules' masking)."""
        if isinstance(status.get("status_message"), str):
            status = dict(status, status_message=self.client.scrubber.scrub(status["status_message"]))
        return status

    # ------------------------------------------------------------------------------------------ read and decide

    def read(self):
        """The branch, its parent, and for a branch that exists its rules and masking state (once a masking under
        way has ended): (rules, state)."""
        to_be_made = project_to_be_made(self.project_id, self.task)
        self.branches = [] if to_be_made else list_branches(self.client, self.project_id)
        self.branch = only_one([item for item in self.branches if item["name"] == self.name], "branches", self.name,
                               " in project %s" % self.project_id)
        self.parent = self._parent()
        if self.branch is None:
            return None, None
        if self.parent_asked is not None and self.parent["id"] is not None \
                and self.branch.get("parent_id") != self.parent["id"]:
            raise Refusal("%s exists with another parent (%s) than asked (%s); it is not used: choose another name, "
                          "or delete it first" % (branch_label(self.branch), self.branch.get("parent_id"),
                                                  branch_label(self.parent)))
        status = self._status(self.branch, refuse_other=True)
        if not self.task.check_mode and self.task.wait and status["state"] in (CREATED, ANONYMIZING):
            # A masking under way (another run's): the rules it masks with are known to the scrubber before its
            # status message is quoted; they are read again once it has ended (that run may have replaced them).
            self._rules(self.branch)
            status = self._wait_ended(self.branch, status, started=False)
        rules = self._rules(self.branch)
        status = self._scrubbed(status)
        self.task.kept["anonymized_status"] = status
        return rules, status["state"]

    def _parent(self):
        if self.project_id is None or not self.project_id.strip():
            return {"id": None, "name": self.parent_asked or "(the default branch)"}
        if self.parent_asked is None:
            chosen = default_branch(self.branches)
            if chosen is None:
                raise Refusal("project %s lists no default branch" % self.project_id)
            return chosen
        try:
            parent = choose_branch(self.branches, self.parent_asked, self.project_id, "parent")
        except Missing as missing:
            return self.task.assume(missing)
        problem = parent_problem(parent) if self.branch is None else None  # a parent that expires cannot make one
        if problem:
            raise Refusal("%s cannot be created: %s" % (self.label, problem))
        return parent

    def decide(self, current):
        rules, state = current
        plan = masking_plan(self.branch, rules or [], state, self.rules, self.anonymize)
        if plan.create or plan.set_rules:
            self._check_schema(self.branch or self.parent)
        return plan

    def _check_schema(self, branch):
        """A Refusal when a rule names what ``branch`` (the parent, or the branch itself once made) has not: its
        databases (one request) and each named database's tables (one request each). Nothing to read of a branch an
        earlier task of the play would make (check mode)."""
        if branch["id"] is None:
            return
        databases = [item["name"] for item in list_roles_or_databases(self.client, self.project_id, branch["id"],
                                                                      DATABASE)]
        tables = {}

        def tables_of(database):
            if database not in tables:
                tables[database] = read_schema(self.client, self.project_id, branch["id"], database,
                                               schema_format=JSON)["tables"]
            return tables[database]

        where = "%s %s" % ("the parent" if branch is self.parent else "the branch", branch_label(branch))
        problem = schema_problem(self.rules, databases, tables_of, where)
        if problem:
            raise Refusal(problem)

    # ------------------------------------------------------------------------------------------ diff and check mode

    def diff(self, current, plan):
        rules, state = current
        before = {} if self.branch is None else {
            "name": self.name, "parent_id": self.branch.get("parent_id"), "state": state,
            "masking_rules": diff_rules(rules or [], self.salt)}
        after = {"name": self.name, "parent_id": self.parent["id"] if self.branch is None else
                 self.branch.get("parent_id"),
                 "state": ANONYMIZED if plan.anonymize else state,
                 "masking_rules": diff_rules(self.rules, self.salt)}
        if plan.anonymize:
            after["masked_again" if self.branch is not None else "masked"] = plan.why
        return before, after

    def as_planned(self, current, plan, after):
        """Check mode: the branch as it would be (a new one with a null id), nothing sent; nothing to change: as it
        is."""
        if self.task.check_mode and plan.create:
            self.task.kept["branch"] = dict(name=self.name, parent_id=self.parent["id"], id=None)
            self.task.kept["anonymized_status"] = {"state": ANONYMIZED}
        else:
            self.task.kept["branch"] = self.branch
        self.task.kept["masking_rules_count"] = len(self.rules)
        return after

    # ------------------------------------------------------------------------------------------ acting

    def act(self, current, plan):
        self.task.kept["masking_rules_count"] = len(self.rules)
        if plan.create:
            branch, started = self._create()
        else:
            branch, started = self.branch, False
            self.task.kept["branch"] = branch
        if plan.set_rules:
            self._set_rules(branch)
        status = self.task.kept.get("anonymized_status")
        if plan.anonymize and not started:
            status = self._start(branch)
        if not self.task.wait:
            return branch
        status = self._wait_ended(branch, status or self._status(branch), started=True)
        self.task.kept["anonymized_status"] = status
        if status["state"] in FAILED_STATES:
            raise self.task.failure(ended_badly(branch, status))
        return branch

    def _create(self):
        """POST branch_anonymized once, its masking started with it; one another run made at the same time (the
        service's "already exists") is taken, with a warning, and its masking waited for. (branch, started)."""
        path = project_path(self.project_id, "branch_anonymized")
        body = {"branch_create": {"branch": {"name": self.name, "parent_id": self.parent["id"]},
                                  "endpoints": [{"type": "read_write"}]},
                "masking_rules": self.rules, "start_anonymization": True}

        def find_again():
            listed = list_branches(self.client, self.project_id)
            found = only_one([item for item in listed if item["name"] == self.name], "branches", self.name,
                             " in project %s" % self.project_id)
            return Found(found, ours=True) if found is not None else None

        data, found = self.create_or_adopt(path, body, self.label, find_again, project_id=self.project_id)
        if found is not None:
            branch = found.item
            self.task.kept["branch"] = branch
            if found.ours:
                self.task.did("created %s (%s)" % (self.label, branch["id"]))
            else:
                self.task.warnings.append("%s was created by another run at the same time (id %s); this run waits "
                                          "for its masking and uses it" % (self.label, branch["id"]))
                self.task.wait_idle(self.project_id, "found %s (%s)" % (self.label, branch["id"]))
                return self._adopted(branch), True
            self.task.wait_idle(self.project_id, "created %s (%s)" % (self.label, branch["id"]))
            return branch, True
        # Its connection URI (the create's answer holds one, for its compute) is not kept: Ansible hides each rule's
        # masking function and value (no_log) wherever it appears in the task's output, and a short literal (a value
        # "x", "0" or "shop") is part of many URIs, which it would garble; the parent's role and password are the
        # branch's, so neon.cloud.connection_info, which has no rules, reads it whole.
        try:
            branch = answers.item_of(data, "POST", path, "branch", BRANCH_FIELDS)
        except UnexpectedAnswer as error:
            raise self.task.failure("its answer cannot be used: %s" % error.describe(), error)
        self.task.kept["branch"] = branch
        self.task.did("created %s (%s) from %s, its masking started" % (
            self.label, branch["id"], branch_label(self.parent)))
        self.task.wait_for_operations_of(data, "POST", path, self.project_id, "created %s (%s)" % (
            self.label, branch["id"]))
        return branch, True

    def _adopted(self, branch):
        """Another run's branch: once its masking has ended, its rules replaced when they are not this run's (it
        is then masked again by this run)."""
        status = self._wait_ended(branch, self._status(branch), started=True)
        self.task.kept["anonymized_status"] = status
        if not same_rules(self._rules(branch), self.rules):
            self._set_rules(branch)
            self._start(branch)
        return branch

    def _set_rules(self, branch):
        """PATCH the rules, replaced whole as the service does."""
        path = project_path(self.project_id, "branches", branch["id"], "masking_rules")
        data = self.task.change("PATCH", path, self.project_id, {"masking_rules": self.rules},
                                "Replacing the masking rules of %s (%s)" % (self.label, branch["id"]))
        self.task.did("replaced the masking rules of %s (%s): %d rules" % (self.label, branch["id"], len(self.rules)))
        try:
            answers.items_of(data, "PATCH", path, "masking_rules", RULE_ANSWER_FIELDS)
        except UnexpectedAnswer as error:
            raise self.task.failure("its answer cannot be used: %s" % error.describe(), error)

    def _start(self, branch):
        """POST anonymize: a masking run of the branch's rules as they are now; its answer is the status.

        Refused (409) as another run's masking goes on: that masking keeps the rules it began with, which may not
        be this run's (it began before this run replaced them), and once it ends masked with the rules equal to
        this task's, no rerun would mask again. So it is waited for, within wait_timeout whatever ``wait`` says
        (this task's own start is part of its change; ``wait`` is about the end of its masking), and the masking
        started again, once. Refused again, the masking under way began after this run's rules were set (another
        run's, with them): it is taken, with a warning, and waited for as this run's own when ``wait`` asks."""
        started, status = self._ask_start(branch, first=True)
        if not started:
            self._wait_ended(branch, status, started=False, ran_out=(
                "this run's masking was not started: the masking another run had started (with the rules it "
                "began with) had not ended when wait_timeout (%s s) ran out (state %s: %s); the branch exists (id "
                "%s) with this task's rules, which it may not have been masked with: run the task again with "
                "anonymize: always"))
            started, status = self._ask_start(branch, first=False)
        if not started:
            self.task.warnings.append("the masking of %s (%s) was started by another run at the same time; this run "
                                      "waits for it" % (self.label, branch["id"]))
        self.task.kept["anonymized_status"] = status
        return status

    def _ask_start(self, branch, first):
        """One POST anonymize: (True, the status answered), or (False, the status read) when it was refused as a
        masking goes on (created or anonymizing), or, on the ``first`` ask, as one went on that has ended since (the
        status read shows a state a masking starts from: another run's masking ended between the refusal and the
        read, and the start is asked again)."""
        path = project_path(self.project_id, "branches", branch["id"], "anonymize")
        try:
            data = self.task.change("POST", path, self.project_id, None,
                                    "Starting the masking of %s (%s)" % (self.label, branch["id"]))
        except TaskFailure as failure:
            # The service starts a masking only from initialized, error or anonymized (STARTS_FROM).
            status = self._status(branch) if getattr(failure.cause, "status", None) == CONFLICT else None
            going_on = status is not None and status["state"] in (CREATED, ANONYMIZING)
            ended_since = first and status is not None and status["state"] in STARTS_FROM
            if not (going_on or ended_since):
                raise
            return False, status
        self.task.did("started the masking of %s (%s)" % (self.label, branch["id"]))
        try:
            status = self._scrubbed(answers.Checker("POST", path).fields(data, "the answer", **STATUS_FIELDS))
        except UnexpectedAnswer as error:
            raise self.task.failure("its answer cannot be used: %s" % error.describe(), error)
        return True, status

    # ------------------------------------------------------------------------------------------ reading and waiting

    def _rules(self, branch):
        """The rules the service holds, their masking known to the client's scrubber as soon as they are read."""
        path = project_path(self.project_id, "branches", branch["id"], "masking_rules")
        rules = answers.items_of(self.client.get(path), "GET", path, "masking_rules", RULE_ANSWER_FIELDS)
        self._remember_masking(rules)
        return rules

    def _status(self, branch, refuse_other=False):
        """The branch's masking status, checked. ``refuse_other``: a branch the service has no status for is no
        anonymized branch: a Refusal that says so."""
        path = project_path(self.project_id, "branches", branch["id"], "anonymized_status")
        try:
            data = self.client.get(path)
        except NeonAPIError as error:
            if refuse_other and error.status in NOT_ANONYMIZED:
                raise Refusal("%s exists and is no anonymized branch (its anonymized status: %s); it is not used: "
                              "choose another name, or delete it first" % (branch_label(branch), error.describe()),
                              error)
            raise
        return self._scrubbed(answers.Checker("GET", path).fields(data, "the answer", **STATUS_FIELDS))

    def _wait_ended(self, branch, status, started, ran_out=None):
        """Poll the masking status until it has ended (``anonymized``, ``error``, ``initialization_error``), within
        wait_timeout. ``started``: a masking was asked (by this run or the one that made it), so ``initialized``
        (before it begins) and ``created`` are still under way. ``ran_out``: the failure's sentence when
        wait_timeout runs out (wait_timeout, state, status message, branch id)."""
        interval = self.task.poll_interval
        under_way = (CREATED, ANONYMIZING) + ((INITIALIZED,) if started else ())
        while status["state"] in under_way:
            if self.task.remaining() <= 0:
                if ran_out is None:
                    ran_out = "the masking of " + branch_label(branch).replace("%", "%%") + " had not ended when " \
                              "wait_timeout (%s s) ran out (state %s: %s); the branch exists (id %s): run the task " \
                              "again, it waits for the masking"
                raise self.task.failure(ran_out % (self.task.wait_timeout, status["state"],
                                                   status.get("status_message") or "no status message", branch["id"]))
            self.client.sleep(max(0.0, min(interval, self.task.remaining())))
            interval = min(interval * 2, MAX_POLL_INTERVAL)
            try:
                status = self._status(branch)
            except UnexpectedAnswer as error:
                raise self.task.failure("its masking status cannot be used: %s" % error.describe(), error)
            except NeonAPIError as error:
                raise self.task.failure("reading the masking status of %s failed: %s" % (
                    branch_label(branch), error.describe()), error)
        return status

    def read_again(self, current, done, after):
        branch = done
        if self.task.wait and branch is not None and branch.get("id"):
            path = project_path(self.project_id, "branches", branch["id"])
            try:
                self.task.kept["branch"] = answers.item_of(self.client.get(path), "GET", path, "branch",
                                                           BRANCH_FIELDS, item_id=branch["id"])
            except (NeonAPIError, UnexpectedAnswer) as error:
                raise self.task.failure("reading %s again failed: %s" % (branch_label(branch), error.describe()),
                                        error)
        return after
