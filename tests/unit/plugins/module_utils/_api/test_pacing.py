# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pace one API key shares across processes (_api/pacing.py), on injected clocks: nothing here waits,
and the other process runs before or after this one's turn, never at the same time as it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._api import pacing
from ansible_collections.neon.cloud.plugins.module_utils._api.client import NeonAPIError
from ansible_collections.neon.cloud.plugins.module_utils._api.connection import ConnectionOptionError, check_options
from ansible_collections.neon.cloud.plugins.module_utils._api.pacing import Pace, bucket_size
from ansible_collections.neon.cloud.tests.unit.plugins.module_utils.neon_fakes import FakeClock, make_client, make_response

URL = "https://api.test/api/v2"
KEY = "pq7x2m9k4t8w1z5r3c6v0b2n8j4h7g1f5d9s3a6e0u2y4i8o1l3k5m7n9p2q4r6t"
START = 1000.0
OTHER_PROCESS = r"""
import json, sys
from ansible_collections.neon.cloud.plugins.module_utils._api.pacing import Pace
folder, url, key, now, action, amount = sys.argv[1:7]
slept = []
pace = Pace(url, key, 650, folder=folder, clock=lambda: float(now), sleep=slept.append)
for _ in range(int(float(amount)) if action == "take" else 0):
    pace.take(30.0)
if action == "hold":
    pace.hold(float(amount))
print(json.dumps({"slept": slept, "shared": pace.shared, "warning": pace.warning}))
"""


def other_process(folder, action, amount, now=START, key=KEY):
    """Another process of this user using the same pace at ``now`` (its clock stands still there)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path for path in sys.path if path))
    completed = subprocess.run([sys.executable, "-c", OTHER_PROCESS, str(folder), URL, key, str(now), action,
                                str(amount)], env=env, capture_output=True, timeout=60, check=False,
                               universal_newlines=True)
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def make_pace(folder, clock, per_minute=650, key=KEY):
    return Pace(URL, key, per_minute, folder=str(folder), clock=clock, sleep=clock.sleep)


@pytest.fixture
def folder(tmp_path):
    return tmp_path / "neon-cloud-pace-test"


def test_a_burst_then_one_request_per_interval():
    assert bucket_size(650) == 40  # four seconds' worth, at most 40
    assert bucket_size(60) == 4
    assert bucket_size(6) == 1


def test_the_burst_then_the_pace(folder):
    clock = FakeClock(START)
    pace = make_pace(folder, clock)
    for _turn in range(40):
        assert pace.take(30.0) == 0
    assert clock.sleeps == []
    pace.take(30.0)
    pace.take(30.0)
    assert clock.sleeps == [pytest.approx(60.0 / 650), pytest.approx(60.0 / 650)]
    assert pace.shared and pace.warning is None


def test_two_processes_share_one_bucket(folder):
    other = other_process(folder, "take", 40)  # the other process spends the whole burst at START
    assert other["shared"] and other["slept"] == []
    clock = FakeClock(START)
    pace = make_pace(folder, clock)
    pace.take(30.0)  # this one's first request waits for the next turn: the bucket is the other's too
    assert clock.sleeps == [pytest.approx(60.0 / 650)]
    other = other_process(folder, "take", 1, now=clock.now)  # and the other's next one waits behind it
    assert other["slept"] == [pytest.approx(60.0 / 650)]


def test_a_bucket_of_another_key_is_another_file(folder):
    other_process(folder, "take", 40, key="another-key")
    clock = FakeClock(START)
    make_pace(folder, clock).take(30.0)
    assert clock.sleeps == []
    assert len(os.listdir(str(folder))) == 2


def test_a_hold_written_by_one_process_holds_another(folder):
    other_process(folder, "hold", 7.5)  # another process got a 429 with Retry-After: 7.5
    clock = FakeClock(START + 0.5)
    pace = make_pace(folder, clock)
    pace.take(30.0)
    pace.take(30.0)  # after the pause the pace starts again without a burst
    assert clock.sleeps == [pytest.approx(7.0), pytest.approx(60.0 / 650)]


def test_a_wait_is_bounded_and_does_not_push_the_pace_further(folder):
    clock = FakeClock(START)
    pace = make_pace(folder, clock, per_minute=6)  # a burst of one, then one request every 10 s
    assert pace.take(30.0) == 0
    assert pace.take(2.0) == 2.0  # its turn is 10 s away: it goes after 2 s, without a turn of its own
    assert pace.take(30.0) == pytest.approx(8.0)  # the next turn is still the one 10 s after the first


def test_neither_the_file_name_nor_its_content_holds_any_part_of_the_key(folder):
    clock = FakeClock(START)
    pace = make_pace(folder, clock)
    pace.take(30.0)
    pace.hold(3.0)
    names = os.listdir(str(folder))
    assert names == [pacing.state_name(URL, KEY)]
    with open(os.path.join(str(folder), names[0]), "rb") as handle:
        content = handle.read().decode("ascii")
    pieces = set(KEY[index:index + 6] for index in range(len(KEY) - 5))
    for text in (names[0], content, pace.path):
        assert not [piece for piece in pieces if piece in text], text
    assert sorted(json.loads(content)) == ["format", "next_turn"]
    assert oct(os.stat(str(folder)).st_mode & 0o777) == oct(0o700)
    assert oct(os.stat(pace.path).st_mode & 0o777) == oct(0o600)


def test_a_symlink_for_the_folder_is_refused_and_the_process_paces_alone(folder, tmp_path):
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    os.symlink(str(target), str(folder))
    clock = FakeClock(START)
    pace = make_pace(folder, clock, per_minute=6)
    pace.take(30.0)
    pace.take(30.0)
    assert clock.sleeps == [pytest.approx(10.0)]  # still paced, in this process
    assert not pace.shared
    assert "alone" in pace.warning and str(folder) in pace.warning and "symlink" in pace.warning
    assert os.listdir(str(target)) == []


def test_a_folder_others_may_write_is_refused(folder):
    folder.mkdir(mode=0o700)
    os.chmod(str(folder), 0o777)  # as a hostile user leaves it after making it first
    pace = make_pace(folder, FakeClock(START))
    pace.take(30.0)
    assert not pace.shared and "mode 777" in pace.warning
    assert os.listdir(str(folder)) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="making a folder of another user needs root")
def test_a_folder_of_another_user_is_refused(folder):
    folder.mkdir(mode=0o700)
    os.chown(str(folder), 65534, 65534)
    pace = make_pace(folder, FakeClock(START))
    pace.take(30.0)
    assert not pace.shared and "another user (uid 65534)" in pace.warning
    assert os.listdir(str(folder)) == []


def test_a_symlink_for_the_file_is_refused(folder, tmp_path):
    folder.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    victim.write_text("not the pace's")
    os.symlink(str(victim), os.path.join(str(folder), pacing.state_name(URL, KEY)))
    pace = make_pace(folder, FakeClock(START))
    pace.take(30.0)
    assert not pace.shared and "symlink" in pace.warning
    assert victim.read_text() == "not the pace's"


def test_without_fcntl_each_process_paces_alone_without_a_warning(folder, monkeypatch):
    monkeypatch.setattr(pacing, "fcntl", None)
    clock = FakeClock(START)
    pace = make_pace(folder, clock, per_minute=6)
    pace.take(30.0)
    pace.take(30.0)
    assert clock.sleeps == [pytest.approx(10.0)]
    assert not pace.shared and pace.warning is None
    assert not folder.exists()


# ---------------------------------------------------------------------------------------------- the client


def paced_client(folder, clock, answers, per_minute=650, **kwargs):
    """A client whose pace is kept in ``folder`` on ``clock``; it sends ``answers`` in order."""
    answers = list(answers)
    sent = []

    def handler(request):
        sent.append(request.method)
        return answers.pop(0)

    pace = Pace(URL, KEY, per_minute, folder=str(folder), clock=clock, sleep=clock.sleep)
    client, _adapter = make_client(handler, clock=clock, pace=pace, **kwargs)
    return client, sent


def test_a_429_holds_every_client_of_the_key_not_only_the_one_that_got_it(folder):
    clock = FakeClock(START)
    limited = make_response(429, {"code": "", "message": "too many requests"}, headers={"Retry-After": "7"})
    first, _sent = paced_client(folder, clock, [limited], retries=0)
    with pytest.raises(NeonAPIError):
        first.get("/projects")
    assert clock.sleeps == []
    second, _sent = paced_client(folder, clock, [make_response(200, {"projects": []})])
    assert second.get("/projects") == {"projects": []}
    assert clock.sleeps == [pytest.approx(7.0)]  # the second client's request waited out the first's 429


def test_the_pace_holds_a_request_no_longer_than_api_retry_max_delay(folder):
    other_process(folder, "hold", 600)  # another process asked for a pause far longer than this task waits
    clock = FakeClock(START)
    client, sent = paced_client(folder, clock, [make_response(200, {"projects": []})], retry_max_delay=4.0)
    client.get("/projects")
    assert clock.sleeps == [pytest.approx(4.0)] and sent == ["GET"]


def test_a_post_waits_for_its_turn_and_is_sent_once(folder):
    clock = FakeClock(START)
    client, sent = paced_client(folder, clock, [make_response(200, {"projects": []}),
                                                make_response(502, {"message": "bad gateway"})], per_minute=6)
    client.get("/projects")
    with pytest.raises(NeonAPIError):
        client.post("/api_keys", {"key_name": "ci"})
    assert sent == ["GET", "POST"]  # a 502 on a POST is never repeated, paced or not
    assert clock.sleeps == [pytest.approx(10.0)]  # the POST waited for its turn, before it was sent


def test_a_turn_past_the_deadline_of_a_wait_is_not_waited_for(folder):
    clock = FakeClock(START)
    client, sent = paced_client(folder, clock, [make_response(200, {"operations": []})] * 3, per_minute=6)
    client.get("/projects/p-1/operations")
    client.get("/projects/p-1/operations", deadline=clock() + 3.0)  # its turn comes in 10 s, after the deadline
    assert clock.sleeps == [] and sent == ["GET", "GET"]  # sent at once: the wait's time limit holds
    client.get("/projects/p-1/operations", deadline=clock() + 60.0)  # the turn comes first: waited for
    assert clock.sleeps == [pytest.approx(10.0)]


def test_the_rate_limit_option_is_checked():
    options = dict(api_key="k", api_url=URL, api_timeout=30.0, api_retries=5, api_retry_max_delay=30.0,
                   api_allow_plain_http=False, validate_certs=True, ca_path=None)
    for good in (0.0, 650.0, None):
        check_options(dict(options, api_rate_limit=good))
    for bad in (-1.0, float("inf"), float("nan")):
        with pytest.raises(ConnectionOptionError, match="api_rate_limit must be 0"):
            check_options(dict(options, api_rate_limit=bad))
