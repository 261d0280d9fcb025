"""HTTP against one deadline: a POST whose every read, and the whole of them, must end in time.

A socket timeout bounds each read only, so a server trickling a byte a second would
never trip it; here each read gets what remains of the deadline, and a watchdog shuts
the socket when the deadline comes, whatever it is waiting for. Leaving — on time or
not — closes the connection, which is how a streaming server learns to stop generating.
Server-sent events (``data: …`` blocks) are read from the body as they come.
"""

import socket
import threading
import time
from http.client import HTTPConnection, HTTPException, HTTPSConnection
from urllib.parse import urlsplit

READ = 65_536
MOST_BYTES = 8_000_000   # no chat answer is this large; a runaway body is cut here


class Timeout(Exception):
    """The deadline passed."""


class Dropped(Exception):
    """The connection was refused, reset or ended early."""


class Connection:
    def __init__(self, url: str, deadline: float):
        self.url = urlsplit(url)
        self.deadline = deadline
        self._http = None
        self._sock = None
        self._watchdog = None
        self.cut = False

    def __enter__(self):
        kind = HTTPSConnection if self.url.scheme == "https" else HTTPConnection
        self._http = kind(self.url.hostname, self.url.port, timeout=self.remaining())
        self._watchdog = threading.Timer(self.remaining(), self._cut)
        self._watchdog.daemon = True
        self._watchdog.start()
        return self

    def __exit__(self, *exc):
        self._watchdog.cancel()
        self._http.close()
        if self._sock is not None:
            try:
                self._sock.close()
            except OSError:
                pass

    def remaining(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise Timeout()
        return left

    def post(self, data: bytes, headers: dict) -> tuple[int, str, "Body"]:
        """Send ``data``; the status, the content type and the body still to read."""
        path = self.url.path + (f"?{self.url.query}" if self.url.query else "")
        with self.guard():
            self._http.request("POST", path, body=data, headers=headers)
            self._sock = self._http.sock
            self._sock.settimeout(self.remaining())
            response = self._http.getresponse()
        return response.status, response.getheader("Content-Type", "") or "", Body(self, response)

    def guard(self):
        return _Guard(self)

    def _cut(self):
        self.cut = True
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Guard:
    """Turns what the socket raises into Timeout (past the deadline, or a socket timeout) or Dropped."""

    def __init__(self, connection: Connection):
        self.connection = connection

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if exc is None or isinstance(exc, (Timeout, Dropped)):
            return False
        late = self.connection.cut or time.monotonic() >= self.connection.deadline
        if late or isinstance(exc, (TimeoutError, socket.timeout)):
            raise Timeout() from None
        if isinstance(exc, (OSError, HTTPException)):
            raise Dropped(getattr(exc, "strerror", None) or str(exc) or type(exc).__name__) from None
        return False


class Body:
    def __init__(self, connection: Connection, response):
        self.connection = connection
        self.response = response
        self.size = 0

    def read(self) -> bytes:
        """The next bytes as they arrive; b"" at the end."""
        with self.connection.guard():
            if self.connection._sock is not None:
                self.connection._sock.settimeout(self.connection.remaining())
            chunk = self.response.read1(READ)
        if not chunk and self.connection.cut:
            raise Timeout()
        self.size += len(chunk)
        if self.size > MOST_BYTES:
            raise Dropped(f"the answer ran past {MOST_BYTES:,} bytes")
        return chunk

    def read_all(self) -> bytes:
        parts = []
        while chunk := self.read():
            parts.append(chunk)
        return b"".join(parts)

    def events(self):
        """The ``data`` of each server-sent event, in order."""
        pending = b""
        while True:
            chunk = self.read()
            pending = (pending + chunk).replace(b"\r\n", b"\n")
            *blocks, pending = pending.split(b"\n\n")
            if not chunk:
                blocks.append(pending)
            for block in blocks:
                data = [line[5:].removeprefix(b" ") for line in block.split(b"\n") if line.startswith(b"data:")]
                if data:
                    yield b"\n".join(data).decode("utf-8", "replace")
            if not chunk:
                return
