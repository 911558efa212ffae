# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""docs/docsite/rst/reliability.rst from the results the reliability suite recorded (results.json).

Every outcome, count and message in the page comes from the run; the only hand-written parts are
the headings and the sentences that say how to read the tables. Used by test_report.py and by
scripts/gen_reliability_report.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections
import re

import neon_reliability as rel

GROUPS = collections.OrderedDict([
    ("get", ("GET: api_key_info, api_key (listing), projects_info, operation_info (list, one)",
             ["api_key_info", "api_key.list", "projects_info", "operation_info.list", "operation_info.one"])),
    ("post", ("POST /api_keys: api_key creating a key", ["api_key.create"])),
    ("delete", ("DELETE /api_keys/{id}: api_key state=absent", ["api_key.revoke"])),
    ("post_org", ("POST /organizations/{org_id}/api_keys: api_key creating a project-scoped key",
                  ["api_key.org_create"])),
    ("delete_org", ("DELETE /organizations/{org_id}/api_keys/{id}: api_key state=absent, org_id",
                    ["api_key.org_revoke"])),
    ("wait", ("operation_wait polls (by id, project idle)", ["operation_wait.ids", "operation_wait.idle"])),
])
SHORT = {
    "api_key_info": "api_key_info", "api_key.list": "api_key (list)", "api_key.create": "api_key (create)",
    "api_key.revoke": "api_key (revoke)", "api_key.org_create": "api_key (org create)",
    "api_key.org_revoke": "api_key (org revoke)", "projects_info": "projects_info", "operation_info.list": "operation_info (list)",
    "operation_info.one": "operation_info (one)", "operation_wait.ids": "operation_wait (ids)",
    "operation_wait.idle": "operation_wait (idle)",
}


class IncompleteResults(Exception):
    pass


def matrix_index(results):
    """{(target, fault, mode): facts}; IncompleteResults unless every combination ran exactly once."""
    index = {}
    for facts in results.get("matrix", []):
        key = (facts["target"], facts["fault"], facts["mode"])
        if key in index:
            raise IncompleteResults("%s ran twice" % (key,))
        index[key] = facts
    missing = [(target.id, fault.id, mode) for target in rel.TARGETS for fault in rel.FAULTS for mode in rel.MODES
               if (target.id, fault.id, mode) not in index]
    if missing:
        raise IncompleteResults("%d of %d fault scenarios did not run (first: %s); run the whole suite" % (
            len(missing), len(rel.TARGETS) * len(rel.FAULTS) * len(rel.MODES), missing[0]))
    return index


LABEL = "ansible_collections.neon.cloud.docsite."
# Inline code in the recorded texts is written `like this` (test_hostile.py, messages).
CODE = re.compile(r"`([^`]+)`")


def _escape(text):
    """Plain text for reStructuredText: no inline markup, no reference, one line."""
    text = (text or "").replace("\n", " ")
    text = re.sub(r"([\\*`|])", r"\\\1", text)
    return re.sub(r"_(?=\W|$)", r"\\_", text)


# What may stand right before and after inline markup (else RST needs an escaped space there).
BEFORE_MARKUP = " -:/'\"<([{"
AFTER_MARKUP = " -.,:;!?\\/'\")]}>"


def _literal(code, before="", after=""):
    """``code`` as an inline literal, between the characters ``before`` and ``after``; as plain text
    when no inline literal can hold it (a trailing backslash, blanks at its ends, two backquotes)."""
    code = code.replace("\n", " ")
    if not code or code != code.strip() or code.endswith("\\") or "``" in code:
        return _escape(code)
    return "%s``%s``%s" % ("\\ " if before and before not in BEFORE_MARKUP else "", code,
                           "\\ " if after and after not in AFTER_MARKUP else "")


def _rst(text):
    """A recorded text (which marks code the Markdown way, `like this`) as RST."""
    text = (text or "").replace("\n", " ")
    out, pos = [], 0
    for match in CODE.finditer(text):
        out.append(_escape(text[pos:match.start()]))
        out.append(_literal(match.group(1), text[match.start() - 1:match.start()], text[match.end():match.end() + 1]))
        pos = match.end()
    out.append(_escape(text[pos:]))
    return "".join(out)


def _cell(text):
    """A table cell: RST that must not start like a list item, nor be a lone punctuation mark (a title's underline)."""
    return "\\" + text if re.match(r"^(([-+*]|\d+[.)]|#[.)])(\s|$)|([!-/:-@[-`{-~])\4*$)", text) else text


def _table(add, header, rows):
    """A list-table; a cell is one line of RST, or a list of lines (a line block)."""
    add(".. list-table::")
    add("   :header-rows: 1")
    add("   :widths: auto")
    add("")
    for row in [header] + rows:
        for column, cell in enumerate(row):
            lead = "   * - " if column == 0 else "     - "
            if isinstance(cell, list):
                add(lead + "| " + cell[0])
                for line in cell[1:]:
                    add("       | " + line)
            else:
                add((lead + _cell(cell)).rstrip())
    add("")


def _heading(add, title, char):
    add(title)
    add(char * len(title))
    add("")


def _uniform(values):
    values = list(values)
    return values[0] if values and all(value == values[0] for value in values) else None


def _group_cell(kind, runs):
    """What the collection did, in words, for one group of targets in one mode."""
    outcomes = set(facts["outcome"] for facts in runs)
    if len(outcomes) > 1:
        return "mixed: " + ", ".join("%s %s" % (SHORT[facts["target"]], facts["outcome"]) for facts in runs)
    outcome = outcomes.pop()
    counted = [facts for facts in runs if facts["counted"]]
    requests = _uniform(facts["route_requests"] for facts in counted) if counted and len(counted) == len(runs) else None
    if kind == "post":
        facts = runs[0]
        posts = "%d POST" % facts["route_requests"]
        if outcome == "healed":
            if facts["listings"] > 2:  # one before the create and one after it, in every run
                return "healed: keys listed after each failure, %s, 1 key" % posts
            return "healed: retried at once, %s, 1 key" % posts
        if facts["keys_created"] == 1 and facts["changed"]:
            return "fails: keys listed, the key the service made is reported (its secret was lost), %s, 1 key" % posts
        if facts["keys_created"] == 1:
            return "fails: not asked again while the first may still land, %s, 1 key" % posts
        return "fails clearly, %s, no key" % posts
    if kind == "delete":
        facts = runs[0]
        if outcome == "healed":
            if facts["listings"] > 1:  # how many DELETE depends on whether the first one had landed
                return "healed: keys listed after each failure; revoked again while still listed"
            return "healed: retried at once"
        if facts["listings"] > 1:
            return "fails clearly after %d DELETE, each followed by a listing; key still active" % facts["route_requests"]
        return "fails clearly after %d DELETE; key still active" % facts["route_requests"]
    if kind == "wait":
        if outcome == "healed":
            return "healed within the timeout"
        if all(facts["message"].startswith("Timed out") for facts in runs):
            return "times out at %s s, naming the last fault" % rel.WAIT_TIMEOUT
        if requests and requests > 1:
            return "fails after %d attempts, as a read does (not at the timeout)" % requests
        return "fails at once"
    if outcome == "healed":
        return "healed after %d retries" % runs[0]["faulty_answers"] if _uniform(
            facts["faulty_answers"] for facts in runs) else "healed"
    if requests == 1:
        return "fails at once (not retried)"
    return "fails after %s attempts" % requests if requests else "fails"


def render(results):
    index = matrix_index(results)
    matrix = list(index.values())
    healed = [facts for facts in matrix if facts["outcome"] == "healed"]
    failed = [facts for facts in matrix if facts["outcome"] == "failed"]
    unclear = [facts for facts in matrix if facts["traceback"] or (facts["outcome"] == "failed" and not facts["message"])]
    posts = [facts for facts in matrix if rel.TARGETS_BY_ID[facts["target"]].kind == "post"]
    duplicates = sum(facts.get("duplicates", 0) for facts in matrix)
    transient = [facts for facts in matrix if facts["mode"] == "transient"]
    persistent = [facts for facts in matrix if facts["mode"] == "persistent"]
    # Sorted by what names each record: under pytest-xdist the tests that record them run in any order.
    bad = sorted(results.get("bad_input", []), key=lambda case: (case["module"], case["case"]))
    secrets = sorted(results.get("secrets", []), key=lambda run: run["run"])
    hostile = sorted(results.get("hostile", []), key=lambda case: (case["case"], case["tried"]))  # one case may run two ways
    other = sorted(results.get("other", []), key=lambda check: check["check"])
    out = []
    add = out.append
    wait = "neon.cloud.operation_wait#module"

    add(".. Generated by scripts/gen_reliability_report.py from the results of tests/reliability. Do not edit:")
    add("   run the suite, then scripts/gen_reliability_report.py (or NEON_RELIABILITY_WRITE_DOC=1).")
    add("")
    add(".. _%sreliability:" % LABEL)
    add("")
    _heading(add, "Reliability: faults, bad input and secrets", "=")
    add("What the modules do when the service or the network misbehaves, when the input is wrong, and where")
    add("secrets can show up. Nothing here is a promise written by hand: every outcome, count and message")
    add("below was recorded by ``tests/reliability`` running the real modules against the API simulator with")
    add("injected faults, and the suite fails when this page no longer matches what the modules do.")
    add("")
    add("The suite runs each module's ``main()`` in-process for the fault matrix (the code AnsiballZ runs), and")
    add("``ansible-playbook -vvv`` / ``ansible -vvv`` for the secret checks. Connection settings of the matrix:")
    add(":ansopt:`api_retries=%d`, :ansopt:`api_retry_max_delay=%s`, :ansopt:`api_timeout=%s` (:ansval:`%s` for the"
        % (rel.RETRIES, rel.MAX_DELAY, rel.API_TIMEOUT, rel.SLOW_API_TIMEOUT))
    add("slow-answer fault, which answers after %s s); :ansplugin:`%s` :ansopt:`%s:poll_interval=%s`," % (
        rel.SLOW_LATENCY, wait, wait, rel.WAIT_POLL))
    add(":ansopt:`%s:timeout=%s` (:ansval:`%s` when a %s persists: the wait polls through a lock until its timeout;"
        % (wait, rel.WAIT_TIMEOUT_LONG, rel.WAIT_TIMEOUT, " or ".join(rel.WAITED_OUT)))
    add("any other fault ends it as it fails a read, once the client's retries are spent).")
    add("A *transient* fault answers %d requests of the route and then heals; a *persistent* one never does." % (
        rel.TRANSIENT_COUNT))
    add("")
    _heading(add, "Totals", "-")
    transient_healed = [facts for facts in transient if facts["outcome"] == "healed"]
    _table(add, ["What", "Count"], [
        ["Fault scenarios run (%d module targets x %d fault classes x transient/persistent)" % (
            len(rel.TARGETS), len(rel.FAULTS)), "%d" % len(matrix)],
        ["... healed: the task succeeded with the right result", "%d" % len(healed)],
        ["... failed clearly: one line naming the request and what went wrong", "%d" % (len(failed) - len(unclear))],
        ["... unclear failures or tracebacks", "%d" % len(unclear)],
        ["Transient faults healed", "%d of %d" % (len(transient_healed), len(transient))],
        ["Persistent faults that failed clearly", "%d of %d (the others healed: the request had been carried out)" % (
            len([f for f in persistent if f["outcome"] == "failed"]), len(persistent))],
        ["Scenarios on POST /api_keys and POST /organizations/{org_id}/api_keys", "%d" % len(posts)],
        ["**Keys created twice**", "**%d**" % duplicates],
        ["**Created keys' secrets shown outside** ``key`` (searched in every run's output)", "**%d**" % sum(
            facts.get("secret_leaks", 0) for facts in matrix)],
        ["Bad-input cases refused with a clear message", "%d of %d (%d before any request)" % (
            len([case for case in bad if case["failed"] and not case["traceback"]]), len(bad),
            len([case for case in bad if case["requests"] == 0]))],
        ["ansible / ansible-playbook runs at -vvv searched for the auth key", "%d" % len(secrets)],
        ["**Times the auth key was found in their output**", "**%d**" % sum(run["leaks"] for run in secrets)],
        ["Policy checks (Retry-After, backoff, POST/DELETE sequences, wait bound, paging, unknown values)",
         "%d" % len(other)],
        ["Hostile-server and environment cases", "%d (lost: %s)" % (
            len(hostile), _escape(", ".join(sorted(set(case["lost"] for case in hostile))) or "-"))],
    ])
    _heading(add, "Fault -> what the collection does", "-")
    add("Per kind of request; *T* is the transient fault, *P* the persistent one. \"Attempts\" and \"POST\"")
    add("counts are requests to the faulty route, from the simulator's request log.")
    add("")
    rows = []
    for fault in rel.FAULTS:
        row = [_escape(fault.label)]
        for _label, targets in GROUPS.values():
            row.append(["%s: %s" % (letter, _escape(_group_cell(rel.TARGETS_BY_ID[targets[0]].kind,
                                                                [index[(target, fault.id, mode)] for target in targets])))
                        for mode, letter in (("transient", "T"), ("persistent", "P"))])
        rows.append(row)
    _table(add, ["Fault"] + [_escape(label) for label, _targets in GROUPS.values()], rows)
    _heading(add, "The whole matrix", "-")
    add("``ok`` healed, ``FAIL`` failed clearly; the number is the requests to the faulty route where the test pins it.")
    add("")
    rows = []
    for fault in rel.FAULTS:
        cells = [_escape(fault.label)]
        for target in rel.TARGETS:
            marks = []
            for mode in rel.MODES:
                facts = index[(target.id, fault.id, mode)]
                mark = "ok" if facts["outcome"] == "healed" else "FAIL"
                if facts["counted"]:
                    mark += " %d" % facts["route_requests"]
                marks.append(mark)
            cells.append(" / ".join(marks))
        rows.append(cells)
    _table(add, ["Fault"] + [_escape(SHORT[target.id]) for target in rel.TARGETS], rows)
    add("Each cell is *transient / persistent*.")
    add("")
    _heading(add, "Messages when the fault persists", "-")
    add("Request ids, times, ports, key ids and names are replaced by ``<...>``.")
    add("")
    shown = [("projects_info", "projects_info"), ("api_key.create", "api_key (create)"),
             ("api_key.revoke", "api_key (revoke)"), ("operation_wait.ids", "operation_wait (ids)")]
    for fault in rel.FAULTS:
        add("**%s**" % _escape(fault.label))
        add("")
        for target, label in shown:
            facts = index[(target, fault.id, "persistent")]
            text = facts["message"] if facts["outcome"] == "failed" else "(healed)"
            add("- %s: %s" % (_escape(label), _literal(text.replace("`", "'"), " ")))
        add("")
    _heading(add, "Bad input", "-")
    _table(add, ["Case", "Module", "Requests sent", "Message"], [
        [_escape(case["case"]), _escape(case["module"]), "%d" % case["requests"],
         _escape(case["message"] if case["failed"] else "(accepted)")]
        for case in bad])
    _heading(add, "A hostile server and a real user's environment", "-")
    add("``tests/reliability/test_hostile.py`` runs the modules against ``hostile_server.py``, a server that")
    add("misbehaves at the level of bytes on the socket (trickled headers and bodies, endless or cut bodies,")
    add("bodies too large, gzip bombs, valid JSON of the wrong kind, unsafe error text, TLS with a CA of its own),")
    add("through a forward proxy, and in environments set up the way workstations and AWX nodes are (netrc,")
    add("CA bundle and proxy variables). Each row is one test that passed in this run; each failed on the")
    add("collection before these guarantees were built.")
    add("")
    _table(add, ["Case", "What was tried", "What happened", "What was lost"], [
        [_rst(case["case"]), _rst(case["tried"]), _rst(case["happened"]), _rst(case["lost"])] for case in hostile])
    _heading(add, "Secrets", "-")
    add("Each run's whole output (stdout, stderr and the ``ANSIBLE_LOG_PATH`` log) is searched for every")
    add("16 characters in a row of the auth key, so an escaped or split copy counts too. The playbook runs")
    add("every module through success and failure paths (API errors, faults, timeouts, bad input, check and")
    add("diff mode), with the key from ``module_defaults`` and from :envvar:`NEON_API_KEY`. A created key's secret")
    add("may appear only as the value of ``key`` in the result of the task that created it.")
    add("")
    _table(add, ["Run", "Exit code", "Auth key found", "Created secrets shown (only in ``key``)"], [
        [_escape(run["run"]), "%d" % run["rc"], "%d" % run["leaks"], "%d" % run["secrets_shown"]] for run in secrets])
    add("Not covered by the collection: ``ansible localhost -m ... -a 'api_key=...'`` puts the key on the")
    add("command line, and when such a task fails ansible-core 2.19 prints the task's arguments, key included,")
    add("in the error's ``Origin:`` (``test_adhoc_with_the_key_in_the_command_line_args`` pins this, strict xfail).")
    add("Pass the key in :envvar:`NEON_API_KEY` or ``module_defaults``, as")
    add(":ref:`authentication <%sauthentication>` says." % LABEL)
    add("")
    _heading(add, "Policy checks", "-")
    rows = []
    for check in other:
        details = dict((key, value) for key, value in check.items() if key not in ("check", "outcome", "message"))
        text = _escape("; ".join("%s: %s" % (key, _format(value)) for key, value in sorted(details.items())))
        if check.get("message"):
            text = (text + "; " if text else "") + _literal(check["message"].replace("`", "'"), " ")
        rows.append([_escape(check["check"]), _escape(check["outcome"]), text])
    _table(add, ["Check", "Outcome", "Details"], rows)
    return "\n".join(out).rstrip("\n") + "\n"


def _format(value):
    if isinstance(value, list):
        return ", ".join(" ".join(str(part) for part in item) if isinstance(item, (list, tuple)) else str(item)
                         for item in value)
    return str(value)
