# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Anonymized branches: State's area for the five operations of the June 2026 document (openapi/neon-api-v2.json,
"the document"; beta there): ``POST /projects/{id}/branch_anonymized``, a branch's ``masking_rules`` (GET, and
PATCH that replaces them whole), ``POST .../anonymize`` and ``GET .../anonymized_status``.

The area's object (state.anonymized, given the shared data of shared.py and the provisioning area, which makes the
branch as ``POST .../branches`` does): every ``api_*`` method takes the authenticating key, holds the state's lock
and answers JSON-like data; ``reset`` forgets every anonymized branch and script.

An anonymized branch moves through the document's states on the simulator's clock: ``created`` while it is
initialized (``INITIALIZE_SECONDS``), then ``initialized`` (or ``initialization_error``); a masking run makes it
``anonymizing`` (``ANONYMIZE_SECONDS``, its status message naming the table it is at), then ``anonymized`` (or
``error``). ``start_anonymization: true`` starts a run as soon as the initialization ends. The next
initializations and runs can be scripted (``POST /_simulator/next_anonymizations``: an outcome and its status
message, a duration, ``hold``: until ``POST /_simulator/projects/{id}/branches/{id}/anonymization/release``), as the
operations the API starts are (work.py).

A run checks its rules against the branch: a database the branch lacks, or a table or column its data lacks (the
data stand-in of history.py; with real computes, the server's catalog) ends it in ``error`` naming it. With real
computes (``--postgres``) the run masks for real (anon_sql.py): each rule's column is rewritten by SQL with the
``anon`` schema of plain SQL functions installed in the branch's databases; a function it does not have ends the run
in ``error`` naming it, with nothing changed.

CHOICES (the document is silent; tests/simulator/README.md, "Anonymized branches"):

- None of these operations starts an operation or is refused with 423 (the document's OperationAction has no
  action for them); ``branch_anonymized`` starts what ``POST .../branches`` starts and answers as it does (201).
- A branch that is not anonymized: 404 ``MESSAGE_NOT_ANONYMIZED`` for all four branch operations.
- Starting a run in a state other than the document's three (initialized, error, anonymized): 409
  ``MESSAGE_CANNOT_START``.
- A rule: the four names non-empty strings; ``masking_function`` or ``masking_value``, exactly one (Neon's guide:
  "mutually exclusive"); one rule per column. Otherwise 400 naming the rule, before any change. Rules are not
  checked against the branch's tables until a run.
- Replacing the rules while a run goes on is allowed: the run keeps the rules it started with.
- ``annotation_value`` is checked (an object of at most 50 strings) and not kept (no annotation is).
- ``last_run.masked_columns``: the rules applied by a run that ended ``anonymized``, 0 for one that failed;
  ``triggered_by`` the key's user.
"""

from __future__ import annotations

from .clock import iso_seconds
from .errors import Conflict, InvalidRequest, NotFound
from .shared import number, read_boolean, read_object

STATES = ("created", "initialized", "initialization_error", "anonymizing", "anonymized", "error")
STARTABLE = ("initialized", "error", "anonymized")  # the document's startAnonymization
OUTCOMES = {"initialize": ("initialized", "initialization_error"), "anonymize": ("anonymized", "error")}
INITIALIZE_SECONDS = 2.0  # at least the create_branch operation's 1.5 s (work.DURATIONS), scaled as it is
ANONYMIZE_SECONDS = 2.0
RULE_NAMES = ("database_name", "schema_name", "table_name", "column_name")
ANNOTATION_MAX = 50
SCRIPT_COUNT_MAX = 1000
MESSAGE_NOT_ANONYMIZED = "branch %s is not an anonymized branch"
MESSAGE_CANNOT_START = ("anonymization cannot start while the branch is %s: it starts from the states initialized, "
                        "error and anonymized")
MESSAGES = {
    "created": "initializing the anonymized branch",
    "initialized": "ready to anonymize",
    "initialization_error": "initialization failed",
    "error": "anonymization failed",
}


def rule_text(rule):
    """``database.schema.table.column`` of a rule (what a status message names)."""
    return ".".join(rule[name] for name in RULE_NAMES)


def read_rules(body, required):
    """The ``masking_rules`` of a request body, each checked (see CHOICES), in the document's field order; None
    when absent and not ``required``."""
    rules = body.get("masking_rules")
    if rules is None:
        if required:
            raise InvalidRequest("masking_rules: field required")
        return None
    if not isinstance(rules, list):
        raise InvalidRequest("masking_rules: must be a list of rules")
    taken, columns = [], {}
    for index, rule in enumerate(rules):
        where = "masking_rules[%d]" % index
        if not isinstance(rule, dict):
            raise InvalidRequest("%s: must be an object" % where)
        clean = {}
        for name in RULE_NAMES + ("masking_function", "masking_value"):
            value = rule.get(name)
            if value is None:
                if name in RULE_NAMES:
                    raise InvalidRequest("%s.%s: field required" % (where, name))
                continue
            if not isinstance(value, str) or (name != "masking_value" and not value.strip()):
                raise InvalidRequest("%s.%s: must be a non-empty string" % (where, name))
            clean[name] = value
        if ("masking_function" in clean) == ("masking_value" in clean):
            raise InvalidRequest("%s: give masking_function or masking_value (one of them, not both)" % where)
        column = rule_text(clean)
        if column in columns:
            raise InvalidRequest("%s: column %s has a rule already (masking_rules[%d])" % (where, column, columns[column]))
        columns[column] = index
        taken.append(clean)
    return taken


def read_annotation(body):
    value = body.get("annotation_value")
    if value is None:
        return
    if not isinstance(value, dict) or len(value) > ANNOTATION_MAX \
            or not all(isinstance(item, str) for item in value.values()):
        raise InvalidRequest("annotation_value: must be an object of at most %d strings" % ANNOTATION_MAX)


class Phase:
    """One timed step of an anonymized branch: its initialization, or a masking run. It ends ``end_us`` (None:
    held until released) in ``outcome`` (an end state) with ``message`` (None: the state's usual one)."""

    def __init__(self, seconds, hold, outcome, message):
        self.seconds = seconds
        self.hold = hold
        self.start_us = self.end_us = None
        self.outcome = outcome
        self.message = message
        self.forced = None  # (outcome, message) the phase ends in whatever a release says (a real run that failed)

    def begin(self, start_us):
        self.start_us = start_us
        self.end_us = None if self.hold else start_us + int(round(self.seconds * 1e6))
        return self

    @property
    def held(self):
        return self.end_us is None

    def ended(self, now_us):
        return self.end_us is not None and now_us >= self.end_us

    def release(self, now_us, outcome, message, after_us):
        if outcome is not None:
            self.outcome = outcome
        if message is not None:
            self.message = message
        if self.forced is not None:
            self.outcome, self.message = self.forced
        self.hold = False
        self.end_us = now_us + after_us


class AnonymizedBranch:
    """One anonymized branch: its rules, its initialization and its latest run (see the module's text)."""

    def __init__(self, project_id, branch_id, created_us, rules, initialization):
        self.project_id = project_id
        self.branch_id = branch_id
        self.created_us = created_us
        self.rules = rules
        self.initialization = initialization
        self.queued = None  # the script of the run start_anonymization asked for, until the initialization ends
        self.run = None     # the latest run (Phase)
        self.run_rules = []
        self.run_by = None  # the user who started it
        self.masked = 0     # the columns it masked

    def phase(self, now_us):
        """(state, status message, since when, failed at or None) at ``now_us``."""
        init = self.initialization
        if not init.ended(now_us):
            return "created", init.message or MESSAGES["created"], self.created_us, None
        if init.outcome == "initialization_error":
            return init.outcome, init.message or MESSAGES[init.outcome], init.end_us, init.end_us
        run = self.run
        if run is None:
            return "initialized", MESSAGES["initialized"], init.end_us, None
        if not run.ended(now_us):
            return "anonymizing", self._progress(run, now_us), run.start_us, None
        if run.outcome == "error":
            return "error", run.message or MESSAGES["error"], run.end_us, run.end_us
        return "anonymized", run.message or self._done(), run.end_us, None

    def _tables(self):
        seen = []
        for rule in self.run_rules:
            table = "%s.%s.%s" % (rule["database_name"], rule["schema_name"], rule["table_name"])
            if table not in seen:
                seen.append(table)
        return seen

    def _progress(self, run, now_us):
        """``Anonymizing table mydb.public.users (3/5)``, as the document's example: the table the run is at."""
        tables = self._tables()
        if not tables:
            return "anonymizing: no masking rules"
        if run.held:
            index = 0
        else:
            span = max(run.end_us - run.start_us, 1)
            index = min(len(tables) - 1, (now_us - run.start_us) * len(tables) // span)
        return "Anonymizing table %s (%d/%d)" % (tables[index], index + 1, len(tables))

    def _done(self):
        return "anonymized %d columns in %d tables" % (self.masked, len(self._tables()))

    def render(self, now_us):
        """SPEC AnonymizedBranchStatusResponse."""
        state, message, since_us, failed_us = self.phase(now_us)
        item = {"project_id": self.project_id, "branch_id": self.branch_id, "state": state,
                "status_message": message, "created_at": iso_seconds(self.created_us),
                "updated_at": iso_seconds(since_us)}
        if failed_us is not None:
            item["failed_at"] = iso_seconds(failed_us)
        run = self.run
        if run is not None:
            last = {"started_at": iso_seconds(run.start_us), "masked_columns": self.masked if state == "anonymized" else 0}
            if run.ended(now_us):
                last["completed_at"] = iso_seconds(run.end_us)
            if self.run_by is not None:
                last["triggered_by"] = self.run_by.id
                last["triggered_by_username"] = self.run_by.name
            item["last_run"] = last
        return item


class Scripts:
    """Scripts for the next initializations and runs, oldest first among those that match (as work.NextOperations
    scripts operations): ``{"phase": "initialize" | "anonymize", "project_id": id | null, "count": N, "outcome":
    an end state of the phase, "message": text, "duration": seconds, "hold": bool}``."""

    FIELDS = ("outcome", "message", "duration", "hold")

    def __init__(self):
        self._plans = []
        self._next_id = 1

    def add(self, spec):
        if not isinstance(spec, dict):
            raise InvalidRequest("request body: must be a JSON object")
        unknown = set(spec) - set(self.FIELDS) - {"phase", "project_id", "count"}
        if unknown:
            raise InvalidRequest("unknown fields: %s" % ", ".join(sorted(unknown)))
        phase = spec.get("phase", "anonymize")
        if phase not in OUTCOMES:
            raise InvalidRequest("phase: must be initialize or anonymize")
        outcome = spec.get("outcome")
        if outcome is not None and outcome not in OUTCOMES[phase]:
            raise InvalidRequest("outcome: must be %s (phase %s)" % (" or ".join(OUTCOMES[phase]), phase))
        message = spec.get("message")
        if message is not None and (not isinstance(message, str) or not message):
            raise InvalidRequest("message: must be a non-empty string")
        number(spec, "duration", None, 0.0, 86400.0)
        if not isinstance(spec.get("hold", False), bool):
            raise InvalidRequest("hold: must be true or false")
        project_id = spec.get("project_id")
        if project_id is not None and (not isinstance(project_id, str) or not project_id):
            raise InvalidRequest("project_id: must be a project id or null (any project)")
        count = spec.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= SCRIPT_COUNT_MAX:
            raise InvalidRequest("count: must be an integer from 1 to %d" % SCRIPT_COUNT_MAX)
        plan = {"id": self._next_id, "phase": phase, "project_id": project_id, "count": count, "used": 0,
                "script": {name: spec[name] for name in self.FIELDS if spec.get(name) is not None}}
        self._next_id += 1
        self._plans.append(plan)
        return dict(plan)

    def take(self, project_id, phase):
        for plan in self._plans:
            if plan["phase"] == phase and plan["project_id"] in (None, project_id):
                plan["used"] += 1
                if plan["used"] >= plan["count"]:
                    self._plans.remove(plan)
                return dict(plan["script"])
        return {}

    def list(self):
        return [dict(plan) for plan in self._plans]

    def clear(self):
        removed, self._plans = len(self._plans), []
        return removed


class Anonymized:
    """The anonymized branches area of State (see the module's text)."""

    def __init__(self, shared, provisioning):
        self.shared = shared  # the data and helpers every area uses (shared.py)
        self.provisioning = provisioning
        self.branches = {}  # (project id, branch id) -> AnonymizedBranch
        self.scripts = Scripts()

    def reset(self):
        self.branches = {}
        self.scripts.clear()

    # ------------------------------------------------------------------ plumbing
    def _phase(self, project_id, phase):
        """(a Phase as scripted, or as usual: its seconds scaled by the operation pace; its script)."""
        script = self.scripts.take(project_id, phase)
        usual = (INITIALIZE_SECONDS if phase == "initialize" else ANONYMIZE_SECONDS) * self.shared.operation_pace
        return Phase(script.get("duration", usual), script.get("hold", False),
                     script.get("outcome", OUTCOMES[phase][0]), script.get("message")), script

    def _record(self, key, project_id, branch_id):
        """(project, branch, AnonymizedBranch settled to now); 404 for a branch that is not anonymized."""
        project = self.shared.reachable(key, project_id)
        branch = self.shared.branch(project, branch_id)
        record = self.branches.get((project.id, branch.id))
        if record is None:
            raise NotFound(MESSAGE_NOT_ANONYMIZED % branch.id)
        self._settle(project, branch, record, self.shared.now_us())
        return project, branch, record

    def _settle(self, project, branch, record, now_us):
        """The run ``start_anonymization`` asked for starts when the initialization has ended well."""
        init = record.initialization
        if record.queued is not None and init.ended(now_us):
            queued, record.queued = record.queued, None
            if init.outcome == "initialized":
                self._start_run(project, branch, record, init.end_us, queued)

    def _start_run(self, project, branch, record, start_us, run_phase):
        """A masking run of the record's rules from ``start_us`` (``run_phase``: (Phase, its script))."""
        run, script = run_phase
        run.begin(start_us)
        record.run, record.run_rules, record.masked = run, [dict(rule) for rule in record.rules], 0
        if script.get("outcome") == "error":  # scripted to fail: nothing is masked
            return
        problem = self._mask(project, branch, record.run_rules)
        if problem is not None:
            run.outcome, run.message = "error", problem
            run.forced = ("error", problem)
        else:
            record.masked = len(record.run_rules)

    def _mask(self, project, branch, rules):
        """The rules applied to the branch's data: None, or what stopped them (nothing changed then)."""
        for rule in rules:
            if rule["database_name"] not in branch.databases:
                return "database %s does not exist in branch %s (masking rule for %s)" % (
                    rule["database_name"], branch.id, rule_text(rule))
        if self.shared.real is not None:
            from . import anon_sql  # pylint: disable=import-outside-toplevel  # real computes only (pg_cluster)
            return anon_sql.anonymize(self.shared.real, project.id, branch, rules,
                                      self.shared.resources(project).branches, self.shared.now_us())
        now_us = self.shared.now_us()
        for rule in rules:
            schema = branch.data.schema(now_us, rule["database_name"])
            table = next((item for item in schema["tables"] if item["schema"] == rule["schema_name"]
                          and item["name"] == rule["table_name"]), None)
            if table is None:
                return "table %s.%s does not exist in database %s (masking rule for %s)" % (
                    rule["schema_name"], rule["table_name"], rule["database_name"], rule_text(rule))
            if rule["column_name"] not in [column["name"] for column in table["columns"]]:
                return "column %s does not exist in table %s.%s of database %s (masking rule for %s)" % (
                    rule["column_name"], rule["schema_name"], rule["table_name"], rule["database_name"],
                    rule_text(rule))
        return None

    # ------------------------------------------------------------------ the API
    def api_create(self, key, project_id, body):
        """POST /projects/{id}/branch_anonymized: the branch as POST .../branches makes it from ``branch_create``,
        its rules, and (``start_anonymization``) a run once it is initialized."""
        read_annotation(body)
        branch_create = read_object(body, "branch_create", required=False)
        rules = read_rules(body, required=False) or []
        start = bool(read_boolean(body, "start_anonymization"))
        with self.shared.lock:
            self.shared.reachable(key, project_id)
            answer = self.provisioning.api_create_branch(key, project_id, branch_create)
            project = self.shared.project(project_id)
            branch = self.shared.branch(project, answer["branch"]["id"])
            now_us = branch.created_us
            initialization = self._phase(project.id, "initialize")[0].begin(now_us)
            record = AnonymizedBranch(project.id, branch.id, now_us, rules, initialization)
            if initialization.outcome == "initialized" and self.shared.real is not None:
                from . import anon_sql  # pylint: disable=import-outside-toplevel  # real computes only (pg_cluster)
                problem = anon_sql.prepare(self.shared.real, project.id, branch, self.shared.resources(project).branches,
                                           now_us)
                if problem is not None:
                    initialization.outcome, initialization.message = "initialization_error", problem
                    initialization.forced = ("initialization_error", problem)
            if start:
                record.queued = self._phase(project.id, "anonymize")
                record.run_by = self._user(key)
            self.branches[(project.id, branch.id)] = record
            return answer

    def _user(self, key):
        if key is None:
            return None
        return self.shared.users.get(key.owner_id)

    def api_get_rules(self, key, project_id, branch_id):
        with self.shared.lock:
            _project, _branch, record = self._record(key, project_id, branch_id)
            return {"masking_rules": [dict(rule) for rule in record.rules]}

    def api_update_rules(self, key, project_id, branch_id, body):
        """PATCH .../masking_rules: the rules replaced whole (the document's MaskingRulesUpdateRequest)."""
        rules = read_rules(body, required=True)
        with self.shared.lock:
            _project, _branch, record = self._record(key, project_id, branch_id)
            record.rules = rules
            return {"masking_rules": [dict(rule) for rule in record.rules]}

    def api_status(self, key, project_id, branch_id):
        with self.shared.lock:
            _project, _branch, record = self._record(key, project_id, branch_id)
            return record.render(self.shared.now_us())

    def api_start(self, key, project_id, branch_id):
        """POST .../anonymize: a run of the rules, from initialized, error or anonymized (the document)."""
        with self.shared.lock:
            project, branch, record = self._record(key, project_id, branch_id)
            now_us = self.shared.now_us()
            state = record.phase(now_us)[0]
            if state not in STARTABLE:
                raise Conflict(MESSAGE_CANNOT_START % state)
            record.run_by = self._user(key)
            self._start_run(project, branch, record, now_us, self._phase(project.id, "anonymize"))
            return record.render(self.shared.now_us())

    # ------------------------------------------------------------------ control API
    def add_script(self, spec):
        with self.shared.lock:
            return self.scripts.add(spec)

    def list_scripts(self):
        with self.shared.lock:
            return self.scripts.list()

    def clear_scripts(self):
        with self.shared.lock:
            return self.scripts.clear()

    def release(self, project_id, branch_id, spec):
        """End a held initialization or run now (or ``after`` seconds from now), in ``outcome`` with ``message``
        (else those scripted); answers the status as it is then."""
        spec = spec or {}
        if not isinstance(spec, dict):
            raise InvalidRequest("request body: must be a JSON object")
        unknown = set(spec) - {"outcome", "message", "after"}
        if unknown:
            raise InvalidRequest("unknown fields: %s" % ", ".join(sorted(unknown)))
        message = spec.get("message")
        if message is not None and (not isinstance(message, str) or not message):
            raise InvalidRequest("message: must be a non-empty string")
        after = number(spec, "after", 0.0)
        with self.shared.lock:
            project, branch, record = self._record(None, project_id, branch_id)
            now_us = self.shared.now_us()
            phase_name, phase = ("initialize", record.initialization) if record.initialization.held \
                else ("anonymize", record.run)
            if phase is None or not phase.held:
                raise Conflict("branch %s has no held initialization or run" % branch.id)
            outcome = spec.get("outcome")
            if outcome is not None and outcome not in OUTCOMES[phase_name]:
                raise InvalidRequest("outcome: must be %s (a held %s)" % (
                    " or ".join(OUTCOMES[phase_name]), "initialization" if phase_name == "initialize" else "run"))
            if phase is record.run and outcome == "error":
                record.masked = 0
            phase.release(now_us, outcome, message, int(after * 1e6))
            self._settle(project, branch, record, self.shared.now_us())
            return record.render(self.shared.now_us())
