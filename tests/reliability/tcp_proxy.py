"""A loopback TCP proxy that can be cut: a database outage for one worker, without stopping the shared server."""

from __future__ import annotations

import contextlib
import socket
import threading


class Proxy:
    """Forward 127.0.0.1:`port` to `target`; `cut()` drops every connection and refuses new ones until `mend()`."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.open = threading.Event()
        self.open.set()
        self.sockets: set[socket.socket] = set()
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            # The check and the registration happen under the lock `cut()` takes: a connection accepted while the
            # proxy is being cut is either refused or registered (and then dropped by the cut), never left open
            # through the outage (that let a worker claim a run during an "outage", then strand it).
            with self.lock:
                if not self.open.is_set():
                    client.close()  # refused, as a stopped server's port would be
                    continue
                try:
                    upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=5)
                    upstream.settimeout(None)
                except OSError:
                    client.close()
                    continue
                self.sockets |= {client, upstream}
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        for sock in (source, sink):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        with self.lock:
            self.open.clear()
            sockets, self.sockets = self.sockets, set()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
                sock.close()

    def mend(self) -> None:
        self.open.set()

    def close(self) -> None:
        self.cut()
        self.server.close()
