# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What goes on the wire, and what we accept back: one HTTP exchange, bounded in time and size.

``requests`` takes several settings from the environment on its own. Each is decided here:

- Credentials: the API key is the only one ever sent. No ``~/.netrc``/``$NETRC`` (it would
  replace the Bearer header), no user:password from the URL (refused in ``check_api_url``).
- Proxies: ``HTTPS_PROXY``/``HTTP_PROXY``/``ALL_PROXY``/``NO_PROXY`` are honoured as requests
  reads them; users rely on them. A proxy that carries a plain-http request takes the key off
  this machine, so plain http to loopback is only exempt when no proxy is in the way.
- TLS: ``validate_certs`` and ``ca_path`` alone decide. ``REQUESTS_CA_BUNDLE``/``CURL_CA_BUNDLE``
  reach us only as fallbacks of ``ca_path`` and can never turn verification back on.
- Redirects: none are followed (requests would move the Authorization header around).

A request, from connecting to the last byte of its body, lasts at most ``timeout`` seconds, and
an answer (decoded) is at most ANSWER_MAX bytes, whatever the server does.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re
import socket
import threading
import zlib

try:
    from urllib.parse import urlsplit
except ImportError:  # pragma: no cover - Python 2 is not supported, keeps the import sanity test quiet
    from urlparse import urlsplit  # type: ignore

try:
    import requests
    import requests.utils
    HAS_REQUESTS = True
    REQUESTS_IMPORT_ERROR = None
except ImportError as exc:  # pragma: no cover - exercised by the import sanity test
    requests = None
    HAS_REQUESTS = False
    REQUESTS_IMPORT_ERROR = exc

from ansible_collections.neon.cloud.plugins.module_utils._api.redaction import one_line

DEFAULT_API_URL = "https://console.neon.tech/api/v2"
# The largest answer accepted, decoded. The biggest real answers are a page of 1000 operations
# or 400 projects (about 1 MB) and an account's whole key list; 16 MiB leaves room for
# accounts with tens of thousands of keys and keeps a hostile answer from exhausting memory.
ANSWER_MAX = 16 * 1024 * 1024
READ_CHUNK = 64 * 1024
_LIMIT_TEXT = "%d MiB" % (ANSWER_MAX // (1024 * 1024))


class TransportError(Exception):
    """An exchange that gave no complete answer. ``kind`` says how it failed:

    ``connect`` (nothing was sent: refused, DNS, connect timeout, proxy unreachable), ``tls``
    (handshake failed, nothing sent), ``certificate`` (the server's certificate was refused),
    ``timeout`` (no complete answer within the time limit), ``cut`` (the connection broke
    before the answer was complete), ``too_large``, ``encoding`` (an answer we cannot decode),
    ``invalid`` (requests refused to send it).
    ``answered`` is True when the service's status line arrived: it carried the request out.
    """

    def __init__(self, kind, detail, answered=False, status=None):
        super(TransportError, self).__init__(detail)
        self.kind = kind
        self.detail = detail
        self.answered = answered
        self.status = status

    @property
    def sent(self):
        """Whether the request may have reached the service."""
        return self.kind not in ("connect", "tls", "certificate", "invalid")


class Answer:
    """A complete HTTP answer: status, headers (case-insensitive) and the decoded body bytes."""

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body


# ---------------------------------------------------------------------------------------------- api_url

def shown_url(url):
    """``url`` safe to show: any user:password part replaced, one line, bounded."""
    text = re.sub(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@", r"\1<redacted>@", str(url))
    return one_line(text, 200)


def is_loopback(hostname):
    hostname = (hostname or "").lower().strip("[]")
    if hostname == "localhost":
        return True
    try:
        return ipaddress.ip_address(hostname).is_loopback
    except ValueError:
        return False  # a name such as 127.0.0.1.example.com can resolve anywhere


def environment_proxy(url):
    """The proxy URL the environment sets for ``url`` (after NO_PROXY), or None."""
    return requests.utils.select_proxy(url, requests.utils.get_environ_proxies(url)) or None


def shown_proxy(proxy):
    """A proxy URL without its credentials."""
    try:
        parts = urlsplit(proxy if "://" in proxy else "http://" + proxy)
        host = parts.hostname or "?"
        if ":" in host:
            host = "[%s]" % host
        return "%s://%s%s" % (parts.scheme, host, ":%d" % parts.port if parts.port else "")
    except ValueError:
        return "(a proxy URL that does not parse)"


def check_api_url(url, allow_plain_http=False):
    """An error sentence for an api_url we must not use, or None."""
    example = "api_url must be an http(s) URL such as %s" % DEFAULT_API_URL
    try:
        parts = urlsplit(url or "")
        port = parts.port  # raises ValueError for a port that is not a number
    except ValueError:  # such as an unclosed [ of an IPv6 address
        return "%s, got %r" % (example, shown_url(url))
    if "@" in parts.netloc:
        return ("api_url must not contain a user name or password: the API key is the only credential sent "
                "to the API. Remove the part before '@' from the host (it is not shown here)")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "%s, got %r" % (example, shown_url(url))
    del port
    if parts.scheme == "http" and not allow_plain_http:
        if not is_loopback(parts.hostname):
            return ("api_url %s uses plain http to a host that is not this machine: the API key would cross "
                    "the network in clear. Use https, or set api_allow_plain_http=true if you really mean it."
                    % shown_url(url))
        proxy = environment_proxy(url)
        if proxy is not None and not is_loopback(urlsplit(proxy if "://" in proxy else "http://" + proxy).hostname):
            return ("api_url %s uses plain http, and the environment sends it through the proxy %s (HTTP_PROXY, "
                    "ALL_PROXY): the API key would leave this machine in clear. Add %s to NO_PROXY, use https, or "
                    "set api_allow_plain_http=true if you really mean it." % (
                        shown_url(url), shown_proxy(proxy), parts.hostname))
    return None


# ---------------------------------------------------------------------------------------------- the exchange

class _BearerAuth(requests.auth.AuthBase if HAS_REQUESTS else object):
    """Sets the Authorization header last, so nothing requests derives (URL, netrc) replaces it."""

    def __init__(self, api_key):
        self.api_key = api_key

    def __call__(self, request):
        request.headers["Authorization"] = "Bearer %s" % self.api_key
        return request


class Transport:
    """One ``requests.Session`` configured on purpose (see the module docstring)."""

    def __init__(self, api_key, api_url, timeout, validate_certs=True, ca_path=None, session=None):
        self.timeout = timeout
        self.session = session or requests.Session()
        self.session.trust_env = False  # no netrc, no environment CA bundle; proxies are set below
        self.session.auth = _BearerAuth(api_key)
        self.session.verify = (ca_path or True) if validate_certs else False
        proxy = environment_proxy(api_url)
        self.session.proxies = {"http": proxy, "https": proxy} if proxy else {}
        self.proxy = proxy

    def use_api_key(self, api_key):
        self.session.auth = _BearerAuth(api_key)

    def close(self):
        self.session.close()

    def exchange(self, method, url, headers, data):
        """Send one request and read its whole answer within ``timeout`` seconds.

        The exchange runs in a worker thread: socket timeouts bound each read, not the whole,
        so a server trickling its answer would otherwise hold the task for as long as it likes.
        Past the limit the connection is shut down and the worker ends at its next read.
        """
        state = {}
        finished = threading.Event()
        cancelled = threading.Event()

        def work():
            try:
                state["answer"] = self._exchange(method, url, headers, data, state, cancelled)
            except Exception as exc:  # pylint: disable=broad-except  # handed over to the caller's thread
                state["error"] = exc
            finally:
                finished.set()

        worker = threading.Thread(target=work, name="neon-request")
        worker.daemon = True
        worker.start()
        if not finished.wait(self.timeout):
            cancelled.set()
            response = state.get("response")
            _shut_down(response)
            if response is None:
                raise TransportError("timeout", "no answer within %s s (api_timeout)" % self.timeout)
            raise TransportError("timeout", "HTTP %s, but the rest of the answer did not arrive within %s s "
                                 "(api_timeout)" % (response.status_code, self.timeout),
                                 answered=True, status=response.status_code)
        if "error" in state:
            raise classify(state["error"], state.get("response"), self.timeout)
        return state["answer"]

    def _exchange(self, method, url, headers, data, state, cancelled):
        response = self.session.request(method, url, headers=headers, data=data, timeout=self.timeout,
                                        allow_redirects=False, stream=True)
        state["response"] = response
        try:
            body = read_body(response, cancelled)
        finally:
            response.close()
        return Answer(response.status_code, response.headers, body)


def _shut_down(response):
    """Interrupt a worker blocked reading ``response`` (best effort; it is a daemon thread)."""
    raw = getattr(response, "raw", None)
    connection = getattr(raw, "_connection", None) or getattr(raw, "connection", None)
    sock = getattr(connection, "sock", None)
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except (OSError, ValueError):
            pass


def _decoder(content_encoding):
    encoding = (content_encoding or "identity").strip().lower()
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj()
    raise TransportError("encoding", "the answer uses Content-Encoding %r, which was not asked for" % one_line(
        encoding, 40), answered=True)


def _too_large(size, status):
    """``size`` completes "the answer is ...": e.g. "larger than 16 MiB"."""
    return TransportError("too_large", "HTTP %s, but the answer is %s, more than any answer of this API needs; it "
                          "was not read" % (status, size), answered=True, status=status)


def read_body(response, cancelled):
    """The decoded body, read in chunks: at most ANSWER_MAX bytes, inflated with a bound.

    requests would inflate gzip whole (a few KB can become gigabytes), so the raw bytes are read
    and inflated here with zlib's ``max_length``.
    """
    status = response.status_code
    declared = response.headers.get("Content-Length", "").strip()
    declared = int(declared) if declared.isdigit() else None
    if declared is not None and declared > ANSWER_MAX:
        raise _too_large("announced as %d bytes, larger than %s" % (declared, _LIMIT_TEXT), status)
    decoder = _decoder(response.headers.get("Content-Encoding"))
    parts = []
    size = received = 0
    while True:
        if cancelled.is_set():
            raise TransportError("timeout", "cancelled", answered=True, status=status)
        chunk = response.raw.read(READ_CHUNK, decode_content=False)
        if not chunk:
            break
        received += len(chunk)
        if received > ANSWER_MAX:
            raise _too_large("larger than %s" % _LIMIT_TEXT, status)
        while chunk:
            if decoder is None:
                data, chunk = chunk, b""
            else:
                try:
                    data = decoder.decompress(chunk, ANSWER_MAX + 1 - size)
                except zlib.error as exc:
                    raise TransportError("encoding", "HTTP %s, but the compressed answer is damaged (%s)" % (
                        status, one_line(exc, 80)), answered=True, status=status)
                chunk = decoder.unconsumed_tail
            size += len(data)
            if size > ANSWER_MAX:
                raise _too_large("larger than %s once inflated" % _LIMIT_TEXT, status)
            parts.append(data)
    if decoder is not None:
        parts.append(decoder.flush())
    if declared is not None and received < declared:
        raise TransportError("cut", "HTTP %s, but the connection closed after %d of the %d bytes announced" % (
            status, received, declared), answered=True, status=status)
    return b"".join(parts)


# ---------------------------------------------------------------------------------------------- failures

_NEVER_SENT = ("NewConnectionError", "Connection refused", "NameResolutionError", "Failed to resolve",
               "Name or service not known", "No route to host", "Network is unreachable")


def _chain(exc):
    """``exc`` and the exceptions it wraps (requests and urllib3 nest them in args and causes)."""
    seen = []
    pending = [exc]
    while pending and len(seen) < 20:
        item = pending.pop(0)
        if not isinstance(item, BaseException) or any(item is other for other in seen):
            continue
        seen.append(item)
        pending.extend([item.__cause__, item.__context__, getattr(item, "reason", None)])
        pending.extend(arg for arg in item.args if isinstance(arg, BaseException))
    return seen


def _reason(exc, limit=160):
    """The most specific reason in the chain, on one line."""
    chain = _chain(exc)
    for item in reversed(chain):
        if type(item).__name__ == "RemoteDisconnected":
            return "the server closed the connection without answering"
        text = getattr(item, "strerror", None) or getattr(item, "reason", None)
        if isinstance(text, str) and text:
            return one_line(text, limit)
    innermost = chain[-1] if chain else exc
    return one_line(str(innermost) or type(innermost).__name__, limit)


def _certificate_reason(exc):
    for item in _chain(exc):
        verify_message = getattr(item, "verify_message", None)
        if verify_message:
            return one_line(verify_message, 160)
    text = str(exc)
    match = re.search(r"certificate verify failed: ([^(\"']+)", text)
    if match:
        return one_line(match.group(1).strip(" ,;"), 160)
    if "certificate" in text.lower() or "hostname" in text.lower():
        return "certificate verify failed"
    return None


def classify(exc, response, timeout):
    """A TransportError for an exception raised while sending or reading."""
    if isinstance(exc, TransportError):
        return exc
    answered = response is not None
    status = response.status_code if answered else None
    if not HAS_REQUESTS:  # pragma: no cover
        return TransportError("connect", _reason(exc))
    if isinstance(exc, requests.exceptions.SSLError):
        reason = _certificate_reason(exc)
        if reason:
            return TransportError("certificate", (
                "the service's TLS certificate could not be verified (%s). If the service uses a certificate "
                "of your own CA, set ca_path (or NEON_CA_PATH) to that CA's bundle; only for a test service "
                "you trust, set validate_certs=false" % reason))
        return TransportError("tls", "the TLS handshake failed (%s)" % _reason(exc))
    if isinstance(exc, requests.exceptions.ProxyError):
        return TransportError("connect", "could not connect through the proxy (%s)" % _reason(exc))
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return TransportError("connect", "could not connect within %s s (api_timeout)" % timeout)
    if isinstance(exc, (requests.exceptions.InvalidURL, requests.exceptions.InvalidHeader,
                        requests.exceptions.MissingSchema, requests.exceptions.InvalidSchema)):
        return TransportError("invalid", "the request could not be made (%s)" % _reason(exc))
    text = " ".join(repr(item) for item in _chain(exc))
    if not answered and any(marker in text for marker in _NEVER_SENT):
        return TransportError("connect", "could not connect (%s)" % _reason(exc))
    if isinstance(exc, requests.exceptions.ReadTimeout) or "ReadTimeout" in text or "timed out" in text:
        if answered:
            return TransportError("timeout", "HTTP %s, but the rest of the answer did not arrive within %s s "
                                  "(api_timeout)" % (status, timeout), answered=True, status=status)
        return TransportError("timeout", "no answer within %s s (api_timeout)" % timeout)
    if answered:
        return TransportError("cut", "HTTP %s, but the connection broke before the whole answer arrived (%s)" % (
            status, _reason(exc)), answered=True, status=status)
    return TransportError("cut", "the connection failed: %s" % _reason(exc))
