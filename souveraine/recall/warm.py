"""Where a memory's warm recall server listens, and how a command asks it (recall/server.py).

A server writes ``.souveraine/recall-server.json`` — its socket, pid and code — once it
listens, and removes it when it exits. A recall from the command line reads that file, and
when it names a live server of the same code, sends the query there and prints the answer
as its own: the same hits, without loading the index's pages or the sentence encoder again.
A record whose socket refuses (the server died) is removed, with its socket, and the query
runs in the process as if no server had been there.

Cheap on purpose: the command line pays for this module on every recall (one small file
read, one connect), so it imports only ``json``, ``os`` and, to talk, ``_socket``.
"""

import json
import os

RECORD = "recall-server.json"
LOCK = "recall-server.lock"
LOG = "recall-server.log"
LOG_BYTES = 1 << 20             # a log past this size is begun again at the next start
OFF = "SOUVERAINE_NO_SERVER"    # set: recall neither asks a server nor starts one (tests, sandboxes)
WAIT = 30.0                     # seconds a query without vectors may take before recall runs it itself
WAIT_FOR_MODEL = 900.0          # … one that asked for vectors (the model loads, new documents are encoded)
SOCKET_ROOM = 100               # AF_UNIX paths hold 107 bytes at most (108 with the NUL)


def record_file(root) -> str:
    return os.path.join(root, ".souveraine", RECORD)


def code_mark() -> str:
    """What tells this code from another's: the version and recall's own files, so a server
    left running across an upgrade (or an edit of an editable install) is not asked."""
    from souveraine import __version__

    folder = os.path.dirname(__file__)
    newest = max(entry.stat().st_mtime_ns for entry in os.scandir(folder) if entry.name.endswith(".py"))
    return f"{__version__}:{newest}"


def socket_path(root) -> str:
    """The socket for the memory at ``root``: in a folder of this user's alone (mode 0700), under
    $XDG_RUNTIME_DIR, else the temporary folder, named by a hash of the memory's real path."""
    import hashlib

    name = hashlib.blake2b(os.path.realpath(root).encode(), digest_size=8).hexdigest() + ".sock"
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    places = [os.path.join(runtime, "souveraine")] if runtime and os.path.isdir(runtime) else []
    places.append(os.path.join(os.environ.get("TMPDIR") or "/tmp", f"souveraine-{os.getuid()}"))
    places.append(f"/tmp/souveraine-{os.getuid()}")
    for folder in places:
        if len(os.path.join(folder, name)) <= SOCKET_ROOM:
            return os.path.join(_private(folder), name)
    raise AssertionError("unreachable: /tmp/souveraine-<uid>/<16 hex>.sock is short")


def _private(folder: str) -> str:
    """``folder``, made if need be, refused unless it is a folder of this user's that no one else may enter."""
    import stat

    from souveraine.errors import UsageError

    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    found = os.lstat(folder)
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.getuid() or found.st_mode & 0o077:
        raise UsageError(f"{folder} is not a private folder of this user's (mode 0700); remove it, or set "
                         "XDG_RUNTIME_DIR to one")
    return folder


def read_record(root) -> dict | None:
    try:
        with open(record_file(root), encoding="utf-8") as file:
            record = json.load(file)
        return record if isinstance(record, dict) and isinstance(record.get("socket"), str) else None
    except (OSError, ValueError):
        return None


def talk(root, request: dict, wait: float | None = WAIT) -> dict | None:
    """The answer of the server of ``root`` to ``request``; None when none answers (a dead one's
    record and socket are removed), when it runs other code, or when it takes longer than ``wait``."""
    record = read_record(root)
    if record is None:
        return None
    import _socket          # the socket module's C core: ``socket`` itself imports enum, a third of a client's start

    client = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        client.settimeout(wait)
        try:
            client.connect(record["socket"])
        except (FileNotFoundError, ConnectionRefusedError):
            forget(root, record)
            return None
        client.sendall(json.dumps(request, ensure_ascii=False).encode() + b"\n")
        data = bytearray()
        while not data.endswith(b"\n"):
            chunk = client.recv(1 << 16)
            if not chunk:
                return None
            data += chunk
        return json.loads(data)
    except (OSError, ValueError):       # a timeout, a server gone mid-answer
        return None
    finally:
        client.close()


def forget(root, record: dict) -> None:
    """Remove the record of a server that no longer listens, and its socket (if the record is still that one)."""
    if read_record(root) != record:
        return                          # a new server wrote its own meanwhile
    import stat

    try:
        if stat.S_ISSOCK(os.lstat(record["socket"]).st_mode):
            os.unlink(record["socket"])
    except OSError:
        pass
    try:
        os.unlink(record_file(root))
    except OSError:
        pass


class Answer:
    """A server's answer in the shape of search.Result, as far as the command prints it: ``hits``
    (each with ``to_dict()``) and ``readings`` (each ``phrase``, ``note``, ``span.since``/``until``)."""

    def __init__(self, data: dict):
        self.hits = [_Hit(hit) for hit in data["hits"]]
        self.readings = [_Reading(**reading) for reading in data["readings"]]


class _Hit:
    def __init__(self, data: dict):
        self.data = data

    def to_dict(self) -> dict:
        return self.data


class _Reading:
    def __init__(self, phrase: str, since, until, note: str):
        self.phrase, self.note = phrase, note
        self.span = self
        self.since, self.until = since, until


_here = False       # this process answers its own queries, warm (the MCP server, the recall server)


def answer_here() -> None:
    """From now on this process runs its recalls itself: it keeps its own index and model warm."""
    global _here
    _here = True


def recall(memory, text: str, **options) -> Answer | None:
    """The answer of this memory's warm server to a recall (``options`` as search.recall's), or
    None: run it here. Where ``[recall] semantic`` is "auto" or true and the sentence encoder
    is installed, a recall no server answered starts one in the background for the next."""
    if _here or os.environ.get(OFF) or os.environ.get("SOUVERAINE_NOW"):
        return None                 # another clock is this process's alone
    configured = memory.config["recall"].get("semantic")
    asked = configured if options.get("semantic") is None else options["semantic"]
    request = {"op": "recall", "code": code_mark(), "text": text, **options}
    answer = talk(memory.root, request, WAIT_FOR_MODEL if asked is True else WAIT)
    if answer is not None and answer.get("ok"):
        return Answer(answer)
    if answer is None and configured in ("auto", True):
        start(memory)
    return None


def start(memory) -> bool:
    """Start a server for ``memory`` in the background, when the sentence encoder is installed
    (a server without it would save little). True when one was started."""
    from souveraine.recall import semantic

    if not semantic.available(memory):
        return False
    spawn(memory.root)
    return True


def ahead(memory) -> bool:
    """At a session's start: a server for ``memory`` started in the background, so the session's
    first recall is served warm, where it helps — ``[recall] semantic`` is "auto" or true and
    the sentence encoder is installed — and none listens yet. Never waits for it, prints or
    raises: a session's start must not pay for it. True when one was started."""
    if os.environ.get(OFF):
        return False
    try:
        from souveraine.recall import semantic

        if semantic.mode(memory) is False or listening(memory.root):
            return False
        return start(memory)
    except Exception:               # a broken config or install: recall says so when asked, not the wake
        return False


def listening(root) -> bool:
    """Whether a server listens for ``root`` (a connection, no request: a busy one answers it at once)."""
    record = read_record(root)
    if record is None:
        return False
    import _socket

    client = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        client.settimeout(1.0)
        client.connect(record["socket"])
        return True
    except (FileNotFoundError, ConnectionRefusedError):
        forget(root, record)
        return False
    except OSError:                 # a full backlog: one is there, busy
        return True
    finally:
        client.close()


def spawn(root, idle_minutes: float | None = None):
    """A detached ``souveraine serve`` for ``root``, its stderr in ``.souveraine/recall-server.log``."""
    import subprocess
    import sys

    argv = [sys.executable, "-m", "souveraine", "--memory", str(root), "serve"]
    if idle_minutes is not None:
        argv += ["--idle", str(idle_minutes)]
    log_file = os.path.join(root, ".souveraine", LOG)
    kept = os.path.exists(log_file) and os.path.getsize(log_file) < LOG_BYTES
    with open(log_file, "ab" if kept else "wb") as log:       # begun again past LOG_BYTES
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, cwd=root,
                                start_new_session=True, close_fds=True)
