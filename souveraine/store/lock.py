"""One lock per memory, so two commands at once never corrupt the index or a note.

A flock on .souveraine/lock: the second command waits a bounded time, then fails with a
clear message. Re-entrant within one thread, so library functions can nest; other threads wait
(flock locks belong to each open file, so they exclude threads as well as processes).
"""

import fcntl
import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from souveraine.errors import LockTimeout

_held: dict[tuple[str, int], tuple[int, int]] = {}


@contextmanager
def locked(path: Path, timeout: float = 10.0, what: str = "the memory"):
    key = (str(path), threading.get_ident())
    if key in _held:
        fd, depth = _held[key]
        _held[key] = (fd, depth + 1)
        try:
            yield
        finally:
            fd, depth = _held[key]
            _held[key] = (fd, depth - 1)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        _acquire(fd, timeout, what)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        _held[key] = (fd, 1)
        try:
            yield
        finally:
            del _held[key]
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _acquire(fd: int, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "another process"
                raise LockTimeout(
                    f"{what} is busy (held by pid {holder} for over {timeout:g}s); try again when it finishes"
                ) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.1)
