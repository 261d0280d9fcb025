"""One lock per memory, so two commands at once never corrupt the index or a note.

A flock on .souveraine/lock, taken first come, first served: each waiter takes a ticket,
a file in ``.souveraine/lock.queue/`` named by its arrival and flock'd by its owner for
as long as it waits or holds the lock. A waiter takes the lock only when no live ticket
is ahead of its own; a ticket whose owner died is unlocked, and the next in line removes
it. The wait is bounded (``[git] lock_timeout``); the message then names the holder, how
long it has held the lock, and how long this process waited.

Re-entrant within one thread, so library functions can nest; other threads wait
(flock locks belong to each open file, so they exclude threads as well as processes).
"""

import fcntl
import os
import sys
import time
from _thread import get_ident     # threading.get_ident itself, without importing threading
from contextlib import contextmanager
from pathlib import Path

from souveraine.errors import LockTimeout

_held: dict[tuple[str, int], tuple[int, int]] = {}
_POLL_FIRST, _POLL_MOST = 0.002, 0.05


@contextmanager
def locked(path: Path, timeout: float = 10.0, what: str = "the memory"):
    key = (str(path), get_ident())
    if key in _held:
        fd, depth = _held[key]
        _held[key] = (fd, depth + 1)
        try:
            yield False
        finally:
            fd, depth = _held[key]
            _held[key] = (fd, depth - 1)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    ticket = _Ticket(path)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            deadline = started + timeout
            ticket.wait_turn(deadline, lambda: _busy(fd, what, started, ticket))
            _acquire(fd, deadline, lambda: _busy(fd, what, started, ticket))
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\t{time.time():.3f}\t{_command()}\n".encode(), 0)
            _held[key] = (fd, 1)
            try:
                yield True
            finally:
                del _held[key]
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
    finally:
        ticket.release()


def holder(path: Path) -> dict | None:
    """Who holds (or last held) the lock at ``path``: pid, since (epoch seconds), command."""
    try:
        return _parse(Path(path).read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None


class _Ticket:
    """A place in the queue: a file named by arrival, flock'd by its owner while it lives."""

    def __init__(self, path: Path):
        self.queue = path.parent / f"{path.name}.queue"
        self.queue.mkdir(exist_ok=True)
        self.name = f"{time.time_ns():020d}-{os.getpid()}-{get_ident() % 100000:05d}-{os.urandom(2).hex()}"
        # Locked before it is visible, so no one takes a new ticket for a dead one.
        scratch = self.queue / f".{self.name}"
        self.fd = os.open(scratch, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        os.rename(scratch, self.queue / self.name)

    def ahead(self) -> list[str]:
        try:
            return sorted(n for n in os.listdir(self.queue) if not n.startswith(".") and n < self.name)
        except FileNotFoundError:
            return []

    def wait_turn(self, deadline: float, busy) -> None:
        """Until every ticket ahead is gone: its owner took the lock and let it go, or died."""
        delay = _POLL_FIRST
        while True:
            ahead = self.ahead()
            if not ahead:
                return
            if _dead(self.queue / ahead[-1]):
                (self.queue / ahead[-1]).unlink(missing_ok=True)
                continue
            if time.monotonic() >= deadline:
                raise busy()
            time.sleep(delay)
            delay = min(delay * 1.5, _POLL_MOST)

    def release(self) -> None:
        (self.queue / self.name).unlink(missing_ok=True)
        os.close(self.fd)


def _dead(ticket: Path) -> bool:
    """Whether no one holds the ticket's flock (its owner is gone); False when it is gone too."""
    try:
        fd = os.open(ticket, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def _acquire(fd: int, deadline: float, busy) -> None:
    """The lock itself; first in line, this waits only for a holder from outside the queue."""
    delay = _POLL_FIRST
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise busy() from None
            time.sleep(delay)
            delay = min(delay * 1.5, _POLL_MOST)


def _busy(fd: int, what: str, started: float, ticket: _Ticket) -> LockTimeout:
    waited = time.monotonic() - started
    found = _parse(os.pread(fd, 512, 0).decode(errors="replace"))
    if found:
        held = f" for {time.time() - found['since']:.1f}s" if found["since"] else ""
        who = f"pid {found['pid']}" + (f" ({found['command']})" if found["command"] else "") + held
    else:
        who = "another process"
    ahead = len(ticket.ahead())
    queue = f", {ahead - 1} more waiting before this one" if ahead > 1 else ""
    return LockTimeout(f"{what} is busy (held by {who}{queue}); this process waited {waited:.1f}s; "
                       "try again when it finishes, or raise [git] lock_timeout")


def _parse(line: str) -> dict | None:
    parts = line.strip().split("\t")
    if not parts or not parts[0].isdigit():
        return None
    since = float(parts[1]) if len(parts) > 1 and _number(parts[1]) else None
    return {"pid": int(parts[0]), "since": since, "command": parts[2] if len(parts) > 2 else ""}


def _number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _command() -> str:
    """What holds the lock, for the message a waiter reads: ``souveraine persist``."""
    rest, args = list(sys.argv[1:]), []
    while rest and not args:
        word = rest.pop(0)
        if word == "--memory" and rest:
            rest.pop(0)
        elif not word.startswith("-"):
            args.append(word)
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "python"
    if name in ("-c", "") or name.endswith(".py") and not args:
        return "python"
    return " ".join(["souveraine" if name in ("souveraine", "__main__.py") else name, *args])[:60]
