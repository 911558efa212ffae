# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A server that misbehaves on purpose, a forward proxy, and a throwaway certificate authority.

The simulator answers like the service, faults included; this server answers the way no
service should, at the level of bytes on the socket: headers or a body trickled for as long as
the client listens, a chunked body that never ends, bodies far too large, gzip bombs, bodies
cut short, over plain TCP or TLS. Each test scripts it with a handler: a function of the
``Request`` that returns a ``Reply``. Every request is recorded.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import select
import socket
import ssl
import subprocess
import threading
import time
import zlib

# A trickle or an endless body stops on its own after this long, whatever the client does.
MAX_TRICKLE_SECONDS = 120.0


class Request:
    def __init__(self, method, target, headers, body):
        self.method = method
        self.target = target
        self.path = target.split("?", 1)[0]
        self.headers = headers  # lower-case names
        self.body = body

    def json(self):
        return json.loads(self.body.decode("utf-8")) if self.body else None


class Reply:
    """What to send back. ``mode``:

    - ``plain``: status, headers and body at once (Content-Length unless ``length`` says otherwise)
    - ``trickle_body``: the headers at once (Content-Length ``length`` or len(body)), then the body
      ``chunk`` bytes every ``every`` seconds
    - ``trickle_headers``: the status line and headers a byte every ``every`` seconds
    - ``chunked_forever``: chunked transfer encoding, a chunk every ``every`` seconds, no end
    - ``cut``: announce ``length`` bytes, send ``body`` (fewer), close
    - ``chunked_cut``: a chunked body whose last chunk is cut mid-way, then close
    - ``close``: read the request, close without a byte
    """

    def __init__(self, status=200, body=b"", headers=None, mode="plain", length=None, chunk=1, every=0.2):
        self.status = status
        self.body = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
        self.headers = dict(headers or {})
        self.mode = mode
        self.length = length
        self.chunk = chunk
        self.every = every


def json_reply(payload, status=200, **kwargs):
    headers = dict(kwargs.pop("headers", {}), **{"Content-Type": "application/json"})
    return Reply(status, json.dumps(payload).encode("utf-8"), headers=headers, **kwargs)


_PHRASES = {200: "OK", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 500: "Internal Server Error",
            502: "Bad Gateway"}


def _read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
        if len(data) > 1024 * 1024:
            return None
    head, _sep, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, target, _version = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        name, _sep, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length") or 0)
    while len(rest) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        rest += chunk
    return Request(method, target, headers, rest[:length])


class _Listener:
    """A TCP listener on 127.0.0.1 that serves each connection in a thread of its own
    (``self._serve(conn)``) until ``close()``."""

    def __init__(self, name):
        self.connections = 0
        self._stop = threading.Event()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self._sock.settimeout(0.2)
        self.port = self._sock.getsockname()[1]
        self._name = name
        self._threads = []
        accepter = threading.Thread(target=self._accept, name=name + "-accept")
        accepter.daemon = True
        accepter.start()

    def _accept(self):
        while not self._stop.is_set():
            try:
                conn, _addr = self._sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            self.connections += 1
            thread = threading.Thread(target=self._serve, args=(conn,), name=self._name + "-conn")
            thread.daemon = True
            thread.start()
            self._threads.append(thread)

    def _serve(self, conn):
        raise NotImplementedError

    def close(self):
        self._stop.set()
        self._sock.close()
        for thread in self._threads:
            thread.join(timeout=2)


class HostileServer(_Listener):
    """A threaded HTTP/1.1 server on 127.0.0.1 (one request per connection) that does what
    ``handler(request)`` says. ``tls`` is an ``ssl.SSLContext`` to serve HTTPS; a trickle or an
    endless body stops after ``trickle_limit`` seconds."""

    def __init__(self, handler, tls=None, trickle_limit=MAX_TRICKLE_SECONDS):
        self.handler = handler
        self.tls = tls
        self.trickle_limit = trickle_limit
        self.requests = []
        self.handshakes_failed = 0
        super(HostileServer, self).__init__("hostile")

    @property
    def base_url(self):
        return "%s://127.0.0.1:%d" % ("https" if self.tls else "http", self.port)

    @property
    def url(self):
        return self.base_url + "/api/v2"

    def _serve(self, conn):
        try:
            conn.settimeout(10)
            if self.tls is not None:
                try:
                    conn = self.tls.wrap_socket(conn, server_side=True)
                except (ssl.SSLError, OSError):
                    self.handshakes_failed += 1
                    return
            request = _read_request(conn)
            if request is None:
                return
            self.requests.append(request)
            self._send(conn, self.handler(request))
        except OSError:
            pass  # the client went away: that is what clients with a time limit do
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def _pause(self, seconds, started):
        if self._stop.wait(seconds) or time.monotonic() - started > self.trickle_limit:
            raise OSError("stopped")

    def _send(self, conn, reply):
        started = time.monotonic()
        if reply.mode == "close":
            return
        headers = dict(reply.headers)
        if reply.mode in ("chunked_forever", "chunked_cut"):
            headers["Transfer-Encoding"] = "chunked"
        elif reply.mode != "trickle_headers" or reply.length is not None:
            headers["Content-Length"] = str(reply.length if reply.length is not None else len(reply.body))
        headers.setdefault("Content-Type", "application/json")
        headers["Connection"] = "close"
        head = "HTTP/1.1 %d %s\r\n%s\r\n" % (reply.status, _PHRASES.get(reply.status, "Status"), "".join(
            "%s: %s\r\n" % item for item in headers.items()))
        head = head.encode("latin-1")
        if reply.mode == "trickle_headers":
            for index in range(len(head)):
                conn.sendall(head[index:index + 1])
                self._pause(reply.every, started)
            return
        conn.sendall(head)
        if reply.mode == "plain" or reply.mode == "cut":
            conn.sendall(reply.body)
        elif reply.mode == "trickle_body":
            for index in range(0, len(reply.body), reply.chunk):
                conn.sendall(reply.body[index:index + reply.chunk])
                self._pause(reply.every, started)
        elif reply.mode == "chunked_forever":
            while True:
                conn.sendall(b"%x\r\n%s\r\n" % (len(reply.body), reply.body))
                self._pause(reply.every, started)
        elif reply.mode == "chunked_cut":
            conn.sendall(b"%x\r\n%s\r\n" % (len(reply.body), reply.body))
            conn.sendall(b"400\r\n" + b"x" * 100)


class ForwardProxy(_Listener):
    """A forward proxy on 127.0.0.1: absolute-URI plain HTTP requests and CONNECT tunnels.

    ``seen`` lists what went through it (``CONNECT host:port`` or ``GET http://...``).
    """

    def __init__(self):
        self.seen = []
        super(ForwardProxy, self).__init__("proxy")

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def _serve(self, conn):
        try:
            conn.settimeout(10)
            request = _read_request(conn)
            if request is None:
                return
            self.seen.append("%s %s" % (request.method, request.target))
            if request.method == "CONNECT":
                host, _sep, port = request.target.rpartition(":")
                upstream = socket.create_connection((host, int(port)), timeout=10)
                conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                self._pipe(conn, upstream)
                return
            # an absolute URI: forward it as it is (the test servers accept any request target)
            rest = request.target.split("://", 1)[1]
            hostport, _sep, path = rest.partition("/")
            host, _sep, port = hostport.rpartition(":")
            upstream = socket.create_connection((host, int(port)), timeout=10)
            lines = ["%s /%s HTTP/1.1" % (request.method, path)] + [
                "%s: %s" % (name, value) for name, value in request.headers.items() if name != "proxy-connection"]
            upstream.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + request.body)
            self._pipe(conn, upstream)
        except OSError:
            pass
        finally:
            conn.close()

    def _pipe(self, one, other):
        started = time.monotonic()
        try:
            while not self._stop.is_set() and time.monotonic() - started < MAX_TRICKLE_SECONDS:
                readable, _w, _x = select.select([one, other], [], [], 0.2)
                for sock in readable:
                    data = sock.recv(65536)
                    if not data:
                        return
                    (other if sock is one else one).sendall(data)
        finally:
            other.close()


class CertificateAuthority:
    """A throwaway CA and a certificate for 127.0.0.1 signed by it (openssl command line)."""

    def __init__(self, directory):
        self.directory = str(directory)
        self.ca_cert = os.path.join(self.directory, "ca.pem")
        self.server_cert = os.path.join(self.directory, "server.pem")
        self.server_key = os.path.join(self.directory, "server.key")

        def run(*args):
            subprocess.run(("openssl",) + args, cwd=self.directory, check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)

        run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
            "-subj", "/CN=neon.cloud test CA", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
            "-subj", "/CN=127.0.0.1")
        with open(os.path.join(self.directory, "server.ext"), "w") as handle:
            handle.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n")
        run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "server.pem", "-days", "2", "-extfile", "server.ext")

    def server_context(self):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.server_cert, self.server_key)
        return context


def gzip_bomb(inflated_bytes, path):
    """A gzip file of ``inflated_bytes`` spaces, written without holding them in memory."""
    if os.path.exists(path):
        with open(path, "rb") as handle:
            return handle.read()
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b" " * (1024 * 1024)
    parts = []
    for _index in range(inflated_bytes // len(block)):
        parts.append(compressor.compress(block))
    parts.append(compressor.flush())
    data = b"".join(parts)
    with open(path, "wb") as handle:
        handle.write(data)
    return data
