# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Scale to zero with real computes (``--postgres``): what Neon's proxy does for a suspended compute.

- A suspended compute's port is held by a listener of this module: a connection to it wakes the compute
  (``wake(key)``: a ``start_compute`` operation, as the control plane records one, and the server started),
  and that first connection is relayed to the server; the next ones reach the server itself.
- A compute with client sessions is active: :func:`has_sessions` tells it from the server's processes
  (each TCP session is a backend process whose title names the client's address), so a compute in use does
  not suspend itself by its timeout while a session is open, as on Neon.
"""

from __future__ import annotations

import logging
import selectors
import socket
import threading

_LOG = logging.getLogger("neon_simulator.postgres")
RELAY_CHUNK = 65536
CONNECT_TIMEOUT = 30.0


def has_sessions(postmaster_pid):
    """Whether the server has a client session over TCP (Linux: its backends' titles; elsewhere never)."""
    try:
        with open("/proc/%d/task/%d/children" % (postmaster_pid, postmaster_pid), encoding="ascii") as children:
            pids = children.read().split()
    except OSError:
        return False
    for pid in pids:
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as cmdline:
                title = cmdline.read()
        except OSError:
            continue
        if b"127.0.0.1(" in title or b"::1(" in title:
            return True
    return False


def _pipe(source, target):
    try:
        while True:
            data = source.recv(RELAY_CHUNK)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, target):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def relay(client, port):
    """Carry ``client``'s connection to the server on ``port`` and back, until either side closes."""
    try:
        server = socket.create_connection(("127.0.0.1", port), timeout=CONNECT_TIMEOUT)
    except OSError:
        client.close()
        return
    server.settimeout(None)
    back = threading.Thread(target=_pipe, args=(server, client), name="neon-simulator-relay", daemon=True)
    back.start()
    _pipe(client, server)
    back.join()
    client.close()
    server.close()


class Waker:
    """The listeners on suspended computes' ports; ``wake(key)`` starts the compute and answers its server's port
    (None: the connection is refused)."""

    def __init__(self, wake):
        self.wake = wake
        self.listeners = {}  # key -> listening socket
        self.lock = threading.Lock()
        self.selector = selectors.DefaultSelector()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="neon-simulator-wake", daemon=True)
        self.thread.start()

    def listen(self, key, port):
        """Hold ``port`` for the suspended compute ``key``; False when the port is taken."""
        with self.lock:
            if key in self.listeners:
                return True
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                listener.bind(("127.0.0.1", port))
                listener.listen(16)
            except OSError:
                listener.close()
                return False
            listener.setblocking(False)
            self.listeners[key] = listener
            self.selector.register(listener, selectors.EVENT_READ, key)
            return True

    def close(self, key):
        """Free the port of ``key`` (its server is about to listen there, or it is gone)."""
        with self.lock:
            listener = self.listeners.pop(key, None)
            if listener is not None:
                self.selector.unregister(listener)
                listener.close()

    def keys(self):
        with self.lock:
            return list(self.listeners)

    def _loop(self):
        while not self.stopping.is_set():
            with self.lock:
                empty = not self.listeners
            if empty:
                self.stopping.wait(0.1)
                continue
            for selected, _events in self.selector.select(timeout=0.1):
                try:
                    client, _address = selected.fileobj.accept()
                except OSError:
                    continue
                client.setblocking(True)
                threading.Thread(target=self._serve, args=(selected.data, client), name="neon-simulator-wake",
                                 daemon=True).start()

    def _serve(self, key, client):
        try:
            port = self.wake(key)
        except Exception:  # pylint: disable=broad-except
            _LOG.exception("waking compute %s", key[1])
            port = None
        if port is None:
            client.close()
            return
        relay(client, port)

    def stop(self):
        self.stopping.set()
        for key in self.keys():
            self.close(key)
        self.thread.join(5)
        self.selector.close()
