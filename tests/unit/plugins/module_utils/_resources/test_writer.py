# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The writers' one path (writer.py): what is sent in check mode, with nothing to change and otherwise, and the
two requests written once for all writers (create-or-adopt, a DELETE that takes 404 as done)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._api.errors import TaskFailure
from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import NOTHING, UPDATE, Plan
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal
from ansible_collections.neon.cloud.plugins.module_utils._resources.task import Found, ResourceTask
from ansible_collections.neon.cloud.plugins.module_utils._resources.writer import Writer, task_result
from ansible_collections.neon.cloud.tests.unit.plugins.module_utils.neon_fakes import make_client, make_response

PATH = "/projects/p-1/notes/n-1"


class Note(Writer):
    """A writer of one note's text: GET it, PUT it when it differs, GET it again."""

    starts_operations = False

    def __init__(self, task, text):
        super(Note, self).__init__(task)
        self.text = text

    def read(self):
        data = self.client.get(PATH)
        if data.get("missing"):
            raise Refusal("project p-1 has no note n-1")
        return data["text"]

    def decide(self, current):
        return Plan(NOTHING, "as asked") if current == self.text else Plan(UPDATE, "differs", body={"text": self.text})

    def diff(self, current, plan):
        return {"text": current}, {"text": self.text}

    def as_planned(self, current, plan, after):
        self.task.kept["note"] = {"text": self.text if plan.changed else current}
        return after

    def act(self, current, plan):
        self.task.change("PUT", PATH, None, plan.body, "Setting the note", no_content=True)
        self.task.did("the note was set")
        return PATH

    def read_again(self, current, done, after):
        self.task.kept["note"] = self.client.get(done)
        return {"text": self.task.kept["note"]["text"]}


def scripted(*answers):
    client, adapter = make_client(lambda request: answers[len(adapter.sent) - 1] if len(adapter.sent) <= len(answers)
                                  else make_response(500, {"message": "unexpected"}))
    return client, adapter


def methods(adapter):
    return [request.method for request in adapter.sent]


def test_check_mode_reads_and_sends_nothing_else():
    client, adapter = scripted(make_response(200, {"text": "old"}))
    result = Note(ResourceTask(client, check_mode=True, diff=True), "new").run()
    assert methods(adapter) == ["GET"]
    assert result == {"note": {"text": "new"}, "changed": True,
                      "diff": {"before": {"text": "old"}, "after": {"text": "new"}}}


def test_nothing_to_change_is_one_read():
    client, adapter = scripted(make_response(200, {"text": "same"}))
    result = Note(ResourceTask(client), "same").run()
    assert methods(adapter) == ["GET"] and result == {"note": {"text": "same"}, "changed": False}


def test_a_change_is_read_act_read_again_and_the_diff_is_what_was_read_again():
    client, adapter = scripted(make_response(200, {"text": "old"}), make_response(200, raw=b""),
                               make_response(200, {"text": "new, as the service keeps it"}))
    result = Note(ResourceTask(client, diff=True), "new").run()
    assert methods(adapter) == ["GET", "PUT", "GET"] and json.loads(adapter.sent[1].body) == {"text": "new"}
    assert result["changed"] is True and "operations" not in result
    assert result["diff"] == {"before": {"text": "old"}, "after": {"text": "new, as the service keeps it"}}


def test_a_refusal_while_reading_fails_the_task_before_anything_is_sent():
    client, adapter = scripted(make_response(200, {"missing": True}))
    with pytest.raises(TaskFailure) as failed:
        Note(ResourceTask(client), "new").run()
    assert failed.value.msg == "project p-1 has no note n-1. Nothing was changed"
    assert methods(adapter) == ["GET"] and failed.value.result["changed"] is False


def test_a_failed_change_says_what_failed_and_that_nothing_was_changed():
    client, adapter = scripted(make_response(200, {"text": "old"}), make_response(403, {"message": "not yours"}))
    with pytest.raises(TaskFailure) as failed:
        Note(ResourceTask(client), "new").run()
    assert failed.value.msg.startswith("Setting the note failed: ") and "not yours" in failed.value.msg
    assert failed.value.msg.endswith(". Nothing was changed") and methods(adapter) == ["GET", "PUT"]


def test_create_or_adopt_takes_a_duplicate_refused_in_its_own_words_as_another_runs():
    client, adapter = scripted(make_response(409, {"message": "is invited already"}))
    writer = Note(ResourceTask(client), "x")
    data, found = writer.create_or_adopt("/invitations", {"email": "a@b.c"}, "the invitation of a@b.c",
                                         lambda: Found({"email": "a@b.c"}, ours=True), duplicate_status=409,
                                         by_another_run=lambda item: "%s was invited by another run" % item["email"])
    assert data is None and found.ours is False and found.item == {"email": "a@b.c"}
    assert writer.task.warnings == ["a@b.c was invited by another run"] and methods(adapter) == ["POST"]


def test_create_or_adopt_without_that_status_fails_and_is_not_sent_again():
    client, adapter = scripted(make_response(409, {"message": "is invited already"}))
    writer = Note(ResourceTask(client), "x")
    with pytest.raises(TaskFailure):
        writer.create_or_adopt("/invitations", {"email": "a@b.c"}, "the invitation of a@b.c",
                               lambda: Found({"email": "a@b.c"}, ours=True))
    assert methods(adapter) == ["POST"] and writer.task.warnings == []


def test_create_or_adopt_answered_is_the_answer():
    client, adapter = scripted(make_response(201, {"id": "g-1"}))
    writer = Note(ResourceTask(client), "x")
    assert writer.create_or_adopt("/grants", {}, "the grant", lambda: None) == ({"id": "g-1"}, None)
    assert methods(adapter) == ["POST"]


def test_delete_takes_404_as_done_by_another_run():
    client, adapter = scripted(make_response(404, {"message": "not found"}))
    writer = Note(ResourceTask(client), "x")
    assert writer.delete(PATH, "Removing the note", gone="The note was removed by another run") == (False, None)
    assert writer.task.warnings == ["The note was removed by another run"] and writer.task.changed is False
    assert methods(adapter) == ["DELETE"]


def test_delete_fails_on_any_other_refusal_naming_what_failed():
    client, _adapter = scripted(make_response(403, {"message": "not yours"}))
    writer = Note(ResourceTask(client), "x")
    with pytest.raises(TaskFailure) as failed:
        writer.delete(PATH, "Removing the note")
    assert failed.value.msg.startswith("Removing the note failed: ") and "not yours" in failed.value.msg


def test_delete_answered_is_done_with_its_answer():
    client, _adapter = scripted(make_response(200, {"id": "n-1"}))
    assert Note(ResourceTask(client), "x").delete(PATH, "Removing the note") == (True, {"id": "n-1"})


def test_task_result_adds_warnings_and_the_diff_only_when_there_are_some():
    assert task_result({"changed": False}) == {"changed": False}
    assert task_result({"changed": True}, ["careful"], True, {"a": 1}, {"a": 2}) == {
        "changed": True, "warnings": ["careful"], "diff": {"before": {"a": 1}, "after": {"a": 2}}}
