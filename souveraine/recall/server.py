"""The warm recall server: one long-lived process per memory that answers recall over a Unix socket.

A recall from the command line starts a Python process, opens the index and, with sentence
vectors, loads a model for seconds; an agent that calls the binary at every prompt pays that
every time. The server (``souveraine serve``) pays it once: it keeps the index's connections
open (``index.keep_open``) and the sentence encoder loaded (``semantic.keep_warm``), and
answers each query exactly as the command line would — every query brings the index up to
date first and reads souveraine.toml again, as the MCP server does — so the output is the
same, only sooner.

The wire: one JSON object a line each way over a stream socket of mode 0600 in a folder of
mode 0700 (warm.socket_path); ``{"op": "recall", "code": …, "text": …, <recall's options>}``
answers ``{"ok": true, "hits": […], "readings": […]}``; ``ping`` tells the server's state,
``stop`` ends it. A refusal answers ``{"ok": false, "code", "message"}``, and the command
line runs the query itself to say it in its usual words.

While no query comes, the server computes the vectors of documents that have none yet
(``semantic.fill``, a small batch at a time, yielding to queries), so a query never pays for
a busy day's turns; and it scans the work tree before a query would have to (recall/ahead.py):
the index's quick look becomes a ``git status`` over every file once its last scan is five
minutes old (150 to 220 ms at ten years), which an agent asking once per prompt, minutes
apart, would otherwise pay at nearly every query. It exits once it has been
idle ``[recall] server_idle_minutes`` (and has no vectors left to compute), on SIGTERM or
SIGINT, or when asked by a command of other code (an upgrade), removing its socket and its
record.
"""

import json
import os
import signal
import socket
import sys
import threading
import time
import traceback
from pathlib import Path

from souveraine.errors import SouveraineError, UsageError
from souveraine.recall import warm

LINE = 1 << 20          # a request is one line of at most this many bytes
OPTIONS = ("since", "until", "tier", "within", "person", "limit", "private", "recency", "now", "context", "every",
           "semantic")     # what a request may pass on to search.recall: the command's options
FILL_BATCH = 16         # documents encoded between two looks for a waiting query (~0.3 s)


class Server:
    """The recall server of the memory at ``root``; ``run()`` serves until idle or stopped."""

    def __init__(self, root: Path, idle_minutes: float | None = None):
        from souveraine.store.memory import Memory

        self.root = Path(root)
        memory = Memory(self.root)
        self.idle = 60 * (idle_minutes if idle_minutes is not None else memory.config["recall"]["server_idle_minutes"])
        self.code = warm.code_mark()
        self.started = time.time()
        self.last = time.monotonic()        # the end of the latest query
        self.active = 0                     # queries being answered
        self.served = 0
        self.filling = False
        self.filled = 0
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.changed = threading.Event()    # a query came: the index may hold new documents
        self.scanner = None                 # the work tree scanned ahead (recall/ahead.py)
        self.matcher = None
        self.file = None
        self.listener: socket.socket | None = None
        self._lockfile = None

    # -- life ------------------------------------------------------------------------------

    def run(self, listening=None) -> None:
        """Listen (then call ``listening(socket path)``), serve, and clean up on the way out, whatever the way."""
        self._hold()
        try:
            self._listen()
            if listening:
                listening(self.path)
            self._warm()
            signal.signal(signal.SIGTERM, lambda *_: self.stopping.set())
            self._loop()
        finally:
            self._close()

    def _hold(self) -> None:
        """The memory's one server: a lock on ``.souveraine/recall-server.lock`` for its life."""
        import fcntl

        folder = self.root / ".souveraine"
        folder.mkdir(exist_ok=True)
        self._lockfile = open(folder / warm.LOCK, "a+")
        try:
            fcntl.flock(self._lockfile, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lockfile.close()
            self._lockfile = None
            record = warm.read_record(self.root) or {}
            raise Running(f"a recall server already runs for this memory (pid {record.get('pid', '?')}); "
                          "'souveraine serve --stop' ends it") from None

    def _listen(self) -> None:
        path = warm.socket_path(self.root)
        if os.path.lexists(path):
            os.unlink(path)             # we hold the lock: whoever made it is gone
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        mask = os.umask(0o177)
        try:
            listener.bind(path)
        finally:
            os.umask(mask)
        os.chmod(path, 0o600)
        listener.listen(64)
        listener.settimeout(0.5)
        self.listener, self.path = listener, path
        record = {"socket": path, "pid": os.getpid(), "code": self.code,
                  "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(self.started))}
        target = warm.record_file(self.root)
        temp = f"{target}.{os.getpid()}.tmp"
        with open(temp, "w", encoding="utf-8") as file:
            json.dump(record, file)
        os.replace(temp, target)
        self.record = record

    def _warm(self) -> None:
        """The index kept open; the model loaded and the missing vectors filled, in the background,
        unless the memory turned sentence vectors off (or no encoder is installed)."""
        from souveraine.laws import inprocess
        from souveraine.recall import ahead, index, semantic
        from souveraine.store.memory import Memory

        inprocess.enable()
        index.keep_open()
        self.scanner = ahead.Scanner(self.root, self._calm, self.stopping).start()
        memory = Memory(self.root)
        if semantic.mode(memory) is False or not semantic.available(memory):
            return
        self.file = semantic.location(memory)
        self.matcher = semantic.keep_warm(self.file, semantic.current(memory))
        threading.Thread(target=self._fill, name="vectors", daemon=True).start()

    def _loop(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                if self._idle():
                    return
                continue
            with self.lock:
                self.active += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _idle(self) -> bool:
        with self.lock:
            scanning = self.scanner is not None and self.scanner.scanning
            return not self.active and not self.filling and not scanning and time.monotonic() - self.last > self.idle

    def _close(self) -> None:
        if self.listener is not None:
            self.listener.close()
            if warm.read_record(self.root) == getattr(self, "record", None):
                for path in (self.path, warm.record_file(self.root)):
                    try:
                        os.unlink(path)
                    except OSError:
                        pass
        if self._lockfile is not None:
            self._lockfile.close()      # the lock goes with it

    # -- queries ---------------------------------------------------------------------------

    def _serve(self, conn: socket.socket) -> None:
        request = {}
        try:
            with conn:
                conn.settimeout(10)
                request = _read_line(conn)
                answer = self.answer(request)
                conn.sendall(json.dumps(answer, ensure_ascii=False, default=str).encode() + b"\n")
        except (OSError, ValueError):
            request = {}                # a client gone or garbled: nothing to answer
        finally:
            with self.lock:
                self.active -= 1
                if request.get("op") == "recall":
                    self.served += 1
                    self.last = time.monotonic()
            self.changed.set()
            if self.scanner is not None:
                self.scanner.nudge()

    def answer(self, request: dict) -> dict:
        op = request.get("op")
        if op == "ping":
            return {"ok": True, **self.status()}
        if op == "stop":
            self.stopping.set()
            return {"ok": True, "stopping": True}
        if op != "recall":
            return {"ok": False, "code": "usage", "message": f"no operation {op!r}; the operations are recall, ping, stop"}
        if request.get("code") != self.code:
            self.stopping.set()         # a command of other code asked: make room for a server of its own
            return {"ok": False, "code": "other_code", "message": "this server runs other code; it stops"}
        try:
            return self._recall(request)
        except SouveraineError as exc:
            return {"ok": False, "code": exc.code, "message": exc.message}
        except Exception:
            traceback.print_exc(file=sys.stderr)
            return {"ok": False, "code": "internal", "message": "the server failed; its log says why"}

    def _recall(self, request: dict) -> dict:
        from souveraine.recall.search import recall
        from souveraine.store.memory import Memory

        options = {k: v for k, v in request.items() if k not in ("op", "code", "text")}
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise UsageError(f"recall takes no {', '.join(sorted(unknown))}; it takes {', '.join(OPTIONS)}")
        result = recall(Memory(self.root), request.get("text", ""), **options)
        return {"ok": True, "hits": [hit.to_dict() for hit in result.hits],
                "readings": [{"phrase": r.phrase, "since": r.span.since, "until": r.span.until, "note": r.note}
                             for r in result.readings]}

    def status(self) -> dict:
        from souveraine.recall import semantic

        return {"pid": os.getpid(), "socket": self.path, "memory": str(self.root), "code": self.code,
                "started": self.record["started"], "served": self.served, "idle_minutes": self.idle / 60,
                "vectors": ("off" if self.matcher is None else "ready" if semantic.loaded(self.matcher.which)
                            else "loading"),
                "encoder": self.matcher.which.name if self.matcher is not None else None,
                "filling": self.filling, "filled": self.filled,
                "scans": self.scanner.scans if self.scanner is not None else 0}

    # -- vectors ahead ---------------------------------------------------------------------

    def _fill(self) -> None:
        """Compute the vectors documents lack whenever the index changed, yielding to queries."""
        from souveraine.recall import index, semantic
        from souveraine.store.memory import Memory

        try:
            semantic.encoder(self.matcher.which)
        except Exception:
            traceback.print_exc(file=sys.stderr)
            return
        seen, known = None, set()
        while not self.stopping.is_set():
            try:
                conn, _ = index.fresh(Memory(self.root))
                try:
                    state = semantic.state(conn)
                    if state != seen:
                        with self.lock:
                            self.filling = True
                        try:
                            made = semantic.fill(conn, self.file, pause=self._yield, batch=FILL_BATCH, known=known,
                                                 which=self.matcher.which)
                        except BaseException:
                            known.clear()       # look at every document again next time
                            raise
                        self.filled += made
                        seen = state
                        if made:
                            with self.lock:
                                self.last = time.monotonic()    # idle counts from the work's end
                finally:
                    conn.close()
            except _Stopping:
                return
            except Exception:
                traceback.print_exc(file=sys.stderr)
            finally:
                with self.lock:
                    self.filling = False
            self.changed.wait(60)
            self.changed.clear()

    def _calm(self) -> None:
        """Return once no query is being answered nor was a moment ago (or the server stops)."""
        try:
            self._yield()
        except _Stopping:
            pass

    def _yield(self) -> None:
        """Before each batch: wait while a query is answered or one was a moment ago."""
        while True:
            if self.stopping.is_set():
                raise _Stopping
            with self.lock:
                calm = not self.active and time.monotonic() - self.last > 0.2
            if calm:
                return
            time.sleep(0.1)


class Running(UsageError):
    """A server already runs for this memory."""

    exit_code = 1
    code = "running"


class _Stopping(Exception):
    pass


def _read_line(conn: socket.socket) -> dict:
    data = bytearray()
    while not data.endswith(b"\n"):
        chunk = conn.recv(1 << 16)
        if not chunk:
            break
        data += chunk
        if len(data) > LINE:
            raise ValueError("request too long")
    request = json.loads(data)
    if not isinstance(request, dict):
        raise ValueError("a request is a JSON object")
    return request


def stop(root: Path, wait: float = 10.0) -> dict | None:
    """Ask the server of ``root`` to stop and wait for it to go; its record as it was, or None if none ran."""
    record = warm.read_record(root)
    if record is None or warm.talk(root, {"op": "stop"}, wait) is None:
        return None
    deadline = time.monotonic() + wait
    while os.path.exists(warm.record_file(root)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return record


def start(root: Path, idle_minutes: float | None = None, wait: float = 30.0) -> dict:
    """A server for ``root`` started in the background (or the one already there), once it answers."""
    answer = warm.talk(root, {"op": "ping"}, 5)
    if answer is not None:
        return answer
    process = warm.spawn(root, idle_minutes)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        answer = warm.talk(root, {"op": "ping"}, 5)
        if answer is not None:
            return answer
        if process.poll() is not None and warm.read_record(root) is None:
            raise SouveraineError(f"the recall server stopped at start; {Path(root) / '.souveraine' / warm.LOG} "
                                  "says why", code="server_failed")
        time.sleep(0.05)
    raise SouveraineError(f"the recall server did not answer within {wait:.0f} s; "
                          f"{Path(root) / '.souveraine' / warm.LOG} says why", code="server_failed")
