# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""HTTP client for the Neon control-plane API v2 (private to this collection).

Nothing here knows about Ansible: every failure is raised as NeonAPIError, and
one place (_module.py) turns it into fail_json.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import email.utils
import ipaddress
import json
import random
import re
import time
import uuid

try:
    from urllib.parse import quote, urlencode, urlsplit
except ImportError:  # pragma: no cover - Python 2 is not supported, keeps the import sanity test quiet
    from urllib import quote, urlencode  # type: ignore
    from urlparse import urlsplit  # type: ignore

try:
    import requests
    HAS_REQUESTS = True
    REQUESTS_IMPORT_ERROR = None
except ImportError as exc:  # pragma: no cover - exercised by the import sanity test
    requests = None
    HAS_REQUESTS = False
    REQUESTS_IMPORT_ERROR = exc

COLLECTION_VERSION = "1.0.0"
DEFAULT_API_URL = "https://console.neon.tech/api/v2"
USER_AGENT = "neon.cloud-ansible/%s" % COLLECTION_VERSION

# Retry policy (real-api-notes.md): 423 (project locked), 429 (rate limit) and 503 mean the
# request was not carried out, so any method may repeat it. 500/502/504 and network errors
# after the request was sent leave it unknown whether a POST or DELETE happened: only GET
# repeats those.
RETRY_ANY_METHOD = frozenset((423, 429, 503))
RETRY_IDEMPOTENT_ONLY = frozenset((500, 502, 504))
IDEMPOTENT_METHODS = frozenset(("GET", "HEAD"))

BACKOFF_BASE = 0.5
BODY_EXCERPT_CHARS = 200
AUTH_HINT = "the API key is missing, invalid or revoked"
NOT_REPEATED_NOTE = "; the request may have been carried out, so it was not repeated"


class NeonAPIError(Exception):
    """A request that did not give a usable answer.

    ``retryable`` tells a caller that keeps trying (operation_wait) whether the fault may
    heal by itself; ``ambiguous`` says a non-idempotent request may have been carried out.
    ``in_flight`` says no answer came within the timeout: the service may still be carrying
    the request out, so a listing made now cannot prove that it was not.
    """

    in_flight = False

    def __init__(self, message, method=None, path=None, status=None, code=None, api_message=None,
                 request_id=None, attempts=1, elapsed=None, retryable=False, ambiguous=False,
                 body_excerpt=None):
        super(NeonAPIError, self).__init__(message)
        self.message = message
        self.method = method
        self.path = path
        self.status = status
        self.code = code
        self.api_message = api_message
        self.request_id = request_id
        self.attempts = attempts
        self.elapsed = elapsed
        self.retryable = retryable
        self.ambiguous = ambiguous
        self.body_excerpt = body_excerpt

    def __str__(self):
        return self.message

    def to_dict(self):
        return {
            "status": self.status,
            "method": self.method,
            "path": self.path,
            "code": self.code,
            "message": self.api_message,
            "request_id": self.request_id,
            "attempts": self.attempts,
            "retryable": self.retryable,
            "ambiguous": self.ambiguous,
            "body_excerpt": self.body_excerpt,
        }


def api_path(*segments):
    """Join path segments, URL-encoding each one completely (``/`` and ``:`` included)."""
    return "/" + "/".join(quote(str(segment), safe="") for segment in segments)


def query_string(params):
    """Encode query parameters with %-escapes (``:`` becomes ``%3A``), dropping None values."""
    pairs = [(key, value) for key, value in (params or {}).items() if value is not None]
    return urlencode(pairs, quote_via=quote)


# An answer can hold a secret: POST /api_keys answers the new key's secret in "key" (a cut or
# malformed answer is shown as an excerpt), and a proxy's error page may echo the Authorization
# header. Excerpts never carry them, whole or cut.
SECRET_PATTERNS = (
    (re.compile(r"""(["']key["']\s*:\s*["']?)[^"',}\s]*"""), r"\1<redacted>"),
    (re.compile(r"""(Bearer\s+)[^\s"'<>,;]+""", re.IGNORECASE), r"\1<redacted>"),
)


def excerpt(text, limit=BODY_EXCERPT_CHARS):
    text = " ".join((text or "").split())
    for pattern, replacement in SECRET_PATTERNS:
        text = pattern.sub(replacement, text)
    if len(text) > limit:
        return text[:limit] + "..."
    return text


def parse_retry_after(value, now=None):
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    now = time.time() if now is None else now
    return max(0.0, when.timestamp() - now)


def backoff_delay(attempt, max_delay, rand=random.random):
    """Exponential backoff with jitter: attempt 1 waits up to 0.5 s, then 1, 2, 4 ... capped."""
    ceiling = min(max_delay, BACKOFF_BASE * (2 ** (attempt - 1)))
    return ceiling / 2.0 + rand() * ceiling / 2.0


def _json_or_none(text):
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: absurdly nested JSON
        return None


def describe_error(method, path, status, body_text, request_id, fallback_id=None):
    """Build the NeonAPIError for a non-2xx answer.

    The request id shown is the service's (header, else body), else our own ``fallback_id``.
    """
    payload = _json_or_none(body_text) if body_text else None
    code = api_message = None
    if isinstance(payload, dict):
        code = payload.get("code")
        api_message = payload.get("message")
        request_id = request_id or payload.get("request_id")
        if api_message is not None and not isinstance(api_message, str):
            api_message = json.dumps(api_message)
    request_id = request_id or fallback_id
    body_excerpt = None
    if api_message:
        detail = api_message
    elif body_text and body_text.strip():
        body_excerpt = excerpt(body_text)
        detail = "the service answered a body that is not a JSON error: %s" % body_excerpt
    else:
        detail = "the service answered an empty body"
    if status == 401 and AUTH_HINT not in detail:
        detail = "%s (%s)" % (detail, AUTH_HINT)
    message = "%s %s failed: HTTP %s: %s" % (method, path, status, detail)
    if request_id:
        message += " (request id %s)" % request_id
    # A gateway error on a POST or DELETE does not say whether the service carried it out.
    ambiguous = method not in IDEMPOTENT_METHODS and status in RETRY_IDEMPOTENT_ONLY
    if ambiguous:
        message += NOT_REPEATED_NOTE
    error = NeonAPIError(
        message, method=method, path=path, status=status, code=code, api_message=api_message,
        request_id=request_id,
        retryable=status in RETRY_ANY_METHOD or status in RETRY_IDEMPOTENT_ONLY,
        ambiguous=ambiguous, body_excerpt=body_excerpt,
    )
    # 504: the gateway stopped waiting, not the service, which may still be carrying the request
    # out - like our own read timeout, a listing made now cannot prove it was not.
    error.in_flight = ambiguous and status == 504
    return error


def _was_never_sent(exc):
    """True when a connection error happened before any byte of the request left."""
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return True
    text = repr(exc)
    return any(marker in text for marker in ("NewConnectionError", "Connection refused", "NameResolutionError",
                                             "Failed to resolve", "Name or service not known"))


class NeonClient:
    """A small client on one ``requests.Session`` (one pooled connection per host).

    ``request`` answers the decoded JSON of a 2xx answer or raises NeonAPIError.
    """

    def __init__(self, api_key, api_url=DEFAULT_API_URL, timeout=30.0, validate_certs=True,
                 retries=5, retry_max_delay=30.0, sleep=time.sleep, clock=time.monotonic,
                 session=None):
        if not HAS_REQUESTS:
            raise NeonAPIError("the Python library 'requests' is required: %s" % REQUESTS_IMPORT_ERROR)
        self.api_url = (api_url or DEFAULT_API_URL).rstrip("/")
        self.timeout = timeout
        self.retries = max(0, int(retries))
        self.retry_max_delay = retry_max_delay
        self.sleep = sleep
        self.clock = clock
        self.requests_made = 0
        self.session = session or requests.Session()
        self.session.verify = validate_certs
        self.session.headers.update({
            "Authorization": "Bearer %s" % api_key,
            "Accept": "application/json",
            "User-Agent": USER_AGENT,
        })
        # requests rewrites the Authorization header itself on redirects to another host;
        # the API never redirects, so every request is sent with allow_redirects=False and a
        # 3xx answer is reported as it is. (max_redirects = 0 would turn it into a bare
        # TooManyRedirects "connection failed: Exceeded 0 redirects" without the status.)

    def use_api_key(self, api_key):
        """Authenticate the following requests with another key (after rotating the current one)."""
        self.session.headers["Authorization"] = "Bearer %s" % api_key

    def close(self):
        self.session.close()

    def get(self, path, params=None, deadline=None):
        return self.request("GET", path, params=params, deadline=deadline)

    def post(self, path, body):
        return self.request("POST", path, body=body)

    def delete(self, path):
        return self.request("DELETE", path)

    def request(self, method, path, params=None, body=None, deadline=None):
        """Send one API request, retrying what is safe to retry.

        ``deadline`` (a ``self.clock`` value) stops retrying when the next wait would pass it,
        so that a caller with its own time limit is never held past it by more than one request
        (at most ``timeout`` seconds).
        """
        method = method.upper()
        query = query_string(params)
        url = self.api_url + path + ("?" + query if query else "")
        shown_path = path + ("?" + query if query else "")
        headers = {"Content-Type": "application/json"} if body is not None else {}
        data = json.dumps(body) if body is not None else None
        started = self.clock()
        attempt = 0
        while True:
            attempt += 1
            request_id = str(uuid.uuid4())
            headers["X-Request-ID"] = request_id
            error, retry_after = self._attempt(method, url, shown_path, headers, data, request_id)
            if not isinstance(error, NeonAPIError):
                return error  # the decoded answer
            if attempt > self.retries or not self._may_retry(method, error):
                raise self._final(error, attempt, self.clock() - started)
            delay = backoff_delay(attempt, self.retry_max_delay)
            if retry_after is not None:
                delay = min(self.retry_max_delay, max(retry_after, 0.0))
            if deadline is not None and self.clock() + delay >= deadline:
                raise self._final(error, attempt, self.clock() - started)
            self.sleep(delay)

    @staticmethod
    def _may_retry(method, error):
        if error.status in RETRY_ANY_METHOD:
            return True
        if error.status is None and error.retryable and not error.ambiguous:
            return True  # the request never left: safe for any method
        if method in IDEMPOTENT_METHODS:
            return error.retryable
        return False

    @staticmethod
    def _final(error, attempts, elapsed):
        if attempts > 1:
            error.attempts = attempts
            error.elapsed = round(elapsed, 3)
            error.message += "; gave up after %d attempts over %.1f s" % (attempts, elapsed)
            error.args = (error.message,)
        return error

    def _attempt(self, method, url, shown_path, headers, data, request_id):
        """One HTTP exchange: the decoded answer, or (NeonAPIError, retry_after seconds)."""
        self.requests_made += 1
        try:
            response = self.session.request(method, url, headers=headers, data=data, timeout=self.timeout,
                                            allow_redirects=False)
        except requests.exceptions.RequestException as exc:
            return self._network_error(method, shown_path, exc, self.timeout, request_id), None
        header_id = response.headers.get("x-neon-ret-request-id")
        reply_id = header_id or request_id
        text = response.text
        if not 200 <= response.status_code < 300:
            error = describe_error(method, shown_path, response.status_code, text, header_id, request_id)
            return error, parse_retry_after(response.headers.get("Retry-After"))
        try:
            return json.loads(text), None
        except (ValueError, RecursionError):
            # A CDN hiccup or a cut connection: a GET may simply be asked again; a POST or
            # DELETE was carried out, so its caller must find out what happened instead.
            ambiguous = method not in IDEMPOTENT_METHODS
            message = "%s %s failed: HTTP %s but the body is not valid JSON: %s (request id %s)" % (
                method, shown_path, response.status_code, excerpt(text) or "(empty body)", reply_id)
            if ambiguous:
                message += NOT_REPEATED_NOTE
            return NeonAPIError(message, method=method, path=shown_path, status=response.status_code,
                                request_id=reply_id, retryable=True, ambiguous=ambiguous,
                                body_excerpt=excerpt(text)), None

    @staticmethod
    def _network_error(method, shown_path, exc, timeout, request_id):
        never_sent = _was_never_sent(exc)
        if isinstance(exc, requests.exceptions.Timeout) and not never_sent:
            what = "no answer within %s s (api_timeout)" % timeout
        elif never_sent:
            what = "could not connect: %s" % type(exc).__name__
        else:
            what = "the connection failed: %s" % excerpt(str(exc), 160)
        retryable = isinstance(exc, (requests.exceptions.ConnectionError, requests.exceptions.Timeout))
        ambiguous = method not in IDEMPOTENT_METHODS and not never_sent
        message = "%s %s failed: %s (request id %s)" % (method, shown_path, what, request_id)
        if ambiguous:
            message += NOT_REPEATED_NOTE
        error = NeonAPIError(message, method=method, path=shown_path, request_id=request_id,
                             retryable=retryable, ambiguous=ambiguous)
        error.in_flight = ambiguous and isinstance(exc, requests.exceptions.Timeout)
        return error


def validate_api_url(url, allow_plain_http=False):
    """Return an error sentence for an unusable api_url, or None."""
    try:
        parts = urlsplit(url or "")
    except ValueError:  # such as an unclosed [ of an IPv6 address
        return "api_url must be an http(s) URL such as %s, got %r" % (DEFAULT_API_URL, url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "api_url must be an http(s) URL such as %s, got %r" % (DEFAULT_API_URL, url)
    if parts.scheme == "http" and not allow_plain_http and not is_loopback(parts.hostname):
        return ("api_url %s uses plain http to a host that is not this machine: the API key would cross "
                "the network in clear. Use https, or set api_allow_plain_http=true if you really mean it." % url)
    return None


def is_loopback(hostname):
    hostname = (hostname or "").lower()
    if hostname == "localhost":
        return True
    try:
        return ipaddress.ip_address(hostname).is_loopback
    except ValueError:
        return False  # a name such as 127.0.0.1.example.com can resolve anywhere
