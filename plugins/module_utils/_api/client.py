# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""HTTP client for the Neon control-plane API v2 (private to this collection).

Nothing here knows about Ansible: every failure is raised as NeonAPIError, and one place
(_module.py) turns it into fail_json. The retry policy, the decoding of answers and the
wording of request failures live here; the wire itself is _api/transport.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import email.utils
import json
import math
import random
import time
import uuid

try:
    from urllib.parse import quote, urlencode, urlsplit
except ImportError:  # pragma: no cover - Python 2 is not supported, keeps the import sanity test quiet
    from urllib import quote, urlencode  # type: ignore
    from urlparse import urlsplit  # type: ignore

from ansible_collections.neon.cloud.plugins.module_utils._api.errors import AUTH_HINT, NeonAPIError, UnexpectedAnswer
from ansible_collections.neon.cloud.plugins.module_utils._api.pacing import Pace
from ansible_collections.neon.cloud.plugins.module_utils._api.redaction import SecretScrubber, one_line
from ansible_collections.neon.cloud.plugins.module_utils._api.transport import (
    DEFAULT_API_URL,
    HAS_REQUESTS,
    REQUESTS_IMPORT_ERROR,
    Transport,
    TransportError,
)

COLLECTION_VERSION = "1.0.0"
USER_AGENT = "neon.cloud-ansible/%s" % COLLECTION_VERSION

# Retry policy (docs/docsite/rst/api-behaviour.rst): 423 (project locked), 429 (rate limit) and 503 mean the
# request was not carried out, so any method may repeat it. 500/502/504 and network errors
# after the request was sent leave it unknown whether a POST or DELETE happened: only GET
# repeats those.
RETRY_ANY_METHOD = frozenset((423, 429, 503))
RETRY_IDEMPOTENT_ONLY = frozenset((500, 502, 504))
IDEMPOTENT_METHODS = frozenset(("GET", "HEAD"))

BACKOFF_BASE = 0.5
BODY_EXCERPT_CHARS = 200
# No answer of this API nests deeper than a few levels; a deeper one is refused before any code
# (or Ansible's own result handling, which recurses) walks it.
ANSWER_DEPTH_MAX = 32

__all__ = ["DEFAULT_API_URL", "HAS_REQUESTS", "REQUESTS_IMPORT_ERROR", "NeonClient", "NeonAPIError",
           "api_path", "project_path", "query_string"]


class PathParameterError(ValueError):
    """A path parameter that would make a request reach another endpoint."""


def api_path(*segments):
    """Join path segments, URL-encoding each one completely (``/`` and ``:`` included).

    A segment that is empty, ``.`` or ``..`` would make the request reach another endpoint
    (``/projects/../api_keys``), so it is refused.
    """
    for segment in segments:
        if str(segment) in ("", ".", ".."):
            raise PathParameterError("a path parameter must not be empty, '.' or '..', got %r" % (segment,))
    return "/" + "/".join(quote(str(segment), safe="") for segment in segments)


def project_path(project_id, *more):
    """The path of a project, or of something below it (``project_path(p, "branches", b)``)."""
    return api_path("projects", project_id, *more)


def query_string(params):
    """Encode query parameters with %-escapes (``:`` becomes ``%3A``), dropping None values."""
    pairs = [(key, value) for key, value in (params or {}).items() if value is not None]
    return urlencode(pairs, quote_via=quote)


def parse_retry_after(value, now=None):
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        seconds = None
    if seconds is not None:
        return None if math.isnan(seconds) else max(0.0, seconds)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    now = time.time() if now is None else now
    try:
        return max(0.0, when.timestamp() - now)
    except (OverflowError, ValueError, OSError):
        return None


def backoff_delay(attempt, max_delay, rand=random.random):
    """Exponential backoff with jitter: attempt 1 waits up to 0.5 s, then 1, 2, 4 ... capped."""
    ceiling = min(max_delay, BACKOFF_BASE * (2 ** (attempt - 1)))
    return ceiling / 2.0 + rand() * ceiling / 2.0


def decode_json(body):
    """The JSON value of ``body`` (bytes), or raise ValueError; a too deeply nested one too."""
    try:
        value = json.loads(body.decode("utf-8"))
    except RecursionError:
        raise ValueError("nested too deeply")
    if too_deep(value):
        raise ValueError("nested too deeply")
    return value


_CONTAINERS = (dict, list)
_CONTAINER_TYPES = frozenset(_CONTAINERS)


def too_deep(value, limit=ANSWER_DEPTH_MAX):
    """Whether ``value`` nests lists and objects more than ``limit`` levels (no recursion).

    A level at a time; an object or list without containers in it is passed over by a test
    that runs in C (most items of a page are flat objects).
    """
    level = [value] if type(value) in _CONTAINER_TYPES else []
    depth = 1
    while level:
        if depth > limit:
            return True
        children = []
        for item in level:
            values = item.values() if isinstance(item, dict) else item
            if not _CONTAINER_TYPES.isdisjoint(map(type, values)):
                children.extend([child for child in values if type(child) in _CONTAINER_TYPES])
        level = children
        depth += 1
    return False


class NeonClient:
    """A small client on one HTTP session (one pooled connection per host).

    ``request`` answers the decoded JSON of a 2xx answer or raises NeonAPIError. ``scrubber``
    knows every secret the client holds (the key it authenticates with, keys it created), so
    that no message built from an answer repeats one.
    """

    def __init__(self, api_key, api_url=DEFAULT_API_URL, timeout=30.0, validate_certs=True, ca_path=None,
                 retries=5, retry_max_delay=30.0, sleep=time.sleep, clock=time.monotonic, session=None,
                 rate_limit=None, pace=None):
        if not HAS_REQUESTS:
            raise NeonAPIError(None, None, "the Python library 'requests' is required: %s" % REQUESTS_IMPORT_ERROR)
        self.api_url = (api_url or DEFAULT_API_URL).rstrip("/")
        self.timeout = timeout
        self.retries = max(0, int(retries))
        self.retry_max_delay = retry_max_delay
        self.sleep = sleep
        self.clock = clock
        self.requests_made = 0
        self.changes_sent = 0  # requests other than GET that left: whatever their answer, they may have changed something
        self._fallback_key = None
        # One pace for every process using this key here (_api/pacing.py); None: not paced (rate_limit 0 or None).
        self.pace = pace if pace is not None else (
            Pace(self.api_url, api_key, rate_limit, sleep=sleep) if rate_limit else None)
        self.scrubber = SecretScrubber([api_key])
        self.transport = Transport(api_key, self.api_url, timeout, validate_certs=validate_certs, ca_path=ca_path,
                                   session=session)
        if self.transport.proxy:
            self.scrubber.add(urlsplit(self.transport.proxy).password)
        self.session = self.transport.session
        self.session.headers.update({
            "Accept": "application/json",
            "Accept-Encoding": "gzip, deflate",
            "User-Agent": USER_AGENT,
        })

    def use_api_key(self, api_key):
        """Authenticate the following requests with another key (after rotating the current one)."""
        self.remember_secret(api_key)
        self.transport.use_api_key(api_key)

    def fall_back_to(self, api_key):
        """Go on with ``api_key`` once the service refuses the current key (HTTP 401).

        A rotation may revoke the very key the task authenticates with; the requests after that
        continue with the key it created. A 401 means nothing was carried out, so the refused
        request is simply sent again with the new key.
        """
        self.remember_secret(api_key)
        self._fallback_key = api_key

    def remember_secret(self, secret, pieces=True):
        """A secret that no message may show from now on (a key created by this task); ``pieces`` False: hidden
        whole only (redaction.py, SecretScrubber.add)."""
        self.scrubber.add(secret, pieces)

    def close(self):
        self.transport.close()

    def get(self, path, params=None, deadline=None):
        return self.request("GET", path, params=params, deadline=deadline)

    def post(self, path, body):
        return self.request("POST", path, body=body)

    def delete(self, path):
        return self.request("DELETE", path)

    def request(self, method, path, params=None, body=None, deadline=None, retry_locked=True, no_content=False):
        """Send one API request, retrying what is safe to retry.

        ``deadline`` (a ``self.clock`` value) stops retrying when the next wait would pass it,
        so that a caller with its own time limit is never held past it by more than one request
        (at most ``timeout`` seconds). ``retry_locked=False`` leaves an HTTP 423 to the caller,
        which waits for the project's operations instead of guessing a delay (_resources/task.py).
        ``no_content=True`` says the operation's documented success carries nothing (no content,
        or the document's empty object): an empty 2xx body is then its success, answered as None
        (docs/docsite/rst/api-behaviour.rst, "Successes without a body").
        """
        method = method.upper()
        query = query_string(params)
        shown_path = path + ("?" + query if query else "")
        url = self.api_url + shown_path
        headers = {"Content-Type": "application/json"} if body is not None else {}
        data = json.dumps(body) if body is not None else None
        started = self.clock()
        attempt = 0
        while True:
            attempt += 1
            request_id = str(uuid.uuid4())
            headers["X-Request-ID"] = request_id
            self._wait_turn(deadline)
            try:
                return self._attempt(method, url, shown_path, headers, data, request_id, no_content)
            except NeonAPIError as error:
                if error.status == 401 and self._fallback_key is not None:
                    self.use_api_key(self._fallback_key)
                    self._fallback_key = None
                    continue
                delay = backoff_delay(attempt, self.retry_max_delay)
                if error.retry_after is not None:
                    delay = min(self.retry_max_delay, error.retry_after)
                if error.status == 429 and self.pace is not None:
                    # Every process sharing the key pauses too, not only this one (and whether or not it retries).
                    self.pace.hold(delay)
                if attempt > self.retries or not self._may_retry(method, error) or (
                        error.status == 423 and not retry_locked):
                    raise error.gave_up(attempt, self.clock() - started)
                if deadline is not None and self.clock() + delay >= deadline:
                    raise error.gave_up(attempt, self.clock() - started)
                self.sleep(delay)

    def _wait_turn(self, deadline):
        """Wait for this request's turn in the key's shared pace: at most api_retry_max_delay, the longest pause
        before any attempt. A turn past ``deadline`` is not waited for: the request goes at once, so that the
        caller's time limit holds as it did without the pace (a 429 that comes of it is retried as any 429)."""
        if self.pace is None:
            return
        if deadline is not None and deadline - self.clock() < self.retry_max_delay:
            self.pace.take(max(0.0, deadline - self.clock()), late=0.0)
        else:
            self.pace.take(self.retry_max_delay)

    @staticmethod
    def _may_retry(method, error):
        if error.status in RETRY_ANY_METHOD:
            return True
        if error.status is None and error.retryable and not error.ambiguous:
            return True  # the request never left: safe for any method
        if method in IDEMPOTENT_METHODS:
            return error.retryable
        return False

    def _attempt(self, method, url, shown_path, headers, data, request_id, no_content=False):
        """One HTTP exchange: the decoded answer, or NeonAPIError."""
        self.requests_made += 1
        if method != "GET":
            self.changes_sent += 1
        try:
            answer = self.transport.exchange(method, url, headers, data)
        except TransportError as failure:
            raise self._transport_error(method, shown_path, failure, request_id)
        reply_id = self._safe(answer.headers.get("x-neon-ret-request-id") or "", 100) or None
        if not 200 <= answer.status < 300:
            error = self._status_error(method, shown_path, answer, reply_id, request_id)
            error.retry_after = parse_retry_after(answer.headers.get("Retry-After"))
            raise error
        if answer.status == 204:
            # No Content: a DELETE of a branch, compute, role or database that is already gone
            # (docs/docsite/rst/api-behaviour.rst); there is no body to decode.
            return None
        if no_content and not answer.body.strip():
            # An operation whose documented success has no body (the VPC endpoint assignments, a backup
            # schedule's PUT): the empty answer is the success. Only there: where the document promises
            # content, an empty body is a lost answer (a CDN's, a cut proxy's) and stays an error below.
            return None
        try:
            return decode_json(answer.body)
        except ValueError as exc:
            reply_id = reply_id or request_id
            if str(exc) == "nested too deeply":
                raise UnexpectedAnswer(method, shown_path, "the JSON", "is nested more than %d levels deep" %
                                       ANSWER_DEPTH_MAX, status=answer.status, request_id=reply_id)
            # A CDN hiccup or a cut connection: a GET may simply be asked again; a POST or
            # DELETE was carried out, so its caller must find out what happened instead.
            text = self._excerpt(answer.body)
            raise NeonAPIError(method, shown_path, "HTTP %s but the body is not valid JSON: %s" % (
                answer.status, text or "(empty body)"), status=answer.status, request_id=reply_id, retryable=True,
                ambiguous=method not in IDEMPOTENT_METHODS, body_excerpt=text)

    # ------------------------------------------------------------------------------------------ wording

    def _safe(self, text, limit):
        """Text from the answer, safe to print: one line, bounded, escaped, no secret."""
        return self.scrubber.scrub(one_line(text, limit))

    def _excerpt(self, body):
        return self._safe(body[:BODY_EXCERPT_CHARS * 8].decode("utf-8", "replace"), BODY_EXCERPT_CHARS)

    def _status_error(self, method, path, answer, reply_id, request_id):
        """The NeonAPIError of a non-2xx answer, with the service's message when it sent one."""
        try:
            payload = decode_json(answer.body) if answer.body.strip() else None
        except ValueError:
            payload = None
        code = api_message = None
        if isinstance(payload, dict):
            code = payload.get("code") if isinstance(payload.get("code"), str) else None
            api_message = payload.get("message")
            if api_message is not None and not isinstance(api_message, str):
                api_message = json.dumps(api_message)
            if not reply_id and isinstance(payload.get("request_id"), str):
                reply_id = self._safe(payload["request_id"], 100) or None
        body_excerpt = None
        if api_message:
            api_message = self._safe(api_message, 300)
            code = self._safe(code, 60) if code else code
            detail = api_message
        elif answer.body.strip():
            body_excerpt = self._excerpt(answer.body)
            detail = "the service answered a body that is not a JSON error: %s" % body_excerpt
        else:
            detail = "the service answered an empty body"
        if answer.status == 401 and AUTH_HINT not in detail:
            detail = "%s (%s)" % (detail, AUTH_HINT)
        # A gateway error on a POST or DELETE does not say whether the service carried it out;
        # after a 504 it may still be doing so (the gateway stopped waiting, not the service).
        ambiguous = method not in IDEMPOTENT_METHODS and answer.status in RETRY_IDEMPOTENT_ONLY
        return NeonAPIError(
            method, path, "HTTP %s: %s" % (answer.status, detail), status=answer.status, code=code,
            api_message=api_message, request_id=reply_id or request_id,
            retryable=answer.status in RETRY_ANY_METHOD or answer.status in RETRY_IDEMPOTENT_ONLY,
            ambiguous=ambiguous, in_flight=ambiguous and answer.status == 504, body_excerpt=body_excerpt)

    def _transport_error(self, method, path, failure, request_id):
        """The NeonAPIError of an exchange that gave no complete answer (TransportError)."""
        idempotent = method in IDEMPOTENT_METHODS
        # A certificate refused, an answer too large or in an encoding we did not ask for:
        # asking again gives the same. Anything else on the network may heal.
        retryable = failure.kind not in ("certificate", "too_large", "encoding", "invalid")
        ambiguous = not idempotent and failure.sent
        return NeonAPIError(
            method, path, self._safe(failure.detail, 600), status=failure.status, request_id=request_id,
            retryable=retryable, ambiguous=ambiguous,
            # no answer at all in time: the service may still be carrying the request out
            in_flight=ambiguous and failure.kind == "timeout" and not failure.answered)
