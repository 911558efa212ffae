# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""neon.cloud.branch_anonymized against the simulator: an anonymized branch made from a parent with its masking rules,
returned once masking has ended; a rerun, changed rules, rules in another order; a masking that ends badly; rules
refused before any request; two runs at once; check mode; the rules' functions and values kept out of the output
(``no_log``), their names shown as any other name of the branch.

Each test runs the module in this process (rel.run_module), as a playbook task would (at -vvv), and checks what a
user would notice: the branch, its status and rules as the API shows them afterwards, what the result says, and
which requests were sent (the simulator's request log). How a masking ends is scripted through the simulator
(``script_anonymization``), never raced.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re
import time

import neon_reliability as rel
from neon_reliability import failed, last_seq, ok
from test_provisioning_modules import RUN_TIMEOUT, branch_named, changes_since, new_project, requests_since, run
from test_snapshot_modules import write

CUSTOMERS = [{"id": 1, "email": "ada@shop.example", "name": "Ada Lovelace", "plan": "pro"},
             {"id": 2, "email": "alan@shop.example", "name": "Alan Turing", "plan": "free"}]
# Strings only the rules' functions and values hold: none of them may appear in any output of a task (the two
# suboptions are no_log; the names a rule holds are shown, as any other name of the branch).
LITERAL = "Literal-7f3a9c2e"
EMAIL = dict(database_name="neondb", table_name="customers", column_name="email", masking_function="anon.fake_email()")
NAME = dict(database_name="neondb", table_name="customers", column_name="name", masking_value=LITERAL)
PLAN = dict(database_name="neondb", table_name="customers", column_name="plan", masking_function="anon.random_string(4)")


# ---------------------------------------------------------------------------------------------- helpers


def shop(sim):
    """A new project whose main holds CUSTOMERS in neondb: (project id, main)."""
    created = new_project(sim)
    pid, main = created["project"]["id"], created["branch"]
    write(sim, pid, main["id"], CUSTOMERS, table="customers")
    sim.advance_clock(1)
    return pid, main


def anonymized(sim, pid, name="pr-1-anon", check_mode=False, diff=False, **args):
    args.setdefault("masking_rules", [EMAIL, NAME])
    return run(sim, "branch_anonymized", check_mode=check_mode, diff=diff, project_id=pid, name=name, parent="main",
               **args)


def status_of(sim, pid, branch_id):
    return rel.api(sim, "GET", "/projects/%s/branches/%s/anonymized_status" % (pid, branch_id))


def rules_of(sim, pid, branch_id):
    return rel.api(sim, "GET", "/projects/%s/branches/%s/masking_rules" % (pid, branch_id))["masking_rules"]


def columns(rules):
    return sorted((rule["column_name"], rule.get("masking_function") or rule.get("masking_value")) for rule in rules)


def assert_rules_hidden(result):
    """Nothing of a rule's function or literal value anywhere in what the task printed (result, msg, diff, the
    invocation at -vvv)."""
    text = result.text()
    for value in (LITERAL, "anon.fake_email", "anon.random_string"):
        assert value not in text, "a masking rule's value is in the task's output: %s" % text[-3000:]


def assert_nothing_garbled(result):
    """No string of the task's output cut by Ansible's no_log scrubbing (``********`` within a word): only the
    masking functions and values are no_log, and the tests' ones are in no name, id or message."""
    assert "********" not in result.text(), "a part of the task's output is hidden: %s" % result.text()[-3000:]


DIFF_RULE = re.compile(r"^(?P<column>[^ ]+): (?P<kind>masking_function|masking_value) \(fingerprint [0-9a-f]{12}\)$")


def diff_columns(rules):
    """The diff's rules (strings) as (column, masking_function or masking_value), checked for their form."""
    shown = []
    for rule in rules:
        match = DIFF_RULE.match(rule)
        assert match, "a rule of the diff is not '<column>: <kind> (fingerprint <hex>)': %r" % rule
        shown.append((match.group("column"), match.group("kind")))
    return sorted(shown)


def posts(sim, seq, end):
    return [entry for entry in sim.requests(since=seq) if entry["method"] == "POST" and entry["path"].endswith(end)]


# ---------------------------------------------------------------------------------------------- made, rerun, changed


def test_an_anonymized_branch_is_made_from_its_parent_and_returned_once_masked_and_a_rerun_changes_nothing(sim):
    pid, main = shop(sim)
    seq = last_seq(sim)
    made = anonymized(sim, pid)
    result = ok(made)
    assert result["changed"] is True and result["anonymized_status"]["state"] == "anonymized"
    branch = branch_named(sim, pid, "pr-1-anon")
    assert result["branch"]["id"] == branch["id"] and branch["parent_id"] == main["id"]
    assert status_of(sim, pid, branch["id"])["state"] == "anonymized"
    assert columns(rules_of(sim, pid, branch["id"])) == columns([EMAIL, NAME])
    (create,) = posts(sim, seq, "/branch_anonymized")
    assert create["status"] == 201
    assert [method for method, _path in changes_since(sim, seq)] == ["POST"]  # one create, the masking started with it
    assert result["masking_rules_count"] == 2
    assert_rules_hidden(made)

    seq = last_seq(sim)
    again = anonymized(sim, pid, masking_rules=[NAME, EMAIL])  # the same rules in another order: the same set
    assert ok(again)["changed"] is False and again.result["anonymized_status"]["state"] == "anonymized"
    assert changes_since(sim, seq) == []
    assert again.result["branch"]["id"] == branch["id"]
    assert_rules_hidden(again)


def test_changed_rules_replace_the_rules_whole_and_mask_again_and_always_masks_on_every_run(sim):
    pid, _main = shop(sim)
    branch_id = ok(anonymized(sim, pid))["branch"]["id"]
    seq = last_seq(sim)
    changed = ok(anonymized(sim, pid, masking_rules=[EMAIL, PLAN]))
    assert changed["changed"] is True and changed["anonymized_status"]["state"] == "anonymized"
    assert [(method, path.rsplit("/", 1)[-1]) for method, path in changes_since(sim, seq)] == [
        ("PATCH", "masking_rules"), ("POST", "anonymize")]
    assert columns(rules_of(sim, pid, branch_id)) == columns([EMAIL, PLAN])  # NAME is gone: replaced whole

    seq = last_seq(sim)
    always = ok(anonymized(sim, pid, masking_rules=[PLAN, EMAIL], anonymize="always"))
    assert always["changed"] is True and always["anonymized_status"]["state"] == "anonymized"
    assert [(method, path.rsplit("/", 1)[-1]) for method, path in changes_since(sim, seq)] == [("POST", "anonymize")]


def test_a_masking_that_ends_in_error_fails_with_its_message_and_the_branch_and_a_rerun_masks_again(sim):
    pid, _main = shop(sim)
    sim.script_anonymization(outcome="error", message="masking failed at neondb.public.customers", project_id=pid)
    failure = anonymized(sim, pid)
    result = failed(failure)
    branch = branch_named(sim, pid, "pr-1-anon")
    assert "ended in state error: masking failed at" in result["msg"]
    assert "The branch exists (id %s)" % branch["id"] in result["msg"]
    assert result["changed"] is True and result["branch"]["id"] == branch["id"]
    assert_rules_hidden(failure)

    seq = last_seq(sim)
    again = ok(anonymized(sim, pid))
    assert again["changed"] is True and again["anonymized_status"]["state"] == "anonymized"
    assert [(method, path.rsplit("/", 1)[-1]) for method, path in changes_since(sim, seq)] == [("POST", "anonymize")]


def test_an_initialization_error_fails_with_its_message_and_a_rerun_says_to_delete_the_branch(sim):
    pid, _main = shop(sim)
    sim.script_anonymization(phase="initialize", outcome="initialization_error", message="the parent is too large",
                             project_id=pid)
    result = failed(anonymized(sim, pid))
    branch = branch_named(sim, pid, "pr-1-anon")
    assert "ended in state initialization_error: the parent is too large" in result["msg"]
    assert branch["id"] in result["msg"]

    seq = last_seq(sim)
    again = failed(anonymized(sim, pid))
    assert "failed to initialize" in again["msg"] and "delete it" in again["msg"] and branch["id"] in again["msg"]
    assert changes_since(sim, seq) == []


# ---------------------------------------------------------------------------------------------- what the output shows


def test_a_rule_on_a_column_whose_name_is_in_the_branchs_name_leaves_the_returned_branch_and_messages_intact(sim):
    """Issue 41: with the whole option no_log, Ansible hid every string of the rules wherever it appeared, within words
    too: a rule on a column ``name`` made the branch ``pr-names-anon`` ``pr-********s-anon`` in the result and its
    messages (and an id holding ``name`` unusable). The names of a rule are now shown as any other name."""
    pid, main = shop(sim)
    sim.script_anonymization(outcome="error", message="masking failed at neondb.public.customers", project_id=pid)
    failure = anonymized(sim, pid, name="pr-names-anon", masking_rules=[EMAIL, NAME])
    branch = branch_named(sim, pid, "pr-names-anon")
    assert "the masking of 'pr-names-anon' (%s) ended in state error: masking failed at neondb.public.customers. " \
           "The branch exists (id %s)" % (branch["id"], branch["id"]) in failed(failure)["msg"]
    assert failure.result["branch"]["id"] == branch["id"] and failure.result["branch"]["name"] == "pr-names-anon"
    assert_nothing_garbled(failure)
    assert_rules_hidden(failure)

    again = anonymized(sim, pid, name="pr-names-anon", masking_rules=[EMAIL, NAME])  # masks it again
    result = ok(again)
    assert result["changed"] is True and result["anonymized_status"]["state"] == "anonymized"
    shown = rel.api(sim, "GET", "/projects/%s/branches/%s" % (pid, branch["id"]))["branch"]
    assert result["branch"]["id"] == shown["id"] == branch["id"]
    assert result["branch"]["name"] == shown["name"] == "pr-names-anon"
    assert result["branch"]["parent_id"] == main["id"]
    assert_nothing_garbled(again)
    assert_rules_hidden(again)


def test_a_rules_function_and_value_stay_out_of_every_output_and_its_names_are_shown_at_vvv(sim):
    """The masking function and value are no_log (a function can hold a salt, a value is the data put in): hidden in
    the invocation at -vvv, the result, the diff, a refusal, and a status message of the service that echoes them;
    the names of a rule are shown in the invocation as the user gave them."""
    pid, _main = shop(sim)
    sim.script_anonymization(outcome="error", project_id=pid,
                             message="masking failed: anon.random_string(4) and %s on neondb.public.customers" % LITERAL)
    runs = [anonymized(sim, pid, check_mode=True, diff=True, masking_rules=[NAME, PLAN])]
    runs.append(anonymized(sim, pid, diff=True, masking_rules=[NAME, PLAN]))
    # The client's scrubber hides them (in any form the service may echo) before Ansible's no_log would.
    assert "ended in state error: masking failed: <redacted> and <redacted> on neondb.public.customers" in \
        failed(runs[-1])["msg"]
    runs.append(anonymized(sim, pid, diff=True, masking_rules=[EMAIL, NAME]))
    ok(runs[-1])
    runs.append(anonymized(sim, pid, masking_rules=[dict(EMAIL, column_name="emial"), NAME]))
    failed(runs[-1])
    for shown in runs:
        assert_rules_hidden(shown)
        invoked = shown.result["invocation"]["module_args"]["masking_rules"]
        assert [rule["column_name"] for rule in invoked] in (["name", "plan"], ["email", "name"], ["emial", "name"])
        for rule in invoked:
            assert (rule["database_name"], rule["schema_name"], rule["table_name"]) == ("neondb", "public", "customers")
            given = [name for name in ("masking_function", "masking_value") if rule[name] is not None]
            assert [rule[name] for name in given] == ["VALUE_SPECIFIED_IN_NO_LOG_PARAMETER"]


def assert_no_piece_of(result, pieces):
    """None of ``pieces`` (parts of a rule's masking function or value, as the service may echo it altered) anywhere
    in what the task printed."""
    text = result.text()
    for piece in pieces:
        assert piece not in text, "a piece of a masking rule (%r) is in the task's output: %s" % (piece, text[-3000:])


# A function long enough to be hidden piece by piece, with a run of spaces; a value with a quote, which SQL doubles.
SALTED = dict(EMAIL, masking_function="anon.pseudo_email(email,   'Pepper-5b8e2d71')")
QUOTED = dict(NAME, masking_value="O'Brien-Lit-8c1d")
SALTED_PIECES = ("pseudo_email", "Pepper", "5b8e2d71", "Brien", "Lit-8c1d")


def test_a_status_message_echoing_a_rules_function_or_value_altered_shows_no_piece_of_them(sim):
    """Ansible's no_log hides a function or value only as given: the service's status message may echo it with its
    spaces made one, or SQL-escaped. None of that reaches the message, the result or -vvv."""
    pid, _main = shop(sim)
    sim.script_anonymization(outcome="error", project_id=pid, message=(
        "masking failed: anon.pseudo_email(email, 'Pepper-5b8e2d71') raised for\n  'O''Brien-Lit-8c1d' on "
        "neondb.public.customers"))
    failure = anonymized(sim, pid, masking_rules=[SALTED, QUOTED])
    result = failed(failure)
    branch = branch_named(sim, pid, "pr-1-anon")
    assert "ended in state error: masking failed: <redacted>" in result["msg"]
    assert "on neondb.public.customers" in result["msg"] and "The branch exists (id %s)" % branch["id"] in result["msg"]
    assert result["anonymized_status"]["state"] == "error"
    assert "<redacted>" in result["anonymized_status"]["status_message"]
    assert result["branch"]["id"] == branch["id"] and result["branch"]["name"] == "pr-1-anon"
    assert_no_piece_of(failure, SALTED_PIECES)
    assert_nothing_garbled(failure)


def test_rules_changed_from_an_old_function_hide_the_old_function_the_services_status_message_names(sim):
    """The rules the service holds (an earlier run's) are secrets too once read: a status message of the earlier
    masking, or of this run's, naming the old function shows neither it nor its quoted salt, though this task does
    not name it."""
    pid, _main = shop(sim)
    old = dict(EMAIL, masking_function="anon.pseudo_email(email, 'Old-Salt-31c7a9')")
    sim.script_anonymization(outcome="error", project_id=pid,
                             message="masking failed at anon.pseudo_email(email,  'Old-Salt-31c7a9')")
    failed(anonymized(sim, pid, masking_rules=[old, NAME]))

    predicted = anonymized(sim, pid, check_mode=True, diff=True, masking_rules=[EMAIL, NAME])
    result = ok(predicted)
    assert result["changed"] is True and result["anonymized_status"]["state"] == "error"
    # echoed with other spaces than it was given: hidden whole it is not, but its quoted salt is
    assert result["anonymized_status"]["status_message"] == "masking failed at anon.pseudo_email(email,  '<redacted>')"
    assert_no_piece_of(predicted, ("Old-Salt", "31c7a9"))

    sim.script_anonymization(outcome="error", project_id=pid, message=(
        "masking failed; the rules were anon.pseudo_email(email, 'Old-Salt-31c7a9') before"))
    replaced = anonymized(sim, pid, masking_rules=[EMAIL, NAME])
    assert "ended in state error: masking failed; the rules were <redacted> before" in failed(replaced)["msg"]
    assert replaced.result["anonymized_status"]["status_message"] == "masking failed; the rules were <redacted> before"
    assert_no_piece_of(replaced, ("pseudo_email", "Old-Salt", "31c7a9"))
    assert_rules_hidden(replaced)


def test_a_function_naming_its_column_leaves_that_column_readable_in_the_diff_and_its_salt_hidden_when_cut(sim):
    """A masking function is hidden whole, not by runs of its characters: most take the column they mask as argument
    (``anon.partial_email(email_address)``), and the diff shows that column. Its quoted salt is data of its own:
    a cut echo of it shows no run of it."""
    pid, main = shop(sim)
    write(sim, pid, main["id"], [{"id": 1, "email_address": "ada@shop.example"}], table="contacts")
    sim.advance_clock(1)
    salted = dict(database_name="neondb", table_name="contacts", column_name="email_address",
                  masking_function="anon.partial_email(email_address, 'Salted-Pepper-5b8e2d71c4')")
    predicted = anonymized(sim, pid, check_mode=True, diff=True, masking_rules=[salted])
    assert diff_columns(ok(predicted)["diff"]["after"]["masking_rules"]) == [
        ("neondb.public.contacts.email_address", "masking_function")]
    assert_nothing_garbled(predicted)
    sim.script_anonymization(outcome="error", project_id=pid,
                             message="masking failed at anon.partial_email(email_address, 'Salted-Pepper-5b8e")
    failure = anonymized(sim, pid, masking_rules=[salted])
    assert "masking failed at anon.partial_email(email_address, '<redacted>" in failed(failure)["msg"]
    assert_no_piece_of(failure, ("Salted-Pepper", "Pepper-5b8e"))


# ---------------------------------------------------------------------------------------------- refused before sending


def test_a_rule_naming_a_column_the_parent_has_not_is_refused_before_any_change_naming_its_columns(sim):
    pid, main = shop(sim)
    seq = last_seq(sim)
    typo = dict(EMAIL, column_name="emial")
    refused = anonymized(sim, pid, masking_rules=[NAME, typo])
    result = failed(refused)
    # What a user reads: the rule by its place, what it asked for and what the table has, every name as it is (a
    # column "name" that another rule masks too).
    assert result["msg"] == "rule 2 of masking_rules: table 'customers' (schema public, database neondb) of the " \
                            "parent 'main' (%s) has no column 'emial'; its columns are: id, email, name, plan. " \
                            "Nothing was changed" % main["id"]
    assert changes_since(sim, seq) == [] and branch_named(sim, pid, "pr-1-anon") is None
    assert_rules_hidden(refused)
    assert_nothing_garbled(refused)

    seq = last_seq(sim)
    result = failed(anonymized(sim, pid, masking_rules=[dict(EMAIL, database_name="shop")]))
    assert "the parent 'main'" in result["msg"] and "has no database 'shop'; its databases are: neondb." in result["msg"]
    assert changes_since(sim, seq) == []


def test_a_rule_with_neither_a_function_nor_a_value_is_refused_before_any_request(sim):
    pid, _main = shop(sim)
    seq = last_seq(sim)
    result = failed(anonymized(sim, pid, masking_rules=[EMAIL, dict(NAME, masking_value=None)]))
    assert "rule 2 of masking_rules has neither a masking_function nor a masking_value" in result["msg"]
    assert requests_since(sim, seq) == []


# ---------------------------------------------------------------------------------------------- check mode and diff


def test_check_mode_sends_no_change_and_the_diff_shows_each_rules_column_and_a_fingerprint_of_its_masking(sim):
    pid, _main = shop(sim)
    seq = last_seq(sim)
    predicted = anonymized(sim, pid, check_mode=True, diff=True)
    result = ok(predicted)
    assert result["changed"] is True and result["branch"]["id"] is None
    assert changes_since(sim, seq) == [] and branch_named(sim, pid, "pr-1-anon") is None
    diff = result["diff"]
    assert diff["before"] == {}
    assert diff_columns(diff["after"]["masking_rules"]) == [("neondb.public.customers.email", "masking_function"),
                                                            ("neondb.public.customers.name", "masking_value")]
    assert_rules_hidden(predicted)
    assert_nothing_garbled(predicted)

    ok(anonymized(sim, pid))
    seq = last_seq(sim)
    other_email = dict(EMAIL, masking_function="anon.random_string(12)")  # the same column, masked otherwise
    replaced = anonymized(sim, pid, check_mode=True, diff=True, masking_rules=[NAME, PLAN, other_email])
    result = ok(replaced)
    assert result["changed"] is True and changes_since(sim, seq) == []
    before, after = result["diff"]["before"]["masking_rules"], result["diff"]["after"]["masking_rules"]
    # NAME stays (the same line before and after); PLAN comes; the email column stays, its function changed.
    assert diff_columns(before) == [("neondb.public.customers.email", "masking_function"),
                                    ("neondb.public.customers.name", "masking_value")]
    assert diff_columns(after) == [("neondb.public.customers.email", "masking_function"),
                                   ("neondb.public.customers.name", "masking_value"),
                                   ("neondb.public.customers.plan", "masking_function")]
    assert [rule for rule in before if rule.startswith("neondb.public.customers.name:")] == \
        [rule for rule in after if rule.startswith("neondb.public.customers.name:")]
    email_before, email_after = [[rule for rule in rules if rule.startswith("neondb.public.customers.email:")]
                                 for rules in (before, after)]
    assert email_before != email_after
    assert result["diff"]["after"]["masked_again"] == "its masking rules changed"
    assert_rules_hidden(replaced)


# ---------------------------------------------------------------------------------------------- waits and overlaps


def test_a_423_on_the_create_is_waited_out_and_it_is_created_once(sim):
    pid, _main = shop(sim)
    sim.add_fault(method="POST", path="/api/v2/projects/%s/branch_anonymized" % pid, status=423, count=2)
    seq = last_seq(sim)
    result = ok(anonymized(sim, pid))
    assert result["anonymized_status"]["state"] == "anonymized"
    assert [entry["status"] for entry in posts(sim, seq, "/branch_anonymized")] == [423, 423, 201]
    assert len([branch for branch in rel.api(sim, "GET", "/projects/%s/branches" % pid)["branches"]
                if branch["name"] == "pr-1-anon"]) == 1


def test_two_runs_at_once_leave_one_anonymized_branch_and_both_succeed(sim, collection_parent, tmp_path):
    pid, _main = shop(sim)
    sim.add_barrier(method="GET", path="/api/v2/projects/%s/branches" % pid, parties=2, timeout=60)
    args = rel.connection_args(sim, project_id=pid, name="pr-race-anon", parent="main", masking_rules=[EMAIL, NAME],
                               api_timeout=RUN_TIMEOUT - 10)
    results = rel.module_process_results(
        rel.start_module_processes(collection_parent, tmp_path, "branch_anonymized", [args, args]), RUN_TIMEOUT)
    assert [barrier["timed_out"] for barrier in sim.barriers()] == [False]  # both listed before either created
    named = [branch for branch in rel.api(sim, "GET", "/projects/%s/branches" % pid)["branches"]
             if branch["name"] == "pr-race-anon"]
    assert len(named) == 1
    for result in results:
        assert not result.get("failed"), result
        assert result["branch"]["id"] == named[0]["id"] and result["anonymized_status"]["state"] == "anonymized"
        assert LITERAL not in json.dumps(result)
    assert len([result for result in results if "another run" in json.dumps(result.get("warnings"))]) == 1
    assert status_of(sim, pid, named[0]["id"])["state"] == "anonymized"


def test_check_mode_on_a_project_an_earlier_task_would_make_predicts_the_branch_and_sends_nothing(sim):
    seq = last_seq(sim)
    predicted = ok(run(sim, "branch_anonymized", check_mode=True, project_id="", name="pr-1-anon", parent="main",
                       masking_rules=[EMAIL]))
    assert predicted["changed"] is True and predicted["branch"]["id"] is None
    assert "taken as made by an earlier task of the play" in json.dumps(predicted.get("warnings"))
    assert requests_since(sim, seq) == []


def test_a_start_refused_as_another_runs_masking_went_on_that_ended_before_the_status_was_read_is_asked_again(sim):
    """The order a second run may see things in: its start refused (409) while another run's masking goes on, and
    that masking ended by the time it reads the status. The start is asked again, not the task failed."""
    pid, _main = shop(sim)
    bid = ok(anonymized(sim, pid, masking_rules=[EMAIL]))["branch"]["id"]
    assert status_of(sim, pid, bid)["state"] == "anonymized"
    seq = last_seq(sim)
    sim.add_fault(method="POST", path="/api/v2/projects/%s/branches/%s/anonymize" % (pid, bid), status=409, count=1)
    second = ok(anonymized(sim, pid, masking_rules=[EMAIL, NAME], wait=False))
    assert second["changed"] is True and "another run" not in json.dumps(second.get("warnings"))
    assert [entry["status"] < 300 for entry in posts(sim, seq, "/anonymize")] == [False, True]
    assert columns(rules_of(sim, pid, bid)) == columns([EMAIL, NAME])


def test_rules_replaced_while_another_runs_masking_goes_on_are_masked_once_it_ends_and_a_rerun_changes_nothing(
        sim, collection_parent, tmp_path):
    pid, _main = shop(sim)
    sim.script_anonymization(hold=True, project_id=pid)  # the first run's masking goes on until released
    bid = ok(anonymized(sim, pid, masking_rules=[EMAIL], wait=False))["branch"]["id"]
    sim.advance_clock(10)  # its initialization ends, its masking begins (with EMAIL alone)
    assert status_of(sim, pid, bid)["state"] == "anonymizing"

    seq = last_seq(sim)
    args = rel.connection_args(sim, project_id=pid, name="pr-1-anon", parent="main", masking_rules=[EMAIL, NAME],
                               wait=False, api_timeout=RUN_TIMEOUT - 10)
    process = rel.start_module_processes(collection_parent, tmp_path, "branch_anonymized", [args])
    for _attempt in range(600):  # bounded: until the second run's start has been refused (the first run's masking goes on)
        if [entry["status"] for entry in posts(sim, seq, "/anonymize")] == [409]:
            break
        time.sleep(0.1)
    assert [entry["status"] for entry in posts(sim, seq, "/anonymize")] == [409]
    sim.release_anonymization(pid, bid)  # the first run's masking ends, masked with EMAIL alone
    (second,) = rel.module_process_results(process, RUN_TIMEOUT)

    assert not second.get("failed"), second.get("msg")
    assert second["changed"] is True and "another run" not in json.dumps(second.get("warnings"))
    started = posts(sim, seq, "/anonymize")
    assert [entry["status"] < 300 for entry in started] == [False, True]  # refused, then its own masking started
    sim.advance_clock(10)
    status = status_of(sim, pid, bid)
    assert status["state"] == "anonymized" and status["last_run"]["masked_columns"] == 2  # NAME masked too
    assert columns(rules_of(sim, pid, bid)) == columns([EMAIL, NAME])

    seq = last_seq(sim)
    assert ok(anonymized(sim, pid, masking_rules=[NAME, EMAIL]))["changed"] is False
    assert changes_since(sim, seq) == []


def test_a_rule_naming_what_the_parent_has_not_is_refused_in_words_a_user_can_read(sim):
    pid, main = shop(sim)
    write(sim, pid, main["id"], [{"id": 1, "total": 5}], table="orders")
    sim.advance_clock(1)
    parent = "the parent 'main' (%s)" % main["id"]
    seq = last_seq(sim)
    # Rule 1 holds the names the parent has (neondb, public, customers, name): each is shown as it is.
    for rule, words in [
            (dict(EMAIL, database_name="shop"), "%s has no database 'shop'; its databases are: neondb" % parent),
            (dict(EMAIL, schema_name="sales"), "database 'neondb' of %s has no schema 'sales' with tables; its schemas "
                                               "with tables are: public" % parent),
            (dict(EMAIL, table_name="customer"), "schema 'public' (database neondb) of %s has no table 'customer'; its "
                                                 "tables there are: customers, orders" % parent),
            (dict(EMAIL, column_name="emial"), "table 'customers' (schema public, database neondb) of %s has no column "
                                               "'emial'; its columns are: id, email, name, plan" % parent)]:
        refused = anonymized(sim, pid, masking_rules=[NAME, rule])
        assert failed(refused)["msg"] == "rule 2 of masking_rules: %s. Nothing was changed" % words
        assert_rules_hidden(refused)
        assert_nothing_garbled(refused)
    assert changes_since(sim, seq) == [] and branch_named(sim, pid, "pr-1-anon") is None


def test_when_another_runs_masking_outlasts_wait_timeout_the_task_fails_saying_its_rules_were_not_masked_with(sim):
    pid, _main = shop(sim)
    sim.script_anonymization(hold=True, project_id=pid)
    bid = ok(anonymized(sim, pid, masking_rules=[EMAIL], wait=False))["branch"]["id"]
    sim.advance_clock(10)
    assert status_of(sim, pid, bid)["state"] == "anonymizing"  # held: it does not end while the next task runs

    result = failed(anonymized(sim, pid, masking_rules=[EMAIL, NAME], wait=False, wait_timeout=1))
    assert "this run's masking was not started" in result["msg"] and "anonymize: always" in result["msg"]
    assert "replaced the masking rules of" in result["msg"] and result["changed"] is True
    assert columns(rules_of(sim, pid, bid)) == columns([EMAIL, NAME])

    sim.release_anonymization(pid, bid)  # ends masked with EMAIL alone: a rerun as it was cannot tell
    assert status_of(sim, pid, bid)["last_run"]["masked_columns"] == 1
    again = ok(anonymized(sim, pid, masking_rules=[EMAIL, NAME], anonymize="always"))
    assert again["changed"] is True and again["anonymized_status"]["last_run"]["masked_columns"] == 2
